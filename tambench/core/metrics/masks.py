"""Segmentation-mask metrics: per-row Dice, global Dice, IoU averaged over thresholds.

A mask cell is either a run-length encoding (Kaggle's ``"start length start length ..."``,
1-based pixel starts in the competition's pixel order, runs sorted and not overlapping; an
empty string is an empty mask) or, when called from Python, an array per row (a stacked
(rows, ...) array or an object array of arrays; nonzero = in the mask). Run-length masks are
compared as sets of pixel indices, so no image size is needed; every mask metric takes the
optional ``height_column`` and ``width_column`` parameters (answers columns of each row's image
size) to refuse runs beyond the image. Parsing is :func:`~tambench.core.metrics.rle.parse_rle`'s
(ASCII digits only, bounded, sorted, non-overlapping).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tambench.core.metrics._common import same_length
from tambench.core.metrics.base import register
from tambench.core.metrics.rle import (
    RleError,
    image_pixels,
    interval_overlap,
    interval_size,
    parse_rle,
)
from tambench.errors import (
    InvalidSubmissionError,
    MetricInputError,
    MetricParameterError,
    TaskDataError,
)

#: Kaggle's IoU thresholds: 0.50, 0.55, ..., 0.95.
IOU_THRESHOLDS = [round(0.5 + 0.05 * i, 2) for i in range(10)]


def _rows(x: Any, side: str) -> list[Any]:
    if isinstance(x, np.ndarray) and x.dtype != object and x.ndim >= 2:
        return list(x)
    arr = np.asarray(x, dtype=object) if not isinstance(x, list) else x
    if isinstance(arr, np.ndarray) and arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    return list(arr)


#: Parameters naming the answers columns that hold each row's image size (optional: when
#: given, runs beyond the image are refused).
SIZE_COLUMNS = {"height_column": None, "width_column": None}


def _string_row(t: str, p: str, i: int, n_pixels: int | None,
                bad_pred: list[str]) -> tuple[float, float, float] | None:
    try:
        ti = parse_rle(t, n_pixels=n_pixels)
    except RleError as exc:
        raise TaskDataError(f"answers row {i + 1}: {exc}") from None
    try:
        pi = parse_rle(p, n_pixels=n_pixels)
    except RleError as exc:
        bad_pred.append(f"row {i + 1}: {exc}")
        return None
    return float(interval_overlap(ti, pi)), float(interval_size(ti)), float(interval_size(pi))


def _array_row(t: Any, p: Any, i: int) -> tuple[float, float, float]:
    tm = np.asarray(t) != 0
    pm = np.asarray(p) != 0
    if tm.shape != pm.shape:
        raise MetricInputError(f"row {i + 1}: mask shapes differ, {tm.shape} vs {pm.shape}")
    return (float(np.count_nonzero(tm & pm)), float(np.count_nonzero(tm)),
            float(np.count_nonzero(pm)))


def raise_bad_rows(bad_pred: list[str], what: str = "malformed run-length encoding") -> None:
    """InvalidSubmissionError listing up to 5 rows' problems, with the total."""
    if bad_pred:
        more = f" (+{len(bad_pred) - 5} more)" if len(bad_pred) > 5 else ""
        raise InvalidSubmissionError(
            [f"{what} in {len(bad_pred)} row(s): " + "; ".join(bad_pred[:5]) + more]
        )


def overlaps(
    y_true: Any, y_pred: Any, height: Any = None, width: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: pixels in both masks, in the true mask, in the predicted mask.

    ``height`` and ``width`` (one per row, from the answers) bound the runs when given.
    """
    t_rows = _rows(y_true, "y_true")
    p_rows = _rows(y_pred, "y_pred")
    n = same_length(np.empty(len(t_rows)), np.empty(len(p_rows)))
    try:
        sizes = image_pixels(height, width, n)
    except ValueError as exc:
        raise TaskDataError(str(exc)) from None
    out = np.zeros((3, n), dtype=np.float64)
    bad_pred: list[str] = []
    for i, (t, p) in enumerate(zip(t_rows, p_rows, strict=True)):
        if isinstance(t, str) and isinstance(p, str):
            row = _string_row(t, p, i, sizes[i], bad_pred)
            if row is not None:
                out[:, i] = row
        elif not isinstance(t, str) and not isinstance(p, str):
            out[:, i] = _array_row(t, p, i)
        else:
            raise MetricInputError(
                f"row {i + 1}: one side is a run-length string, the other an array"
            )
    raise_bad_rows(bad_pred)
    return out[0], out[1], out[2]


@register("dice", higher_is_better=True, value_range=(0.0, 1.0), kind="mask", defaults=SIZE_COLUMNS)
def dice(y_true: Any, y_pred: Any, height: Any = None, width: Any = None) -> float:
    """Mean over rows of the Dice coefficient 2|T & P| / (|T| + |P|).

    Higher is better; best 1.0. Input: one mask per row on each side, as run-length strings
    or arrays (see the module docstring). Two empty masks agree perfectly: 1.0.

    >>> dice(["1 4", ""], ["3 4", ""])
    0.75
    >>> dice(np.array([[[1, 1], [0, 0]]]), np.array([[[1, 0], [0, 0]]]))
    0.6666666666666666
    """
    inter, size_t, size_p = overlaps(y_true, y_pred, height, width)
    denom = size_t + size_p
    per_row = np.ones_like(inter)
    np.divide(2.0 * inter, denom, out=per_row, where=denom > 0)
    return float(per_row.mean())


@register(
    "global_dice", higher_is_better=True, value_range=(0.0, 1.0), kind="mask",
    defaults=SIZE_COLUMNS,
)
def global_dice(y_true: Any, y_pred: Any, height: Any = None, width: Any = None) -> float:
    """Dice over all rows pooled: 2 sum|T & P| / (sum|T| + sum|P|).

    Higher is better; best 1.0. Input: as ``dice``. No mask pixel on either side: 1.0.

    >>> global_dice(["1 4", "1 2"], ["3 4", ""])
    0.4
    """
    inter, size_t, size_p = overlaps(y_true, y_pred, height, width)
    denom = size_t.sum() + size_p.sum()
    return 1.0 if denom == 0 else float(2.0 * inter.sum() / denom)


@register(
    "iou_thresholds_map",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="mask",
    defaults={"thresholds": IOU_THRESHOLDS, **SIZE_COLUMNS},
)
def iou_thresholds_map(
    y_true: Any, y_pred: Any, thresholds: list[float] | None = None, height: Any = None,
    width: Any = None,
) -> float:
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
    inter, size_t, size_p = overlaps(y_true, y_pred, height, width)
    union = size_t + size_p - inter
    iou = np.ones_like(inter)
    np.divide(inter, union, out=iou, where=union > 0)
    return float(np.mean(iou[:, None] > th[None, :]))
