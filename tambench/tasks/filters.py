"""The method's post-extraction filters as named, explainable rules.

The paper keeps a competition only if it is from 2023 on (less contamination), its data is
public, ground-truth labels or a reproducible split are available, and its official scoring can
be replicated. Each rule reads a TaskSpec and answers ``pass``, ``fail`` or ``unknown`` with a
reason; ``unknown`` means the spec does not hold the facts yet (a catalogue stub), which is not
the same as failing. A task passes the filters when every rule says ``pass``.

Rules:

* ``from_2023``: the competition started on or after 2023-01-01 (its start date; the end date
  when the start is not recorded).
* ``data_public``: the spec names the public training data (``data_information.train
  .data_location``): acquisition records it only when the data page lists downloadable files.
* ``labels_or_split``: a reproducible split is declared (``split``: strategy and seed), which
  is how local test labels are made when the platform hides them.
* ``scoring_replicable``: the grading names a metric registered in tambench's metric registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Literal

from tambench.core.metrics import get_metric
from tambench.errors import UnknownMetricError
from tambench.schema.taskspec import TaskSpec

Verdict = Literal["pass", "fail", "unknown"]
CUTOFF = date(2023, 1, 1)
_EMPTY_LOCATIONS = {"", "n/a", "na", "none", "unknown", "-"}


@dataclass(frozen=True)
class RuleResult:
    """One rule's verdict on one task."""

    rule: str
    verdict: Verdict
    reason: str

    @property
    def passed(self) -> bool:
        """Whether the verdict is ``pass``."""
        return self.verdict == "pass"


def rule_from_2023(spec: TaskSpec) -> RuleResult:
    """The competition started in 2023 or later."""
    day, which = (spec.start_date, "start") if spec.start_date else (spec.end_date, "end")
    if day is None:
        return RuleResult("from_2023", "unknown", "no start or end date recorded")
    if day >= CUTOFF:
        return RuleResult("from_2023", "pass", f"{which} date {day.isoformat()} >= {CUTOFF}")
    return RuleResult("from_2023", "fail", f"{which} date {day.isoformat()} is before {CUTOFF}")


def rule_data_public(spec: TaskSpec) -> RuleResult:
    """The public training data is named."""
    loc = spec.data_information.train.data_location.strip()
    if loc.lower() in _EMPTY_LOCATIONS:
        return RuleResult("data_public", "unknown", "no public training data recorded")
    return RuleResult("data_public", "pass", f"training data: {loc[:80]}")


def rule_labels_or_split(spec: TaskSpec) -> RuleResult:
    """A reproducible split (hence local test labels) is declared."""
    if spec.split is None:
        return RuleResult("labels_or_split", "unknown", "no split declared")
    s = spec.split
    applied = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in s.applied().items())
    return RuleResult("labels_or_split", "pass", f"split strategy {s.strategy}, {applied}")


def rule_scoring_replicable(spec: TaskSpec) -> RuleResult:
    """The grading's metric is registered."""
    if spec.grading is None:
        return RuleResult("scoring_replicable", "unknown", "no grading declared")
    try:
        m = get_metric(spec.grading.metric)
    except UnknownMetricError:
        return RuleResult("scoring_replicable", "fail",
                          f"metric {spec.grading.metric!r} is not registered")
    return RuleResult("scoring_replicable", "pass",
                      f"registered metric {m.id} ({m.direction} is better)")


#: Rule name -> rule, in the order the paper lists them.
RULES: dict[str, Callable[[TaskSpec], RuleResult]] = {
    "from_2023": rule_from_2023,
    "data_public": rule_data_public,
    "labels_or_split": rule_labels_or_split,
    "scoring_replicable": rule_scoring_replicable,
}


def evaluate_rules(spec: TaskSpec) -> list[RuleResult]:
    """Every rule's verdict on a task, in :data:`RULES` order."""
    return [rule(spec) for rule in RULES.values()]


def passes_filters(results: list[RuleResult]) -> bool:
    """Whether every rule passed."""
    return all(r.passed for r in results)
