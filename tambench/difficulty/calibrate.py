"""Fit the formula's weights and thresholds to reference tiers, with cross-validation.

The formula is ``D = w1*NormMean + w2*log10(P + 1) + w3*BestTerm`` cut at two thresholds. Its
three terms do not depend on the weights, so each task becomes a point of three features and a
reference tier, and calibration searches:

* weights on a grid over the simplex w1 + w2 + w3 = 1, w >= 0 (step 0.05 by default). Fixing
  the sum loses nothing: scaling all weights and both thresholds together gives the same
  tiers, and the paper's weights sum to 1 as well;
* for each weight vector, the two thresholds that maximise agreement with the reference tiers.
  Given the tasks sorted by D, agreement for cuts (i, j) splits into f(i) + g(j), so the best
  pair is found exactly in linear time with a running maximum. Ties in agreement are broken by
  the smaller linearly weighted disagreement (sum of |tier steps|), then by the weights closest
  to the paper's, then by grid order, so the fit is deterministic.

Held-out agreement comes from stratified k-fold cross-validation (folds assigned by a seeded
hash of the task id within each reference tier): every task's held-out tier is predicted by
parameters fitted without it. The paper's formula has nothing fitted, so its agreement on all
tasks is already a held-out figure; the two are reported side by side.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict

from tambench.difficulty.compare import TierComparison, compare_tiers
from tambench.difficulty.formula import (
    PAPER_PARAMS,
    TIER_ORDER,
    DifficultyParams,
    DifficultyResult,
    tier_for,
)
from tambench.errors import DifficultyError, ReportVersionError
from tambench.schema.taskspec import Tier

#: The formula's terms used as features, in weight order (w1, w2, w3).
FEATURES = ("norm_mean", "log10_participants_plus_1", "best_term")
_PAPER_W = np.array([PAPER_PARAMS.w1, PAPER_PARAMS.w2, PAPER_PARAMS.w3])


def features_of(result: DifficultyResult) -> np.ndarray:
    """The three weight-independent terms of a difficulty result."""
    return np.array([result.inputs[f] for f in FEATURES], dtype=np.float64)


def weight_grid(step: float) -> np.ndarray:
    """Every (w1, w2, w3) >= 0 with sum 1 on a grid of the given step.

    >>> weight_grid(0.5).tolist()
    [[0.0, 0.0, 1.0], [0.0, 0.5, 0.5], [0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]
    """
    if not 0 < step <= 1:
        raise DifficultyError(f"grid step must be in (0, 1], got {step}")
    n = round(1 / step)
    if abs(n * step - 1) > 1e-9:
        raise DifficultyError(f"grid step must divide 1 exactly, got {step}")
    rows = [(a / n, b / n, (n - a - b) / n) for a in range(n + 1) for b in range(n + 1 - a)]
    return np.array(rows, dtype=np.float64)


@dataclass(frozen=True)
class _Cut:
    agreement: int
    cost: int
    easy_max: float
    medium_max: float


def best_thresholds(d: np.ndarray, y: np.ndarray) -> _Cut:
    """Thresholds maximising agreement of tiers from scores ``d`` with labels ``y`` (0/1/2)."""
    n = d.size
    order = np.argsort(d, kind="stable")
    ds, ys = d[order], y[order]
    zero = np.zeros(1, dtype=np.int64)
    cum_e = np.concatenate([zero, np.cumsum(ys == 0)])
    cum_m = np.concatenate([zero, np.cumsum(ys == 1)])
    cum_h = np.concatenate([zero, np.cumsum(ys == 2)])
    cum_y = np.concatenate([zero, np.cumsum(ys)])  # cost if predicted easy
    cum_a = np.concatenate([zero, np.cumsum(np.abs(ys - 1))])  # cost if predicted medium
    cum_b = np.concatenate([zero, np.cumsum(2 - ys)])  # cost if predicted hard
    h_total, b_total = int(cum_h[-1]), int(cum_b[-1])
    # A cut at k puts sorted tasks [0, k) below the threshold; tasks with equal D cannot be
    # separated, so only positions between distinct values (and both ends) are valid.
    valid = np.ones(n + 1, dtype=bool)
    valid[1:n] = ds[1:] > ds[:-1]
    scale = 2 * n + 1  # cost never exceeds 2n: agreement always dominates
    f = (cum_e - cum_m) * scale - (cum_y - cum_a)
    g = (cum_m - cum_h + h_total) * scale - (cum_a + b_total - cum_b)
    best_val, best_i, run_i = None, 0, -1
    best_pair = (0, 0)
    for j in range(n + 1):
        if not valid[j]:
            continue
        if run_i < 0 or f[j] > f[run_i]:
            run_i = j
        val = int(f[run_i] + g[j])
        if best_val is None or val > best_val:
            best_val, best_pair = val, (run_i, j)
    best_i, best_j = best_pair
    agreement = int(cum_e[best_i] + cum_m[best_j] - cum_m[best_i] + h_total - cum_h[best_j])
    cost = int(cum_y[best_i] + cum_a[best_j] - cum_a[best_i] + b_total - cum_b[best_j])

    def cut_value(k: int) -> float:
        if k == 0:
            return float(ds[0]) - 1e-9
        if k == n:
            return float(ds[-1]) + 1e-9
        return float((ds[k - 1] + ds[k]) / 2)

    return _Cut(agreement, cost, cut_value(best_i), cut_value(best_j))


@dataclass(frozen=True)
class Fit:
    """Fitted parameters and their in-sample agreement."""

    params: DifficultyParams
    agreement: int
    n: int


def fit_params(x: np.ndarray, y: np.ndarray, *, step: float = 0.05) -> Fit:
    """Fit weights (grid) and thresholds (exact) to features ``x`` (n, 3) and tiers ``y``."""
    if x.ndim != 2 or x.shape[1] != len(FEATURES) or x.shape[0] != y.size:
        raise DifficultyError(f"expected features of shape (n, 3) and n labels, got {x.shape} "
                              f"and {y.size}")
    if y.size == 0:
        raise DifficultyError("cannot fit on zero tasks")
    grid = weight_grid(step)
    scores = grid @ x.T
    best_key: tuple[int, int, float, int] | None = None
    best: tuple[np.ndarray, _Cut] | None = None
    for row in range(grid.shape[0]):
        cut = best_thresholds(scores[row], y)
        closeness = -float(np.abs(grid[row] - _PAPER_W).sum())
        key = (cut.agreement, -cut.cost, closeness, -row)
        if best_key is None or key > best_key:
            best_key, best = key, (grid[row], cut)
    if best is None:  # the grid always has rows; kept for the type checker
        raise DifficultyError("empty weight grid")
    w, cut = best
    params = DifficultyParams(w1=float(w[0]), w2=float(w[1]), w3=float(w[2]),
                              easy_max=cut.easy_max, medium_max=cut.medium_max)
    return Fit(params, cut.agreement, int(y.size))


def predict_tiers(x: np.ndarray, params: DifficultyParams) -> list[Tier]:
    """Tiers of feature rows under the given parameters."""
    w = np.array([params.w1, params.w2, params.w3])
    return [tier_for(float(d), params) for d in x @ w]


def stratified_folds(tasks: Sequence[str], y: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fold number of each task: within each tier, tasks ordered by a seeded hash, dealt out."""
    folds = np.zeros(len(tasks), dtype=np.int64)
    position = 0
    for tier in range(3):
        members = [i for i in range(len(tasks)) if y[i] == tier]
        members.sort(key=lambda i: hashlib.sha256(f"{seed}:{tasks[i]}".encode()).hexdigest())
        for i in members:
            folds[i] = position % k
            position += 1
    return folds


CALIBRATION_REPORT_VERSION = 1


class WeightsRecord(BaseModel):
    """Weights and thresholds of the formula, as a report records them."""

    model_config = ConfigDict(extra="forbid")

    w1: float
    w2: float
    w3: float
    easy_max: float
    medium_max: float

    @classmethod
    def of(cls, p: DifficultyParams) -> WeightsRecord:
        """The record of one parameter set."""
        return cls(w1=p.w1, w2=p.w2, w3=p.w3, easy_max=p.easy_max, medium_max=p.medium_max)


class CalibrationReport(BaseModel):
    """Held-out agreement of re-fitted formula weights next to the paper's formula
    (``tambench difficulty calibrate --json``)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = CALIBRATION_REPORT_VERSION
    method: str
    n: int
    k: int
    seed: int
    step: float
    paper: TierComparison
    heldout: TierComparison
    paper_params: WeightsRecord
    fitted_params: WeightsRecord
    fitted_agreement: int
    """In-sample agreement (tasks) of the parameters fitted on every task."""
    fold_params: list[WeightsRecord]

    @property
    def verdict(self) -> str:
        """One sentence saying whether calibration helps on held-out tasks."""
        diff = self.heldout.agreement - self.paper.agreement
        if diff > 0:
            return (f"calibration helps: held-out agreement {self.heldout.agreement:.3f} vs "
                    f"{self.paper.agreement:.3f} for the paper's formula (+{diff:.3f})")
        return (f"calibration does not help: held-out agreement {self.heldout.agreement:.3f} vs "
                f"{self.paper.agreement:.3f} for the paper's formula ({diff:+.3f})")

    @classmethod
    def parse(cls, data: dict[str, object]) -> CalibrationReport:
        """Load a stored report, refusing a newer version."""
        version = data.get("schema_version", CALIBRATION_REPORT_VERSION)
        if not isinstance(version, int) or version > CALIBRATION_REPORT_VERSION:
            raise ReportVersionError(f"calibration report version {version!r} is newer than "
                                     f"this tambench reads ({CALIBRATION_REPORT_VERSION})")
        return cls.model_validate(data)


def calibrate(
    results: Mapping[str, DifficultyResult],
    reference: Mapping[str, Tier],
    *,
    k: int = 5,
    seed: int = 0,
    step: float = 0.05,
) -> CalibrationReport:
    """Cross-validated calibration over the tasks that have both a result and a reference."""
    tasks = sorted(set(results) & set(reference))
    if len(tasks) < 3:
        raise DifficultyError(f"calibration needs at least 3 labelled tasks with a leaderboard, "
                              f"got {len(tasks)}")
    methods = {results[t].method for t in tasks}
    if len(methods) != 1:
        raise DifficultyError(f"results mix methods {sorted(methods)}; calibrate one at a time")
    y = np.array([TIER_ORDER.index(reference[t]) for t in tasks], dtype=np.int64)
    if np.unique(y).size < 2:
        raise DifficultyError("every labelled task has the same tier; nothing to calibrate")
    if k < 2:
        raise DifficultyError(f"cross-validation needs k >= 2 folds, got {k}")
    k = min(k, len(tasks))
    x = np.vstack([features_of(results[t]) for t in tasks])
    folds = stratified_folds(tasks, y, k, seed)
    heldout: dict[str, Tier] = {}
    fold_params: list[DifficultyParams] = []
    for fold in range(k):
        test = folds == fold
        if not test.any():
            continue
        fit = fit_params(x[~test], y[~test], step=step)
        fold_params.append(fit.params)
        for t, tier in zip([t for t, m in zip(tasks, test, strict=True) if m],
                           predict_tiers(x[test], fit.params), strict=True):
            heldout[t] = tier
    ref = {t: reference[t] for t in tasks}
    paper_pred = dict(zip(tasks, predict_tiers(x, PAPER_PARAMS), strict=True))
    fitted = fit_params(x, y, step=step)
    return CalibrationReport(
        method=next(iter(methods)), n=len(tasks), k=k, seed=seed, step=step,
        paper=compare_tiers(paper_pred, ref), heldout=compare_tiers(heldout, ref),
        paper_params=WeightsRecord.of(PAPER_PARAMS), fitted_params=WeightsRecord.of(fitted.params),
        fitted_agreement=fitted.agreement,
        fold_params=[WeightsRecord.of(p) for p in fold_params])
