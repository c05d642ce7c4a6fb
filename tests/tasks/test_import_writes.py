"""How an import writes the catalogue: hand-placed boards are kept, each entry is written whole
or not at all (Ctrl-C, kill -9, a file too large), and a re-import reports exactly the files it
changed."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tambench.cli.main import main
from tambench.errors import CatalogueError
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.schema.taskspec import GradingSpec, TaskSpec
from tambench.tasks import importers
from tambench.tasks.importers import ImportedTask, ImportInterrupted, read_tree, write_imported
from tambench.tasks.locate import catalogue_ids
from tests.tasks.test_import_hostile import BOARD, DESCRIPTION, competition, mle_tree

REPO = Path(__file__).resolve().parents[2]
HAND_BOARD = "rank,score\n1,0.5\n2,0.4\n"


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) -> its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def hidden_leftovers(catalogue: Path) -> list[str]:
    return sorted(p.name for p in catalogue.rglob(".*"))


# --- 7. merge, never destroy -----------------------------------------------------------------

@pytest.mark.parametrize("mode", ["merge", "replace"])
def test_an_import_never_replaces_a_hand_placed_board(tmp_path: Path, mode: Any) -> None:
    mle_tree(tmp_path / "tree", "alpha")
    catalogue = tmp_path / "cat"
    entry = catalogue / "kaggle" / "alpha"
    entry.mkdir(parents=True)
    save_taskspec(TaskSpec(id="kaggle/alpha", platform="kaggle", status="incomplete"),
                  entry / "task.json")
    (entry / "leaderboard.csv").write_text(HAND_BOARD, encoding="utf-8")
    report = write_imported(read_tree("mle-bench", tmp_path / "tree"), catalogue,
                            on_existing=mode)
    assert (entry / "leaderboard.csv").read_text(encoding="utf-8") == HAND_BOARD
    spec = load_taskspec(entry / "task.json")
    assert spec.leaderboard is None  # no record describing a file that is not there
    assert spec.grading is not None  # the rest of the import is merged
    (kept,) = [c for c in report.conflicts if c.field == "leaderboard"]
    assert kept.task == "kaggle/alpha" and "placed by hand" in kept.existing
    assert kept.imported["rows"] == 4
    assert "leaderboard.csv" not in report.files["kaggle/alpha"]


def test_a_hand_placed_board_in_a_folder_without_task_json_is_kept(tmp_path: Path) -> None:
    mle_tree(tmp_path / "tree", "alpha")
    entry = tmp_path / "cat" / "kaggle" / "alpha"
    entry.mkdir(parents=True)
    (entry / "leaderboard.csv").write_text(HAND_BOARD, encoding="utf-8")
    report = write_imported(read_tree("mle-bench", tmp_path / "tree"), tmp_path / "cat")
    assert report.written == ["kaggle/alpha"]
    assert (entry / "leaderboard.csv").read_text(encoding="utf-8") == HAND_BOARD
    assert load_taskspec(entry / "task.json").leaderboard is None


# --- 8. whole or not at all --------------------------------------------------------------------

def _interrupt_on(monkeypatch: pytest.MonkeyPatch, task_id: str, action: Any) -> None:
    """Run ``action`` when the board of ``task_id`` is about to be written (its task.json and
    pages already staged)."""
    real = importers._store_board

    def store(task: ImportedTask, stage: Any, spec: TaskSpec) -> None:
        if task.spec.id == task_id:
            action()
        real(task, stage, spec)

    monkeypatch.setattr(importers, "_store_board", store)


def test_ctrl_c_leaves_the_entry_in_progress_as_it_was_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha", "beta", "gamma")
    catalogue = tmp_path / "cat"
    write_imported(read_tree("mle-bench", tmp_path / "tree"), catalogue)
    (comps / "beta" / "description_obfuscated.md").write_text(DESCRIPTION, encoding="utf-8")
    (comps / "gamma" / "description_obfuscated.md").write_text(DESCRIPTION, encoding="utf-8")
    competition(comps / "delta")  # new, written before gamma
    competition(comps / "omega")  # new, after gamma: never reached
    before = snapshot(catalogue)
    _interrupt_on(monkeypatch, "kaggle/gamma", lambda: signal.raise_signal(signal.SIGINT))
    code = main(["tasks", "import", "mle-bench", str(tmp_path / "tree"), "--catalogue",
                 str(catalogue)])
    assert code == 130
    err = capsys.readouterr().err
    assert ("interrupted while writing kaggle/gamma, which is left as it was; 1 new and 1 "
            "changed entries in all were written whole") in " ".join(err.split())
    after = snapshot(catalogue)
    assert "kaggle/beta/pages/description_obfuscated.md" in after  # written whole
    gamma = {k: v for k, v in after.items() if k.startswith("kaggle/gamma/")}
    assert gamma == {k: v for k, v in before.items() if k.startswith("kaggle/gamma/")}
    assert catalogue_ids(catalogue) == ["kaggle/alpha", "kaggle/beta", "kaggle/delta",
                                        "kaggle/gamma"]
    assert hidden_leftovers(catalogue) == []


def test_ctrl_c_in_a_new_entry_leaves_no_folder(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    mle_tree(tmp_path / "tree", "alpha", "beta")
    _interrupt_on(monkeypatch, "kaggle/beta", lambda: signal.raise_signal(signal.SIGINT))
    with pytest.raises(ImportInterrupted) as caught:
        write_imported(read_tree("mle-bench", tmp_path / "tree"), tmp_path / "cat")
    assert caught.value.task == "kaggle/beta" and caught.value.report.written == ["kaggle/alpha"]
    assert sorted(p.name for p in (tmp_path / "cat" / "kaggle").iterdir()) == ["alpha"]


KILLER = """
import os, signal, sys
from pathlib import Path
from tambench.tasks import importers
real = importers._store_board
def store(task, stage, spec):
    if task.spec.id == sys.argv[2]:
        os.kill(os.getpid(), signal.SIGKILL)
    real(task, stage, spec)
