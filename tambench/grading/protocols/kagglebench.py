"""KaggleBench: scoring repaired tabular preprocessing plans.

An agent sees a bank of candidate preprocessing actions and a scenario's active context
actions, and predicts which actions to add and which to remove. :func:`evaluate_prediction`
scores one prediction exactly as the benchmark defines it:

* **Scope**: ``primary`` (default) scores only actions whose ``eval_stage`` is
  ``core_preprocessing``; ``all`` scores every action. Out-of-scope predictions are ignored
  (counted as ``stage_filtered``, never false positives) and do not change the final state.
* **Expected adds**: each good in-scope action not in the context is one unit; good actions
  sharing an ``equivalence_group`` collapse into one unit; a group already satisfied by a good
  in-scope context action gives no unit. **Expected removes**: bad in-scope context actions.
* **Invalid predictions**, classified in this order and counted as false positives: not a
  string, duplicate, unknown id, (then out-of-scope ids are filtered), an add already in the
  context, a remove not in the context.
* **Final state** = (context - removes) | adds. ``must_follow_action_ids`` and
  ``invalidates_action_ids`` of an action A listing B give an edge B -> A; a
  ``conflicts_with_action_ids`` pair inside the state makes it invalid; a topological sort
  finds cycles, and nodes downstream of a cycle count as in it. A predicted add in a conflict
  or a cycle is a false positive.
* **Add side**: a good in-scope target matched the first time is a TP; a second member of a
  matched group or a member of a group the context satisfies is a FP; anything else is a FP.
  **Remove side**: in the expected set is a TP, else a FP.
* **Per side** (E expected, P predicted): E = P = 0 gives precision = recall = F1 = 1; E = 0 <
  P gives precision 0, recall 1, F1 0; else precision TP/P (0 if P = 0), recall TP/E and F1 the
  harmonic mean (0 if both are 0). Each rounded to 6 places.
* ``task_completion = 0.5 * add_f1 + 0.5 * remove_recall`` and
  ``strict_score = 0.5 * add_f1 + 0.5 * remove_f1`` from the rounded values, rounded again.
  Success: ``task_completion >= 0.5`` (inclusive).

Several runs of one scenario: ``pass@k`` (any run succeeds), the run success rate and means
(:func:`aggregate_runs`). A folder of agent outputs for the benchmark's tasks is scored by
:func:`evaluate_outputs` (layout in its docstring and in ``docs/protocols/kagglebench.md``).
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tambench.errors import ProtocolError

Scope = Literal["primary", "all"]
SCOPES: tuple[Scope, ...] = ("primary", "all")

#: The stage the ``primary`` scope scores.
PRIMARY_STAGE = "core_preprocessing"

#: ``task_completion`` at or above this is a success.
SUCCESS_THRESHOLD = 0.5

#: Decimal places of every reported rate.
ROUND_DIGITS = 6


# --- file models (the benchmark's JSON layouts; extra fields are kept, not validated) ------


class _FileModel(BaseModel):
    model_config = ConfigDict(extra="allow")


class CandidateAction(_FileModel):
    """One action of a task's candidate bank (``candidate_actions.json``)."""

    action_id: str = Field(min_length=1)
    """Stable id, e.g. "CA-000021"."""

    action_type: str = ""
    """Canonical action type, e.g. "IMPUTE_MISSING" (not used in scoring)."""

    eval_stage: Literal["core_preprocessing", "validation_protocol",
                        "model_specific_preprocessing"]
    """Pipeline stage; the primary scope scores only core_preprocessing."""

    role: Literal["good", "bad"]
    """Whether the action belongs in a good plan (hidden from the agent)."""

    equivalence_group: str | None = None
    """Good actions sharing a group are interchangeable: one of them is expected."""

    must_follow_action_ids: list[str] = Field(default_factory=list)
    """Actions that must come before this one (edges B -> this)."""

    invalidates_action_ids: list[str] = Field(default_factory=list)
    """Actions this one invalidates (also edges B -> this)."""

    conflicts_with_action_ids: list[str] = Field(default_factory=list)
    """Actions that cannot be in the same final state as this one."""


class CandidateBank(_FileModel):
    """``candidate_actions.json``."""

    competition_slug: str = Field(min_length=1)
    """The task's slug."""

    actions: list[CandidateAction]
    """The bank."""


class TestcaseInput(_FileModel):
    """The ``input`` of a testcase."""

    scenario: str = ""
    """from_scratch | partial_good | fault_injected | mixed."""

    context_action_ids: list[str]
    """Actions already active in the scenario."""


