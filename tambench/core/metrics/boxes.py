"""Detection metrics: mAP of labelled 2-D boxes, of 3-D boxes with a yaw, point-in-box F1.

A detection cell lists objects one after another, each as a fixed number of space-separated
tokens (Kaggle's ``PredictionString``):

* 2-D boxes (:func:`box_map`): ``label confidence x_min y_min x_max y_max``;
* 3-D boxes (:func:`box3d_map`): ``confidence center_x center_y center_z width length height
  yaw label``;
* points (:func:`point_in_box_f1`): predictions ``label x y``, answers ``label x y width
  height``.

Answers use the same layout as predictions (their confidence is ignored). An empty cell has no
object. A token that is not a finite number where a number belongs, a box whose maximum is
below its minimum, or a size that is not positive makes the submission invalid, with the row
and token named.

Average precision follows PASCAL VOC (2010 onwards), which the box competitions name: per
class, detections of every row are ranked by confidence; each is matched to the true box of
its row with the largest IoU; above the threshold and not matched before, it is a true
positive, else a false positive; AP is the area under the precision envelope at every recall
step. Detections of equal confidence form one step, so that the score does not depend on the
order of the rows; within one row, equal confidences are matched in the cell's order. mAP is
the mean over the classes present in the answers (a predicted class absent from the answers is
not scored), averaged over the IoU thresholds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from tambench.core.metrics._common import as_str_1d, choice, same_length
from tambench.core.metrics.base import register
from tambench.core.metrics.geometry import iou_2d, iou_3d
from tambench.core.metrics.masks import raise_bad_rows
from tambench.errors import MetricParameterError, TaskDataError

IouFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
Form = Literal["class_ap", "image_precision"]
FORMS: tuple[Form, ...] = ("class_ap", "image_precision")

#: Kaggle's sweep 0.50, 0.55, ..., 0.95.
IOU_SWEEP = [round(0.5 + 0.05 * i, 2) for i in range(10)]
#: Kuzushiji's limit of predictions per page.
MAX_POINTS_PER_ROW = 1200


class CellError(ValueError):
    """A malformed detection cell; the message names the token."""


@dataclass(frozen=True)
class Layout:
    """Where the label, confidence and numbers sit in one object's tokens."""

    width: int
    label: int | None
    """Token index of the label; None for unlabelled objects (every label is "")."""
    confidence: int | None
    numbers: tuple[int, ...]
    xywh: bool = False
    """The four numbers are ``x y width height`` (turned into ``x_min y_min x_max y_max``)."""


BOX_2D = Layout(width=6, label=0, confidence=1, numbers=(2, 3, 4, 5))
BOX_3D = Layout(width=9, label=8, confidence=0, numbers=(1, 2, 3, 4, 5, 6, 7))
POINT = Layout(width=3, label=0, confidence=None, numbers=(1, 2))
POINT_BOX = Layout(width=5, label=0, confidence=None, numbers=(1, 2, 3, 4))
#: Global Wheat Detection: unlabelled ``confidence x y width height`` boxes.
BOX_2D_XYWH = Layout(width=5, label=None, confidence=0, numbers=(1, 2, 3, 4), xywh=True)
#: The 2-D box layouts ``box_map`` reads, by name.
LAYOUTS_2D = {"label_conf_xyxy": BOX_2D, "conf_xywh": BOX_2D_XYWH}
#: Most objects a submitted detection cell may hold: matching costs objects x true objects per
#: threshold, and no competition's image holds anywhere near this many.
MAX_OBJECTS_PER_ROW = 10_000


@dataclass
class Objects:
    """The objects of one cell: labels, confidences (1.0 when absent) and numbers."""

    labels: np.ndarray
    confidence: np.ndarray
    values: np.ndarray


def _number(tok: str, k: int) -> float:
    try:
        x = float(tok)
    except ValueError:
        raise CellError(f"token {k + 1} {tok[:24]!r} is not a number") from None
    if not math.isfinite(x):
        raise CellError(f"token {k + 1} {tok[:24]!r} is not a finite number")
    return x


