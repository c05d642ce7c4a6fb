"""Error metrics of real values beyond the plain means: weighted MAE, median absolute error,
RMSPE, normalised Gini, and Conway boards evolved forward before their MAE.

Inputs are float64 arrays aligned by id by the grader: 1-D for one target column, (rows,
columns) for several. Auxiliary arrays (weights, step counts) come from answers columns named
by ``*_column`` parameters. Messages name rows and counts, never answer values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from tambench.core.metrics._common import (
    as_float_1d,
    choice,
    finite,
    positive_int,
    same_length,
)
from tambench.core.metrics.base import register
from tambench.core.metrics.regression import _pair_any
from tambench.errors import (
    InvalidSubmissionError,
    MetricInputError,
    MetricParameterError,
    TaskDataError,
)

#: Most steps a Game of Life board is evolved (Kaggle's games use 1 to 5).
MAX_LIFE_STEPS = 100


# --- weighted MAE ----------------------------------------------------------------------------


def _cell_key(value: Any) -> str:
    """How a weights cell is looked up in ``weight_map``: text stripped and lower-cased, a
    whole float written as an integer (1.0 -> "1"), so True, "true" and "TRUE" are one key."""
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, float | np.floating) and math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return str(value).strip().lower()


def _mapped_weights(values: np.ndarray, weight_map: Mapping[str, Any]) -> np.ndarray:
    table = {_cell_key(k): float(v) for k, v in weight_map.items()}
    keys = [_cell_key(v) for v in values.ravel()]
    unknown = sum(1 for k in keys if k not in table)
    if unknown:
        raise TaskDataError(f"weighted_mae: {unknown} answers row(s) hold a weights value that "
                            f"weight_map does not list (it lists {sorted(table)})")
    return np.array([table[k] for k in keys]).reshape(values.shape)


def _check_weight_map(weight_map: Any) -> None:
    if weight_map is None:
        return
    ok = isinstance(weight_map, Mapping) and weight_map and all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
        for v in weight_map.values())
    if not ok:
        raise MetricParameterError("weight_map must map answers values to finite weights >= 0, "
                                   f"e.g. {{'True': 5, 'False': 1}}; got {weight_map!r}")


def _weights(weights: Any, shape: tuple[int, ...], weight_map: Any) -> np.ndarray:
    if weights is None:
        raise TaskDataError("weighted_mae needs weights: name the answers column holding them "
                            "with weights_column")
    raw = np.asarray(weights, dtype=object)
    if raw.ndim == 1:
        raw = raw[:, None]
    if raw.shape != (shape[0], 1):
        raise MetricInputError(f"weights: expected one weight for each of {shape[0]} rows, got "
                               f"shape {raw.shape}")
    if weight_map is not None:
        w = _mapped_weights(raw, weight_map)
    else:
        try:
            w = raw.astype(np.float64)
        except (TypeError, ValueError):
            raise TaskDataError("weighted_mae: the answers' weights are not all numbers; give "
                                "weight_map to turn labels into weights") from None
    if not np.isfinite(w).all() or (w < 0).any():
        raise TaskDataError("weighted_mae: the answers' weights must be finite and >= 0")
    return np.broadcast_to(w, shape)


@register(
    "weighted_mae",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="value",
    defaults={"weights_column": "weight", "weight_map": None, "divide_by": "weights"},
)
def weighted_mae(y_true: Any, y_pred: Any, weights: Any = None, weight_map: Any = None,
                 divide_by: str = "weights") -> float:
    """Weighted mean absolute error: sum of w * |t - p| over the sum of the weights (or n).

    Lower is better; best 0.0. Input: two float arrays of one shape (1-D, or 2-D with every
    cell scored) and a weight per row from the answers column ``weights_column`` (default
    ``weight``; several target columns share their row's weight). ``weight_map`` turns the column's values into weights (Walmart:
    ``{"True": 5, "False": 1}`` on ``IsHoliday``; keys match case-blind, 1.0 as "1").
    ``divide_by="weights"`` (default) divides by the sum of the weights (Walmart, bond
    trades); ``"n"`` by the number of scored cells (Winton). Weights must be finite and >= 0
    with a positive total.

    >>> weighted_mae([1.0, 2.0, 4.0], [2.0, 2.0, 1.0], weights=[1.0, 1.0, 2.0])
    1.75
    >>> weighted_mae([1.0, 2.0], [2.0, 4.0], weights=["True", "False"], weight_map={"true": 5, "false": 1})
    1.1666666666666667
    """
    mode = choice(divide_by, "divide_by", ("weights", "n"))
    _check_weight_map(weight_map)
    t, p = _pair_any(y_true, y_pred)
    w = _weights(weights, t.shape, weight_map)
    if mode == "n":
        return finite(float(np.sum(w * np.abs(t - p)) / t.size), "weighted_mae")
    total = float(w.sum())
    if total <= 0:
        raise TaskDataError("weighted_mae: the answers' weights sum to 0")
    return finite(float(np.sum(w * np.abs(t - p)) / total), "weighted_mae")


# --- median absolute error and RMSPE ----------------------------------------------------------


@register("median_absolute_error", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def median_absolute_error(y_true: Any, y_pred: Any) -> float:
    """Median of the absolute errors |t - p| (MedAE); several columns: mean of their medians.

    Lower is better; best 0.0. Input: two float arrays of one shape. An even number of rows
    takes the mean of the two middle errors.

    >>> median_absolute_error([1.0, 2.0, 3.0, 10.0], [1.5, 2.0, 5.0, 0.0])
    1.25
    """
    t, p = _pair_any(y_true, y_pred)
    return finite(float(np.mean(np.median(np.abs(t - p), axis=0))), "median_absolute_error")


@register("rmspe", higher_is_better=False, value_range=(0.0, math.inf), kind="value")
def rmspe(y_true: Any, y_pred: Any) -> float:
    """Root mean square percentage error over the rows whose truth is not 0 (Rossmann).

    Lower is better; best 0.0. Input: two float arrays of one shape; every cell with a true
    value of 0 is left out (Rossmann ignores days with no sales), and the answers must hold at
    least one other. A fraction, not a percentage: sqrt(mean(((t - p) / t)^2)).

    >>> rmspe([100.0, 0.0, 50.0], [90.0, 7.0, 60.0])
    0.15811388300841897
    """
    t, p = _pair_any(y_true, y_pred)
    keep = t != 0
    if not keep.any():
        raise TaskDataError("rmspe: every true value is 0, so no row is scored")
    ratio = (t[keep] - p[keep]) / t[keep]
    return finite(float(np.sqrt(np.mean(ratio * ratio))), "rmspe")


# --- normalised Gini --------------------------------------------------------------------------


def _gini_sum(actual: np.ndarray, order_key: np.ndarray) -> float:
    """Sum over positions of the cumulative truth, rows sorted by ``order_key`` descending;
    tied keys share their block's expected cumulative sum (any order of a tie is equally
    likely), so the result does not depend on the rows' order."""
    order = np.argsort(-order_key, kind="stable")
    keys, vals = order_key[order], actual[order]
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    sizes = np.diff(np.append(starts, keys.size))
    block_sums = np.add.reduceat(vals, starts)
    before = np.concatenate([[0.0], np.cumsum(block_sums)[:-1]])
    # A block of m rows after a cumulative C, holding S: sum of expected cumsums m*C + S(m+1)/2.
    return float(np.sum(sizes * before + block_sums * (sizes + 1) / 2.0))


