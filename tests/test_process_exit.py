"""Whole processes exit with their own exit code, never with an abort from a native thread.

pyarrow's I/O threads could drop the last reference to a Python-owned buffer while the
interpreter was exiting; the thread was then killed inside a C++ destructor and the process
aborted with "terminate called without an active exception" (exit 134) in a few percent of
runs, after a normal result. Readers now get arrow-owned memory only (``RawFile.arrow``).

These loops run the real entry point, several processes at a time on a two-core machine so
that threads are preempted at exit as they are under load (the old code aborted in 5-10% of
runs there). ``TAMBENCH_EXIT_LOOPS`` scales the counts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tambench.schema.io import save_taskspec
from tests.splits.helpers import make_spec, tabular

#: Minutes of processes: run by ``make test`` (and CI), left out by ``make test-fast``.
pytestmark = pytest.mark.long

SCALE = float(os.environ.get("TAMBENCH_EXIT_LOOPS", "1"))
CLI = [sys.executable, "-m", "tambench.cli.main"]
ABORT = 134


def _run_many(commands: Sequence[Sequence[list[str]]], cwd: Path) -> list[tuple[int, str]]:
    """Run each group of commands in order; groups run three at a time. Return (rc, stderr)."""

    def one(group: Sequence[list[str]]) -> list[tuple[int, str]]:
        out = []
        for cmd in group:
            p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
            out.append((p.returncode, p.stderr))
        return out

    with ThreadPoolExecutor(max_workers=3) as pool:
        return [r for rs in pool.map(one, commands) for r in rs]


def _aborts(results: list[tuple[int, str]]) -> list[str]:
    return [err for rc, err in results if rc == ABORT or rc < 0 or "terminate called" in err]


@pytest.mark.timeout(1200)
def test_grading_a_malformed_answers_file_200_times_never_aborts(tmp_path: Path) -> None:
    (tmp_path / "answers.csv").write_text("id,y\n1,0.5\n2,\n3,abc\n")
    (tmp_path / "sub.csv").write_text("id,y\n1,0.5\n2,0.1\n3,0.2\n")
    cmd = [*CLI, "grade", "sub.csv", "--answers", "answers.csv", "--metric", "rmse",
           "--id-column", "id", "--target-column", "y"]
    results = _run_many([[cmd]] * int(200 * SCALE), tmp_path)
    assert not _aborts(results)
    # Every run reports the answers problem and exits 1, the code for a runtime error.
    assert {rc for rc, _ in results} == {1}
    assert all("answers column 'y'" in err for _, err in results)


# Six hundred processes, three at a time: about ten minutes on two loaded cores.
@pytest.mark.timeout(2400)
def test_prepare_then_audit_300_times_never_aborts(tmp_path: Path) -> None:
    tabular(tmp_path / "raw", n=200, n_classes=2)
    save_taskspec(make_spec("exit-loop", {"strategy": "stratified", "test_size": 0.25}),
                  tmp_path / "task.json")
    n = int(300 * SCALE)
    groups = [[
        [*CLI, "prepare", "task.json", "--raw", "raw", "--data-dir", f"data{i}"],
        [*CLI, "audit", "task.json", "--data-dir", f"data{i}"],
    ] for i in range(n)]
    results = _run_many(groups, tmp_path)
    assert not _aborts(results)
    assert [rc for rc, _ in results] == [0] * (2 * n)
