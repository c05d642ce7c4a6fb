"""Sandboxes: how one run's command is wrapped so the agent sees its task and nothing else.

A sandbox turns a :class:`Mounts` (the host folders of one run) and the agent's command into
the command line the supervisor starts. The agent's view is MLE-bench's: the task's public
files read-only at ``/home/data``, ``/home/instructions.txt``, writable ``/home/submission``,
``/home/code``, ``/home/logs``, ``/home/workspace`` (also ``/tmp``) and, for an agent folder,
``/home/agent``; a validation endpoint at ``http://localhost:5000``. Sandboxes are one
:class:`~tambench.core.registry.Registry` (:data:`SANDBOXES`): ``bubblewrap`` (the default on
Linux), ``docker`` and ``podman`` (where a daemon answers), ``none`` (``--no-sandbox``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tambench.core.registry import Registry
from tambench.errors import ConfigError
from tambench.runs.gateway import env_name as gateway_env
from tambench.runs.limits import Limits

#: Where things are inside a sandbox.
HOME = "/home"
INSIDE = {"data": "/home/data", "submission": "/home/submission", "code": "/home/code",
          "logs": "/home/logs", "workspace": "/home/workspace", "agent": "/home/agent",
          "instructions": "/home/instructions.txt"}
SOCKETS = "/run/tambench"
#: A container's label: the run folder it belongs to (to find it again on resume).
RUN_LABEL = "tambench.run-folder"
INIT = "/opt/tambench/inside.py"
SHIMS = "/opt/tambench/bin"
VALIDATION_PORT = 5000
PROXY_PORT = 3128
#: The model gateway's port inside (:mod:`tambench.runs.gateway`).
GATEWAY_PORT = 4000
#: The agent's user inside (not root, as MLE-bench's containers).
AGENT_UID = 1000
INSIDE_SCRIPT = Path(__file__).with_name("inside.py")
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
        "ca-certificates.conf", "localtime", "nsswitch.conf", "mime.types", "bash.bashrc",
        "profile", "inputrc", "fonts", "matplotlibrc")


@dataclass(frozen=True)
class Mounts:
    """The host folders and files of one run (absolute paths)."""

    data: Path
    instructions: Path
    submission: Path
    code: Path
    logs: Path
    workspace: Path
    tmp: Path
    sockets: Path
    etc: Path
    """A folder holding the run's own passwd, group and hosts."""
    validate_script: Path
    agent: Path | None = None
    gpus: tuple[str, ...] = ()
    proxy: bool = False
    """Whether the proxy socket exists (``--allow-host`` given)."""
    gateways: tuple[str, ...] = ()
    """The names of the model gateways (``--model-gateway``), served on the gateway socket."""
    python_roots: tuple[str, ...] = field(default_factory=tuple)
    lifeline: int | None = None
    """The read end of the run's lifeline pipe, passed to the sandbox's first process (only
    for a sandbox that hands it on: :attr:`Sandbox.lifeline`)."""


