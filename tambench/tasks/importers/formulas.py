"""Recognising the metric a grader computes, from the term :mod:`.pycode` read.

:func:`recognise` returns a :class:`CodeMetric`: the metric id the formula computes (an id in
the registry, or one of :data:`UNREGISTERED` ids when the formula is a known metric tambench
does not compute), the parameters the code fixes (``k`` of a ``[:k]``, the beta of an F-beta,
thresholds and weights), the factor the result is scaled by (``* 100``), and the formula in
words. Anything not recognised is ``None``: a grader read without a recognised formula
confirms nothing and contradicts nothing.

Recognised: library metrics (``sklearn.metrics``, ``scipy.stats``, ``Levenshtein``) and the
formulas written out in graders: squared, absolute and logarithmic errors and their roots,
column-wise means, accuracy and error rates, log losses, SMAPE, RMSPE, weighted MAE, Gini,
Kendall tau from inversions, per-row set F1 / Jaccard / Dice / F-beta, reciprocal-rank MAP@k
and NDCG@k, KL divergence, angular error, the Laplace log likelihood, percentile haversine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tambench.tasks.importers.pycode import GraderSource
from tambench.tasks.importers.pyterms import DATA, Term

#: Library function (last dotted part) -> metric id, for calls without telling keywords.
LIBRARY = {
    "accuracy_score": "accuracy", "roc_auc_score": "roc_auc", "r2_score": "r2",
    "mean_absolute_error": "mae", "mean_squared_error": "mse",
    "root_mean_squared_error": "rmse", "mean_squared_log_error": "msle",
    "root_mean_squared_log_error": "rmsle", "median_absolute_error": "median_absolute_error",
    "matthews_corrcoef": "mcc", "balanced_accuracy_score": "balanced_accuracy",
    "spearmanr": "spearman", "pearsonr": "pearson", "kendalltau": "kendall_tau",
    "label_ranking_average_precision_score": "label_ranking_average_precision",
    "distance": "levenshtein", "mean_absolute_percentage_error": "mape",
}
#: Metric -> the metric of its mean over columns.
COLUMNWISE = {"rmse": "mcrmse", "rmsle": "rmsle_columnwise", "roc_auc": "roc_auc_columnwise",
              "spearman": "spearman_columnwise", "r2": "r2_mean_columnwise",
              "mae": "mae_columnwise", "log_loss": "log_loss_columnwise",
              "average_precision": "average_precision_columnwise"}
#: Ids a grader's formula may be recognised as that name no metric tambench has or is adding:
#: a reading of one of them can show a departure from a published rule, never grade. (Other
#: ids recognised are registered, or being added under that id: normalized_gini, ndcg_at_k,
#: rmspe, weighted_mae, balanced_log_loss, median_absolute_error, spearman_orders.)
UNREGISTERED = frozenset({
    "msle", "mae_columnwise", "log_loss_columnwise", "average_precision_columnwise",
    "levenshtein", "cohen_kappa", "linear_kappa", "recall_macro", "dice_hausdorff_2d",
})


@dataclass(frozen=True)
class CodeMetric:
    """What a grader's formula computes."""

    metric: str
    formula: str
    params: dict[str, Any] = field(default_factory=dict)
    scale: float = 1.0
    """Factor the grader multiplies the metric by (100 for a percentage)."""


Rule = Callable[[Term, GraderSource], "CodeMetric | None"]


def _has(term: Any, head: str) -> bool:
    """Whether an operation named ``head`` occurs anywhere in ``term``."""
    if isinstance(term, tuple):
        if term and term[0] == head:
            return True
        return any(_has(t, head) for t in term[1:])
    return False


def _calls(term: Any) -> set[str]:
    """Last dotted parts of every library call in ``term``."""
    out: set[str] = set()
    if isinstance(term, tuple) and term:
        if term[0] == "call":
            out.add(str(term[1]).rsplit(".", 1)[-1])
        for t in term[1:]:
            out |= _calls(t)
    return out


