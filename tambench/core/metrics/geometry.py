"""Geometry shared by the detection metrics: IoU of 2-D boxes and of 3-D boxes with a yaw.

Pure numpy, no shapely: a 3-D box's ground rectangle is clipped against the other's with the
Sutherland-Hodgman algorithm (both rectangles are convex), and only pairs whose bounding
circles touch are clipped at all.
"""

from __future__ import annotations

import numpy as np


def iou_2d(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU of axis-aligned boxes ``(x_min, y_min, x_max, y_max)``: shape (len(a), len(b)).

    Coordinates are continuous (a box 0 0 1 1 has area 1). Two boxes of zero area have IoU 0
    unless both are the same degenerate box, which has IoU 1.

    >>> iou_2d(np.array([[0, 0, 2, 2.0]]), np.array([[1, 1, 3, 3.0], [0, 0, 2, 2.0]])).round(4).tolist()
    [[0.1429, 1.0]]
    """
    ix = np.clip(np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]),
                 0.0, None)
    iy = np.clip(np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]),
                 0.0, None)
    inter = ix * iy
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    out = np.zeros_like(inter)
    np.divide(inter, union, out=out, where=union > 0)
    same = (union <= 0) & np.all(a[:, None, :] == b[None, :, :], axis=2)
    out[same] = 1.0
    return out


def ground_corners(box: np.ndarray) -> np.ndarray:
    """The 4 corners (counter-clockwise) of a 3-D box's ground rectangle.

    ``box`` is ``(cx, cy, cz, width, length, height, yaw)``: the length runs along the yaw
    direction, the width across it (the Lyft / nuScenes convention).
    """
    cx, cy, _, w, length, _, yaw = box
    c, s = np.cos(yaw), np.sin(yaw)
    along = np.array([c, s]) * (length / 2.0)
    across = np.array([-s, c]) * (w / 2.0)
    centre = np.array([cx, cy])
    return np.array([centre + along + across, centre - along + across,
                     centre - along - across, centre + along - across])


def _clip(subject: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The part of polygon ``subject`` left of the directed line a -> b."""
    if len(subject) == 0:
        return subject
    edge = b - a
    side = edge[0] * (subject[:, 1] - a[1]) - edge[1] * (subject[:, 0] - a[0])
    out: list[np.ndarray] = []
    n = len(subject)
    for i in range(n):
        p, q = subject[i], subject[(i + 1) % n]
        sp, sq = side[i], side[(i + 1) % n]
        if sp >= 0:
            out.append(p)
        if (sp >= 0) != (sq >= 0):
            out.append(p + (q - p) * (sp / (sp - sq)))
    return np.array(out) if out else np.zeros((0, 2))


def polygon_area(poly: np.ndarray) -> float:
    """Area of a simple polygon (shoelace formula).

    >>> polygon_area(np.array([[0, 0], [2, 0], [2, 1], [0, 1.0]]))
    2.0
    """
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)


def convex_intersection_area(p: np.ndarray, q: np.ndarray) -> float:
    """Area shared by two convex polygons given counter-clockwise.

    >>> sq = np.array([[0, 0], [2, 0], [2, 2], [0, 2.0]])
    >>> convex_intersection_area(sq, sq + 1)
    1.0
    """
    poly = p
    for i in range(len(q)):
        poly = _clip(poly, q[i], q[(i + 1) % len(q)])
        if len(poly) == 0:
            return 0.0
    return polygon_area(poly)


def iou_3d(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU of 3-D boxes ``(cx, cy, cz, width, length, height, yaw)`` with a vertical
    axis: (ground rectangles' shared area x shared height) / union volume.

    >>> box = np.array([[0, 0, 0, 2, 4, 2, 0.0]])
    >>> float(iou_3d(box, box)[0, 0]), round(float(iou_3d(box, box + [1, 0, 0, 0, 0, 0, 0])[0, 0]), 4)
    (1.0, 0.6)
    """
    out = np.zeros((len(a), len(b)))
    if not len(a) or not len(b):
        return out
    radius_a = np.hypot(a[:, 3], a[:, 4]) / 2.0
    radius_b = np.hypot(b[:, 3], b[:, 4]) / 2.0
    gap = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
    dz = (np.minimum(a[:, None, 2] + a[:, None, 5] / 2, b[None, :, 2] + b[None, :, 5] / 2)
          - np.maximum(a[:, None, 2] - a[:, None, 5] / 2, b[None, :, 2] - b[None, :, 5] / 2))
    near = (gap < radius_a[:, None] + radius_b[None, :]) & (dz > 0)
    vol_a = a[:, 3] * a[:, 4] * a[:, 5]
    vol_b = b[:, 3] * b[:, 4] * b[:, 5]
    corners_b = {j: ground_corners(b[j]) for j in set(np.nonzero(near)[1].tolist())}
    for i, j in zip(*np.nonzero(near), strict=True):
        area = convex_intersection_area(ground_corners(a[i]), corners_b[j])
        inter = area * dz[i, j]
        union = vol_a[i] + vol_b[j] - inter
        out[i, j] = min(max(inter / union, 0.0), 1.0) if union > 0 else 0.0
    return out
