"""Fitting the calibrated model, and measuring it honestly: cross-validation and a held-out set.

:func:`fit_model` fits the ordinal logistic model of :mod:`tambench.difficulty.calibrated`
(L2-penalised maximum likelihood, L-BFGS-B from a fixed start, so the same data give the same
parameters). :func:`cross_validate` repeats stratified k-fold cross-validation: every board's
tier is predicted by a model fitted without it, and the agreement, the two-step jumps and the
confusion matrix are summed over repeats. :func:`hold_out` keeps a seeded, stratified share of
the labelled boards out of everything (model choice included) for a final check.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy.optimize import minimize

from tambench.difficulty.calibrated import CalibratedParams, feature_row, latent, tier_index
from tambench.errors import DifficultyError

FIT_REPORT_VERSION = 1


@dataclass(frozen=True)
class LabelledBoard:
    """One board's statistics and its reference tier (0 easy, 1 medium, 2 hard)."""

    task: str
    stats: Mapping[str, float]
    tier: int


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def _neg_log_likelihood(theta: np.ndarray, x: np.ndarray, y: np.ndarray, l2: float) -> float:
    d = x.shape[1]
    w, c1, gap = theta[:d], theta[d], theta[d + 1]
    c2 = c1 + math.exp(gap)
    z = x @ w
    # log P(y = k) for each class, computed stably.
    lp_easy = _log_sigmoid(c1 - z)
    lp_hard = _log_sigmoid(z - c2)
    p_mid = np.exp(_log_sigmoid(c2 - z)) - np.exp(lp_easy)
    lp_mid = np.log(np.clip(p_mid, 1e-300, None))
    lp = np.choose(y, [lp_easy, lp_mid, lp_hard])
    return float(-lp.sum() + l2 * float(w @ w))


def fit_model(boards: Sequence[LabelledBoard], features: list[str], fill: dict[str, float],
              l2: float) -> CalibratedParams:
    """Fit weights and cuts on ``boards`` (their statistics standardised on these boards)."""
    if len(boards) < 3 or len({b.tier for b in boards}) < 2:
        raise DifficultyError(f"fitting needs at least 3 boards of at least 2 tiers, got "
                              f"{len(boards)} of {len({b.tier for b in boards})}")
    raw = np.vstack([feature_row(dict(b.stats), features, fill) for b in boards])
    means = raw.mean(axis=0)
    scales = raw.std(axis=0)
    scales[scales == 0] = 1.0
    x = (raw - means) / scales
    y = np.array([b.tier for b in boards], dtype=np.int64)
    start = np.concatenate([np.zeros(len(features)), [-0.5, 0.0]])
    res = minimize(_neg_log_likelihood, start, args=(x, y, l2), method="L-BFGS-B")
    d = len(features)
    cut_easy = float(res.x[d])
    return CalibratedParams(
        features=list(features), fill=dict(fill), means=means.tolist(),
        scales=scales.tolist(), weights=[float(v) for v in res.x[:d]], cut_easy=cut_easy,
        cut_medium=cut_easy + math.exp(float(res.x[d + 1])), l2=l2)


def predict(params: CalibratedParams, boards: Sequence[LabelledBoard]) -> list[int]:
    """Predicted tier index of each board."""
    return [tier_index(latent(feature_row(dict(b.stats), params.features, params.fill), params),
                       params.cut_easy, params.cut_medium) for b in boards]


def _rank_key(seed: int, task: str) -> str:
    return hashlib.sha256(f"{seed}:{task}".encode()).hexdigest()


def stratified_folds(boards: Sequence[LabelledBoard], k: int, seed: int) -> list[int]:
    """Fold of each board: within each tier, boards ordered by a seeded hash, dealt out."""
    folds = [0] * len(boards)
    position = 0
    for tier in range(3):
        members = sorted((i for i, b in enumerate(boards) if b.tier == tier),
                         key=lambda i: _rank_key(seed, boards[i].task))
        for i in members:
            folds[i] = position % k
            position += 1
    return folds