def _plain(term: Term) -> bool:
    """A data value, not an arithmetic result."""
    if term == DATA:
        return True
    if term[0] in ("item", "attr"):
        return _plain(term[2])
    if term[0] == "each":
        return _plain(term[2])
    return term[0] in ("call",) and str(term[1]).endswith("argmax")


def _kw(term: Term, key: str) -> Any:
    for k, v in term[3]:
        if k == key:
            return v[1] if v[0] in ("str", "num") else v
    return None


def _unscale(term: Term) -> tuple[Term, float]:
    """``x * c``, ``c * x`` and ``c / len * sum(x)`` -> (x, c)."""
    if term[0] == "mul":
        a, b = term[1], term[2]
        if b[0] == "num":
            return a, float(b[1])
        if a[0] == "num":
            return b, float(a[1])
        if a[0] == "div" and a[1][0] == "num" and a[2][0] == "len" and b[0] == "sum":
            return ("mean", b[1]), float(a[1][1])
    return term, 1.0


# --- library calls -------------------------------------------------------------------------

def library_metric(term: Term, g: GraderSource) -> CodeMetric | None:
    """A library metric called directly (or its first returned value)."""
    if term[0] == "item" and term[1] == 0:
        term = term[2]
    if term[0] != "call":
        return None
    name = str(term[1]).rsplit(".", 1)[-1]
    special = _LIBRARY_SPECIAL.get(name)
    if special is not None:
        return special(term)
    if name in LIBRARY:
        return CodeMetric(LIBRARY[name], f"{term[1]}(...)")
    return None


def _f1(term: Term) -> CodeMetric:
    average = _kw(term, "average") or "binary"
    multilabel = any(a[0] == "each" and a[2][0] == "each" for a in term[2])
    metric = {"macro": "f1_macro", "micro": "f1_micro_multilabel" if multilabel else "f1_micro",
              "weighted": "f1_weighted", "samples": "rowwise_set_f1", "binary": "f1"}
    return CodeMetric(metric.get(str(average), "f1"), f"f1_score(average={average!r})")


def _roc_auc(term: Term) -> CodeMetric:
    if _kw(term, "average") is not None:
        return CodeMetric("roc_auc_columnwise", "roc_auc_score over several columns "
                          f"(average={_kw(term, 'average')!r})")
    return CodeMetric("roc_auc", "roc_auc_score(...)")


def _log_loss(term: Term) -> CodeMetric:
    labels = term[2][0] if term[2] else DATA
    if _kw(term, "labels") is not None or (labels[0] == "call" and "argmax" in labels[1]):
        return CodeMetric("multiclass_log_loss", "log_loss over class probability columns")
    return CodeMetric("log_loss", "log_loss(...)")


def _kappa(term: Term) -> CodeMetric:
    weights = _kw(term, "weights")
    metric = {"quadratic": "qwk", "linear": "linear_kappa"}.get(str(weights), "cohen_kappa")
    return CodeMetric(metric, f"cohen_kappa_score(weights={weights!r})")


def _mse(term: Term) -> CodeMetric:
    if _kw(term, "squared") == 0.0:
        return CodeMetric("rmse", "mean_squared_error(squared=False)")
    return CodeMetric("mse", "mean_squared_error(...)")


def _recall(term: Term) -> CodeMetric | None:
    if _kw(term, "average") == "macro":
        return CodeMetric("recall_macro", "recall_score(average='macro')")
    return None


def _auc(term: Term) -> CodeMetric | None:
    if "roc_curve" in _calls(term[2]):
        return CodeMetric("roc_auc", "auc(roc_curve(...))")
    return None


_LIBRARY_SPECIAL: dict[str, Callable[[Term], CodeMetric | None]] = {
    "f1_score": _f1, "roc_auc_score": _roc_auc, "log_loss": _log_loss,
    "cohen_kappa_score": _kappa, "mean_squared_error": _mse, "recall_score": _recall,
    "auc": _auc,
}


