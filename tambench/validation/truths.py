"""The answers' truths: the target values of the scored rows, with the task's declared
conventions applied once, when the answers load (an unscored marker, a scored-rows rule, a
row-sum normalisation, an empty token), so that metrics only ever see the scored rows; and the
row ids, joined when there are several id columns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.errors import TaskDataError
from tambench.schema.taskspec import (
    GradingSpec,
    ScoredLastPerGroup,
    ScoredWhere,
)
from tambench.validation.answers import NUMERIC_KINDS, Answers
from tambench.validation.arrays import (
    NUMBER_RE,
    all_within,
    fill_floats,
    stack_columns,
    to_float64,
    to_object,
)
from tambench.validation.messages import KEY_SEP
from tambench.validation.policies import answers_targets


def marker_cells(col: pa.ChunkedArray, marker: str) -> np.ndarray:
    """Cells of a column that hold the unscored marker: compared as numbers in a column of
    numbers (``-1`` marks ``-1.0``), as text (spaces around ignored) otherwise."""
    if col.type == pa.float64():
        try:
            number = float(marker)
        except ValueError:
            return np.zeros(len(col), dtype=bool)
        return to_float64(col) == number
    return np.asarray(to_object(pc.utf8_trim_whitespace(col)) == marker.strip(), dtype=bool)


def scored_where(table: pa.Table, pos: dict[str, int], rule: ScoredWhere) -> np.ndarray:
    """Which rows the flag column marks as scored."""
    names = [rule.column] if isinstance(rule.column, str) else list(rule.column)
    present = [c for c in names if c in pos]
    if not present:
        raise TaskDataError(f"scored_rows: the answers have none of the columns {names}")
    cells = to_object(pc.utf8_trim_whitespace(table.column(pos[present[0]])))
    scored = np.isin(cells, list(rule.scored))
    if not rule.unscored:
        return scored
    other = ~(scored | np.isin(cells, list(rule.unscored)))
    if other.any():
        seen = sorted({str(v) for v in cells[other][:1000]})[:5]
        raise TaskDataError(
            f"scored_rows: answers column {present[0]!r} holds {int(other.sum())} value(s) "
            f"that are neither scored {rule.scored} nor unscored {rule.unscored}, e.g. {seen}"
        )
    return scored


def scored_last_per_group(
    table: pa.Table, pos: dict[str, int], rule: ScoredLastPerGroup, eligible: np.ndarray
) -> np.ndarray:
    """The last ``k`` eligible rows of each group by the order column."""
    for c in (rule.group_column, rule.order_column):
        if c not in pos:
            raise TaskDataError(f"scored_rows: the answers have no column {c!r}")
    groups = to_object(table.column(pos[rule.group_column]))
    order_text = pc.utf8_trim_whitespace(table.column(pos[rule.order_column]))
    try:
        order = to_float64(pc.cast(order_text, pa.float64()))
    except pa.ArrowInvalid:
        raise TaskDataError(
            f"scored_rows: answers column {rule.order_column!r} is not all numbers"
        ) from None
    rows = np.flatnonzero(eligible)
    _, codes = np.unique(groups[rows].astype(str), return_inverse=True)
    # Sorted by group, then order, then file position: each group's last k are its scored rows.
    ranked = rows[np.lexsort((rows, order[rows], codes))]
    codes_sorted = np.sort(codes, kind="stable")
    ends = np.r_[np.flatnonzero(np.diff(codes_sorted)), codes_sorted.size - 1]
    starts = np.r_[0, ends[:-1] + 1]
    out = np.zeros(len(groups), dtype=bool)
    for start, end in zip(starts, ends, strict=True):
        out[ranked[max(start, end + 1 - rule.k) : end + 1]] = True
    return out


def scored_index(
    table: pa.Table, pos: dict[str, int], grading: GradingSpec, marked: np.ndarray | None
) -> np.ndarray | None:
    """Positions of the scored answers rows, ascending; None when every row is scored."""
    n = table.num_rows
    keep = np.ones(n, dtype=bool) if marked is None else ~marked
    rule = grading.scored_rows
    if isinstance(rule, ScoredWhere):
        keep &= scored_where(table, pos, rule)
    elif isinstance(rule, ScoredLastPerGroup):
        keep = scored_last_per_group(table, pos, rule, keep)
    if keep.all():
        return None
    if not keep.any():
        raise TaskDataError("the answers mark no row as scored")
    return np.flatnonzero(keep)


def normalise_rows(y_true: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (a new array); a row summing to 0 is an answers error."""
    sums = y_true.sum(axis=1)
    zero = np.flatnonzero(sums <= 0)
    if zero.size:
        raise TaskDataError(
            f"normalize_truths row_sum: {zero.size} scored answers row(s) sum to 0 or less "
            f"(rows {[int(i) + 1 for i in zero[:5]]})"
        )
    return y_true / sums[:, None]


def apply_empty_token(values: np.ndarray, token: str | None) -> np.ndarray:
    """Cells holding exactly the empty token become the empty string (a new array if any)."""
    if token is None:
        return values
    hit = values == token
    if not np.any(hit):
        return values
    out = values.copy()
    out[hit] = ""
    return out


