"""Text and order metrics: raw edit distance, answer-span F1, Kendall tau of item orders.

Cells arrive as 1-D object arrays of ``str`` (one per row, aligned by id). Edit distances run in
rapidfuzz's C kernel; every predicted cell is first checked against a length limit
(``max_length``, default :data:`~tambench.core.metrics._common.MAX_EDIT_LENGTH`), so a
megabyte cell is refused instead of stalling the grader.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right, insort
from collections import Counter
from typing import Any

import numpy as np

from tambench.core.metrics._common import (
    as_str_1d,
    check_lengths,
    examples,
    levenshtein_pairs,
    same_length,
)
from tambench.core.metrics.base import register
from tambench.core.metrics.masks import raise_bad_rows
from tambench.errors import MetricParameterError, TaskDataError


def _str_pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t = as_str_1d(y_true, "y_true")
    p = as_str_1d(y_pred, "y_pred")
    same_length(t, p)
    return t, p


def _limit(max_length: int | None) -> int | None:
    if max_length is None:
        return None
    if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1:
        raise MetricParameterError(f"max_length must be an integer >= 1 or null, got {max_length!r}")
    return max_length


@register(
    "levenshtein_mean",
    higher_is_better=False,
    value_range=(0.0, math.inf),
    kind="text",
    defaults={"max_length": None},
)
def levenshtein_mean(y_true: Any, y_pred: Any, max_length: int | None = None) -> float:
    """Mean over rows of the character edit distance between the true and predicted strings.

    Lower is better; best 0.0 (unbounded above). Input: two 1-D arrays of strings. Each row's
    distance is the raw Levenshtein distance (insertions, deletions and substitutions of one
    character, each cost 1; not normalised by length), as Billion Word Imputation and BMS
    Molecular Translation define it. ``max_length`` caps a predicted cell's length (default
    100,000 characters); a longer cell makes the submission invalid.

    >>> levenshtein_mean(["kitten", "InChI=1S/H2O"], ["sitting", "InChI=1S/H2O"])
    1.5
    """
    t, p = _str_pair(y_true, y_pred)
    check_lengths(p, _limit(max_length), "row {row}'s prediction")
    return int(levenshtein_pairs(t, p).sum()) / len(t)


# --- answer spans (Natural Questions on Kaggle) -------------------------------------------------

#: One answer: ``start:end`` token indices, or YES / NO.
_ANSWER = re.compile(r"[0-9]{1,12}:[0-9]{1,12}|YES|NO")


def _answers(cell: str) -> list[str]:
    return cell.split()


def _bad_answer_rows(cells: np.ndarray, *, many: bool) -> list[str]:
    bad: list[str] = []
    for i, cell in enumerate(cells):
        tokens = _answers(cell)
        if not many and len(tokens) > 1:
            bad.append(f"row {i + 1}: {len(tokens)} answers, expected at most one")
            continue
        wrong = [tok for tok in tokens if not _ANSWER.fullmatch(tok)]
        if wrong:
            bad.append(f"row {i + 1}: {examples(wrong[:1])} is not start:end, YES or NO")
    return bad


@register("span_micro_f1", higher_is_better=True, value_range=(0.0, 1.0), kind="text")
def span_micro_f1(y_true: Any, y_pred: Any) -> float:
    """Micro F1 of predicted answer spans against each row's acceptable answers.

    Higher is better; best 1.0. Input: 1-D answers cells holding the row's acceptable answers,
    space-separated (each ``start:end`` token indices, or ``YES`` / ``NO``; empty when the
    question has no answer), and 1-D predictions holding one answer or nothing (TensorFlow 2.0
    Question Answering: one row per question and answer type, ``<id>_long`` and
    ``<id>_short``). Over all rows pooled: a prediction equal to one acceptable answer is a
    true positive; any other prediction is a false positive (also where no answer exists); an
    empty prediction where an answer exists is a false negative. F1 = 2TP / (2TP + FP + FN);
    no answer and no prediction anywhere scores 1.0. A prediction that is not one
    ``start:end``, ``YES`` or ``NO`` makes the submission invalid.

    >>> span_micro_f1(["6:18", "YES 3:5", "", "105:200"], ["6:18", "NO", "", ""])
    0.5
    """
    t, p = _str_pair(y_true, y_pred)
    raise_bad_rows(_bad_answer_rows(p, many=False), "malformed answer")
    bad_truth = _bad_answer_rows(t, many=True)
    if bad_truth:
        raise TaskDataError(f"answers hold malformed answers: {'; '.join(bad_truth[:5])}")
    tp = fp = fn = 0
    for truth, pred in zip(t, p, strict=True):
        accepted = set(_answers(truth))
        guess = pred.strip()
        if guess:
            if guess in accepted:
                tp += 1
            else:
                fp += 1
        elif accepted:
            fn += 1
    denom = 2 * tp + fp + fn
    return 1.0 if denom == 0 else 2 * tp / denom


# --- Kendall tau from the order of items (AI4Code) ----------------------------------------------


def count_inversions(ranks: list[int]) -> int:
    """Pairs (i < j) with ranks[i] > ranks[j]: the adjacent swaps that sort ``ranks``.

    >>> count_inversions([0, 2, 1, 3]), count_inversions([3, 2, 1, 0])
    (1, 6)
    """
    seen: list[int] = []
    inversions = 0
    for k, r in enumerate(ranks):
        inversions += k - bisect_right(seen, r)
        insort(seen, r)
    return inversions


def _order_problem(true_ids: list[str], pred_ids: list[str]) -> str | None:
    predicted = set(pred_ids)
    if len(predicted) != len(pred_ids):
        dup = [x for x, c in Counter(pred_ids).items() if c > 1]
        return f"repeats {examples(dup)}"
    truth = set(true_ids)
    missing = [x for x in true_ids if x not in predicted]
    unknown = [x for x in pred_ids if x not in truth]
    parts = []
    if missing:
        parts.append(f"misses {len(missing)} item(s)")
    if unknown:
        parts.append(f"names {len(unknown)} unknown item(s) such as {examples(unknown[:3])}")
    return "; ".join(parts) or None


@register("kendall_tau_orders", higher_is_better=True, value_range=(-1.0, 1.0), kind="ranking")
def kendall_tau_orders(y_true: Any, y_pred: Any) -> float:
    """Kendall tau between predicted and true item orders, swaps summed over all rows.

    Higher is better; best 1.0 (every order exact), worst -1.0 (every order reversed). Input:
    1-D cells of space-separated item ids in order (Google AI4Code: the cell ids of a notebook
    in their true order); each prediction must order exactly the row's items, each once. With
    S_i the adjacent swaps that sort row i's prediction into the true order and n_i its number
    of items: K = 1 - 4 * sum(S_i) / sum(n_i (n_i - 1)). Rows with fewer than two items add
    nothing; answers without any row of two items are bad task data.

    >>> round(kendall_tau_orders(["a b c d", "x y"], ["a c b d", "y x"]), 6)
    0.428571
    """
    t, p = _str_pair(y_true, y_pred)
    swaps = 0
    worst = 0
    bad: list[str] = []
    for i, (truth, pred) in enumerate(zip(t, p, strict=True)):
        true_ids, pred_ids = truth.split(), pred.split()
        if len(set(true_ids)) != len(true_ids):
            raise TaskDataError(f"answers row {i + 1}: an item id appears twice")
        problem = _order_problem(true_ids, pred_ids)
        if problem:
            bad.append(f"row {i + 1}: the order {problem}")
            continue
        position = {x: k for k, x in enumerate(true_ids)}
        swaps += count_inversions([position[x] for x in pred_ids])
        worst += len(true_ids) * (len(true_ids) - 1)
    if bad:
        raise_bad_rows(bad, "item orders that are not a permutation of the row's items")
    if worst == 0:
        raise TaskDataError("kendall_tau_orders: no answers row holds two items or more")
    return 1.0 - 4.0 * swaps / worst


# --- character-span micro F1 ---------------------------------------------------------------------

_SPAN = re.compile(r"([0-9]{1,15})[ \t]+([0-9]{1,15})")
_LIST_PUNCTUATION = str.maketrans({"[": " ", "]": " ", "'": " ", '"': " ", ",": ";"})


def parse_char_spans(cell: str) -> list[tuple[int, int]] | str:
    """The merged half-open character intervals of a cell of ``start end`` spans separated by
    ``;`` (NBME: ``"0 3; 5 9"``; a Python-list spelling ``"['0 3', '5 9']"`` reads the same).
    Overlapping spans merge, so a character counts once. Returns a problem text when the cell
    is malformed. Plain Python: cells hold a few spans, where numpy's per-call cost dominates.

    >>> parse_char_spans("2 5; 7 9; 2 3")
    [(2, 5), (7, 9)]
    >>> parse_char_spans("5 2")
    'span 1 ends before it starts'
    """
    text = cell.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text.translate(_LIST_PUNCTUATION)
    spans: list[tuple[int, int]] = []
    for j, piece in enumerate(p for p in (s.strip() for s in text.split(";")) if p):
        match = _SPAN.fullmatch(piece)
        if match is None:
            return f"span {j + 1} is not two whole numbers 'start end'"
        start, end = int(match.group(1)), int(match.group(2))
        if end < start:
            return f"span {j + 1} ends before it starts"
        if end > start:
            spans.append((start, end))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _shared(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Characters two sorted lists of disjoint intervals share (a two-pointer sweep)."""
    i = j = shared = 0
    while i < len(a) and j < len(b):
        shared += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return shared