class Testcase(_FileModel):
    """``testcases/<testcase_id>.json``."""

    __test__ = False  # not a pytest test class

    testcase_id: str = Field(min_length=1)
    """e.g. "tc1_from_scratch"."""

    competition_slug: str = Field(min_length=1)
    """The task's slug."""

    input: TestcaseInput
    """Scenario and context."""


class AgentOutput(_FileModel):
    """One run's output artifact (the benchmark's ``output.schema.json``; predictions are read
    as any JSON so that non-string ids can be classified as invalid rather than refused)."""

    competition_slug: str = Field(min_length=1)
    """The task's slug."""

    testcase_id: str = Field(min_length=1)
    """The testcase answered."""

    agent_name: str = "unknown"
    """Who produced it ("human" for the human baseline)."""

    run_id: str = ""
    """Identifies the run among several of the same scenario."""

    predicted_add_action_ids: list[Any]
    """Actions to add."""

    predicted_remove_action_ids: list[Any]
    """Actions to remove."""


def _load_json_model(path: Path, model: type[_FileModel]) -> Any:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProtocolError(f"file not found: {path}") from None
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"{path} is not valid JSON: {exc}") from exc
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ProtocolError(f"{path} does not match the {model.__name__} layout:\n{exc}") from exc


# --- the bank ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionBank:
    """A validated candidate bank: ids unique, every reference resolves."""

    slug: str
    actions: dict[str, CandidateAction]

    @classmethod
    def from_actions(cls, actions: Iterable[CandidateAction | dict[str, Any]],
                     slug: str = "") -> ActionBank:
        """Build and check a bank (dicts are validated as :class:`CandidateAction`)."""
        by_id: dict[str, CandidateAction] = {}
        for a in actions:
            act = a if isinstance(a, CandidateAction) else CandidateAction.model_validate(a)
            if act.action_id in by_id:
                raise ProtocolError(f"bank {slug!r}: action id {act.action_id!r} appears twice")
            by_id[act.action_id] = act
        for act in by_id.values():
            for name in ("must_follow_action_ids", "invalidates_action_ids",
                         "conflicts_with_action_ids"):
                unknown = [x for x in getattr(act, name) if x not in by_id]
                if unknown:
                    raise ProtocolError(
                        f"bank {slug!r}: {act.action_id}.{name} names unknown action(s) {unknown}"
                    )
        return cls(slug, by_id)

    def in_scope(self, action_id: str, scope: Scope) -> bool:
        """Whether an action is scored under ``scope``."""
        return scope == "all" or self.actions[action_id].eval_stage == PRIMARY_STAGE


def load_bank(path: str | Path) -> ActionBank:
    """Read ``candidate_actions.json``."""
    bank: CandidateBank = _load_json_model(Path(path), CandidateBank)
    return ActionBank.from_actions(bank.actions, bank.competition_slug)


# --- scoring one prediction ----------------------------------------------------------------


