"""Classification metrics: labels, binary and multi-class probabilities, multi-label columns.

Inputs follow the calling contract of :mod:`tambench.core.metrics.base`: label kinds get
object arrays of ``str`` (compared exactly), probability kinds get float64 arrays, 1-D for one
target column and (rows, columns) for several. Binary truths are 0/1 numbers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tambench.core.metrics._common import (
    as_float_1d,
    as_float_2d,
    as_str_1d,
    binary_auc,
    binary_labels,
    choice,
    examples,
    finite,
    same_length,
    same_shape,
)
from tambench.core.metrics.base import register
from tambench.errors import (
    InvalidSubmissionError,
    MetricInputError,
    MetricParameterError,
    TaskDataError,
)

#: Kaggle's clipping bound for log losses.
LOG_LOSS_EPS = 1e-15


def _codes(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer codes of both label arrays over the union of their labels."""
    t = as_str_1d(y_true, "y_true")
    p = as_str_1d(y_pred, "y_pred")
    n = same_length(t, p)
    _, inverse = np.unique(np.concatenate([t, p]), return_inverse=True)
    n_classes = int(inverse.max()) + 1
    return inverse[:n], inverse[n:], n_classes


def _confusion(tc: np.ndarray, pc: np.ndarray, k: int) -> np.ndarray:
    """k x k confusion matrix, rows = true class, columns = predicted class."""
    return np.bincount(tc * k + pc, minlength=k * k).reshape(k, k).astype(np.float64)


def _per_class_f1(cm: np.ndarray) -> np.ndarray:
    tp = np.diag(cm)
    denom = cm.sum(axis=0) + cm.sum(axis=1)  # 2TP + FP + FN
    # Every class of the union occurs on one side at least, so denom > 0.
    return 2.0 * tp / denom


@register("accuracy", higher_is_better=True, value_range=(0.0, 1.0), kind="label")
def accuracy(y_true: Any, y_pred: Any) -> float:
    """Share of rows whose predicted label equals the true label exactly.

    Higher is better; best 1.0. Input: two 1-D arrays of labels, compared as strings.

    >>> accuracy(["a", "b", "c"], ["a", "b", "x"])
    0.6666666666666666
    """
    t = as_str_1d(y_true, "y_true")
    p = as_str_1d(y_pred, "y_pred")
    same_length(t, p)
    return float(np.mean(t == p))


@register("exact_match", higher_is_better=True, value_range=(0.0, 1.0), kind="text")
def exact_match(y_true: Any, y_pred: Any) -> float:
    """Share of rows whose predicted text equals the true text exactly (free-text accuracy).

    Higher is better; best 1.0. Input: two 1-D arrays of strings. The same number as
    ``accuracy``, but of kind ``text``: any string is a valid prediction, so validation does
    not restrict predictions to the labels seen in the answers (text normalisation, answers
    to questions).

    >>> exact_match(["twenty one", "a"], ["twenty one", "b"])
    0.5
    """
    return accuracy(y_true, y_pred)


def _macro_recall(tc: np.ndarray, pc: np.ndarray, k: int, union: bool) -> float:
    cm = _confusion(tc, pc, k)
    support = cm.sum(axis=1)
    scored = (support > 0) | (union & (cm.sum(axis=0) > 0))
    return float(np.sum(np.diag(cm)[support > 0] / support[support > 0]) / np.count_nonzero(scored))


def _group_weights(names: np.ndarray, group_weights: Any) -> np.ndarray:
    if group_weights is None:
        return np.ones(names.size)
    ok = isinstance(group_weights, dict) and all(
        isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < math.inf
        for v in group_weights.values())
    if not ok:
        raise MetricParameterError(f"group_weights must map group names to weights >= 0, got "
                                   f"{group_weights!r}")
    unknown = sum(1 for g in names if g not in group_weights)
    if unknown:
        raise TaskDataError(f"balanced_accuracy: {unknown} answers group(s) have no weight in "
                            f"group_weights (it lists {sorted(group_weights)})")
    return np.array([float(group_weights[g]) for g in names])


