"""Probability metrics beyond plain AUC and log loss: TPR-band weighted AUC, class-balanced
log loss, subgroup bias AUC, probabilistic F-beta.

Inputs are 1-D float arrays aligned by id: 0/1 truths (or, for ``jigsaw_bias_auc``, fractions
binarised at a threshold) and real-valued scores.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tambench.core.metrics._common import (
    as_float_1d,
    as_float_2d,
    binary_auc,
    binary_labels,
    finite,
    same_length,
    same_shape,
)
from tambench.core.metrics.base import register
from tambench.errors import MetricInputError, MetricParameterError, TaskDataError

#: ALASKA2's bands of the true positive rate and their weights.
ALASKA_TPR_THRESHOLDS = [0.0, 0.4, 1.0]
ALASKA_WEIGHTS = [2.0, 1.0]
#: The identity columns the Jigsaw Unintended Bias competition scores.
JIGSAW_IDENTITIES = [
    "male", "female", "homosexual_gay_or_lesbian", "christian", "jewish", "muslim", "black",
    "white", "psychiatric_or_mental_illness",
]


def _pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t = as_float_1d(y_true, "y_true")
    p = as_float_1d(y_pred, "y_pred")
    same_length(t, p)
    return t, p


# --- ROC curve and areas between TPR bands ---------------------------------------------------


def roc_points(positive: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(FPR, TPR) of every distinct score threshold, from (0, 0) to (1, 1); tied scores are one
    step, so the curve crosses a tie diagonally (the AUC convention of one half per tie)."""
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise TaskDataError(f"y_true: an ROC curve needs both classes, got {n_pos} positive and "
                            f"{n_neg} negative rows")
    order = np.argsort(-scores, kind="stable")
    s, pos = scores[order], positive[order]
    last = np.append(s[1:] != s[:-1], True)
    tps = np.cumsum(pos)[last]
    fps = np.cumsum(~pos)[last]
    return (np.concatenate([[0.0], fps / n_neg]), np.concatenate([[0.0], tps / n_pos]))


def band_area(fpr: np.ndarray, tpr: np.ndarray, lo: float, hi: float) -> float:
    """Area between the ROC curve and the line TPR = ``lo``, capped at TPR = ``hi``:
    the integral over FPR of clip(TPR, lo, hi) - lo, exact for a piecewise linear curve.

    >>> round(band_area(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 0.0, 0.4), 6)
    0.32
    """
    # Along a segment TPR is linear in FPR, so the integral of g(y) = clip(y, lo, hi) - lo over
    # the segment is dx * (G(y1) - G(y0)) / (y1 - y0), G being g's antiderivative (dx * g(y0)
    # on a flat segment): exact, and one vector operation over every segment.
    dx, y0, y1 = np.diff(fpr), tpr[:-1], tpr[1:]
    dy = y1 - y0
    flat = dy == 0
    mean_g = np.empty_like(dx)
    mean_g[flat] = np.clip(y0[flat], lo, hi) - lo
    up = ~flat
    mean_g[up] = (_band_antiderivative(y1[up], lo, hi) - _band_antiderivative(y0[up], lo, hi)) / dy[up]
    return float(np.sum(dx * mean_g))


