"""A reader that closes the output early (``tambench ... | head``) is not an error: exit 0 and
no traceback, for every command, as ``set -o pipefail`` scripts need."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tambench.cli.main import COMMANDS
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import make_env, put

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = REPO / "tambench" / "tasks" / "catalogue"
LITE = CATALOGUE / "_subsets" / "lite.txt"
FULL = CATALOGUE / "_subsets" / "full.txt"


def _closed_early(argvs: list[list[str]], cwd: Path) -> list[tuple[int, str]]:
    """Run each command with its stdout a pipe whose reader has already gone (what ``head``
    leaves after reading its lines); (exit code, stderr) of each. Run side by side."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TAMBENCH_CATALOGUE": str(CATALOGUE)}
    procs = []
    for argv in argvs:
        proc = subprocess.Popen([sys.executable, "-m", "tambench.cli.main", *argv], cwd=cwd,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert proc.stdout is not None
        proc.stdout.close()  # before the command has written anything
        procs.append(proc)
    results = []
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        results.append((proc.returncode, err.decode("utf-8", "replace")))
    return results


def test_every_command_s_help_ends_quietly_when_the_reader_is_gone(tmp_path: Path) -> None:
    argvs = [["--help"], *([c, "--help"] for c in sorted(COMMANDS))]
    for argv, (rc, err) in zip(argvs, _closed_early(argvs, tmp_path), strict=True):
        assert (rc, err) == (0, ""), argv


@pytest.fixture
def batch(tmp_path: Path) -> list[str]:
    cat, data, runs = make_env(tmp_path)
    for i in range(30):
        put(runs, f"agent-{i % 3}", "value", f"r{i}", perfect_text(TASKS["value"]))
    return ["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
            "--executor", "serial", "--bootstrap", "0"]


def test_commands_printing_results_end_quietly_when_the_reader_is_gone(
    tmp_path: Path, batch: list[str],
) -> None:
    argvs = [
        ["tasks", "list"], ["tasks", "list", "--json"], ["tasks", "show", "biendata/pst"],
        ["metrics"], ["metrics", "--json"], ["protocol", "list"], ["schema", "export"],
        ["leaderboard", "show", str(CATALOGUE / "biendata" / "pst" / "leaderboard.csv")],
        ["subsets", "diff", str(LITE), str(FULL)], batch, [*batch, "--json"],
    ]
    for argv, (rc, err) in zip(argvs, _closed_early(argvs, tmp_path), strict=True):
        assert rc == 0, (argv, err)
        assert "Traceback" not in err and "BrokenPipe" not in err and "error:" not in err, argv


def test_a_broken_pipe_that_is_not_stdout_stays_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import errno

    from tambench.cli.main import _stdout_closed, _stdout_reader_gone

    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "w") as out:
        monkeypatch.setattr(sys, "stdout", out)
        assert _stdout_reader_gone() is False  # the reader is still there
        assert not _stdout_closed(BrokenPipeError(errno.EPIPE, "a socket's pipe"))
        os.close(read_end)
        assert _stdout_reader_gone() is True
        assert _stdout_closed(BrokenPipeError(errno.EPIPE, "stdout"))
        monkeypatch.undo()


def test_a_command_that_finished_keeps_its_exit_code_when_the_reader_is_gone(
    tmp_path: Path,
) -> None:
    """``validate`` of an invalid file piped into a reader that has gone still exits 1 (its
    verdict); only the closed pipe itself is not an error."""
    from tambench.schema import save_taskspec
    from tests.grading.public_tasks import build_prepared, corpus_cases

    case = next(c for c in corpus_cases() if c.id == "table-15-missing_row")
    folder, _, sub = build_prepared(case, tmp_path)
    catalogue = tmp_path / "catalogue"
    (catalogue / "test" / "value").mkdir(parents=True)
    save_taskspec(case.spec, catalogue / "test" / "value" / "task.json")
    base = ["--task", "test/value", "--catalogue", str(catalogue), "--data-dir",
            str(tmp_path / "data")]
    argvs = [["validate", str(sub), *base],
             ["validate", str(folder / "public" / "sample_submission.csv"), *base]]
    (bad_rc, bad_err), (good_rc, good_err) = _closed_early(argvs, tmp_path)
    assert (bad_rc, good_rc) == (1, 0), (bad_err, good_err)
    assert "Traceback" not in bad_err + good_err