@register("normalized_gini", higher_is_better=True, value_range=(-1.0, 1.0), kind="value")
def normalized_gini(y_true: Any, y_pred: Any) -> float:
    """Normalised Gini coefficient: the Gini of the predictions' order over the truths' own.

    Kaggle's Porto Seguro, Liberty Mutual and Don't Get Kicked use it.

    Higher is better; best 1.0, 0 for a random order, -1 for the reversed perfect order.
    Input: 1-D truths >= 0 with a positive total (0/1 labels or amounts) and 1-D real scores;
    only the scores' order matters. Rows sorted by descending score accumulate the truth;
    Gini = (sum of cumulative shares - (n + 1) / 2) / n. Tied scores take the mean over their
    orders (for 0/1 truths the result equals 2 * ROC-AUC - 1, ties counting one half).

    >>> normalized_gini([1.0, 0.0, 0.0, 1.0], [0.9, 0.3, 0.5, 0.2])
    0.0
    >>> round(normalized_gini([3.0, 0.0, 1.0], [0.8, 0.1, 0.5]), 6)
    1.0
    """
    t = as_float_1d(y_true, "y_true")
    p = as_float_1d(y_pred, "y_pred")
    n = same_length(t, p)
    total = float(t.sum())
    if (t < 0).any() or total <= 0:
        raise TaskDataError("normalized_gini needs true values >= 0 with a positive total")
    perfect = _gini_sum(t, t) / total - (n + 1) / 2.0
    if perfect <= 0:
        raise TaskDataError("normalized_gini: every true value is equal, so no order is better "
                            "than another")
    model = _gini_sum(t, p) / total - (n + 1) / 2.0
    return float(np.clip(model / perfect, -1.0, 1.0))


