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
* Several auxiliary columns at once (identity subgroups, per-label flags): a metric declares a
  default parameter named ``<name>_columns`` holding a list of answers column names; the
  grader reads those columns and passes ``<name>`` as one 2-D array (rows, len(list)), columns
  in the list's order (float64 when every cell is a number, else object). Example:
  ``jigsaw_bias_auc`` with ``identities_columns=["male", "female", ...]`` is called as
  ``fn(y_true, y_pred, identities=array_of_shape_n_by_9)``.
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
#: Suffix of a parameter naming a list of auxiliary answers columns (one 2-D keyword array).
AUX_LIST_SUFFIX = "_columns"


def _aux_keyword(param: str) -> str | None:
    """``groups`` for ``groups_column`` and ``identities`` for ``identities_columns``."""
    for suffix in (AUX_SUFFIX, AUX_LIST_SUFFIX):
        if param.endswith(suffix) and len(param) > len(suffix):
            return param[: -len(suffix)]
    return None


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
    rows_are_distributions: bool = False
    """The metric reads each row of several probability columns as one distribution, so a
    submitted row must sum to 1 (it is never rescaled; validation refuses such rows)."""
    perfect: Callable[[str], str] | None = None
    """For a metric whose predictions are written otherwise than its truths (kuzushiji's
    points inside true boxes): a truth cell's prediction scoring best, for the checks that
    grade a perfect submission; None: the truth cell itself."""

    @property
    def aux_names(self) -> tuple[str, ...]:
        """Keyword names of the auxiliary arrays this metric can take (``groups`` for a
        ``groups_column`` parameter, ``identities`` for ``identities_columns``)."""
        return tuple(kw for k in self.defaults if (kw := _aux_keyword(k)) is not None)

    @property
    def column_parameters(self) -> tuple[str, ...]:
        """The parameters whose values name answers columns (``*_column``, ``*_columns``)."""
        return tuple(k for k in self.defaults if _aux_keyword(k) is not None)

    def aux_columns(self, params: Mapping[str, Any] | None = None) -> dict[str, str]:
        """Which answers column feeds which keyword: ``{"groups": "type"}``; None-valued
        ``*_column`` parameters are left out."""
        resolved = self.resolve_params(params)
        return {
            k[: -len(AUX_SUFFIX)]: str(v)
            for k, v in resolved.items()
            if k.endswith(AUX_SUFFIX) and v is not None
        }

    def aux_column_lists(self, params: Mapping[str, Any] | None = None) -> dict[str, list[str]]:
        """Which answers columns feed which 2-D keyword: ``{"identities": ["male", ...]}``;
        None-valued ``*_columns`` parameters are left out."""
        resolved = self.resolve_params(params)
        out: dict[str, list[str]] = {}
        for k, v in resolved.items():
            if not k.endswith(AUX_LIST_SUFFIX) or v is None:
                continue
            if isinstance(v, str) or not isinstance(v, list | tuple) or not v:
                raise MetricParameterError(
                    f"metric {self.id!r}: {k} must be a non-empty list of answers column names, "
                    f"got {v!r}"
                )
            out[k[: -len(AUX_LIST_SUFFIX)]] = [str(c) for c in v]
        return out

    def answers_columns(self, params: Mapping[str, Any] | None = None) -> list[str]:
        """Every auxiliary answers column the metric reads with these parameters, in order."""
        cols = list(self.aux_columns(params).values())
        for names in self.aux_column_lists(params).values():
            cols += names
        return list(dict.fromkeys(cols))

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

    def call_params(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The keyword parameters passed to the function: resolved, without the parameters
        naming answers columns (the grader passes the arrays read from them instead)."""
        resolved = self.resolve_params(params)
        return {k: v for k, v in resolved.items() if _aux_keyword(k) is None}

    def __call__(self, y_true: Any, y_pred: Any, **params: Any) -> float:
        arrays = {k: params.pop(k) for k in list(params) if k in self.aux_names}
        # The column names are the grader's business; the function takes the arrays.
        return float(self.fn(y_true, y_pred, **self.call_params(params), **arrays))


#: Modules whose import registers the built-in metrics (one per family).
METRIC_MODULES = (
    "tambench.core.metrics.boxes",
    "tambench.core.metrics.classification",
    "tambench.core.metrics.errors",
    "tambench.core.metrics.lite",
    "tambench.core.metrics.masks",
    "tambench.core.metrics.probability",
    "tambench.core.metrics.ranking",
    "tambench.core.metrics.regression",
    "tambench.core.metrics.segmentation",
    "tambench.core.metrics.text",
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
    rows_are_distributions: bool = False,
    perfect: Callable[[str], str] | None = None,
) -> Callable[[MetricFn], MetricFn]:
    """Decorator registering ``fn`` under ``metric_id``; the docstring's first line is its summary."""

    def deco(fn: MetricFn) -> MetricFn:
        lo, hi = value_range
        if not lo < hi:
            raise ValueError(f"metric {metric_id!r}: value range {value_range} is empty")
        if rows_are_distributions and kind != "probability":
            raise ValueError(f"metric {metric_id!r}: only a probability metric can read rows "
                             f"as distributions, not a {kind!r} one")
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
            rows_are_distributions=rows_are_distributions,
            perfect=perfect,
        ))
        return fn

    return deco


def get_metric(metric_id: str) -> Metric:
    """Look a metric up by id.

    >>> get_metric("rmse").higher_is_better
    False
    """
    return METRICS[metric_id]
