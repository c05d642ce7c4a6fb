"""After ``kill -9`` of ``grade-runs --executor local`` nothing it started is left: no pool
worker, no forkserver, no resource tracker (they used to wait for ever). Checked by process
ids, read from /proc (Linux)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tambench.executors import LocalExecutor
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import make_env, put

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")

CLI = [sys.executable, "-m", "tambench.cli.main"]


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[1]), fields[0], int(fields[19])


def _descendants(root: int) -> dict[int, int]:
    """pid -> start time of every living descendant of ``root``."""
    children: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[1] != "Z":
                children.setdefault(st[0], []).append(int(name))
                starts[int(name)] = st[2]
    out, todo = {}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out[child] = starts[child]
            todo.append(child)
    return out


def _running(procs: dict[int, int]) -> dict[int, str]:
    """The processes of ``procs`` still running (same pid and start time, not a zombie)."""
    out = {}
    for pid, start in procs.items():
        st = _stat(pid)
        if st is not None and st[2] == start and st[1] != "Z":
            out[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:120] \
                .decode(errors="replace")
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_nothing_grade_runs_started_outlives_a_kill_9(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    text = perfect_text(TASKS["value"])
    for i in range(3000):  # several seconds of grading: the kill lands mid-batch
        put(runs, f"a{i % 3}", "value", f"r{i:04d}", text)
    proc = subprocess.Popen(
        [*CLI, "grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
         "--executor", "local", "--max-workers", "2", "--out", str(tmp_path / "out")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    seen: dict[int, int] = {}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            seen = _descendants(proc.pid)
            workers = [p for p in seen if "forkserver" in _cmdline(p)]
            # the forkserver and the two workers forked from it (same command line)
            if len(workers) >= 3 and any("resource_tracker" in _cmdline(p) for p in seen):
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the batch ended before its pool was seen; make it longer"
        seen = _descendants(proc.pid)
        assert len(seen) >= 4, seen
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 30
        while _running(seen) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _running(seen) == {}
    finally:  # never leave a process behind, whatever failed above
        for pid in _running(seen):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not (tmp_path / "out" / "grades.json").exists()  # the batch really was cut short


def _pid_file_waiter(path: str) -> int:
    """A pool task: report this worker's pid, then wait (the test kills the pool's owner)."""
    Path(path).write_text(str(os.getpid()))
    time.sleep(60)
    return 0


_OWNER = """
import sys, time
from tambench.executors import LocalExecutor
from tests.test_worker_lifeline import _pid_file_waiter
pool = LocalExecutor(max_workers=1)
pool.submit(_pid_file_waiter, sys.argv[1])
time.sleep(60)
"""


def test_a_pool_worker_ends_when_the_process_that_owns_the_pool_dies(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    owner = subprocess.Popen([sys.executable, "-c", _OWNER, str(pid_file)], env=env,
                             start_new_session=True)
    worker = 0
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        worker = int(pid_file.read_text())
        start = _stat(worker)
        assert start is not None
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()
        deadline = time.monotonic() + 10
        while _running({worker: start[2]}) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running({worker: start[2]}) == {}
    finally:
        if worker and _stat(worker) is not None and _stat(worker)[1] != "Z":  # type: ignore[index]
            os.kill(worker, signal.SIGKILL)
        if owner.poll() is None:
            owner.kill()
            owner.wait()


def test_the_watch_ends_a_helper_whose_parent_is_already_gone() -> None:
    from tambench.executors.lifeline import ORPHANED_EXIT, watch_parent

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    probe = subprocess.run(
        [sys.executable, "-c", "import sys, time\n"
         "from tambench.executors.lifeline import watch_parent\n"
         f"watch_parent({int(gone.stdout)})\ntime.sleep(30)\nsys.exit(0)"],
        capture_output=True, text=True, timeout=20, check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert probe.returncode == ORPHANED_EXIT
    watch_parent(os.getpid())  # watching oneself is a no-op, never an exit
    with LocalExecutor(max_workers=1) as pool:  # a living owner: workers do their work
        assert pool.submit(os.getpid).result(timeout=60) != os.getpid()
