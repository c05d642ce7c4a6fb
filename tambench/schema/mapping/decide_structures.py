"""Decisions for families scored over structures: detections (boxes, masks), rankings, edit
distances, word overlaps, distances on the globe, and the fixed and absent families.

As in :mod:`~tambench.schema.mapping.decide_scores`, a family with several registered forms
(per-class AP or per-image precision, labelled corners or unlabelled width and height, one
relevant item per row or several) takes the form the text settles, or none.
"""

from __future__ import annotations

import re

from tambench.schema.mapping.decide_scores import Decide, grouped
from tambench.schema.mapping.metric_context import (
    BOX3D,
    BOXES,
    IOU,
    MASKS,
    Decision,
    MetricContext,
    columnwise,
    id_,
    iou_thresholds,
    k_of,
    none_,
    r_,
)
from tambench.schema.mapping.metric_params import box_layout, detection_form, relevant_items

_ORDERS = r_(r"\border(?:s|ing)?\b|\bswaps?\b|\bcells?\b")
_PERCENTILES = r_(r"\b50th\b|\b95th\b|\bpercentiles?")
_LATLON = r_(r"\blatitude|\blongitude|\blat\b|\blng\b|\blon\b")
_PER_TRUE = r_(
    r"\b(?:divided|normali[sz]ed) by (?:the )?total number of (?:\w{1,40}\s{1,3}){0,2}?"
    r"(?:gestures|tokens|labels|characters|words|elements|items|in the (?:truth|ground truth))")
_NORMALISED = r_(r"\bnormali[sz]ed|\bdivided by (?:the )?(?:length|max|maximum|longer|longest)")
_WORD_LEVEL = r_(r"\bword[- ]level|\bwords?\b")
_MEAN = r_(r"\bmean\b")


def _boxes(ctx: MetricContext, thresholds: list[float]) -> Decision:
    form = detection_form(ctx)
    if form is None:
        return none_("a mean average precision of boxes whose form (a per-class average "
                     "precision, or a per-image TP / (TP + FP + FN)) the page does not state")
    params: dict[str, object] = {"form": form}
    if thresholds:
        params["iou_thresholds"] = thresholds
    if BOX3D.search(ctx.window):
        return id_("box3d_map", **params)
    layout = box_layout(ctx)
    if layout is None:
        return none_("a mean average precision of boxes written in a layout (labelled corners, "
                     "or confidence x y width height) the page does not settle")
    return id_("box_map", layout=layout, **params)


def detection_map(ctx: MetricContext, m: re.Match[str]) -> Decision:
    """Boxes or masks over IoU thresholds; otherwise a MAP@k."""
    thresholds = iou_thresholds(ctx.window)
    if IOU.search(ctx.window):
        if BOXES.search(ctx.window):
            return _boxes(ctx, thresholds)
        if MASKS.search(ctx.window):
            if detection_form(ctx) == "class_ap":
                return none_("a per-class average precision of masks")
            return id_("iou_thresholds_map", **({"thresholds": thresholds} if thresholds else {}))
        return none_("a mean average precision over IoU thresholds of objects the page does "
                     "not describe as boxes or masks")
    if k_of(ctx.near):
        return map_at_k(ctx, m)
    return none_("a mean average precision without a cutoff k or an IoU threshold")


def map_at_k(ctx: MetricContext, m: re.Match[str]) -> Decision:
    """MAP@k; one relevant item per row or several, when the page says which."""
    params: dict[str, object] = dict(k_of(m.group(0)) or k_of(ctx.sentence))
    relevant = relevant_items(ctx)
    if relevant is not None:
        params["relevant"] = relevant
    return id_("map_at_k", **params)


def mrr(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return id_("mrr_at_k", **k_of(ctx.near))


def ndcg(ctx: MetricContext, m: re.Match[str]) -> Decision:
    k = k_of(m.group(0)) or k_of(ctx.sentence) or k_of(ctx.near)
    if not k:
        return none_("a normalised discounted cumulative gain without a cutoff k")
    if relevant_items(ctx) != "single":
        return none_("a normalised discounted cumulative gain whose relevance (one relevant "
                     "item per row, or graded) the page does not state")
    return id_("ndcg_at_k", **k)


def kendall(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return id_("kendall_tau_orders") if _ORDERS.search(ctx.window) else id_("kendall_tau")


def levenshtein(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _PER_TRUE.search(ctx.window):
        return id_("levenshtein_per_true")
    if _NORMALISED.search(ctx.window):
        return id_("levenshtein_normalized")
    return id_("levenshtein_mean")


def jaccard(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return (id_("jaccard_words") if _WORD_LEVEL.search(ctx.sentence)
            else none_("a Jaccard index whose unit (words, characters, pixels) the page does "
                       "not state"))


def haversine(ctx: MetricContext, m: re.Match[str]) -> Decision:
    """The mean great-circle distance, or the mean over groups of its 50th and 95th
    percentiles, grouped by the column the text settles."""
    if _PERCENTILES.search(ctx.sentence):
        return grouped("haversine_p50_p95", "the mean of the 50th and 95th percentile distance "
                       "errors", ctx)
    return id_("haversine_mean")


def distance(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if _LATLON.search(ctx.window) or any(_LATLON.search(t) for t in ctx.targets):
        return haversine(ctx, m)
    return none_("a distance error between points of a space the page does not name")


def r2(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return (id_("r2_mean_columnwise") if columnwise(ctx) or _MEAN.search(ctx.near)
            else id_("r2"))


def kappa(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return none_("Cohen's kappa without quadratic weights")


def top_k(metric_id: str, what: str) -> Decide:
    def decide(ctx: MetricContext, m: re.Match[str]) -> Decision:
        k = int(m.group(1))
        return id_(metric_id) if k == 1 else none_(f"a top-{k} {what}")
    return decide


def fixed(metric_id: str) -> Decide:
    def decide(ctx: MetricContext, m: re.Match[str]) -> Decision:
        return id_(metric_id)
    return decide


def absent(what: str) -> Decide:
    def decide(ctx: MetricContext, m: re.Match[str]) -> Decision:
        return none_(what)
    return decide
