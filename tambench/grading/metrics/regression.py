"""Regression metrics. Inputs are float arrays aligned by id by the grader."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tambench.grading.metrics.base import register


@register("rmse", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def rmse(y_true: Any, y_pred: Any) -> float:
    """Root mean squared error.

    Lower is better; best 0.0. Inputs: two equal-length float arrays (or 2-D, all cells).

    >>> rmse([1.0, 2.0, 3.0], [2.0, 2.0, 5.0])
    1.2909944487358056
    """
    t = np.asarray(y_true, dtype=np.float64)
    p = np.asarray(y_pred, dtype=np.float64)
    return float(math.sqrt(np.mean((t - p) ** 2)))