# --- written-out formulas ------------------------------------------------------------------

def squared_error(term: Term, g: GraderSource) -> CodeMetric | None:
    """mean((a - b)^2), its root, on logs (log1p) or relative to the truth."""
    root = term[0] == "sqrt"
    inner = term[1] if root else term
    if inner[0] == "call":
        found = library_metric(inner, g)
        if found and root and found.metric in ("mse", "msle"):
            return CodeMetric("rmse" if found.metric == "mse" else "rmsle",
                              f"sqrt({found.formula})")
        return None
    if inner[0] != "mean":
        return None
    body = inner[1][2] if inner[1][0] == "each" else inner[1]
    if body[0] != "sq":
        return None
    diff = body[1]
    if diff[0] == "div" and diff[1][0] == "sub" and root:
        return CodeMetric("rmspe", "sqrt(mean(((a - b) / a)^2))")
    if diff[0] != "sub":
        return None
    a, b = diff[1], diff[2]
    if a[0] == b[0] == "log1p" and _plain(a[1]) and _plain(b[1]):
        return CodeMetric("rmsle" if root else "msle", f"{'sqrt(' if root else ''}mean((log1p(a)"
                          f" - log1p(b))^2){')' if root else ''}")
    if _plain(a) and _plain(b):
        return CodeMetric("rmse" if root else "mse",
                          f"{'sqrt(' if root else ''}mean((a - b)^2){')' if root else ''}")
    return None


def absolute_error(term: Term, g: GraderSource) -> CodeMetric | None:
    """mean(|a - b|), and its weighted forms sum(w |a - b|) / sum(w) or / n."""
    if term[0] == "mean" and term[1][0] == "abs" and term[1][1][0] == "sub":
        return CodeMetric("mae", "mean(|a - b|)")
    if term[0] == "mean" and term[1][0] == "mul" and _has(term[1], "abs"):
        return CodeMetric("weighted_mae", "mean(w * |a - b|)",
                          {"divide_by": "n", **_weight_columns(g)})
    if term[0] == "div" and term[1][0] == "sum" and term[1][1][0] == "mul" and \
            _has(term[1][1], "abs") and term[2][0] == "sum":
        return CodeMetric("weighted_mae", "sum(w * |a - b|) / sum(w)", _weight_columns(g))
    return None


def _weight_columns(g: GraderSource) -> dict[str, Any]:
    """The answers column weights come from, with its value -> weight map, when the grader
    maps a boolean column to two literal weights."""
    found = [f for f in g.facts if f[0] == "column_map"]
    if len(found) != 1:
        return {}
    return {"weights_column": found[0][1], "weight_map": found[0][2]}


def columnwise(term: Term, g: GraderSource) -> CodeMetric | None:
    """The mean over columns of a per-column metric (also ``(m(c1) + m(c2)) / 2``)."""
    per: Term | None = None
    if term[0] == "mean" and term[1][0] == "each" and term[1][1] == "col":
        per = term[1][2]
    elif term[0] == "div" and term[2][0] == "num" and term[1][0] == "add" and \
            term[1][1] == term[1][2] and float(term[2][1]) == 2.0:
        per = term[1][1]
    if per is None:
        return None
    inner = recognise(per, g)
    if inner is None or inner.metric not in COLUMNWISE:
        return None
    return CodeMetric(COLUMNWISE[inner.metric], f"mean over columns of {inner.formula}")


