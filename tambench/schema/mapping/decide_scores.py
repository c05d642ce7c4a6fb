"""Decisions for families of scores over labels and numbers: AUC, log loss, the squared,
absolute and percentage errors, accuracy, recall, F-scores, Dice, Gini, correlations.

Each function reads the page's modifiers from a :class:`MetricContext` and returns the one id
that computes the page's metric, with the parameters the text settles, or the reason none
does. Where a family has several registered variants (sets or single labels, spans of
characters or of answers, beta, the form of a weighted error), the text must settle which one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tambench.schema.mapping.metric_context import (
    IOU,
    MACRO,
    MASKS,
    MICRO,
    MULTICLASS,
    NUMBER,
    Decision,
    MetricContext,
    binary,
    columnwise,
    id_,
    iou_thresholds,
    label_sets,
    none_,
    numbers,
    r_,
    weighted,
)
from tambench.schema.mapping.metric_params import (
    EPS_AUTO,
    eps_auto,
    extra_checks,
    grouping_column,
    row_filter,
    steps_column,
    tpr_bands,
    weights_of,
)

Decide = Callable[[MetricContext, re.Match[str]], Decision]

_BIAS = r_(r"\bbias\b|\bsubgroups?\b|\bbpsn\b|\bbnsp\b|\bgenerali[sz]ed (?:power )?mean")
_TPR_LIST_RE = r_(r"\btpr_thresholds\s{0,5}=\s{0,5}\[([^\[\]]{0,500})\]")
_WEIGHT_LIST_RE = r_(r"\bweights\s{0,5}=\s{0,5}\[([^\[\]]{0,500})\]")
_ROW_FILTER_RE = r_(r"\b(?:calculated|computed|evaluated|scored) only (?:for|on) "
                    r"(?:\w{1,40}\s{1,3}){0,3}?(?:with|where|whose|that)\b")
_COLUMNWISE_RMSLE = r_(r"\bmean (?:of )?(?:the )?rmsle (?:over|across|of) (?:all |the |each )?"
                       r"(?:\w+ )?columns")
_STEPPED = r_(r"\b(?:stepped|solved|evolved|run) forward\b|\bevolved (?:by )?(?:the )?"
              r"(?:specified|given) (?:number of )?steps\b")
_LIFE = r_(r"\bgame of life\b|\bconway\b")
_UNIT_RE = r_(r"\b(?:for (?:each|every)|per|within each) ((?:[a-z]{2,20} ){0,2}?[a-z]{2,20})"
              r"(?= ?[,.;:(]| and\b| then\b| in\b| of\b|$)")
_GLOBAL = r_(r"\bglobal\b|\bpooled\b|\bover all pixels\b")
_FBETA_IN = r_(r"\bf ?(?:2|0?\.5)\b|\bbeta\s*=")
_BETA_RE = r_(rf"\bbeta\s*=\s*({NUMBER})")
_CHAR_SPANS = r_(r"\bcharacter (?:spans?|indices|index|positions|offsets|level)\b"
                 r"|\beach character index\b")
_ANSWER_SPANS = r_(r"\btoken indices\b|\bstart:end\b|\blong (?:and|or) short answers?\b"
                   r"|\banswer spans?\b")
_SPAN = r_(r"\bspans?\b")
_POINTS = r_(r"\bcent(?:er|re) points?")
_BOXES = r_(r"\bbounding (?:box|volume)|\bboxes\b")
_MEAN_F1 = r_(r"\bmean f[ -]?1|\bmeanfscore\b|\bmean f[ -]?score|\baverage f[ -]?1")
_HIERARCHICAL = r_(r"\bhierarch|\bweighted (?:average|mean|sum) of")
_SKLEARN_MACRO_RECALL = r_(r"\brecall_score\b[^)]{0,120}average\s*=\s*['\"]macro")
_GROUP_NAMES_RE = re.compile(r"\bfor \w{1,40} in \[([^\[\]]{1,300})\]")
_NORMALISED = r_(r"\bnormali[sz]ed\b")
_FREE_TEXT = r_(r"\bstrings?\b[^.]{0,60}\bmatch exactly\b|\bexact(?:ly)? match|\bsequence "
                r"accuracy\b|\bnormali[sz]ed text\b|\bpredicted text\b")
_PER_ROW = r_(r"\bfor each (?:set|row|group|sequence|list)\b|\bper (?:set|row|group)\b"
              r"|\bwithin each (?:set|row|group)\b")


def unit_of(ctx: MetricContext) -> str | None:
    """The unit a score is computed per ("for each scalar coupling type" -> "type"), read from
    the metric's sentence first, then the evaluation text."""
    for text in (ctx.sentence, ctx.window):
        m = _UNIT_RE.search(text)
        if m:
            head = m.group(1).split()[-1].lower()
            return head[:-1] if head.endswith("s") and len(head) > 4 else head
    return None