@register("balanced_accuracy", higher_is_better=True, value_range=(0.0, 1.0), kind="label",
          defaults={"classes": "true", "groups_column": None, "group_weights": None})
def balanced_accuracy(y_true: Any, y_pred: Any, classes: str = "true", groups: Any = None,
                      group_weights: Any = None) -> float:
    """Mean over the true classes of the share of their rows predicted correctly (recall).

    Higher is better; best 1.0. Input: two 1-D arrays of labels. ``classes="true"`` (default):
    labels that occur only in the predictions count as errors of the rows that received them,
    not as classes. ``classes="union"`` is scikit-learn's ``recall_score(average="macro")``:
    such a label is a class of recall 0. With ``groups`` (answers column ``groups_column``)
    the macro recall is taken within each group and the groups are averaged, weighted by
    ``group_weights`` (group name -> weight; default equal). Bengali.AI: groups grapheme_root,
    vowel_diacritic, consonant_diacritic weighted 2, 1, 1, ``classes="union"``.

    >>> balanced_accuracy(["a", "a", "a", "b"], ["a", "a", "b", "b"])  # (2/3 + 1) / 2
    0.8333333333333333
    >>> balanced_accuracy(["a", "b"], ["a", "c"], classes="union")  # (1 + 0 + 0) / 3
    0.3333333333333333
    >>> balanced_accuracy(["a", "b", "x", "y"], ["a", "a", "x", "y"], groups=["g", "g", "h", "h"],
    ...                   group_weights={"g": 2, "h": 1})  # (2 * 0.5 + 1 * 1) / 3
    0.6666666666666666
    """
    union = choice(classes, "classes", ("true", "union")) == "union"
    tc, pc, k = _codes(y_true, y_pred)
    if groups is None:
        return _macro_recall(tc, pc, k, union)
    g = as_str_1d(groups, "groups")
    if g.size != tc.size:
        raise MetricInputError(f"groups: expected {tc.size} values, got {g.size}")
    names, index = np.unique(g, return_inverse=True)
    w = _group_weights(names, group_weights)
    if not w.sum() > 0:
        raise TaskDataError("balanced_accuracy: the answers' groups have a total weight of 0")
    order = np.argsort(index, kind="stable")
    cuts = np.flatnonzero(np.diff(index[order])) + 1
    recalls = np.array([_macro_recall(tc[rows], pc[rows], k, union)
                        for rows in np.split(order, cuts)])
    return float(np.dot(w, recalls) / w.sum())


