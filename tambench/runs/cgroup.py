"""A control group per run, where the machine lets the harness make one.

cgroup v2 (one hierarchy with ``cgroup.controllers``) or v1 (a mount per controller). The
group holds memory (``memory.max`` / ``memory.limit_in_bytes``), CPU time (``cpu.max`` /
``cpu.cfs_quota_us``) and the number of processes (``pids.max``); after the run it tells
whether the kernel ended something for lack of memory, every process still in it is killed,
and the group is removed. When no group can be made (no permission, no cgroup file system)
:func:`make_group` returns None and the caller falls back to resource limits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_PERIOD = 100_000  # CPU quota period, microseconds


class RunGroup:
    """The cgroup folders of one run (one per v1 controller, or a single v2 folder)."""

    def __init__(self, folders: dict[str, Path], v2: bool) -> None:
        self.folders = folders
        self.v2 = v2

    def _file(self, controller: str, v1: str, v2: str) -> Path | None:
        folder = self.folders.get(controller)
        if folder is None:
            return None
        return folder / (v2 if self.v2 else v1)

    def apply(self, memory: int | None, cpus: float | None, processes: int | None) -> list[str]:
        """Write the limits; returns the ones held by the group."""
        held = []
        writes = [
            ("memory", memory, "memory.limit_in_bytes", "memory.max", str(memory)),
            ("cpu", cpus, "cpu.cfs_quota_us", "cpu.max",
             f"{int((cpus or 1) * _PERIOD)} {_PERIOD}" if self.v2 else str(int((cpus or 1) * _PERIOD))),
            ("pids", processes, "pids.max", "pids.max", str(processes)),
        ]
        for controller, value, v1, v2, text in writes:
            path = self._file(controller, v1, v2)
            if value is None or path is None:
                continue
            try:
                path.write_text(text)
            except OSError:
                continue
            if controller == "memory" and not self.v2:  # no swap beyond the limit either
                with contextlib.suppress(OSError):
                    (self.folders["memory"] / "memory.memsw.limit_in_bytes").write_text(text)
            held.append({"cpu": "cpus", "pids": "processes"}.get(controller, controller))
        return held

    def join(self) -> None:
        """Move the calling process into the group (called in the child before exec)."""
        for folder in self.folders.values():
            with contextlib.suppress(OSError):
                (folder / "cgroup.procs").write_text("0")

    def pids(self) -> set[int]:
        out: set[int] = set()
        for folder in self.folders.values():
            with contextlib.suppress(OSError):
                out.update(int(x) for x in (folder / "cgroup.procs").read_text().split())
        return out

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the group for lack of memory."""
        path = self._file("memory", "memory.oom_control", "memory.events")
        if path is None:
            return False
        try:
            for line in path.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
        except (OSError, ValueError):
            return False
        return False

    def process_limit_hit(self) -> bool:
        """Whether a fork was refused because the process limit was reached."""
        path = self._file("pids", "pids.events", "pids.events")
        try:
            return path is not None and any(
                line.split()[-1] != "0" for line in path.read_text().splitlines() if line)
        except OSError:
            return False

    def kill_all(self, timeout: float = 10.0) -> None:
        """Kill every process of the group until none is left (or ``timeout``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            left = self.pids()
            if not left:
                return
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def remove(self) -> None:
        self.kill_all()
        for folder in self.folders.values():
            with contextlib.suppress(OSError):
                folder.rmdir()


def own_groups() -> dict[str, str]:
    """Controller (``""`` for v2) -> this process's group path, from /proc/self/cgroup."""
    out: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(","):
            out[c] = path.lstrip("/")
    return out


def _v2_root() -> Path | None:
    if (ROOT / "cgroup.controllers").is_file():
        return ROOT / own_groups().get("", "")
    return None


def pid_alive(pid: int) -> bool:
    """Whether a process with this number exists (ours or another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owner_pid(name: str) -> int | None:
    """The runner's process number in a name made by :func:`leaf_name` (None otherwise).

    >>> owner_pid("tambench-4242-0-ab12"), owner_pid("other")
    (4242, None)
    """
    parts = name.split("-")
    return int(parts[1]) if len(parts) > 2 and parts[0] == "tambench" and parts[1].isdigit() \
        else None


def leaf_name(tag: str) -> str:
    """``tambench-<this process>-<tag>``: a name whose owner can be told dead or alive."""
    return f"tambench-{os.getpid()}-{tag}"


def sweep(base: Path) -> None:
    """Remove the groups under ``base`` left by runners that were killed (their process is
    gone); a group still holding a process is left (the kernel refuses to remove it)."""
    with contextlib.suppress(OSError):
        for entry in base.iterdir():
            pid = owner_pid(entry.name)
            if pid is not None and entry.is_dir() and not pid_alive(pid):
                with contextlib.suppress(OSError):
                    entry.rmdir()


def make_group(leaf: str | None = None) -> RunGroup | None:
    """A new group for one run (named ``leaf``, made by :func:`leaf_name`), or None when this
    machine does not let us make one."""
    leaf = leaf or leaf_name(uuid.uuid4().hex[:12])
    v2 = _v2_root()
    if v2 is not None:
        folder = v2 / leaf
        sweep(v2)
        try:
            folder.mkdir()
        except OSError:
            return None
        try:  # the controllers this process's group hands down to its children
            controllers = set((v2 / "cgroup.subtree_control").read_text().split())
        except OSError:
            controllers = set()
        held: dict[str, Path] = {c: folder for c in ("memory", "cpu", "pids") if c in controllers}
        if not held:
            folder.rmdir()
            return None
        return RunGroup(held, True)
    folders: dict[str, Path] = {}
    mine = own_groups()
    for controller in ("memory", "cpu", "pids"):
        # Under this process's own group: a limit set on it by the machine still holds.
        base = ROOT / controller / mine.get(controller, "")
        if not (base / "cgroup.procs").is_file():
            continue
        sweep(base)
        try:
            (base / leaf).mkdir()
        except OSError:
            continue
        folders[controller] = base / leaf
    return RunGroup(folders, False) if folders else None