@dataclass(frozen=True)
class SideMetrics:
    """Counts and rounded rates of one side (adds or removes)."""

    expected: int
    true_positives: int
    false_positives: int
    predicted: int
    precision: float
    recall: float
    f1: float
    stage_filtered: int = 0
    """Out-of-scope predictions, ignored."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "expected": self.expected, "tp": self.true_positives, "fp": self.false_positives,
            "predicted": self.predicted, "precision": self.precision, "recall": self.recall,
            "f1": self.f1, "stage_filtered": self.stage_filtered,
        }


def side_metrics(expected: int, tp: int, fp: int, stage_filtered: int = 0) -> SideMetrics:
    """Precision, recall and F1 of one side, rounded to 6 places, with the empty-side rules.

    >>> side_metrics(3, 2, 1).f1
    0.666667
    >>> m = side_metrics(0, 0, 1); (m.precision, m.recall, m.f1)
    (0.0, 1.0, 0.0)
    """
    predicted = tp + fp
    if expected == 0 and predicted == 0:
        p = r = f = 1.0
    elif expected == 0:
        p, r, f = 0.0, 1.0, 0.0
    else:
        p = tp / predicted if predicted else 0.0
        r = tp / expected
        f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return SideMetrics(expected, tp, fp, predicted, round(p, ROUND_DIGITS),
                       round(r, ROUND_DIGITS), round(f, ROUND_DIGITS), stage_filtered)


@dataclass(frozen=True)
class InvalidPrediction:
    """A prediction counted as a false positive before any matching."""

    side: Literal["add", "remove"]
    value: Any
    reason: Literal["non_string", "duplicate", "unknown_id", "add_already_in_context",
                    "remove_not_in_context"]


@dataclass(frozen=True)
class ScenarioScore:
    """The score of one prediction for one scenario."""

    add: SideMetrics
    remove: SideMetrics
    task_completion: float
    strict_score: float
    success: bool
    scope: Scope
    state_valid: bool
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    cycle_nodes: list[str] = field(default_factory=list)
    """Final-state nodes in a cycle or downstream of one."""
    invalid: list[InvalidPrediction] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "add": self.add.as_dict(), "remove": self.remove.as_dict(),
            "task_completion": self.task_completion, "strict_score": self.strict_score,
            "success": self.success, "scope": self.scope, "state_valid": self.state_valid,
            "conflicts": [list(c) for c in self.conflicts], "cycle_nodes": self.cycle_nodes,
            "invalid": [{"side": i.side, "value": i.value, "reason": i.reason}
                        for i in self.invalid],
        }


def _classify(side: Literal["add", "remove"], preds: Sequence[Any], bank: ActionBank,
              context: set[str], scope: Scope,
              invalid: list[InvalidPrediction]) -> tuple[list[str], int]:
    """Valid in-scope predictions in order, and the number filtered out of scope; invalid ones
    are appended to ``invalid``."""
    seen: set[str] = set()
    valid: list[str] = []
    filtered = 0
    for x in preds:
        if not isinstance(x, str):
            invalid.append(InvalidPrediction(side, x, "non_string"))
            continue
        if x in seen:
            invalid.append(InvalidPrediction(side, x, "duplicate"))
            continue
        seen.add(x)
        if x not in bank.actions:
            invalid.append(InvalidPrediction(side, x, "unknown_id"))
            continue
        if not bank.in_scope(x, scope):
            filtered += 1
            continue
        if side == "add" and x in context:
            invalid.append(InvalidPrediction(side, x, "add_already_in_context"))
            continue
        if side == "remove" and x not in context:
            invalid.append(InvalidPrediction(side, x, "remove_not_in_context"))
            continue
        valid.append(x)
    return valid, filtered


def find_cycle_nodes(state: Iterable[str], bank: ActionBank) -> list[str]:
    """Nodes of ``state`` in a dependency cycle or downstream of one (Kahn's algorithm: what a
    topological sort cannot order). Edges B -> A for each B in A's must_follow / invalidates
    lists, both ends in the state."""
    nodes = sorted(set(state))
    members = set(nodes)
    succ: dict[str, set[str]] = defaultdict(set)
    indeg = dict.fromkeys(nodes, 0)
    for a in nodes:
        act = bank.actions[a]
        for b in {*act.must_follow_action_ids, *act.invalidates_action_ids}:
            if b in members and a not in succ[b]:
                succ[b].add(a)
                indeg[a] += 1
    queue = deque(n for n in nodes if indeg[n] == 0)
    ordered: set[str] = set()
    while queue:
        n = queue.popleft()
        ordered.add(n)
        for m in succ[n]:
            indeg[m] -= 1
            if indeg[m] == 0:
                queue.append(m)
    return [n for n in nodes if n not in ordered]


def find_conflicts(state: Iterable[str], bank: ActionBank) -> list[tuple[str, str]]:
    """Pairs of ``state`` declared in conflict (either side's list), sorted, each once."""
    members = set(state)
    pairs: set[tuple[str, str]] = set()
    for a in members:
        for b in bank.actions[a].conflicts_with_action_ids:
            if b in members and b != a:
                pairs.add((min(a, b), max(a, b)))
    return sorted(pairs)


def evaluate_prediction(
    bank: ActionBank,
    context: Sequence[str],
    adds: Sequence[Any],
    removes: Sequence[Any],
    *,
    scope: Scope = "primary",
    threshold: float = SUCCESS_THRESHOLD,
) -> ScenarioScore:
    """Score one prediction for one scenario (rules in the module docstring).

    Args:
        bank: The task's candidate bank.
        context: The scenario's active action ids (must all be in the bank).
        adds: Predicted action ids to add (any JSON values; non-strings are invalid).
        removes: Predicted action ids to remove.
        scope: ``primary`` (core_preprocessing actions only) or ``all``.
        threshold: Success needs ``task_completion >= threshold``.

    >>> bank = ActionBank.from_actions([
    ...     {"action_id": "G1", "role": "good", "eval_stage": "core_preprocessing"},
    ...     {"action_id": "B1", "role": "bad", "eval_stage": "core_preprocessing"}])
    >>> s = evaluate_prediction(bank, ["B1"], ["G1"], ["B1"])
    >>> s.task_completion, s.success
    (1.0, True)
    """
    if scope not in SCOPES:
        raise ProtocolError(f"unknown scope {scope!r}; expected one of {list(SCOPES)}")
    unknown_ctx = [x for x in context if x not in bank.actions]
    if unknown_ctx:
        raise ProtocolError(f"context names action(s) not in the bank: {unknown_ctx}")
    ctx = set(context)
    for name, preds in (("adds", adds), ("removes", removes)):
        if isinstance(preds, str | bytes) or not isinstance(preds, Sequence):
            raise ProtocolError(f"{name} must be a list of action ids, got {type(preds).__name__}")

    # Expected units.
    satisfied_groups = {
        a.equivalence_group for i in ctx if (a := bank.actions[i]).role == "good"
        and a.equivalence_group and bank.in_scope(i, scope)
    }
    units: set[tuple[str, str]] = set()
    for aid, a in bank.actions.items():
        if a.role != "good" or not bank.in_scope(aid, scope) or aid in ctx:
            continue
        if a.equivalence_group:
            if a.equivalence_group not in satisfied_groups:
                units.add(("group", a.equivalence_group))
        else:
            units.add(("action", aid))
    expected_removes = {i for i in ctx if bank.actions[i].role == "bad"
                        and bank.in_scope(i, scope)}

    invalid: list[InvalidPrediction] = []
    valid_adds, add_filtered = _classify("add", adds, bank, ctx, scope, invalid)
    valid_removes, rem_filtered = _classify("remove", removes, bank, ctx, scope, invalid)
    add_invalid = sum(1 for i in invalid if i.side == "add")
    rem_invalid = len(invalid) - add_invalid

    state = (ctx - set(valid_removes)) | set(valid_adds)
    conflicts = find_conflicts(state, bank)
    cycle_nodes = find_cycle_nodes(state, bank)
    blocked = {x for pair in conflicts for x in pair} | set(cycle_nodes)

    add_tp, add_fp = 0, add_invalid
    matched: set[tuple[str, str]] = set()
    for x in valid_adds:
        a = bank.actions[x]
        if x in blocked or a.role != "good":
            add_fp += 1
            continue
        if a.equivalence_group:
            if a.equivalence_group in satisfied_groups:
                add_fp += 1
                continue
            unit = ("group", a.equivalence_group)
        else:
            unit = ("action", x)
        if unit in matched or unit not in units:
            add_fp += 1
        else:
            matched.add(unit)
            add_tp += 1
    rem_tp = sum(1 for x in valid_removes if x in expected_removes)
    rem_fp = rem_invalid + len(valid_removes) - rem_tp

    add = side_metrics(len(units), add_tp, add_fp, add_filtered)
    remove = side_metrics(len(expected_removes), rem_tp, rem_fp, rem_filtered)
    completion = round(0.5 * add.f1 + 0.5 * remove.recall, ROUND_DIGITS)
    strict = round(0.5 * add.f1 + 0.5 * remove.f1, ROUND_DIGITS)
    return ScenarioScore(
        add=add, remove=remove, task_completion=completion, strict_score=strict,
        success=completion >= threshold, scope=scope,
        state_valid=not conflicts and not cycle_nodes, conflicts=conflicts,
        cycle_nodes=cycle_nodes, invalid=invalid,
    )


# --- several runs ---------------------------------------------------------------------------

#: Per-run values averaged by :func:`aggregate_runs` and :func:`evaluate_outputs`.
MEAN_FIELDS: tuple[str, ...] = (
    "task_completion", "strict_score", "add_precision", "add_recall", "add_f1",
    "remove_precision", "remove_recall", "remove_f1",
)


def _run_values(s: ScenarioScore) -> dict[str, float]:
    return {
        "task_completion": s.task_completion, "strict_score": s.strict_score,
        "add_precision": s.add.precision, "add_recall": s.add.recall, "add_f1": s.add.f1,
        "remove_precision": s.remove.precision, "remove_recall": s.remove.recall,
        "remove_f1": s.remove.f1,
    }


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), ROUND_DIGITS)


