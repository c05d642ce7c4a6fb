"""A catalogue and prepared data of two small tasks (public and private folders) for runs."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tambench.grading.grade import resolve_task
from tambench.runs.agents import command_agent
from tambench.runs.batch import task_info
from tambench.runs.job import RunJob, TaskInfo, execute_run
from tambench.runs.limits import Limits
from tests.grading.corpus import TASKS
from tests.grading.public_tasks import write_public
from tests.grading.test_batch import make_env


def prepared(tmp_path: Path) -> tuple[Path, Path]:
    """(catalogue, data) with test/value, test/label and test/txt prepared (public + private)."""
    cat, data, _ = make_env(tmp_path)
    for name in ("value", "label", "txt"):
        spec = resolve_task(f"test/{name}", catalogue=cat, data_dir=data).spec
        write_public(spec, data / "test" / name)
        (data / "test" / name / "public" / "train.csv").write_text("id,y\n1,0.5\n")
    return cat, data


def info(cat: Path, data: Path, task: str = "test/value") -> TaskInfo:
    return task_info(task, cat, data)


def answers_text(name: str = "value") -> str:
    return TASKS[name].answers


def needs_bwrap() -> None:
    """Skip when this machine has no bubblewrap (scripts/install-system-deps.sh installs it)."""
    import shutil

    import pytest

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed")


def run_command(tmp_path: Path, command: str, *, task: str = "test/value",
                limits: Limits | None = None, agent_env: dict[str, str] | None = None,
                **job: Any) -> tuple[RunJob, dict[str, Any]]:
    """One run of a shell command (its environment extended by ``agent_env``) on a prepared
    task in the bubblewrap sandbox."""
    needs_bwrap()
    cat, data = (tmp_path / "catalogue", tmp_path / "data")
    if not cat.exists():
        prepared(tmp_path)
    agent = dataclasses.replace(command_agent(command, "probe"), env=agent_env or {})
    spec = RunJob(agent=agent, task=info(cat, data, task), seed=0,
                  out=str(tmp_path / "runs"), limits=limits or Limits(time=60),
                  catalogue=str(cat), data_dir=str(data), **job)
    return spec, execute_run(spec)


def snapshot(*roots: Path) -> dict[str, str]:
    """sha256 of every file under the roots, and the folders (to see anything added)."""
    out: dict[str, str] = {}
    for root in roots:
        for p in sorted(root.rglob("*")):
            if p.is_symlink():
                out[str(p)] = "link:" + str(p.readlink())
            elif p.is_file():
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                out[str(p)] = "dir"
    return out


def wait_for(cond: Callable[[], object], timeout: float, what: str) -> None:
    """Poll ``cond`` until it is true; an AssertionError naming ``what`` past ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def leftovers(marker: str) -> list[str]:
    """Command lines of processes of this machine that mention ``marker``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(f"{proc.name}: {cmd}")
    return found


@contextlib.contextmanager
def host_listener() -> Iterator[tuple[int, list[object]]]:
    """A service on the host's loopback: (its port, the connections it accepted)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(0.2)
    accepted: list[object] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                accepted.append(server.accept())
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join()
        server.close()
