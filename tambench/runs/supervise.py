"""One run, start to end: folders, services, the sandboxed process, its limits, its record.

:func:`execute_run` is what a worker of the batch runs for each (agent, task, seed). The
sandbox program is started in a new session, inside the run's cgroup when one could be made.
The supervisor watches the wall clock, the bytes written to the run's writable folders and the
size of the agent's output; the first limit crossed ends the whole process tree (the sandbox's
PID namespace ends with its first process; the cgroup is emptied), and the exit reason says
which.

When the supervisor dies (a runner killed by ``kill -9`` ends its workers,
:mod:`tambench.executors.lifeline`), its runs end with it: the bubblewrap sandbox's first
process holds the read end of a pipe whose write end only the supervisor has
(:class:`Lifeline`), reads the end of the file and exits, and the kernel ends the PID
namespace with it. bubblewrap itself is not killed (no parent-death signal, no
``--die-with-parent``): it finishes setting the sandbox up and exits when the sandbox ends.
Parent-death signals cannot do this job: one set after the parent died is never sent, and
bubblewrap sets its own in the sandbox only once the sandbox is set up, so a supervisor that
died while a run was starting left that run running; and killing bubblewrap at the wrong
moment of its set-up leaves its child waiting for ever. A container (docker, podman) lives
in the engine's daemon, out of the pipe's reach: the pipe's read end goes to a host-side
:class:`Watchdog` in a session of its own, which ends the container by name when the
supervisor dies (:mod:`tambench.runs.watchdog`). The sandbox programs without a lifeline
(the engine's client, ``--no-sandbox``'s command) get the parent-death signal.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from tambench.errors import TambenchError
from tambench.runs.cgroup import RunGroup, leaf_name, make_group, owner_pid, pid_alive
from tambench.runs.limits import Limits
from tambench.runs.sandbox import Mounts, get_sandbox

#: How often the supervisor looks at the clock and the disk.
POLL_SECONDS = 0.1
DISK_POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1
#: Exit status of a sandbox program whose supervisor died before it started.
_ORPHANED = 70
#: How long a sandbox with a lifeline may take to end itself once the pipe is closed.
LIFELINE_END_SECONDS = 5.0
_FSIZE_MARGIN = 1 << 20
AGENT_LOG = "agent.log"
WATCHDOG_SCRIPT = Path(__file__).with_name("watchdog.py")
WRITABLE = ("submission", "code", "logs", "workspace", "tmp", "agent")


@dataclass
class Watch:
    """What the supervisor saw while the run went on."""

    reason: str | None = None
    """The limit that ended the run (``time_limit``, ``disk_limit``, ``log_limit``), if any."""
    log_bytes: int = 0
    disk_bytes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def stop_for(self, reason: str) -> None:
        with self.lock:
            if self.reason is None:
                self.reason = reason


def folder_bytes(folders: list[Path], cap: int | None = None) -> int:
    """Bytes allocated under the folders (links not followed); stops counting past ``cap``."""
    total = 0
    stack = [str(f) for f in folders]
    while stack:
        with contextlib.suppress(OSError), os.scandir(stack.pop()) as it:
            for entry in it:
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    total += max(st.st_blocks * 512, 0)
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                if cap is not None and total > cap:
                    return total
    return total


def _pump(stream: IO[bytes], log: Path, limit: int | None, watch: Watch) -> None:
    """Copy the agent's output to its log, up to the log limit; past it, stop the run."""
    with open(log, "ab") as out:
        while chunk := stream.read1(65536):  # type: ignore[attr-defined]
            room = chunk if limit is None else chunk[: max(limit - watch.log_bytes, 0)]
            if room:
                out.write(room)
                out.flush()
            watch.log_bytes += len(chunk)
            if limit is not None and watch.log_bytes > limit:
                out.write(f"\n[tambench: output past the log limit of {limit} bytes; run "
                          "ended]\n".encode())
                watch.stop_for("log_limit")
                return


