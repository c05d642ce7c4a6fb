"""A validated submission's score: the metric called on aligned input, its result checked (a
number, finite, within the metric's declared range), and the notes a scored submission carries.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from tambench.core.metrics.base import Metric
from tambench.errors import InvalidSubmissionError, ScoreRangeError
from tambench.validation.labels import answers_overlap_warning
from tambench.validation.reading.text import bound_message
from tambench.validation.validate import Answers

#: Relative slack at a metric's range bounds for floating-point rounding (a mean of equal
#: values, a logarithm computed by another library). A score this close beyond a bound is
#: that bound; anything further is a grader error.
RANGE_ROUNDING = 1e-9


def score_submission(answers: Answers, y_pred: Any) -> float:
    """Call the metric on aligned inputs; a non-finite or non-numeric result is invalid.

    Raises:
        InvalidSubmissionError: the metric returned NaN, infinity or a non-number, or the
            metric itself refused the (validated) input as invalid.
        ScoreRangeError: the metric returned a number outside its declared range.
    """
    metric = answers.metric
    # What Metric.__call__ does (parameters without the *_column names, plus the auxiliary
    # arrays), but keeping the raw return value so that a non-number is caught, not coerced.
    kwargs = {**answers.params, **answers.aux}
    value = metric.fn(answers.y_true, y_pred, **kwargs)
    if isinstance(value, bool) or not isinstance(value, numbers.Real | np.floating | np.integer):
        raise InvalidSubmissionError([
            f"metric `{metric.id}` returned {type(value).__name__}, not a number; the "
            "submission is not scored or ranked"
        ])
    out = float(value)
    if not math.isfinite(out):
        raise InvalidSubmissionError([
            f"metric `{metric.id}` returned {out!r} for this submission (e.g. constant "
            "predictions); a non-finite score is never ranked"
        ])
    return check_score_range(out, metric)


def check_score_range(score: float, metric: Metric) -> float:
    """The score itself when it lies in the metric's declared range (rounding at a bound is
    snapped to the bound); raise :class:`ScoreRangeError` otherwise.

    >>> from tambench.core.metrics.base import get_metric
    >>> check_score_range(1.0 + 1e-15, get_metric("accuracy"))
    1.0
    """
    lo, hi = metric.lower_bound, metric.upper_bound
    if lo <= score <= hi:
        return score
    bound = lo if score < lo else hi
    if abs(score - bound) <= RANGE_ROUNDING * max(1.0, abs(bound)):
        return bound
    raise ScoreRangeError(
        f"grader error: metric `{metric.id}` returned {score!r}, outside its declared range "
        f"[{lo:g}, {hi:g}]; the score is not ranked (a metric bug or a hole in validation, "
        "not a property of the submission)"
    )


def label_warnings(task_id: str, ans: Answers, y_pred: Any, answers_visible: bool) -> list[str]:
    """Warnings of a scored label submission graded without a declared label set: ad hoc,
    when few predicted labels occur among the answers' values (quoting them); for a task,
    that its labels are not checked against a label set (never depending on the answers)."""
    if ans.kind != "label" or any(s is not None for s in ans.label_sets.values()):
        return []
    if answers_visible:
        found = answers_overlap_warning(y_pred, ans.y_true)
        return [found] if found else []
    return [f"task {task_id} declares no label set (GradingSpec.labels or labels_from): "
            "labels are compared as exact strings, so one spelt unlike the answers (1 for "
            "True, 3.0 for 3) scores as a wrong prediction"]


def bounded(problems: list[str]) -> list[str]:
    """Problems as a report keeps them: each cut to
    :data:`~tambench.validation.reading.text.MAX_MESSAGE_CHARS` characters, whatever built it (a metric's
    own structural check included)."""
    return [bound_message(p) for p in problems]


__all__ = ["RANGE_ROUNDING", "score_submission", "check_score_range", "label_warnings", "bounded"]
