"""The Metric record and the one registry every metric id lives in.

Calling contract between the grader and a metric (``Metric.__call__(y_true, y_pred, **params)``):

* The grader validates the submission completely first (file, format, columns, rows, ids,
  types and ranges, missing values), so metrics may assume clean, aligned input and only raise
  for their own preconditions.
* CSV tasks: rows are matched by id, never by position; the metric receives both sides in the
  answers' row order. One target column -> 1-D numpy arrays; several target columns -> 2-D
  arrays of shape (n_rows, n_target_columns), columns in ``GradingSpec.target_columns`` order.
  dtype float64 for kinds ``value`` and ``probability``; dtype object (Python ``str``) for
  ``label``, ``text``, ``set``, ``ranking`` and ``mask`` (the metric parses space-separated
  sets, rankings and run-length encodings itself).
* Auxiliary answer-only columns (groups, per-row weights, a "scored" mask...): a metric that
  needs one declares a default parameter named ``<name>_column``; the grader reads that column
  from the ANSWERS file and passes it as the keyword argument ``<name>`` (a 1-D array), and does
  not pass ``<name>_column`` itself. Example: ``mean_log_mae`` with
  ``defaults={"groups_column": "type"}`` is called as ``fn(y_true, y_pred, groups=array)``.
* ``structured`` metrics (JSON / plain-text line submissions) receive the parsed answers and the
  parsed submission objects (``dict`` for JSON, ``list[str]`` of lines for txt) after the
  grader's structural validation.
* A ``<name>_column`` parameter set to ``None`` means "no such column": the grader passes
  nothing for it (``mcrmse`` scores every row unless ``scored_column`` names a 0/1 mask).
  :meth:`Metric.aux_columns` lists the columns to read for given parameters; call the metric
  through :meth:`Metric.__call__`, which drops the ``*_column`` parameters before calling the
  function.
* A metric whose submission structure the grader cannot know (``structured`` metrics) declares
  a ``check`` function: ``check(y_true, y_pred, **params) -> list[str]`` returns every problem
  of the submission (empty when valid). The metric also runs it itself and raises
  :class:`~tambench.errors.InvalidSubmissionError`, so a malformed structure is never scored.
* A metric returns a finite Python float. A NaN or infinite result is a grader error that
  makes the submission invalid; it is never ranked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from tambench.core.registry import Registry
from tambench.errors import MetricParameterError, UnknownMetricError

#: What a metric's inputs look like, so validation can apply one checker per kind.
InputKind = Literal[
    "label",  # one class label per row (strings compared exactly)
    "probability",  # one probability per row, or one per class column; values in [0, 1]
    "value",  # real numbers
    "ranking",  # ordered lists of ids/labels per row
    "set",  # unordered space-separated label sets per row
    "text",  # free strings compared as text
    "mask",  # run-length encoded masks or arrays
    "structured",  # whole-file structures (JSON documents, line files)
]

MetricFn = Callable[..., float]
CheckFn = Callable[..., list[str]]

#: Suffix of a parameter naming an auxiliary answers column (see the module docstring).
AUX_SUFFIX = "_column"


@dataclass(frozen=True)
class Metric:
    """One registered metric: its function and the facts ranking needs, declared once.

    Direction is declared here and never guessed from a leaderboard's row order.
    """

    id: str
    fn: MetricFn
    higher_is_better: bool
    lower_bound: float
    upper_bound: float
    kind: InputKind
    summary: str
    defaults: Mapping[str, Any] = field(default_factory=dict)
    check: CheckFn | None = None
    """Structural checker of a submission (structured metrics); None when the grader's
    per-kind checks are enough."""

    @property
    def aux_names(self) -> tuple[str, ...]:
        """Keyword names of the auxiliary arrays this metric can take (``groups`` for a
        ``groups_column`` parameter)."""
        return tuple(k[: -len(AUX_SUFFIX)] for k in self.defaults if k.endswith(AUX_SUFFIX))

    def aux_columns(self, params: Mapping[str, Any] | None = None) -> dict[str, str]:
        """Which answers column feeds which keyword: ``{"groups": "type"}``; None-valued
        ``*_column`` parameters are left out."""
        resolved = self.resolve_params(params)
        return {
            k[: -len(AUX_SUFFIX)]: str(v)
            for k, v in resolved.items()
            if k.endswith(AUX_SUFFIX) and v is not None
        }

    @property
    def bounded(self) -> bool:
        """Whether both ends of the value range are finite (e.g. accuracy, not RMSE)."""
        return math.isfinite(self.lower_bound) and math.isfinite(self.upper_bound)

    @property
    def best_value(self) -> float:
        """The best value the metric can take (may be infinite for unbounded metrics)."""
        return self.upper_bound if self.higher_is_better else self.lower_bound

    @property
    def direction(self) -> str:
        """"higher" or "lower": which way is better."""
        return "higher" if self.higher_is_better else "lower"

    def resolve_params(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Merge ``params`` over the defaults, refusing names the metric does not take."""
        params = dict(params or {})
        unknown = sorted(set(params) - set(self.defaults) - set(self.aux_names))
        if unknown:
            takes = sorted(self.defaults) or "no parameters"
            raise MetricParameterError(
                f"metric {self.id!r} does not take parameter(s) {unknown}; it takes {takes}"
            )
        return {**self.defaults, **params}

    def __call__(self, y_true: Any, y_pred: Any, **params: Any) -> float:
        resolved = self.resolve_params(params)
        # The column names are the grader's business; the function takes the arrays.
        kwargs = {k: v for k, v in resolved.items() if not k.endswith(AUX_SUFFIX)}
        return float(self.fn(y_true, y_pred, **kwargs))


#: Modules whose import registers the built-in metrics (one per family).
METRIC_MODULES = (
    "tambench.core.metrics.classification",
    "tambench.core.metrics.lite",
    "tambench.core.metrics.masks",
    "tambench.core.metrics.ranking",
    "tambench.core.metrics.regression",
)

#: The only place metric ids exist. Filled by :func:`register` as the metric modules load.
METRICS: Registry[Metric] = Registry(
    "metric", error=UnknownMetricError, loaders=METRIC_MODULES,
    hint="`tambench metrics` lists them",
)


def register(
    metric_id: str,
    *,
    higher_is_better: bool,
    value_range: tuple[float, float],
    kind: InputKind,
    defaults: Mapping[str, Any] | None = None,
    check: CheckFn | None = None,
) -> Callable[[MetricFn], MetricFn]:
    """Decorator registering ``fn`` under ``metric_id``; the docstring's first line is its summary."""

    def deco(fn: MetricFn) -> MetricFn:
        lo, hi = value_range
        if not lo < hi:
            raise ValueError(f"metric {metric_id!r}: value range {value_range} is empty")
        summary = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else metric_id
        METRICS.register(metric_id, Metric(
            id=metric_id,
            fn=fn,
            higher_is_better=higher_is_better,
            lower_bound=float(lo),
            upper_bound=float(hi),
            kind=kind,
            summary=summary,
            defaults=dict(defaults or {}),
            check=check,
        ))
        return fn

    return deco


def get_metric(metric_id: str) -> Metric:
    """Look a metric up by id.

    >>> get_metric("rmse").higher_is_better
    False
    """
    return METRICS[metric_id]