@register("char_span_micro_f1", higher_is_better=True, value_range=(0.0, 1.0), kind="text")
def char_span_micro_f1(y_true: Any, y_pred: Any) -> float:
    """Micro F1 over the character indices of true and predicted spans, pooled over rows.

    NBME - Score Clinical Patient Notes scores its feature spans this way.

    Higher is better; best 1.0. Input: 1-D cells of ``start end`` spans separated by ``;``
    (a span covers characters start .. end - 1; an empty cell has none). Every character index
    inside a true and a predicted span of its row is a true positive, inside a true span only a
    false negative, inside a predicted span only a false positive; F1 = 2TP / (2TP + FP + FN)
    over all rows, and 1.0 when no row has any span. A malformed prediction makes the
    submission invalid.

    >>> round(char_span_micro_f1(["0 3; 3 5"], ["2 5; 7 9; 2 3"]), 6)  # TP 3, FN 2, FP 2
    0.6
    """
    t, p = _str_pair(y_true, y_pred)
    tp = n_true = n_pred = 0
    bad: list[str] = []
    for i, (truth, pred) in enumerate(zip(t, p, strict=True)):
        true_spans = parse_char_spans(truth)
        if isinstance(true_spans, str):
            raise TaskDataError(f"char_span_micro_f1: answers row {i + 1} is malformed")
        pred_spans = parse_char_spans(pred)
        if isinstance(pred_spans, str):
            bad.append(f"row {i + 1}: {pred_spans}")
            continue
        tp += _shared(true_spans, pred_spans)
        n_true += sum(e - s for s, e in true_spans)
        n_pred += sum(e - s for s, e in pred_spans)
    raise_bad_rows(bad, "malformed character spans")
    if n_true + n_pred == 0:
        return 1.0
    return 2.0 * tp / (n_true + n_pred)