def _band_antiderivative(y: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """G(y) = integral from 0 to y of clip(u, lo, hi) - lo du, for y in [0, 1]."""
    inside = np.clip(y, lo, hi) - lo
    return inside * inside / 2.0 + (hi - lo) * np.maximum(y - hi, 0.0)


def _bands(tpr_thresholds: Any, weights: Any) -> tuple[np.ndarray, np.ndarray]:
    th = np.asarray(tpr_thresholds, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    ok = (th.ndim == 1 and th.size >= 2 and w.shape == (th.size - 1,)
          and bool(np.all(np.diff(th) > 0)) and th[0] >= 0 and th[-1] <= 1
          and bool(np.all(w >= 0)) and float(np.dot(np.diff(th), w)) > 0)
    if not ok:
        raise MetricParameterError(
            "tpr_thresholds must rise within [0, 1] and weights hold one non-negative weight per "
            f"band with a positive total; got {tpr_thresholds!r} and {weights!r}"
        )
    return th, w


def _kept_rows(filter_values: Any, filter_above: Any, n: int) -> np.ndarray | None:
    """Rows whose answers filter value is strictly above ``filter_above`` (None: every row)."""
    if filter_above is None and filter_values is None:
        return None
    if filter_above is None or isinstance(filter_above, bool) or not isinstance(
            filter_above, int | float) or not np.isfinite(filter_above):
        raise MetricParameterError("filter_column and filter_above go together: filter_above must "
                                   f"be a finite number, got {filter_above!r}")
    if filter_values is None:
        raise MetricParameterError("filter_above needs filter_column, the answers column it "
                                   "compares")
    try:
        values = np.asarray(filter_values, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise TaskDataError("weighted_auc_tpr: the answers' filter column is not numeric") from None
    if values.size != n:
        raise MetricInputError(f"filter: expected {n} values, got {values.size}")
    keep = values > float(filter_above)  # NaN is never above: such rows are not scored
    if not keep.any():
        raise TaskDataError("weighted_auc_tpr: no answers row passes the filter, so none is scored")
    return keep


@register(
    "weighted_auc_tpr",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="probability",
    defaults={"tpr_thresholds": ALASKA_TPR_THRESHOLDS, "weights": ALASKA_WEIGHTS,
              "filter_column": None, "filter_above": None},
)
def weighted_auc_tpr(y_true: Any, y_pred: Any, tpr_thresholds: list[float] | None = None,
                     weights: list[float] | None = None, filter: Any = None,
                     filter_above: float | None = None) -> float:
    """ROC-AUC with the area of each band of true positive rates weighted (ALASKA2, Flavours).

    Higher is better; best 1.0. Input: 1-D 0/1 truths and 1-D real scores (any scale). The
    area under the ROC curve is cut by the horizontal lines TPR = ``tpr_thresholds``; band k's
    area counts ``weights[k]`` times (0 leaves a band out), and the sum is divided by the
    weighted area of a perfect curve, sum_k weights[k] * (t_{k+1} - t_k). ALASKA2: thresholds
    [0, 0.4, 1], weights [2, 1] (the low-TPR band counts double). Flavours of Physics:
    thresholds [0, 0.2, 0.4, 0.6, 0.8, 1], weights [2, 1.5, 1, 0.5, 0], scored only on the
    rows whose answers column ``filter_column`` (``min_ANNmuon``) is above ``filter_above``
    (0.4). Tied scores are crossed diagonally.

    >>> round(weighted_auc_tpr([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8]), 6)
    1.0
    >>> round(weighted_auc_tpr([0, 1, 1, 0], [0.1, 0.9, 0.2, 0.8]), 6)
    0.821429
    >>> weighted_auc_tpr([0, 1, 1, 0], [0.1, 0.9, 0.2, 0.8], filter=[1, 1, 0, 1], filter_above=0.5)
    1.0
    """
    th, w = _bands(ALASKA_TPR_THRESHOLDS if tpr_thresholds is None else tpr_thresholds,
                   ALASKA_WEIGHTS if weights is None else weights)
    t, p = _pair(y_true, y_pred)
    keep = _kept_rows(filter, filter_above, t.size)
    if keep is not None:
        t, p = t[keep], p[keep]
    fpr, tpr = roc_points(binary_labels(t), p)
    total = sum(wk * band_area(fpr, tpr, lo, hi) for wk, lo, hi in zip(w, th[:-1], th[1:],
                                                                         strict=True))
    return float(np.clip(total / float(np.dot(np.diff(th), w)), 0.0, 1.0))


# --- balanced log loss --------------------------------------------------------------------------


@register(
    "balanced_log_loss",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="probability",
    defaults={"eps": 1e-15},
)
def balanced_log_loss(y_true: Any, y_pred: Any, eps: float = 1e-15) -> float:
    """Class-balanced log loss: the mean over classes of each class's mean -log p.

    ICR - Identifying Age-Related Conditions uses it with two classes.

    Lower is better; best 0.0 (a perfect prediction scores about 1e-15). Input: (rows,
    classes) one-hot truths and predicted probabilities in the same column order, or 1-D 0/1
    truths with the positive class's probability. Predictions are clipped to [eps, 1 - eps],
    then each row is divided by its sum; classes absent from the answers are left out, so
    every present class weighs the same whatever its size.

    >>> round(balanced_log_loss([[1, 0], [1, 0], [0, 1]], [[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]]), 6)
    0.284859
    """
    if isinstance(eps, bool) or not isinstance(eps, int | float) or not 0 < eps < 0.5:
        raise MetricParameterError(f"eps must be a number in (0, 0.5), got {eps!r}")
    t = as_float_2d(y_true, "y_true")
    p = as_float_2d(y_pred, "y_pred")
    same_shape(t, p)
    if t.shape[1] == 1:
        t, p = np.hstack([1.0 - t, t]), np.hstack([1.0 - p, p])
    if not (((t == 0) | (t == 1)).all() and (t.sum(axis=1) == 1).all()):
        raise TaskDataError("balanced_log_loss: every answers row must be one-hot (one class 1, "
                            "the others 0)")
    q = np.clip(p, eps, 1.0 - eps)
    q = q / q.sum(axis=1, keepdims=True)
    counts = t.sum(axis=0)
    present = counts > 0
    per_class = -(t * np.log(q)).sum(axis=0)[present] / counts[present]
    return finite(float(np.mean(per_class)), "balanced_log_loss")


# --- Jigsaw Unintended Bias -------------------------------------------------------------------


def _membership(identities: Any, n: int, threshold: float) -> np.ndarray:
    """(rows, identities) booleans: value >= threshold; empty cells and NaN mean "not
    mentioned" (most rows were never labelled for identities)."""
    arr = np.asarray(identities, dtype=object)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != n:
        raise MetricInputError(f"identities: expected {n} rows, got shape {arr.shape}")
    out = np.zeros(arr.shape, dtype=bool)
    for idx, v in np.ndenumerate(arr):
        if isinstance(v, str):
            v = v.strip()
            if not v:
                continue
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise TaskDataError(f"identities: {v!r} in row {idx[0] + 1} is not a number") from None
        out[idx] = x >= threshold  # NaN compares False: not mentioned
    return out


def power_mean(values: np.ndarray, p: float) -> float:
    """Generalised mean (mean of v**p)**(1/p); a zero with p < 0 gives 0 (the limit).

    >>> round(power_mean(np.array([0.9, 0.5]), -5), 4)
    0.5685
    """
    if p < 0 and (values <= 0).any():
        return 0.0
    return float(np.mean(values**p) ** (1.0 / p))


def _bias_aucs(tox: np.ndarray, scores: np.ndarray, member: np.ndarray,
               names: list[str]) -> np.ndarray:
    out = np.empty((member.shape[1], 3))
    for j in range(member.shape[1]):
        s = member[:, j]
        subsets = (s, (s & ~tox) | (~s & tox), (s & tox) | (~s & ~tox))
        for a, rows in enumerate(subsets):
            out[j, a] = binary_auc(tox[rows], scores[rows],
                                   what=f"identity {names[j]!r} ({('subgroup', 'BPSN', 'BNSP')[a]})")
    return out


@register(
    "jigsaw_bias_auc",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="probability",
    defaults={"identities_columns": JIGSAW_IDENTITIES, "power": -5.0,
              "weights": [0.25, 0.25, 0.25, 0.25], "threshold": 0.5},
)
def jigsaw_bias_auc(y_true: Any, y_pred: Any, identities: Any = None, power: float = -5.0,
                    weights: list[float] | None = None, threshold: float = 0.5) -> float:
    """Overall AUC combined with power means of per-identity bias AUCs (Jigsaw Unintended Bias).

    Higher is better; best 1.0. Input: 1-D toxicity truths (fractions; >= ``threshold`` is
    toxic), 1-D real scores (ranked as given, never thresholded) and ``identities``, the
    answers' identity columns named by ``identities_columns`` (>= ``threshold`` mentions the
    identity; empty or NaN does not). Per identity: the subgroup AUC (rows mentioning it), the
    BPSN AUC (non-toxic rows mentioning it with toxic rows that do not) and the BNSP AUC (toxic
    rows mentioning it with non-toxic rows that do not). Each of the three is combined over
    identities by the power mean with exponent ``power`` (-5); the score is weights[0] *
    overall AUC + sum_a weights[a] * M_p(a) (all 0.25). A subset lacking a class is bad task
    data.

    >>> ids = [[1], [1], [0], [0]]
    >>> jigsaw_bias_auc([0.9, 0.0, 0.6, 0.1], [0.8, 0.3, 0.7, 0.2], identities=ids)
    1.0
    """
    t, p = _pair(y_true, y_pred)
    w = np.asarray([0.25] * 4 if weights is None else weights, dtype=np.float64)
    if w.shape != (4,) or (w < 0).any() or not np.isclose(w.sum(), 1.0):
        raise MetricParameterError(f"weights: expected 4 non-negative numbers summing to 1, got {weights!r}")
    if not power < 0:
        raise MetricParameterError(f"power must be negative (the competition uses -5), got {power!r}")
    if identities is None:
        raise MetricInputError("jigsaw_bias_auc needs identities (the answers' identity columns)")
    tox = t >= threshold
    member = _membership(identities, t.size, threshold)
    names = [f"#{j + 1}" for j in range(member.shape[1])]
    bias = _bias_aucs(tox, p, member, names)
    overall = binary_auc(tox, p, what="toxicity")
    means = [power_mean(bias[:, a], power) for a in range(3)]
    return float(np.clip(w[0] * overall + float(np.dot(w[1:], means)), 0.0, 1.0))


# --- probabilistic F-beta -----------------------------------------------------------------------


@register(
    "probabilistic_f1",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="probability",
    defaults={"beta": 1.0},
)
def probabilistic_f1(y_true: Any, y_pred: Any, beta: float = 1.0) -> float:
    """Probabilistic F-beta: F-beta of probability mass instead of thresholded predictions.

    Higher is better; best 1.0. Input: 1-D 0/1 truths and 1-D probabilities (clipped to
    [0, 1]). pTP = sum of the probabilities of positive rows, pFP = that of negative rows;
    pPrecision = pTP / (pTP + pFP), pRecall = pTP / (number of positive rows); the score is
    (1 + b^2) pP pR / (b^2 pP + pR), and 0.0 when either is 0 (RSNA Screening Mammography,
    beta = 1). The answers need a positive row.

    >>> probabilistic_f1([1, 0, 1, 0], [1.0, 0.0, 0.5, 0.5])
    0.75
    """
    if not beta > 0:
        raise MetricParameterError(f"beta must be > 0, got {beta!r}")
    t, p = _pair(y_true, y_pred)
    pos = binary_labels(t)
    if not pos.any():
        raise TaskDataError("probabilistic_f1: the answers hold no positive row")
    q = np.clip(p, 0.0, 1.0)
    ptp = float(q[pos].sum())
    pfp = float(q[~pos].sum())
    if ptp <= 0:
        return 0.0
    precision = ptp / (ptp + pfp)
    recall = ptp / float(pos.sum())
    b2 = float(beta) ** 2
    return float((1 + b2) * precision * recall / (b2 * precision + recall))
