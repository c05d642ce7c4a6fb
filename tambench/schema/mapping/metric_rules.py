"""From a metric family and its context to the one metric id that computes it exactly.

:mod:`~tambench.schema.mapping.metric_terms` finds which family a sentence names ("auc",
"f1", "rmsle"). Which registered id computes the page's metric exactly depends on what the
page says around it: column-wise or pooled, weighted or not, multi-class or binary, label sets
or single labels, boxes or masks. :data:`DECIDE` holds one small function per family that reads
those modifiers and returns a :class:`Decision`:

* an id and its parameters, when one computes the metric exactly (the id may not be registered
  in this installation yet: the caller then leaves the metric empty and says so);
* or no id and the reason, when no id computes it ("a weighted mean absolute error"). A near
  neighbour is never chosen: a wrong metric grades silently wrong, an empty one is visible.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tambench.core.metrics import METRICS
from tambench.schema.mapping.metric_terms import find_family, fold


@dataclass(frozen=True)
class MetricContext:
    """What a decision may read, all folded plain text (see ``metric_terms.fold``)."""

    sentence: str
    """The sentence that names the metric."""

    near: str
    """The sentence's words around the metric's name (modifiers such as "weighted")."""

    window: str
    """The evaluation text the sentence belongs to, submission format included."""

    targets: tuple[str, ...] = ()
    """The submission's scored columns, when the header is known."""

    values: tuple[str, ...] = ()
    """Example cells of those columns."""


@dataclass(frozen=True)
class Decision:
    """The metric id that computes the page's metric exactly, or why there is none."""

    metric_id: str | None
    params: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    """Why no id computes the page's metric (empty when ``metric_id`` is set)."""


