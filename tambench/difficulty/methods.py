"""Difficulty methods: one registry, used by the CLI, the catalogue batch and subsets.

=============  =========================================================================
``calibrated`` the model fitted to MLE-bench's human tiers (default; :mod:`.calibrated`)
``paper``      the paper's formula exactly as printed (:func:`.formula.paper_difficulty`)
``robust``     the same formula on a cleaned board (:func:`.formula.robust_difficulty`)
=============  =========================================================================

Every command computes all of them and shows them side by side; the primary method is the
one a tier is read from (``--method``, default :data:`DEFAULT_METHOD`). Adding a method is
one :func:`register` call with a function ``(leaderboard, scale) -> DifficultyResult``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tambench.core.leaderboard import Leaderboard
from tambench.core.registry import Registry
from tambench.difficulty.calibrated import calibrated_difficulty
from tambench.difficulty.formula import (
    DifficultyResult,
    Scale,
    paper_difficulty,
    robust_difficulty,
)
from tambench.errors import DifficultyError


@dataclass(frozen=True)
class DifficultyMethod:
    """One way of turning a leaderboard into a difficulty score and tier."""

    name: str
    compute: Callable[[Leaderboard, Scale], DifficultyResult]
    summary: str


METHODS: Registry[DifficultyMethod] = Registry(
    "difficulty method", error=DifficultyError,
    hint="`tambench difficulty --help` lists them")

#: The primary method when none is named.
DEFAULT_METHOD = "calibrated"


def register(name: str, compute: Callable[[Leaderboard, Scale], DifficultyResult],
             summary: str) -> DifficultyMethod:
    """Register a difficulty method under ``name``."""
    return METHODS.register(name, DifficultyMethod(name, compute, summary))


register("calibrated", calibrated_difficulty, "ordinal model of leaderboard statistics, fitted to "
         "MLE-bench's human tiers")
register("paper", paper_difficulty, "the paper's formula as printed (weights 0.4/0.1/0.5, cuts 0.6/0.85)")
register("robust", robust_difficulty, "the paper's formula on a board cleaned of junk rows, "
         "percentile range")


def compute_difficulty(lb: Leaderboard, scale: Scale,
                       method: str = DEFAULT_METHOD) -> DifficultyResult:
    """One method's difficulty of a leaderboard."""
    return METHODS[method].compute(lb, scale)


def compute_all(lb: Leaderboard, scale: Scale, primary: str = DEFAULT_METHOD
                ) -> tuple[DifficultyResult, list[DifficultyResult]]:
    """Every method's result: the primary one, and the others in name order."""
    chosen = METHODS[primary]
    first = chosen.compute(lb, scale)
    others = [METHODS[name].compute(lb, scale) for name in METHODS.names() if name != primary]
    return first, others
