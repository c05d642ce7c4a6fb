"""From the words a competition page uses for its metric to a registered metric id.

One ordered table of patterns, most specific first ("weighted multi-label log loss" before
"log loss", "global Dice" before "Dice"), then refinements that read the whole evaluation text
and the submission's target columns (a log loss over three probability columns is the
multi-class one). Where the source's metric has no exact registered id the rule names the
closest one and says so in ``note``; the note travels into the TaskSpec's provenance.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MetricRule:
    """A pattern over a sentence (plain text, any case) and the metric id it means."""

    pattern: re.Pattern[str]
    metric_id: str
    note: str = ""
    """Why the id is only the closest registered one; empty when it is exact."""


def _r(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


#: Ordered: the first rule whose pattern matches a sentence wins for that sentence.
METRIC_RULES: tuple[MetricRule, ...] = (
    MetricRule(_r(r"weighted multi-?label log(?:arithmic)?[ -]?loss"),
               "weighted_multilabel_log_loss"),
    MetricRule(_r(r"multi-?class (?:log(?:arithmic)?[ -]?loss|logloss|cross[- ]entropy)"),
               "multiclass_log_loss"),
    MetricRule(_r(r"kullback[- ]l[ei]{1,3}bler(?: divergence)?|\bkl[- ]divergence"), "kl_divergence"),
    MetricRule(_r(r"\bmcrmse\b|mean column-?wise root mean squared? error"), "mcrmse"),
    MetricRule(_r(r"(?:column-?wise )?root mean squared? log(?:arithmic)? error|\brmsle\b"),
               "rmsle"),
    MetricRule(_r(r"root[- ]mean[- ]squared?[- ]error|\brmse\b"), "rmse"),
    MetricRule(_r(r"symmetric mean absolute percentage error|\bsmape\b"), "smape"),
    MetricRule(_r(r"mean absolute percentage error|\bmape\b"), "mape"),
    MetricRule(_r(r"mean squared error|\bmse\b"), "mse"),
    MetricRule(_r(r"mean absolute error|\bmae\b"), "mae"),
    MetricRule(_r(r"\bglobal dice(?: coefficient)?"), "global_dice"),
    MetricRule(_r(r"dice coefficient and (?:3d )?hausdorff distance"), "dice",
               "the source combines Dice (weight 0.4) with a 3D Hausdorff distance (0.6); no "
               "registered metric combines them, the closest registered one is dice"),
    MetricRule(_r(r"\bdice(?: coefficient| score)?\b"), "dice"),
    MetricRule(_r(r"top-?1 (?:classification )?error"), "top1_error"),
    MetricRule(_r(r"\bmap\s*@\s*\d+|mean average precision\s*@\s*\d+|\bmap@k\b"), "map_at_k"),
    MetricRule(_r(r"(?:mean )?average precision\b.{0,80}?(?:\biou\b|intersection over union)"
                  r"|\bmap\b.{0,40}?\biou\b"),
               "iou_thresholds_map"),
    MetricRule(_r(r"mean average precision|(?-i:\bMAP\b)"), "map_at_k",
               "the source names mean average precision without a cutoff; the closest "
               "registered metric is map_at_k"),
    MetricRule(_r(r"mean reciprocal rank|\bmrr\b"), "mrr_at_k"),
    MetricRule(_r(r"column-?wise (?:roc[ -]?)?auc|column-?wise (?:area under|roc)"),
               "roc_auc_columnwise"),
    MetricRule(_r(r"\bweighted auc\b"), "roc_auc",
               "the source weights regions of the ROC curve by true-positive rate (2x below "
               "TPR 0.4); no registered metric does, the closest registered one is roc_auc"),
    MetricRule(_r(r"area under (?:the )?(?:roc|receiver)(?: operating)?(?: characteristic)?"
                  r"(?: curve)?|\broc[ -]?auc\b|\bauc\b|\bauroc\b"),
               "roc_auc"),
    MetricRule(_r(r"matthews"), "mcc"),
    MetricRule(_r(r"spearman"), "spearman"),
    MetricRule(_r(r"pearson"), "pearson"),
    MetricRule(_r(r"kendall"), "kendall_tau"),
    MetricRule(_r(r"quadratic(?:ally)? weighted kappa|\bqwk\b|cohen'?s kappa"), "qwk"),
    MetricRule(_r(r"probabilistic f1|\bpf1\b"), "f1",
               "the source's probabilistic F1 takes probabilities; no registered metric does, "
               "the closest registered one is the binary f1"),
    MetricRule(_r(r"macro[- ](?:averaged )?f1|macro f-?score|f1[- ]macro"), "f1_macro"),
    MetricRule(_r(r"micro[- ](?:averaged )?f1|meanfscore|mean f1|mean f-score|f1[- ]micro"),
               "f1_micro"),
    MetricRule(_r(r"\bf1\b|\bf-?score\b|\bf-?measure\b"), "f1_micro",
               "the source names an F1 score without saying how it averages; the closest "
               "registered one for label sets pooled over all rows is f1_micro"),
    MetricRule(_r(r"levenshtein|levenhstein|edit distance"), "levenshtein_normalized"),
    MetricRule(_r(r"jaccard"), "jaccard_words"),
    MetricRule(_r(r"angular error"), "mean_angular_error"),
    MetricRule(_r(r"haversine|percentile distance errors?"), "haversine_mean"),
    MetricRule(_r(r"laplace log[- ]likelihood"), "laplace_log_likelihood"),
    MetricRule(_r(r"log(?:arithmic)?[ -]?loss|\blogloss\b|cross[- ]entropy"), "log_loss"),
    MetricRule(_r(r"balanced accuracy"), "balanced_accuracy"),
    MetricRule(_r(r"mean average accuracy|\bmaa\b"), "pose_maa"),
    MetricRule(_r(r"accuracy"), "accuracy"),
    MetricRule(_r(r"mean (?:column-?wise )?(?:r2|r\^2|r-squared)"), "r2_mean_columnwise"),
    MetricRule(_r(r"\br2\b|\br\^2|\br-squared\b|coefficient of determination"), "r2"),
)

#: Words that mark a sentence as the one naming the metric; such sentences are read first.
METRIC_CUE_RE = re.compile(
    r"\b(evaluated|evaluation|scored|judged|metric|measured|we use|is calculated|score is)\b",
    re.I,
)

#: Notes for ids reached by a refinement rather than by a pattern.
_REFINED_NOTES: dict[str, str] = {
    "levenshtein_normalized": (
        "the source averages raw Levenshtein distances over rows; the closest registered "
        "metric is levenshtein_normalized"
    ),
    "spearman": "the source averages Spearman's correlation over the target columns",
    "rmsle": "the source averages RMSLE over the target columns",
    "iou_thresholds_map": "",
}

#: Task type implied by each metric id (the paper's ``task_type`` vocabulary).
TASK_TYPE_BY_METRIC: dict[str, str] = {
    **dict.fromkeys(
        ["accuracy", "balanced_accuracy", "roc_auc", "roc_auc_columnwise",
         "roc_auc_macro_multilabel", "log_loss", "multiclass_log_loss",
         "weighted_multilabel_log_loss", "kl_divergence", "f1", "f1_micro", "f1_macro",
         "f1_weighted", "fbeta", "mcc", "qwk", "top1_error", "lwlrap",
         "label_ranking_average_precision", "rowwise_set_f1", "weighted_author_auc"],
        "classification"),
    **dict.fromkeys(
        ["rmse", "mse", "mae", "rmsle", "mcrmse", "mean_log_mae", "smape", "mape", "r2",
         "r2_mean_columnwise", "pearson", "spearman", "kendall_tau", "haversine_mean",
         "mean_angular_error", "laplace_log_likelihood", "pose_maa"],
        "regression"),
    **dict.fromkeys(["map_at_k", "mrr_at_k", "map_at_k_lines", "mean_ap_per_paper"], "ranking"),
    **dict.fromkeys(["levenshtein_normalized", "levenshtein_per_true", "jaccard_words"],
                    "generation"),
    **dict.fromkeys(["dice", "global_dice"], "segmentation"),
    "iou_thresholds_map": "object_detection",
}


@dataclass
class MetricMatch:
    """A metric found in a sentence, refined by the whole evaluation text."""

    metric_id: str
    params: dict[str, Any]
    name: str
    """The words the page uses for the metric, as they appear (markup removed)."""

    sentence: str
    """The raw sentence (or heading) the metric was found in: the evidence."""

    notes: list[str] = field(default_factory=list)


def match_sentence(plain_sentence: str) -> tuple[MetricRule, re.Match[str]] | None:
    """The first rule matching a plain-text sentence, with its match; None if none does.

    >>> rule, m = match_sentence("Submissions are evaluated on the mean column-wise ROC AUC.")
    >>> rule.metric_id, m.group(0)
    ('roc_auc_columnwise', 'column-wise ROC AUC')
    """
    for rule in METRIC_RULES:
        m = rule.pattern.search(plain_sentence)
        if m:
            return rule, m
    return None


_K_RE = re.compile(r"@\s*(\d+)")
_DIVIDED_BY_TRUE_RE = re.compile(
    r"(?:divided|normali[sz]ed) by (?:the )?total number of (?:\w+ ){0,2}"
    r"(?:gestures|tokens|labels|characters|words|in the (?:truth|ground truth))", re.I)
_MULTICLASS_RE = re.compile(
    r"each (?:target )?class|every class|one for every|each of the \w+ (?:possible )?classes"
    r"|multi-?class", re.I)
_COLUMNWISE_RE = re.compile(r"column-?wise|each (?:predicted |target )?column|individual aucs",
                            re.I)


_IOU_RANGE_RE = re.compile(
    r"range from (\d*\.\d+) to (\d*\.\d+) with a step(?: size)? of (\d*\.\d+)", re.I)
_IOU_SINGLE_RE = re.compile(
    r"\biou\s*(?:>|>=|≥|above|greater than|of at least)\s*(\d*\.\d+)", re.I)


def _iou_thresholds(text: str) -> list[float]:
    """IoU thresholds stated in the text: "range from 0.5 to 0.95 with a step size of 0.05"
    or a single "IoU > 0.4".

    >>> _iou_thresholds("values range from 0.5 to 0.6 with a step size of 0.05")
    [0.5, 0.55, 0.6]
    >>> _iou_thresholds("mAP at IoU > 0.4.")
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


