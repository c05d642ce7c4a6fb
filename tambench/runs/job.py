"""One run of one agent on one task with one seed: :func:`execute_run`.

The run folder ``<out>/<agent>/<task>/<seed>/`` ends up in grade-runs' layout::

    submission.csv      moved out of submission/ (a regular file only; a link is refused)
    code/ logs/         the agent's solution code and its own logs
    agent.log           the agent's standard output and error (up to the log limit)
    run.json            the record (:mod:`tambench.runs.record`)

The workspace and /tmp of the run are deleted at the end; a redone run starts from an empty
folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tambench.errors import TambenchError
from tambench.runs.agents import CONDA_SHIM, AgentSpec
from tambench.runs.gateway import ModelGateway
from tambench.runs.gateway import env_name as gateway_env
from tambench.runs.limits import Limits
from tambench.runs.pricing import add_costs
from tambench.runs.record import RUN_RECORD_VERSION, hardware, write_record
from tambench.runs.sandbox import GATEWAY_PORT, SHIMS, Mounts, agent_env, get_sandbox, python_roots
from tambench.runs.services import AllowHostProxy, UnixService, Usage, tcp_relay
from tambench.runs.supervise import AGENT_LOG, Launch, clear, launch, now_iso, scratch_dir


@dataclass(frozen=True)
class TaskInfo:
    """A prepared task as a run needs it (picklable; computed once per batch)."""

    task_id: str
    folder_name: str
    """``<platform>__<slug>``: the run folder's task name, which grade-runs resolves."""
    public: str
    task_dir: str
    submission_format: str
    checksums: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunJob:
    """Everything one run needs (picklable, sent to a worker)."""

    agent: AgentSpec
    task: TaskInfo
    seed: int
    out: str
    limits: Limits
    sandbox: str = "bubblewrap"
    allow_hosts: tuple[str, ...] = ()
    gateways: tuple[tuple[str, str], ...] = ()
    """(name, upstream URL) of each model gateway (:mod:`tambench.runs.gateway`)."""
    catalogue: str | None = None
    data_dir: str | None = None
    gpu_devices: tuple[str, ...] = ()
    validation: bool = True
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Model -> USD per million input and output tokens (:mod:`tambench.runs.pricing`)."""

    @property
    def folder(self) -> Path:
        return Path(self.out) / self.agent.name / self.task.folder_name / str(self.seed)


def instructions_text(job: RunJob, paths: dict[str, str]) -> str:
    """The task's own instructions.txt when prepare wrote one; else a short statement of where
    things are and what to hand in."""
    own = Path(job.task.public) / "instructions.txt"
    if own.is_file():
        return own.read_text(encoding="utf-8", errors="replace")
    fmt = job.task.submission_format
    described = (Path(job.task.public) / "description.md").is_file()
    return "\n".join([
        f"Task: {job.task.task_id}",
        "",
        f"The task's public files are in {paths['data']} (read-only)"
        + (f"; its description is {paths['data']}/description.md." if described else "."),
        f"Write your predictions to {paths['submission']}/submission.{fmt}, in the format of the "
        f"sample submission in {paths['data']}.",
        f"Put the code of your solution in {paths['code']} and any logs in {paths['logs']}; "
        f"work in {paths['workspace']}.",
        f"Check a submission's format (not its score) by posting it to {paths['validate']} "
        f"(bash /home/validate_submission.sh FILE does it).",
        f"You have {_duration(job.limits.time)} of wall-clock time; the run is ended when it "
        "is up.",
        "There is no network access" + ("" if not job.allow_hosts else
                                        " except to: " + ", ".join(job.allow_hosts)) + ".",
        *(f"The model API {url} is served at http://127.0.0.1:{GATEWAY_PORT}/{name} "
          f"(${gateway_env(name)}; OPENAI_BASE_URL is set)." for name, url in job.gateways),
        "",
    ])


def _duration(seconds: float) -> str:
    """``8 hours``, ``90 minutes``, ``1 minute``, ``20 seconds``.

    >>> _duration(28800), _duration(5400), _duration(60), _duration(2.5)
    ('8 hours', '90 minutes', '1 minute', '2.5 seconds')
    """
    for unit, size in (("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds >= size and seconds % size == 0 or seconds >= 10 * size or size == 1:
            value = seconds / size
            return f"{value:g} {unit}{'' if value == 1 else 's'}"
    raise AssertionError("unreachable")


VALIDATE_SCRIPT = """#!/bin/sh
# Post a submission to the run's validation endpoint: bash /home/validate_submission.sh FILE
exec python3 - "${1:-/home/submission/submission.csv}" "${VALIDATION_URL:-http://localhost:5000/validate}" <<'EOF'
import sys, urllib.request, uuid
path, url = sys.argv[1], sys.argv[2]
boundary = uuid.uuid4().hex
with open(path, "rb") as fh:
    body = (f"--{boundary}\\r\\nContent-Disposition: form-data; name=\\"file\\"; "
            f"filename=\\"{path.rsplit('/', 1)[-1]}\\"\\r\\n\\r\\n").encode() + fh.read() \\
        + f"\\r\\n--{boundary}--\\r\\n".encode()
