"""Deciding a task's metric from independent witnesses that must agree.

An importer may hold up to three readings of a competition's metric:

* the **description** read by the offline mapper (the competition's published rule in words);
* the **grader** read as data (a peer benchmark's ``metric.py`` parsed with :mod:`ast`,
  :mod:`.formulas`) or a grader name through the alias table;
* **Kaggle's own name** of the metric (its evaluation tag) through the alias table.

:func:`decide_metric` applies one rule, the same for every task:

1. Two witnesses that read a metric and agree (the same id, one a declared refinement of the
   other, or one among the alternatives an ambiguous name stands for) settle it, unless a third
   witness reads a different metric: then the task is left without a metric and the conflict is
   named with every reading.
2. When the description and the grader disagree, Kaggle's name decides between the published
   rule and the grader only on the rule's side: if it agrees with the description, the
   published rule is taken (the leaderboards are Kaggle's) and the grader's **departure** from
   it is flagged; otherwise the conflict is named and nothing is chosen.
3. A single witness never settles a metric alone. When the description names no metric, or
   one the mapper ties to no registered id (its approximate reading, typically a metric being
   added), the grader and Kaggle's name must agree.
4. The settled metric must be registered; a metric still being added leaves the task without
   grading, saying so.

The more specific of two agreeing readings is kept (``multiclass_log_loss`` over the general
``log_loss``), with the parameters both give merged; parameters read differently by two
witnesses are a conflict. A grader computing only the general metric of a specific rule
(plain MAE where the rule weights it) departs from the rule, unless the two give the same
number (:data:`SAME_NUMBER`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tambench.core.metrics.aliases import (
    REFINEMENTS,
    SAME_NUMBER,
    AliasMatch,
    params_conflicts,
)


@dataclass(frozen=True)
class Reading:
    """One witness's reading of the metric."""

    witness: str
    """Who read it: "description", "metric.py", "Kaggle's name", "grader name"."""
    metric: str | None
    """Metric id (registered or not), or None when the witness names no metric."""
    params: dict[str, Any] = field(default_factory=dict)
    detail: str = ""
    """What was read, in words (the formula, the name as written)."""
    alternatives: tuple[str, ...] = ()
    """For a name used for several metrics: the ones it may mean."""
    approximate: bool = False
    """The witness names a metric that no registered id computes exactly."""
    settles: bool = True
    """False for a name used for several metrics that lists no alternatives: it agrees with
    nothing on its own."""

    def said(self) -> str:
        """The reading in words."""
        if self.approximate:
            return f"{self.witness} names a metric no registered id computes exactly" + (
                f" ({self.detail})" if self.detail else "")
        if self.metric is None:
            return f"{self.witness} names no metric"
        alts = f" (one of {', '.join(self.alternatives)})" if self.alternatives else ""
        params = f" {self.params}" if self.params else ""
        detail = f" [{self.detail}]" if self.detail else ""
        return f"{self.witness} reads {self.metric}{params}{alts}{detail}"

    @property
    def speaks(self) -> bool:
        """Whether the reading names a metric (an approximate reading objects, but settles
        nothing)."""
        return self.metric is not None and not self.approximate


def from_alias(witness: str, name: str, match: AliasMatch | None) -> Reading:
    """A reading of a name through the alias table (unknown names read as no metric)."""
    if match is None:
        return Reading(witness, None, detail=f"{name!r} is not in the alias table")
    return Reading(witness, match.metric, dict(match.params), detail=repr(name),
                   alternatives=match.alternatives if match.ambiguous else (),
                   settles=not match.ambiguous or bool(match.alternatives))


def agreement(a: Reading, b: Reading) -> str | None:
    """The metric two readings agree on, or None. Ambiguous names agree with any of their
    alternatives; a refinement agrees with what it refines (the specific one is kept)."""
    if not (a.speaks and b.speaks and a.settles and b.settles):
        return None
    if a.metric is None or b.metric is None:  # spoken readings name one; this narrows the type
        return None
    for x, y in ((a, b), (b, a)):
        if x.alternatives and (y.metric in x.alternatives or any(
                REFINEMENTS.get(str(y.metric)) == alt for alt in x.alternatives)):
            return str(y.metric)
    if a.metric == b.metric:
        return a.metric
    if REFINEMENTS.get(a.metric) == b.metric:
        return a.metric
    if REFINEMENTS.get(b.metric) == a.metric:
        return b.metric
    return None


@dataclass
class MetricDecision:
    """The outcome of :func:`decide_metric`."""

    metric: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    conflict: str = ""
    """Why no metric was chosen although witnesses read one (every reading named)."""
    departure: str = ""
    """How the grader departs from the published rule (empty when it does not)."""


def _merge_params(readings: list[Reading], d: MetricDecision, said: str
                  ) -> dict[str, Any] | None:
    merged: dict[str, Any] = {}
    for r in readings:
        clash = params_conflicts(merged, r.params)
        if clash:
            d.conflict = f"the witnesses read different parameters ({'; '.join(clash)}): {said}"
            return None
        merged.update(r.params)
    return merged


def _settle(d: MetricDecision, metric: str, readings: list[Reading], said: str,
            note: str) -> bool:
    """Record ``metric`` with the readings' merged parameters (False, with the conflict
    recorded, when they read different parameters)."""
    params = _merge_params(readings, d, said)
    if params is None:
        return False
    d.metric, d.params = metric, params
    d.notes.append(note)
    return True


def decide_metric(description: Reading, grader: Reading, name: Reading) -> MetricDecision:
    """The metric the witnesses settle (see the module docstring)."""
    d = MetricDecision()
    everyone = [description, grader, name]
    said = "; ".join(r.said() for r in everyone)
    settled = agreement(description, grader)
    if settled is not None:
        if name.speaks and name.settles and agreement(name, Reading("", settled)) is None:
            d.conflict = f"the description and the grader agree on {settled}, but {said}"
            return d
        if not _settle(d, settled, [description, grader], said, f"metric {settled}: {said}"):
            return d
        if grader.metric != settled and (settled, grader.metric) not in SAME_NUMBER:
            d.departure = (f"the grader computes the general {grader.metric} "
                           f"({grader.detail}) where the published rule is {settled}")
        return d
    rule = agreement(description, name)
    if rule is not None:
        if not _settle(d, rule, [description, name], said,
                       f"metric {rule} from the published rule: {said}"):
            return d
        if grader.speaks:
            d.departure = (f"the grader computes {grader.metric} ({grader.detail}) where the "
                           f"published rule is {rule}")
        return d
    speaking = sum(r.speaks for r in everyone)
    if description.speaks and speaking > 1:
        d.conflict = f"the witnesses disagree: {said}"
        return d
    other = agreement(grader, name)
    if other is not None:
        _settle(d, other, [grader, name], said, f"metric {other} from the grader and Kaggle's "
                f"name, the description not naming a registered metric: {said}")
        return d
    d.conflict = f"no two witnesses agree: {said}" if speaking > 1 else \
        f"a single witness is not enough: {said}"
    return d