def parse_objects(cell: str, layout: Layout) -> Objects:
    """Split a cell into objects of ``layout`` and check every number.

    >>> parse_objects("opacity 0.5 10 10 20 20", BOX_2D).values.tolist()
    [[10.0, 10.0, 20.0, 20.0]]
    """
    tokens = cell.split()
    if len(tokens) % layout.width:
        raise CellError(f"{len(tokens)} tokens is not a whole number of objects of "
                        f"{layout.width} tokens each")
    n = len(tokens) // layout.width
    values = np.empty((n, len(layout.numbers)))
    conf = np.ones(n)
    labels = np.empty(n, dtype=object)
    for i in range(n):
        base = i * layout.width
        labels[i] = "" if layout.label is None else tokens[base + layout.label]
        if layout.confidence is not None:
            conf[i] = _number(tokens[base + layout.confidence], base + layout.confidence)
        for j, pos in enumerate(layout.numbers):
            values[i, j] = _number(tokens[base + pos], base + pos)
    if layout.xywh:
        if (values[:, 2:4] < 0).any():
            raise CellError(f"object {int(np.argmax((values[:, 2:4] < 0).any(axis=1))) + 1}: "
                            "width and height must be >= 0")
        values[:, 2:4] += values[:, 0:2]
    return Objects(labels, conf, values)


def _check_2d(obj: Objects) -> None:
    v = obj.values
    bad = (v[:, 2] < v[:, 0]) | (v[:, 3] < v[:, 1])
    if bad.any():
        i = int(np.argmax(bad))
        raise CellError(f"object {i + 1}: x_max/y_max below x_min/y_min ({v[i].tolist()})")


