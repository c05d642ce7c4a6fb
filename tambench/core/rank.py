"""Rank percentages and medals against a private leaderboard.

Rank rule (the paper's): ``rank = 1 + number of leaderboard entries strictly better``, clamped
to N; the rank percentage ``rank_pct = 100 * rank / N`` (0-100, lower is better, best possible
100/N; not a percentile: a percentile would grow with the score). Ties resolve in the
submitter's favour; the submission is not inserted into the field (the denominator stays N).
N counts the leaderboard's rows with a finite score: a row without a score cannot be compared.

Medals follow Kaggle's progression rules as MLE-bench reports them: a threshold is the score at
a 1-based position of the board sorted best first; a score earns the highest medal whose
threshold it reaches (inclusive). ``above_median`` means strictly better than the median.

Both directions come from the metric's declaration, never from the leaderboard's row order.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, overload

import numpy as np
from numpy.typing import ArrayLike

from tambench.core.leaderboard import Leaderboard
from tambench.errors import InvalidScoreError, LeaderboardError


def _board_scores(leaderboard: Leaderboard | ArrayLike) -> np.ndarray:
    """The board's finite scores in ascending order (a Leaderboard sorts them once)."""
    if isinstance(leaderboard, Leaderboard):
        s = leaderboard.sorted_finite_scores()
    else:
        s = np.asarray(leaderboard, dtype=np.float64).ravel()
        s = np.sort(s[np.isfinite(s)])
    if s.size == 0:
        raise LeaderboardError("the leaderboard has no finite scores to rank against")
    return s


def _check_scores(scores: np.ndarray) -> None:
    bad = ~np.isfinite(scores)
    if bad.any():
        idx = np.flatnonzero(bad)[:5].tolist()
        raise InvalidScoreError(
            f"{int(bad.sum())} score(s) are NaN or infinite (positions {idx}); "
            "a non-finite score is never ranked"
        )


def _to_float_array(score: Any) -> np.ndarray:
    try:
        arr = np.asarray(score, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidScoreError(f"score {score!r} is not a number") from None
    return arr


@dataclass(frozen=True)
class RankResult:
    """Where one score places on a leaderboard."""

    rank: int
    n: int
    rank_pct: float
    """100 * rank / n: lower is better."""


@dataclass(frozen=True)
class RankArrays:
    """Where many scores place on one leaderboard (vectorised result)."""

    rank: np.ndarray
    n: int
    rank_pct: np.ndarray
    """100 * rank / n, element-wise."""


@overload
def rank_score(
    score: float, leaderboard: Leaderboard | ArrayLike, higher_is_better: bool
) -> RankResult: ...
@overload
def rank_score(
    score: np.ndarray | list[float], leaderboard: Leaderboard | ArrayLike, higher_is_better: bool
) -> RankArrays: ...
def rank_score(
    score: Any, leaderboard: Leaderboard | ArrayLike, higher_is_better: bool
) -> RankResult | RankArrays:
    """Rank a score (or an array of scores in one call) against a leaderboard.

    A NaN, infinite or missing score raises :class:`InvalidScoreError`; it is never ranked.

    >>> rank_score(0.9, [0.95, 0.9, 0.9, 0.5], higher_is_better=True)
    RankResult(rank=2, n=4, rank_pct=50.0)
    >>> rank_score(10.0, [1.0, 2.0], higher_is_better=False)
    RankResult(rank=2, n=2, rank_pct=100.0)
    """
    if score is None:
        raise InvalidScoreError("score is missing; a missing score is never ranked")
    arr = _to_float_array(score)
    _check_scores(np.atleast_1d(arr))
    board = _board_scores(leaderboard)
    n = int(board.size)
    flat = np.atleast_1d(arr)
    if higher_is_better:
        better = n - np.searchsorted(board, flat, side="right")
    else:
        better = np.searchsorted(board, flat, side="left")
    ranks = np.minimum(1 + better, n).astype(np.int64)
    pct = 100.0 * ranks / n
    if arr.ndim == 0:
        return RankResult(rank=int(ranks[0]), n=n, rank_pct=float(pct[0]))
    return RankArrays(rank=ranks.reshape(arr.shape), n=n, rank_pct=pct.reshape(arr.shape))


def medal_positions(n: int) -> tuple[int, int, int]:
    """1-based leaderboard positions of the gold, silver and bronze thresholds for N teams.

    >>> medal_positions(50), medal_positions(150), medal_positions(500), medal_positions(2000)
    ((5, 10, 20), (10, 30, 60), (11, 50, 100), (14, 100, 200))
    """
    if n < 1:
        raise LeaderboardError("medal thresholds need at least one team")
    if n < 100:
        return max(1, n // 10), max(1, n // 5), max(1, (2 * n) // 5)
    if n < 250:
        return 10, n // 5, (2 * n) // 5
    if n < 1000:
        return 10 + (2 * n) // 1000, 50, 100
    return 10 + (2 * n) // 1000, n // 20, n // 10


@dataclass(frozen=True)
class MedalResult:
    """Medal thresholds of a leaderboard and what a score earns (MLE-bench field names)."""

    gold_threshold: float
    silver_threshold: float
    bronze_threshold: float
    median_threshold: float
    gold_medal: bool
    silver_medal: bool
    bronze_medal: bool
    any_medal: bool
    above_median: bool

    def as_dict(self) -> dict[str, Any]:
        """Plain dict of the fields."""
        return asdict(self)


def medal_thresholds(
    leaderboard: Leaderboard | ArrayLike, higher_is_better: bool
) -> tuple[float, float, float, float]:
    """(gold, silver, bronze, median) thresholds of a leaderboard (a Leaderboard computes
    them once per direction)."""
    if isinstance(leaderboard, Leaderboard):
        return leaderboard.memo(("medal_thresholds", higher_is_better),
                                lambda: _thresholds(_board_scores(leaderboard), higher_is_better))
    return _thresholds(_board_scores(leaderboard), higher_is_better)


def _thresholds(board: np.ndarray, higher_is_better: bool) -> tuple[float, float, float, float]:
    best_first = board[::-1] if higher_is_better else board
    g, s, b = medal_positions(int(board.size))
    return (
        float(best_first[g - 1]),
        float(best_first[s - 1]),
        float(best_first[b - 1]),
        float(np.median(board)),
    )


def award_medal(
    score: float, leaderboard: Leaderboard | ArrayLike, higher_is_better: bool
) -> MedalResult:
    """The medal a score earns on a leaderboard, with the thresholds.

    >>> m = award_medal(0.9, [1.0, 0.9, 0.8, 0.7, 0.6], higher_is_better=True)
    >>> (m.gold_medal, m.silver_medal, m.bronze_medal, m.above_median)
    (False, False, True, True)
    """
    value = float(_to_float_array(score))
    if not math.isfinite(value):
        raise InvalidScoreError(f"score {score!r} is not finite; it earns no medal")
    gold, silver, bronze, median = medal_thresholds(leaderboard, higher_is_better)

    def reaches(t: float) -> bool:
        return value >= t if higher_is_better else value <= t

    is_gold = reaches(gold)
    is_silver = not is_gold and reaches(silver)
    is_bronze = not is_gold and not is_silver and reaches(bronze)
    above = value > median if higher_is_better else value < median
    return MedalResult(
        gold_threshold=gold,
        silver_threshold=silver,
        bronze_threshold=bronze,
        median_threshold=median,
        gold_medal=is_gold,
        silver_medal=is_silver,
        bronze_medal=is_bronze,
        any_medal=is_gold or is_silver or is_bronze,
        above_median=above,
    )
