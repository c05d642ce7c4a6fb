"""A peer benchmark's grader (MLE-Dojo's ``utils/metric.py``) as one witness: the metric its
formula computes, its declared direction, default target column, ``[:k]`` bound and literal
column lists, and how it departs from a published rule.

The file is parsed, never imported or run (:mod:`.pycode`, :mod:`.formulas`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tambench.core.metrics import METRICS
from tambench.tasks.importers.formulas import CodeMetric, recognise
from tambench.tasks.importers.pycode import GraderSource, read_grader
from tambench.tasks.importers.witnesses import Reading

WITNESS = "metric.py"
#: Rules on a log scale: clipping values to 0 first changes the score of a negative value.
LOG_RULES = frozenset({"rmsle", "rmsle_columnwise", "msle"})


@dataclass(frozen=True)
class GraderReading:
    """What a grader's source shows (see the module docstring)."""

    metric: CodeMetric | None
    higher_is_better: bool | None = None
    target: list[str] = field(default_factory=list)
    """The default target column(s) of ``__init__`` (``value``), split on commas, less any
    column the grader sorts or merges rows by (that one is the id)."""
    column_lists: list[tuple[str, ...]] = field(default_factory=list)
    """Literal lists of strings in the file (candidate column lists)."""
    column_literals: list[str] = field(default_factory=list)
    """Strings the file indexes the data with (``y_true['id']``, ``sort_values(by='id')``)."""
    k: int | None = None
    source: GraderSource = field(default_factory=GraderSource)

    def reading(self) -> Reading:
        """This grader as a witness of :func:`~.witnesses.decide_metric`."""
        if self.metric is None:
            why = "no scoring class found" if self.source.returned is None else \
                "formula not recognised"
            return Reading(WITNESS, None, detail=why)
        return Reading(WITNESS, self.metric.metric, dict(self.metric.params),
                       detail=self.metric.formula)


def read_grader_source(source: str) -> GraderReading:
    """Read a grader module (see the module docstring)."""
    g = read_grader(source)
    try:
        found = recognise(g.returned, g)
    except RecursionError:  # terms are bounded in size; this is a last guard
        found = None
    direction = g.defaults.get("higher_is_better")
    value = g.defaults.get("value", g.attributes.get("value"))
    target = [c.strip() for c in value.split(",") if c.strip()] if isinstance(value, str) else \
        [str(c) for c in value] if isinstance(value, list) else []
    keys = {f[1] for f in g.facts if f[0] == "key"}
    target = [c for c in target if c not in keys]  # a default the grader sorts by is the id
    return GraderReading(
        metric=found, higher_is_better=direction if isinstance(direction, bool) else None,
        target=target, column_lists=list(g.string_lists),
        column_literals=list(dict.fromkeys(g.column_literals)),
        k=g.slices[-1] if g.slices else None, source=g)


def _divides_by_sum(term: object) -> bool:
    if not isinstance(term, tuple) or not term:
        return False
    if term[0] == "div" and isinstance(term[2], tuple) and term[2][:1] == ("sum",):
        return True
    return any(_divides_by_sum(t) for t in term[1:])


def _rescaled_rows(term: object) -> bool:
    """Whether the probabilities under a ``log`` are divided by their row sums."""
    if not isinstance(term, tuple) or not term:
        return False
    if term[0] == "log" and _divides_by_sum(term[1]):
        return True
    return any(_rescaled_rows(t) for t in term[1:])


def departures(reading: GraderReading, rule: str, rule_params: dict[str, Any]) -> list[str]:
    """How the grader departs from the published rule ``rule`` beyond computing another
    metric (which :func:`~.witnesses.decide_metric` reports): a scale factor, clipping before
    a log-scale rule, class probabilities not rescaled, an unguarded 0/0, another direction."""
    out: list[str] = []
    m = reading.metric
    if m is None:
        return out
    if m.scale != 1.0:
        out.append(f"the grader multiplies the score by {m.scale:g} where the published rule "
                   f"reports {rule} unscaled")
    facts = reading.source.facts
    if rule in LOG_RULES and any(f[0] == "clip" and f[1] == 0.0 for f in facts):
        out.append("the grader clips values to 0 before scoring, where the published rule "
                   "scores the submitted values")
    if rule == m.metric == "multiclass_log_loss" and m.formula.startswith("-") and \
            not _rescaled_rows(reading.source.returned):
        out.append("the grader does not rescale each row's probabilities to sum to 1 after "
                   "clipping, where the published multi-class log loss does")
    if rule == m.metric == "smape" and not any(f[0] == "guard" for f in facts):
        out.append("the grader has no guard for rows whose truth and prediction are both 0 "
                   "(0/0 gives NaN), where the published rule counts them as 0")
    out += _identity_departure(reading, rule, rule_params)
    if rule == m.metric == "box_map" and rule_params.get("form") == "image_precision" and any(
            f[0] == "empty_return" and f[1] == 0.0 and _names_truth(f[2]) for f in facts):
        out.append("the grader scores an image without true boxes 0 even when nothing is "
                   "predicted; the published rule does not")
    registered = METRICS.get(rule) if rule in METRICS else None
    if registered is not None and reading.higher_is_better is not None and \
            reading.higher_is_better != registered.higher_is_better and m.metric == rule:
        out.append(f"the grader declares higher_is_better={reading.higher_is_better} where "
                   f"{rule} is {'higher' if registered.higher_is_better else 'lower'}-is-better")
    return out


def _names_truth(name: str) -> bool:
    """Whether a variable's name says it holds the answers' side (``gt_boxes``,
    ``true_set``): the terms do not tell the two sides apart, the names do."""
    return any(word in name.lower() for word in ("gt", "true", "truth", "actual"))


def _identity_departure(reading: GraderReading, rule: str,
                        rule_params: dict[str, Any]) -> list[str]:
    if rule != "jigsaw_bias_auc" or rule not in METRICS:
        return []
    listed = reading.source.attributes.get("identity_columns")
    scored = rule_params.get("identities_columns",
                             METRICS[rule].defaults.get("identities_columns"))
    if isinstance(listed, list) and isinstance(scored, list) and set(listed) != set(scored):
        return [f"the grader scores the bias AUCs over {len(listed)} identity columns where "
                f"the published rule scores {len(scored)}"]
    return []
