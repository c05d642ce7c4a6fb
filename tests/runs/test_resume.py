"""Resuming a batch: a runner killed with kill -9 or Ctrl-C leaves no process behind and no
unfinished run marked finished; running again does each remaining run once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.runs.env import leftovers, needs_bwrap, prepared

MARK = "tambench-resume-7f3a"
AGENT = (f"sleep 2; cp /home/data/sample_submission.csv /home/submission/submission.csv; "
         f"sh -c 'sleep 600; : {MARK}' & sleep 1")  # the daemon outlives every wait below


def _start(tmp_path: Path, cat: Path, data: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "tambench.cli.main", "run", "test/value", "test/label",
           "--agent", AGENT, "--name", "resumer", "--seeds", "3", "--parallel", "2",
           "--out", str(tmp_path / "runs"), "--catalogue", str(cat), "--data-dir", str(data),
           "--time-limit", "60"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def _records(runs: Path) -> dict[str, dict[str, object]]:
    out = {}
    for path in sorted(runs.glob("resumer/*/*/run.json")):
        out[str(path.parent.relative_to(runs))] = json.loads(path.read_text())
    return out


def _wait_for(cond: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def _no_leftovers() -> None:
    _wait_for(lambda: not leftovers(MARK), 120, "the runs' processes to end")


def _session(sid: int) -> list[int]:
    """Processes of the session ``sid`` (the runner was started as its leader): its pool's
    workers and their children."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if proc.name.isdigit() and int(fields[3]) == sid:
            found.append(int(proc.name))
    return found


def _interrupt_then_resume(tmp_path: Path, stop: object) -> None:
    needs_bwrap()
    cat, data = prepared(tmp_path)
    runs = tmp_path / "runs"
    proc = _start(tmp_path, cat, data)
    _wait_for(lambda: sum(r["state"] == "done" for r in _records(runs).values()) >= 2, 300,
              "two finished runs")
    stop(proc)  # type: ignore[operator]
    proc.wait(30)
    _no_leftovers()
    # nothing of the runner is left (a worker finishing a run after this would make the
    # snapshot below stale)
    _wait_for(lambda: not _session(proc.pid), 60, "the runner's workers to end")
    before = _records(runs)
    finished = {k: r for k, r in before.items() if r["state"] == "done"}
    assert all(r["exit_reason"] == "finished" for r in finished.values())
    assert len(finished) < 6, "the batch ended before it was stopped"
    again = _start(tmp_path, cat, data)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err.decode()
    assert f"6 runs in {runs} ({len(finished)} already finished): 6 finished" in out.decode()
    after = _records(runs)
    assert len(after) == 6 and all(r["state"] == "done" for r in after.values())
    for key, rec in finished.items():  # not run again
        assert after[key]["started_at"] == rec["started_at"]
    for key in set(after) - set(finished):
        assert (runs / key / "submission.csv").is_file()
    _no_leftovers()


KNOWN_LEAK = pytest.mark.xfail(
    strict=False,
    reason="known defect, open: after kill -9 or Ctrl-C of the runner, a daemon an agent "
           "started can outlive it by minutes under load (seen with a 600 s daemon: still "
           "running 120 s after the kill); with a 60 s daemon the defect hid behind the "
           "daemon's own end")


@KNOWN_LEAK
@pytest.mark.long  # two batches of six sandboxed runs: about 30 s
def test_kill_9_of_the_runner_mid_batch_then_resume_runs_each_run_once(tmp_path: Path) -> None:
    _interrupt_then_resume(tmp_path, lambda p: os.kill(p.pid, signal.SIGKILL))


@KNOWN_LEAK
@pytest.mark.long  # two batches of six sandboxed runs: about 30 s
def test_ctrl_c_mid_batch_marks_no_unfinished_run_finished(tmp_path: Path) -> None:
    _interrupt_then_resume(tmp_path, lambda p: os.killpg(p.pid, signal.SIGINT))
