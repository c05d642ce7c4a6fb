"""Difficulty: leaderboard -> difficulty score and tier.

:mod:`~tambench.difficulty.methods` is the registry of methods (``calibrated``, the default;
``paper``; ``robust``), :mod:`~tambench.difficulty.formula` the paper's formula and its robust
variant, :mod:`~tambench.difficulty.calibrated` the model fitted to human tiers (with
:mod:`~tambench.difficulty.fit` fitting and measuring it), :mod:`~tambench.difficulty.compare`
the agreement with reference tiers, :mod:`~tambench.difficulty.calibrate` a cross-validated
refit of the paper's weights, :mod:`~tambench.difficulty.tiers` the tier sources subsets read.
"""

from tambench.difficulty.formula import (
    EPS,
    PAPER_PARAMS,
    DifficultyParams,
    DifficultyResult,
    paper_difficulty,
    robust_difficulty,
    tier_for,
)
from tambench.difficulty.methods import DEFAULT_METHOD, METHODS, compute_all, compute_difficulty

__all__ = [
    "DEFAULT_METHOD",
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
