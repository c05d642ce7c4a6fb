"""Difficulty: leaderboard -> difficulty score and tier.

:mod:`~tambench.difficulty.formula` holds the paper's formula and the robust variant,
:mod:`~tambench.difficulty.compare` the agreement with reference tiers, and
:mod:`~tambench.difficulty.calibrate` the cross-validated fit of weights and thresholds.
"""

from tambench.difficulty.formula import (
    EPS,
    METHODS,
    PAPER_PARAMS,
    DifficultyParams,
    DifficultyResult,
    compute_all,
    compute_difficulty,
    paper_difficulty,
    robust_difficulty,
    tier_for,
)

__all__ = [
    "EPS",
    "METHODS",
    "PAPER_PARAMS",
    "DifficultyParams",
    "DifficultyResult",
    "compute_all",
    "compute_difficulty",
    "paper_difficulty",
    "robust_difficulty",
    "tier_for",
]