def agent_env(m: Mounts, paths: dict[str, str], extra: dict[str, str]) -> dict[str, str]:
    """The environment the agent starts with: MLE-bench's variables, no host secrets."""
    env = {
        "HOME": paths["workspace"], "USER": "agent", "LOGNAME": "agent", "LANG": "C.UTF-8",
        "PATH": ":".join([*(f"{r}/bin" for r in m.python_roots), "/usr/local/bin", "/usr/bin",
                          "/bin"]),
        "TMPDIR": "/tmp" if paths["workspace"].startswith(HOME) else str(m.tmp),
        "DATA_DIR": paths["data"], "SUBMISSION_DIR": paths["submission"],
        "CODE_DIR": paths["code"], "LOGS_DIR": paths["logs"], "WORKSPACE_DIR": paths["workspace"],
        "INSTRUCTIONS_FILE": paths["instructions"],
        "VALIDATION_URL": f"http://localhost:{VALIDATION_PORT}/validate",
        "PYTHONUNBUFFERED": "1",
    }
    if m.agent is not None:
        env["AGENT_DIR"] = paths["agent"]
    if m.gpus:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(m.gpus)
    else:
        env["CUDA_VISIBLE_DEVICES"] = ""
    if m.proxy:
        url = f"http://127.0.0.1:{PROXY_PORT}"
        env.update({k: url for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")})
        env["NO_PROXY"] = env["no_proxy"] = "localhost,127.0.0.1"
    for name in m.gateways:
        env[gateway_env(name)] = f"http://127.0.0.1:{GATEWAY_PORT}/{name}"
    if m.gateways:
        env["OPENAI_BASE_URL"] = env[gateway_env("openai" if "openai" in m.gateways
                                                 else m.gateways[0])]
    env.update(extra)
    return env


def init_command(m: Mounts, python: str, sockets: str, command: list[str], cwd: str) -> list[str]:
    """The sandbox's first process: the relays, then the agent's command."""
    forwards = ["--forward", f"{VALIDATION_PORT}={sockets}/validate.sock"]
    if m.lifeline is not None:
        forwards += ["--lifeline", str(m.lifeline)]
    if m.proxy:
        forwards += ["--forward", f"{PROXY_PORT}={sockets}/proxy.sock"]
    if m.gateways:
        forwards += ["--forward", f"{GATEWAY_PORT}={sockets}/gateway.sock"]
    return [python, INIT, *forwards, "--cwd", cwd, "--", *command]


class Sandbox:
    """How a run is isolated. Subclasses build the command line and say what they protect."""

    name = ""
    #: Whether the agent sees MLE-bench's /home paths (False: the host paths themselves).
    inside_paths = True
    #: Whether the sandbox's first process is handed the supervisor's lifeline pipe, ending
    #: the sandbox when the supervisor dies (:mod:`tambench.runs.inside`).
    lifeline = False
    #: The container engine's program, for a sandbox that lives in the engine's daemon: a
    #: host-side watchdog ends the container by name when the supervisor dies
    #: (:mod:`tambench.runs.watchdog`).
    engine: str | None = None

    def check(self) -> None:
        """Raise :class:`ConfigError` when this sandbox cannot run on this machine."""

    def prepare(self, m: Mounts) -> None:
        """Adjust the run's folders before the sandbox starts (ownership, modes)."""

    def paths(self, m: Mounts) -> dict[str, str]:
        return dict(INSIDE)

    def wrap(self, m: Mounts, command: list[str], env: dict[str, str], cwd: str,
             run_name: str, limits: Limits) -> list[str]:
        raise NotImplementedError

    def stop(self, run_name: str) -> None:
        """End a run's sandbox from outside (beyond killing the started process)."""

    def clear_leftovers(self, folder: Path) -> None:
        """Before a run is redone in ``folder``: end what an earlier, unfinished run there
        left running outside the harness's processes."""

    def unprotected(self) -> list[str]:
        """What this sandbox leaves open, said before a batch starts."""
        return []


def _system_binds() -> list[str]:
    """/usr and the merged-/usr links (or their folders), read-only."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64"):
        p = Path("/") / top
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), f"/{top}"]
        elif p.is_dir():
            args += ["--ro-bind", str(p), f"/{top}"]
    return args


def _etc_binds(m: Mounts) -> list[str]:
    args = []
    for name in _ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for name in ("passwd", "group", "hosts"):
        args += ["--ro-bind", str(m.etc / name), f"/etc/{name}"]
    return args


def _gpu_binds(gpus: tuple[str, ...]) -> list[str]:
    if not gpus:
        return []
    args = []
    for name in ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"):
        args += ["--dev-bind-try", f"/dev/{name}", f"/dev/{name}"]
    for gpu in gpus:
        if gpu.isdigit():
            args += ["--dev-bind-try", f"/dev/nvidia{gpu}", f"/dev/nvidia{gpu}"]
    return args


class Bubblewrap(Sandbox):
    """bubblewrap: new user, PID, network, IPC, UTS and cgroup namespaces; only the run's
    folders, the system's programs and libraries (/usr, read-only), the Python that runs the
    harness (read-only) and a few files of /etc; the agent a non-root user. The sandbox's
    first process is the PID namespace's init (the agent cannot kill it; all ends with it),
    and it ends when the supervisor dies (its lifeline pipe), not bubblewrap's
    ``--die-with-parent``, which leaves a sandbox running when the parent dies during its
    set-up (:mod:`tambench.runs.supervise`)."""

    name = "bubblewrap"
    lifeline = True

    def check(self) -> None:
        if shutil.which("bwrap") is None:
            raise ConfigError("the bubblewrap sandbox needs the `bwrap` program (Debian/Ubuntu: "
                              "apt-get install bubblewrap; scripts/install-system-deps.sh)")

    def wrap(self, m: Mounts, command: list[str], env: dict[str, str], cwd: str,
             run_name: str, limits: Limits) -> list[str]:
        args = ["bwrap", "--as-pid-1", "--new-session", "--unshare-all",
                "--uid", str(AGENT_UID), "--gid", str(AGENT_UID), "--hostname", "sandbox",
                *_system_binds(), *_etc_binds(m), "--proc", "/proc", "--dev", "/dev",
                *_gpu_binds(m.gpus)]
        for root in m.python_roots:
            args += ["--ro-bind", root, root]
        args += ["--dir", HOME, "--ro-bind", str(m.data), INSIDE["data"],
                 "--ro-bind", str(m.instructions), INSIDE["instructions"],
                 "--ro-bind", str(m.validate_script), f"{HOME}/validate_submission.sh"]
        for key in ("submission", "code", "logs", "workspace"):
            args += ["--bind", str(getattr(m, key)), INSIDE[key]]
        if m.agent is not None:
            args += ["--bind", str(m.agent), INSIDE["agent"]]
        args += ["--bind", str(m.tmp), "/tmp", "--ro-bind", str(m.sockets), SOCKETS,
                 "--ro-bind", str(INSIDE_SCRIPT), INIT, "--ro-bind", str(m.etc / "bin"), SHIMS,
                 "--remount-ro", "/", "--chdir", cwd, "--clearenv"]
        for key, value in env.items():
            args += ["--setenv", key, value]
        return [*args, "--", *init_command(m, python_inside(), SOCKETS, command, cwd)]


def python_inside() -> str:
    """The Python the sandbox's first process runs with: the harness's own interpreter."""
    return os.path.realpath(sys.executable)


def python_roots() -> tuple[str, ...]:
    """Folders to mount read-only so that the agent has the harness's Python and packages:
    the interpreter's installation and the virtual environment, when outside /usr."""
    roots = []
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):  # the environment's first
        real = os.path.realpath(prefix)
        if not real.startswith("/usr/") and real != "/usr" and os.path.isdir(real):
            roots.append(real)
    return tuple(roots)


class Container(Sandbox):
    """A Docker or Podman container per run, with MLE-bench's conventions: the image holds the
    agent's environment (``--image``, with python3), the run's folders are mounted at the same
    /home paths, no network (``--network none``), a non-root user, and the limits given to the
    engine (``--memory``, ``--cpus``, ``--pids-limit``, ``--gpus``)."""

    engine: str = "docker"
    image = "python:3.11-slim"

    def check(self) -> None:
        if shutil.which(self.engine) is None:
            raise ConfigError(f"the {self.engine} sandbox needs the `{self.engine}` program")
        probe = subprocess.run([self.engine, "info"], capture_output=True, timeout=30, check=False)
        if probe.returncode != 0:
            raise ConfigError(f"`{self.engine} info` failed: no {self.engine} daemon answers "
                              f"({probe.stderr.decode(errors='replace').strip()[:200]})")

    def wrap(self, m: Mounts, command: list[str], env: dict[str, str], cwd: str,
             run_name: str, limits: Limits) -> list[str]:
        args = [self.engine, "run", "--rm", "--init", "--name", run_name,
                "--label", f"{RUN_LABEL}={m.submission.parent.resolve()}", "--network", "none",
                "--user", f"{AGENT_UID}:{AGENT_UID}", "--workdir", cwd,
                "-v", f"{m.data}:{INSIDE['data']}:ro",
                "-v", f"{m.instructions}:{INSIDE['instructions']}:ro",
                "-v", f"{m.validate_script}:{HOME}/validate_submission.sh:ro",
                "-v", f"{m.sockets}:{SOCKETS}", "-v", f"{INSIDE_SCRIPT}:{INIT}:ro",
                "-v", f"{m.etc / 'bin'}:{SHIMS}:ro",
                "-v", f"{m.tmp}:/tmp"]
        for key in ("submission", "code", "logs", "workspace"):
            args += ["-v", f"{getattr(m, key)}:{INSIDE[key]}"]
        if m.agent is not None:
            args += ["-v", f"{m.agent}:{INSIDE['agent']}"]
        if m.gpus:
            args += ["--gpus", f"\"device={','.join(m.gpus)}\""]
        args += _engine_limits(limits)
        for key, value in env.items():
            if key != "PATH":
                args += ["-e", f"{key}={value}"]
        return [*args, self.image, *init_command(m, "python3", SOCKETS, command, cwd)]

    def stop(self, run_name: str) -> None:
        subprocess.run([self.engine, "kill", run_name], capture_output=True, timeout=60,
                       check=False)

    def clear_leftovers(self, folder: Path) -> None:
        """Remove the containers still running for the run folder ``folder`` (labelled with
        it: those of a run whose runner and watchdog were both killed)."""
        found = self._call(["ps", "-aq", "--filter", f"label={RUN_LABEL}={folder}"])
        ids = found.split()
        if ids:
            self._call(["rm", "-f", *ids])

    def _call(self, args: list[str]) -> str:
        try:
            done = subprocess.run([self.engine, *args], capture_output=True, timeout=60,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ConfigError(f"`{self.engine} {' '.join(args)}` failed: {exc}") from exc
        if done.returncode != 0:
            raise ConfigError(f"`{self.engine} {' '.join(args)}` exited with {done.returncode}: "
                              f"{done.stderr.decode(errors='replace').strip()[:200]}")
        return done.stdout.decode(errors="replace")

    def prepare(self, m: Mounts) -> None:
        """The container's user (uid 1000, not mapped to this one) must write the run's
        folders and reach the harness's sockets."""
        writable = [m.submission, m.code, m.logs, m.workspace, m.tmp]
        if m.agent is not None:
            writable.append(m.agent)
        for folder in writable:
            for path in [folder, *folder.rglob("*")]:
                if os.geteuid() == 0:
                    os.chown(path, AGENT_UID, AGENT_UID, follow_symlinks=False)
                elif not path.is_symlink():
                    path.chmod(0o777 if path.is_dir() else 0o666)
        m.sockets.chmod(0o755)
        for sock in m.sockets.iterdir():
            sock.chmod(0o666)


def _engine_limits(limits: Limits) -> list[str]:
    """The container engine's own flags for the limits it can hold."""
    out = []
    if limits.memory is not None:
        out += ["--memory", str(limits.memory), "--memory-swap", str(limits.memory)]
    if limits.cpus is not None:
        out += ["--cpus", f"{limits.cpus:g}"]
    if limits.processes is not None:
        out += ["--pids-limit", str(limits.processes)]
    return out


class Podman(Container):
    engine = "podman"


class NoSandbox(Sandbox):
    """``--no-sandbox``: the agent runs as this user, on this machine's network and files."""

    name = "none"
    inside_paths = False

    def paths(self, m: Mounts) -> dict[str, str]:
        out = {k: str(getattr(m, k)) for k in ("data", "submission", "code", "logs",
                                                "workspace", "instructions")}
        out["agent"] = str(m.agent) if m.agent is not None else ""
        return out

    def wrap(self, m: Mounts, command: list[str], env: dict[str, str], cwd: str,
             run_name: str, limits: Limits) -> list[str]:
        return command

    def unprotected(self) -> list[str]:
        return [
            "every file this user can read (the answers in each task's private/ folder, "
            "other tasks' data, the catalogue, your home and its secrets)",
            "the network (any host, and services on this machine's loopback)",
            "this user's processes and files (the agent can change or end them)",
            "the validation endpoint at localhost:5000 (only VALIDATION_URL, on the host's "
            "loopback)",
            "memory, CPU and process limits are resource limits of this user, not a cgroup",
            "the agent's background processes outlive a runner killed with kill -9",
        ]


SANDBOXES: Registry[type[Sandbox]] = Registry(
    "sandbox", error=ConfigError, hint="choose one with --sandbox")
for _cls, _name in ((Bubblewrap, "bubblewrap"), (Container, "docker"), (Podman, "podman"),
                    (NoSandbox, "none")):
    SANDBOXES.register(_name, _cls)


def get_sandbox(name: str) -> Sandbox:
    """A sandbox by name (``ConfigError`` listing the names when unknown)."""
    sandbox = SANDBOXES[name]()
    sandbox.name = name
    return sandbox
