"""Segmentation-mask metrics: per-row Dice, global Dice, IoU averaged over thresholds.

A mask cell is either a run-length encoding (Kaggle's ``"start length start length ..."``,
1-based pixel starts in the competition's pixel order, runs sorted and not overlapping; an
empty string is an empty mask) or, when called from Python, an array per row (a stacked
(rows, ...) array or an object array of arrays; nonzero = in the mask). Run-length masks are
compared as sets of pixel indices, so no image size is needed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tambench.core.metrics._common import same_length
from tambench.core.metrics.base import register
from tambench.errors import (
    InvalidSubmissionError,
    MetricInputError,
    MetricParameterError,
    TaskDataError,
)

#: Kaggle's IoU thresholds: 0.50, 0.55, ..., 0.95.
IOU_THRESHOLDS = [round(0.5 + 0.05 * i, 2) for i in range(10)]


def parse_rle(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Half-open pixel intervals [start, end) of a run-length encoding, 0-based.

    Raises ValueError naming the problem for malformed encodings.

    >>> [a.tolist() for a in parse_rle("1 3 10 2")]
    [[0, 9], [3, 11]]
    """
    tokens = text.split()
    if not tokens:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    if len(tokens) % 2:
        raise ValueError(f"a run-length encoding needs start/length pairs, got {len(tokens)} numbers")
    try:
        values = np.array([int(tok) for tok in tokens], dtype=np.int64)
    except ValueError:
        raise ValueError("a run-length encoding holds only integers") from None
    starts = values[0::2] - 1
    lengths = values[1::2]
    if (starts < 0).any() or (lengths < 1).any():
        raise ValueError("run starts must be >= 1 and run lengths >= 1")
    ends = starts + lengths
    if (starts[1:] < ends[:-1]).any():
        raise ValueError("runs must be sorted by start and must not overlap")
    return starts, ends


def _interval_overlap(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> int:
    """Number of pixels two unions of disjoint intervals share (coverage reaching 2)."""
    pos = np.concatenate([a[0], a[1], b[0], b[1]])
    if pos.size == 0:
        return 0
    delta = np.concatenate([
        np.ones_like(a[0]), -np.ones_like(a[1]), np.ones_like(b[0]), -np.ones_like(b[1])
    ])
    order = np.argsort(pos, kind="stable")
    coverage = np.cumsum(delta[order])
    gaps = np.diff(pos[order])
    return int(gaps[coverage[:-1] == 2].sum())


def _rows(x: Any, side: str) -> list[Any]:
    if isinstance(x, np.ndarray) and x.dtype != object and x.ndim >= 2:
        return list(x)
    arr = np.asarray(x, dtype=object) if not isinstance(x, list) else x
    if isinstance(arr, np.ndarray) and arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    return list(arr)


def _overlaps(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: pixels in both masks, in the true mask, in the predicted mask."""
    t_rows = _rows(y_true, "y_true")
    p_rows = _rows(y_pred, "y_pred")
    n = same_length(np.empty(len(t_rows)), np.empty(len(p_rows)))
    inter = np.zeros(n, dtype=np.float64)
    size_t = np.zeros(n, dtype=np.float64)
    size_p = np.zeros(n, dtype=np.float64)
    bad_pred: list[str] = []
    for i, (t, p) in enumerate(zip(t_rows, p_rows, strict=True)):
        if isinstance(t, str) and isinstance(p, str):
            try:
                ti = parse_rle(t)
            except ValueError as exc:
                raise TaskDataError(f"answers row {i + 1}: {exc}") from None
            try:
                pi = parse_rle(p)
            except ValueError as exc:
                bad_pred.append(f"row {i + 1}: {exc}")
                continue
            inter[i] = _interval_overlap(ti, pi)
            size_t[i] = float((ti[1] - ti[0]).sum())
            size_p[i] = float((pi[1] - pi[0]).sum())
        elif not isinstance(t, str) and not isinstance(p, str):
            tm = np.asarray(t) != 0
            pm = np.asarray(p) != 0
            if tm.shape != pm.shape:
                raise MetricInputError(f"row {i + 1}: mask shapes differ, {tm.shape} vs {pm.shape}")
            inter[i] = float(np.count_nonzero(tm & pm))
            size_t[i] = float(np.count_nonzero(tm))
            size_p[i] = float(np.count_nonzero(pm))
        else:
            raise MetricInputError(
                f"row {i + 1}: one side is a run-length string, the other an array"
            )
    if bad_pred:
        more = f" (+{len(bad_pred) - 5} more)" if len(bad_pred) > 5 else ""
        raise InvalidSubmissionError(
            [f"malformed run-length encoding in {len(bad_pred)} row(s): "
             + "; ".join(bad_pred[:5]) + more]
        )
    return inter, size_t, size_p


@register("dice", higher_is_better=True, value_range=(0.0, 1.0), kind="mask")
def dice(y_true: Any, y_pred: Any) -> float:
    """Mean over rows of the Dice coefficient 2|T & P| / (|T| + |P|).

    Higher is better; best 1.0. Input: one mask per row on each side, as run-length strings
    or arrays (see the module docstring). Two empty masks agree perfectly: 1.0.

    >>> dice(["1 4", ""], ["3 4", ""])
    0.75
    >>> dice(np.array([[[1, 1], [0, 0]]]), np.array([[[1, 0], [0, 0]]]))
    0.6666666666666666
    """
    inter, size_t, size_p = _overlaps(y_true, y_pred)
    denom = size_t + size_p
    per_row = np.ones_like(inter)
    np.divide(2.0 * inter, denom, out=per_row, where=denom > 0)
    return float(per_row.mean())


@register("global_dice", higher_is_better=True, value_range=(0.0, 1.0), kind="mask")
def global_dice(y_true: Any, y_pred: Any) -> float:
    """Dice over all rows pooled: 2 sum|T & P| / (sum|T| + sum|P|).

    Higher is better; best 1.0. Input: as ``dice``. No mask pixel on either side: 1.0.

    >>> global_dice(["1 4", "1 2"], ["3 4", ""])
    0.4
    """
    inter, size_t, size_p = _overlaps(y_true, y_pred)
    denom = size_t.sum() + size_p.sum()
    return 1.0 if denom == 0 else float(2.0 * inter.sum() / denom)


@register(
    "iou_thresholds_map",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="mask",
    defaults={"thresholds": IOU_THRESHOLDS},
)
def iou_thresholds_map(y_true: Any, y_pred: Any, thresholds: list[float] | None = None) -> float:
    """Mean over rows and IoU thresholds of "the predicted mask matches" (one object per row).

    Higher is better; best 1.0. Input: as ``dice``, one mask per row (TGS Salt's form of
    Kaggle's mean precision over IoU thresholds). At threshold t a row scores 1 if its IoU is
    greater than t, else 0; two empty masks score 1 at every threshold, one empty mask against
    a non-empty one 0. Thresholds default to 0.50, 0.55, ..., 0.95.

    >>> iou_thresholds_map(["1 10", "1 10", ""], ["1 8", "1 10", ""])
    0.8666666666666667
    """
    th = np.asarray(IOU_THRESHOLDS if thresholds is None else thresholds, dtype=np.float64)
    if th.ndim != 1 or th.size == 0 or ((th < 0) | (th >= 1)).any():
        raise MetricParameterError(f"thresholds: expected values in [0, 1), got {thresholds!r}")
    inter, size_t, size_p = _overlaps(y_true, y_pred)
    union = size_t + size_p - inter
    iou = np.ones_like(inter)
    np.divide(inter, union, out=iou, where=union > 0)
    return float(np.mean(iou[:, None] > th[None, :]))