def grouped(metric_id: str, what: str, ctx: MetricContext, **params: object) -> Decision:
    """``metric_id`` with its grouping column settled by the text, or the reason not."""
    unit = unit_of(ctx)
    column = grouping_column(ctx, unit) if unit else None
    if column is None:
        return none_(f"{what} computed per {unit or 'group'}, and no column of the submission "
                     "or of the data description is settled as holding it")
    return id_(metric_id, groups_column=column, **params)


def plain(metric_id: str, what: str) -> Decide:
    """A family with one id, unless the page weights it."""
    def decide(ctx: MetricContext, m: re.Match[str]) -> Decision:
        return none_(f"a weighted {what}") if weighted(ctx) else id_(metric_id)
    return decide


# --- probabilities -----------------------------------------------------------------------------


def _weighted_auc(ctx: MetricContext) -> Decision:
    """weighted_auc_tpr for bands and weights stated as lists or in prose, on every row or on
    the rows a stated filter keeps."""
    listed = _TPR_LIST_RE.search(ctx.window), _WEIGHT_LIST_RE.search(ctx.window)
    bands = ((numbers(listed[0].group(1)), numbers(listed[1].group(1)))
             if listed[0] and listed[1] else tpr_bands(ctx.window))
    if bands is None or len(bands[0]) != len(bands[1]) + 1 or bands[0] != sorted(bands[0]):
        return none_("a weighted area under the ROC curve whose TPR bands and weights the page "
                     "does not state")
    params: dict[str, object] = {"tpr_thresholds": bands[0], "weights": bands[1]}
    kept = row_filter(ctx)
    if kept is not None:
        params |= {"filter_column": kept[0], "filter_above": kept[1]}
    elif _ROW_FILTER_RE.search(ctx.window):
        return none_("a weighted area under the ROC curve over a subset of rows the page "
                     "does not tie to a column and threshold")
    checks = extra_checks(ctx)
    notes = (f"the page also requires checks the metric does not run: {checks!r}",) if checks else ()
    return Decision("weighted_auc_tpr", params, notes=notes)


