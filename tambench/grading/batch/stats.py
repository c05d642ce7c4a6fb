"""Uncertainty over runs: a seeded bootstrap that resamples each agent's runs within each task.

Tasks are fixed (the benchmark), runs vary (the agent's luck). For every (agent, task) cell with
``n`` runs the bootstrap draws ``B x n`` run indices with replacement from a generator seeded by
``SeedSequence([seed, *words])``, ``words`` being the four little-endian 32-bit words of
``blake2b(agent + "\\0" + task, digest_size=16)``; so a cell's resamples do not depend on
which other agents or tasks are in the batch, and the same batch gives the same intervals. Each
resample recomputes the aggregate; the standard error is the resamples' standard deviation
(ddof 1) and the interval their ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles
(numpy's default linear interpolation).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tambench.grading.batch.models import Estimate


def cell_rng(seed: int, agent: str, task: str) -> np.random.Generator:
    """The generator of one (agent, task) cell (see the module docstring)."""
    digest = hashlib.blake2b(f"{agent}\0{task}".encode(), digest_size=16).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


def resample_indices(seed: int, agent: str, task: str, n: int, samples: int) -> np.ndarray:
    """``samples x n`` run indices drawn with replacement for one cell."""
    return cell_rng(seed, agent, task).integers(0, n, size=(samples, n))


def estimate(value: float, replicates: np.ndarray | None, confidence: float) -> Estimate:
    """A point value with the bootstrap's standard error and percentile interval.

    Resamples where the aggregate is undefined (NaN) are left out. ``replicates`` is None when
    there is nothing to resample (bootstrap off, or one run per task, where resampling could
    only repeat the value and would claim a certainty the runs do not show): the uncertainty is
    then null.
    """
    reps = None if replicates is None else replicates[np.isfinite(replicates)]
    if reps is None or reps.size < 2:
        return Estimate(value=value, se=None, ci_low=None, ci_high=None)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(reps, [tail, 1.0 - tail])
    return Estimate(value=value, se=float(np.std(reps, ddof=1)), ci_low=float(low),
                    ci_high=float(high))


def modality_weighted_mean(pcts: Iterable[tuple[str, float]]) -> float | None:
    """The paper's modality-weighted mean: ``sum p_i / f(m_i) / sum 1 / f(m_i)``.

    f(m) is the number of tasks of modality m, so each modality weighs the same.

    >>> modality_weighted_mean([("Text", 20.0), ("Text", 40.0), ("Image", 90.0)])
    60.0
    """
    pairs = list(pcts)
    if not pairs:
        return None
    f: dict[str, int] = {}
    for m, _ in pairs:
        f[m] = f.get(m, 0) + 1
    num = math.fsum(p / f[m] for m, p in pairs)
    den = math.fsum(1.0 / f[m] for m, _ in pairs)
    return num / den


def weighted_replicates(values: np.ndarray, modalities: Sequence[str]) -> np.ndarray:
    """The modality-weighted mean of every row of a ``B x T`` matrix; NaN cells are absent
    from that row (weights recomputed per row); a row with no value gives NaN."""
    present = ~np.isnan(values)
    codes = np.unique(np.asarray(modalities), return_inverse=True)[1].ravel()
    weights = np.zeros(values.shape, dtype=np.float64)
    for m in range(int(codes.max()) + 1 if codes.size else 0):
        cols = codes == m
        count = present[:, cols].sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            weights[:, cols] = np.where(present[:, cols], 1.0 / count, 0.0)
    den = weights.sum(axis=1)
    num = (np.where(present, values, 0.0) * weights).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def nan_mean_rows(values: np.ndarray) -> np.ndarray:
    """Mean of each row over its non-NaN cells (NaN when none)."""
    present = ~np.isnan(values)
    count = present.sum(axis=1)
    total = np.where(present, values, 0.0).sum(axis=1)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def any_medal_at_k(n: int, c: int | np.ndarray, k: int) -> float | np.ndarray:
    """The chance that at least one of k runs drawn without replacement from n runs, c of
    which earned a medal, earns one: ``1 - C(n - c, k) / C(n, k)`` (needs n >= k).

    >>> any_medal_at_k(4, 1, 2), any_medal_at_k(4, 0, 2), any_medal_at_k(4, 3, 2)
    (0.5, 0.0, 1.0)
    """
    table = np.array([1.0 - math.comb(n - j, k) / math.comb(n, k) for j in range(n + 1)])
    if isinstance(c, np.ndarray):
        return table[c]
    return float(table[c])


@dataclass
class Cell:
    """The runs of one agent on one task, as arrays (one entry per run)."""

    task: str
    modality: str
    rank_pct: np.ndarray
    """Per run: its rank % under the aggregation rule, NaN when it does not count."""
    flags: dict[str, np.ndarray]
    """Per run: 0/1 for valid_submission and each medal flag (medals only with a leaderboard)."""
    leaderboard: bool
    idx: np.ndarray | None = None
    """Bootstrap indices (samples x runs), None when the bootstrap is off."""
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        """Runs."""
        return int(self.rank_pct.size)

    def rank_mean(self) -> float:
        """Mean rank % of the counted runs (NaN when none counts)."""
        if "mean" not in self._cache:
            counted = self.rank_pct[~np.isnan(self.rank_pct)]
            self._cache["mean"] = np.array(counted.mean() if counted.size else math.nan)
        return float(self._cache["mean"])

    def rank_reps(self) -> np.ndarray | None:
        """Mean rank % of each resample (NaN where no counted run was drawn); computed once."""
        if self.idx is None:
            return None
        if "rank" not in self._cache:
            self._cache["rank"] = nan_mean_rows(self.rank_pct[self.idx])
        return self._cache["rank"]

    def count_reps(self, flag: str) -> np.ndarray | None:
        """How many runs with the flag each resample drew; computed once per flag."""
        if self.idx is None:
            return None
        if flag not in self._cache:
            self._cache[flag] = self.flags[flag][self.idx].sum(axis=1)
        return self._cache[flag]
