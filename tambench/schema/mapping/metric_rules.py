"""From a metric family and its context to the one metric id that computes it exactly.

:mod:`~tambench.schema.mapping.metric_terms` finds which family a sentence names ("auc",
"f1", "rmsle"). Which registered id computes the page's metric exactly depends on what the
page says around it: column-wise or pooled, weighted or not, multi-class or binary, label sets
or single labels, boxes or masks. :data:`DECIDE` holds one function per family
(:mod:`~tambench.schema.mapping.decide_scores`,
:mod:`~tambench.schema.mapping.decide_structures`) that reads those modifiers and returns a
:class:`Decision`:

* an id and its parameters, when one computes the metric exactly (the id may not be registered
  in this installation yet: the caller then leaves the metric empty and says so);
* or no id and the reason, when no id computes it ("a weighted log loss") or the text does not
  settle which registered variant does. A near neighbour is never chosen: a wrong metric
  grades silently wrong, an empty one is visible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tambench.schema.mapping.decide_scores as sc
import tambench.schema.mapping.decide_structures as st
from tambench.core.metrics import METRICS
from tambench.schema.mapping.metric_context import Decision, MetricContext, iou_thresholds
from tambench.schema.mapping.metric_terms import find_family, fold

__all__ = ["DECIDE", "Decision", "MetricContext", "decide", "iou_thresholds", "is_registered",
           "match_sentence"]

#: Family -> decision. Every family of ``metric_terms.FAMILY_TERMS`` has one (tested).
DECIDE: dict[str, sc.Decide] = {
    "weighted_multilabel_log_loss": st.fixed("weighted_multilabel_log_loss"),
    "balanced_log_loss": sc.plain("balanced_log_loss", "class-balanced log loss"),
    "log_loss": sc.log_loss,
    "kl_divergence": st.fixed("kl_divergence"),
    "mcrmse": st.fixed("mcrmse"),
    "rmspe": sc.plain("rmspe", "root mean squared percentage error"),
    "rmsle": sc.rmsle,
    "rmse": sc.rmse,
    "msle": st.absent("a mean squared logarithmic error"),
    "smape": sc.plain("smape", "symmetric mean absolute percentage error"),
    "mape": sc.plain("mape", "mean absolute percentage error"),
    "mse": sc.plain("mse", "mean squared error"),
    "median_ae": sc.plain("median_absolute_error", "median absolute error"),
    "log_mae": sc.mean_log_mae,
    "mae": sc.mae,
    "dice_hausdorff": st.fixed("dice_hausdorff_3d"),
    "global_dice": st.fixed("global_dice"),
    "dice": sc.dice,
    "top_k_error": st.top_k("top1_error", "error"),
    "error_rate": st.fixed("top1_error"),
    "map_at_k": st.map_at_k,
    "detection_map": st.detection_map,
    "map": st.detection_map,
    "mrr": st.mrr,
    "ndcg": st.ndcg,
    "gini": sc.gini,
    "pr_auc": st.absent("an area under the precision-recall curve"),
    "auc": sc.auc,
    "mcc": st.fixed("mcc"),
    "qwk": st.fixed("qwk"),
    "kappa": st.kappa,
    "spearman": sc.spearman,
    "pearson": sc.pearson,
    "kendall": st.kendall,
    "probabilistic_f1": st.fixed("probabilistic_f1"),
    "fbeta": sc.fbeta,
    "f1": sc.f1,
    "levenshtein": st.levenshtein,
    "jaccard": st.jaccard,
    "iou": st.absent("an intersection over union"),
    "lwlrap": st.fixed("lwlrap"),
    "lrap": st.fixed("label_ranking_average_precision"),
    "angular_error": st.fixed("mean_angular_error"),
    "haversine": st.haversine,
    "distance_error": st.distance,
    "laplace": st.fixed("laplace_log_likelihood"),
    "pose_maa": st.fixed("pose_maa"),
    "balanced_accuracy": sc.balanced_accuracy,
    "exact_match": st.fixed("exact_match"),
    "top_k_accuracy": st.top_k("accuracy", "accuracy"),
    "accuracy": sc.accuracy,
    "r2": st.r2,
    "wer": st.absent("a word error rate"),
    "cer": st.absent("a character error rate"),
    "bleu": st.absent("a BLEU score"),
    "rouge": st.absent("a ROUGE score"),
    "ssim": st.absent("a structural similarity index"),
    "psnr": st.absent("a peak signal-to-noise ratio"),
    "crps": st.absent("a continuous ranked probability score"),
    "pinball": st.absent("a pinball (quantile) loss"),
    "sharpe": st.absent("a Sharpe ratio"),
    "precision_at_k": st.absent("a precision at k"),
    "recall_at_k": st.absent("a recall at k"),
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
        ["normalized_gini", "balanced_log_loss", "accuracy", "balanced_accuracy", "roc_auc",
         "roc_auc_columnwise", "roc_auc_macro_multilabel", "log_loss", "multiclass_log_loss",
         "weighted_multilabel_log_loss", "kl_divergence", "f1", "f1_micro", "f1_macro",
         "f1_weighted", "fbeta", "mcc", "qwk", "top1_error", "lwlrap",
         "label_ranking_average_precision", "rowwise_set_f1", "weighted_author_auc",
         "exact_match", "weighted_auc_tpr", "jigsaw_bias_auc", "f1_micro_multilabel",
         "probabilistic_f1"], "classification"),
    **dict.fromkeys(
        ["weighted_mae", "median_absolute_error", "rmspe", "game_of_life_mae", "rmse", "mse",
         "mae", "rmsle", "mcrmse", "mean_log_mae", "smape", "mape", "r2",
         "r2_mean_columnwise", "pearson", "spearman", "haversine_mean", "mean_angular_error",
         "laplace_log_likelihood", "pose_maa", "rmsle_columnwise", "spearman_columnwise",
         "haversine_p50_p95"], "regression"),
    **dict.fromkeys(["ndcg_at_k", "spearman_orders", "map_at_k", "mrr_at_k", "map_at_k_lines",
                     "mean_ap_per_paper", "kendall_tau", "kendall_tau_orders"], "ranking"),
    **dict.fromkeys(["levenshtein_normalized", "levenshtein_per_true", "levenshtein_mean",
                     "jaccard_words", "span_micro_f1", "char_span_micro_f1"], "generation"),
    **dict.fromkeys(["mask_object_fbeta", "dice", "global_dice", "dice_hausdorff_3d",
                     "rle_f_beta", "iou_thresholds_map"], "segmentation"),
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