# --- Conway's reverse game of life --------------------------------------------------------------


def _life_step(boards: np.ndarray) -> np.ndarray:
    """One step of Conway's rules on (n, rows, cols) 0/1 uint8 boards whose edges wrap around.

    The 3 x 3 sums are separable: wrap-pad once, add three row shifts, then three column
    shifts, and subtract the cell itself.
    """
    padded = np.pad(boards, ((0, 0), (1, 1), (1, 1)), mode="wrap")
    rows = padded[:, :-2] + padded[:, 1:-1] + padded[:, 2:]
    block = rows[:, :, :-2] + rows[:, :, 1:-1] + rows[:, :, 2:]
    neighbours = block - boards
    return ((neighbours == 3) | ((boards == 1) & (neighbours == 2))).astype(np.uint8)


def _steps(delta: Any, n: int) -> np.ndarray:
    if delta is None:
        raise TaskDataError("game_of_life_mae needs each game's number of steps: name the "
                            "answers column with delta_column")
    d = as_float_1d(delta, "delta")
    if d.size != n:
        raise MetricInputError(f"delta: expected {n} values, got {d.size}")
    if ((d < 0) | (d > MAX_LIFE_STEPS) | (d != np.round(d))).any():
        raise TaskDataError(f"game_of_life_mae: delta must be whole numbers from 0 to "
                            f"{MAX_LIFE_STEPS}")
    return d.astype(np.int64)


def _binary_board_cells(p: np.ndarray) -> None:
    bad = ~((p == 0) | (p == 1))
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        raise InvalidSubmissionError(
            f"predicted boards may only hold 0 (dead) or 1 (alive); {int(bad.sum())} cell(s) in "
            f"{rows.size} row(s) hold another value, first in row {int(rows[0]) + 1}")


@register(
    "game_of_life_mae",
    higher_is_better=False,
    value_range=(0.0, 1.0),
    kind="value",
    defaults={"delta_column": "delta", "board_rows": 25, "board_cols": 25},
)
def game_of_life_mae(y_true: Any, y_pred: Any, delta: Any = None, board_rows: int = 25,
                     board_cols: int = 25) -> float:
    """MAE between the stop boards and the predicted start boards evolved delta Life steps.

    Conway's Reverse Game of Life 2020: the rules of Conway's Game of Life, edges wrapping.

    Lower is better; best 0.0 (1 - the share of cells right). Input: (rows, board_rows *
    board_cols) 0/1 floats, each row one board in row-major order: the answers hold the stop
    boards, the submission the start boards; ``delta`` (answers column ``delta_column``) is
    each game's number of steps. The board's edges wrap around (a torus). A predicted cell
    other than 0 or 1 makes the submission invalid.

    >>> blinker = [0, 0, 0, 0, 0,  0, 0, 1, 0, 0,  0, 0, 1, 0, 0,  0, 0, 1, 0, 0,  0, 0, 0, 0, 0]
    >>> turned = [0, 0, 0, 0, 0,  0, 0, 0, 0, 0,  0, 1, 1, 1, 0,  0, 0, 0, 0, 0,  0, 0, 0, 0, 0]
    >>> game_of_life_mae([turned], [blinker], delta=[1], board_rows=5, board_cols=5)
    0.0
    """
    rows = positive_int(board_rows, "board_rows")
    cols = positive_int(board_cols, "board_cols")
    t, p = _pair_any(y_true, y_pred)
    if t.shape[1] != rows * cols:
        raise MetricInputError(f"game_of_life_mae: expected {rows * cols} cells per board "
                               f"({rows} x {cols}), got {t.shape[1]}")
    if not ((t == 0) | (t == 1)).all():
        raise TaskDataError("game_of_life_mae: the answers' stop boards must hold only 0 and 1")
    _binary_board_cells(p)
    steps = _steps(delta, t.shape[0])
    evolved = p.astype(np.uint8).reshape(-1, rows, cols)
    for step in range(1, int(steps.max(initial=0)) + 1):
        live = steps >= step
        if live.all():
            evolved = _life_step(evolved)
        else:
            evolved[live] = _life_step(evolved[live])
    return float(np.mean(evolved.reshape(t.shape) != t))
