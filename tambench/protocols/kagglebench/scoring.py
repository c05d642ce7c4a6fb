"""KaggleBench scoring of one prediction (rules in the package docstring) and of several runs."""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tambench.errors import ProtocolError
from tambench.protocols.kagglebench.models import (
    CandidateAction,
    CandidateBank,
    load_json_model,
)

Scope = Literal["primary", "all"]
SCOPES: tuple[Scope, ...] = ("primary", "all")

#: The stage the ``primary`` scope scores.
PRIMARY_STAGE = "core_preprocessing"

#: ``task_completion`` at or above this is a success.
SUCCESS_THRESHOLD = 0.5

#: Decimal places of every reported rate.
ROUND_DIGITS = 6



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
    bank: CandidateBank = load_json_model(Path(path), CandidateBank)
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


def _check_prediction(bank: ActionBank, context: Sequence[str], adds: Sequence[Any],
                      removes: Sequence[Any], scope: str) -> None:
    if scope not in SCOPES:
        raise ProtocolError(f"unknown scope {scope!r}; expected one of {list(SCOPES)}")
    unknown_ctx = [x for x in context if x not in bank.actions]
    if unknown_ctx:
        raise ProtocolError(f"context names action(s) not in the bank: {unknown_ctx}")
    for name, preds in (("adds", adds), ("removes", removes)):
        if isinstance(preds, str | bytes) or not isinstance(preds, Sequence):
            raise ProtocolError(f"{name} must be a list of action ids, got {type(preds).__name__}")


@dataclass(frozen=True)
class Expected:
    """What a perfect repair would do: add one member of each unit, remove the bad actions."""

    units: set[tuple[str, str]]
    """("group", name) per equivalence group not yet satisfied, ("action", id) per other good
    in-scope action missing from the context."""
    satisfied_groups: set[str]
    removes: set[str]


def expected_repair(bank: ActionBank, ctx: set[str], scope: Scope) -> Expected:
    """The expected add units and removes of a scenario (rules in the package docstring)."""
    satisfied = {
        a.equivalence_group for i in ctx if (a := bank.actions[i]).role == "good"
        and a.equivalence_group and bank.in_scope(i, scope)
    }
    units: set[tuple[str, str]] = set()
    for aid, a in bank.actions.items():
        if a.role != "good" or not bank.in_scope(aid, scope) or aid in ctx:
            continue
        if a.equivalence_group:
            if a.equivalence_group not in satisfied:
                units.add(("group", a.equivalence_group))
        else:
            units.add(("action", aid))
    removes = {i for i in ctx if bank.actions[i].role == "bad" and bank.in_scope(i, scope)}
    return Expected(units, satisfied, removes)


def _add_hits(valid_adds: Sequence[str], bank: ActionBank, expected: Expected,
              blocked: set[str]) -> tuple[int, int]:
    """True and false positives among the valid adds: a good action matching an expected unit
    the first time is a hit; blocked, bad, repeated-unit or satisfied-group adds are not."""
    tp = fp = 0
    matched: set[tuple[str, str]] = set()
    for x in valid_adds:
        a = bank.actions[x]
        if x in blocked or a.role != "good":
            fp += 1
            continue
        if a.equivalence_group and a.equivalence_group in expected.satisfied_groups:
            fp += 1
            continue
        unit = ("group", a.equivalence_group) if a.equivalence_group else ("action", x)
        if unit in matched or unit not in expected.units:
            fp += 1
        else:
            matched.add(unit)
            tp += 1
    return tp, fp


def evaluate_prediction(
    bank: ActionBank,
    context: Sequence[str],
    adds: Sequence[Any],
    removes: Sequence[Any],
    *,
    scope: Scope = "primary",
    threshold: float = SUCCESS_THRESHOLD,
) -> ScenarioScore:
    """Score one prediction for one scenario (rules in the package docstring).

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
    _check_prediction(bank, context, adds, removes, scope)
    ctx = set(context)
    expected = expected_repair(bank, ctx, scope)
    invalid: list[InvalidPrediction] = []
    valid_adds, add_filtered = _classify("add", adds, bank, ctx, scope, invalid)
    valid_removes, rem_filtered = _classify("remove", removes, bank, ctx, scope, invalid)
    add_invalid = sum(1 for i in invalid if i.side == "add")

    state = (ctx - set(valid_removes)) | set(valid_adds)
    conflicts = find_conflicts(state, bank)
    cycle_nodes = find_cycle_nodes(state, bank)
    blocked = {x for pair in conflicts for x in pair} | set(cycle_nodes)
    add_tp, add_fp = _add_hits(valid_adds, bank, expected, blocked)
    rem_tp = sum(1 for x in valid_removes if x in expected.removes)
    rem_fp = len(invalid) - add_invalid + len(valid_removes) - rem_tp

    add = side_metrics(len(expected.units), add_tp, add_invalid + add_fp, add_filtered)
    remove = side_metrics(len(expected.removes), rem_tp, rem_fp, rem_filtered)
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


def mean_rounded(values: Sequence[float]) -> float:
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
        out[f"mean_{name}"] = mean_rounded([v[name] for v in values])
    return out


# --- a folder of tasks and a folder of outputs -----------------------------------------------
