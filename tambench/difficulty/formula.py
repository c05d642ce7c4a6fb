"""The paper's difficulty formula, and a robust variant computed beside it.

The paper (section 3.2) computes, from the private leaderboard's scores and the number of
participants P::

    NormMean = (MeanScore - MinScore) / (MaxScore - MinScore + eps)
    NormBest = (BestScore - MinScore) / (MaxScore - MinScore + eps)
    higher-is-better: D = w1*NormMean + w2*log10(P + 1) + w3*(1 - NormBest)
    lower-is-better:  D = w1*NormMean + w2*log10(P + 1) + w3*NormBest
    w1 = 0.4, w2 = 0.1, w3 = 0.5;  easy: D <= 0.6, medium: 0.6 < D <= 0.85, hard: D > 0.85

MinScore and MaxScore are the metric's value range when the metric is bounded (both ends
finite, as declared in the metric registry); otherwise the lowest and highest score on the
leaderboard. The paper prints ``eps`` without a value: we use 1e-8, which only matters when
every score is equal (it turns 0/0 into 0) and is below 1e-4 of the score spread on every
real leaderboard we hold, so it changes no term beyond the eighth decimal.

``paper`` method
    The literal formula on the raw board. Rows whose score is not a finite number (missing,
    unparseable, NaN, infinite) cannot enter any statistic and are the only rows dropped; P is
    the number of rows on the board (every row is a participant, scored or not). Junk rows such
    as a score of 2.5e7 on an RMSE board stay in, exactly as the paper's formula would see them.

``robust`` method
    1. Junk rows are excluded by the leaderboard's rules (:data:`DEFAULT_EXCLUDE`: missing,
       unparseable, non-finite, out of the metric's declared range, absurd outliers, duplicate
       teams, placeholder entries) and P counts only the rows that remain.
    2. For unbounded metrics, MinScore and MaxScore are the 5th and 95th percentiles of the
       remaining scores instead of their raw extremes. The raw extremes are each set by one
       team: a failed submission that survives the junk rules (an RMSE of 30 on a board where
       the field scores 3-5) stretches the range and pushes NormMean towards one end for every
       other team. The percentiles depend on the bulk of the field; 5% leaves out the worst and
       best twentieth, which on the 18 real boards covers the stray rows the junk rules keep,
       while still spanning the competitive part of the field.
    3. Scores are clipped into [MinScore, MaxScore] before MeanScore and BestScore are taken
       (a winsorised mean), so NormMean and NormBest stay in [0, 1] as the formula intends.
    Bounded metrics keep their declared range: it does not depend on any row.
    Weights and thresholds are the paper's.

Note on the unbounded case in both methods: when MinScore/MaxScore are taken from the board,
the best score IS the board's extreme (or is clipped to it), so ``1 - NormBest`` (or
``NormBest``) is always 0 and D reduces to ``w1*NormMean + w2*log10(P + 1)``. The w3 term only
carries information for bounded metrics, where it measures how far the winner stayed from the
metric's best possible value. This follows from the formula as printed; we do not alter it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from tambench.core.leaderboard import DEFAULT_EXCLUDE, Leaderboard
from tambench.errors import DifficultyError
from tambench.schema.taskspec import Difficulty, Tier

#: A difficulty method's registered name (see :mod:`tambench.difficulty.methods`).
Method = str


class Scale(Protocol):
    """What difficulty needs to know about a board's metric: a registered
    :class:`~tambench.core.metrics.Metric`, or the scale recorded with a shipped leaderboard
    (:class:`~tambench.tasks.leaderboards.ScoreScale`)."""

    @property
    def id(self) -> str: ...

    @property
    def higher_is_better(self) -> bool: ...

    @property
    def lower_bound(self) -> float: ...

    @property
    def upper_bound(self) -> float: ...

    @property
    def bounded(self) -> bool: ...

#: The paper's division guard (its value is not printed in the paper; see the module docstring).
EPS = 1e-8
#: Percentiles bounding the robust variant's normalisation range for unbounded metrics.
ROBUST_QUANTILES = (0.05, 0.95)
#: Tier order, easiest first; a tier's position is its number of steps from easy.
TIER_ORDER: tuple[Tier, ...] = (Tier.EASY, Tier.MEDIUM, Tier.HARD)


@dataclass(frozen=True)
class DifficultyParams:
    """Weights and tier thresholds of the formula (the paper's by default)."""

    w1: float = 0.4
    """Weight of NormMean."""
    w2: float = 0.1
    """Weight of log10(P + 1)."""
    w3: float = 0.5
    """Weight of the best-score term (1 - NormBest, or NormBest when lower is better)."""
    easy_max: float = 0.6
    """D at or below this is easy."""
    medium_max: float = 0.85
    """D above easy_max and at or below this is medium; above it, hard."""
    eps: float = EPS
    """Guard added to the range in the denominators."""

    def __post_init__(self) -> None:
        if not self.easy_max <= self.medium_max:
            raise DifficultyError(
                f"thresholds must satisfy easy_max <= medium_max, got {self.easy_max} and "
                f"{self.medium_max}"
            )
        if not self.eps > 0:
            raise DifficultyError(f"eps must be positive, got {self.eps}")


PAPER_PARAMS = DifficultyParams()


@dataclass(frozen=True)
class DifficultyResult:
    """One method's difficulty of one leaderboard, with every term that produced it."""

    method: Method
    score: float
    tier: Tier
    inputs: dict[str, float]
    """Every term, in the order the formula uses them (see :func:`formula_terms`)."""
    notes: tuple[str, ...] = field(default=())
    """Plain-language remarks: where Min/Max came from, rows dropped, and why."""

    def to_model(self, others: Iterable[DifficultyResult] = ()) -> Difficulty:
        """The TaskSpec ``difficulty`` field for this result, other methods kept beside it."""
        return Difficulty(
            method=self.method,
            score=self.score,
            tier=self.tier,
            inputs=dict(self.inputs),
            other=[o.to_model() for o in others],
        )


def tier_for(score: float, params: DifficultyParams = PAPER_PARAMS) -> Tier:
    """The tier of a difficulty score.

    >>> tier_for(0.6), tier_for(0.61), tier_for(0.85), tier_for(0.8501)
    (<Tier.EASY: 'easy'>, <Tier.MEDIUM: 'medium'>, <Tier.MEDIUM: 'medium'>, <Tier.HARD: 'hard'>)
    """
    if not math.isfinite(score):
        raise DifficultyError(f"a difficulty score must be finite, got {score!r}")
    if score <= params.easy_max:
        return Tier.EASY
    if score <= params.medium_max:
        return Tier.MEDIUM
    return Tier.HARD


def formula_terms(
    *,
    mean_score: float,
    best_score: float,
    min_score: float,
    max_score: float,
    participants: int,
    higher_is_better: bool,
    params: DifficultyParams = PAPER_PARAMS,
) -> dict[str, float]:
    """Evaluate the formula from its five inputs; returns every term, ``difficulty`` last.

    >>> t = formula_terms(mean_score=0.5, best_score=0.9, min_score=0.0, max_score=1.0,
    ...                   participants=99, higher_is_better=True)
    >>> round(t["difficulty"], 6)   # 0.4*0.5 + 0.1*log10(100) + 0.5*(1 - 0.9)
    0.45
    """
    if participants < 0:
        raise DifficultyError(f"participants must be >= 0, got {participants}")
    for name, value in (("mean_score", mean_score), ("best_score", best_score),
                        ("min_score", min_score), ("max_score", max_score)):
        if not math.isfinite(value):
            raise DifficultyError(f"{name} must be finite, got {value!r}")
    denominator = max_score - min_score + params.eps
    norm_mean = (mean_score - min_score) / denominator
    norm_best = (best_score - min_score) / denominator
    log_participants = math.log10(participants + 1)
    best_term = (1.0 - norm_best) if higher_is_better else norm_best
    w1_term = params.w1 * norm_mean
    w2_term = params.w2 * log_participants
    w3_term = params.w3 * best_term
    return {
        "higher_is_better": 1.0 if higher_is_better else 0.0,
        "min_score": float(min_score),
        "max_score": float(max_score),
        "mean_score": float(mean_score),
        "best_score": float(best_score),
        "eps": params.eps,
        "norm_mean": norm_mean,
        "norm_best": norm_best,
        "participants": float(participants),
        "log10_participants_plus_1": log_participants,
        "best_term": best_term,
        "w1": params.w1,
        "w2": params.w2,
        "w3": params.w3,
        "w1_term": w1_term,
        "w2_term": w2_term,
        "w3_term": w3_term,
        "threshold_easy_max": params.easy_max,
        "threshold_medium_max": params.medium_max,
        "difficulty": w1_term + w2_term + w3_term,
    }


def _best(scores: np.ndarray, higher_is_better: bool) -> float:
    return float(scores.max() if higher_is_better else scores.min())


def paper_difficulty(
    lb: Leaderboard, metric: Scale, params: DifficultyParams = PAPER_PARAMS
) -> DifficultyResult:
    """The paper's formula on the raw leaderboard (see the module docstring)."""
    scores = lb.finite_scores()
    if scores.size == 0:
        raise DifficultyError(
            f"leaderboard {lb.path or '(in memory)'} has no finite score; expected at least one"
        )
    notes: list[str] = []
    dropped = len(lb) - scores.size
    if dropped:
        notes.append(f"{dropped} row(s) without a finite score left out of the statistics "
                     "(still counted as participants)")
    if metric.bounded:
        lo, hi = metric.lower_bound, metric.upper_bound
        notes.append(f"Min/Max from the declared range of {metric.id}: [{lo}, {hi}]")
    else:
        lo, hi = float(scores.min()), float(scores.max())
        notes.append(f"{metric.id} is unbounded: Min/Max observed on the leaderboard")
    terms = formula_terms(
        mean_score=float(scores.mean()),
        best_score=_best(scores, metric.higher_is_better),
        min_score=lo,
        max_score=hi,
        participants=len(lb),
        higher_is_better=metric.higher_is_better,
        params=params,
    )
    inputs = {"rows": float(len(lb)), "scored_rows": float(scores.size),
              "excluded_rows": float(dropped), "range_from_metric": float(metric.bounded),
              **terms}
    score = terms["difficulty"]
    return DifficultyResult("paper", score, tier_for(score, params), inputs, tuple(notes))


def robust_difficulty(
    lb: Leaderboard,
    metric: Scale,
    params: DifficultyParams = PAPER_PARAMS,
    *,
    quantiles: tuple[float, float] = ROBUST_QUANTILES,
    exclude: Iterable[str] = DEFAULT_EXCLUDE,
) -> DifficultyResult:
    """The robust variant: junk rows excluded, percentile range, winsorised scores."""
    q_lo, q_hi = quantiles
    if not 0.0 <= q_lo < q_hi <= 1.0:
        raise DifficultyError(f"quantiles must satisfy 0 <= low < high <= 1, got {quantiles}")
    value_range = (metric.lower_bound, metric.upper_bound)
    clean = lb.clean(exclude=exclude, value_range=value_range)
    scores = clean.finite_scores()
    if scores.size == 0:
        raise DifficultyError(
            f"leaderboard {lb.path or '(in memory)'} has no score left after excluding junk "
            f"rows; expected at least one"
        )
    notes: list[str] = []
    dropped = len(lb) - len(clean)
    if dropped:
        notes.append(f"{dropped} junk row(s) excluded (rules: {', '.join(sorted(exclude))})")
    if metric.bounded:
        lo, hi = metric.lower_bound, metric.upper_bound
        notes.append(f"Min/Max from the declared range of {metric.id}: [{lo}, {hi}]")
    else:
        lo, hi = (float(v) for v in np.quantile(scores, [q_lo, q_hi]))
        notes.append(f"{metric.id} is unbounded: Min/Max are the {q_lo:g} and {q_hi:g} "
                     "quantiles of the remaining scores")
    clipped = np.clip(scores, lo, hi)
    n_clipped = int(np.count_nonzero(clipped != scores))
    if n_clipped:
        notes.append(f"{n_clipped} score(s) clipped into [Min, Max] before the mean and best")
    terms = formula_terms(
        mean_score=float(clipped.mean()),
        best_score=_best(clipped, metric.higher_is_better),
        min_score=lo,
        max_score=hi,
        participants=len(clean),
        higher_is_better=metric.higher_is_better,
        params=params,
    )
    inputs = {"rows": float(len(lb)), "scored_rows": float(scores.size),
              "excluded_rows": float(dropped), "range_from_metric": float(metric.bounded),
              "quantile_low": q_lo, "quantile_high": q_hi, "clipped_rows": float(n_clipped),
              **terms}
    score = terms["difficulty"]
    return DifficultyResult("robust", score, tier_for(score, params), inputs, tuple(notes))


def tier_steps(reference: Tier, predicted: Tier) -> int:
    """Signed number of tiers from ``reference`` to ``predicted`` (positive: predicted harder).

    >>> tier_steps(Tier.EASY, Tier.HARD)
    2
    """
    return TIER_ORDER.index(predicted) - TIER_ORDER.index(reference)


def explain_lines(result: DifficultyResult) -> list[str]:
    """Every term of a result as readable lines (used by ``--explain``)."""
    t = result.inputs
    direction = "higher" if t["higher_is_better"] else "lower"
    best_formula = "1 - NormBest" if t["higher_is_better"] else "NormBest"
    span = t["max_score"] - t["min_score"] + t["eps"]
    lines = [
        f"method: {result.method}  ({direction} is better)",
        f"rows on the board: {int(t['rows'])}, scored rows used: {int(t['scored_rows'])}, "
        f"excluded: {int(t['excluded_rows'])}",
        *(f"note: {n}" for n in result.notes),
        f"MinScore = {t['min_score']!r}   MaxScore = {t['max_score']!r}   eps = {t['eps']!r}",
        f"MeanScore = {t['mean_score']!r}   BestScore = {t['best_score']!r}",
        f"NormMean = ({t['mean_score']!r} - {t['min_score']!r}) / {span!r} = {t['norm_mean']!r}",
        f"NormBest = ({t['best_score']!r} - {t['min_score']!r}) / {span!r} = {t['norm_best']!r}",
        f"P = {int(t['participants'])}   log10(P + 1) = {t['log10_participants_plus_1']!r}",
        f"best term = {best_formula} = {t['best_term']!r}",
        f"D = {t['w1']}*{t['norm_mean']:.6g} + {t['w2']}*{t['log10_participants_plus_1']:.6g}"
        f" + {t['w3']}*{t['best_term']:.6g}",
        f"  = {t['w1_term']:.6g} + {t['w2_term']:.6g} + {t['w3_term']:.6g} = {result.score:.6g}",
        f"tier: {result.tier.value}  (easy <= {t['threshold_easy_max']}, medium <= "
        f"{t['threshold_medium_max']}, hard above)",
    ]
    return lines


def result_from_model(d: Difficulty) -> DifficultyResult:
    """Rebuild a result from a stored TaskSpec ``difficulty`` (its ``other`` is not followed)."""
    return DifficultyResult(d.method, d.score, d.tier, dict(d.inputs))


def find_method(d: Difficulty, method: Method) -> Difficulty | None:
    """The stored result of ``method`` in a TaskSpec difficulty (primary or among ``other``)."""
    for cand in (d, *d.other):
        if cand.method == method:
            return cand
    return None

