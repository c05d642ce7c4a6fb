"""KaggleBench over folders: task folders (bank + testcases) and agent output files."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tambench.errors import ProtocolError
from tambench.protocols.kagglebench.models import AgentOutput, Testcase, load_json_model
from tambench.protocols.kagglebench.scoring import (
    MEAN_FIELDS,
    SUCCESS_THRESHOLD,
    ActionBank,
    ScenarioScore,
    Scope,
    aggregate_runs,
    evaluate_prediction,
    load_bank,
    mean_rounded,
)


@dataclass(frozen=True)
class KaggleBenchTask:
    """One task folder: bank and testcases."""

    slug: str
    bank: ActionBank
    testcases: dict[str, Testcase]


def load_task(folder: str | Path) -> KaggleBenchTask:
    """Read ``<folder>/candidate_actions.json`` and ``<folder>/testcases/*.json``; checks that
    slugs agree and every context id is in the bank."""
    root = Path(folder)
    slug = root.name
    bank = load_bank(root / "candidate_actions.json")
    if bank.slug != slug:
        raise ProtocolError(f"{root}/candidate_actions.json is for {bank.slug!r}, expected {slug!r}")
    testcases: dict[str, Testcase] = {}
    files = sorted((root / "testcases").glob("*.json"))
    if not files:
        raise ProtocolError(f"{root}/testcases holds no testcase JSON files")
    for f in files:
        tc: Testcase = load_json_model(f, Testcase)
        if tc.competition_slug != slug:
            raise ProtocolError(f"{f} is for {tc.competition_slug!r}, expected {slug!r}")
        if tc.testcase_id in testcases:
            raise ProtocolError(f"{root}: testcase id {tc.testcase_id!r} appears twice")
        unknown = [x for x in tc.input.context_action_ids if x not in bank.actions]
        if unknown:
            raise ProtocolError(f"{f}: context names action(s) not in the bank: {unknown}")
        testcases[tc.testcase_id] = tc
    return KaggleBenchTask(slug, bank, testcases)


def find_task_dirs(tasks_dir: str | Path) -> list[Path]:
    """Task folders under ``tasks_dir`` (or under its ``tasks/`` subfolder): every subfolder
    holding a ``candidate_actions.json``, sorted by name."""
    root = Path(tasks_dir)
    if not root.is_dir():
        raise ProtocolError(f"tasks folder not found: {root}")
    dirs = sorted(p for p in root.iterdir() if (p / "candidate_actions.json").is_file())
    if not dirs and (root / "tasks").is_dir():
        dirs = sorted(p for p in (root / "tasks").iterdir()
                      if (p / "candidate_actions.json").is_file())
    if not dirs:
        raise ProtocolError(
            f"{root} holds no task folders: expected <tasks>/<slug>/candidate_actions.json"
        )
    return dirs


#: The default pattern of output files inside ``<outputs>/<slug>/``.
OUTPUT_GLOB = "**/*.json"

#: The pattern that picks the human baselines inside a task folder of the benchmark.
HUMAN_BASELINE_GLOB = "human_baseline/*.json"


RunKey = tuple[str, str, str]
"""(agent, task, testcase)."""


def _score_file(f: Path, slug: str, task: KaggleBenchTask, run_ids: dict[RunKey, set[str]],
                scope: Scope, threshold: float) -> tuple[RunKey, ScenarioScore, dict[str, Any]]:
    """Read one output file, check it belongs where it lies, and score it."""
    o: AgentOutput = load_json_model(f, AgentOutput)
    if o.competition_slug != slug:
        raise ProtocolError(f"{f} is for {o.competition_slug!r} but lies under {slug!r}")
    tc = task.testcases.get(o.testcase_id)
    if tc is None:
        raise ProtocolError(f"{f}: unknown testcase {o.testcase_id!r}; expected one of "
                            f"{sorted(task.testcases)}")
    key = (o.agent_name, slug, o.testcase_id)
    if o.run_id and o.run_id in run_ids[key]:
        raise ProtocolError(f"{f}: run {o.run_id!r} of {key} appears twice")
    run_ids[key].add(o.run_id)
    s = evaluate_prediction(task.bank, tc.input.context_action_ids, o.predicted_add_action_ids,
                            o.predicted_remove_action_ids, scope=scope, threshold=threshold)
    row = {"agent": o.agent_name, "task": slug, "testcase": o.testcase_id, "run_id": o.run_id,
           "file": str(f), **s.as_dict()}
    return key, s, row