def make_key(table: pa.Table, indices: Sequence[int]) -> pa.ChunkedArray:
    """The row ids of ``table`` from its id columns (joined with NUL when several)."""
    # Kept in the parser's chunks: comparing with the answers' ids needs no contiguous copy.
    cols = [table.column(i) for i in indices]
    if len(cols) == 1:
        return cols[0]
    joined = pc.binary_join_element_wise(*cols, KEY_SEP)
    return joined if isinstance(joined, pa.ChunkedArray) else pa.chunked_array([joined])


def _aux_array(col: pa.ChunkedArray) -> np.ndarray:
    ok = pc.all(pc.match_substring_regex(col, NUMBER_RE)).as_py()
    if ok and len(col):
        return to_float64(pc.cast(pc.utf8_trim_whitespace(col), pa.float64()))
    return to_object(col)


def _aux_arrays(table: pa.Table, pos: dict[str, int], names: list[str], single: bool) -> np.ndarray:
    """One auxiliary column (1-D), or several as a (rows, k) array: float64 when every one is
    all numbers, object otherwise."""
    cols = [_aux_array(table.column(pos[c])) for c in names]
    if single:
        return cols[0]
    numeric = all(c.dtype == np.float64 for c in cols)
    return stack_columns(cols if numeric else [c.astype(object) for c in cols], numeric)


def _truths(table: pa.Table, pos: dict[str, int], ans: Answers) -> tuple[Any, np.ndarray | None]:
    """Every row's targets (finite float64 for numeric kinds, object strings otherwise) and
    which rows hold the unscored marker (None without a marker)."""
    g = ans.grading
    marker = g.unscored_marker
    cols = [table.column(pos[c]) for c in answers_targets(g)]
    marked = None
    if marker is not None:
        marked = np.zeros(table.num_rows, dtype=bool)
        for col in cols:
            marked |= marker_cells(col, marker)
    if ans.kind not in NUMERIC_KINDS:
        texts = [apply_empty_token(to_object(c), g.empty_token) for c in cols]
        return (texts[0] if len(texts) == 1 else stack_columns(texts, False)), marked
    if all(c.type == pa.float64() for c in cols):
        values = fill_floats(table, [pos[c] for c in answers_targets(g)])
    else:
        values = stack_columns([_numbers_or_marker(name, c, marked, ans) for name, c in
                                zip(answers_targets(g), cols, strict=True)], True)
        values = values[:, 0] if len(cols) == 1 else values
    _check_finite(values, marked, ans)
    return values, marked


def _numbers_or_marker(
    name: str, col: pa.ChunkedArray, marked: np.ndarray | None, ans: Answers
) -> np.ndarray:
    """A target column the parser could not read as numbers: numbers except in marked rows."""
    if col.type == pa.float64():
        return to_float64(col)
    # numpy, not arrow, from here: building arrow arrays from Python objects imports pandas.
    text = to_object(pc.utf8_trim_whitespace(col))
    if marked is not None:
        text[marked] = "0"
    try:
        return text.astype(np.float64)
    except ValueError:
        raise TaskDataError(
            f"answers column {name!r} in {ans.path} is not all numbers"
            + ("" if marked is None else " (nor the unscored marker)")
        ) from None


def _check_finite(values: np.ndarray, marked: np.ndarray | None, ans: Answers) -> None:
    if all_within(values, -math.inf, math.inf):
        return
    ok = np.isfinite(values) if values.ndim == 1 else np.isfinite(values).all(axis=1)
    if marked is not None:
        ok |= marked
    if not ok.all():
        raise TaskDataError(f"answers targets in {ans.path} hold NaN or inf "
                            f"(rows {[int(i) + 1 for i in np.flatnonzero(~ok)[:5]]})")


def _scored_truths(truths: Any, ans: Answers) -> Any:
    """The scored rows' truths, normalised when the spec says so."""
    y_true = truths if ans.scored is None else truths[ans.scored]
    if ans.grading.normalize_truths == "row_sum":
        y_true = normalise_rows(y_true)
    return y_true


def build_truths(
    table: pa.Table, pos: dict[str, int], ans: Answers, aux_columns: dict[str, list[str]]
) -> None:
    """Set the answers' row count, ids, scored rows, truths of the scored rows and auxiliary
    columns from the parsed table (``pos``: each column's position)."""
    grading = ans.grading
    ans.n_rows = table.num_rows
    if grading.id_columns:
        ans.key = make_key(table, [pos[c] for c in grading.id_columns])
    truths, marked = _truths(table, pos, ans)
    ans.scored = scored_index(table, pos, grading, marked)
    ans.y_true = _scored_truths(truths, ans)
    singles = set(ans.metric.aux_columns(grading.metric_params))
    for name, col_names in aux_columns.items():
        aux = _aux_arrays(table, pos, col_names, name in singles)
        ans.aux[name] = aux if ans.scored is None else aux[ans.scored]
