"""MLAlgo-Bench: tolerance pass rules, its metric functions, and the paper's aggregates.

* Setting 1 (implement a classic algorithm from its description): :func:`passes_tolerance`
  compares the implementation's score with scikit-learn's reference within a fixed tolerance,
  inclusive. An exception fails the task; so does a timeout (the reference code does not count
  a timeout as a failure; we do).
* Setting 2 metric functions as the benchmark defines them (:data:`METRIC_FUNCTIONS`): the
  registered metrics of :mod:`tambench.core.metrics` (:data:`METRIC_IDS`), including its
  multiclass log loss, which clips but does NOT renormalise rows (Kaggle renormalises).
* The paper's aggregates (:func:`aggregate_results`): ``nScore``, the relative performance score
  ``dScore``, the log time ratio ``dTime`` and the effective score ``EScore``.

Undefined cases, our convention: a passed task whose reference nScore is 0 or whose bounds are
equal is left out of ``dScore`` and counted in ``excluded``; a passed task with a time <= 0 (or
no time) is left out of ``dTime`` and counted in ``time_excluded``. Nothing is clipped.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from tambench.core.metrics import get_metric
from tambench.errors import InvalidSubmissionError, MetricInputError, ProtocolError, TaskDataError
from tambench.protocols.base import SiblingProtocol

# --- setting 1: tolerance rules ------------------------------------------------------------

AlgorithmKind = Literal["classification", "clustering", "dimensionality_reduction", "regression"]


@dataclass(frozen=True)
class ToleranceRule:
    """How far an implementation may fall short of the scikit-learn reference."""

    metric: str
    dataset: str
    higher_is_better: bool
    tolerance: float


#: Setting 1's rules: accuracy on digits, silhouette on iris, PCA-style reduction followed by
#: logistic regression accuracy on wine, MSE on housing.
TOLERANCE_RULES: dict[AlgorithmKind, ToleranceRule] = {
    "classification": ToleranceRule("accuracy", "digits", True, 0.2),
    "clustering": ToleranceRule("silhouette", "iris", True, 0.1),
    "dimensionality_reduction": ToleranceRule("accuracy", "wine", True, 0.2),
    "regression": ToleranceRule("mse", "housing", False, 60.0),
}


def passes_tolerance(kind: AlgorithmKind, score: float | None, reference: float, *,
                     failed: bool = False, timed_out: bool = False) -> bool:
    """Setting 1's pass rule, inclusive: ``score >= ref - tol`` (``<= ref + tol`` for MSE).

    Args:
        kind: The algorithm family (picks metric and tolerance from :data:`TOLERANCE_RULES`).
        score: The implementation's score; None when it produced none.
        reference: The scikit-learn reference implementation's score.
        failed: The implementation raised an exception (fails the task).
        timed_out: The implementation ran out of time (fails the task; the reference code
            does not count it as a failure, we do).

    >>> passes_tolerance("classification", 0.8, 1.0), passes_tolerance("regression", 80.0001, 20.0)
    (True, False)
    """
    try:
        rule = TOLERANCE_RULES[kind]
    except KeyError:
        raise ProtocolError(
            f"unknown setting-1 algorithm kind {kind!r}; expected one of {list(TOLERANCE_RULES)}"
        ) from None
    if failed or timed_out or score is None:
        return False
    _check_finite("score", score)
    _check_finite("reference", reference)
    if rule.higher_is_better:
        return score >= reference - rule.tolerance
    return score <= reference + rule.tolerance


def pass_rate(passed: Sequence[bool]) -> float:
    """Passed algorithms over all algorithms.

    >>> pass_rate([True, False, True, True])
    0.75
    """
    if not passed:
        raise ProtocolError("pass rate of zero tasks is undefined: expected at least one task")
    return sum(bool(p) for p in passed) / len(passed)


# --- setting 2: metric functions -----------------------------------------------------------
#
# The benchmark's metric functions are the registered metrics (one definition of each in the
# package), called with the parameters that make them the benchmark's: its RMSLE adds 1e-15
# inside both logarithms, which changes results by at most about 1e-15 and is not reproduced;
# its log loss clips to [1e-15, 1 - 1e-15] without renormalising rows, which is
# ``multiclass_log_loss`` with ``renormalize=False``.

#: The benchmark's metric functions: name -> (registered metric id, parameters).
METRIC_IDS: dict[str, tuple[str, dict[str, Any]]] = {
    "accuracy": ("accuracy", {}),
    "mae": ("mae", {}),
    "rmse": ("rmse", {}),
    "mcrmse": ("mcrmse", {}),
    "rmsle": ("rmsle", {}),
    "smape": ("smape", {}),
    "log_loss_unnormalized": ("multiclass_log_loss", {"renormalize": False}),
}


def _arrays(y_true: Any, y_pred: Any, *, ndim: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(y_true, dtype=float)
    p = np.asarray(y_pred, dtype=float)
    if t.shape != p.shape:
        raise ProtocolError(f"shapes differ: expected y_pred of shape {t.shape}, got {p.shape}")
    if t.size == 0:
        raise ProtocolError("empty input: expected at least one row")
    if ndim is not None and t.ndim != ndim:
        raise ProtocolError(f"expected {ndim}-d arrays, got {t.ndim}-d")
    if not (np.isfinite(t).all() and np.isfinite(p).all()):
        raise ProtocolError("inputs hold NaN or infinite values")
    return t, p


def _registered(name: str, y_true: Any, y_pred: Any) -> float:
    """Call the registered metric behind ``name``; its refusals become ProtocolError."""
    metric_id, params = METRIC_IDS[name]
    try:
        return get_metric(metric_id)(y_true, y_pred, **params)
    except (MetricInputError, InvalidSubmissionError, TaskDataError) as exc:
        raise ProtocolError(f"{name}: {exc}") from None


def accuracy(y_true: Sequence[Any], y_pred: Sequence[Any]) -> float:
    """Share of exact matches (labels compared as strings). Higher is better, best 1.0.

    >>> accuracy([1, 0, 1, 1], [1, 1, 1, 0])
    0.5
    """
    t, p = np.asarray(y_true), np.asarray(y_pred)
    if t.shape != p.shape or t.size == 0 or t.ndim != 1:
        raise ProtocolError(f"expected two equal, non-empty 1-d shapes, got {t.shape} and {p.shape}")
    return _registered("accuracy", t.astype(str), p.astype(str))


def mae(y_true: Sequence[float], y_pred: Sequence[float]) -> float:
    """Mean absolute error. Lower is better, best 0.0; 1-d values.

    >>> mae([1, 2, 3], [2, 2, 5])
    1.0
    """
    return _registered("mae", *_arrays(y_true, y_pred))


def rmse(y_true: Sequence[float], y_pred: Sequence[float]) -> float:
    """Root mean squared error. Lower is better, best 0.0; 1-d values.

    >>> rmse([1, 2, 3], [2, 2, 5])
    1.2909944487358056
    """
    return _registered("rmse", *_arrays(y_true, y_pred))


def mcrmse(y_true: Sequence[Sequence[float]], y_pred: Sequence[Sequence[float]]) -> float:
    """Mean over columns of each column's RMSE. Lower is better, best 0.0; (rows, columns).

    >>> mcrmse([[1, 0], [3, 0]], [[2, 0], [3, 2]])
    1.0606601717798214
    """
    return _registered("mcrmse", *_arrays(y_true, y_pred, ndim=2))


def rmsle(y_true: Sequence[float], y_pred: Sequence[float]) -> float:
    """RMSE of ``log1p`` of both sides. Lower is better, best 0.0; 1-d values > -1.

    >>> round(rmsle([0, 1, 3], [0, 2, 3]), 15)
    0.234095389313249
    """
    t, p = _arrays(y_true, y_pred)
    if (t <= -1).any() or (p <= -1).any():
        raise ProtocolError("RMSLE needs values > -1 (log1p of the value)")
    return _registered("rmsle", t, p)


def smape(y_true: Sequence[float], y_pred: Sequence[float]) -> float:
    """``100 * mean(|t - p| / ((|t| + |p|) / 2))``, a row counting 0 where t = p = 0.

    Lower is better, best 0.0, worst 200.0; 1-d values.

    >>> smape([0, 1, 0, 2], [0, 3, 5, 2])
    75.0
    """
    return _registered("smape", *_arrays(y_true, y_pred))


def log_loss_unnormalized(y_true: Sequence[int], y_prob: Sequence[Sequence[float]]) -> float:
    """Multiclass log loss with probabilities clipped to [1e-15, 1 - 1e-15] and rows NOT
    renormalised (the benchmark's variant; Kaggle's renormalises after clipping).

    Lower is better, best 0.0. ``y_true``: class indices 0..K-1; ``y_prob``: (rows, K).

    >>> log_loss_unnormalized([0, 1], [[0.5, 0.5], [0.0, 1.0]])
    0.34657359027997314
    """
    y = np.asarray(y_true)
    p = np.asarray(y_prob, dtype=float)
    if p.ndim != 2 or y.ndim != 1 or p.shape[0] != y.shape[0] or y.size == 0:
        raise ProtocolError(
            f"expected labels of shape (n,) and probabilities of shape (n, K), got {y.shape} and "
            f"{p.shape}"
        )
    if not np.issubdtype(y.dtype, np.integer) or (y < 0).any() or (y >= p.shape[1]).any():
        raise ProtocolError(f"labels must be class indices in [0, {p.shape[1] - 1}]")
    if not np.isfinite(p).all():
        raise ProtocolError("probabilities hold NaN or infinite values")
    return _registered("log_loss_unnormalized", np.eye(p.shape[1])[y], p)


#: The benchmark's metric functions by name.
METRIC_FUNCTIONS: dict[str, Callable[..., float]] = {
    "accuracy": accuracy,
    "mae": mae,
    "rmse": rmse,
    "mcrmse": mcrmse,
    "rmsle": rmsle,
    "smape": smape,
    "log_loss_unnormalized": log_loss_unnormalized,
}


# --- the paper's aggregates ----------------------------------------------------------------


def _check_finite(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ProtocolError(f"{name} must be a finite number, got {value!r}")


def normalized_score(score: float, *, min: float, max: float,
                     lower_is_better: bool = False) -> float | None:
    """The paper's ``nScore = (s - min) / (max - min)``; lower-is-better metrics negate s, min
    and max first. ``min`` is the worst bound (random guess, or the bottom-5 % leaderboard score),
    ``max`` the best (1.0, or the top leaderboard score). Not clipped.

    Returns None when ``max == min`` (undefined).

    Raises:
        ProtocolError: the bounds are in the wrong order for the direction (e.g. a loss whose
            ``max``, the best value, is larger than its ``min``).

    >>> round(normalized_score(0.55, min=0.1, max=1.0), 12)
    0.5
    >>> round(normalized_score(1.10, min=1.20, max=1.08, lower_is_better=True), 4)
    0.8333
    """
    for name, value in (("score", score), ("min", min), ("max", max)):
        _check_finite(name, value)
    if max == min:
        return None
    if lower_is_better:
        score, min, max = -score, -min, -max
    if max < min:
        what = "lower-is-better" if lower_is_better else "higher-is-better"
        raise ProtocolError(
            f"bounds in the wrong order for a {what} metric: `max` is the best value and `min` "
            f"the worst; got min {-min if lower_is_better else min}, "
            f"max {-max if lower_is_better else max}"
        )
    return (score - min) / (max - min)


def log_time_ratio(time_agent: float, time_ref: float) -> float | None:
    """``ln(time_agent / time_ref)``: below 0 the agent's code is faster. None if a time <= 0.

    >>> round(log_time_ratio(2.0, 1.0), 6)
    0.693147
    """
    _check_finite("time_agent", time_agent)
    _check_finite("time_ref", time_ref)
    if time_agent <= 0 or time_ref <= 0:
        return None
    return math.log(time_agent / time_ref)


@dataclass(frozen=True)
class TaskResult:
    """One row of a results table (see :func:`read_results`)."""

    task: str
    passed: bool
    score: float | None = None
    reference_score: float | None = None
    min: float | None = None
    max: float | None = None
    lower_is_better: bool = False
    time_agent: float | None = None
    time_ref: float | None = None


@dataclass(frozen=True)
class Aggregates:
    """The paper's aggregates over a set of tasks."""

    n_tasks: int
    n_passed: int
    pass_rate: float
    d_score: float | None
    """Mean over passed, included tasks of nScore_agent / nScore_ref (None if none included)."""
    d_time: float | None
    """Mean over passed tasks with positive times of ln(time_agent / time_ref)."""
    e_score: float | None
    """``d_score * pass_rate``."""
    n_included: int
    excluded: int
    """Passed tasks left out of dScore (reference nScore 0, or max == min)."""
    n_timed: int
    time_excluded: int
    """Passed tasks left out of dTime (a time <= 0 or missing)."""
    per_task: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "n_tasks": self.n_tasks, "n_passed": self.n_passed, "pass_rate": self.pass_rate,
            "dScore": self.d_score, "dTime": self.d_time, "EScore": self.e_score,
            "n_included": self.n_included, "excluded": self.excluded,
            "n_timed": self.n_timed, "time_excluded": self.time_excluded,
            "per_task": self.per_task,
        }