def _preexec(group: RunGroup | None, rlimits: list[tuple[int, int]],
             death_signal: bool) -> Callable[[], None]:
    """The child's set-up before the sandbox program starts: a new session, the cgroup, the
    resource limits and, with ``death_signal``, SIGKILL when the supervisor dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    supervisor = os.getpid()

    def setup() -> None:
        os.setsid()
        if death_signal:
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # sent when the forking thread ends
            if os.getppid() != supervisor:  # it died before the signal was set: never sent
                os._exit(_ORPHANED)
        if group is not None:
            group.join()
        for which, value in rlimits:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(which, (value, value))

    return setup


def rlimits_for(limits: Limits, held: list[str]) -> tuple[list[tuple[int, int]], list[str]]:
    """Resource limits for what the cgroup does not hold; returns them and their names."""
    out = [(resource.RLIMIT_CORE, 0)]
    names = []
    if limits.disk is not None:  # no single file much past the disk limit (the margin lets
        # the supervisor see the limit crossed, and say so)
        out.append((resource.RLIMIT_FSIZE, limits.disk + _FSIZE_MARGIN))
    if limits.processes is not None and "processes" not in held:
        out.append((resource.RLIMIT_NPROC, limits.processes))
        names.append("processes")
    if limits.memory is not None and "memory" not in held:
        out.append((resource.RLIMIT_AS, limits.memory))
        names.append("memory")
    return out, names


def kill_tree(proc: subprocess.Popen[bytes], group: RunGroup | None,
              stop: Callable[[], None], lifeline: Lifeline | None = None) -> None:
    """End the run's processes: the sandbox (its PID namespace ends with it), the process
    group, and whatever is left in the cgroup. A sandbox with a lifeline is first let end
    itself (killing bubblewrap while it sets the sandbox up can leave its child waiting for
    ever)."""
    if lifeline is not None:
        lifeline.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(LIFELINE_END_SECONDS)
    if proc.poll() != 0:  # not a sandbox that ended well by itself
        with contextlib.suppress(Exception):
            stop()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    if group is not None:
        group.kill_all()


def watch_process(proc: subprocess.Popen[bytes], limits: Limits, writable: list[Path],
                  watch: Watch, interrupted: threading.Event | None = None) -> None:
    """Wait for the process, stopping it at the first limit crossed, or as ``killed`` once
    ``interrupted`` is set (the runner was told to stop)."""
    start = time.monotonic()
    next_disk = 0.0
    while proc.poll() is None:
        now = time.monotonic()
        if interrupted is not None and interrupted.is_set():
            watch.stop_for("killed")
        if now - start >= limits.time:
            watch.stop_for("time_limit")
        if limits.disk is not None and now >= next_disk:
            watch.disk_bytes = folder_bytes(writable, limits.disk)
            if watch.disk_bytes > limits.disk:
                watch.stop_for("disk_limit")
            next_disk = now + DISK_POLL_SECONDS
        if watch.reason is not None:
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(POLL_SECONDS)


def exit_reason(watch: Watch, returncode: int | None, group: RunGroup | None,
                interrupted: bool) -> str:
    """How the run ended, the harness's own reasons first."""
    if interrupted:
        return "killed"
    if watch.reason is not None:
        return watch.reason
    if group is not None and group.oom_killed():
        return "out_of_memory"
    if returncode == 0:
        return "finished"
    if group is not None and group.process_limit_hit():  # a fork refused, then the crash
        return "process_limit"
    return "crashed"


class Lifeline:
    """A pipe whose write end only the supervisor holds (close-on-exec: no program it starts
    inherits it); the read end goes to the sandbox's first process, which reads the end of the
    file as soon as the supervisor has died, however it died (:mod:`tambench.runs.inside`)."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()

    def handed_on(self) -> tuple[int]:
        """The descriptors the sandbox program inherits."""
        return (self.read_end,)

    def started(self) -> None:
        """The sandbox program has its copy of the read end: drop this one."""
        os.close(self.read_end)
        self.read_end = -1

    def close(self) -> None:
        """The run is over (its processes are gone): drop both ends."""
        for fd in (self.read_end, self.write_end):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.read_end = self.write_end = -1


class Watchdog:
    """The host-side guard of a container run (:mod:`tambench.runs.watchdog`): holds the read
    end of a pipe whose write end only the supervisor has, in a session of its own (the kill of
    the runner's process group or session does not reach it), and ends the container ``name``
    with ``engine`` when the supervisor dies. :meth:`release` disarms it at the run's end."""

    def __init__(self, engine: str, name: str, log: Path) -> None:
        self.pipe = Lifeline()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, str(WATCHDOG_SCRIPT), engine, name, str(self.pipe.read_end),
                 str(log)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, env=_host_env(),
                pass_fds=self.pipe.handed_on())
        except OSError:
            self.pipe.close()
            raise
        self.pipe.started()

    def release(self) -> None:
        """The run is over and its container ended: the watchdog exits without a call."""
        with contextlib.suppress(OSError):
            os.write(self.pipe.write_end, b"x")
        self.pipe.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(LIFELINE_END_SECONDS)


@dataclass
class Launch:
    """What :func:`launch` needs for one run (built by :mod:`tambench.runs.job`)."""

    sandbox: str
    mounts: Mounts
    command: list[str]
    env: dict[str, str]
    cwd: str
    name: str
    limits: Limits
    log: Path


