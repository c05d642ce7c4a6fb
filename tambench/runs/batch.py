"""A batch of runs: agents x tasks x seeds, on an executor, resumable, graded at the end.

:func:`run_batch` plans one :class:`~tambench.runs.job.RunJob` per (agent, task, seed), skips
those whose run.json is final (a finished earlier batch, or the part of one that a killed
runner had finished), redoes the rest from an empty folder, and sends them to an executor
through :func:`~tambench.executors.run_items` (a local process pool, or Ray with CPU and GPU
requests per run). Runs that need GPUs take one device set each: a set is held for the run by
an exclusive lock on a file of the runs folder, so two parallel runs never share a device.
"""

from __future__ import annotations

import contextlib
import fcntl
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tambench.errors import ConfigError, TambenchError
from tambench.executors import run_items
from tambench.runs.agents import AgentSpec
from tambench.runs.job import RunJob, TaskInfo, execute_run
from tambench.runs.limits import gpu_sets
from tambench.runs.record import is_finished, read_record, task_checksums

GPU_LOCKS = ".gpu-locks"


def task_info(task: str, catalogue: Path | None, data_dir: Path | None) -> TaskInfo:
    """A prepared task's public folder and checksums (the answers are never read)."""
    # start-up: saves 714 ms (the grader, in each run worker)
    from tambench.grading.grade import resolve_task
    resolved = resolve_task(task, catalogue=catalogue, data_dir=data_dir)
    spec = resolved.spec
    task_dir = resolved.answers.parent.parent
    public = task_dir / "public"
    if not public.is_dir():
        raise ConfigError(f"task {spec.id} has no public folder at {public}: prepare it first "
                          f"(tambench prepare {spec.id})")
    return TaskInfo(task_id=spec.id, folder_name=f"{spec.platform}__{spec.slug}",
                    public=str(public), task_dir=str(task_dir),
                    submission_format=spec.grading.submission_format.value if spec.grading else "csv",
                    checksums=task_checksums(task_dir, public))


@dataclass
class BatchPlan:
    """The runs of a batch, and which of them are already finished."""

    jobs: list[RunJob]
    done: list[RunJob] = field(default_factory=list)

    @property
    def todo(self) -> list[RunJob]:
        finished = {id(j) for j in self.done}
        return [j for j in self.jobs if id(j) not in finished]


def plan_batch(agents: list[AgentSpec], tasks: list[TaskInfo], seeds: dict[str, list[int]],
               out: Path, template: RunJob) -> BatchPlan:
    """One job per (agent, task, seed of that agent); the finished ones noted."""
    names = [a.name for a in agents]
    if len(set(names)) != len(names):
        raise ConfigError(f"two agents share a name ({', '.join(names)}); name them apart")
    jobs = [replace(template, agent=a, task=t, seed=s, out=str(out))
            for a in agents for t in tasks for s in seeds[a.name]]
    return BatchPlan(jobs, [j for j in jobs if is_finished(j.folder)])


@contextlib.contextmanager
def gpu_slot(job: RunJob) -> Iterator[RunJob]:
    """Hold one free device set for the run (waiting for one); yields the job with it."""
    if job.limits.gpus == 0:
        yield job
        return
    if not job.gpu_devices:  # a Ray task given GPUs: Ray chose the devices and says which
        given = tuple(d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d)
        if len(given) < job.limits.gpus:
            raise ConfigError(f"each run asks for {job.limits.gpus} GPU(s) but none were "
                              "given: name them with --gpu-devices (or run on Ray with GPUs)")
        yield replace(job, gpu_devices=given[: job.limits.gpus])
        return
    sets = gpu_sets(list(job.gpu_devices), job.limits.gpus)
    locks = Path(job.out) / GPU_LOCKS
    locks.mkdir(parents=True, exist_ok=True)
    while True:
        for devices in sets:
            fd = os.open(locks / f"{'-'.join(devices)}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield replace(job, gpu_devices=devices)
            finally:
                os.close(fd)
            return
        threading.Event().wait(1.0)


#: Set in a pool worker once it was told to stop (SIGTERM, SIGINT): it starts no further run
#: (the pool hands a worker its next run before the runner's Ctrl-C can withdraw it).
_STOPPED = threading.Event()


def run_one(job: RunJob) -> dict[str, Any]:
    """A worker's entry point: one run; SIGTERM/SIGINT end it as ``killed`` (its record final,
    its processes gone) before the signal has its usual effect: a pool worker starts no other
    run, and in the runner's own process (the serial executor) the signal is raised again
    (Ctrl-C stops the batch)."""
    if _STOPPED.is_set():
        raise TambenchError(f"run {job.agent.name}/{job.task.task_id}/{job.seed} not started: "
                            "the runner was told to stop")
    interrupted = threading.Event()
    received: list[int] = []
    in_pool = multiprocessing.parent_process() is not None

    def stop(signum: int, _frame: object) -> None:
        interrupted.set()
        received.append(signum)
        if in_pool:
            _STOPPED.set()

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, stop)
    try:
        with gpu_slot(job) as held:
            record = execute_run(held, interrupted)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received and not in_pool:
        signal.raise_signal(received[0])
    return record


def execute_plan(plan: BatchPlan, executor: Executor,
                 on_result: Callable[[Any], None] | None = None) -> list[dict[str, Any]]:
    """Run the unfinished jobs; one record per job of the plan (earlier ones read back)."""
    todo = plan.todo
    results = run_items(run_one, todo, executor, retries=0, chunk_size=1,
                        no_retry=(TambenchError,), on_result=on_result)
    by_job = {id(j): r for j, r in zip(todo, results, strict=True)}
    records = []
    for job in plan.jobs:
        res = by_job.get(id(job))
        if res is None:
            records.append(read_record(job.folder) or {})
        elif res.ok and res.value is not None:
            records.append(res.value)
        else:
            records.append({"agent": job.agent.name, "task": job.task.task_id, "seed": job.seed,
                            "state": "error", "error": res.error})
    return records