@register("roc_auc", higher_is_better=True, value_range=(0.0, 1.0), kind="probability")
def roc_auc(y_true: Any, y_pred: Any) -> float:
    """Area under the ROC curve of a binary target, exact with ties (a tie counts one half).

    Higher is better; best 1.0 (0.5 is chance). Input: 1-D 0/1 truths and 1-D real scores
    (any monotone score works, not only probabilities). The answers must hold both classes.

    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    t = as_float_1d(y_true, "y_true")
    p = as_float_1d(y_pred, "y_pred")
    same_length(t, p)
    return binary_auc(binary_labels(t), p)


@register("roc_auc_columnwise", higher_is_better=True, value_range=(0.0, 1.0), kind="probability")
def roc_auc_columnwise(y_true: Any, y_pred: Any) -> float:
    """Mean over target columns of each column's binary ROC-AUC.

    Higher is better; best 1.0. Input: (rows, columns) 0/1 truths and scores. Every column of
    the answers must hold both classes (see ``roc_auc_macro_multilabel`` to skip those that
    do not).

    >>> roc_auc_columnwise([[0, 1], [1, 0], [1, 1]], [[0.2, 0.9], [0.7, 0.5], [0.6, 0.3]])
    0.75
    """
    t = as_float_2d(y_true, "y_true")
    p = as_float_2d(y_pred, "y_pred")
    same_shape(t, p)
    return float(
        np.mean([
            binary_auc(binary_labels(t[:, j]), p[:, j], what=f"y_true column {j}")
            for j in range(t.shape[1])
        ])
    )


@register(
    "roc_auc_macro_multilabel", higher_is_better=True, value_range=(0.0, 1.0), kind="probability"
)
def roc_auc_macro_multilabel(y_true: Any, y_pred: Any) -> float:
    """Macro ROC-AUC over the labels of a multi-label target, skipping single-class labels.

    Higher is better; best 1.0. Input: (rows, labels) 0/1 indicator truths and scores. A label
    column whose answers are all 0 (or all 1) has no defined AUC and is left out of the mean,
    as multi-label graders do when rare labels are absent from the test set; at least one label
    must have both classes.

    >>> roc_auc_macro_multilabel([[0, 0], [1, 0], [1, 0]], [[0.2, 0.9], [0.7, 0.1], [0.6, 0.3]])
    1.0
    """
    t = as_float_2d(y_true, "y_true")
    p = as_float_2d(y_pred, "y_pred")
    same_shape(t, p)
    aucs = []
    for j in range(t.shape[1]):
        pos = binary_labels(t[:, j], f"y_true column {j}")
        if pos.any() and not pos.all():
            aucs.append(binary_auc(pos, p[:, j]))
    if not aucs:
        raise TaskDataError("no label column of the answers holds both classes; AUC undefined")
    return float(np.mean(aucs))


@register(
    "log_loss",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="probability",
    defaults={"eps": LOG_LOSS_EPS},
)
def log_loss(y_true: Any, y_pred: Any, eps: float = LOG_LOSS_EPS) -> float:
    """Binary log loss (cross-entropy), predictions clipped to [eps, 1 - eps] (Kaggle).

    Lower is better; best 0.0 (a perfect 0/1 prediction scores about 1e-15 after clipping).
    Input: 1-D truths in [0, 1] (0/1 labels) and 1-D probabilities of the positive class.

    >>> round(log_loss([1, 0], [0.8, 0.4]), 6)
    0.366985
    """
    t = as_float_1d(y_true, "y_true", check_finite=False)
    p = np.clip(as_float_1d(y_pred, "y_pred", check_finite=False), eps, 1.0 - eps)
    same_length(t, p)
    return finite(-np.mean(t * np.log(p) + (1.0 - t) * np.log1p(-p)), "log_loss")


@register(
    "multiclass_log_loss",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="probability",
    defaults={"eps": LOG_LOSS_EPS, "renormalize": True},
)
def multiclass_log_loss(
    y_true: Any, y_pred: Any, eps: float = LOG_LOSS_EPS, renormalize: bool = True
) -> float:
    """Multi-class log loss, Kaggle's convention: clip to [eps, 1 - eps], then rescale rows.

    Lower is better; best 0.0 (a perfect one-hot prediction scores about n_classes * 1e-15).
    Input: (rows, classes) truths (one-hot, or class probabilities) and predicted
    probabilities in the same column order. ``renormalize=False`` skips the row rescaling, so
    rows that do not sum to 1 are scored as given.

    >>> round(multiclass_log_loss([[1, 0, 0], [0, 1, 0]], [[0.5, 0.25, 0.25], [2, 1, 1]]), 6)
    0.89588
    """
    # NaN/inf in either input reaches the sum, so the result check below covers them.
    t = as_float_2d(y_true, "y_true", check_finite=False)
    p = as_float_2d(y_pred, "y_pred", check_finite=False)
    same_shape(t, p)
    if t.shape[1] < 2:
        raise MetricInputError(f"multiclass_log_loss needs >= 2 class columns, got {t.shape[1]}")
    if not (eps <= float(p.min()) and float(p.max()) <= 1.0 - eps):  # NaN lands here too
        p = np.clip(p, eps, 1.0 - eps)  # a copy only when some value needs clipping
    # Only cells with true mass enter the sum: rescale and take logs of those alone. The scan
    # follows memory order (the grader's matrices are column-major); a boolean mask first is
    # faster than nonzero on floats. NaN != 0, so a NaN truth is kept and fails the result check.
    if t.flags.f_contiguous and not t.flags.c_contiguous:
        cols, rows = np.nonzero(t.T != 0)
    else:
        rows, cols = np.nonzero(t != 0)
    picked = p[rows, cols]
    if renormalize:
        picked = picked / p.sum(axis=1)[rows]
    return finite(-np.sum(t[rows, cols] * np.log(picked)) / t.shape[0], "multiclass_log_loss")


def _cell_weights(weights: Any, n_columns: int, labels: np.ndarray | None,
                  name: str) -> np.ndarray | None:
    """Per-column (wide form) or per-row (long form, by label) weights; None for equal."""
    if weights is None:
        return None
    if labels is None:
        w = np.asarray(weights, dtype=np.float64) if not isinstance(weights, dict) else None
        if w is None or w.shape != (n_columns,) or not np.isfinite(w).all() or (w < 0).any():
            raise MetricParameterError(
                f"{name}: expected {n_columns} non-negative numbers (one per column), got {weights!r}"
            )
        return w
    if not isinstance(weights, dict):
        raise MetricParameterError(f"{name}: with labels_column, expected a mapping "
                                   f"{{label: weight}}, got {weights!r}")
    missing = sorted({str(x) for x in labels} - {str(k) for k in weights})
    if missing:
        raise MetricParameterError(f"{name} has no weight for label(s) {examples(set(missing))}")
    table = {str(k): float(v) for k, v in weights.items()}
    if any(not math.isfinite(v) or v < 0 for v in table.values()):
        raise MetricParameterError(f"{name}: weights must be finite and >= 0, got {weights!r}")
    return np.array([table[str(x)] for x in labels], dtype=np.float64)


def _weighted_mean(loss: np.ndarray, w: np.ndarray, groups: Any) -> float:
    """sum(w * loss) / sum(w), or that ratio per group averaged over groups."""
    if groups is None:
        total = float(w.sum())
        if total <= 0:
            raise MetricParameterError("the weights of the scored cells sum to 0")
        return float(np.sum(w * loss) / total)
    g = as_str_1d(groups, "groups")
    if g.shape[0] != loss.shape[0]:
        raise MetricInputError(f"groups: expected {loss.shape[0]} values, got {g.shape[0]}")
    _, inverse = np.unique(g, return_inverse=True)
    k = int(inverse.max()) + 1
    num = np.bincount(inverse, weights=np.sum(w * loss, axis=1), minlength=k)
    den = np.bincount(inverse, weights=np.sum(w, axis=1), minlength=k)
    if (den <= 0).any():
        raise MetricParameterError("the weights of some group's cells sum to 0")
    return float(np.mean(num / den))


@register(
    "weighted_multilabel_log_loss",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="probability",
    defaults={"weights": None, "positive_weights": None, "eps": LOG_LOSS_EPS,
              "labels_column": None, "groups_column": None},
)
def weighted_multilabel_log_loss(
    y_true: Any, y_pred: Any, weights: Any = None, positive_weights: Any = None,
    eps: float = LOG_LOSS_EPS, labels: Any = None, groups: Any = None,
) -> float:
    """Weighted mean of binary log losses, each cell weighted by its label and its truth.

    Lower is better; best 0.0 (about 1e-15 after clipping). Input, wide form: (rows, labels)
    0/1 truths and probabilities, ``weights`` one non-negative number per column (default:
    equal). Long form (``labels_column`` names an answers column giving each row's label, as
    in RSNA 2022 Cervical Spine, one row per exam and vertebra): 1-D truths and probabilities,
    ``weights`` a mapping {label: weight}. ``positive_weights`` (same shape as ``weights``)
    replaces the weight of cells whose truth is 1. Predictions are clipped to [eps, 1 - eps];
    the loss is sum(w * logloss) / sum(w) over every cell; with ``groups_column`` (e.g. the
    exam), that ratio is taken per group and averaged over groups. RSNA 2022: weights
    {C1..C7: 1, patient_overall: 7}, positive_weights {C1..C7: 2, patient_overall: 14}.

    >>> round(weighted_multilabel_log_loss([[1, 0], [0, 0]], [[0.9, 0.2], [0.2, 0.1]], [3, 1]), 6)
    0.164252
    >>> round(weighted_multilabel_log_loss([1, 0], [0.9, 0.2], weights={"C1": 1, "any": 7},
    ...       positive_weights={"C1": 2, "any": 14}, labels=["C1", "any"]), 6)
    0.19697
    """
    long_form = labels is not None
    t = as_float_2d(y_true, "y_true") if not long_form else as_float_1d(y_true, "y_true")[:, None]
    p = as_float_2d(y_pred, "y_pred") if not long_form else as_float_1d(y_pred, "y_pred")[:, None]
    same_shape(t, p)
    lab = as_str_1d(labels, "labels") if long_form else None
    if lab is not None and lab.shape[0] != t.shape[0]:
        raise MetricInputError(f"labels: expected {t.shape[0]} values, got {lab.shape[0]}")
    p = np.clip(p, eps, 1.0 - eps)
    loss = -(t * np.log(p) + (1.0 - t) * np.log1p(-p))
    w_neg = _cell_weights(weights, t.shape[1], lab, "weights")
    w_pos = _cell_weights(positive_weights, t.shape[1], lab, "positive_weights")
    ones = np.ones(t.shape[1] if lab is None else t.shape[0])
    neg = ones if w_neg is None else w_neg
    pos = neg if w_pos is None else w_pos
    shape = (1, -1) if lab is None else (-1, 1)
    w = t * pos.reshape(shape) + (1.0 - t) * neg.reshape(shape)
    return _weighted_mean(loss, w, groups)


# Rows are distributions: per the evaluation page of hms-harmful-brain-activity-classification,
# a submission whose predicted rows do not each sum to one fails (MLE-bench refuses them too).
@register("kl_divergence", higher_is_better=False, value_range=(0.0, math.inf),
          kind="probability", defaults={"eps": LOG_LOSS_EPS}, rows_are_distributions=True)
def kl_divergence(y_true: Any, y_pred: Any, eps: float = LOG_LOSS_EPS) -> float:
    """Mean over rows of KL(true row || predicted row), predictions clipped below at eps.

    Lower is better; best 0.0. Input: (rows, classes) true distributions (rows summing to 1)
    and predicted distributions; terms with a zero true probability contribute 0.

    >>> round(kl_divergence([[0.5, 0.5], [1.0, 0.0]], [[0.5, 0.5], [0.5, 0.5]]), 6)
    0.346574
    """
    t = as_float_2d(y_true, "y_true")
    p = np.clip(as_float_2d(y_pred, "y_pred"), eps, None)
    same_shape(t, p)
    hit = t > 0
    return float(np.sum(t[hit] * np.log(t[hit] / p[hit])) / t.shape[0])


def _binary_counts(y_true: Any, y_pred: Any, pos_label: str) -> tuple[float, float, float]:
    t = as_str_1d(y_true, "y_true") == str(pos_label)
    p = as_str_1d(y_pred, "y_pred") == str(pos_label)
    same_length(t, p)
    tp = float(np.sum(t & p))
    return tp, float(np.sum(~t & p)), float(np.sum(t & ~p))


@register(
    "fbeta",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="label",
    defaults={"beta": 1.0, "pos_label": "1"},
)
def fbeta(y_true: Any, y_pred: Any, beta: float = 1.0, pos_label: str = "1") -> float:
    """F-beta score of the positive class: (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP).

    Higher is better; best 1.0. Input: two 1-D label arrays; ``pos_label`` (compared as a
    string, default "1") is the positive class, every other label negative; ``beta``
    defaults to 1. When neither side has a
    positive the prediction is perfect and scores 1.0 (scikit-learn's ``zero_division=1``).

    >>> round(fbeta(["1", "1", "0", "0"], ["1", "0", "1", "0"], beta=0.5), 6)
    0.5
    """
    if not beta > 0:
        raise MetricParameterError(f"beta must be > 0, got {beta!r}")
    tp, fp, fn = _binary_counts(y_true, y_pred, pos_label)
    b2 = float(beta) ** 2
    denom = (1.0 + b2) * tp + b2 * fn + fp
    return 1.0 if denom == 0 else float((1.0 + b2) * tp / denom)


@register(
    "f1", higher_is_better=True, value_range=(0.0, 1.0), kind="label", defaults={"pos_label": "1"}
)
def f1(y_true: Any, y_pred: Any, pos_label: str = "1") -> float:
    """Binary F1 of the positive class: 2 TP / (2 TP + FP + FN).

    Higher is better; best 1.0. Input: two 1-D label arrays; ``pos_label`` is the positive
    class. No positive on either side scores 1.0.

    >>> f1(["1", "1", "0"], ["1", "0", "0"])
    0.6666666666666666
    """
    return fbeta(y_true, y_pred, beta=1.0, pos_label=pos_label)


@register("f1_micro", higher_is_better=True, value_range=(0.0, 1.0), kind="label")
def f1_micro(y_true: Any, y_pred: Any) -> float:
    """Micro-averaged F1 over all classes (equals accuracy for one label per row).

    Higher is better; best 1.0. Input: two 1-D label arrays.

    >>> f1_micro(["a", "b", "c", "a"], ["a", "b", "a", "a"])
    0.75
    """
    tc, pc, k = _codes(y_true, y_pred)
    cm = _confusion(tc, pc, k)
    tp = np.trace(cm)
    return float(2.0 * tp / (cm.sum(axis=0).sum() + cm.sum(axis=1).sum()))


@register("f1_macro", higher_is_better=True, value_range=(0.0, 1.0), kind="label")
def f1_macro(y_true: Any, y_pred: Any) -> float:
    """Unweighted mean of per-class F1 over every label seen in the truths or predictions.

    Higher is better; best 1.0. Input: two 1-D label arrays.

    >>> round(f1_macro(["a", "b", "c", "a"], ["a", "b", "a", "a"]), 6)
    0.6
    """
    tc, pc, k = _codes(y_true, y_pred)
    return float(np.mean(_per_class_f1(_confusion(tc, pc, k))))


@register("f1_weighted", higher_is_better=True, value_range=(0.0, 1.0), kind="label")
def f1_weighted(y_true: Any, y_pred: Any) -> float:
    """Mean of per-class F1 weighted by each class's number of true rows.

    Higher is better; best 1.0. Input: two 1-D label arrays.

    >>> round(f1_weighted(["a", "b", "c", "a"], ["a", "b", "a", "a"]), 6)
    0.65
    """
    tc, pc, k = _codes(y_true, y_pred)
    cm = _confusion(tc, pc, k)
    support = cm.sum(axis=1)
    return float(np.sum(_per_class_f1(cm) * support) / support.sum())


@register("mcc", higher_is_better=True, value_range=(-1.0, 1.0), kind="label")
def mcc(y_true: Any, y_pred: Any) -> float:
    """Matthews correlation coefficient (binary or its multi-class generalisation).

    Higher is better; best 1.0, chance 0.0, worst -1.0. Input: two 1-D label arrays (any
    strings, e.g. ``e``/``p``). Defined values where the formula divides by zero: identical
    truths and predictions score 1.0; otherwise a constant prediction (or constant truth)
    scores 0.0, never NaN.

    >>> round(mcc(["e", "e", "p", "p"], ["e", "p", "p", "p"]), 6)
    0.57735
    """
    tc, pc, k = _codes(y_true, y_pred)
    if np.array_equal(tc, pc):
        return 1.0
    cm = _confusion(tc, pc, k)
    t_sum = cm.sum(axis=1)
    p_sum = cm.sum(axis=0)
    n = cm.sum()
    cov_tp = np.trace(cm) * n - float(t_sum @ p_sum)
    cov_pp = n * n - float(p_sum @ p_sum)
    cov_tt = n * n - float(t_sum @ t_sum)
    if cov_pp == 0 or cov_tt == 0:
        return 0.0
    return float(np.clip(cov_tp / math.sqrt(cov_pp * cov_tt), -1.0, 1.0))


def _ratings(values: np.ndarray, side: str) -> np.ndarray:
    """Integer ratings from label strings such as "3" or "3.0"."""
    try:
        f = np.array([float(v) for v in values], dtype=np.float64)
    except ValueError:
        bad = {v for v in values if not _is_number(v)}
        msg = f"qwk needs integer ratings; {side} has non-numeric labels {examples(bad)}"
        if side == "y_pred":
            raise InvalidSubmissionError(msg) from None
        raise MetricInputError(msg) from None
    if not (np.isfinite(f).all() and np.array_equal(f, np.round(f))):
        bad = {v for v, x in zip(values, f, strict=True) if not (math.isfinite(x) and x == round(x))}
        msg = f"qwk needs integer ratings; {side} has {examples(bad)}"
        if side == "y_pred":
            raise InvalidSubmissionError(msg)
        raise MetricInputError(msg)
    return f.astype(np.int64)


def _is_number(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


@register(
    "qwk",
    higher_is_better=True,
    value_range=(-1.0, 1.0),
    kind="label",
    defaults={"min_rating": None, "max_rating": None},
)
def qwk(
    y_true: Any, y_pred: Any, min_rating: int | None = None, max_rating: int | None = None
) -> float:
    """Quadratic weighted kappa between integer ratings (Kaggle's definition).

    Higher is better; best 1.0, chance 0.0. Input: two 1-D label arrays of integer ratings.
    Weights are (i - j)^2 / (K - 1)^2 over every integer rating from ``min_rating`` to
    ``max_rating`` (default: the smallest and largest rating seen on either side), so ratings
    absent from both sides still set the distance scale. When the expected disagreement is
    zero (every rating on both sides is the same value) the agreement is perfect: 1.0.

    >>> round(qwk(["0", "1", "2", "3"], ["0", "1", "3", "3"]), 6)
    0.916667
    """
    t = _ratings(as_str_1d(y_true, "y_true"), "y_true")
    p = _ratings(as_str_1d(y_pred, "y_pred"), "y_pred")
    same_length(t, p)
    lo = int(min(t.min(), p.min())) if min_rating is None else int(min_rating)
    hi = int(max(t.max(), p.max())) if max_rating is None else int(max_rating)
    if t.min() < lo or p.min() < lo or t.max() > hi or p.max() > hi:
        raise MetricParameterError(
            f"ratings must lie in [min_rating, max_rating] = [{lo}, {hi}], "
            f"got values from {int(min(t.min(), p.min()))} to {int(max(t.max(), p.max()))}"
        )
    k = hi - lo + 1
    observed = _confusion(t - lo, p - lo, k)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    idx = np.arange(k, dtype=np.float64)
    weights = (idx[:, None] - idx[None, :]) ** 2
    denom = float(np.sum(weights * expected))
    if denom == 0:
        return 1.0
    return float(1.0 - np.sum(weights * observed) / denom)


@register("top1_error", higher_is_better=False, value_range=(0.0, 1.0), kind="ranking")
def top1_error(y_true: Any, y_pred: Any) -> float:
    """Share of rows whose first predicted label is not the true label.

    Lower is better; best 0.0. Input: 1-D true labels and 1-D predictions, each either one
    label or a space-separated ranking of labels of which only the first counts.

    >>> top1_error(["cat", "dog"], ["cat dog", "cat dog"])
    0.5
    """
    t = as_str_1d(y_true, "y_true")
    p = as_str_1d(y_pred, "y_pred")
    n = same_length(t, p)
    first = [(s.split(maxsplit=1) or [""])[0] for s in p]
    wrong = sum(1 for a, b in zip(t, first, strict=True) if a.strip() != b)
    return wrong / n
