"""A per-run time limit: a run that grades too long gets status ``timeout`` and the batch goes
on, on every executor."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tambench.cli.main import main
from tambench.errors import GradingTimeout
from tambench.executors import LocalExecutor, get_executor, run_items
from tambench.grading.batch import grade_runs
from tambench.grading.batch.deadline import time_limit
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import FIXED, make_env, put


def _slow_when_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Grading a submission under a run called ``slow*`` never ends by itself."""
    from tambench.grading.batch import worker

    real = worker.grade_submission

    def grade_submission(submission: Path, *a: Any, **k: Any) -> Any:
        if "/slow" in str(submission):
            while True:
                pass
        return real(submission, *a, **k)

    monkeypatch.setattr(worker, "grade_submission", grade_submission)


@pytest.mark.parametrize("executor", ["serial", "thread"])
def test_a_run_past_the_time_limit_times_out_and_the_batch_goes_on(
    executor: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat, data, runs = make_env(tmp_path)
    for run in ("ok1", "slow", "ok2"):
        put(runs, "a", "value", run, perfect_text(TASKS["value"]))
    _slow_when_named(monkeypatch)
    start = time.perf_counter()
    with get_executor(executor, 2) as pool:
        report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED, executor=pool,
                            time_limit=0.5)
    assert time.perf_counter() - start < 20
    by_run = {r.run: r for r in report.rows}
    assert by_run["slow"].status == "timeout" and by_run["slow"].score is None
    assert "per-run limit of 0.5 s" in (by_run["slow"].error or "")
    assert by_run["slow"].any_medal is False  # a leaderboard is known: nothing earned
    assert by_run["ok1"].status == by_run["ok2"].status == "graded_valid"
    assert report.n_failed == 1 and report.agents[0].total_failed == 1
    # under the default rule the timed-out run counts as last place
    value = report.agents[0].tasks[0]
    assert value.rank_pct is not None and value.rank_pct.max == 100.0


def test_the_command_exits_3_when_a_run_timed_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "slow", perfect_text(TASKS["value"]))
    _slow_when_named(monkeypatch)
    rc = main(["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
               "--executor", "serial", "--time-limit", "0.3", "--json"])
    out, err = capsys.readouterr()
    assert rc == 3
    assert json.loads(out)["rows"][0]["status"] == "timeout"
    assert "1 run(s) timeout: grading took longer than the per-run limit" in err


def spin_under_limit(seconds: float) -> str:
    """Worker: loop forever under a 0.3 s limit (runs in a pool process's main thread)."""
    try:
        with time_limit(0.3):
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                pass
    except GradingTimeout:
        return "timeout"
    return "done"


def test_the_limit_interrupts_grading_in_a_process_pool_worker() -> None:
    pool = LocalExecutor(max_workers=2)
    try:
        results = run_items(spin_under_limit, [30.0, 0.01, 30.0, 0.01], pool, chunk_size=1)
    finally:
        pool.shutdown()
    assert [r.value for r in results] == ["timeout", "done", "timeout", "done"]


def test_a_run_that_ends_in_time_leaves_no_late_interruption() -> None:
    for _ in range(50):
        with time_limit(0.05):
            sum(range(100))
    time.sleep(0.2)  # a stray alarm or async exception would fire here


def test_an_outer_timer_keeps_its_deadline() -> None:
    import signal

    fired: list[bool] = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.4)
        with time_limit(5):
            time.sleep(0.1)
        time.sleep(0.6)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == [True]


def test_progress_is_on_stderr_and_ctrl_c_says_what_was_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, runs = make_env(tmp_path)
    for run in ("r1", "r2", "r3"):
        put(runs, "a", "value", run, perfect_text(TASKS["value"]))
    argv = ["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
            "--executor", "serial", "--out", str(tmp_path / "out")]
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["rows"] and "runs graded: 3/3" in err
    from tambench.grading.batch import run as batch_run

    real = batch_run.grade_run_item
    calls: list[int] = []

    def interrupted(item: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(item)

    monkeypatch.setattr(batch_run, "grade_run_item", interrupted)
    (tmp_path / "out").rename(tmp_path / "old")
    assert main(argv) == 130
    _, err = capsys.readouterr()
    import re

    assert re.search(r"interrupted after runs graded: [01]/3; nothing was written", err), err
    assert not (tmp_path / "out").exists()