def aggregate_runs(scores: Sequence[ScenarioScore]) -> dict[str, Any]:
    """Several runs of one scenario: ``pass_at_k`` (any run succeeds, k = number of runs),
    ``run_success_rate`` and the mean of each :data:`MEAN_FIELDS` value (rounded to 6 places).

    >>> bank = ActionBank.from_actions([
    ...     {"action_id": "G1", "role": "good", "eval_stage": "core_preprocessing"},
    ...     {"action_id": "B1", "role": "bad", "eval_stage": "core_preprocessing"}])
    >>> runs = [evaluate_prediction(bank, ["B1"], a, r) for a, r in ((["G1"], ["B1"]), ([], []))]
    >>> agg = aggregate_runs(runs); agg["pass_at_k"], agg["run_success_rate"], agg["k"]
    (True, 0.5, 2)
    """
    if not scores:
        raise ProtocolError("no runs to aggregate: expected at least one")
    values = [_run_values(s) for s in scores]
    out: dict[str, Any] = {
        "k": len(scores),
        "pass_at_k": any(s.success for s in scores),
        "run_success_rate": round(sum(s.success for s in scores) / len(scores), ROUND_DIGITS),
    }
    for name in MEAN_FIELDS:
        out[f"mean_{name}"] = _mean([v[name] for v in values])
    return out


