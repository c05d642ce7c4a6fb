"""What a metric decision reads, what it returns, and the modifiers pages put beside a metric.

A :class:`MetricContext` holds the sentence naming the metric, the evaluation text around it,
the submission's columns and example cells, and the data description's field list; a
:class:`Decision` is the one id (with parameters) that computes the page's metric exactly, or
the reason none does. The predicates here read the common modifiers: weighted or not,
column-wise, label sets, binary labels, masks or boxes, IoU thresholds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


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

    header: tuple[str, ...] = ()
    """The submission's header, when known."""

    ids: tuple[str, ...] = ()
    """The submission's id columns, when known."""

    fields: tuple[tuple[str, str], ...] = ()
    """Columns the data description lists, with their descriptions ("delta", "the number of
    steps between the start and stop boards")."""

    data: str = ""
    """The data description's text (its first part), for column names it mentions."""

    page: str = ""
    """The whole page's text (its first part), for facts stated outside the evaluation part
    (the layout of a box, the name of the game)."""


@dataclass(frozen=True)
class Decision:
    """The metric id that computes the page's metric exactly, or why there is none."""

    metric_id: str | None
    params: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    """Why no id computes the page's metric (empty when ``metric_id`` is set)."""

    notes: tuple[str, ...] = ()
    """Remarks for provenance (what the page adds that the metric does not check)."""


def r_(pattern: str) -> re.Pattern[str]:
    """A case-insensitive pattern."""
    return re.compile(pattern, re.IGNORECASE)


def id_(metric_id: str, **params: Any) -> Decision:
    """The decision for ``metric_id`` with ``params``."""
    return Decision(metric_id, dict(params))


def none_(what: str) -> Decision:
    """No id computes the page's metric, ``what`` it is ("a weighted log loss")."""
    return Decision(None, reason=f"the page's metric is {what}; no metric id computes it")


WEIGHTED = r_(r"(?<!quadratic )(?<!quadratically )(?<!label[- ])\bweighted\b|\bw(?:mae|rmse)\b")
COLUMNWISE = r_(
    r"\bcolumn[- ]?wise|\beach (?:of the )?(?:\d+ |two |three |\w+ )?(?:target |label |output "
    r"|predicted )?columns?\b|\bper[- ]column\b|\b(?:averaged?|mean) (?:over|across|of) (?:the "
    r"|all |each )?(?:\d+ |two |three )?(?:target |label |predicted |output )?columns\b"
    r"|\bfor each (?:target|column|label column)\b|\bindividual (?:aucs|columns|scores)\b"
    r"|\b(?:across|over) (?:all |the |each )?(?:\d+ )?(?:target |label |predicted |output )?"
    r"columns\b"
    r"|\bfor each of the (?:\d+|\w+) (?:\w{1,40}\s{1,3}){0,2}?(?:categories|classes|labels"
    r"|targets|columns|traits|outputs|defects)\b[^.]{0,60}\baverag")
MULTICLASS = r_(
    r"\bmulti[- ]?class\b|\beach (?:target )?class\b|\bevery class\b|\bclass probabilit"
    r"|\bprobabilit(?:y|ies) for each\b|\beach of the (?:\d+|\w+) (?:possible )?(?:classes"
    r"|categories|labels)")
SETS_TEXT = r_(r"\bspace[- ]?(?:delimited|separated)|\bmultiple (?:labels|tags|attributes)"
               r"|\b(?:one|1) or more (?:labels|tags|attributes|classes)")
BINARY_TEXT = r_(r"\bbinary\b|\bpositive class\b")
BOXES = r_(r"\bbounding (?:box|volume)|\bboxes\b|\bx_?min\b|\bbbox|\bpascal voc\b")
BOX3D = r_(r"\b3 ?-?d\b|\bthree[- ]dimensional|\bbounding volumes?|\bcuboid")
MASKS = r_(r"\brun[- ]?length|\brle\b|\bencoded[ _]?pixels|\bmasks?\b")
IOU = r_(r"\biou\b|\bintersection over union")
MACRO = r_(r"\bmacro\b")
MICRO = r_(r"\bmicro\b")
#: Rows (observations, samples) carrying their own weights in the score.
ROW_WEIGHTS = r_(r"\b(?:each|every) (?:observation|row|sample|record|instance|example|data point"
                 r"|prediction)s? (?:will be|is|are|gets?) weighted\b"
                 r"|\bweighted (?:by|according to|as (?:indicated|given) (?:by|in)) (?:the|its|their"
                 r"|a) [\w ]{0,30}?(?:column|field|variable)\b"
                 r"|\b(?:sample|row|observation|instance) weights\b")
_K_RE = r_(r"@\s*(\d+)|\bat\s+(\d+)\b|\bk\s*=\s*(\d+)\b")
NUMBER = r"(?:\d+(?:\.\d+)?|\.\d+)"
_ID_LIKE = re.compile(r"[A-Za-z]?\d+|[0-9a-f]{2,}")


def label_sets(ctx: MetricContext) -> bool:
    """Whether predictions are label sets: the text says so ("space-delimited", "one or more
    labels"), or example cells hold lists of different lengths, one of three labels or more,
    or lists of several id-like labels ("0 1 2": two-word labels such as "Sugar beet" are not
    sets)."""
    if SETS_TEXT.search(ctx.window):
        return True
    counts = {len(v.split()) for v in ctx.values}
    if len(counts) > 1 and max(counts) >= 3:
        return True
    return any(len(v.split()) > 1 and all(_ID_LIKE.fullmatch(t) for t in v.split())
               for v in ctx.values)


def binary(ctx: MetricContext) -> bool:
    cells = {v.strip().lower() for v in ctx.values}
    return bool(cells) and cells <= {"0", "1", "0.0", "1.0", "true", "false"} or bool(
        BINARY_TEXT.search(ctx.window))


def columnwise(ctx: MetricContext) -> bool:
    return bool(COLUMNWISE.search(ctx.window))


def weighted(ctx: MetricContext) -> bool:
    """"weighted" beside the metric's name, or rows weighted anywhere in the evaluation text
    ("Each observation will be weighted as indicated by the weight column")."""
    return bool(WEIGHTED.search(ctx.near) or ROW_WEIGHTS.search(ctx.window))


def k_of(text: str) -> dict[str, int]:
    """{"k": n} from "@5", "at 5" or "k=5"; {} when the text states no k."""
    m = _K_RE.search(text)
    return {"k": int(m.group(1) or m.group(2) or m.group(3))} if m else {}


_IOU_RANGE_RE = r_(r"\b(?:range|ranging|sweeps?) from (\d*\.\d+) to (\d*\.\d+) (?:with|in|at) "
                   r"(?:a )?steps?(?: size)? of (\d*\.\d+)")
_IOU_SINGLE_RE = r_(r"\biou\s*(?:>|>=|≥|above|greater than|of at least|threshold of)\s*`?"
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


def numbers(text: str) -> list[float]:
    """The numbers written in ``text``, signed."""
    return [float(x) for x in re.findall(rf"-?{NUMBER}", text)]
