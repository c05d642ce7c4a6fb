"""Classification metrics. Inputs are numpy arrays aligned by id by the grader."""

from __future__ import annotations

from typing import Any

import numpy as np

from tambench.grading.metrics.base import register


@register("accuracy", higher_is_better=True, value_range=(0.0, 1.0), kind="label")
def accuracy(y_true: Any, y_pred: Any) -> float:
    """Share of rows whose predicted label equals the true label exactly.

    Higher is better; best 1.0. Labels are compared as strings.

    >>> accuracy(["a", "b", "c"], ["a", "b", "x"])
    0.6666666666666666
    """
    t = np.asarray(y_true).astype(str)
    p = np.asarray(y_pred).astype(str)
    return float(np.mean(t == p))