# --- a folder of tasks and a folder of outputs -----------------------------------------------


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
        tc: Testcase = _load_json_model(f, Testcase)
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
    grouped: dict[tuple[str, str, str], list[ScenarioScore]] = defaultdict(list)
    run_ids: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for d in task_dirs:
        slug = d.name
        folder = out_root / slug
        if not folder.is_dir():
            continue
        for f in sorted(folder.glob(pattern)):
            if not f.is_file():
                continue
            o: AgentOutput = _load_json_model(f, AgentOutput)
            if o.competition_slug != slug:
                raise ProtocolError(f"{f} is for {o.competition_slug!r} but lies under {slug!r}")
            task = tasks[slug]
            tc = task.testcases.get(o.testcase_id)
            if tc is None:
                raise ProtocolError(f"{f}: unknown testcase {o.testcase_id!r}; expected one of "
                                    f"{sorted(task.testcases)}")
            key = (o.agent_name, slug, o.testcase_id)
            if o.run_id and o.run_id in run_ids[key]:
                raise ProtocolError(f"{f}: run {o.run_id!r} of {key} appears twice")
            run_ids[key].add(o.run_id)
            s = evaluate_prediction(task.bank, tc.input.context_action_ids,
                                    o.predicted_add_action_ids, o.predicted_remove_action_ids,
                                    scope=scope, threshold=threshold)
            grouped[key].append(s)
            runs.append({"agent": o.agent_name, "task": slug, "testcase": o.testcase_id,
                         "run_id": o.run_id, "file": str(f), **s.as_dict()})
    if not runs:
        raise ProtocolError(
            f"no output files under {out_root} matching <slug>/{pattern} for the "
            f"{len(tasks)} task(s) in {tasks_dir}"
        )
    scenarios = [{"agent": a, "task": t, "testcase": tc, **aggregate_runs(ss)}
                 for (a, t, tc), ss in sorted(grouped.items())]
    agents: dict[str, Any] = {}
    for agent in sorted({s["agent"] for s in scenarios}):
        mine = [s for s in scenarios if s["agent"] == agent]
        done = {(s["task"], s["testcase"]) for s in mine}
        summary: dict[str, Any] = {
            "n_tasks": len({s["task"] for s in mine}),
            "n_scenarios": len(mine),
            "n_runs": sum(s["k"] for s in mine),
            "pass_at_k": _mean([float(s["pass_at_k"]) for s in mine]),
            "run_success_rate": _mean([s["run_success_rate"] for s in mine]),
        }
        for name in MEAN_FIELDS:
            summary[f"mean_{name}"] = _mean([s[f"mean_{name}"] for s in mine])
        summary["tasks_without_output"] = sorted(set(tasks) - {t for t, _ in done})
        summary["testcases_without_output"] = sorted(
            f"{slug}/{tc}" for slug, t in tasks.items() for tc in t.testcases
            if (slug, tc) not in done
        )
        agents[agent] = summary
    return {"scope": scope, "n_tasks": len(tasks), "threshold": threshold, "runs": runs,
            "scenarios": scenarios, "agents": agents}
