"""Example inputs for every registered metric, grouped by input kind.

Each factory returns an :class:`Example`: answers, a perfect prediction, an arbitrary (random)
prediction, the auxiliary arrays the metric takes and any parameters. The property tests run
over :data:`FACTORIES`; a registered metric without an entry here fails them.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tambench.core.metrics.lite import POSE_COLUMNS


@dataclass
class Example:
    y_true: Any
    y_perfect: Any
    y_other: Any
    aux: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)


Factory = Callable[[np.random.Generator, int], Example]


def permute(example: Example, rng: np.random.Generator) -> Example:
    """The same example with its rows (or keys, or lines) in another order, all sides alike."""

    def reorder(x: Any, order: np.ndarray) -> Any:
        if isinstance(x, dict):
            keys = list(x)
            return {keys[i]: x[keys[i]] for i in order}
        if isinstance(x, list):
            return [x[i] for i in order]
        return np.asarray(x)[order]

    n = len(example.y_true)
    order = rng.permutation(n)
    return Example(
        y_true=reorder(example.y_true, order),
        y_perfect=reorder(example.y_perfect, order),
        y_other=reorder(example.y_other, order),
        aux={k: reorder(v, order) for k, v in example.aux.items()},
        params=example.params,
    )


# --- label ----------------------------------------------------------------------------------


def _labels(rng: np.random.Generator, n: int, classes: list[str]) -> np.ndarray:
    # Every class appears at least once so metrics with per-class terms are defined.
    base = list(classes) + list(rng.choice(classes, size=n - len(classes)))
    return np.array([str(x) for x in rng.permutation(base)], dtype=object)


def label_example(classes: list[str], params: dict[str, Any] | None = None) -> Factory:
    def make(rng: np.random.Generator, n: int) -> Example:
        t = _labels(rng, n, classes)
        return Example(t, t.copy(), _labels(rng, n, classes), params=params or {})

    return make


def ranked_labels_example(rng: np.random.Generator, n: int) -> Example:
    classes = ["cat", "dog", "owl", "eel"]
    t = _labels(rng, n, classes)
    other = np.array([" ".join(rng.permutation(classes)[:2]) for _ in range(n)], dtype=object)
    return Example(t, t.copy(), other)


# --- probability ----------------------------------------------------------------------------


def _binary(rng: np.random.Generator, n: int) -> np.ndarray:
    y = rng.integers(0, 2, size=n).astype(np.float64)
    y[:2] = [0.0, 1.0]
    return rng.permutation(y)


def binary_example(rng: np.random.Generator, n: int) -> Example:
    t = _binary(rng, n)
    return Example(t, t.copy(), np.round(rng.random(n), 2))


def multilabel_example(rng: np.random.Generator, n: int) -> Example:
    t = np.stack([_binary(rng, n) for _ in range(4)], axis=1)
    return Example(t, t.copy(), np.round(rng.random((n, 4)), 2))


def onehot_example(rng: np.random.Generator, n: int) -> Example:
    k = 3
    t = np.eye(k)[rng.integers(0, k, size=n)]
    other = rng.random((n, k))
    return Example(t, t.copy(), other / other.sum(axis=1, keepdims=True))


def distribution_example(rng: np.random.Generator, n: int) -> Example:
    t = rng.random((n, 4))
    t /= t.sum(axis=1, keepdims=True)
    other = rng.random((n, 4))
    return Example(t, t.copy(), other / other.sum(axis=1, keepdims=True))


# --- value ----------------------------------------------------------------------------------


def value_example(columns: int = 1, low: float = -5.0, high: float = 5.0) -> Factory:
    def make(rng: np.random.Generator, n: int) -> Example:
        shape = (n,) if columns == 1 else (n, columns)
        t = rng.uniform(low, high, size=shape)
        return Example(t, t.copy(), rng.uniform(low, high, size=shape))

    return make


def grouped_value_example(rng: np.random.Generator, n: int) -> Example:
    t = rng.normal(size=n)
    groups = np.array([f"g{i % 3}" for i in range(n)], dtype=object)
    return Example(t, t.copy(), rng.normal(size=n), aux={"groups": groups})


def scored_rows_example(rng: np.random.Generator, n: int) -> Example:
    t = rng.normal(size=(n, 3))
    scored = np.array([1 if i % 4 else 0 for i in range(n)], dtype=np.int64)
    return Example(t, t.copy(), rng.normal(size=(n, 3)), aux={"scored": scored})


def latlon_example(rng: np.random.Generator, n: int) -> Example:
    def points() -> np.ndarray:
        return np.stack([rng.uniform(-80, 80, n), rng.uniform(-180, 180, n)], axis=1)

    t = points()
    return Example(t, t.copy(), points())


def direction_example(rng: np.random.Generator, n: int) -> Example:
    def angles() -> np.ndarray:
        return np.stack([rng.uniform(0, 2 * np.pi, n), rng.uniform(0, np.pi, n)], axis=1)

    t = angles()
    return Example(t, t.copy(), angles())


def laplace_example(rng: np.random.Generator, n: int) -> Example:
    fvc = rng.uniform(1500, 4000, n)
    t = np.stack([fvc, np.full(n, 70.0)], axis=1)
    other = np.stack([fvc + rng.normal(0, 300, n), rng.uniform(50, 500, n)], axis=1)
    return Example(t, t.copy(), other)


def _rotations(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(n, 3, 3)))
    q = q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    q[np.linalg.det(q) < 0, :, 0] *= -1
    return q


def pose_example(rng: np.random.Generator, n: int) -> Example:
    def poses() -> np.ndarray:
        return np.concatenate([_rotations(rng, n).reshape(n, 9), rng.normal(0, 3, (n, 3))], axis=1)

    t = poses()
    assert t.shape[1] == len(POSE_COLUMNS)
    return Example(t, t.copy(), poses())


# --- ranking, set, text ---------------------------------------------------------------------

ITEMS = [f"i{j}" for j in range(150)]


def ranking_example(k: int, relevant: str | None) -> Factory:
    def make(rng: np.random.Generator, n: int) -> Example:
        if relevant == "single":
            t = np.array([str(rng.choice(ITEMS)) for _ in range(n)], dtype=object)
        else:
            t = np.array(
                [" ".join(rng.choice(ITEMS, size=rng.integers(1, 4), replace=False)) for _ in range(n)],
                dtype=object,
            )
        other = np.array(
            [" ".join(rng.choice(ITEMS, size=k, replace=False)) for _ in range(n)], dtype=object
        )
        params: dict[str, Any] = {"k": k}
        if relevant is not None:
            params["relevant"] = relevant
        return Example(t, t.copy(), other, params=params)

    return make


def set_example(rng: np.random.Generator, n: int) -> Example:
    birds = ["amecro", "amerob", "bkcchi", "norcar"]

    def cell() -> str:
        size = int(rng.integers(0, 3))
        return " ".join(rng.choice(birds, size=size, replace=False)) if size else "nocall"

    t = np.array([cell() for _ in range(n)], dtype=object)
    other = np.array([cell() for _ in range(n)], dtype=object)
    return Example(t, t.copy(), other, params={"empty_token": "nocall"})


def text_example(rng: np.random.Generator, n: int) -> Example:
    words = ["the", "cat", "Sat", "on", "mat", "twenty", "one"]

    def cell() -> str:
        return " ".join(rng.choice(words, size=int(rng.integers(1, 5))))

    t = np.array([cell() for _ in range(n)], dtype=object)
    return Example(t, t.copy(), np.array([cell() for _ in range(n)], dtype=object))


def gesture_example(rng: np.random.Generator, n: int) -> Example:
    def cell() -> str:
        return " ".join(str(int(g)) for g in rng.integers(1, 21, size=int(rng.integers(1, 8))))

    t = np.array([cell() for _ in range(n)], dtype=object)
    return Example(t, t.copy(), np.array([cell() for _ in range(n)], dtype=object))


def char_text_example(rng: np.random.Generator, n: int) -> Example:
    def cell() -> str:
        return "".join(rng.choice(list(string.ascii_lowercase[:5]), size=int(rng.integers(1, 9))))

    t = np.array([cell() for _ in range(n)], dtype=object)
    return Example(t, t.copy(), np.array([cell() for _ in range(n)], dtype=object))


# --- mask -----------------------------------------------------------------------------------


def rle_of(mask: np.ndarray) -> str:
    """Run-length encoding (1-based starts) of a flat 0/1 array."""
    padded = np.concatenate([[0], mask.astype(np.int8), [0]])
    edges = np.flatnonzero(np.diff(padded))
    starts, ends = edges[0::2], edges[1::2]
    return " ".join(f"{s + 1} {e - s}" for s, e in zip(starts, ends, strict=True))


def mask_example(rng: np.random.Generator, n: int) -> Example:
    def cell() -> str:
        return rle_of(rng.random(60) < rng.uniform(0.0, 0.6))

    t = np.array([cell() for _ in range(n)], dtype=object)
    t[0] = ""  # an empty mask among them
    return Example(t, t.copy(), np.array([cell() for _ in range(n)], dtype=object))


# --- structured -----------------------------------------------------------------------------


def author_example(rng: np.random.Generator, n: int) -> Example:
    truth: dict[str, dict[str, int]] = {}
    other: dict[str, dict[str, float]] = {}
    for a in range(n):
        papers = [f"a{a}p{j}" for j in range(int(rng.integers(3, 7)))]
        labels = [1, 0] + [int(x) for x in rng.integers(0, 2, size=len(papers) - 2)]
        truth[f"author{a}"] = dict(zip(papers, labels, strict=True))
        other[f"author{a}"] = {p: float(np.round(rng.random(), 2)) for p in papers}
    return Example(truth, {k: dict(v) for k, v in truth.items()}, other)


def paper_example(rng: np.random.Generator, n: int) -> Example:
    truth: dict[str, list[int]] = {}
    other: dict[str, list[float]] = {}
    for i in range(n):
        m = int(rng.integers(2, 8))
        labels = [1] + [int(x) for x in rng.integers(0, 2, size=m - 1)]
        truth[f"paper{i}"] = [int(x) for x in rng.permutation(labels)]
        other[f"paper{i}"] = [float(np.round(x, 2)) for x in rng.random(m)]
    return Example(truth, {k: list(v) for k, v in truth.items()}, other)


def lines_example(rng: np.random.Generator, n: int) -> Example:
    truth = [",".join(rng.choice(ITEMS, size=int(rng.integers(1, 4)), replace=False)) for _ in range(n)]
    other = [",".join(rng.choice(ITEMS, size=20, replace=False)) for _ in range(n)]
    return Example(truth, list(truth), other, params={"k": 20})


# --- detection, orders, answer spans, bias, segmentation ------------------------------------


def _box_cell(rng: np.random.Generator, labels: list[str], k: int, conf: bool) -> str:
    parts = []
    for _ in range(k):
        x, y = rng.uniform(0, 100, 2)
        w, h = rng.uniform(5, 30, 2)
        c = float(np.round(rng.random(), 2)) if conf else 1
        parts.append(f"{rng.choice(labels)} {c} {x:.2f} {y:.2f} {x + w:.2f} {y + h:.2f}")
    return " ".join(parts)


def box_example(form: str, thresholds: list[float]) -> Factory:
    labels = ["opacity", "none", "typical"]

    def make(rng: np.random.Generator, n: int) -> Example:
        t = np.array([_box_cell(rng, labels, int(rng.integers(1, 4)), False) for _ in range(n)],
                     dtype=object)
        other = np.array([_box_cell(rng, labels, int(rng.integers(0, 4)), True) for _ in range(n)],
                         dtype=object)
        # a few near-misses so that random predictions score above 0
        other[::3] = [cell.replace(" 1 ", " 0.7 ") for cell in t[::3]]
        return Example(t, t.copy(), other, params={"iou_thresholds": thresholds, "form": form})

    return make


def _box3d_cell(rng: np.random.Generator, k: int, conf: bool, jitter: float = 0.0) -> str:
    parts = []
    for j in range(k):
        cx, cy = 20.0 * j + rng.uniform(0, 5, 2)
        c = float(np.round(rng.random(), 2)) if conf else 1.0
        yaw = rng.uniform(-3, 3)
        parts.append(f"{c} {cx + jitter:.3f} {cy:.3f} {rng.uniform(-1, 1):.3f} "
                     f"{rng.uniform(1, 3):.3f} {rng.uniform(3, 6):.3f} {rng.uniform(1, 2):.3f} "
                     f"{yaw:.3f} {rng.choice(['car', 'bus', 'pedestrian'])}")
    return " ".join(parts)


def _shift_3d(cell: str, rng: np.random.Generator) -> str:
    tok = cell.split()
    for k in range(0, len(tok), 9):
        tok[k] = f"{rng.random():.2f}"
        tok[k + 1] = f"{float(tok[k + 1]) + rng.uniform(0, 1.5):.3f}"
    return " ".join(tok)


def box3d_example(form: str) -> Factory:
    def make(rng: np.random.Generator, n: int) -> Example:
        t = np.array([_box3d_cell(rng, int(rng.integers(1, 4)), False) for _ in range(n)],
                     dtype=object)
        other = np.array([_box3d_cell(rng, int(rng.integers(0, 4)), True, 0.3) for _ in range(n)],
                         dtype=object)
        other[::2] = [_shift_3d(cell, rng) for cell in t[::2]]  # near-misses of the truth
        return Example(t, t.copy(), other, params={"form": form})

    return make


def point_box_example(rng: np.random.Generator, n: int) -> Example:
    chars = ["U+003F", "U+0041", "U+0042"]
    truth, perfect, other = [], [], []
    for _ in range(n):
        boxes, points, guesses = [], [], []
        for _ in range(int(rng.integers(0, 5))):
            label = str(rng.choice(chars))
            x, y, w, h = (int(v) for v in rng.integers(1, 50, 4))
            boxes.append(f"{label} {x} {y} {w} {h}")
            points.append(f"{label} {x + w / 2} {y + h / 2}")
            guesses.append(f"{rng.choice(chars)} {x + rng.uniform(0, 1.5) * w} {y + h / 2}")
        truth.append(" ".join(boxes))
        perfect.append(" ".join(points))
        other.append(" ".join(guesses))
    truth[0], perfect[0] = "U+003F 1 1 10 10", "U+003F 5 5"
    return Example(np.array(truth, dtype=object), np.array(perfect, dtype=object),
                   np.array(other, dtype=object))


def order_example(rng: np.random.Generator, n: int) -> Example:
    t, other = [], []
    for i in range(n):
        ids = [f"c{i}x{j}" for j in range(int(rng.integers(2, 9)))]
        t.append(" ".join(ids))
        other.append(" ".join(rng.permutation(ids)))
    return Example(np.array(t, dtype=object), np.array(t, dtype=object), np.array(other, dtype=object))


def span_example(rng: np.random.Generator, n: int) -> Example:
    def answers() -> list[str]:
        kind = int(rng.integers(0, 4))
        if kind == 0:
            return []
        if kind == 1:
            return [str(rng.choice(["YES", "NO"]))]
        starts = rng.integers(0, 300, int(rng.integers(1, 3)))
        return [f"{s}:{s + int(rng.integers(1, 20))}" for s in starts]

    truth = [answers() for _ in range(n)]
    t = np.array([" ".join(a) for a in truth], dtype=object)
    perfect = np.array([a[0] if a else "" for a in truth], dtype=object)
    guesses = [answers() for _ in range(n)]
    other = np.array([a[0] if a else "" for a in guesses], dtype=object)
    return Example(t, perfect, other)


def labelset_example(rng: np.random.Generator, n: int) -> Example:
    def cell() -> str:
        return " ".join(str(x) for x in rng.choice(12, size=int(rng.integers(0, 4)), replace=False))

    t = np.array([cell() for _ in range(n)], dtype=object)
    return Example(t, t.copy(), np.array([cell() for _ in range(n)], dtype=object))


def trips_example(rng: np.random.Generator, n: int) -> Example:
    t = np.stack([rng.uniform(37.3, 37.5, n), rng.uniform(-122.2, -122.0, n)], axis=1)
    other = t + rng.normal(0, 1e-4, t.shape)
    trips = np.array([f"trip{i % 4}" for i in range(n)], dtype=object)
    return Example(t, t.copy(), other, aux={"groups": trips})


def bias_example(rng: np.random.Generator, n: int) -> Example:
    # Every identity holds toxic and non-toxic rows, and so does its background.
    identities = np.zeros((n, 3))
    for j in range(3):
        identities[rng.permutation(n)[: n // 3], j] = rng.uniform(0.5, 1.0)
    t = np.round(rng.random(n), 2)
    for j in range(3):
        member = np.flatnonzero(identities[:, j] >= 0.5)
        outside = np.flatnonzero(identities[:, j] < 0.5)
        t[member[:2]] = [0.9, 0.1]
        t[outside[:2]] = [0.8, 0.2]
    return Example(t, t.copy(), np.round(rng.random(n), 3), aux={"identities": identities},
                   params={"identities_columns": ["a", "b", "c"]})


def volume_example(rng: np.random.Generator, n: int) -> Example:
    h, w = 6, 5
    ids, classes, t, other = [], [], [], []
    for i in range(n):
        ids.append(f"case{i % 3}_day1_slice_{i // 6 + 1:04d}")
        classes.append("stomach" if (i // 3) % 2 else "small_bowel")
        t.append(rle_of(rng.random(h * w) < rng.uniform(0.0, 0.5)))
        other.append(rle_of(rng.random(h * w) < rng.uniform(0.0, 0.5)))
    aux = {"ids": np.array(ids, dtype=object), "classes": np.array(classes, dtype=object),
           "height": np.full(n, float(h)), "width": np.full(n, float(w))}
    truth = np.array(t, dtype=object)
    return Example(truth, truth.copy(), np.array(other, dtype=object), aux=aux)


def sized_mask_example(rng: np.random.Generator, n: int) -> Example:
    ex = mask_example(rng, n)
    ex.aux = {"height": np.full(n, 6.0), "width": np.full(n, 10.0)}
    return ex


def long_weights_example(rng: np.random.Generator, n: int) -> Example:
    labels = np.array([("C1", "C2", "patient_overall")[i % 3] for i in range(n)], dtype=object)
    exams = np.array([f"exam{i // 3}" for i in range(n)], dtype=object)
    t = rng.integers(0, 2, n).astype(np.float64)
    weights = {"C1": 1, "C2": 1, "patient_overall": 7}
    positive = {"C1": 2, "C2": 2, "patient_overall": 14}
    return Example(t, t.copy(), np.round(rng.random(n), 2), aux={"labels": labels, "groups": exams},
                   params={"weights": weights, "positive_weights": positive})


FACTORIES: dict[str, Factory] = {
    # label
    "accuracy": label_example(["yes", "no", "up", "silence"]),
    "balanced_accuracy": label_example(["a", "b", "c"]),
    "f1": label_example(["1", "0"]),
    "f1_micro": label_example(["a", "b", "c"]),
    "f1_macro": label_example(["a", "b", "c"]),
    "f1_weighted": label_example(["a", "b", "c"]),
    "fbeta": label_example(["1", "0"], {"beta": 0.5}),
    "mcc": label_example(["e", "p"]),
    "qwk": label_example(["0", "1", "2", "3", "4"]),
    "top1_error": ranked_labels_example,
    # probability
    "roc_auc": binary_example,
    "log_loss": binary_example,
    "roc_auc_columnwise": multilabel_example,
    "roc_auc_macro_multilabel": multilabel_example,
    "weighted_multilabel_log_loss": multilabel_example,
    "label_ranking_average_precision": multilabel_example,
    "lwlrap": multilabel_example,
    "multiclass_log_loss": onehot_example,
    "kl_divergence": distribution_example,
    # value
    "rmse": value_example(),
    "mse": value_example(),
    "mae": value_example(columns=2),
    "rmsle": value_example(low=0.0, high=100.0),
    "smape": value_example(),
    "mape": value_example(low=1.0, high=10.0),
    "r2": value_example(),
    "r2_mean_columnwise": value_example(columns=6),
    "pearson": value_example(),
    "spearman": value_example(),
    "kendall_tau": value_example(),
    "mcrmse": scored_rows_example,
    "mean_log_mae": grouped_value_example,
    "haversine_mean": latlon_example,
    "mean_angular_error": direction_example,
    "laplace_log_likelihood": laplace_example,
    "pose_maa": pose_example,
    # ranking / set / text
    "map_at_k": ranking_example(25, "single"),
    "mrr_at_k": ranking_example(100, None),
    "rowwise_set_f1": set_example,
    "jaccard_words": text_example,
    "exact_match": text_example,
    "levenshtein_normalized": char_text_example,
    "levenshtein_per_true": gesture_example,
    # mask
    "dice": mask_example,
    "global_dice": mask_example,
    "iou_thresholds_map": mask_example,
    # structured
    "weighted_author_auc": author_example,
    "mean_ap_per_paper": paper_example,
    "map_at_k_lines": lines_example,
    # MLE-bench competitions' own metrics
    "box_map": box_example("class_ap", [0.5]),
    "box3d_map": box3d_example("class_ap"),
    "point_in_box_f1": point_box_example,
    "kendall_tau_orders": order_example,
    "span_micro_f1": span_example,
    "levenshtein_mean": char_text_example,
    "f1_micro_multilabel": labelset_example,
    "spearman_columnwise": value_example(columns=5),
    "rmsle_columnwise": value_example(columns=2, low=0.0, high=10.0),
    "haversine_p50_p95": trips_example,
    "weighted_auc_tpr": binary_example,
    "probabilistic_f1": binary_example,
    "jigsaw_bias_auc": bias_example,
    "rle_f_beta": mask_example,
    "dice_hausdorff_3d": volume_example,
}

#: Further parameter sets exercised by the property tests (both forms of map_at_k, etc.).
EXTRA_CASES: list[tuple[str, Factory]] = [
    ("map_at_k", ranking_example(12, "multiple")),
    ("levenshtein_normalized", lambda rng, n: _with(text_example(rng, n), unit="token")),
    ("r2_mean_columnwise", lambda rng, n: _with(value_example(columns=6)(rng, n), clip_at_zero=True)),
    ("multiclass_log_loss", lambda rng, n: _with(onehot_example(rng, n), renormalize=False)),
    ("box_map", box_example("class_ap", [0.4, 0.5, 0.75])),
    ("box_map", box_example("image_precision", [0.5, 0.75])),
    ("box3d_map", box3d_example("image_precision")),
    ("rle_f_beta", lambda rng, n: _with(sized_mask_example(rng, n), average="pooled")),
    ("dice", sized_mask_example),
    ("weighted_multilabel_log_loss", long_weights_example),
    ("weighted_auc_tpr", lambda rng, n: _with(binary_example(rng, n), tpr_thresholds=[0.0, 0.2, 0.5, 1.0],
                                              weights=[4, 2, 1])),
    ("dice_hausdorff_3d", lambda rng, n: _with(volume_example(rng, n), order="C")),
]


def _with(example: Example, **params: Any) -> Example:
    example.params = {**example.params, **params}
    return example


# The metrics MLE-Dojo's competitions added live in their own module (imported last: it uses
# the factories above).
from tests.core.metric_examples_dojo import DOJO_EXTRA_CASES, DOJO_FACTORIES  # noqa: E402

FACTORIES.update(DOJO_FACTORIES)
EXTRA_CASES.extend(DOJO_EXTRA_CASES)