def auc(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if weighted(ctx):
        return _weighted_auc(ctx)
    if _BIAS.search(ctx.window):
        return id_("jigsaw_bias_auc")
    if columnwise(ctx):
        return id_("roc_auc_columnwise")
    if label_sets(ctx) and MACRO.search(ctx.window):
        return id_("roc_auc_macro_multilabel")
    if len(ctx.targets) >= 2:
        return none_(f"an area under the ROC curve over {len(ctx.targets)} columns, combined "
                     "in a way the page does not state")
    return id_("roc_auc")


def log_loss(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if weighted(ctx):
        return none_("a weighted log loss")
    multiclass = MULTICLASS.search(ctx.window) or MULTICLASS.search(ctx.near)
    if columnwise(ctx) and not multiclass:
        return none_("a log loss averaged over columns")
    eps = {"eps": EPS_AUTO} if eps_auto(ctx) else {}
    if multiclass or len(ctx.targets) >= 2:
        return id_("multiclass_log_loss", **eps)
    return id_("log_loss", **eps)


def gini(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if weighted(ctx):
        return none_("a weighted Gini coefficient")
    if _NORMALISED.search(ctx.near) or _NORMALISED.search(ctx.sentence):
        return id_("normalized_gini")
    return none_("a Gini coefficient the page does not say is normalised (a raw Gini depends "
                 "on the share of positives; only the normalised one is registered)")


# --- errors ------------------------------------------------------------------------------------


def rmse(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if weighted(ctx):
        return none_("a weighted root mean squared error")
    if columnwise(ctx) and len(ctx.targets) != 1:
        return id_("mcrmse")
    return id_("rmse")


def rmsle(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if weighted(ctx):
        return none_("a weighted root mean squared logarithmic error")
    if (columnwise(ctx) or _COLUMNWISE_RMSLE.search(ctx.window)) and len(ctx.targets) != 1:
        return id_("rmsle_columnwise")
    return id_("rmsle")


def mae(ctx: MetricContext, m: re.Match[str]) -> Decision:
    """mae; weighted_mae in the form the page states; game_of_life_mae when the predictions
    are stepped forward by Life before the comparison."""
    if _STEPPED.search(ctx.window):
        steps = steps_column(ctx)
        if _LIFE.search(ctx.page or ctx.window) or steps:
            if steps is None:
                return none_("a mean absolute error of boards stepped forward by a number of "
                             "steps no listed column holds")
            return id_("game_of_life_mae", delta_column=steps)
        return none_("a mean absolute error of predictions transformed before the comparison")
    if weighted(ctx) or m.group(0).lower().startswith("w"):
        params = weights_of(ctx)
        if params is None:
            return none_("a weighted mean absolute error whose weights (a column, or a rule on "
                         "one) or whose divisor the page does not settle")
        return id_("weighted_mae", **params)
    return id_("mae")


def mean_log_mae(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return grouped("mean_log_mae", "a mean over groups of the log of their MAE", ctx)


# --- labels --------------------------------------------------------------------------------------


def balanced_accuracy(ctx: MetricContext, m: re.Match[str]) -> Decision:
    """Macro recall; per group with stated weights when the page combines groups."""
    classes = {"classes": "union"} if _SKLEARN_MACRO_RECALL.search(ctx.window) else {}
    if not (_HIERARCHICAL.search(ctx.window) or weighted(ctx)):
        return id_("balanced_accuracy", **classes)
    names = _GROUP_NAMES_RE.search(ctx.window)
    weights = _WEIGHT_LIST_RE.search(ctx.window)
    groups = [n.strip(" '\"") for n in names.group(1).split(",")] if names else []
    values = numbers(weights.group(1)) if weights else []
    if not groups or len(groups) != len(values):
        return none_("a weighted combination of macro-averaged recalls whose groups and "
                     "weights the page does not list")
    return grouped("balanced_accuracy", "a weighted combination of macro recalls", ctx,
                    group_weights=dict(zip(groups, values, strict=True)), **classes)


def accuracy(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if weighted(ctx):
        return none_("a weighted accuracy")
    if _FREE_TEXT.search(ctx.window):
        return id_("exact_match")
    return id_("accuracy")


def f1(ctx: MetricContext, m: re.Match[str]) -> Decision:
    """F1 by what it is computed over: character spans, answer spans, points in boxes, classes
    (macro, weighted, micro over single labels or over label sets), row sets, one class."""
    if _CHAR_SPANS.search(ctx.window):
        return (id_("char_span_micro_f1") if MICRO.search(ctx.window)
                else none_("an F1 over character spans not pooled over rows"))
    if _ANSWER_SPANS.search(ctx.window):
        return (id_("span_micro_f1") if MICRO.search(ctx.window)
                else none_("an F1 over answer spans not pooled over rows"))
    if _SPAN.search(ctx.window):
        return none_("an F1 over spans whose matching (character indices, exact answer spans, "
                     "overlap) the page does not state")
    if _POINTS.search(ctx.window) and _BOXES.search(ctx.window):
        return id_("point_in_box_f1")
    if MASKS.search(ctx.window):
        return none_("an F1 over masks")
    if MACRO.search(ctx.near) or MACRO.search(ctx.sentence):
        return id_("f1_macro")
    if weighted(ctx):
        return id_("f1_weighted")
    if MICRO.search(ctx.window):
        if label_sets(ctx):
            return id_("f1_micro_multilabel")
        return id_("f1_micro") if ctx.values else none_(
            "a micro F1 whose predictions (one label or a set of labels per row) the page does "
            "not show")
    if label_sets(ctx):
        return (id_("rowwise_set_f1") if _MEAN_F1.search(ctx.sentence)
                else none_("an F1 score over label sets, averaged in a way the page does not "
                           "state"))
    if binary(ctx):
        return id_("f1")
    return none_("an F1 score whose averaging over classes the page does not state")


def fbeta(ctx: MetricContext, m: re.Match[str]) -> Decision:
    """F-beta of pixels (run-length masks), of objects over IoU thresholds, or of one class."""
    digits = re.search(NUMBER, m.group(0))
    stated = _BETA_RE.search(ctx.window)
    beta = float(stated.group(1)) if stated else float(digits.group(0)) if digits else None
    if beta is None:
        return none_("an F-beta score whose beta the page does not state")
    if MASKS.search(ctx.window):
        if IOU.search(ctx.window):
            thresholds = iou_thresholds(ctx.window)
            if not thresholds:
                return none_("an F-beta score of objects over IoU thresholds the page does not "
                             "state")
            return id_("mask_object_fbeta", beta=beta, thresholds=thresholds)
        average = {"average": "pooled"} if _GLOBAL.search(ctx.window) else {}
        return id_("rle_f_beta", beta=beta, **average)
    if label_sets(ctx):
        return none_("an F-beta score over label sets")
    if binary(ctx):
        return id_("fbeta", beta=beta)
    return none_("an F-beta score whose classes the page does not state")


def dice(ctx: MetricContext, m: re.Match[str]) -> Decision:
    """Dice over masks: per image or global; a Dice "using the F0.5 instead of the F1" is
    that F-beta."""
    fb = _FBETA_IN.search(ctx.sentence)
    if fb is not None:
        return fbeta(ctx, fb)
    if weighted(ctx):
        return none_("a weighted Dice coefficient")
    return id_("global_dice") if _GLOBAL.search(ctx.near) else id_("dice")


# --- correlations ------------------------------------------------------------------------------


def spearman(ctx: MetricContext, m: re.Match[str]) -> Decision:
    if columnwise(ctx):
        return id_("spearman_columnwise")
    if label_sets(ctx) or _PER_ROW.search(ctx.window):
        if label_sets(ctx):
            return id_("spearman_orders")
        return none_("a Spearman correlation computed within groups the page does not show as "
                     "one list per row")
    return id_("spearman")


def pearson(ctx: MetricContext, m: re.Match[str]) -> Decision:
    return none_("a mean column-wise Pearson correlation") if columnwise(ctx) else id_("pearson")