def rowwise(term: Term, g: GraderSource) -> CodeMetric | None:
    """The mean over rows (or groups) of a per-row score."""
    if not (term[0] == "mean" and term[1][0] == "each" and term[1][1] in ("row", "loop",
                                                                         "group")):
        return None
    kind, per = term[1][1], term[1][2]
    if kind == "group":
        if per[0] == "log" and per[1][0] == "mean" and per[1][1][0] == "abs":
            groups = {"groups_column": g.group_columns[0]} if g.group_columns else {}
            return CodeMetric("mean_log_mae", "mean over groups of log(mean(|a - b|))", groups)
        if per[0] == "div" and per[1][0] == "add" and per[1][1][0] == per[1][2][0] == "pct" and \
                {per[1][1][2], per[1][2][2]} == {("num", 50.0), ("num", 95.0)} and \
                {"sin", "cos"} <= _module_calls(g):
            groups = {"groups_column": g.group_columns[0]} if g.group_columns else {}
            return CodeMetric("haversine_p50_p95", "mean over groups of the mean of the 50th "
                              "and 95th percentile haversine distances", groups)
        return None
    for rule in _ROW_RULES:
        found = rule(per, g)
        if found is not None:
            return found
    return None


def _module_calls(g: GraderSource) -> set[str]:
    return {name.rsplit(".", 1)[-1] for name in g.imports.values()}


def _per_row_library(per: Term, g: GraderSource) -> CodeMetric | None:
    found = library_metric(per, g)
    if found is None:
        return None
    if found.metric == "levenshtein":
        return CodeMetric("levenshtein_mean", "mean over rows of the Levenshtein distance")
    if found.metric == "spearman":
        return CodeMetric("spearman_orders", "mean over rows of Spearman's correlation")
    if found.metric == "roc_auc":
        return CodeMetric("roc_auc_columnwise", "mean over labels of the ROC AUC")
    return None


def _set_ratio(per: Term, g: GraderSource) -> CodeMetric | None:
    """Jaccard |A & B| / |A | B|, Dice 2|A & B| / (|A| + |B|), F1 2pr / (p + r) and
    F-beta (1 + b^2) pr / (b^2 p + r) of two sets per row."""
    if per[0] != "div" or not _has(per, "inter"):
        return None
    top, bottom = per[1], per[2]
    if top[0] == "len" and top[1][0] == "inter" and (
            bottom[0] == "len" and bottom[1][0] == "union" or bottom[0] == "sub"):
        words = _has(per, "split")
        return CodeMetric("jaccard_words" if words else "jaccard",
                          "mean over rows of |A & B| / |A | B|" + (" of word sets" if words
                                                                 else ""))
    if top[0] == "mul" and top[1] == ("num", 2.0) and top[2][0] == "len" and bottom[0] == "add":
        return CodeMetric("dice", "mean over rows of 2|A & B| / (|A| + |B|)")
    if top[0] == "mul" and top[1][0] == "mul" and top[1][1][0] == "add" and \
            top[1][1][2][0] == "sq" and top[1][1][2][1][0] == "num":
        beta = float(top[1][1][2][1][1])
        return CodeMetric("rle_f_beta", f"mean over rows of the F-beta of two sets (beta "
                          f"{beta:g})", {"beta": beta})
    if top[0] == "mul" and top[1][0] == "mul" and top[1][1] == ("num", 2.0):
        return CodeMetric("rowwise_set_f1", "mean over rows of the F1 of two sets")
    return None


def _rank_ratio(per: Term, g: GraderSource) -> CodeMetric | None:
    """1 / rank of the first hit within the first k predictions (MAP@k with one true label),
    1 / log2(rank + 1) (NDCG@k with one true label)."""
    k = g.slices[-1] if g.slices else None
    params: dict[str, Any] = {"k": k} if k else {}
    if per[0] == "div" and per[1] == ("num", 1.0) and per[2][0] == "log2":
        return CodeMetric("ndcg_at_k", f"NDCG@{k} with one relevant item per row", params)
    if per[0] == "div" and per[1] == ("num", 1.0) and (
            per[2][0] == "add" and per[2][2] == ("num", 1.0) or per[2][0] == "item"):
        return CodeMetric("map_at_k", f"MAP@{k}: 1 / rank of the one true label in the first "
                          f"{k} predictions", {**params, "relevant": "single"})
    if per[0] == "mean" and per[1][0] == "each" and per[1][2][0] == "div" and \
            per[1][2][1][0] == "sum" and k:
        return CodeMetric("map_at_k", f"MAP@{k}: average precision of the first {k} "
                          "predictions", params)
    return None


