"""A batch of agent runs of which a share is hostile: unreadable folders, odd names, links,
huge files, FIFOs, echo bombs. Used by tests/grading/test_batch_hostile.py and by
bench/bench_hostile_batch.py (1,000 runs).

Three tasks from the corpus: ``value`` (Tabular, leaderboard), ``label`` (Image, leaderboard),
``txt`` (Text, no leaderboard). Every run records the status it must end with.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import Difficulty, Modality, TaskSpec
from tests.grading.corpus import TASKS, perfect_text

#: Names an agent (or its runs) may choose: each breaks a naive report somewhere.
ODD_NAMES = [
    "$\\frac{a}{b}\\unknownmacro$",          # matplotlib mathtext
    "<script>alert(1)</script>",             # HTML
    "\x1b[31mred\x1b[0m\x07",                # terminal escapes and a bell
    "line\rbreak\nname",                     # CR and LF
    "evil\u202etxt.exe",                     # right-to-left override
    "=cmd|' /C calc'!A0",                    # spreadsheet formula
    "-2+3",                                  # formula starting with a sign
    "comma, \"quoted\" name",                # CSV quoting
    "a" * 240,                               # long
    "\u3000＝1+1",                            # full-width formula after an ideographic space
    "[red]markup[/red] & <b>",               # console markup and HTML
]
#: Agents of the ordinary runs: plain names and every odd one.
AGENTS = [f"agent{k}" for k in range(4)] + ODD_NAMES
#: A name that is not UTF-8 (bytes written to the file system as they are).
BYTES_NAME = b"agent-\xff\xfe-latin"

HOSTILE_KINDS = (
    "unreadable_run", "unreadable_agent", "odd_run", "bytes_agent", "symlinked_run",
    "link_to_answers", "huge_file", "fifo", "folder_submission", "echo_bomb", "cr_formula",
    "unknown_task",
)
EXPECTED = {
    "unreadable_run": "unreadable", "unreadable_agent": "unreadable", "odd_run": "graded_valid",
    "bytes_agent": "graded_valid", "symlinked_run": "invalid_submission",
    "link_to_answers": "invalid_submission", "huge_file": "invalid_submission",
    "fifo": "invalid_submission", "folder_submission": "invalid_submission",
    "echo_bomb": "invalid_submission", "cr_formula": "invalid_submission",
    "unknown_task": "task_unknown",
}
#: Size of the sparse "huge" submissions (over any size cap; costs no disk).
HUGE_BYTES = 3 * 1024**3
#: Marker in the names of folders made unreadable (tests running as root simulate them).
UNREADABLE = "unreadable"


@dataclass
class Batch:
    catalogue: Path
    data: Path
    runs: Path
    expected: dict[str, int] = field(default_factory=dict)
    """Expected count per status."""
    hostile: dict[str, int] = field(default_factory=dict)
    """Runs per hostile kind."""
    unreadable: list[Path] = field(default_factory=list)
    """Folders chmod 000 (unreadable to anyone but root)."""


def make_tasks(root: Path) -> tuple[Path, Path]:
    cat, data = root / "catalogue", root / "data"
    meta = {"value": (Modality.TABULAR, "easy", [0.5 + 0.1 * i for i in range(20)]),
            "label": (Modality.IMAGE, "hard", [1.0, 0.9, 0.8, 0.5, 0.2]),
            "txt": (Modality.TEXT, "medium", None)}
    for name, (mod, tier, scores) in meta.items():
        task = TASKS[name]
        spec = TaskSpec(id=f"test/{name}", platform="test", modality=mod,
                        difficulty=Difficulty(score=0.5, tier=tier), grading=task.grading)
        folder = cat / "test" / name
        folder.mkdir(parents=True)
        save_taskspec(spec, folder / "task.json")
        if scores is not None:
            board = "".join(f"{i + 1},team{i},{s},1,2024-01-01\n" for i, s in enumerate(scores))
            (folder / "leaderboard.csv").write_text("Rank,TeamName,Score,Entries,LastSubmission\n"
                                                    + board)
        private = data / "test" / name / "private"
        private.mkdir(parents=True)
        (private / task.grading.answers_file).write_text(task.answers)
    return cat, data


def _sub_name(task: str) -> str:
    return "submission.txt" if task == "txt" else "submission.csv"


def _normal(folder: Path, task: str, rng: random.Random) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    t = TASKS[task]
    if rng.random() < 0.15:  # the agent gave up: no submission
        return "missing_submission"
    if task == "value" and rng.random() < 0.5:  # a noisy but valid submission
        body = "".join(f"{r[0]},{float(r[1]) + rng.uniform(0, 2):.6f}\n" for r in t.perfect_rows)
        (folder / "submission.csv").write_text("id,y\n" + body)
        return "graded_valid"
    (folder / _sub_name(task)).write_text(perfect_text(t))
    return "graded_valid"


def _hostile(batch: Batch, kind: str, i: int, rng: random.Random) -> None:
    runs = batch.runs
    agent, task, run = f"agent{i % 7}", "value", f"h{i:05d}"
    folder = runs / agent / task / run
    if kind == "unreadable_run":
        folder = runs / agent / task / f"{UNREADABLE}-{i:05d}"
        _normal(folder, task, rng)
        batch.unreadable.append(folder)
    elif kind == "unreadable_agent":
        folder = runs / f"{UNREADABLE}-agent-{i:05d}" / task / run
        _normal(folder, task, rng)
        batch.unreadable.append(folder.parent.parent)
    elif kind == "odd_run":
        name = ODD_NAMES[i % len(ODD_NAMES)][::-1] + f"-{i}"
        folder = runs / agent / task / name.replace("/", "_")
        folder.mkdir(parents=True)
        (folder / "submission.csv").write_text(perfect_text(TASKS[task]))
    elif kind == "bytes_agent":
        raw = os.fsencode(runs) + b"/" + BYTES_NAME + f"-{i}".encode() + b"/value/" + run.encode()
        os.makedirs(raw)
        with open(raw + b"/submission.csv", "w") as fh:
            fh.write(perfect_text(TASKS[task]))
    elif kind == "symlinked_run":
        real = batch.runs.parent / "elsewhere" / run
        real.mkdir(parents=True)
        (real / "submission.csv").write_text(perfect_text(TASKS[task]))
        folder.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(real, folder)
    elif kind == "link_to_answers":
        folder.mkdir(parents=True)
        os.symlink(batch.data / "test" / task / "private" / "answers.csv",
                   folder / "submission.csv")
    elif kind == "huge_file":
        folder.mkdir(parents=True)
        with open(folder / "submission.csv", "wb") as fh:
            fh.truncate(HUGE_BYTES)
    elif kind == "fifo":
        folder.mkdir(parents=True)
        os.mkfifo(folder / "submission.csv")
    elif kind == "folder_submission":
        (folder / "submission.csv").mkdir(parents=True)
    elif kind == "echo_bomb":
        folder.mkdir(parents=True)
        (folder / "submission.csv").write_text("id,y\n" + "x" * 1_000_000 + ",1\n")
    elif kind == "cr_formula":
        folder.mkdir(parents=True)
        (folder / "submission.csv").write_text('id,y\n"1\r=HYPERLINK(""http://e.x"")",1\n')
    elif kind == "unknown_task":
        folder = runs / agent / "valeu" / run
        folder.mkdir(parents=True)
        (folder / "submission.csv").write_text(perfect_text(TASKS[task]))
    batch.hostile[kind] = batch.hostile.get(kind, 0) + 1
    status = EXPECTED[kind]
    batch.expected[status] = batch.expected.get(status, 0) + 1


def build_hostile_batch(root: Path, n_runs: int, *, hostile_share: float = 0.1,
                        seed: int = 0) -> Batch:
    """``n_runs`` runs, ``hostile_share`` of them hostile (kinds in turn)."""
    rng = random.Random(seed)
    cat, data = make_tasks(root)
    batch = Batch(cat, data, root / "runs")
    batch.runs.mkdir()
    n_hostile = round(n_runs * hostile_share)
    for i in range(n_hostile):
        _hostile(batch, HOSTILE_KINDS[i % len(HOSTILE_KINDS)], i, rng)
    for i in range(n_runs - n_hostile):
        task = ("value", "label", "txt")[i % 3]
        agent = AGENTS[(i // 3) % len(AGENTS)].replace("/", "_")
        status = _normal(batch.runs / agent / task / f"r{i:05d}", task, rng)
        batch.expected[status] = batch.expected.get(status, 0) + 1
    return batch


def lock(batch: Batch) -> None:
    """Make the unreadable folders unreadable (effective for users other than root)."""
    for folder in batch.unreadable:
        os.chmod(folder, 0)


def unlock(batch: Batch) -> None:
    """Undo :func:`lock` so the tree can be deleted."""
    for folder in batch.unreadable:
        os.chmod(folder, 0o755)
