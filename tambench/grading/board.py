"""The leaderboard side of a grade: the task's board read and cleaned for the metric, its order
checked, and the medal fields of a submission that is not scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tambench.core.leaderboard import Leaderboard, order_problem, read_leaderboard
from tambench.core.metrics.base import Metric
from tambench.core.rank import medal_thresholds


def load_task_leaderboard(lb: Path | Leaderboard | None, metric: Metric) -> Leaderboard | None:
    """Read a leaderboard and drop junk rows (default rules, the metric's value range); a board
    already cleaned for the same range is returned as it is (:meth:`Leaderboard.clean`)."""
    if lb is None:
        return None
    board = lb if isinstance(lb, Leaderboard) else read_leaderboard(lb)
    return board.clean(value_range=(metric.lower_bound, metric.upper_bound))


def leaderboard_order_fields(board: Leaderboard | None, metric: Metric) -> dict[str, Any]:
    """The report's ``leaderboard_order_inversions`` and, when a board is sorted against the
    metric's declared direction, its warning (nothing without a board)."""
    if board is None:
        return {}
    hib = metric.higher_is_better  # the same board is checked once, not for every run
    inversions, message = board.memo(("order_problem", hib), lambda: order_problem(board, hib))
    return {"leaderboard_order_inversions": inversions, "warnings": [message] if message else []}


def unscored_medal_fields(board: Leaderboard | None, metric: Metric, task_id: str,
                          warnings: list[str] | None = None) -> dict[str, Any]:
    """Medal fields of a submission that is not scored: the thresholds and false against a
    leaderboard (it earns nothing; the thresholds are the board's, as MLE-bench reports them),
    null without one (unknown) with the warning; ``warnings`` (the board's own) come first."""
    warnings = list(warnings or [])
    if board is None:
        return {"warnings": [*warnings, no_leaderboard_warning(task_id)]}
    gold, silver, bronze, median = medal_thresholds(board, metric.higher_is_better)
    return {
        "gold_threshold": gold, "silver_threshold": silver, "bronze_threshold": bronze,
        "median_threshold": median, "warnings": warnings,
        **dict.fromkeys(
            ("any_medal", "gold_medal", "silver_medal", "bronze_medal", "above_median"), False),
    }


def no_leaderboard_warning(task_id: str) -> str:
    """The one warning a task without a leaderboard gets: medals unknown, not absent."""
    return (f"task {task_id} has no leaderboard: rank, medals and above_median are unknown "
            "(null), not false")


__all__ = ["load_task_leaderboard", "leaderboard_order_fields", "unscored_medal_fields", "no_leaderboard_warning"]