def _per_row_divergence(per: Term, g: GraderSource) -> CodeMetric | None:
    if per[0] == "sum" and per[1][0] == "mul" and per[1][2][0] == "log" and \
            per[1][2][1][0] == "div":
        return CodeMetric("kl_divergence", "mean over rows of sum(p log(p / q))")
    if per[0] == "div" and per[1][0] == "sum" and _has(per, "cumsum"):
        return CodeMetric("average_precision_columnwise",
                          "mean over label columns of the average precision")
    if per[0] == "mean" and per[1][0] == "each" and per[1][2][0] == "ind" and \
            per[1][2][1][0] == "ge":
        return CodeMetric("iou_thresholds_map", "mean over rows of the share of IoU "
                          "thresholds the row's IoU reaches")
    return None


def _object_fbeta(per: Term, g: GraderSource) -> CodeMetric | None:
    """Per image, the mean over IoU thresholds of (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP)
    with objects matched by IoU."""
    if not (per[0] == "mean" and per[1][0] == "each"):
        return None
    f = per[1][2]
    if f[0] == "div" and f[1][0] == "sum" and f[2][0] == "add" and f[2][1][0] == "add" and \
            f[2][1][1] == f[1] and per[1][1] == "param":
        layout = {"layout": "conf_xywh"} if g.box_sums >= 2 and g.box_step == 5 else {}
        return CodeMetric("box_map", "mean over images of the mean over IoU thresholds of "
                          "TP / (TP + FP + FN)" + (", boxes as confidence x y width height"
                                                   if layout else ""),
                          {"form": "image_precision", **layout})
    if f[0] == "div" and f[1][0] == "mul" and f[1][1][0] == "num" and f[2][0] == "add" and \
            f[2][1][0] == "add" and f[2][1][2][0] == "mul" and f[2][1][2][1][0] == "num":
        top, beta_sq = float(f[1][1][1]), float(f[2][1][2][1][1])
        if top == 1.0 + beta_sq:
            return CodeMetric("mask_object_fbeta", f"mean over images and IoU thresholds of the "
                              f"F-beta (beta {beta_sq ** 0.5:g}) of matched objects")
    return None


_ROW_RULES: tuple[Rule, ...] = (_per_row_library, _set_ratio, _rank_ratio, _per_row_divergence,
                                _object_fbeta)


def box_average_precision(term: Term, g: GraderSource) -> CodeMetric | None:
    """Mean over classes of the average precision of boxes ranked by confidence: a sum of
    recall steps times precision, recall and precision from cumulative true and false
    positives, a box matching at a literal IoU threshold."""
    if not (term[0] == "mean" and term[1][0] == "each" and len(g.iou_thresholds) == 1):
        return None
    ap = term[1][2]
    steps: Term = ("?",)
    if ap[0] == "sum":
        steps = ap[1][2] if ap[1][0] == "each" else ap[1]
    if steps[0] == "mul" and steps[1][0] == "sub" and _has(ap, "cumsum"):
        return CodeMetric("box_map", f"mean over classes of the average precision of boxes "
                          f"matched at IoU >= {g.iou_thresholds[0]:g}",
                          {"iou_thresholds": list(g.iou_thresholds)})
    return None


def counting(term: Term, g: GraderSource) -> CodeMetric | None:
    """Accuracy (the share of equal values) and top-1 error (the share of unequal ones)."""
    if term[0] == "mean" and term[1][0] == "eq":
        return CodeMetric("accuracy", "mean(a == b)")
    if term[0] == "mean" and term[1][0] == "ne":
        return CodeMetric("top1_error", "mean(a != b)")
    return None