def _agent_summary(mine: list[dict[str, Any]], tasks: dict[str, KaggleBenchTask]) -> dict[str, Any]:
    """One agent's counts and means over its scenarios, and what it left without output."""
    done = {(s["task"], s["testcase"]) for s in mine}
    summary: dict[str, Any] = {
        "n_tasks": len({s["task"] for s in mine}),
        "n_scenarios": len(mine),
        "n_runs": sum(s["k"] for s in mine),
        "pass_at_k": mean_rounded([float(s["pass_at_k"]) for s in mine]),
        "run_success_rate": mean_rounded([s["run_success_rate"] for s in mine]),
    }
    for name in MEAN_FIELDS:
        summary[f"mean_{name}"] = mean_rounded([s[f"mean_{name}"] for s in mine])
    summary["tasks_without_output"] = sorted(set(tasks) - {t for t, _ in done})
    summary["testcases_without_output"] = sorted(
        f"{slug}/{tc}" for slug, t in tasks.items() for tc in t.testcases if (slug, tc) not in done
    )
    return summary


def evaluate_outputs(
    tasks_dir: str | Path,
    outputs_dir: str | Path,
    *,
    scope: Scope = "primary",
    pattern: str = OUTPUT_GLOB,
    threshold: float = SUCCESS_THRESHOLD,
) -> dict[str, Any]:
    """Score every agent output under ``outputs_dir`` and aggregate per agent.

    Layout: ``<outputs>/<slug>/`` for each task, holding output artifacts (JSON in the
    benchmark's ``output.schema.json`` layout) matched by ``pattern`` (default ``**/*.json``,
    e.g. ``<slug>/<testcase_id>.json`` or ``<slug>/<testcase_id>/run_1.json``). Each file names
    its own ``competition_slug`` (must equal the folder), ``testcase_id`` (must exist in the
    task), ``agent_name`` and ``run_id``; several files with the same agent and testcase are
    several runs. The human baselines are read with ``outputs_dir = tasks_dir`` and
    ``pattern = HUMAN_BASELINE_GLOB``.

    Returns:
        ``{"scope", "n_tasks", "runs": [...], "scenarios": [...], "agents": {name: summary}}``;
        a summary holds counts, ``pass_at_k`` (share of scenarios with a success), the mean
        run success rate and the mean of each value over scenarios (each scenario first
        averaged over its runs), and the tasks and testcases the agent has no output for.
    """
    task_dirs = find_task_dirs(tasks_dir)
    out_root = Path(outputs_dir)
    if not out_root.is_dir():
        raise ProtocolError(f"outputs folder not found: {out_root}")
    tasks = {d.name: load_task(d) for d in task_dirs}
    runs: list[dict[str, Any]] = []
    grouped: dict[RunKey, list[ScenarioScore]] = defaultdict(list)
    run_ids: dict[RunKey, set[str]] = defaultdict(set)
    for d in task_dirs:
        folder = out_root / d.name
        files = sorted(f for f in folder.glob(pattern) if f.is_file()) if folder.is_dir() else []
        for f in files:
            key, s, row = _score_file(f, d.name, tasks[d.name], run_ids, scope, threshold)
            grouped[key].append(s)
            runs.append(row)
    if not runs:
        raise ProtocolError(
            f"no output files under {out_root} matching <slug>/{pattern} for the "
            f"{len(tasks)} task(s) in {tasks_dir}"
        )
    scenarios = [{"agent": a, "task": t, "testcase": tc, **aggregate_runs(ss)}
                 for (a, t, tc), ss in sorted(grouped.items())]
    agents = {agent: _agent_summary([s for s in scenarios if s["agent"] == agent], tasks)
              for agent in sorted({s["agent"] for s in scenarios})}
    return {"scope": scope, "n_tasks": len(tasks), "threshold": threshold, "runs": runs,
            "scenarios": scenarios, "agents": agents}
