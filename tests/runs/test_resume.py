"""Resuming a batch: a runner killed with kill -9 or Ctrl-C leaves no process behind and no
unfinished run marked finished; running again does each remaining run once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from tambench.errors import TambenchError
from tambench.executors.pools import LocalExecutor
from tambench.runs.agents import command_agent
from tambench.runs.batch import run_one
from tambench.runs.job import RunJob
from tambench.runs.limits import Limits
from tests.runs.env import info, leftovers, needs_bwrap, prepared, wait_for

MARK = "tambench-resume-7f3a"
AGENT = (f"sleep 2; cp /home/data/sample_submission.csv /home/submission/submission.csv; "
         f"sh -c 'sleep 600; : {MARK}' & sleep 1")  # the daemon outlives every wait below
#: How long a killed runner's runs may take to end (their sandboxes start Python; the machine
#: may be busy): far less than the daemon's 600 s.
LEFTOVER_SECONDS = 30


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


def _no_leftovers(marker: str = MARK) -> None:
    # the daemon sleeps 600 s: what is still there after this wait was left behind
    wait_for(lambda: not leftovers(marker), LEFTOVER_SECONDS, "the runs' processes to end")


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
    wait_for(lambda: sum(r["state"] == "done" for r in _records(runs).values()) >= 2, 300,
              "two finished runs")
    stop(proc)  # type: ignore[operator]
    proc.wait(30)
    _no_leftovers()
    # nothing of the runner is left (a worker finishing a run after this would make the
    # snapshot below stale)
    wait_for(lambda: not _session(proc.pid), 60, "the runner's workers to end")
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


@pytest.mark.long  # two batches of six sandboxed runs: about 30 s
def test_kill_9_of_the_runner_mid_batch_then_resume_runs_each_run_once(tmp_path: Path) -> None:
    _interrupt_then_resume(tmp_path, lambda p: os.kill(p.pid, signal.SIGKILL))


@pytest.mark.long  # two batches of six sandboxed runs: about 30 s
def test_ctrl_c_mid_batch_marks_no_unfinished_run_finished(tmp_path: Path) -> None:
    _interrupt_then_resume(tmp_path, lambda p: os.killpg(p.pid, signal.SIGINT))


# A supervisor that dies as it starts a sandbox: bubblewrap is being set up (its parent-death
# signal not yet set in the sandbox's first process) when the process that started it is gone.
_DIE_AS_THE_SANDBOX_STARTS = """
import os, subprocess, sys, time
from pathlib import Path

started = subprocess.Popen


def popen(argv, *args, **kwargs):
    proc = started(argv, *args, **kwargs)
    if argv[0] == "bwrap":
        time.sleep(float(sys.argv[3]))
        os._exit(9)
    return proc


subprocess.Popen = popen
from tests.runs.env import run_command

run_command(Path(sys.argv[1]), sys.argv[2])
"""


def test_a_supervisor_killed_as_its_sandbox_starts_leaves_nothing_running(tmp_path: Path) -> None:
    needs_bwrap()
    marker = f"tambench-orphan-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for delay in ("0", "0.005", "0.02"):  # at other points of the sandbox's setup
        folder = tmp_path / delay
        folder.mkdir()
        done = subprocess.run([sys.executable, "-c", _DIE_AS_THE_SANDBOX_STARTS, str(folder),
                               f"sh -c 'sleep 600; : {marker}' & sleep 600", delay], env=env,
                              capture_output=True, timeout=120, check=False)
        assert done.returncode == 9, done.stderr.decode()
        _no_leftovers(marker)


def _long_job(tmp_path: Path, marker: str, seed: int = 0) -> RunJob:
    needs_bwrap()
    cat, data = (tmp_path / "catalogue", tmp_path / "data")
    if not cat.exists():
        prepared(tmp_path)
    return RunJob(agent=command_agent(f"sleep 600; : {marker}", "stopper"), task=info(cat, data),
                  seed=seed, out=str(tmp_path / "runs"), limits=Limits(time=300),
                  catalogue=str(cat), data_dir=str(data))


def test_a_pool_worker_told_to_stop_ends_its_run_at_once_and_starts_no_other(
        tmp_path: Path) -> None:
    marker = f"tambench-stopped-{uuid.uuid4().hex[:8]}"
    job = _long_job(tmp_path, marker)
    pool = LocalExecutor(1)
    try:
        worker = pool.submit(os.getpid).result(timeout=120)
        first = pool.submit(run_one, job)
        wait_for(lambda: leftovers(marker), 120, "the agent to start")
        os.kill(worker, signal.SIGINT)  # what Ctrl-C sends to the runner's process group
        record = first.result(timeout=60)  # not the agent's 600 s, nor the 300 s limit
        assert (record["exit_reason"], record["state"]) == ("killed", "interrupted")
        assert record["wall_seconds"] < 120
        assert not leftovers(marker)
        second = pool.submit(run_one, _long_job(tmp_path, marker, seed=1))
        with pytest.raises(TambenchError, match="not started: the runner was told to stop"):
            second.result(timeout=60)
        assert not (tmp_path / "runs" / "stopper" / job.task.folder_name / "1").exists()
    finally:
        pool.shutdown()


def test_ctrl_c_of_a_serial_batch_ends_the_run_then_stops_the_batch(tmp_path: Path) -> None:
    marker = f"tambench-serial-stop-{uuid.uuid4().hex[:8]}"
    job = _long_job(tmp_path, marker)
    started = time.monotonic()

    def interrupt() -> None:
        wait_for(lambda: leftovers(marker), 120, "the agent to start")
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_one(job)
    assert time.monotonic() - started < 150
    record = json.loads((job.folder / "run.json").read_text())
    assert (record["exit_reason"], record["state"]) == ("killed", "interrupted")
    assert not leftovers(marker)