def log_losses(term: Term, g: GraderSource) -> CodeMetric | None:
    """Binary, multi-class and class-balanced log loss written out."""
    if term[0] == "neg" and term[1][0] == "mean":
        body = term[1][1]
        if body[0] == "add" and body[1][0] == "mul" and body[2][0] == "mul" and \
                _has(body[1], "log") and _has(body[2], "log"):
            return CodeMetric("log_loss", "-mean(y log p + (1 - y) log(1 - p))")
        if body[0] == "sum" and body[1][0] == "mul" and _has(body[1], "log"):
            return CodeMetric("multiclass_log_loss", "-mean over rows of sum(y log p)")
    if term[0] == "div" and term[1][0] == "neg" and term[1][1][0] == "sum" and \
            term[1][1][1][0] == "each" and term[1][1][1][2][0] == "log" and term[2][0] == "len":
        return CodeMetric("multiclass_log_loss", "-sum of log p of the true classes / n")
    if term[0] == "div" and term[2] == ("num", 2.0) and term[1][0] == "add" and all(
            t[0] == "neg" and t[1][0] == "div" and _has(t, "log") for t in term[1][1:]):
        return CodeMetric("balanced_log_loss", "mean over the two classes of each class's "
                          "log loss")
    return None


def smape(term: Term, g: GraderSource) -> CodeMetric | None:
    """mean(2 |a - b| / (|a| + |b|)), as a percentage."""
    base, scale = _unscale(term)
    if base[0] != "mean":
        return None
    body = base[1]
    if body[0] == "div" and body[1][0] == "mul" and body[1][1][0] == "num" and \
            body[1][2][0] == "abs" and body[2][0] == "add" and body[2][1][0] == "abs":
        factor = float(body[1][1][1]) * scale
        if factor in (2.0, 200.0):  # the registered smape is a percentage (0 to 200)
            return CodeMetric("smape", "mean(2 |a - b| / (|a| + |b|)) in percent",
                              scale=1.0 if factor == 200.0 else 0.01)
    return None


def special_forms(term: Term, g: GraderSource) -> CodeMetric | None:
    """Gini, normalised Gini, Kendall tau from inversions, the Laplace log likelihood,
    the mean angular error and Levenshtein per true item."""
    if term[0] == "sub" and term[2] == ("num", 1.0) and term[1][0] == "mul" and \
            term[1][1] == ("num", 2.0) and (library_metric(term[1][2], g) or
                                             CodeMetric("", "")).metric == "roc_auc":
        return CodeMetric("normalized_gini", "2 * roc_auc - 1 (the normalised Gini of a "
                          "binary target)")
    if term[0] == "div" and _has(term[1], "cumsum") and _has(term[2], "cumsum") and \
            _shape(term[1]) == _shape(term[2]):
        return CodeMetric("normalized_gini", "Gini of the predictions / Gini of the truth")
    if term[0] == "sub" and term[1] == ("num", 1.0) and term[2][0] == "mul" and \
            term[2][1] == ("num", 4.0):
        return CodeMetric("kendall_tau_orders", "1 - 4 * inversions / n(n - 1), over orders")
    if term[0] == "mean" and term[1][0] == "arccos":
        return CodeMetric("mean_angular_error", "mean(arccos(cos of the angle between "
                          "directions))")
    if term[0] == "mean" and term[1][0] == "sub" and _has(term[1], "sqrt") and \
            _has(term[1], "log") and _has(term[1], "abs"):
        return CodeMetric("laplace_log_likelihood", "mean(-sqrt(2) |a - b| / sigma - "
                          "log(sqrt(2) sigma))")
    if term[0] == "div" and term[1][0] == "sum" and "distance" in _calls(term[1]) and \
            term[2][0] == "sum" and _has(term[2], "len"):
        return CodeMetric("levenshtein_per_true", "sum of Levenshtein distances / number of "
                          "true items")
    return None


