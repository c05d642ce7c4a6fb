"""Ranking, set and string metrics: MAP@k, MRR@k, label ranking AP, set F1, Jaccard, Levenshtein.

Row-wise metrics receive object arrays of ``str`` (one cell per row) and parse them here:
rankings and sets are space-separated tokens. Label-ranking metrics receive (rows, labels)
float arrays of 0/1 truths and scores.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tambench.core.metrics._common import (
    Cells,
    as_float_2d,
    as_str_1d,
    binary_labels,
    check_lengths,
    choice,
    levenshtein_pairs,
    positive_int,
    same_length,
    same_shape,
)
from tambench.core.metrics.base import register
from tambench.core.metrics.masks import raise_bad_rows
from tambench.errors import TaskDataError


def _str_pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t = as_str_1d(y_true, "y_true")
    p = as_str_1d(y_pred, "y_pred")
    same_length(t, p)
    return t, p


def average_precision_at_k(relevant: set[str], ranked: Sequence[str], k: int, denom: int) -> float:
    """AP@k of one ranked list: sum of precision@i at each new hit in the top k, over ``denom``.

    A label repeated in ``ranked`` counts once, at its first position (Kaggle's apk).

    >>> average_precision_at_k({"a", "c"}, ["a", "b", "c"], k=3, denom=2)
    0.8333333333333333
    """
    hits = 0
    total = 0.0
    seen: set[str] = set()
    for i, item in enumerate(ranked[:k], start=1):
        if item in relevant and item not in seen:
            hits += 1
            total += hits / i
        seen.add(item)
    return total / denom


@register(
    "map_at_k",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="ranking",
    defaults={"k": 10, "relevant": "multiple"},
)
def map_at_k(y_true: Any, y_pred: Any, k: int = 10, relevant: str = "multiple") -> float:
    """Mean average precision at k over rows of space-separated ranked predictions.

    Higher is better; best 1.0. Input: 1-D true cells and 1-D predicted rankings (space-
    separated labels, best first; only the first k count, k = 10 unless given; a repeated
    label counts once). Two forms, chosen by ``relevant`` (default ``"multiple"``):

    * ``"single"``: the true cell is one label; a row scores 1 / (position of that label) if
      it is in the top k, else 0 (Eedi's MAP@25, Kaggle's single-label MAP@k).
    * ``"multiple"``: the true cell is a space-separated set; a row scores the sum of
      precision@i at each hit over min(set size, k). Rows whose true set is empty are left
      out of the mean (an empty truth has no precision to measure).

    >>> map_at_k(["3", "7"], ["1 3 5", "7 2"], k=25, relevant="single")
    0.75
    >>> map_at_k(["a c"], ["a b c"], k=3)
    0.8333333333333333
    """
    k = positive_int(k, "k")
    form = choice(relevant, "relevant", ("single", "multiple"))
    t, p = _str_pair(y_true, y_pred)
    scores = []
    for truth, ranking in zip(t, p, strict=True):
        ranked = ranking.split()
        if form == "single":
            scores.append(average_precision_at_k({truth.strip()}, ranked, k, 1))
            continue
        rel = set(truth.split())
        if rel:
            scores.append(average_precision_at_k(rel, ranked, k, min(len(rel), k)))
    if not scores:
        raise TaskDataError("map_at_k: every true set in the answers is empty")
    return float(np.mean(scores))


@register(
    "mrr_at_k",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="ranking",
    defaults={"k": 10},
)
def mrr_at_k(y_true: Any, y_pred: Any, k: int = 10) -> float:
    """Mean reciprocal rank at k: 1 / (position of the first relevant item in the top k).

    Higher is better; best 1.0. Input: 1-D true cells (one item, or a space-separated set of
    relevant items) and 1-D rankings (space-separated items, best first); a row with no
    relevant item in its first k (default 10) scores 0. Line-keyed text submissions (one ranking per line,
    e.g. Amazon KDD Cup 2023's next-product task at k = 100) arrive as the same sequences of
    strings, one per line.

    >>> mrr_at_k(["b", "z"], ["a b c", "x y"], k=100)
    0.25
    """
    k = positive_int(k, "k")
    t, p = _str_pair(y_true, y_pred)
    total = 0.0
    for truth, ranking in zip(t, p, strict=True):
        rel = set(truth.split())
        for i, item in enumerate(ranking.split()[:k], start=1):
            if item in rel:
                total += 1.0 / i
                break
    return total / len(t)


def _ranking_precisions(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-row label-ranking AP (scikit-learn's tie rule) and per-row number of true labels.

    For a true label j of row i: rank = #labels scored >= s_ij, hits = #true labels scored
    >= s_ij; the row's AP is the mean of hits / rank over its true labels. Rows with no true
    label, or only true labels, score 1. Vectorised by sorting each row once.
    """
    t = as_float_2d(y_true, "y_true")
    s = as_float_2d(y_pred, "y_pred")
    same_shape(t, s)
    rel = binary_labels(t)
    n, m = s.shape
    order = np.argsort(s, axis=1, kind="stable")
    sorted_s = np.take_along_axis(s, order, axis=1)
    sorted_rel = np.take_along_axis(rel, order, axis=1)
    pos = np.broadcast_to(np.arange(m), (n, m))
    new_group = np.ones((n, m), dtype=bool)
    new_group[:, 1:] = sorted_s[:, 1:] != sorted_s[:, :-1]
    group_start = np.maximum.accumulate(np.where(new_group, pos, 0), axis=1)
    rank = m - group_start
    rel_before = np.zeros((n, m + 1), dtype=np.int64)
    np.cumsum(sorted_rel, axis=1, out=rel_before[:, 1:])
    n_rel = rel_before[:, -1]
    hits = n_rel[:, None] - np.take_along_axis(rel_before, group_start, axis=1)
    ratio = np.where(sorted_rel, hits / rank, 0.0)
    ap = np.ones(n, dtype=np.float64)
    partial = (n_rel > 0) & (n_rel < m)
    ap[partial] = ratio[partial].sum(axis=1) / n_rel[partial]
    return ap, n_rel


@register(
    "label_ranking_average_precision", higher_is_better=True, value_range=(0.0, 1.0),
    kind="probability",
)
def label_ranking_average_precision(y_true: Any, y_pred: Any) -> float:
    """Label ranking average precision (LRAP), averaged over rows.

    Higher is better; best 1.0. Input: (rows, labels) 0/1 truths and scores. Ties count
    against the prediction (a tied label ranks as low as the lowest of its tie), as in
    scikit-learn; rows with no true label or only true labels score 1.

    >>> round(label_ranking_average_precision([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]]), 6)
    0.416667
    """
    ap, _ = _ranking_precisions(y_true, y_pred)
    return float(ap.mean())


@register("lwlrap", higher_is_better=True, value_range=(0.0, 1.0), kind="probability")
def lwlrap(y_true: Any, y_pred: Any) -> float:
    """Label-weighted label-ranking average precision (Freesound Audio Tagging 2019).

    Higher is better; best 1.0. Input: (rows, labels) 0/1 truths and scores. Every true
    (row, label) pair weighs the same: LRAP with each row weighted by its number of true
    labels; ties count against the prediction. The answers need at least one true label.

    >>> round(lwlrap([[1, 0, 0], [0, 1, 1]], [[0.9, 0.5, 0.1], [0.2, 0.8, 0.1]]), 6)
    0.888889
    """
    ap, n_rel = _ranking_precisions(y_true, y_pred)
    if n_rel.sum() == 0:
        raise TaskDataError("lwlrap: the answers hold no true label")
    return float(np.sum(ap * n_rel) / n_rel.sum())


@register(
    "rowwise_set_f1",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="set",
    defaults={"empty_token": ""},
)
def rowwise_set_f1(y_true: Any, y_pred: Any, empty_token: str = "") -> float:
    """Mean over rows of the F1 between the true and predicted label sets.

    Higher is better; best 1.0. Input: 1-D cells of space-separated labels (order and
    repeats ignored). ``empty_token`` (e.g. ``nocall`` for Cornell Birdcall Identification)
    stands for the empty set and is removed wherever it appears; two empty sets agree
    perfectly (1.0), one empty set against a non-empty one scores 0.

    >>> rowwise_set_f1(["amecro", "nocall", "a b"], ["amecro", "nocall", "a"], empty_token="nocall")
    0.8888888888888888
    """
    t, p = _str_pair(y_true, y_pred)
    total = 0.0
    for truth, pred in zip(t, p, strict=True):
        ts = set(truth.split())
        ps = set(pred.split())
        if empty_token:
            ts.discard(empty_token)
            ps.discard(empty_token)
        if not ts and not ps:
            total += 1.0
        else:
            total += 2.0 * len(ts & ps) / (len(ts) + len(ps))
    return total / len(t)


@register("f1_micro_multilabel", higher_is_better=True, value_range=(0.0, 1.0), kind="set")
def f1_micro_multilabel(y_true: Any, y_pred: Any) -> float:
    """Micro F1 over every (row, label) pair of space-separated label sets.

    Higher is better; best 1.0. Input: 1-D cells of space-separated labels (order and repeats
    ignored; empty = no label), as iMet 2020's ``attribute_ids``. TP, FP and FN are counted
    over all rows together; F1 = 2TP / (2TP + FP + FN). A predicted label that never occurs in
    the answers is a false positive like any other. No label on either side anywhere: 1.0.

    >>> f1_micro_multilabel(["1 2", "3"], ["1", "3 4"])
    0.6666666666666666
    """
    t, p = _str_pair(y_true, y_pred)
    tp = fp = fn = 0
    for truth, pred in zip(t, p, strict=True):
        ts, ps = set(truth.split()), set(pred.split())
        hit = len(ts & ps)
        tp += hit
        fp += len(ps) - hit
        fn += len(ts) - hit
    denom = 2 * tp + fp + fn
    return 1.0 if denom == 0 else 2 * tp / denom


@register(
    "jaccard_words",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="text",
    defaults={"lowercase": True},
)
def jaccard_words(y_true: Any, y_pred: Any, lowercase: bool = True) -> float:
    """Mean over rows of the Jaccard index between the sets of whitespace-separated words.

    Higher is better; best 1.0. Input: 1-D strings. Words are lowercased first by default
    (Tweet Sentiment Extraction). Two texts without words are identical and score 1.0 (that
    competition's code gave 0.5; an exact prediction must reach the best value here).

    >>> jaccard_words(["the cat sat"], ["The cat"])
    0.6666666666666666
    """
    t, p = _str_pair(y_true, y_pred)
    total = 0.0
    for truth, pred in zip(t, p, strict=True):
        a = set((truth.lower() if lowercase else truth).split())
        b = set((pred.lower() if lowercase else pred).split())
        union = len(a | b)
        total += 1.0 if union == 0 else len(a & b) / union
    return total / len(t)


@register(
    "levenshtein_normalized",
    higher_is_better=False,
    value_range=(0.0, 1.0),
    kind="text",
    defaults={"unit": "char", "max_length": None},
)
def levenshtein_normalized(
    y_true: Any, y_pred: Any, unit: str = "char", max_length: int | None = None
) -> float:
    """Mean over rows of the edit distance divided by the longer side's length.

    Lower is better; best 0.0, worst 1.0. Input: 1-D strings, compared character by
    character (``unit="char"``) or as whitespace-separated tokens (``unit="token"``). Two
    empty cells have distance 0. ``max_length`` caps a predicted cell's length in units
    (default 100,000); a longer cell makes the submission invalid.

    >>> levenshtein_normalized(["kitten", "abc"], ["sitting", "abc"])
    0.21428571428571427
    """
    unit = choice(unit, "unit", ("char", "token"))
    t, p = _str_pair(y_true, y_pred)
    a: Cells = t if unit == "char" else [cell.split() for cell in t]
    b: Cells = p if unit == "char" else [cell.split() for cell in p]
    check_lengths(b, max_length, "a predicted cell")
    longest = np.maximum(np.fromiter(map(len, a), dtype=np.int64, count=len(a)),
                         np.fromiter(map(len, b), dtype=np.int64, count=len(b)))
    compared = longest > 0
    ratios = levenshtein_pairs(a, b)[compared] / longest[compared]
    return sum(ratios.tolist(), 0.0) / len(t)  # row order, as a running total


# --- NDCG@k with one relevant item -------------------------------------------------------------


@register(
    "ndcg_at_k",
    higher_is_better=True,
    value_range=(0.0, 1.0),
    kind="ranking",
    defaults={"k": 5},
)
def ndcg_at_k(y_true: Any, y_pred: Any, k: int = 5) -> float:
    """NDCG@k with one relevant item per row: mean of 1 / log2(1 + its position in the top k).

    Airbnb New User Bookings scores its destination countries at k = 5.

    Higher is better; best 1.0. Input: 1-D true cells holding exactly one item and 1-D rankings
    (space-separated items, best first). With a single relevant item the ideal DCG is 1, so a
    row scores 1 / log2(i + 1) when the item first appears at position i <= k, else 0; repeats
    of an item after its first position add nothing.

    >>> round(ndcg_at_k(["FR", "US", "IT"], ["FR", "US FR", "NDF"]), 6)  # (1 + 1 + 0) / 3
    0.666667
    >>> round(ndcg_at_k(["FR"], ["US FR"]), 6)  # 1 / log2(3)
    0.63093
    """
    k = positive_int(k, "k")
    t, p = _str_pair(y_true, y_pred)
    items = [cell.split() for cell in t]
    bad = [i + 1 for i, cell in enumerate(items) if len(cell) != 1]
    if bad:
        raise TaskDataError(f"ndcg_at_k takes one relevant item per answers row; {len(bad)} row(s) "
                            f"hold none or several, first row {bad[0]}")
    total = 0.0
    for (truth,), ranking in zip(items, p, strict=True):
        top = ranking.split(maxsplit=k)[:k]
        if truth in top:
            total += 1.0 / math.log2(top.index(truth) + 2)
    return total / len(t)


# --- Spearman correlation of each row's order ------------------------------------------------------


def row_average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..L within each row of a (rows, L) array, tied values sharing their mean rank.

    >>> row_average_ranks(np.array([[3.0, 1.0, 3.0], [1.0, 2.0, 3.0]])).tolist()
    [[2.5, 1.0, 2.5], [1.0, 2.0, 3.0]]
    """
    n, width = x.shape
    order = np.argsort(x, axis=1, kind="mergesort")
    xs = np.take_along_axis(x, order, axis=1)
    new = np.ones((n, width), dtype=bool)
    new[:, 1:] = xs[:, 1:] != xs[:, :-1]
    group = np.cumsum(new.ravel()) - 1  # every row opens a new group at its first column
    position = np.tile(np.arange(width, dtype=np.float64), n)
    mean = np.bincount(group, weights=position) / np.bincount(group)
    ranks = np.empty((n, width))
    np.put_along_axis(ranks, order, (mean[group] + 1.0).reshape(n, width), axis=1)
    return ranks


def _numbers(cell: str) -> np.ndarray | None:
    try:
        values = np.array(cell.split(), dtype=np.float64)
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


def _row_spearman(t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Spearman correlation of each row pair; a row with a constant side scores 0."""
    rt = row_average_ranks(t)
    rp = row_average_ranks(p)
    rt -= rt.mean(axis=1, keepdims=True)
    rp -= rp.mean(axis=1, keepdims=True)
    denom = np.sqrt((rt * rt).sum(axis=1) * (rp * rp).sum(axis=1))
    out = np.zeros(t.shape[0])
    ok = denom > 0
    out[ok] = (rt * rp).sum(axis=1)[ok] / denom[ok]
    return out


@register("spearman_orders", higher_is_better=True, value_range=(-1.0, 1.0), kind="ranking")
def spearman_orders(y_true: Any, y_pred: Any) -> float:
    """Mean over rows of the Spearman correlation of each row's true and predicted values.

    Draper Satellite Image Chronology: the day order of each set of 5 images.

    Higher is better; best 1.0. Input: 1-D cells of space-separated numbers, a prediction
    holding as many as its truth. Tied values share their mean rank; a row whose truth or
    prediction is constant (or holds one value) correlates 0. A prediction with a token that
    is not a finite number, or with a different count, makes the submission invalid.

    >>> spearman_orders(["1 2 3 4 5", "1 2 3"], ["1 2 3 4 5", "3 2 1"])  # (1 + -1) / 2
    0.0
    >>> spearman_orders(["1 2 3"], ["1 1 3"])  # ranks 1.5 1.5 3 against 1 2 3
    0.8660254037844387
    """
    t, p = _str_pair(y_true, y_pred)
    parsed = [_numbers(c) for c in t]
    truths = [v for v in parsed if v is not None]
    if len(truths) != len(parsed):
        raise TaskDataError("spearman_orders: the answers hold a cell that is not space-separated "
                            "finite numbers")
    maybe = [_numbers(c) for c in p]
    preds = [b if b is not None and b.size == a.size else None for a, b in zip(truths, maybe, strict=True)]
    raise_bad_rows([f"row {i + 1}" for i, b in enumerate(preds) if b is None],
                   "predictions that are not one finite number per true value")
    scores = np.zeros(len(t))
    lengths = np.array([v.size for v in truths])
    for width in np.unique(lengths[lengths >= 2]):
        rows = np.flatnonzero(lengths == width)
        scores[rows] = _row_spearman(np.stack([truths[i] for i in rows]),
                                     np.stack([np.asarray(preds[i]) for i in rows]))
    return float(np.mean(scores))
