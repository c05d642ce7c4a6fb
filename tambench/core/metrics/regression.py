"""Regression metrics: errors, correlations, geodesic and likelihood scores.

Inputs are float64 arrays aligned by id by the grader: 1-D for one target column, (rows,
columns) for several. Correlations of a constant side are defined as 0.0, never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tambench.core.metrics._common import (
    as_float_1d,
    as_float_2d,
    as_str_1d,
    average_ranks,
    examples,
    finite,
    same_length,
    same_shape,
)
from tambench.core.metrics.base import register
from tambench.errors import InvalidSubmissionError, MetricInputError, TaskDataError

#: The floor under a group's MAE before its logarithm (CHAMPS' convention).
LOG_MAE_FLOOR = 1e-9
#: OSIC's Laplace log likelihood: confidence clipped below at 70, error capped at 1000.
LAPLACE_SIGMA_FLOOR = 70.0
LAPLACE_DELTA_CAP = 1000.0
EARTH_RADIUS_KM = 6371.0


def _pair_1d(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t = as_float_1d(y_true, "y_true")
    p = as_float_1d(y_pred, "y_pred")
    same_length(t, p)
    return t, p


def _pair_any(y_true: Any, y_pred: Any, *, check_finite: bool = True) -> tuple[np.ndarray, np.ndarray]:
    t = as_float_2d(y_true, "y_true", check_finite=check_finite)
    p = as_float_2d(y_pred, "y_pred", check_finite=check_finite)
    same_shape(t, p)
    return t, p


def _sum_squares(t: np.ndarray, p: np.ndarray) -> float:
    with np.errstate(over="ignore", invalid="ignore"):  # overflow gives inf; callers check
        d = (t - p).ravel()
        return float(np.einsum("i,i->", d, d))


def _mask(values: Any, n: int, name: str) -> np.ndarray:
    """Boolean row mask from 0/1 numbers, booleans or the strings 0/1/true/false."""
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise MetricInputError(f"{name}: expected {n} values, got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if arr.dtype.kind in "iuf":
        ok = (arr == 0) | (arr == 1)
        if not ok.all():
            raise TaskDataError(f"{name}: expected 0/1, got {examples(set(arr[~ok].tolist()))}")
        return arr == 1
    text = np.array([str(v).strip().lower() for v in arr], dtype=object)
    truthy = np.isin(text, ["1", "1.0", "true"])
    falsy = np.isin(text, ["0", "0.0", "false"])
    if not (truthy | falsy).all():
        raise TaskDataError(
            f"{name}: expected 0/1 or true/false, got {examples(set(text[~(truthy | falsy)]))}"
        )
    return truthy


@register("rmse", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def rmse(y_true: Any, y_pred: Any) -> float:
    """Root mean squared error.

    Lower is better; best 0.0. Inputs: two equal-length float arrays (or 2-D, all cells).

    >>> rmse([1.0, 2.0, 3.0], [2.0, 2.0, 5.0])
    1.2909944487358056
    """
    t, p = _pair_any(y_true, y_pred, check_finite=False)
    total = _sum_squares(t, p)
    if not math.isfinite(total) and np.isfinite(t).all() and np.isfinite(p).all():
        return _rmse_rescaled(t, p)  # may be inf: the grader never ranks it
    return finite(math.sqrt(total / t.size), "rmse")


def _rmse_rescaled(t: np.ndarray, p: np.ndarray) -> float:
    """RMSE of finite values whose squares (or differences) overflow float64.

    Halved differences cannot overflow; dividing them by their largest magnitude keeps every
    square at most 1, and the scale comes back outside the square root. A result beyond
    float64 is infinite, which the grader reports as out of range (never ranked).
    """
    half = (0.5 * t - 0.5 * p).ravel()
    scale = float(np.max(np.abs(half)))
    if scale == 0.0:
        return 0.0
    unit = half / scale
    with np.errstate(over="ignore"):
        return float(np.float64(2.0 * scale) * math.sqrt(float(np.einsum("i,i->", unit, unit)) / t.size))


@register("mse", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def mse(y_true: Any, y_pred: Any) -> float:
    """Mean squared error.

    Lower is better; best 0.0. Input: two float arrays of one shape (2-D: all cells).

    >>> mse([1.0, 2.0, 3.0], [2.0, 2.0, 5.0])
    1.6666666666666667
    """
    t, p = _pair_any(y_true, y_pred, check_finite=False)
    return finite(_sum_squares(t, p) / t.size, "mse")


@register("mae", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def mae(y_true: Any, y_pred: Any) -> float:
    """Mean absolute error.

    Lower is better; best 0.0. Input: two float arrays of one shape (2-D: all cells).

    >>> mae([1.0, 2.0, 3.0], [2.0, 2.0, 5.0])
    1.0
    """
    t, p = _pair_any(y_true, y_pred, check_finite=False)
    return finite(float(np.mean(np.abs(t - p))), "mae")


@register("rmsle", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def rmsle(y_true: Any, y_pred: Any) -> float:
    """Root mean squared logarithmic error: RMSE of log(1 + y).

    Lower is better; best 0.0. Input: two float arrays of one shape with values > -1
    (competitions using it ask for non-negative values). A prediction <= -1 makes the
    submission invalid.

    >>> round(rmsle([0.0, 1.0, 3.0], [0.0, 1.0, 1.0]), 6)
    0.400189
    """
    t, p = _pair_any(y_true, y_pred)
    if (p <= -1).any():
        n_bad = int((p <= -1).sum())
        raise InvalidSubmissionError(
            f"rmsle needs predictions > -1 (log(1 + y) must exist); got {n_bad} value(s) <= -1, "
            f"smallest {float(p.min())!r}"
        )
    if (t <= -1).any():
        raise TaskDataError("rmsle: the answers hold values <= -1")
    d = np.log1p(t) - np.log1p(p)
    return float(math.sqrt(np.mean(d * d)))


@register(
    "mcrmse",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="value",
    defaults={"scored_column": None},
)
def mcrmse(y_true: Any, y_pred: Any, scored: Any = None) -> float:
    """Mean column-wise RMSE: the RMSE of each target column, averaged over columns.

    Lower is better; best 0.0. Input: (rows, columns) floats. ``scored`` (from the answers
    column named by ``scored_column``; default: none, every row counts) is a 0/1 mask per row:
    only rows marked 1 are scored, the others must still be submitted. Stanford's OpenVaccine
    is scored this way: its answers carry ``scored`` = 1 for the sequence positions the
    competition scored and 0 for the positions it ignored.

    >>> round(mcrmse([[1, 10], [2, 20], [3, 30]], [[1, 12], [2, 20], [5, 30]]), 6)
    1.154701
    >>> mcrmse([[1, 10], [2, 20], [3, 30]], [[1, 12], [2, 20], [5, 30]], scored=[0, 1, 0])
    0.0
    """
    t, p = _pair_any(y_true, y_pred)
    if scored is not None:
        keep = _mask(scored, t.shape[0], "scored")
        if not keep.any():
            raise TaskDataError("mcrmse: the answers mark no row as scored")
        t, p = t[keep], p[keep]
    d = t - p
    return float(np.mean(np.sqrt(np.mean(d * d, axis=0))))


@register(
    "mean_log_mae",
    higher_is_better=False,
    value_range=(math.log(LOG_MAE_FLOOR), math.inf),
    kind="value",
    defaults={"groups_column": "type", "floor": LOG_MAE_FLOOR},
)
def mean_log_mae(y_true: Any, y_pred: Any, groups: Any = None, floor: float = LOG_MAE_FLOOR) -> float:
    """Mean over groups of log(MAE of the group), each MAE floored at ``floor`` (CHAMPS).

    Lower is better; best log(1e-9) = -20.7233 (every group exact). Input: 1-D floats and
    ``groups``, one group label per row, read from the answers column named by
    ``groups_column`` (default ``type``).

    >>> round(mean_log_mae([1.0, 2.0, 5.0, 7.0], [1.5, 2.5, 5.0, 7.0], groups=["a", "a", "b", "b"]), 4)
    -10.7082
    """
    t, p = _pair_1d(y_true, y_pred)
    if groups is None:
        raise MetricInputError("mean_log_mae needs groups (the answers' groups column)")
    g = as_str_1d(groups, "groups")
    same_length(t, g)
    _, inverse, counts = np.unique(g, return_inverse=True, return_counts=True)
    group_mae = np.bincount(inverse, weights=np.abs(t - p)) / counts
    return float(np.mean(np.log(np.maximum(group_mae, floor))))


@register("smape", higher_is_better=False, value_range=(0.0, 200.0), kind="value")
def smape(y_true: Any, y_pred: Any) -> float:
    """Symmetric mean absolute percentage error, in percent: 100 * mean(2|p - t| / (|t| + |p|)).

    Lower is better; best 0.0, worst 200.0. Input: two float arrays of one shape. A row where
    both values are 0 contributes 0 (Kaggle's convention).

    >>> smape([100.0, 0.0], [110.0, 0.0])
    4.761904761904762
    """
    t, p = _pair_any(y_true, y_pred)
    denom = np.abs(t) + np.abs(p)
    num = 2.0 * np.abs(p - t)
    ratio = np.divide(num, denom, out=np.zeros_like(num), where=denom != 0)
    return float(100.0 * np.mean(ratio))


@register("mape", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def mape(y_true: Any, y_pred: Any) -> float:
    """Mean absolute percentage error as a fraction: mean(|t - p| / max(|t|, machine eps)).

    Lower is better; best 0.0. Input: two float arrays of one shape. A fraction, not percent,
    as in scikit-learn; a true 0 divides by the machine epsilon, as there.

    >>> round(mape([100.0, 50.0], [110.0, 40.0]), 12)
    0.15
    """
    t, p = _pair_any(y_true, y_pred)
    eps = np.finfo(np.float64).eps
    return float(np.mean(np.abs(t - p) / np.maximum(np.abs(t), eps)))


def _r2_columns(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """R^2 per column; a constant true column scores 1.0 if predicted exactly, else 0.0."""
    ss_res = np.sum((t - p) ** 2, axis=0)
    ss_tot = np.sum((t - t.mean(axis=0)) ** 2, axis=0)
    ratio = np.zeros_like(ss_res)
    np.divide(ss_res, ss_tot, out=ratio, where=ss_tot != 0)
    return np.where(ss_tot != 0, 1.0 - ratio, np.where(ss_res == 0, 1.0, 0.0))


@register("r2", higher_is_better=True, value_range=(-math.inf, 1.0), kind="value")
def r2(y_true: Any, y_pred: Any) -> float:
    """Coefficient of determination, 1 - SS_res / SS_tot.

    Higher is better; best 1.0, unbounded below. Input: 1-D floats. A constant truth scores
    1.0 if predicted exactly and 0.0 otherwise (scikit-learn's finite convention), never NaN.

    >>> r2([1.0, 2.0, 3.0], [1.0, 2.0, 4.0])
    0.5
    """
    t, p = _pair_1d(y_true, y_pred)
    return float(_r2_columns(t[:, None], p[:, None])[0])


@register(
    "r2_mean_columnwise",
    higher_is_better=True,
    value_range=(-math.inf, 1.0),
    kind="value",
    defaults={"clip_at_zero": False},
)
def r2_mean_columnwise(y_true: Any, y_pred: Any, clip_at_zero: bool = False) -> float:
    """Mean over target columns of each column's R^2, optionally clipping each at 0 first.

    Higher is better; best 1.0. Input: (rows, columns) floats. ``clip_at_zero=True`` replaces
    negative column R^2 by 0 before averaging, as the PlantTraits 2024 grader does (so no
    submission scores below 0; leaderboards of that task hold negative entries the clipped
    metric cannot reach).

    >>> r2_mean_columnwise([[1, 1], [2, 2], [3, 3]], [[1, 3], [2, 2], [4, 1]])
    -1.25
    >>> r2_mean_columnwise([[1, 1], [2, 2], [3, 3]], [[1, 3], [2, 2], [4, 1]], clip_at_zero=True)
    0.25
    """
    t, p = _pair_any(y_true, y_pred)
    per_column = _r2_columns(t, p)
    if clip_at_zero:
        per_column = np.maximum(per_column, 0.0)
    return float(np.mean(per_column))


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    da = a - a.mean()
    db = b - b.mean()
    saa = float(da @ da)
    sbb = float(db @ db)
    if saa == 0 or sbb == 0:
        return 0.0
    return float(np.clip(float(da @ db) / math.sqrt(saa * sbb), -1.0, 1.0))


@register("pearson", higher_is_better=True, value_range=(-1.0, 1.0), kind="value")
def pearson(y_true: Any, y_pred: Any) -> float:
    """Pearson correlation between truths and predictions.

    Higher is better; best 1.0. Input: 1-D floats. A constant side (zero variance) scores
    0.0, never NaN.

    >>> pearson([1.0, 2.0, 3.0], [2.0, 4.0, 7.0])
    0.9933992677987828
    >>> pearson([1.0, 2.0, 3.0], [5.0, 5.0, 5.0])
    0.0
    """
    t, p = _pair_1d(y_true, y_pred)
    return _correlation(t, p)


@register("spearman", higher_is_better=True, value_range=(-1.0, 1.0), kind="value")
def spearman(y_true: Any, y_pred: Any) -> float:
    """Spearman rank correlation (Pearson of average ranks, ties averaged).

    Higher is better; best 1.0. Input: 1-D floats. A constant side scores 0.0, never NaN.

    >>> spearman([1.0, 2.0, 3.0, 4.0], [10.0, 30.0, 20.0, 40.0])
    0.8
    """
    t, p = _pair_1d(y_true, y_pred)
    return _correlation(average_ranks(t), average_ranks(p))


@register("kendall_tau", higher_is_better=True, value_range=(-1.0, 1.0), kind="value")
def kendall_tau(y_true: Any, y_pred: Any) -> float:
    """Kendall's tau-b rank correlation (ties corrected).

    Higher is better; best 1.0. Input: 1-D floats. A constant side scores 0.0, never NaN.

    >>> round(kendall_tau([1.0, 2.0, 3.0, 4.0], [10.0, 30.0, 20.0, 40.0]), 6)
    0.666667
    """
    t, p = _pair_1d(y_true, y_pred)
    if np.all(t == t[0]) or np.all(p == p[0]):
        return 0.0
    # scipy's O(n log n) implementation, loaded only when this metric runs.
    from scipy.stats import kendalltau

    tau = float(kendalltau(t, p).statistic)
    return 0.0 if not math.isfinite(tau) else float(np.clip(tau, -1.0, 1.0))


@register(
    "haversine_mean",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="value",
    defaults={"radius_km": EARTH_RADIUS_KM},
)
def haversine_mean(y_true: Any, y_pred: Any, radius_km: float = EARTH_RADIUS_KM) -> float:
    """Mean great-circle distance in kilometres between true and predicted points.

    Lower is better; best 0.0. Input: (rows, 2) arrays of (latitude, longitude) in degrees,
    target columns in that order.

    >>> round(haversine_mean([[0.0, 0.0]], [[0.0, 1.0]]), 3)
    111.195
    """
    t, p = _pair_any(y_true, y_pred)
    if t.shape[1] != 2:
        raise MetricInputError(f"haversine_mean needs 2 columns (lat, lon), got {t.shape[1]}")
    lat1, lon1 = np.radians(t[:, 0]), np.radians(t[:, 1])
    lat2, lon2 = np.radians(p[:, 0]), np.radians(p[:, 1])
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return float(np.mean(2.0 * radius_km * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))))


def _directions(x: np.ndarray, side: str) -> np.ndarray:
    if x.shape[1] == 2:
        azimuth, zenith = x[:, 0], x[:, 1]
        return np.stack(
            [np.cos(azimuth) * np.sin(zenith), np.sin(azimuth) * np.sin(zenith), np.cos(zenith)],
            axis=1,
        )
    if x.shape[1] == 3:
        zero = ~np.any(x != 0, axis=1)
        if zero.any():
            msg = f"mean_angular_error: {int(zero.sum())} zero-length direction vector(s)"
            if side == "y_pred":
                raise InvalidSubmissionError(msg)
            raise TaskDataError(msg)
        return x
    raise MetricInputError(
        f"mean_angular_error needs 2 columns (azimuth, zenith) or 3 (x, y, z), got {x.shape[1]}"
    )


@register("mean_angular_error", higher_is_better=False, value_range=(0.0, math.pi), kind="value")
def mean_angular_error(y_true: Any, y_pred: Any) -> float:
    """Mean angle in radians between true and predicted directions.

    Lower is better; best 0.0, worst pi. Input: (rows, 2) arrays of (azimuth, zenith) in
    radians (IceCube's convention) or (rows, 3) direction vectors of any length. The angle is
    computed as atan2(|a x b|, a . b), exact at 0 where arccos would lose 1e-8 rad.

    >>> round(mean_angular_error([[0.0, 0.0, 1.0]], [[1.0, 0.0, 1.0]]), 6)
    0.785398
    """
    t, p = _pair_any(y_true, y_pred)
    a = _directions(t, "y_true")
    b = _directions(p, "y_pred")
    cross = np.linalg.norm(np.cross(a, b), axis=1)
    dot = np.sum(a * b, axis=1)
    return float(np.mean(np.arctan2(cross, dot)))


@register(
    "laplace_log_likelihood",
    higher_is_better=True,
    value_range=(-math.inf, -math.log(math.sqrt(2.0) * LAPLACE_SIGMA_FLOOR)),
    kind="value",
)
def laplace_log_likelihood(y_true: Any, y_pred: Any) -> float:
    """OSIC's modified Laplace log likelihood of predictions with a confidence.

    Higher is better; best -ln(70 * sqrt(2)) = -4.5951 (exact value, confidence <= 70).
    Input: predictions (rows, 2) of (value, confidence) in that column order; truths (rows,)
    of values, or (rows, 2) whose second column is ignored. Per row, with sigma = max(
    confidence, 70) and delta = min(|true - value|, 1000): -sqrt(2) delta / sigma -
    ln(sqrt(2) sigma); the metric is the mean over rows. The clips at 70 and 1000 are OSIC
    Pulmonary Fibrosis Progression's, fixed here so the declared best value holds.

    >>> round(laplace_log_likelihood([2000.0], [[2100.0, 100.0]]), 6)
    -6.365957
    """
    p = as_float_2d(y_pred, "y_pred")
    t = as_float_2d(y_true, "y_true")[:, 0]
    same_length(t, p)
    if p.shape[1] != 2:
        raise MetricInputError(
            f"laplace_log_likelihood needs predictions (value, confidence), got {p.shape[1]} columns"
        )
    sigma = np.maximum(p[:, 1], LAPLACE_SIGMA_FLOOR)
    delta = np.minimum(np.abs(t - p[:, 0]), LAPLACE_DELTA_CAP)
    root2 = math.sqrt(2.0)
    return float(np.mean(-root2 * delta / sigma - np.log(root2 * sigma)))


# --- column-wise means ------------------------------------------------------------------------


def columnwise_mean(
    per_column: Callable[[np.ndarray, np.ndarray], float],
    y_true: Any,
    y_pred: Any,
    *,
    skip: Callable[[np.ndarray], bool] | None = None,
    what: str = "metric",
) -> float:
    """Mean over target columns of ``per_column(true column, predicted column)``.

    The building block of every "mean column-wise X": a new one is ``per_column`` plus a
    docstring. ``skip(true column)`` leaves columns out where the per-column metric is
    undefined (answers with no variation); leaving out every column is bad task data.

    >>> columnwise_mean(lambda t, p: float(np.abs(t - p).max()), [[1, 2], [3, 4]], [[1, 2], [3, 6]])
    1.0
    """
    t, p = _pair_any(y_true, y_pred)
    scores = [per_column(t[:, j], p[:, j]) for j in range(t.shape[1])
              if skip is None or not skip(t[:, j])]
    if not scores:
        raise TaskDataError(f"{what}: every answers column is left out (no variation)")
    return float(np.mean(scores))


def _constant(column: np.ndarray) -> bool:
    return bool(np.all(column == column[0]))


@register("spearman_columnwise", higher_is_better=True, value_range=(-1.0, 1.0), kind="value")
def spearman_columnwise(y_true: Any, y_pred: Any) -> float:
    """Mean over target columns of each column's Spearman rank correlation.

    Higher is better; best 1.0. Input: (rows, columns) floats (Google QUEST Q&A Labeling: 30
    columns). Ties take average ranks. A predicted column with no variation correlates 0.0,
    never NaN; an answers column with no variation ranks nothing, so it is left out of the
    mean (every submission alike).

    >>> spearman_columnwise([[1, 1], [2, 3], [3, 2]], [[1, 3], [2, 2], [3, 1]])
    0.25
    """
    return columnwise_mean(lambda t, p: spearman(t, p), y_true, y_pred, skip=_constant,
                           what="spearman_columnwise")


@register("rmsle_columnwise", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def rmsle_columnwise(y_true: Any, y_pred: Any) -> float:
    """Mean over target columns of each column's root mean squared logarithmic error.

    Lower is better; best 0.0. Input: (rows, columns) floats > -1 (NOMAD 2018: formation and
    band-gap energies). Per column sqrt(mean((log(1 + p) - log(1 + a))^2)); a prediction
    <= -1 makes the submission invalid.

    >>> round(rmsle_columnwise([[0.0, 1.0], [1.0, 3.0]], [[0.0, 1.0], [1.0, 1.0]]), 6)
    0.245065
    """
    return columnwise_mean(lambda t, p: rmsle(t, p), y_true, y_pred, what="rmsle_columnwise")


# --- GNSS positioning ---------------------------------------------------------------------------

#: The Google Smartphone Decimeter Challenge's Earth radius for haversine distances, metres.
HAVERSINE_RADIUS_M = 6_371_000.0


def haversine_m(t: np.ndarray, p: np.ndarray, radius_m: float) -> np.ndarray:
    """Great-circle distance per row between (lat, lon) degree pairs, in metres."""
    lat1, lon1 = np.radians(t[:, 0]), np.radians(t[:, 1])
    lat2, lon2 = np.radians(p[:, 0]), np.radians(p[:, 1])
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2.0 * radius_m * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


@register(
    "haversine_p50_p95",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="value",
    defaults={"groups_column": "phone", "radius_m": HAVERSINE_RADIUS_M},
)
def haversine_p50_p95(y_true: Any, y_pred: Any, groups: Any = None,
                      radius_m: float = HAVERSINE_RADIUS_M) -> float:
    """Per trip, the mean of the 50th and 95th percentile horizontal errors; then the mean
    over trips (Google Smartphone Decimeter Challenge 2022), in metres.

    Lower is better; best 0.0. Input: (rows, 2) arrays of (latitude, longitude) in degrees and
    ``groups``, the trip (phone) of each row, read from the answers column named by
    ``groups_column`` (``phone`` on Kaggle; MLE-bench's prepared answers call it ``tripId``).
    Errors are haversine distances on a sphere of ``radius_m`` (6,371 km); percentiles
    interpolate linearly between ranks.

    >>> t = [[0.0, 0.0]] * 4
    >>> p = [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.001]]
    >>> round(haversine_p50_p95(t, p, groups=["a", "a", "b", "b"]), 4)
    40.3082
    """
    t, p = _pair_any(y_true, y_pred)
    if t.shape[1] != 2:
        raise MetricInputError(f"haversine_p50_p95 needs 2 columns (lat, lon), got {t.shape[1]}")
    if groups is None:
        raise MetricInputError("haversine_p50_p95 needs groups (the answers' trip column)")
    g = as_str_1d(groups, "groups")
    same_length(t, g)
    d = haversine_m(t, p, float(radius_m))
    _, inverse = np.unique(g, return_inverse=True)
    per_trip = [float(np.mean(np.percentile(d[inverse == k], [50, 95])))
                for k in range(int(inverse.max()) + 1)]
    return float(np.mean(per_trip))
