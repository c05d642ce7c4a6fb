"""Container runs (docker, podman) end with their runner, however it dies: a host-side watchdog
ends the container by name when the supervisor is gone; a normal end calls no kill; a resumed
run first removes the container an unfinished run left.

No daemon here: a fake ``docker`` first on PATH records its calls and plays the daemon, each
"container" a process in a session of its own (so, as a real container, the kill of the
runner does not reach it) that its own ``kill``/``rm -f`` ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.runs.env import leftovers, prepared, run_command, wait_for

FAKE_DOCKER = r"""#!/bin/sh
state="$DOCKER_CONFIG"
echo "$*" >> "$state/calls"
end() {  # end the container $1, if it runs
    [ -f "$state/c-$1" ] || return 1
    read pid label < "$state/c-$1"
    kill -9 "-$pid" 2>/dev/null
    rm -f "$state/c-$1"
}
case "$1" in
info) exit 0 ;;
run)
    name=""; label=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --name) name="$2"; shift ;;
        --label) label="$2"; shift ;;
        esac
        shift
    done
    setsid sh -c "sleep $(cat "$state/seconds"); : $(cat "$state/marker")" \
        </dev/null >/dev/null 2>&1 &
    pid=$!
    echo "$pid $label" > "$state/c-$name"
    wait "$pid"; code=$?
    rm -f "$state/c-$name"
    exit "$code" ;;
kill) end "$2" || { echo "Error: No such container: $2" >&2; exit 1; } ;;
rm) shift; [ "$1" = -f ] && shift
    for name in "$@"; do end "$name"; done; exit 0 ;;
ps) filter="$4"
    for f in "$state"/c-*; do
        [ -f "$f" ] || continue
        read pid label < "$f"
        [ "label=$label" = "$filter" ] && kill -0 "$pid" 2>/dev/null && echo "${f##*/c-}"
    done; exit 0 ;;
esac
exit 1
"""


def _fake_docker(tmp_path: Path, seconds: int) -> tuple[Path, Path, str]:
    """(the fake's bin folder, its state folder, the marker of its containers' processes)."""
    bin_dir, state = tmp_path / "fakebin", tmp_path / "fakestate"
    bin_dir.mkdir()
    state.mkdir()
    (bin_dir / "docker").write_text(FAKE_DOCKER)
    (bin_dir / "docker").chmod(0o755)
    marker = f"tambench-container-{uuid.uuid4().hex[:8]}"
    (state / "seconds").write_text(str(seconds))
    (state / "marker").write_text(marker)
    (state / "calls").touch()
    return bin_dir, state, marker


def _calls(state: Path) -> list[list[str]]:
    return [line.split() for line in (state / "calls").read_text().splitlines()]


def _name_of_run(state: Path) -> str:
    run = next(c for c in _calls(state) if c[0] == "run")
    return run[run.index("--name") + 1]


@pytest.mark.parametrize("parallel", ["1", "2"])  # the runner's own run; a pool worker's
def test_kill_9_of_the_runner_ends_its_container_and_leaves_nothing(tmp_path: Path,
                                                                    parallel: str) -> None:
    bin_dir, state, marker = _fake_docker(tmp_path, 600)
    cat, data = prepared(tmp_path)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "DOCKER_CONFIG": str(state),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    runner = subprocess.Popen(
        [sys.executable, "-m", "tambench.cli.main", "run", "test/value", "--agent", "sleep 600",
         "--name", "boxed", "--sandbox", "docker", "--out", str(tmp_path / "runs"),
         "--catalogue", str(cat), "--data-dir", str(data), "--time-limit", "300", "--parallel", parallel],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: leftovers(marker), 120, "the container to start")
        name = _name_of_run(state)
        assert leftovers(name), "no watchdog holds the run's container"
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait(30)
        wait_for(lambda: ["kill", name] in _calls(state), 10, f"`docker kill {name}`")
        wait_for(lambda: not leftovers(marker) and not leftovers(name), 15,
                  "the run's processes (container, engine client, watchdog) to end")
    finally:
        for line in leftovers(marker):  # whatever the code under test left behind
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
    log = (tmp_path / "runs" / "boxed" / "test__value" / "0" / "agent.log").read_text()
    assert f"ending container {name}" in log


def test_a_container_run_that_ends_by_itself_calls_no_kill(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir, state, marker = _fake_docker(tmp_path, 1)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("DOCKER_CONFIG", str(state))
    job, record = run_command(tmp_path, "true", sandbox="docker")
    assert record["exit_reason"] == "finished", record
    verbs = [c[0] for c in _calls(state)]
    assert "run" in verbs and "kill" not in verbs and "rm" not in verbs, verbs
    name = _name_of_run(state)
    wait_for(lambda: not leftovers(name), 10, "the watchdog to exit")
    assert "watchdog" not in (job.folder / "agent.log").read_text()


def test_a_container_past_its_time_limit_is_killed_by_name(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from tambench.runs.limits import Limits

    bin_dir, state, marker = _fake_docker(tmp_path, 600)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("DOCKER_CONFIG", str(state))
    _, record = run_command(tmp_path, "true", sandbox="docker", limits=Limits(time=2))
    assert record["exit_reason"] == "time_limit", record
    assert ["kill", _name_of_run(state)] in _calls(state)
    wait_for(lambda: not leftovers(marker), 10, "the container to end")


def test_a_resumed_run_first_removes_the_container_an_unfinished_run_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir, state, marker = _fake_docker(tmp_path, 1)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("DOCKER_CONFIG", str(state))
    old_marker = f"tambench-old-{uuid.uuid4().hex[:8]}"
    folder = (tmp_path / "runs" / "probe" / "test__value" / "0").resolve()
    old = subprocess.Popen(["sh", "-c", f"sleep 600; : {old_marker}"], start_new_session=True)
    (state / "c-tambench-1-old").write_text(f"{old.pid} tambench.run-folder={folder}\n")
    other = subprocess.Popen(["sh", "-c", f"sleep 600; : {old_marker}-other"],
                             start_new_session=True)
    (state / "c-tambench-1-other").write_text(f"{other.pid} tambench.run-folder={folder}x\n")
    try:
        job, record = run_command(tmp_path, "true", sandbox="docker")
        assert job.folder.resolve() == folder
        assert record["exit_reason"] == "finished", record
        assert old.wait(10) == -signal.SIGKILL
        assert ["rm", "-f", "tambench-1-old"] in _calls(state)
        assert other.poll() is None, "a container of another run folder was removed"
    finally:
        for proc in (old, other):
            proc.kill()
            proc.wait()