importers._store_board = store
importers.write_imported(importers.read_tree("mle-bench", Path(sys.argv[1])), Path(sys.argv[3]))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        str(REPO), os.environ.get("PYTHONPATH", "")]))}


def test_kill_9_mid_entry_leaves_it_as_it_was_and_the_next_import_cleans_up(
        tmp_path: Path) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha", "beta")
    catalogue = tmp_path / "cat"
    write_imported(read_tree("mle-bench", tmp_path / "tree"), catalogue)
    (comps / "alpha" / "description_obfuscated.md").write_text(DESCRIPTION, encoding="utf-8")
    (comps / "beta" / "description_obfuscated.md").write_text(DESCRIPTION, encoding="utf-8")
    before = snapshot(catalogue / "kaggle" / "beta")
    run = subprocess.run([sys.executable, "-c", KILLER, str(tmp_path / "tree"), "kaggle/beta",
                          str(catalogue)], env=_env(), capture_output=True, timeout=300)
    assert run.returncode == -signal.SIGKILL
    assert snapshot(catalogue / "kaggle" / "beta") == before
    assert (catalogue / "kaggle" / "alpha" / "pages" / "description_obfuscated.md").is_file()
    assert catalogue_ids(catalogue) == ["kaggle/alpha", "kaggle/beta"]
    assert [n for n in hidden_leftovers(catalogue) if n.startswith(".beta.staging-")]
    report = write_imported(read_tree("mle-bench", tmp_path / "tree"), catalogue)
    assert report.merged == {"kaggle/beta": ["provenance.pages"]}
    assert hidden_leftovers(catalogue) == []


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def test_a_file_too_large_names_the_file_and_leaves_its_entry_out(tmp_path: Path) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha")
    competition(comps / "big", description=DESCRIPTION + "word " * 40_000)
    catalogue = tmp_path / "cat"
    run = subprocess.run([sys.executable, "-m", "tambench.cli.main", "tasks", "import",
                          "mle-bench", str(tmp_path / "tree"), "--catalogue", str(catalogue)],
                         env=_env(), capture_output=True, text=True, timeout=300,
                         preexec_fn=_limit_file_size)
    assert run.returncode == 1, run.stderr
    err = " ".join(run.stderr.split())
    assert (f"error: could not write {catalogue}/kaggle/big/pages/description.md: File too "
            "large; kaggle/big is left as it was (1 entries before it") in err
    assert catalogue_ids(catalogue) == ["kaggle/alpha"]
    assert not (catalogue / "kaggle" / "big").exists()
    assert hidden_leftovers(catalogue) == []


