"""Leaderboard statistics a difficulty model can use: the paper's terms and a few more.

Every statistic is computed on the board cleaned by the junk rules (:data:`DEFAULT_EXCLUDE`,
plus scores outside the metric's declared range), with the metric's declared direction; the
best score is the best of what remains. With ``s`` the cleaned scores oriented so that higher
is better, ``best = max(s)``, ``median = median(s)``:

``winner_gap``
    How far the winner stayed from the metric's perfect value, as a share of its range:
    ``|perfect - best| / (upper - lower)``. Defined only for bounded metrics (NaN otherwise).
    It is the paper's best term (``1 - NormBest``) computed on the cleaned board.
``log_winner_gap``
    ``log10(winner_gap + 0.01)``: the gap on a log scale, so that 0.001 and 0.01 (a
    saturated board) differ as much as 0.1 and 1; 0.01 keeps a perfect winner finite. NaN
    for unbounded metrics.
``podium_gap`` / ``log_podium_gap``
    The same for the mean of the best three scores (the podium): one lucky or leaky winner
    moves it less than it moves the winner's gap.
``unbounded``
    1.0 when the metric has no finite range (RMSE, log loss), else 0.0.
``log_participants``
    ``log10(P + 1)`` with P the rows left after cleaning (the paper's second term).
``norm_mean``
    The robust variant's NormMean (the paper's first term, on a winsorised board).
``top_median_gap``
    ``|best - median| / max(|best|, |median|)``: how far the typical team is from the winner,
    relative to the scores' size (0 when the field is level with the winner).
``top_crowding``
    The share of teams whose score is within a tenth of the winner-to-median distance of the
    winner: a crowded top (many teams tied near the best) reads as an easy task.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tambench.core.leaderboard import DEFAULT_EXCLUDE, Leaderboard
from tambench.difficulty.formula import Scale, robust_difficulty
from tambench.errors import DifficultyError

#: Added to the winner's gap before the log, so that a perfect winner stays finite.
GAP_FLOOR = 0.01
#: Statistic names, in the order :meth:`BoardStats.as_dict` lists them.
FEATURE_NAMES = ("winner_gap", "log_winner_gap", "podium_gap", "log_podium_gap", "unbounded",
                 "log_participants", "norm_mean", "top_median_gap", "top_crowding")
#: How many of the best scores the podium averages.
PODIUM = 3


@dataclass(frozen=True)
class BoardStats:
    """The statistics of one board (see the module docstring)."""

    rows: int
    participants: int
    best: float
    median: float
    winner_gap: float
    log_winner_gap: float
    podium_gap: float
    log_podium_gap: float
    unbounded: float
    log_participants: float
    norm_mean: float
    top_median_gap: float
    top_crowding: float

    def as_dict(self) -> dict[str, float]:
        """Every statistic, with the row counts and the best and median scores."""
        out = {"rows": float(self.rows), "participants": float(self.participants),
               "best_score": self.best, "median_score": self.median}
        out.update({name: float(getattr(self, name)) for name in FEATURE_NAMES})
        return out


def _oriented_scores(lb: Leaderboard, scale: Scale) -> np.ndarray:
    clean = lb.clean(exclude=DEFAULT_EXCLUDE,
                     value_range=(scale.lower_bound, scale.upper_bound))
    scores = clean.finite_scores()
    if scores.size == 0:
        raise DifficultyError(f"leaderboard {lb.path or '(in memory)'} has no score left after "
                              "excluding junk rows; expected at least one")
    return scores if scale.higher_is_better else -scores


def _gap(score: float, scale: Scale) -> float:
    """Distance of a score from the metric's perfect value, as a share of its range (NaN for
    an unbounded metric)."""
    if not scale.bounded:
        return math.nan
    perfect = scale.upper_bound if scale.higher_is_better else scale.lower_bound
    return abs(perfect - score) / (scale.upper_bound - scale.lower_bound)


def board_stats(lb: Leaderboard, scale: Scale) -> BoardStats:
    """The statistics of a board whose scores are on ``scale``."""
    s = _oriented_scores(lb, scale)
    best, median = float(s.max()), float(np.median(s))
    real_best = best if scale.higher_is_better else -best
    real_median = median if scale.higher_is_better else -median
    podium = float(np.sort(s)[::-1][:PODIUM].mean())
    gap = _gap(real_best, scale)
    podium_gap = _gap(podium if scale.higher_is_better else -podium, scale)
    spread = best - median
    crowding = float(np.mean(best - s <= 0.1 * spread)) if spread > 0 else 1.0
    size = max(abs(real_best), abs(real_median))
    return BoardStats(
        rows=len(lb), participants=int(s.size), best=real_best, median=real_median,
        winner_gap=gap, log_winner_gap=math.log10(gap + GAP_FLOOR),
        podium_gap=podium_gap, log_podium_gap=math.log10(podium_gap + GAP_FLOOR),
        unbounded=0.0 if scale.bounded else 1.0,
        log_participants=math.log10(s.size + 1),
        norm_mean=robust_difficulty(lb, scale).inputs["norm_mean"],
        top_median_gap=abs(real_best - real_median) / size if size > 0 else 0.0,
        top_crowding=crowding,
    )
