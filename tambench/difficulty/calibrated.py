"""The calibrated difficulty model: leaderboard statistics -> tier, fitted to human tiers.

The model is an ordinal (proportional-odds) logistic regression on a few statistics of the
board (:mod:`tambench.difficulty.features`), standardised::

    z = sum_i w_i * (x_i - mean_i) / scale_i
    P(tier <= easy)   = sigmoid(cut_easy - z)
    P(tier <= medium) = sigmoid(cut_medium - z)

The tier is easy when ``z <= cut_easy``, medium when ``z <= cut_medium``, hard above. The
reported score is the expected tier on a 0-1 scale, ``(P(medium) + 2 P(hard)) / 2``, which
grows with z, so a higher score is a harder task as with the paper's D. A statistic that is
undefined for a board (the winner's gap on an unbounded metric) takes the value stored in
``fill`` before standardising; the ``unbounded`` indicator then carries that case.

The parameters ship in ``calibrated_params.json`` beside this module, produced by
``scripts/fit_difficulty.py`` from the MLE-bench complexity labels of ``../shared/data`` only
(the fitted and held-out task lists are recorded in the file); a change to them is a reviewed
golden diff (``tests/difficulty/test_calibrated.py``). ``docs/difficulty.md`` reports the
cross-validated and held-out agreement and where the model fails.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from tambench.core.bounded import load_json
from tambench.core.leaderboard import Leaderboard
from tambench.difficulty.features import FEATURE_NAMES, BoardStats, board_stats
from tambench.difficulty.formula import TIER_ORDER, DifficultyResult, Scale
from tambench.errors import DifficultyError, ReportVersionError

PARAMS_FILE = Path(__file__).with_name("calibrated_params.json")
PARAMS_VERSION = 1


class CalibratedParams(BaseModel):
    """The fitted model (see the module docstring); stored as ``calibrated_params.json``."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = PARAMS_VERSION
    features: list[str]
    """Statistics used, in weight order (names from FEATURE_NAMES)."""
    fill: dict[str, float] = Field(default_factory=dict)
    """Value of a statistic where it is undefined for a board (before standardising)."""
    means: list[float]
    scales: list[float]
    weights: list[float]
    cut_easy: float
    cut_medium: float
    l2: float
    """Ridge penalty the weights were fitted with (on standardised statistics)."""
    labels: str = ""
    """Which reference tiers the model was fitted to."""
    fitted_on: list[str] = Field(default_factory=list)
    """Task ids of the labelled boards the parameters were fitted on."""
    held_out: list[str] = Field(default_factory=list)
    """Labelled boards kept out of every fit, to check the shipped model on."""
    data: str = ""
    """What the fit read (file and its SHA-256)."""

    @model_validator(mode="after")
    def _consistent(self) -> CalibratedParams:
        n = len(self.features)
        unknown = sorted(set(self.features) - set(FEATURE_NAMES))
        if unknown:
            raise ValueError(f"unknown statistics {unknown}; known: {list(FEATURE_NAMES)}")
        if not (len(self.means) == len(self.scales) == len(self.weights) == n):
            raise ValueError("features, means, scales and weights must have the same length")
        if any(s <= 0 for s in self.scales):
            raise ValueError("scales must be positive")
        if not self.cut_easy <= self.cut_medium:
            raise ValueError(f"cut_easy {self.cut_easy} must not exceed cut_medium "
                             f"{self.cut_medium}")
        return self


def load_params(path: Path = PARAMS_FILE) -> CalibratedParams:
    """Read stored parameters, refusing a newer version."""
    try:
        data = load_json(Path(path), error=DifficultyError)
    except FileNotFoundError:
        raise DifficultyError(f"calibrated model parameters not found: {path}") from None
    version = data.get("schema_version", PARAMS_VERSION) if isinstance(data, dict) else None
    if not isinstance(version, int) or version > PARAMS_VERSION:
        raise ReportVersionError(f"{path}: parameters version {version!r} is newer than this "
                                 f"tambench reads ({PARAMS_VERSION}); upgrade tambench")
    return CalibratedParams.model_validate(data)


