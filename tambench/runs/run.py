""":func:`run_agents`: the whole ``tambench run`` (and ``tambench.run`` in Python)."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tambench.config import load_settings
from tambench.errors import ConfigError
from tambench.executors import get_executor
from tambench.grading.batch import grade_runs
from tambench.grading.batch.records import difference_warnings
from tambench.runs.agents import AgentSpec
from tambench.runs.batch import BatchPlan, execute_plan, plan_batch, task_info
from tambench.runs.gateway import parse_gateways
from tambench.runs.job import RunJob
from tambench.runs.limits import Limits
from tambench.runs.pricing import load_prices
from tambench.runs.sandbox import get_sandbox


@dataclass
class RunsResult:
    """What a batch of runs did."""

    out: Path
    records: list[dict[str, Any]]
    skipped: int
    """Runs already finished before this call (not run again)."""
    warnings: list[str] = field(default_factory=list)
    report: Any = None
    """The :class:`~tambench.grading.batch.BatchReport` when graded."""

    def counts(self) -> dict[str, int]:
        """Runs per exit reason (``error`` for a run the harness itself could not make)."""
        out: dict[str, int] = defaultdict(int)
        for r in self.records:
            out[str(r.get("exit_reason") or r.get("state") or "error")] += 1
        return dict(sorted(out.items()))


def _executor(kind: str, workers: int, limits: Limits, address: str | None) -> Executor:
    if kind == "ray":
        options: dict[str, Any] = {"num_cpus": limits.cpus or 1, "num_gpus": limits.gpus}
        if address:
            options["address"] = address
        return get_executor("ray", workers or None, **options)
    if kind not in ("local", "serial"):
        raise ConfigError(f"runs go to a local process pool (local), this process (serial) or "
                          f"Ray (ray), not {kind!r}")
    return get_executor(kind, workers)


def run_agents(
    agents: Sequence[AgentSpec],
    tasks: Sequence[str],
    *,
    seeds: int | Sequence[int] | Mapping[str, int] = 1,
    out: str | os.PathLike[str] = "runs",
    catalogue: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    limits: Limits | None = None,
    sandbox: str = "bubblewrap",
    allow_hosts: Sequence[str] = (),
    model_gateways: Sequence[str] = (),
    executor: str = "local",
    executor_address: str | None = None,
    parallel: int = 1,
    gpu_devices: Sequence[str] = (),
    validation: bool = True,
    prices: str | os.PathLike[str] | None = None,
    grade: bool = False,
    on_result: Callable[[Any], None] | None = None,
) -> RunsResult:
    """Run every agent on every task with every seed; finished runs are not run again.

    Args:
        agents: from :func:`~tambench.runs.agents.make_agent`.
        tasks: task references (ids, unique slugs), each prepared in ``data_dir``.
        seeds: a number of seeds (0..n-1), the seeds themselves, or a number of seeds per
            agent name.
        out: the runs folder (``<out>/<agent>/<platform>__<slug>/<seed>/``).
        limits: per-run limits (default: :class:`Limits`' defaults, 8 hours).
        sandbox: ``bubblewrap``, ``docker``, ``podman`` or ``none``.
        allow_hosts: hosts (``host`` or ``host:port``) the agent may reach through the proxy.
        model_gateways: ``[name=]https://...`` model APIs, tokens counted (:mod:`.gateway`).
        executor, executor_address, parallel: ``local`` (a process pool of ``parallel`` runs),
            ``serial`` or ``ray`` (a task per run asking for the limits' CPUs and GPUs).
        gpu_devices: the GPU ids shared out, ``limits.gpus`` per run.
        validation: serve the validation endpoint at localhost:5000 in each run.
        prices: a JSON price table extending the built-in one (cost per million tokens).
        grade: grade the runs folder at the end (``grade_runs``).

    Raises:
        ConfigError: an unknown sandbox, or one this machine cannot run; bad limits or gateways.
        TaskNotFoundError, TaskDataError: a task that does not resolve or is not prepared.
    """
    settings = load_settings(catalogue=_path(catalogue), data_dir=_path(data_dir))
    get_sandbox(sandbox).check()
    gateways = parse_gateways(model_gateways, sandboxed=get_sandbox(sandbox).inside_paths)
    seed_lists = {a.name: seed_list(seeds, a.name) for a in agents}
    if not all(seed_lists.values()) or not agents or not tasks:
        raise ConfigError("nothing to run: give at least one agent, one task and one seed")
    infos = [task_info(t, settings.catalogue, settings.data_dir) for t in dict.fromkeys(tasks)]
    template = RunJob(agent=agents[0], task=infos[0], seed=0, out=str(out), limits=limits or Limits(),
                      sandbox=sandbox, allow_hosts=tuple(allow_hosts), gateways=gateways,
                      catalogue=str(settings.catalogue), data_dir=str(settings.data_dir),
                      gpu_devices=tuple(gpu_devices), validation=validation,
                      prices=load_prices(_path(prices)))
    return _execute(plan_batch(list(agents), infos, seed_lists, Path(out), template),
                    executor, executor_address, parallel, on_result, grade)


def _execute(plan: BatchPlan, executor: str, address: str | None, parallel: int,
             on_result: Callable[[Any], None] | None, grade: bool) -> RunsResult:
    """Run a planned batch on its executor; grade it when asked."""
    template = plan.jobs[0]
    pool = _executor(executor, max(1, parallel), template.limits, address)
    try:
        records = execute_plan(plan, pool, on_result)
    finally:
        pool.shutdown(wait=True)
    result = RunsResult(out=Path(template.out), records=records, skipped=len(plan.done),
                        warnings=difference_warnings(records))  # this batch's runs
    if grade:
        settings = load_settings(catalogue=_path(template.catalogue),
                                 data_dir=_path(template.data_dir))
        result.report = grade_folder(result, settings.catalogue, settings.data_dir)
    return result


def grade_folder(result: RunsResult, catalogue: Path, data_dir: Path) -> Any:
    """Grade the runs folder (its report warns when the runs' hardware or limits differ)."""
    return grade_runs(result.out, catalogue=catalogue, data_dir=data_dir)


def seed_list(seeds: int | Sequence[int] | Mapping[str, int], agent: str) -> list[int]:
    """The seeds one agent runs.

    >>> seed_list(3, "a"), seed_list([7, 9], "a"), seed_list({"a": 2, "b": 1}, "b")
    ([0, 1, 2], [7, 9], [0])
    """
    if isinstance(seeds, Mapping):
        if agent not in seeds:
            raise ConfigError(f"no number of seeds given for agent {agent!r}")
        return list(range(seeds[agent]))
    return list(range(seeds)) if isinstance(seeds, int) else list(seeds)


def _path(p: str | os.PathLike[str] | None) -> Path | None:
    return None if p is None else Path(p)