def hold_out(boards: Sequence[LabelledBoard], share: float, seed: int
             ) -> tuple[list[LabelledBoard], list[LabelledBoard]]:
    """(kept for fitting, held out): ``round(share * n)`` boards of each tier, chosen by a
    seeded hash of the task id."""
    held: list[LabelledBoard] = []
    for tier in range(3):
        members = sorted((b for b in boards if b.tier == tier),
                         key=lambda b: _rank_key(seed, f"held-out:{b.task}"))
        held += members[: round(share * len(members))]
    held_ids = {b.task for b in held}
    return [b for b in boards if b.task not in held_ids], sorted(held, key=lambda b: b.task)


class _Report(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Agreement(_Report):
    """Predicted tiers against reference tiers."""

    n: int
    agreement: float
    two_step_jumps: float
    """Predictions two tiers away from the reference (per evaluation; averaged over repeats)."""
    confusion: list[list[int]]
    """Rows: reference easy/medium/hard; columns: predicted; summed over repeats."""


def agreement_of(y: Sequence[int], pred: Sequence[int]) -> Agreement:
    """Agreement, two-step jumps and confusion of one set of predictions."""
    conf = np.zeros((3, 3), dtype=np.int64)
    for a, b in zip(y, pred, strict=True):
        conf[a, b] += 1
    n = len(y)
    return Agreement(n=n, agreement=float(np.trace(conf)) / n if n else 0.0,
                     two_step_jumps=float(conf[0, 2] + conf[2, 0]),
                     confusion=conf.tolist())


class CrossValidation(_Report):
    """Repeated stratified k-fold cross-validation of one model specification."""

    features: list[str]
    l2: float
    folds: int
    repeats: int
    seed: int
    mean_agreement: float
    min_agreement: float
    max_agreement: float
    mean_two_step_jumps: float
    pooled: Agreement = Field(description="every held-out prediction of every repeat")


def cross_validate(boards: Sequence[LabelledBoard], features: list[str], fill: dict[str, float],
                   l2: float, *, folds: int = 5, repeats: int = 10, seed: int = 0
                   ) -> CrossValidation:
    """Repeated stratified k-fold cross-validation (see the module docstring)."""
    y = [b.tier for b in boards]
    runs: list[Agreement] = []
    all_y: list[int] = []
    all_pred: list[int] = []
    for r in range(repeats):
        fold_of = stratified_folds(boards, folds, seed + r)
        pred = [0] * len(boards)
        for f in range(folds):
            train = [b for b, g in zip(boards, fold_of, strict=True) if g != f]
            test = [i for i, g in enumerate(fold_of) if g == f]
            model = fit_model(train, features, fill, l2)
            for i, p in zip(test, predict(model, [boards[i] for i in test]), strict=True):
                pred[i] = p
        runs.append(agreement_of(y, pred))
        all_y += y
        all_pred += pred
    pooled = agreement_of(all_y, all_pred)
    return CrossValidation(
        features=list(features), l2=l2, folds=folds, repeats=repeats, seed=seed,
        mean_agreement=float(np.mean([a.agreement for a in runs])),
        min_agreement=min(a.agreement for a in runs),
        max_agreement=max(a.agreement for a in runs),
        mean_two_step_jumps=float(np.mean([a.two_step_jumps for a in runs])), pooled=pooled)


class FitReport(_Report):
    """Everything ``scripts/fit_difficulty.py`` measured (written beside the parameters)."""

    schema_version: int = FIT_REPORT_VERSION
    labelled: int
    fitted_on: list[str]
    held_out: list[str]
    candidates: list[CrossValidation]
    chosen: CrossValidation
    held_out_check: Agreement
    held_out_predictions: dict[str, list[str]]
    """Held-out task -> [reference tier, predicted tier]."""
    paper_on_fitted: Agreement
    paper_on_held_out: Agreement
    robust_on_fitted: Agreement
    robust_on_held_out: Agreement