def _score_ratio(r: TaskResult, row: dict[str, Any]) -> float | None:
    """nScore_agent / nScore_ref of a passed task (None when excluded; the reason goes into
    ``row``)."""
    missing = [n for n in ("score", "reference_score", "min", "max") if getattr(r, n) is None]
    if missing:
        raise ProtocolError(
            f"task {r.task!r} passed but lacks {missing}: a passed task needs its score, "
            f"the reference score and both bounds"
        )
    kw = {"min": float(r.min), "max": float(r.max),  # type: ignore[arg-type]
          "lower_is_better": r.lower_is_better}
    n_agent = normalized_score(float(r.score), **kw)  # type: ignore[arg-type]
    n_ref = normalized_score(float(r.reference_score), **kw)  # type: ignore[arg-type]
    row.update(n_score=n_agent, n_score_ref=n_ref)
    if n_agent is None or n_ref is None:
        row["excluded_reason"] = "max == min"
        return None
    if n_ref == 0:
        row["excluded_reason"] = "reference nScore is 0"
        return None
    row["ratio"] = n_agent / n_ref
    return n_agent / n_ref


def _time_ratio(r: TaskResult, row: dict[str, Any]) -> float | None:
    """ln(time_agent / time_ref) of a passed task (None when excluded, reason in ``row``)."""
    if r.time_agent is None or r.time_ref is None:
        row["time_excluded_reason"] = "time missing"
        return None
    lt = log_time_ratio(r.time_agent, r.time_ref)
    if lt is None:
        row["time_excluded_reason"] = "time <= 0"
    else:
        row["log_time_ratio"] = lt
    return lt