def micro_f1_of_sets(term: Term, g: GraderSource) -> CodeMetric | None:
    """2 sum|A & B| / (2 sum|A & B| + sum|B - A| + sum|A - B|) over rows: micro F1 of
    per-row sets; of word tokens (label sets), or of positions built from ranges (spans)."""
    if not (term[0] == "div" and term[1][0] == "mul" and term[1][1] == ("num", 2.0)):
        return None
    top, bottom = term[1][2], term[2]
    if top[0] == "sum" and top[1][0] == "each" and top[1][2][0] == "len" and \
            top[1][2][1][0] == "inter" and bottom[0] == "add" and _has(bottom, "sub"):
        if _has(top, "split"):
            return CodeMetric("f1_micro_multilabel", "micro F1 over rows' label sets")
        return CodeMetric("char_span_micro_f1", "micro F1 over the positions covered by each "
                          "row's spans")
    return None


def _shape(term: Any) -> Any:
    """A term with its leaves erased, to compare two applications of one helper."""
    if isinstance(term, tuple):
        return tuple(_shape(t) for t in term)
    return None


def weighted_combinations(term: Term, g: GraderSource) -> CodeMetric | None:
    """Weighted ROC areas, the jigsaw bias AUC, weighted macro recall, Dice + Hausdorff."""
    calls = _calls(term)
    if "roc_curve" in calls and "trapz" in calls:
        params = _tpr_weights(g)
        return CodeMetric("weighted_auc_tpr", "ROC area weighted by true-positive-rate "
                          "regions", params)
    if term[0] == "add" and "roc_auc_score" in calls and g.defaults.get("p") is not None and \
            g.defaults.get("w") is not None:
        weight = float(g.defaults["w"])
        return CodeMetric("jigsaw_bias_auc", "w * overall AUC + w * power means of subgroup, "
                          "BPSN and BNSP AUCs", {"power": float(g.defaults["p"]),
                                                 "weights": [weight] * 4})
    if term[0] == "wmean" and term[1][0] == "each" and "recall_score" in calls:
        return CodeMetric("balanced_accuracy", "weighted mean over groups of the macro "
                          "recall (balanced accuracy)", _group_weights(term[2], g))
    if term[0] == "add" and "directed_hausdorff" in _module_calls(g) and _has(term, "inter"):
        return CodeMetric("dice_hausdorff_2d", "a * mean Dice + b * (1 - mean Hausdorff), "
                          "per 2D slice")
    return None


def _group_weights(weights: Term, g: GraderSource) -> dict[str, Any]:
    """Group name -> weight, when a literal list of names matches the literal weights."""
    if weights[0] != "nums":
        return {}
    names = [n for n in g.string_lists if len(n) == len(weights[1])]
    if len(names) != 1:
        return {}
    return {"group_weights": dict(zip(names[0], weights[1], strict=True))}


def _tpr_weights(g: GraderSource) -> dict[str, Any]:
    thresholds = next((list(v) for v in g.number_lists if v and v[0] == 0.0 and v[-1] == 1.0),
                      None)
    if thresholds is None:
        return {}
    weights = next((list(v) for v in g.number_lists if len(v) == len(thresholds) - 1), None)
    return {"tpr_thresholds": thresholds, **({"weights": weights} if weights else {})}


RULES: tuple[Rule, ...] = (library_metric, squared_error, absolute_error, columnwise, rowwise,
                           counting, log_losses, smape, special_forms, weighted_combinations,
                           box_average_precision, micro_f1_of_sets)


def recognise(term: Term | None, g: GraderSource) -> CodeMetric | None:
    """The metric ``term`` computes, or None when no rule recognises it.

    A result scaled by a constant (``accuracy * 100``) is recognised with that scale.
    """
    if term is None or term[0] == "?":
        return None
    for candidate, scale in ((term, 1.0), _unscale(term)):
        for rule in RULES:
            found = rule(candidate, g)
            if found is not None:
                return found if scale == 1.0 else CodeMetric(
                    found.metric, f"{found.formula} * {scale:g}", found.params,
                    found.scale * scale)
    return None