req = urllib.request.Request(url, data=body, headers={
    "Content-Type": f"multipart/form-data; boundary={boundary}"})
try:
    with urllib.request.urlopen(req, timeout=600) as resp:
        print(resp.read().decode())
except urllib.error.HTTPError as exc:
    print(exc.read().decode())
    sys.exit(1)
EOF
"""


def _write_etc(etc: Path) -> None:
    etc.mkdir()
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n"
                                "agent:x:1000:1000:agent:/home/workspace:/bin/bash\n"
                                "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
    (etc / "group").write_text("root:x:0:\nagent:x:1000:\nnogroup:x:65534:\n")
    (etc / "hosts").write_text("127.0.0.1 localhost sandbox\n::1 localhost\n")
    shim = etc / "bin"
    shim.mkdir()
    (shim / "conda").write_text(CONDA_SHIM)
    (shim / "conda").chmod(0o755)


def prepare_folder(job: RunJob, scratch: Path) -> Mounts:
    """An empty run folder with its writable subfolders; the sandbox's own files in
    ``scratch``."""
    folder = job.folder
    clear(folder)
    folder.mkdir(parents=True)
    for name in ("submission", "code", "logs", "workspace", "tmp"):
        (folder / name).mkdir()
    agent_dir = None
    if job.agent.folder is not None:
        agent_dir = folder / "agent"
        shutil.copytree(job.agent.folder, agent_dir, symlinks=True)
    _write_etc(scratch / "etc")
    (scratch / "sockets").mkdir()
    script = scratch / "validate_submission.sh"
    script.write_text(VALIDATE_SCRIPT)
    script.chmod(0o755)
    return Mounts(data=Path(job.task.public), instructions=scratch / "instructions.txt",
                  submission=folder / "submission", code=folder / "code", logs=folder / "logs",
                  workspace=folder / "workspace", tmp=folder / "tmp", sockets=scratch / "sockets",
                  etc=scratch / "etc", validate_script=script, agent=agent_dir,
                  proxy=bool(job.allow_hosts), gateways=tuple(n for n, _ in job.gateways),
                  python_roots=python_roots())


class Services:
    """The validation server, the allow-host proxy and the model gateway of one run, on the
    run's sockets."""

    def __init__(self, job: RunJob, sockets: Path) -> None:
        self.usage = Usage()
        self._closers: list[Any] = []
        self.validation_url = ""
        if job.validation:
            self._start_validation(job, sockets)
        if job.allow_hosts:
            proxy = UnixService(sockets / "proxy.sock", AllowHostProxy(list(job.allow_hosts),
                                                                       self.usage))
            self._closers.append(proxy.close)
        if job.gateways:
            gateway = UnixService(sockets / "gateway.sock", ModelGateway(job.gateways, self.usage))
            self._closers.append(gateway.close)

    def _start_validation(self, job: RunJob, sockets: Path) -> None:
        # start-up: saves 594 ms (the validator, in each run worker)
        from tambench.grading.verdict import resolve_public_task

        # start-up: saves 6 ms (server settings, in each run worker)
        from tambench.runs.server.config import ServerConfig

        # start-up: saves 803 ms (aiohttp, in each run worker)
        from tambench.runs.server.run import ValidationServer

        task = resolve_public_task(job.task.task_id, catalogue=_opt(job.catalogue),
                                   data_dir=_opt(job.data_dir), public_dir=Path(job.task.public))
        server = ValidationServer(task, ServerConfig(port=0, runs_dir=job.folder.parent,
                                                     run=job.folder.name), log=lambda _: None)
        server.start()
        self._closers.append(server.close)
        if server.port is None:  # set once listening
            raise TambenchError("the validation server started without a port")
        self.validation_url = server.url + "/validate"
        relay = UnixService(sockets / "validate.sock", tcp_relay("127.0.0.1", server.port))
        self._closers.append(relay.close)

    def close(self) -> None:
        for close in reversed(self._closers):
            with contextlib.suppress(Exception):
                close()


