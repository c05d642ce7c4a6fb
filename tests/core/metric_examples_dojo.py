"""Example inputs for the metrics MLE-Dojo's competitions added (see ``metric_examples``).

Merged into :data:`tests.core.metric_examples.FACTORIES` and ``EXTRA_CASES``, so the
registry-wide property tests cover them like every other metric. Import ``metric_examples``,
never this module directly (it is loaded at the end of ``metric_examples``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.core.life_reference import life_step_by_cells
from tests.core.metric_examples import (
    Example,
    Factory,
    binary_example,
    label_example,
    onehot_example,
    rle_of,
    value_example,
)


def life_example(rng: np.random.Generator, n: int) -> Example:
    rows, cols = 5, 6
    starts = (rng.random((n, rows, cols)) < 0.4).astype(np.int8)
    delta = rng.integers(1, 4, n)
    stops = []
    for board, d in zip(starts, delta, strict=True):
        for _ in range(int(d)):
            board = life_step_by_cells(board)
        stops.append(board.ravel())
    other = (rng.random((n, rows * cols)) < 0.4).astype(np.float64)
    return Example(np.array(stops, dtype=np.float64), starts.reshape(n, -1).astype(np.float64),
                   other, aux={"delta": delta.astype(np.float64)},
                   params={"board_rows": rows, "board_cols": cols})


def weighted_value_example(rng: np.random.Generator, n: int) -> Example:
    t = rng.uniform(-5, 5, n)
    return Example(t, t.copy(), rng.uniform(-5, 5, n), aux={"weights": rng.uniform(0, 3, n)})


def holiday_example(rng: np.random.Generator, n: int) -> Example:
    t = rng.uniform(0, 100, n)
    flags = np.array(["True" if i % 5 == 0 else "False" for i in range(n)], dtype=object)
    return Example(t, t.copy(), rng.uniform(0, 100, n), aux={"weights": flags},
                   params={"weight_map": {"True": 5, "False": 1}})


def rossmann_example(rng: np.random.Generator, n: int) -> Example:
    t = rng.uniform(1, 50, n)
    t[::4] = 0.0  # closed days: not scored
    return Example(t, t.copy(), rng.uniform(0, 60, n))


def gini_example(rng: np.random.Generator, n: int) -> Example:
    t = rng.integers(0, 4, n).astype(np.float64)
    t[:2] = [0.0, 3.0]
    return Example(t, t.copy(), rng.normal(size=n))


def balanced_binary_example(rng: np.random.Generator, n: int) -> Example:
    ex = binary_example(rng, n)
    return Example(ex.y_true, ex.y_true.copy(), np.clip(ex.y_other, 0.01, 0.99))


def countries_example(rng: np.random.Generator, n: int) -> Example:
    countries = ["US", "FR", "NDF", "IT", "GB", "other"]
    t = np.array([str(rng.choice(countries)) for _ in range(n)], dtype=object)
    other = np.array([" ".join(rng.permutation(countries)[: int(rng.integers(0, 6))]) for _ in range(n)],
                     dtype=object)
    return Example(t, t.copy(), other, params={"k": 5})


def days_example(rng: np.random.Generator, n: int) -> Example:
    t = np.array([" ".join(map(str, rng.permutation(5) + 1)) for _ in range(n)], dtype=object)
    other = np.array([" ".join(map(str, rng.integers(1, 6, 5))) for _ in range(n)], dtype=object)
    return Example(t, t.copy(), other)


def _spans(rng: np.random.Generator) -> str:
    starts = np.sort(rng.choice(200, size=int(rng.integers(0, 4)), replace=False))
    return "; ".join(f"{s} {s + int(rng.integers(1, 30))}" for s in starts)


def char_span_example(rng: np.random.Generator, n: int) -> Example:
    t = np.array([_spans(rng) for _ in range(n)], dtype=object)
    t[0] = "3 9"  # some true character somewhere
    return Example(t, t.copy(), np.array([_spans(rng) for _ in range(n)], dtype=object))


def _ships(rng: np.random.Generator, width: int = 80) -> str:
    """Disjoint objects on a 1-D strip of ``width`` pixels, joined by '|'."""
    cuts = np.sort(rng.choice(np.arange(1, width), size=2 * int(rng.integers(0, 4)), replace=False))
    objects = []
    for a, b in zip(cuts[0::2], cuts[1::2], strict=True):
        mask = np.zeros(width, dtype=bool)
        mask[a:b] = True
        objects.append(rle_of(mask))
    return "|".join(objects)


def ships_example(rng: np.random.Generator, n: int) -> Example:
    t = np.array([_ships(rng) for _ in range(n)], dtype=object)
    t[0] = "3 5"
    return Example(t, t.copy(), np.array([_ships(rng) for _ in range(n)], dtype=object))


def _wheat_cell(rng: np.random.Generator, k: int, conf: bool) -> str:
    parts = []
    for j in range(k):
        c = float(np.round(rng.random(), 2)) if conf else 1.0
        parts.append(f"{c} {30.0 * j + rng.uniform(0, 5):.2f} {rng.uniform(0, 5):.2f} "
                     f"{rng.uniform(5, 20):.2f} {rng.uniform(5, 20):.2f}")
    return " ".join(parts)


def wheat_example(rng: np.random.Generator, n: int) -> Example:
    t = np.array([_wheat_cell(rng, int(rng.integers(1, 4)), False) for _ in range(n)], dtype=object)
    other = np.array([_wheat_cell(rng, int(rng.integers(0, 4)), True) for _ in range(n)], dtype=object)
    other[::3] = [cell.replace("1.0 ", "0.8 ") for cell in t[::3]]
    return Example(t, t.copy(), other, params={
        "iou_thresholds": [0.5, 0.55, 0.6, 0.65, 0.7, 0.75], "form": "image_precision",
        "layout": "conf_xywh"})


def flavours_example(rng: np.random.Generator, n: int) -> Example:
    ex = binary_example(rng, n)
    muon = rng.uniform(0, 1, n)
    muon[:2] = 0.9
    ex.y_true[:2] = [0.0, 1.0]  # both classes pass the filter
    return Example(ex.y_true, ex.y_true.copy(), ex.y_other, aux={"filter": muon}, params={
        "tpr_thresholds": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], "weights": [2.0, 1.5, 1.0, 0.5, 0.0],
        "filter_above": 0.4})


def grapheme_example(rng: np.random.Generator, n: int) -> Example:
    ex = label_example(["0", "1", "2", "3"])(rng, n)
    parts = np.array([("grapheme_root", "vowel_diacritic", "consonant_diacritic")[i % 3]
                      for i in range(n)], dtype=object)
    return Example(ex.y_true, ex.y_perfect, ex.y_other, aux={"groups": parts}, params={
        "classes": "union",
        "group_weights": {"grapheme_root": 2, "vowel_diacritic": 1, "consonant_diacritic": 1}})


def _with(example: Example, **params: Any) -> Example:
    example.params = {**example.params, **params}
    return example


DOJO_FACTORIES: dict[str, Factory] = {
    "normalized_gini": gini_example,
    "weighted_mae": weighted_value_example,
    "median_absolute_error": value_example(),
    "rmspe": rossmann_example,
    "game_of_life_mae": life_example,
    "balanced_log_loss": onehot_example,
    "ndcg_at_k": countries_example,
    "spearman_orders": days_example,
    "char_span_micro_f1": char_span_example,
    "mask_object_fbeta": ships_example,
}

DOJO_EXTRA_CASES: list[tuple[str, Factory]] = [
    ("weighted_mae", holiday_example),
    ("weighted_mae", lambda rng, n: _with(weighted_value_example(rng, n), divide_by="n")),
    ("median_absolute_error", value_example(columns=3)),
    ("balanced_log_loss", balanced_binary_example),
    ("box_map", wheat_example),
    ("weighted_auc_tpr", flavours_example),
    ("balanced_accuracy", grapheme_example),
    ("balanced_accuracy", label_example(["a", "b", "c"], {"classes": "union"})),
    ("mask_object_fbeta", lambda rng, n: _with(ships_example(rng, n), beta=1.0, thresholds=[0.5, 0.7])),
]