def _check_3d(obj: Objects) -> None:
    bad = (obj.values[:, 3:6] <= 0).any(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise CellError(f"object {i + 1}: width, length and height must be > 0, got "
                        f"{obj.values[i, 3:6].tolist()}")


def _check_point_box(obj: Objects) -> None:
    bad = (obj.values[:, 2:4] < 0).any(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise CellError(f"object {i + 1}: width and height must be >= 0")


def parse_column(cells: np.ndarray, layout: Layout, side: str,
                 check: Callable[[Objects], None] | None = None,
                 max_objects: int | None = None) -> list[Objects]:
    """Parse every cell; the submission's problems become one InvalidSubmissionError."""
    out: list[Objects] = []
    bad: list[str] = []
    for i, cell in enumerate(cells):
        try:
            obj = parse_objects(cell, layout)
            if check is not None:
                check(obj)
            if max_objects is not None and len(obj.labels) > max_objects:
                raise CellError(f"{len(obj.labels)} objects, more than the {max_objects} allowed")
        except CellError as exc:
            if side == "y_true":
                raise TaskDataError(f"answers row {i + 1}: {exc}") from None
            bad.append(f"row {i + 1}: {exc}")
            obj = Objects(np.empty(0, dtype=object), np.empty(0), np.empty((0, len(layout.numbers))))
        out.append(obj)
    raise_bad_rows(bad, "malformed detections")
    return out


# --- matching and average precision ---------------------------------------------------------


def _match_row(iou: np.ndarray, order: np.ndarray, threshold: float) -> np.ndarray:
    """VOC matching of one row's detections (in ``order``) to its true boxes: each detection
    takes its largest-IoU true box; above ``threshold`` and still free, it is a hit."""
    hits = np.zeros(iou.shape[0], dtype=bool)
    if iou.shape[1] == 0:
        return hits
    taken = np.zeros(iou.shape[1], dtype=bool)
    best = np.argmax(iou, axis=1)
    for d in order:
        g = best[d]
        if iou[d, g] > threshold and not taken[g]:
            taken[g] = True
            hits[d] = True
    return hits


def voc_average_precision(confidence: np.ndarray, hits: np.ndarray, n_true: int) -> float:
    """Area under the precision envelope; equal confidences form one recall step.

    >>> voc_average_precision(np.array([0.9, 0.8, 0.7]), np.array([True, False, True]), 2)
    0.8333333333333333
    """
    if n_true == 0:
        raise TaskDataError("average precision of a class without true objects is undefined")
    if confidence.size == 0:
        return 0.0
    order = np.argsort(-confidence, kind="stable")
    conf, tp = confidence[order], hits[order].astype(np.float64)
    last = np.append(conf[1:] != conf[:-1], True)
    tp_c = np.cumsum(tp)[last]
    seen = np.arange(1, conf.size + 1, dtype=np.float64)[last]
    recall = np.concatenate([[0.0], tp_c / n_true, [1.0]])
    precision = np.concatenate([[0.0], tp_c / seen, [0.0]])
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    step = np.flatnonzero(recall[1:] != recall[:-1])
    return float(np.sum((recall[step + 1] - recall[step]) * precision[step + 1]))


def class_map(truth: Sequence[Objects], pred: Sequence[Objects], iou_fn: IouFn,
              thresholds: Sequence[float]) -> float:
    """Mean over IoU thresholds of the mean over true classes of the VOC AP."""
    classes = sorted({str(c) for obj in truth for c in obj.labels})
    if not classes:
        raise TaskDataError("the answers hold no object: mean average precision is undefined")
    per_threshold = []
    for th in thresholds:
        aps = []
        for cls in classes:
            confs, hits, n_true = [], [], 0
            for t, p in zip(truth, pred, strict=True):
                tv = t.values[t.labels == cls]
                mine = np.flatnonzero(p.labels == cls)
                n_true += len(tv)
                if not mine.size:
                    continue
                iou = iou_fn(p.values[mine], tv)
                order = np.argsort(-p.confidence[mine], kind="stable")
                hits.append(_match_row(iou, order, th))
                confs.append(p.confidence[mine])
            aps.append(voc_average_precision(
                np.concatenate(confs) if confs else np.empty(0),
                np.concatenate(hits) if hits else np.empty(0, dtype=bool), n_true))
        per_threshold.append(float(np.mean(aps)))
    return float(np.mean(per_threshold))


def _row_precision(t: Objects, p: Objects, iou_fn: IouFn, thresholds: Sequence[float]) -> float | None:
    """Kaggle's per-image precision TP / (TP + FP + FN) averaged over thresholds; None for an
    image with neither true nor predicted objects (not scored)."""
    if not len(t.labels) and not len(p.labels):
        return None
    if not len(t.labels) or not len(p.labels):
        return 0.0
    iou = iou_fn(p.values, t.values)
    iou[p.labels[:, None] != t.labels[None, :]] = 0.0
    order = np.argsort(-p.confidence, kind="stable")
    scores = []
    for th in thresholds:
        # Only detections with some true box above the threshold can hit; matching stops once
        # every true box is taken, so duplicates of one box cost nothing more.
        candidates = order[(iou[order] > th).any(axis=1)]
        free = np.ones(len(t.labels), dtype=bool)
        tp = 0
        for d in candidates:
            cand = np.where(free & (iou[d] > th), iou[d], -1.0)
            g = int(np.argmax(cand))
            if cand[g] > th:
                free[g] = False
                tp += 1
                if tp == free.size:
                    break
        fp = len(p.labels) - tp
        fn = len(t.labels) - tp
        scores.append(tp / (tp + fp + fn))
    return float(np.mean(scores))


def image_precision(truth: Sequence[Objects], pred: Sequence[Objects], iou_fn: IouFn,
                    thresholds: Sequence[float]) -> float:
    """Mean over images of the per-image precision; images without any object are skipped,
    and all of them skipped scores 1.0."""
    rows = [_row_precision(t, p, iou_fn, thresholds) for t, p in zip(truth, pred, strict=True)]
    scored = [r for r in rows if r is not None]
    return float(np.mean(scored)) if scored else 1.0


def _thresholds(values: Any) -> list[float]:
    th = np.asarray(values, dtype=np.float64)
    if th.ndim != 1 or th.size == 0 or ((th < 0) | (th >= 1)).any():
        raise MetricParameterError(f"iou_thresholds: expected values in [0, 1), got {values!r}")
    return th.tolist()


def _detection_score(y_true: Any, y_pred: Any, layout: Layout, check: Callable[[Objects], None],
                     iou_fn: IouFn, thresholds: Any, form: str) -> float:
    th = _thresholds(thresholds)
    form = choice(form, "form", FORMS)
    t = as_str_1d(y_true, "y_true")
    p = as_str_1d(y_pred, "y_pred")
    same_length(t, p)
    truth = parse_column(t, layout, "y_true", check)
    pred = parse_column(p, layout, "y_pred", check, max_objects=MAX_OBJECTS_PER_ROW)
    score = class_map if form == "class_ap" else image_precision
    return score(truth, pred, iou_fn, th)


@register(
    "box_map",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="set",
    defaults={"iou_thresholds": [0.5], "form": "class_ap", "layout": "label_conf_xyxy"},
)
def box_map(y_true: Any, y_pred: Any, iou_thresholds: list[float] | None = None,
            form: str = "class_ap", layout: str = "label_conf_xyxy") -> float:
    """Mean average precision of labelled 2-D boxes at one or several IoU thresholds.

    Higher is better; best 1.0. Input: 1-D cells of ``label confidence x_min y_min x_max
    y_max`` objects (the answers' confidence is ignored). ``form="class_ap"`` (default) is
    PASCAL VOC's mAP described in the module docstring, with a hit needing IoU strictly above
    the threshold: SIIM-FISABIO-RSNA COVID-19 at ``[0.5]`` over its four study labels (boxes
    ``0 0 1 1``), ``opacity`` and ``none``; VinBigData at ``[0.4]``, "No finding" being class
    ``14`` with box ``0 0 1 1``, scored like any class. ``form="image_precision"`` is Kaggle's
    per-image TP / (TP + FP + FN) averaged over the thresholds and the images that hold an
    object (matching in confidence order, same label required). ``layout="conf_xywh"`` reads
    unlabelled ``confidence x y width height`` objects instead (Global Wheat Detection:
    ``form="image_precision"`` over 0.50, 0.55, ..., 0.75; answers written as ``1.0 x y w h``).
    A submitted cell may hold at most 10,000 objects.

    >>> box_map(["cat 1 0 0 10 10", "dog 1 0 0 4 4"], ["cat 0.9 1 1 10 10 dog 0.3 5 5 9 9", ""])
    0.5
    >>> box_map(["1.0 0 0 10 10"], ["0.9 0 0 10 10 0.5 20 20 5 5"], iou_thresholds=[0.5, 0.75],
    ...         form="image_precision", layout="conf_xywh")  # TP 1, FP 1, FN 0 at both
    0.5
    """
    boxes = LAYOUTS_2D[choice(layout, "layout", tuple(LAYOUTS_2D))]
    return _detection_score(y_true, y_pred, boxes, _check_2d, iou_2d,
                            [0.5] if iou_thresholds is None else iou_thresholds, form)


def _iou_3d(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return iou_3d(a, b)


@register(
    "box3d_map",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="set",
    defaults={"iou_thresholds": IOU_SWEEP, "form": "class_ap"},
)
def box3d_map(y_true: Any, y_pred: Any, iou_thresholds: list[float] | None = None,
              form: str = "class_ap") -> float:
    """Mean average precision of 3-D boxes with a yaw, averaged over IoU thresholds.

    Higher is better; best 1.0. Input: 1-D cells of ``confidence center_x center_y center_z
    width length height yaw label`` objects (Lyft 3D Object Detection; the answers carry a
    confidence too, which is ignored). IoU is the ground rectangles' shared area times the
    shared height over the union volume. Thresholds default to 0.50, 0.55, ..., 0.95.
    ``form="class_ap"`` (default): the organisers' evaluation script, a 3-D version of COCO's
    mAP: per class VOC AP over the whole test set, mean over the classes of the answers, mean
    over thresholds. ``form="image_precision"``: the generic per-image TP / (TP + FP + FN)
    text of the evaluation page (see :func:`box_map`).

    >>> car = "1 0 0 0 2 4 2 0 car"
    >>> box3d_map([car], ["0.9 0.5 0 0 2 4 2 0 car"], iou_thresholds=[0.5, 0.9])
    0.5
    """
    return _detection_score(y_true, y_pred, BOX_3D, _check_3d, _iou_3d,
                            IOU_SWEEP if iou_thresholds is None else iou_thresholds, form)


# --- point in box (Kuzushiji) -------------------------------------------------------------------


def _page_counts(t: Objects, p: Objects) -> tuple[int, int, int]:
    """True positives, false positives, false negatives of one page: each true box, in the
    answers' order, takes the first unused prediction of its label strictly inside it."""
    unused = np.ones(len(p.labels), dtype=bool)
    tp = 0
    if len(p.labels):
        px, py = p.values[:, 0], p.values[:, 1]
        for k in range(len(t.labels)):
            x, y, w, h = t.values[k]
            hit = unused & (p.labels == t.labels[k]) & (x < px) & (px < x + w) & (y < py) & (py < y + h)
            if hit.any():
                unused[int(np.argmax(hit))] = False
                tp += 1
    return tp, int(unused.sum()), len(t.labels) - tp


def box_centres(cell: str) -> str:
    """A cell of ``label x y width height`` boxes as ``label cx cy`` centre points (each
    strictly inside its box: the points that score best).

    >>> box_centres("U+003F 1 1 10 10 U+0041 20 20 5 4")
    'U+003F 6 6 U+0041 22.5 22'
    """
    tokens = cell.split()
    out = []
    for i in range(0, len(tokens) - len(tokens) % 5, 5):
        label, x, y, w, h = tokens[i:i + 5]
        out += [label, f"{float(x) + float(w) / 2:g}", f"{float(y) + float(h) / 2:g}"]
    return " ".join(out)


@register(
    "point_in_box_f1",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="set",
    defaults={"max_per_row": MAX_POINTS_PER_ROW},
    perfect=box_centres,
)
def point_in_box_f1(y_true: Any, y_pred: Any, max_per_row: int | None = MAX_POINTS_PER_ROW) -> float:
    """F1 of labelled points falling inside labelled true boxes, counts pooled over rows.

    Higher is better; best 1.0. Input: 1-D answers cells of ``label x y width height`` boxes
    and 1-D prediction cells of ``label x y`` centre points (Kuzushiji Recognition). On each
    row, every true box in the answers' order takes the first unused prediction with its label
    whose point lies strictly inside it: a true positive; boxes left without one are false
    negatives, predictions left unused false positives. F1 = 2TP / (2TP + FP + FN) over all
    rows; no box and no prediction anywhere scores 1.0. More than ``max_per_row``
    predictions on a row (default 1,200, the competition's limit) make the submission invalid.

    >>> point_in_box_f1(["U+003F 1 1 10 10 U+0041 20 20 5 5"], ["U+003F 3 3 U+0041 30 30"])
    0.5
    """
    t = as_str_1d(y_true, "y_true")
    p = as_str_1d(y_pred, "y_pred")
    same_length(t, p)
    truth = parse_column(t, POINT_BOX, "y_true", _check_point_box)
    pred = parse_column(p, POINT, "y_pred", max_objects=max_per_row)
    tp = fp = fn = 0
    for tr, pr in zip(truth, pred, strict=True):
        a, b, c = _page_counts(tr, pr)
        tp, fp, fn = tp + a, fp + b, fn + c
    denom = 2 * tp + fp + fn
    return 1.0 if denom == 0 else 2 * tp / denom