def _r(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_WEIGHTED = _r(r"(?<!quadratic )(?<!quadratically )(?<!label[- ])\bweighted\b|\bw(?:mae|rmse)\b")
_COLUMNWISE = _r(
    r"\bcolumn[- ]?wise|\beach (?:of the )?(?:\d+ |two |three |\w+ )?(?:target |label |output "
    r"|predicted )?columns?\b|\bper[- ]column\b|\b(?:averaged?|mean) (?:over|across|of) (?:the "
    r"|all |each )?(?:\d+ |two |three )?(?:target |label |predicted |output )?columns\b"
    r"|\bfor each (?:target|column|label column)\b|\bindividual (?:aucs|columns|scores)\b"
    r"|\b(?:across|over) (?:all |the |each )?(?:\d+ )?(?:target |label |predicted |output )?"
    r"columns\b"
    r"|\bfor each of the (?:\d+|\w+) (?:\w{1,40}\s{1,3}){0,2}?(?:categories|classes|labels|targets"
    r"|columns|traits|outputs|defects)\b[^.]{0,60}\baverag")
_MULTICLASS = _r(
    r"\bmulti[- ]?class\b|\beach (?:target )?class\b|\bevery class\b|\bclass probabilit"
    r"|\bprobabilit(?:y|ies) for each\b|\beach of the (?:\d+|\w+) (?:possible )?(?:classes"
    r"|categories|labels)")
_SETS_TEXT = _r(r"space[- ]?(?:delimited|separated)")
_BINARY_TEXT = _r(r"\bbinary\b|\bpositive class\b")
_SPAN = _r(r"\bspans?\b|character (?:indices|positions|offsets|level)")
_BOXES = _r(r"bounding (?:box|volume)|\bboxes\b|\bx_?min\b|\bbbox")
_BOX3D = _r(r"\b3 ?-?d\b|three[- ]dimensional|bounding volumes?|cuboid")
_MASKS = _r(r"run[- ]?length|\brle\b|encoded[ _]?pixels|\bmasks?\b")
_IOU = _r(r"\biou\b|intersection over union")
_POINTS = _r(r"cent(?:er|re) points?")
_BIAS = _r(r"\bbias\b|\bsubgroups?\b|\bbpsn\b|\bbnsp\b|generali[sz]ed (?:power )?mean")
_ORDERS = _r(r"\border(?:s|ing)?\b|\bswaps?\b|\bcells?\b")
_PERCENTILES = _r(r"\b50th\b|\b95th\b|percentiles?")
_LATLON = _r(r"latitude|longitude|\blat\b|\blng\b|\blon\b")
_MACRO = _r(r"\bmacro\b")
_MICRO = _r(r"\bmicro\b")
_MEAN_F1 = _r(r"\bmean f[ -]?1|\bmeanfscore\b|\bmean f[ -]?score|\baverage f[ -]?1")
_PER_TRUE = _r(
    r"\b(?:divided|normali[sz]ed) by (?:the )?total number of (?:\w{1,40}\s{1,3}){0,2}?(?:gestures|tokens"
    r"|labels|characters|words|elements|items|in the (?:truth|ground truth))")
_NORMALISED = _r(r"normali[sz]ed|divided by (?:the )?(?:length|max|maximum|longer|longest)")
_WORD_LEVEL = _r(r"word[- ]level|\bwords?\b")
_GLOBAL = _r(r"\bglobal\b")
#: Rows (observations, samples) carrying their own weights in the score.
_ROW_WEIGHTS = _r(r"\b(?:each|every) (?:observation|row|sample|record|instance|example|data point|"
                  r"prediction)s? (?:will be|is|are|gets?) weighted\b"
                  r"|\bweighted (?:by|according to|as (?:indicated|given) (?:by|in)) (?:the|its|their|a) "
                  r"[\w ]{0,30}?(?:column|field|variable)\b"
                  r"|\b(?:sample|row|observation|instance) weights\b")
_HIERARCHICAL = _r(r"hierarch|weighted (?:average|mean|sum) of")
_COLUMNWISE_RMSLE = _r(r"\bmean (?:of )?(?:the )?rmsle (?:over|across|of) (?:all |the |each )?"
                       r"(?:\w+ )?columns")
_K_RE = _r(r"@\s*(\d+)|\bat\s+(\d+)\b")
_NUMBER = r"(?:\d+(?:\.\d+)?|\.\d+)"
_BETA_RE = _r(rf"\bbeta\s*=\s*({_NUMBER})")


def _sets(ctx: MetricContext) -> bool:
    """Whether predictions are label sets: the text says "space-delimited" (or "space
    separated"), or example cells hold lists of different lengths, one of three labels or
    more (two-word labels such as "Sugar beet" are not sets)."""
    if _SETS_TEXT.search(ctx.window):
        return True
    counts = {len(v.split()) for v in ctx.values}
    return len(counts) > 1 and max(counts) >= 3


def _binary(ctx: MetricContext) -> bool:
    cells = {v.strip().lower() for v in ctx.values}
    return bool(cells) and cells <= {"0", "1", "0.0", "1.0", "true", "false"} or bool(
        _BINARY_TEXT.search(ctx.window))


def _columnwise(ctx: MetricContext) -> bool:
    return bool(_COLUMNWISE.search(ctx.window))


def _weighted(ctx: MetricContext) -> bool:
    """"weighted" beside the metric's name, or rows weighted anywhere in the evaluation text
    ("Each observation will be weighted as indicated by the weight column")."""
    return bool(_WEIGHTED.search(ctx.near) or _ROW_WEIGHTS.search(ctx.window))


def _id(metric_id: str, **params: Any) -> Decision:
    return Decision(metric_id, dict(params))


def _none(what: str) -> Decision:
    return Decision(None, reason=f"the page's metric is {what}; no metric id computes it")


def _k(text: str) -> dict[str, int]:
    m = _K_RE.search(text)
    return {"k": int(m.group(1) or m.group(2))} if m else {}


_IOU_RANGE_RE = _r(r"(?:range|ranging|sweeps?) from (\d*\.\d+) to (\d*\.\d+) (?:with|in|at) "
                   r"(?:a )?steps?(?: size)? of (\d*\.\d+)")
_IOU_SINGLE_RE = _r(r"\biou\s*(?:>|>=|≥|above|greater than|of at least|threshold of)\s*`?"
                    r"(\d*\.\d+)")


def iou_thresholds(text: str) -> list[float]:
    """IoU thresholds stated in the text: "range from 0.5 to 0.95 with a step size of 0.05" or
    a single "IoU > 0.4".

    >>> iou_thresholds("values range from 0.5 to 0.6 with a step size of 0.05")
    [0.5, 0.55, 0.6]
    >>> iou_thresholds("mAP at IoU > 0.4.")
    [0.4]
    """
    m = _IOU_RANGE_RE.search(text)
    if m:
        lo, hi, step = (float(g) for g in m.groups())
        if step > 0 and hi >= lo:
            n = int(round((hi - lo) / step))
            return [round(lo + i * step, 6) for i in range(n + 1)]
    m = _IOU_SINGLE_RE.search(text)
    return [float(m.group(1))] if m else []


# --- one decision per family ----------------------------------------------------------------


_TPR_LIST_RE = _r(r"tpr_thresholds\s{0,5}=\s{0,5}\[([^\[\]]{0,500})\]")
_WEIGHT_LIST_RE = _r(r"\bweights\s{0,5}=\s{0,5}\[([^\[\]]{0,500})\]")
_ROW_FILTER_RE = _r(r"\b(?:calculated|computed|evaluated|scored) only (?:for|on) "
                    r"(?:\w{1,40}\s{1,3}){0,3}?(?:with|where|whose|that)\b"
                    r"|\bmust (?:also )?pass (?:\w{1,40}\s{1,3}){0,3}?(?:checks|tests)")


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(rf"-?{_NUMBER}", text)]