def aggregate_results(results: Sequence[TaskResult]) -> Aggregates:
    """nScore per passed task, then dScore, dTime and EScore over the set.

    Raises:
        ProtocolError: no tasks, duplicate task names, or a passed task without the score,
            reference score and bounds needed for its nScore.
    """
    if not results:
        raise ProtocolError("no tasks: expected at least one result row")
    counts = Counter(r.task for r in results)
    twice = next((n for n, c in counts.items() if c > 1), None)
    if twice is not None:
        raise ProtocolError(f"task {twice!r} appears twice; expected one row per task")
    ratios: list[float] = []
    logs: list[float] = []
    per_task: list[dict[str, Any]] = []
    for r in results:
        row: dict[str, Any] = {"task": r.task, "passed": r.passed, "n_score": None,
                               "n_score_ref": None, "ratio": None, "log_time_ratio": None,
                               "excluded_reason": None, "time_excluded_reason": None}
        per_task.append(row)
        if not r.passed:
            continue
        if (ratio := _score_ratio(r, row)) is not None:
            ratios.append(ratio)
        if (lt := _time_ratio(r, row)) is not None:
            logs.append(lt)
    n_passed = sum(1 for r in results if r.passed)
    rate = n_passed / len(results)
    d_score = sum(ratios) / len(ratios) if ratios else None
    return Aggregates(
        n_tasks=len(results), n_passed=n_passed, pass_rate=rate, d_score=d_score,
        d_time=sum(logs) / len(logs) if logs else None,
        e_score=None if d_score is None else d_score * rate,
        n_included=len(ratios), excluded=sum(1 for t in per_task if t["excluded_reason"]),
        n_timed=len(logs), time_excluded=sum(1 for t in per_task if t["time_excluded_reason"]),
        per_task=per_task,
    )