def launch(spec: Launch, interrupted: threading.Event) -> dict[str, Any]:
    """Run the sandboxed command under the limits; returns the facts for run.json."""
    sandbox = get_sandbox(spec.sandbox)
    group = make_group(spec.name) if spec.sandbox in ("bubblewrap", "none") else None
    held = group.apply(spec.limits.memory, spec.limits.cpus, spec.limits.processes) if group else []
    rlims, by_rlimit = rlimits_for(spec.limits, held)
    lifeline = Lifeline() if sandbox.lifeline else None
    mounts = replace(spec.mounts, lifeline=lifeline.read_end if lifeline else None)
    argv = sandbox.wrap(mounts, spec.command, spec.env, spec.cwd, spec.name, spec.limits)
    watch = Watch()
    started = time.monotonic()
    watchdog = None
    try:
        if sandbox.engine is not None:  # a container: ended from the host if this process dies
            watchdog = Watchdog(sandbox.engine, spec.name, spec.log)
        proc = _popen(spec, argv, group, rlims, lifeline)
    except OSError as exc:
        if lifeline is not None:
            lifeline.close()
        if watchdog is not None:
            watchdog.release()
        if group is not None:
            group.remove()
        return {"exit_reason": "sandbox_error", "error": f"could not start {argv[0]}: {exc}",
                "enforcement": {}}
    if proc.stdout is None:  # stdout=PIPE always gives one; a named error all the same
        raise TambenchError(f"{argv[0]} started without an output pipe")
    pump = threading.Thread(target=_pump, args=(proc.stdout, spec.log, spec.limits.log, watch),
                            daemon=True)
    pump.start()
    writable = [getattr(spec.mounts, k) for k in WRITABLE if getattr(spec.mounts, k, None)]
    try:
        watch_process(proc, spec.limits, writable, watch, interrupted)
        if interrupted.is_set():
            watch.stop_for("killed")
    finally:
        kill_tree(proc, group, lambda: sandbox.stop(spec.name), lifeline)
        proc.wait()
        if watchdog is not None:
            watchdog.release()
        pump.join(5)
    wall = time.monotonic() - started
    disk = folder_bytes(writable)
    if spec.limits.disk is not None and disk > spec.limits.disk:  # crossed as the run ended
        watch.stop_for("disk_limit")
    facts: dict[str, Any] = {
        "exit_code": proc.returncode, "wall_seconds": round(wall, 3),
        "exit_reason": exit_reason(watch, proc.returncode, group, interrupted.is_set()),
        "log_bytes": watch.log_bytes,
        "disk_bytes": disk,
        "enforcement": {"cgroup": held, "rlimit": by_rlimit, "harness": ["time", "disk", "log"],
                        "sandbox": spec.sandbox},
    }
    if group is not None:
        facts["process_limit_reached"] = group.process_limit_hit()
        group.remove()
    return facts


def _popen(spec: Launch, argv: list[str], group: RunGroup | None,
           rlims: list[tuple[int, int]], lifeline: Lifeline | None) -> subprocess.Popen[bytes]:
    """Start the sandbox program in a session of its own, the lifeline's read end handed on
    (then dropped here)."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, preexec_fn=_preexec(group, rlims, lifeline is None),
                            env=spec.env if spec.sandbox == "none" else _host_env(),
                            cwd=spec.cwd if spec.sandbox == "none" else None,
                            pass_fds=lifeline.handed_on() if lifeline else ())
    if lifeline is not None:
        lifeline.started()
    return proc


def _host_env() -> dict[str, str]:
    """The environment of the sandbox program itself (bwrap, docker): PATH and the engine's
    own variables; the agent's environment is given to the sandbox explicitly."""
    keep = ("PATH", "DOCKER_HOST", "DOCKER_CONFIG", "XDG_RUNTIME_DIR", "CONTAINER_HOST")
    return {k: v for k, v in os.environ.items() if k in keep}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def scratch_dir() -> Path:
    """A short private folder for a run's sockets (a Unix socket path is limited to 107
    bytes, so not under the runs folder), named after this process; those of runners that
    were killed are removed first."""
    root = Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for entry in root.glob("tambench-*"):
            pid = owner_pid(entry.name)
            if pid is not None and entry.is_dir() and not entry.is_symlink() \
                    and entry.stat().st_uid == os.getuid() and not pid_alive(pid):
                shutil.rmtree(entry, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=leaf_name("")))


def clear(folder: Path) -> None:
    """Remove a folder the run wrote (links not followed)."""
    shutil.rmtree(folder, ignore_errors=True)