def _weighted_auc(ctx: MetricContext) -> Decision:
    """weighted_auc_tpr only for its own bands and weights, stated as lists, on every row."""
    if _ROW_FILTER_RE.search(ctx.window):
        return _none("a weighted area under the ROC curve over a subset of rows or after "
                     "extra checks")
    tpr, weights = _TPR_LIST_RE.search(ctx.window), _WEIGHT_LIST_RE.search(ctx.window)
    if tpr and weights:
        bands, w = _numbers(tpr.group(1)), _numbers(weights.group(1))
        if len(bands) == len(w) + 1 and bands == sorted(bands):
            return _id("weighted_auc_tpr", tpr_thresholds=bands, weights=w)
    return _none("a weighted area under the ROC curve whose TPR bands and weights are not "
                 "stated as lists (tpr_thresholds = [...], weights = [...])")


def _auc(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _weighted(ctx):
        return _weighted_auc(ctx)
    if _BIAS.search(ctx.window):
        return _id("jigsaw_bias_auc")
    if _columnwise(ctx):
        return _id("roc_auc_columnwise")
    if _sets(ctx) and _MACRO.search(ctx.window):
        return _id("roc_auc_macro_multilabel")
    if len(ctx.targets) >= 2:
        return _none(f"an area under the ROC curve over {len(ctx.targets)} columns, combined "
                     "in a way the page does not state")
    return _id("roc_auc")


def _log_loss(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _weighted(ctx):
        return _none("a weighted log loss")
    multiclass = _MULTICLASS.search(ctx.window) or _MULTICLASS.search(ctx.near)
    if _columnwise(ctx) and not multiclass:
        return _none("a log loss averaged over columns")
    if multiclass or len(ctx.targets) >= 2:
        return _id("multiclass_log_loss")
    return _id("log_loss")


def _rmse(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _weighted(ctx):
        return _none("a weighted root mean squared error")
    if _columnwise(ctx) and len(ctx.targets) != 1:
        return _id("mcrmse")
    return _id("rmse")


def _rmsle(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _weighted(ctx):
        return _none("a weighted root mean squared logarithmic error")
    if (_columnwise(ctx) or _COLUMNWISE_RMSLE.search(ctx.window)) and len(ctx.targets) != 1:
        return _id("rmsle_columnwise")
    return _id("rmsle")


def _plain(metric_id: str, what: str) -> Callable[[MetricContext, re.Match[str]], Decision]:
    """A family with one id, unless the page weights it."""
    def decide(ctx: MetricContext, m: re.Match[str]) -> Decision:
        return _none(f"a weighted {what}") if _weighted(ctx) else _id(metric_id)
    return decide


def _mae(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _weighted(ctx) or m.group(0).lower().startswith("w"):
        return _none("a weighted mean absolute error")
    return _id("mae")


def _dice(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _weighted(ctx):
        return _none("a weighted Dice coefficient")
    return _id("global_dice") if _GLOBAL.search(ctx.near) else _id("dice")


def _top_k(metric_id: str, what: str) -> Callable[[MetricContext, re.Match[str]], Decision]:
    def decide(ctx: MetricContext, m: re.Match[str]) -> Decision:
        k = int(m.group(1))
        return _id(metric_id) if k == 1 else _none(f"a top-{k} {what}")
    return decide


def _map_at_k(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return _id("map_at_k", **(_k(m.group(0)) or _k(ctx.sentence)))


def _detection_map(ctx: MetricContext, m: re.Match[str]) -> Decision:
    thresholds = iou_thresholds(ctx.window)
    if _IOU.search(ctx.window):
        if _BOXES.search(ctx.window):
            params = {"iou_thresholds": thresholds} if thresholds else {}
            return _id("box3d_map" if _BOX3D.search(ctx.window) else "box_map", **params)
        if _MASKS.search(ctx.window):
            return _id("iou_thresholds_map", **({"thresholds": thresholds} if thresholds else {}))
        return _none("a mean average precision over IoU thresholds of objects the page does "
                     "not describe as boxes or masks")
    if _K_RE.search(ctx.near):
        return _map_at_k(ctx, m)
    return _none("a mean average precision without a cutoff k or an IoU threshold")


def _mrr(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return _id("mrr_at_k", **_k(ctx.near))


def _kappa(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return _none("Cohen's kappa without quadratic weights")


def _spearman(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _columnwise(ctx):
        return _id("spearman_columnwise")
    if _sets(ctx):
        return _none("a Spearman correlation computed within each row's list, then averaged")
    return _id("spearman")


def _pearson(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return _none("a mean column-wise Pearson correlation") if _columnwise(ctx) else _id("pearson")


def _kendall(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return _id("kendall_tau_orders") if _ORDERS.search(ctx.window) else _id("kendall_tau")


def _fbeta(ctx: MetricContext, m: re.Match[str]) -> Decision:
    digits = re.search(_NUMBER, m.group(0))
    stated = _BETA_RE.search(ctx.window)
    beta = float(stated.group(1)) if stated else float(digits.group(0)) if digits else None
    params = {"beta": beta} if beta is not None else {}
    if _MASKS.search(ctx.window):
        if _IOU.search(ctx.window):
            return _none("an F-beta score of objects matched over IoU thresholds")
        return _id("rle_f_beta", **params)
    if _sets(ctx):
        return _none("an F-beta score over label sets")
    if _binary(ctx) and beta is not None:
        return _id("fbeta", **params)
    return _none("an F-beta score whose classes or beta the page does not state")


def _f1(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _SPAN.search(ctx.window):
        return _id("span_micro_f1")
    if _POINTS.search(ctx.window) and _BOXES.search(ctx.window):
        return _id("point_in_box_f1")
    if _MACRO.search(ctx.near) or _MACRO.search(ctx.sentence):
        return _id("f1_macro")
    if _weighted(ctx):
        return _id("f1_weighted")
    if _MICRO.search(ctx.window):
        return _id("f1_micro_multilabel" if _sets(ctx) else "f1_micro")
    if _sets(ctx):
        return (_id("rowwise_set_f1") if _MEAN_F1.search(ctx.sentence)
                else _none("an F1 score over label sets, averaged in a way the page does not "
                           "state"))
    if _binary(ctx):
        return _id("f1")
    return _none("an F1 score whose averaging over classes the page does not state")


def _levenshtein(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _PER_TRUE.search(ctx.window):
        return _id("levenshtein_per_true")
    if _NORMALISED.search(ctx.window):
        return _id("levenshtein_normalized")
    return _id("levenshtein_mean")


def _jaccard(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return (_id("jaccard_words") if _WORD_LEVEL.search(ctx.sentence)
            else _none("a Jaccard index whose unit (words, characters, pixels) the page does "
                       "not state"))


def _haversine(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return _id("haversine_p50_p95") if _PERCENTILES.search(ctx.sentence) else _id("haversine_mean")


def _distance(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _LATLON.search(ctx.window) or any(_LATLON.search(t) for t in ctx.targets):
        return _haversine(ctx, m)
    return _none("a distance error between points of a space the page does not name")


def _balanced_accuracy(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _HIERARCHICAL.search(ctx.window) or _weighted(ctx):
        return _none("a weighted combination of macro-averaged recalls")
    return _id("balanced_accuracy")


def _r2(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return _id("r2_mean_columnwise") if _columnwise(ctx) or re.search(
        r"\bmean\b", ctx.near, re.I) else _id("r2")


def _fixed(metric_id: str) -> Callable[[MetricContext, re.Match[str]], Decision]:
    def decide(ctx: MetricContext, m: re.Match[str]) -> Decision:
        return _id(metric_id)
    return decide


def _absent(what: str) -> Callable[[MetricContext, re.Match[str]], Decision]:
    def decide(ctx: MetricContext, m: re.Match[str]) -> Decision:
        return _none(what)
    return decide


#: Family -> decision. Every family of ``metric_terms.FAMILY_TERMS`` has one (tested).
DECIDE: dict[str, Callable[[MetricContext, re.Match[str]], Decision]] = {
    "weighted_multilabel_log_loss": _fixed("weighted_multilabel_log_loss"),
    "balanced_log_loss": _absent("a class-balanced log loss"),
    "log_loss": _log_loss,
    "kl_divergence": _fixed("kl_divergence"),
    "mcrmse": _fixed("mcrmse"),
    "rmspe": _absent("a root mean squared percentage error"),
    "rmsle": _rmsle,
    "rmse": _rmse,
    "msle": _absent("a mean squared logarithmic error"),
    "smape": _plain("smape", "symmetric mean absolute percentage error"),
    "mape": _plain("mape", "mean absolute percentage error"),
    "mse": _plain("mse", "mean squared error"),
    "median_ae": _absent("a median absolute error"),
    "log_mae": _fixed("mean_log_mae"),
    "mae": _mae,
    "dice_hausdorff": _fixed("dice_hausdorff_3d"),
    "global_dice": _fixed("global_dice"),
    "dice": _dice,
    "top_k_error": _top_k("top1_error", "error"),
    "error_rate": _fixed("top1_error"),
    "map_at_k": _map_at_k,
    "detection_map": _detection_map,
    "map": _detection_map,
    "mrr": _mrr,
    "ndcg": _absent("a normalised discounted cumulative gain"),
    "gini": _absent("a normalised Gini coefficient"),
    "pr_auc": _absent("an area under the precision-recall curve"),
    "auc": _auc,
    "mcc": _fixed("mcc"),
    "qwk": _fixed("qwk"),
    "kappa": _kappa,
    "spearman": _spearman,
    "pearson": _pearson,
    "kendall": _kendall,
    "probabilistic_f1": _fixed("probabilistic_f1"),
    "fbeta": _fbeta,
    "f1": _f1,
    "levenshtein": _levenshtein,
    "jaccard": _jaccard,
    "iou": _absent("an intersection over union"),
    "lwlrap": _fixed("lwlrap"),
    "lrap": _fixed("label_ranking_average_precision"),
    "angular_error": _fixed("mean_angular_error"),
    "haversine": _haversine,
    "distance_error": _distance,
    "laplace": _fixed("laplace_log_likelihood"),
    "pose_maa": _fixed("pose_maa"),
    "balanced_accuracy": _balanced_accuracy,
    "exact_match": _fixed("exact_match"),
    "top_k_accuracy": _top_k("accuracy", "accuracy"),
    "accuracy": _plain("accuracy", "accuracy"),
    "r2": _r2,
    "wer": _absent("a word error rate"),
    "cer": _absent("a character error rate"),
    "bleu": _absent("a BLEU score"),
    "rouge": _absent("a ROUGE score"),
    "ssim": _absent("a structural similarity index"),
    "psnr": _absent("a peak signal-to-noise ratio"),
    "crps": _absent("a continuous ranked probability score"),
    "pinball": _absent("a pinball (quantile) loss"),
    "sharpe": _absent("a Sharpe ratio"),
    "precision_at_k": _absent("a precision at k"),
    "recall_at_k": _absent("a recall at k"),
}

#: Task type of each family (the paper's ``task_type`` vocabulary), known even when no id
#: computes the page's metric.
TASK_TYPE_BY_FAMILY: dict[str, str] = {
    **dict.fromkeys(
        ["weighted_multilabel_log_loss", "balanced_log_loss", "log_loss", "kl_divergence",
         "top_k_error", "error_rate", "gini", "pr_auc", "auc", "mcc", "qwk", "kappa",
         "probabilistic_f1", "fbeta", "f1", "lwlrap", "lrap", "balanced_accuracy",
         "exact_match", "top_k_accuracy", "accuracy"], "classification"),
    **dict.fromkeys(
        ["mcrmse", "rmspe", "rmsle", "rmse", "msle", "smape", "mape", "mse", "median_ae",
         "log_mae", "mae", "spearman", "pearson", "angular_error", "haversine",
         "distance_error", "laplace", "pose_maa", "r2", "crps", "pinball", "sharpe"],
        "regression"),
    **dict.fromkeys(["map_at_k", "mrr", "ndcg", "kendall", "precision_at_k", "recall_at_k"],
                    "ranking"),
    **dict.fromkeys(["dice_hausdorff", "global_dice", "dice", "iou"], "segmentation"),
    **dict.fromkeys(["detection_map", "map"], "object_detection"),
    **dict.fromkeys(["levenshtein", "jaccard", "wer", "cer", "bleu", "rouge"], "generation"),
    **dict.fromkeys(["ssim", "psnr"], "image_generation"),
}

#: Task type implied by each metric id, for ids a mapper or a label may name.
TASK_TYPE_BY_METRIC: dict[str, str] = {
    **dict.fromkeys(
        ["accuracy", "balanced_accuracy", "roc_auc", "roc_auc_columnwise",
         "roc_auc_macro_multilabel", "log_loss", "multiclass_log_loss",
         "weighted_multilabel_log_loss", "kl_divergence", "f1", "f1_micro", "f1_macro",
         "f1_weighted", "fbeta", "mcc", "qwk", "top1_error", "lwlrap",
         "label_ranking_average_precision", "rowwise_set_f1", "weighted_author_auc",
         "exact_match", "weighted_auc_tpr", "jigsaw_bias_auc", "f1_micro_multilabel",
         "probabilistic_f1"], "classification"),
    **dict.fromkeys(
        ["rmse", "mse", "mae", "rmsle", "mcrmse", "mean_log_mae", "smape", "mape", "r2",
         "r2_mean_columnwise", "pearson", "spearman", "haversine_mean", "mean_angular_error",
         "laplace_log_likelihood", "pose_maa", "rmsle_columnwise", "spearman_columnwise",
         "haversine_p50_p95"], "regression"),
    **dict.fromkeys(["map_at_k", "mrr_at_k", "map_at_k_lines", "mean_ap_per_paper",
                     "kendall_tau", "kendall_tau_orders"], "ranking"),
    **dict.fromkeys(["levenshtein_normalized", "levenshtein_per_true", "levenshtein_mean",
                     "jaccard_words", "span_micro_f1"], "generation"),
    **dict.fromkeys(["dice", "global_dice", "dice_hausdorff_3d", "rle_f_beta",
                     "iou_thresholds_map"], "segmentation"),
    **dict.fromkeys(["box_map", "box3d_map", "point_in_box_f1"], "object_detection"),
}


def is_registered(metric_id: str) -> bool:
    """Whether this installation's registry holds ``metric_id``."""
    return metric_id in METRICS


def decide(family: str, ctx: MetricContext, match: re.Match[str]) -> Decision:
    """The decision for a family found in a sentence (see :data:`DECIDE`)."""
    return DECIDE[family](ctx, match)


@dataclass(frozen=True)
class PhraseMatch:
    """The metric id a phrase names ("" when no id computes it) and why not."""

    metric_id: str
    reason: str = ""


def match_sentence(phrase: str) -> tuple[PhraseMatch, re.Match[str]] | None:
    """The metric a short phrase names on its own (a listing's metric name, a grader's name),
    decided without page context; None when it names no known family.

    >>> match_sentence("Root Mean Squared Error")[0].metric_id
    'rmse'
    >>> match_sentence("Weighted Mean Absolute Error")[0].metric_id
    ''
    """
    text = fold(phrase)
    found = find_family(text)
    if found is None:
        return None
    family, m = found
    d = decide(family, MetricContext(sentence=text, near=text, window=text), m)
    return PhraseMatch(d.metric_id or "", d.reason), m