# --- the results table ---------------------------------------------------------------------

#: Columns of a results CSV. ``task`` and ``passed`` are required in every row; the rest are
#: needed for passed rows (times may be empty: the task is then left out of dTime).
RESULT_COLUMNS: tuple[str, ...] = ("task", "passed", "score", "reference_score", "min", "max",
                                   "lower_is_better", "time_agent", "time_ref")
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


def _parse_bool(value: str, column: str, line: int, *, default: bool | None = None) -> bool:
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    if v == "" and default is not None:
        return default
    raise ProtocolError(f"line {line}: column `{column}` expected true/false (or 1/0), "
                        f"got {value!r}")


def _parse_float(value: str, column: str, line: int) -> float | None:
    v = value.strip()
    if v == "":
        return None
    try:
        x = float(v)
    except ValueError:
        raise ProtocolError(f"line {line}: column `{column}` expected a number, got {value!r}") \
            from None
    if not math.isfinite(x):
        raise ProtocolError(f"line {line}: column `{column}` expected a finite number, "
                            f"got {value!r}")
    return x


def read_results(path: str | Path) -> list[TaskResult]:
    """Read a results CSV with the columns of :data:`RESULT_COLUMNS` (header required).

    ``passed`` and ``lower_is_better`` take true/false, 1/0 or yes/no (``lower_is_better``
    defaults to false when empty); numbers may be empty where not needed.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ProtocolError(f"results file not found: {p}") from None
    reader = csv.DictReader(text.splitlines())
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in ("task", "passed") if c not in header]
    unknown = [c for c in header if c not in RESULT_COLUMNS]
    if missing or unknown:
        raise ProtocolError(
            f"{p}: header expected columns {list(RESULT_COLUMNS)} (task and passed required); "
            f"got {header}" + (f"; missing {missing}" if missing else "")
            + (f"; unknown {unknown}" if unknown else "")
        )
    out: list[TaskResult] = []
    for i, raw in enumerate(reader, start=2):
        if None in raw:
            raise ProtocolError(f"{p} line {i}: more cells than header columns")
        row = {k.strip(): (v or "") for k, v in raw.items()}
        task = row["task"].strip()
        if not task:
            raise ProtocolError(f"{p} line {i}: empty `task`")
        nums = {c: _parse_float(row.get(c, ""), c, i)
                for c in ("score", "reference_score", "min", "max", "time_agent", "time_ref")}
        out.append(TaskResult(
            task=task,
            passed=_parse_bool(row["passed"], "passed", i),
            lower_is_better=_parse_bool(row.get("lower_is_better", ""), "lower_is_better", i,
                                        default=False),
            **nums,
        ))
    if not out:
        raise ProtocolError(f"{p}: no result rows")
    return out


#: This protocol's registry entry (see :mod:`tambench.protocols.base`).
PROTOCOL = SiblingProtocol(
    name="mlalgo",
    title="MLAlgo-Bench",
    summary="tolerance pass rules, the benchmark's metric functions (registered metrics) and "
            "the paper's nScore, dScore, dTime and EScore",
    evaluate=aggregate_results,
    inputs="a results table (read_results: task, passed, score, reference_score, min, max, "
           "lower_is_better, time_agent, time_ref)",
    doc="docs/protocols/mlalgo.md",
    metrics=tuple(sorted({metric_id for metric_id, _ in METRIC_IDS.values()})),
)