def refine(rule: MetricRule, match: re.Match[str], eval_plain: str,
           target_columns: Sequence[str]) -> tuple[str, dict[str, Any], list[str]]:
    """Metric id, candidate parameters and notes, given the whole evaluation text.

    ``eval_plain`` is the plain text of the evaluation part of the pages; ``target_columns``
    the scored columns of the submission when known (empty otherwise).
    """
    metric_id = rule.metric_id
    params: dict[str, Any] = {}
    notes = [rule.note] if rule.note else []
    if metric_id == "map_at_k":
        k = _K_RE.search(match.group(0))
        if k:
            params["k"] = int(k.group(1))
    elif metric_id == "iou_thresholds_map":
        thresholds = _iou_thresholds(eval_plain)
        if thresholds:
            params["thresholds"] = thresholds
    elif metric_id == "levenshtein_normalized":
        if _DIVIDED_BY_TRUE_RE.search(eval_plain):
            metric_id = "levenshtein_per_true"
        else:
            notes.append(_REFINED_NOTES["levenshtein_normalized"])
    elif metric_id == "log_loss":
        if len(target_columns) >= 3 or _MULTICLASS_RE.search(eval_plain):
            metric_id = "multiclass_log_loss"
    elif metric_id == "roc_auc":
        if len(target_columns) >= 2 and _COLUMNWISE_RE.search(eval_plain) and not rule.note:
            metric_id = "roc_auc_columnwise"
    elif metric_id == "spearman" and len(target_columns) != 1 and re.search(
            r"column-?wise", match.string, re.I):
        notes.append(_REFINED_NOTES["spearman"])
    elif metric_id == "rmsle" and re.search(r"column-?wise", match.string, re.I):
        notes.append(_REFINED_NOTES["rmsle"])
    return metric_id, params, notes
