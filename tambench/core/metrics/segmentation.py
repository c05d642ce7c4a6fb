"""Segmentation metrics beyond Dice: pixel F-beta and Dice combined with a 3-D Hausdorff distance.

Masks are run-length encodings parsed by :func:`~tambench.core.metrics.rle.parse_rle` (ASCII
digits, bounded, sorted, non-overlapping), one per row; the image size of each row comes from
answers columns where the metric needs it.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

import numpy as np

from tambench.core.metrics._common import as_str_1d, choice, same_length
from tambench.core.metrics.base import register
from tambench.core.metrics.masks import SIZE_COLUMNS, overlaps, raise_bad_rows
from tambench.core.metrics.rle import RleError, decode_rle, image_pixels, parse_rle
from tambench.errors import MetricInputError, MetricParameterError, TaskDataError


@register(
    "rle_f_beta",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="mask",
    defaults={"beta": 0.5, "average": "rows", **SIZE_COLUMNS},
)
def rle_f_beta(y_true: Any, y_pred: Any, beta: float = 0.5, average: str = "rows",
               height: Any = None, width: Any = None) -> float:
    """Pixel F-beta between run-length masks (Vesuvius Challenge: beta 0.5).

    Higher is better; best 1.0. Input: one run-length mask per row on each side (see
    :mod:`tambench.core.metrics.masks`); ``height_column`` / ``width_column`` name answers
    columns of each row's image size, which bounds the runs. Per row, with tp, fp, fn counted
    in pixels: (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp); two empty masks score 1.0.
    ``average="rows"`` (default) takes the mean over rows, ``"pooled"`` counts the pixels of
    all rows together first.

    >>> round(rle_f_beta(["1 10"], ["1 5"]), 6)
    0.833333
    """
    if not beta > 0:
        raise MetricParameterError(f"beta must be > 0, got {beta!r}")
    form = choice(average, "average", ("rows", "pooled"))
    inter, size_t, size_p = overlaps(y_true, y_pred, height, width)
    b2 = float(beta) ** 2
    num = (1 + b2) * inter
    denom = (1 + b2) * inter + b2 * (size_t - inter) + (size_p - inter)
    if form == "pooled":
        total = float(denom.sum())
        return 1.0 if total == 0 else float(num.sum() / total)
    per_row = np.ones_like(num)
    np.divide(num, denom, out=per_row, where=denom > 0)
    return float(per_row.mean())


# --- Dice + 3-D Hausdorff (UW-Madison GI Tract) ---------------------------------------------


def _slice_key(ident: str, separator: str) -> tuple[str, int]:
    head, sep, tail = ident.rpartition(separator)
    match = re.fullmatch(r"[0-9]{1,9}", tail)
    if not sep or not head or match is None:
        raise TaskDataError(f"id {ident[:60]!r} does not end in '{separator}<slice number>'")
    return head, int(tail)


def directed_hausdorff(a: np.ndarray, b: np.ndarray) -> float:
    """Largest distance from a voxel of ``a`` (coordinates, (n, 3)) to the boolean volume
    ``b``: a voxel inside B is at 0, one outside is nearest to a surface voxel of B."""
    outside = a[~b[tuple(a.T)]]
    if not len(outside):
        return 0.0
    from scipy.spatial import cKDTree  # loaded only when this metric runs

    dist, _ = cKDTree(_boundary(b)).query(outside, k=1)
    return float(np.max(dist))


def _boundary(volume: np.ndarray) -> np.ndarray:
    """Voxels of a boolean volume with a 6-neighbour outside it (the volume's surface)."""
    padded = np.pad(volume, 1)
    inner = padded[1:-1, 1:-1, 1:-1].copy()
    for axis in range(3):
        for shift in (-1, 1):
            inner &= np.roll(padded, shift, axis=axis)[1:-1, 1:-1, 1:-1]
    return np.argwhere(volume & ~inner)


def hausdorff_3d(t: np.ndarray, p: np.ndarray) -> float:
    """Symmetric Hausdorff distance in voxels between two non-empty boolean volumes.

    >>> a = np.zeros((1, 4, 4), dtype=bool); b = a.copy(); a[0, 0, 0] = True; b[0, 3, 0] = True
    >>> hausdorff_3d(a, b)
    3.0
    """
    return max(directed_hausdorff(np.argwhere(t), p), directed_hausdorff(np.argwhere(p), t))


def _volumes(ids: np.ndarray, classes: np.ndarray, sizes: list[int | None], height: Any,
             width: Any, separator: str) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """(volume, class) -> [(slice number, row)], checking one image size per volume."""
    groups: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    shape: dict[str, tuple[int, int]] = {}
    h = np.asarray(height, dtype=object).ravel()
    w = np.asarray(width, dtype=object).ravel()
    for i, (ident, cls) in enumerate(zip(ids, classes, strict=True)):
        volume, z = _slice_key(str(ident), separator)
        hw = (int(float(h[i])), int(float(w[i])))
        if shape.setdefault(volume, hw) != hw:
            raise TaskDataError(f"volume {volume!r}: slices of different sizes {shape[volume]} "
                                f"and {hw}")
        groups[(volume, str(cls))].append((z, i))
    if any(s is None for s in sizes):
        raise TaskDataError("dice_hausdorff_3d needs every row's image height and width")
    return groups


def _volume_masks(rows: list[tuple[int, int]], masks: list[tuple[np.ndarray, np.ndarray]],
                  hw: tuple[int, int], order: str) -> np.ndarray:
    zs = [z for z, _ in rows]
    z0, depth = min(zs), max(zs) - min(zs) + 1
    vol = np.zeros((depth, *hw), dtype=bool)
    for z, i in rows:
        flat = decode_rle(masks[i], hw[0] * hw[1])
        vol[z - z0] |= flat.reshape(hw, order="F" if order == "F" else "C")
    return vol


def _parse_masks(cells: np.ndarray, sizes: list[int | None], side: str) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    bad: list[str] = []
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    for i, cell in enumerate(cells):
        try:
            out.append(parse_rle(cell, n_pixels=sizes[i]))
        except RleError as exc:
            if side == "y_true":
                raise TaskDataError(f"answers row {i + 1}: {exc}") from None
            bad.append(f"row {i + 1}: {exc}")
            out.append(empty)
    raise_bad_rows(bad)
    return out


def _mean_dice(inter: np.ndarray, size_t: np.ndarray, size_p: np.ndarray) -> float:
    denom = size_t + size_p
    scored = denom > 0
    return 1.0 if not scored.any() else float(np.mean(2.0 * inter[scored] / denom[scored]))


@register(
    "dice_hausdorff_3d",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="mask",
    defaults={"ids_column": "id", "classes_column": "class", "height_column": "image_height",
              "width_column": "image_width", "slice_separator": "_slice_", "order": "F",
              "dice_weight": 0.4, "hausdorff_weight": 0.6},
)
def dice_hausdorff_3d(
    y_true: Any, y_pred: Any, ids: Any = None, classes: Any = None, height: Any = None,
    width: Any = None, slice_separator: str = "_slice_", order: str = "F",
    dice_weight: float = 0.4, hausdorff_weight: float = 0.6,
) -> float:
    """Weighted sum of the mean 2-D Dice and one minus the mean normalised 3-D Hausdorff
    distance (UW-Madison GI Tract Image Segmentation).

    Higher is better; best 1.0. Input: one run-length mask per row (one slice and class); from
    the answers, ``ids`` (``<volume><slice_separator><slice number>``, e.g.
    ``case123_day20_slice_0042``), ``classes`` and each slice's ``height`` and ``width``.
    Pixels are numbered top to bottom, then left to right (``order="F"``, the competition's
    statement; ``"C"`` for left to right first). Dice: 2|T & P| / (|T| + |P|) per row, rows
    where both masks are empty are left out (all left out: 1.0). Hausdorff: per volume and
    class, the slices stacked at depth 1 per slice number; the symmetric Hausdorff distance in
    voxels divided by the volume's diagonal sqrt(depth^2 + height^2 + width^2); one empty
    side scores 1, both empty are left out (all left out: 0). Score = ``dice_weight`` * Dice +
    ``hausdorff_weight`` * (1 - Hausdorff), weights 0.4 and 0.6 summing to 1.

    >>> ids = ["c1_day1_slice_0001", "c1_day1_slice_0002"]
    >>> dice_hausdorff_3d(["1 4", ""], ["1 4", ""], ids=ids, classes=["stomach"] * 2,
    ...                   height=[4, 4], width=[4, 4])
    1.0
    """
    if not (dice_weight >= 0 and hausdorff_weight >= 0
            and math.isclose(dice_weight + hausdorff_weight, 1.0)):
        raise MetricParameterError("dice_weight and hausdorff_weight must be >= 0 and sum to 1, "
                                   f"got {dice_weight!r} and {hausdorff_weight!r}")
    form = choice(order, "order", ("F", "C"))
    t = as_str_1d(y_true, "y_true")
    p = as_str_1d(y_pred, "y_pred")
    n = same_length(t, p)
    if ids is None or classes is None or height is None or width is None:
        raise MetricInputError("dice_hausdorff_3d needs ids, classes, heights and widths from "
                               "the answers")
    try:
        sizes = image_pixels(height, width, n)
    except ValueError as exc:
        raise TaskDataError(str(exc)) from None
    groups = _volumes(as_str_1d(ids, "ids"), as_str_1d(classes, "classes"), sizes, height,
                      width, slice_separator)
    tm, pm = _parse_masks(t, sizes, "y_true"), _parse_masks(p, sizes, "y_pred")
    dice_term = _mean_dice(*overlaps(t, p, height, width))
    h = np.asarray(height, dtype=object).ravel()
    w = np.asarray(width, dtype=object).ravel()
    distances = []
    for rows in groups.values():
        i0 = rows[0][1]
        hw = (int(float(h[i0])), int(float(w[i0])))
        vt, vp = _volume_masks(rows, tm, hw, form), _volume_masks(rows, pm, hw, form)
        has_t, has_p = bool(vt.any()), bool(vp.any())
        if not has_t and not has_p:
            continue
        if has_t != has_p:
            distances.append(1.0)
            continue
        diagonal = math.sqrt(vt.shape[0] ** 2 + hw[0] ** 2 + hw[1] ** 2)
        distances.append(min(hausdorff_3d(vt, vp) / diagonal, 1.0))
    hd = float(np.mean(distances)) if distances else 0.0
    return float(dice_weight * dice_term + hausdorff_weight * (1.0 - hd))