def test_an_oserror_while_writing_is_a_catalogue_error(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    mle_tree(tmp_path / "tree", "alpha")

    def full() -> None:
        raise OSError(28, "No space left on device")

    _interrupt_on(monkeypatch, "kaggle/alpha", full)
    with pytest.raises(CatalogueError, match="No space left on device; kaggle/alpha is left"):
        write_imported(read_tree("mle-bench", tmp_path / "tree"), tmp_path / "cat")
    assert catalogue_ids(tmp_path / "cat") == []


# --- 9. re-import reports exactly what changed ---------------------------------------------------

def test_reimporting_the_same_tree_changes_no_file_and_says_so(tmp_path: Path) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha", "beta")
    competition(comps / "ml2021spring-hw2",
                config=(comps / "alpha" / "config.yaml").read_text().replace(
                    "alpha", "ML2021Spring-hw2").replace("name: Alpha", "name: ML2021Spring-hw2"))
    os.rename(comps / "ml2021spring-hw2", comps / "ML2021Spring-hw2")
    catalogue = tmp_path / "cat"
    first = write_imported(read_tree("mle-bench", tmp_path / "tree"), catalogue)
    assert len(first.written) == 3 and set(first.files) == set(first.written)
    before = snapshot(catalogue)
    again = write_imported(read_tree("mle-bench", tmp_path / "tree"), catalogue)
    assert snapshot(catalogue) == before
    assert again.merged == {} and again.files == {} and len(again.unchanged) == 3
    assert again.schema_version == 2  # files, and merged/unchanged by the files changed
    assert load_taskspec(catalogue / "kaggle/ml2021spring-hw2/task.json").title == \
        "ML2021Spring-hw2"
    # one change in the tree: exactly that entry, its fields and files
    (comps / "beta" / "description_obfuscated.md").write_text(DESCRIPTION, encoding="utf-8")
    third = write_imported(read_tree("mle-bench", tmp_path / "tree"), catalogue)
    assert third.merged == {"kaggle/beta": ["provenance.pages"]}
    assert third.files == {"kaggle/beta": ["pages/description_obfuscated.md", "task.json"]}
    assert sorted(third.unchanged) == ["kaggle/alpha", "kaggle/ml2021spring-hw2"]


def test_a_new_entry_lists_only_the_fields_it_still_lacks(tmp_path: Path) -> None:
    grading = GradingSpec(metric="rmse", id_columns=["id"], target_columns=["y"],
                          submission_header=["id", "y"])
    spec = TaskSpec.model_validate({
        "id": "kaggle/stale", "platform": "kaggle", "status": "incomplete", "grading":
        grading.model_dump(), "provenance": {"unfilled": ["grading.id_columns", "modality"]}})
    catalogue = tmp_path / "cat"
    write_imported([ImportedTask(spec=spec)], catalogue)
    written = load_taskspec(catalogue / "kaggle" / "stale" / "task.json")
    assert written.provenance.unfilled == ["modality"]
    before = snapshot(catalogue)
    report = write_imported([ImportedTask(spec=spec)], catalogue)
    assert report.unchanged == ["kaggle/stale"] and snapshot(catalogue) == before


def test_the_cli_prints_each_changed_entry_with_its_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    comps = mle_tree(tmp_path / "tree", "alpha")
    catalogue = tmp_path / "cat"
    args = ["tasks", "import", "mle-bench", str(tmp_path / "tree"), "--catalogue",
            str(catalogue)]
    assert main(args) == 0
    (comps / "alpha" / "leaderboard.csv").write_text(BOARD, encoding="utf-8")
    (comps / "alpha" / "description_obfuscated.md").write_text(DESCRIPTION, encoding="utf-8")
    capsys.readouterr()
    assert main(args) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "0 new, 1 merged, 0 unchanged" in out
    assert ("merged kaggle/alpha: provenance.pages changed; files "
            "pages/description_obfuscated.md, task.json") in out


def test_ctrl_c_while_the_tree_is_read_says_nothing_was_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    mle_tree(tmp_path / "tree", "alpha")

    def interrupted(kind: str, path: Path) -> Any:
        signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(importers, "read_tree", interrupted)
    code = main(["tasks", "import", "mle-bench", str(tmp_path / "tree"), "--catalogue",
                 str(tmp_path / "cat")])
    assert code == 130
    assert f"interrupted while reading {tmp_path / 'tree'}; nothing was written" in \
        " ".join(capsys.readouterr().err.split())
    assert catalogue_ids(tmp_path / "cat") == []