def _opt(path: str | None) -> Path | None:
    return None if path is None else Path(path)


def collect_submission(folder: Path, fmt: str) -> str | None:
    """Move ``submission/submission.<fmt>`` (or its compressed form, as grade-runs reads them)
    to the run folder; a link or anything but a regular file is left where it is and named as
    the problem (returned)."""
    # start-up: saves 416 ms (numpy, in each run worker)
    from tambench.grading.batch.discover import submission_names

    for name in submission_names((fmt,)):
        src = folder / "submission" / name
        try:
            st = os.lstat(src)
        except OSError:
            continue
        return _collect(folder, src, name, st)
    return None


def _collect(folder: Path, src: Path, name: str, st: os.stat_result) -> str | None:
    if stat.S_ISLNK(st.st_mode):
        return f"submission/{name} is a symbolic link (to {os.readlink(src)!r}); not collected"
    if not stat.S_ISREG(st.st_mode):
        return f"submission/{name} is not a regular file; not collected"
    os.replace(src, folder / name)
    return None


def tambench_version() -> str:
    """The installed tambench's version (read from its metadata: importing the package itself
    here would load the Python API, which imports this stage)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tambench")
    except PackageNotFoundError:
        return "unknown"


def base_record(job: RunJob) -> dict[str, Any]:
    return {
        "record_version": RUN_RECORD_VERSION, "state": "running", "agent": job.agent.name,
        "agent_command": list(job.agent.command), "agent_folder": job.agent.folder,
        "task": job.task.task_id, "task_folder": job.task.folder_name, "seed": job.seed,
        "sandbox": job.sandbox, "allow_hosts": list(job.allow_hosts),
        "model_gateways": dict(job.gateways),
        "limits": job.limits.as_dict(), "hardware": hardware(), "tambench_version": tambench_version(),
        "task_checksums": job.task.checksums, "started_at": now_iso(), "runner_pid": os.getpid(),
    }


def execute_run(job: RunJob, interrupted: threading.Event | None = None) -> dict[str, Any]:
    """Run the agent once on the task; write and return its final run.json."""
    sandbox = get_sandbox(job.sandbox)
    sandbox.check()
    sandbox.clear_leftovers(job.folder.resolve())
    scratch = scratch_dir()
    services: Services | None = None
    try:
        mounts = prepare_folder(job, scratch)
        record = base_record(job)
        write_record(job.folder, record)
        services = Services(job, mounts.sockets)
        paths = sandbox.paths(mounts)
        paths["validate"] = (services.validation_url if not sandbox.inside_paths
                             else "http://localhost:5000/validate")
        (scratch / "instructions.txt").write_text(instructions_text(job, paths), encoding="utf-8")
        sandbox.prepare(mounts)
        extra = {"TAMBENCH_SEED": str(job.seed), "TAMBENCH_TASK": job.task.task_id, **job.agent.env}
        if not sandbox.inside_paths:
            extra["VALIDATION_URL"] = services.validation_url
        env = agent_env(mounts, paths, extra)
        if job.agent.mle_bench:
            env["PATH"] = f"{env['PATH']}:{SHIMS}" if sandbox.inside_paths \
                else f"{env['PATH']}:{scratch / 'etc' / 'bin'}"
        cwd = paths["agent"] if job.agent.mle_bench else paths["workspace"]
        facts = launch(Launch(job.sandbox, mounts, list(job.agent.command), env, cwd,
                              scratch.name, job.limits,
                              job.folder / AGENT_LOG), interrupted or threading.Event())
    finally:
        if services is not None:
            services.close()
        clear(scratch)
    problem = collect_submission(job.folder, job.task.submission_format)
    for name in ("workspace", "tmp"):
        clear(job.folder / name)
    # A run the runner was told to stop is not finished: the next batch redoes it.
    state = "interrupted" if facts["exit_reason"] == "killed" and interrupted is not None \
        and interrupted.is_set() else "done"
    if services is None:  # set before the run started
        raise TambenchError("a run ended before its services were started")
    record.update(facts, state=state, ended_at=now_iso(), usage=services.usage.as_dict())
    add_costs(record, job.prices)
    if problem:
        record["submission_problem"] = problem
    write_record(job.folder, record)
    return record