@lru_cache(maxsize=1)
def shipped_params() -> CalibratedParams:
    """The parameters shipped with the package."""
    return load_params(PARAMS_FILE)


def feature_row(stats: BoardStats | dict[str, float], features: list[str],
                fill: dict[str, float]) -> np.ndarray:
    """The raw statistics a model uses, undefined ones replaced by their fill value."""
    values = stats.as_dict() if isinstance(stats, BoardStats) else stats
    row = []
    for name in features:
        v = float(values[name])
        if not math.isfinite(v):
            if name not in fill:
                raise DifficultyError(f"statistic {name} is undefined for this board and the "
                                      "model gives no fill value for it")
            v = fill[name]
        row.append(v)
    return np.array(row, dtype=np.float64)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def latent(row: np.ndarray, params: CalibratedParams) -> float:
    """z of one raw feature row."""
    x = (row - np.array(params.means)) / np.array(params.scales)
    return float(x @ np.array(params.weights))


def tier_probabilities(z: float, cut_easy: float, cut_medium: float) -> tuple[float, ...]:
    """P(easy), P(medium), P(hard) at latent value z."""
    p_le_easy = _sigmoid(cut_easy - z)
    p_le_medium = _sigmoid(cut_medium - z)
    return p_le_easy, max(0.0, p_le_medium - p_le_easy), 1.0 - p_le_medium


def tier_index(z: float, cut_easy: float, cut_medium: float) -> int:
    """0, 1 or 2: easy at or below the first cut, medium up to the second, hard above."""
    return 0 if z <= cut_easy else 1 if z <= cut_medium else 2


def calibrated_difficulty(lb: Leaderboard, scale: Scale,
                          params: CalibratedParams | None = None) -> DifficultyResult:
    """The calibrated model's difficulty of a board (see the module docstring)."""
    p = params or shipped_params()
    stats = board_stats(lb, scale)
    row = feature_row(stats, p.features, p.fill)
    z = latent(row, p)
    probs = tier_probabilities(z, p.cut_easy, p.cut_medium)
    score = (probs[1] + 2.0 * probs[2]) / 2.0
    # Statistics undefined for this board (NaN) are left out: inputs are strict JSON.
    defined = {k: v for k, v in stats.as_dict().items() if math.isfinite(v)}
    inputs = {**defined, "latent": z, "cut_easy": p.cut_easy,
              "cut_medium": p.cut_medium, "p_easy": probs[0], "p_medium": probs[1],
              "p_hard": probs[2]}
    inputs.update({f"w_{name}": w for name, w in zip(p.features, p.weights, strict=True)})
    notes = [f"statistics used: {', '.join(p.features)}"]
    if stats.unbounded:
        notes.append(f"{scale.id} has no finite range: the winner's distance from a perfect "
                     "score is undefined, and the model places the board by its other "
                     "statistics only")
    tier = TIER_ORDER[tier_index(z, p.cut_easy, p.cut_medium)]
    return DifficultyResult("calibrated", score, tier, inputs, tuple(notes))


def explain_calibrated(result: DifficultyResult) -> list[str]:
    """Every step of a calibrated result as readable lines (used by ``--explain``)."""
    t = result.inputs
    names = [k[2:] for k in t if k.startswith("w_")]
    lines = [f"method: {result.method}  (ordinal model fitted to MLE-bench's human tiers)",
             f"rows on the board: {int(t['rows'])}, used after removing junk rows: "
             f"{int(t['participants'])}; best {t['best_score']!r}, median {t['median_score']!r}",
             *(f"note: {n}" for n in result.notes)]
    lines += [f"{name} = {t.get(name, 'undefined (filled)')!r}   weight {t['w_' + name]:+.4f}"
              for name in names]
    lines += [f"z = {t['latent']:.4f}   (easy if z <= {t['cut_easy']:.4f}, medium if z <= "
              f"{t['cut_medium']:.4f}, hard above)",
              f"P(easy) {t['p_easy']:.3f}, P(medium) {t['p_medium']:.3f}, P(hard) "
              f"{t['p_hard']:.3f}; score = (P(medium) + 2 P(hard)) / 2 = {result.score:.4f}",
              f"tier: {result.tier.value}"]
    return lines
