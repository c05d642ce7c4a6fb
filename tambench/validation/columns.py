"""Checking the values of a submission's target columns: one checker per input kind.

:data:`CHECKERS` maps each metric input kind to the function that checks one column of it.
Every checker collects its problems in two lists (types and ranges first, missing values
after, the fixed order of the style guide) and returns the column's values when it is clean.

Declared policies read here (``GradingSpec.value_policy``; absent keys take these defaults):

* ``allow_empty``: whether an empty cell is a value. Default false for kinds ``value``,
  ``probability`` and ``label``; true for ``text``, ``set``, ``ranking`` and ``mask``, where an
  empty string is an empty set, ranking, mask or text.
* ``row_sum`` (kind ``probability``, several target columns): ``"auto"`` (default: rows must sum
  to 1 when the metric compares distributions, :attr:`Metric.rows_are_distributions`, or takes a
  ``renormalize`` parameter set to false; a metric that renormalises declares so),
  ``"require"``, or ``"ignore"``. ``row_sum_tolerance`` default 1e-4 (absolute, on each
  row's sum).
* ``probability_range`` (kind ``probability``): ``"unit"`` (default: values in [0, 1]) or
  ``"any"`` (any finite number: a rule that ranks scores, such as an AUC, accepts them).
* ``strip_spaces``: spaces around numbers are always ignored (they cannot change a number);
  with true, spaces around labels and strings are removed too. Ids are never stripped.
* ``multiline_values``: whether a quoted value may hold a line break (RFC 4180). Default true
  for kind ``text`` (pandas writes such values), false otherwise: one row per line, a quoted
  line break is refused. Files are read in parallel blocks either way; only a file whose
  quoted values do hold line breaks, over several blocks, is read again with its blocks found
  serially (slower).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.validation.answers import NUMERIC_KINDS, Answers
from tambench.validation.arrays import (
    NONFINITE_RE,
    NUMBER_RE,
    all_within,
    bool_mask,
    chunk,
    empty_cells,
    fill_floats,
    float_matrix,
    has_line_break,
    int32_values,
    stack_columns,
    to_float64,
    to_object,
)
from tambench.validation.labels import equivalent_labels, respelling_hint
from tambench.validation.messages import rows_desc
from tambench.validation.policies import values_may_span_lines
from tambench.validation.reading.text import MAX_EXAMPLES, echo, format_examples
from tambench.validation.truths import apply_empty_token

#: Kinds where an empty cell is a legitimate value by default.
EMPTY_OK_KINDS = frozenset({"text", "set", "ranking", "mask"})


@dataclass
class ColumnCheck:
    """One target column being checked, and where its problems go."""

    name: str
    col: pa.ChunkedArray
    key: pa.ChunkedArray | None
    ans: Answers
    dest: np.ndarray | None = None
    """Where numeric values are written (one column of a 2-D array), or None."""
    type_problems: list[str] = field(default_factory=list)
    missing_problems: list[str] = field(default_factory=list)

    def where(self, mask: np.ndarray) -> tuple[np.ndarray, str]:
        """Positions of the true cells of ``mask`` and their description for messages."""
        rows = np.flatnonzero(mask)
        return rows, rows_desc(rows, self.key)

    @property
    def policy(self) -> dict[str, Any]:
        """The task's declared value policies."""
        return self.ans.grading.value_policy


Checker = Callable[[ColumnCheck], "np.ndarray | None"]


# --- numbers ----------------------------------------------------------------------------------


def _parse_number_texts(c: ColumnCheck) -> tuple[np.ndarray, bool]:
    """A column the parser could not read as numbers: name what is not a number and what is
    empty; the values (placeholders where a cell is not a number) and whether all were fine."""
    trimmed = pc.utf8_trim_whitespace(c.col)
    empty = empty_cells(trimmed)
    nonfinite_txt = bool_mask(pc.match_substring_regex(c.col, NONFINITE_RE))
    number_arrow = chunk(pc.match_substring_regex(c.col, NUMBER_RE))
    bad = ~(empty | nonfinite_txt | bool_mask(number_arrow))
    if bad.any():
        rows, desc = c.where(bad)
        examples = ", ".join(echo(c.col[int(i)].as_py()) for i in rows[:MAX_EXAMPLES])
        c.type_problems.append(
            f"column `{c.name}`: {rows.size} value(s) are not numbers; expected decimal "
            f"numbers, got [{examples}] in {desc}"
        )
    if empty.any():
        rows, desc = c.where(empty)
        c.missing_problems.append(
            f"column `{c.name}`: {rows.size} empty cell(s) in {desc}; "
            "expected a number in every row"
        )
    # Placeholders stand in for cells that are not numbers: the submission is rejected.
    zeros = pc.replace_substring_regex(chunk(trimmed), pattern=r"(?s)^.*$", replacement="0")
    texts = pc.if_else(number_arrow, chunk(trimmed), zeros)
    values = to_float64(pc.cast(texts, pa.float64()), out=c.dest)
    values[nonfinite_txt] = np.nan
    return values, not (bad.any() or empty.any())


def _numbers(c: ColumnCheck) -> tuple[np.ndarray, bool]:
    """The column as float64, with NaN and infinity refused."""
    if c.col.type != pa.float64():
        values, ok = _parse_number_texts(c)
    else:
        values, ok = to_float64(c.col, out=c.dest), True
    nonfinite = ~np.isfinite(values)
    if nonfinite.any():
        rows, desc = c.where(nonfinite)
        c.type_problems.append(
            f"column `{c.name}`: {rows.size} value(s) are NaN or infinite in {desc}; "
            "expected finite numbers"
        )
        ok = False
    return values, ok


def check_values(c: ColumnCheck) -> np.ndarray | None:
    """Kind ``value``: finite decimal numbers."""
    values, ok = _numbers(c)
    return values if ok else None


def scores_unbounded(ans: Answers) -> bool:
    """Whether the task declares its probability-kind target a score of any finite value
    (``value_policy.probability_range`` ``"any"``: a rule that only ranks the scores)."""
    return ans.grading.value_policy.get("probability_range", "unit") == "any"


def check_probabilities(c: ColumnCheck) -> np.ndarray | None:
    """Kind ``probability``: finite numbers in [0, 1] (any finite number where the task
    declares ``probability_range`` ``"any"``)."""
    values, ok = _numbers(c)
    if scores_unbounded(c.ans):
        return values if ok else None
    with np.errstate(invalid="ignore"):
        out = (values < 0.0) | (values > 1.0)
    if out.any():
        rows, desc = c.where(out)
        got = [float(values[int(i)]) for i in rows[:MAX_EXAMPLES]]
        noun = "probability is" if rows.size == 1 else "probabilities are"
        c.type_problems.append(
            f"column `{c.name}`: {rows.size} {noun} outside [0, 1]; got {got} in {desc}"
        )
        ok = False
    return values if ok else None


# --- strings ----------------------------------------------------------------------------------


def _strings(c: ColumnCheck) -> tuple[pa.ChunkedArray, np.ndarray, bool]:
    """The column (spaces stripped under that policy), its empty cells, and whether empty
    cells are acceptable for the kind."""
    col = pc.utf8_trim_whitespace(c.col) if c.policy.get("strip_spaces", False) else c.col
    empty = empty_cells(col)
    allow_empty = bool(c.policy.get("allow_empty", c.ans.kind in EMPTY_OK_KINDS))
    ok = True
    if not values_may_span_lines(c.ans.grading, c.ans.kind):
        broken = has_line_break(c.col)
        if broken.any():
            rows, desc = c.where(broken)
            c.type_problems.append(
                f"column `{c.name}`: {rows.size} value(s) hold a line break (a quoted newline) "
                f"in {desc}; expected one row per line"
            )
            ok = False
    if empty.any() and not allow_empty:
        rows, desc = c.where(empty)
        c.missing_problems.append(
            f"column `{c.name}`: {rows.size} empty cell(s) in {desc}; "
            "expected a value in every row"
        )
        ok = False
    return col, empty, ok


def check_strings(c: ColumnCheck) -> np.ndarray | None:
    """Kinds ``text``, ``set``, ``ranking`` and ``mask``: any string (the metric parses it);
    the task's empty token (``GradingSpec.empty_token``) becomes the empty string."""
    col, _, ok = _strings(c)
    return apply_empty_token(to_object(col), c.ans.grading.empty_token) if ok else None


def check_labels(c: ColumnCheck) -> np.ndarray | None:
    """Kind ``label``: non-empty strings from the column's label set, when it has one; a label
    outside the set that the task declares equivalent to one label of it
    (``GradingSpec.label_equivalence``) is graded as that label, and one that respells a
    declared label is named with the declared spelling (:mod:`.labels`)."""
    col, empty, ok = _strings(c)
    label_set = c.ans.label_sets.get(c.name)
    if label_set is None:
        return to_object(col) if ok else None
    members = label_set.members
    encoded = pc.dictionary_encode(chunk(col))
    dictionary = encoded.dictionary.to_pylist()
    codes, _ = int32_values(encoded.indices)
    mapping = equivalent_labels([v for v in dictionary if v not in members], label_set.labels,
                                c.ans.grading.label_equivalence)
    names = np.array([mapping.get(v, v) for v in dictionary], dtype=object)
    bad_code = np.array([n not in members for n in names], dtype=bool)
    bad = (bad_code[codes] if bad_code.size else np.zeros(len(col), dtype=bool)) & ~empty
    if bad.any():
        allowed = label_set.labels
        rows, desc = c.where(bad)
        got = sorted({str(names[codes[int(i)]]) for i in rows[:1000]})
        c.type_problems.append(
            f"column `{c.name}`: {rows.size} unknown label(s) {format_examples(got)} in "
            f"{desc}; allowed labels: {allowed[:50]}{' ...' if len(allowed) > 50 else ''}"
            + respelling_hint(got, allowed)
        )
        ok = False
    if not ok:
        return None
    return names[codes] if names.size else to_object(col)


#: One checker per metric input kind (``structured`` submissions are not columns).
CHECKERS: dict[str, Checker] = {
    "value": check_values,
    "probability": check_probabilities,
    "label": check_labels,
    "text": check_strings,
    "set": check_strings,
    "ranking": check_strings,
    "mask": check_strings,
}


# --- all target columns -----------------------------------------------------------------------


def clean_numbers(table: pa.Table, positions: list[int], ans: Answers) -> np.ndarray | None:
    """The common case in one pass: every numeric target column parsed as float64, every value
    finite (and a probability for kind ``probability``). None when anything needs a closer
    look; :func:`check_columns` then names each problem."""
    if ans.kind not in NUMERIC_KINDS or not positions or min(positions) < 0:
        return None
    if any(table.column(i).type != pa.float64() for i in positions):
        return None
    values = fill_floats(table, positions)
    bounded = ans.kind == "probability" and not scores_unbounded(ans)
    lo, hi = (0.0, 1.0) if bounded else (-math.inf, math.inf)
    return values if all_within(values, lo, hi) else None


def check_columns(
    table: pa.Table,
    first_pos: dict[str, int],
    key: pa.ChunkedArray | None,
    ans: Answers,
    type_problems: list[str],
    missing_problems: list[str],
) -> Any:
    """Check every target column on its own, collecting problems; the aligned-to-file values
    (1-D, or 2-D for several columns) when all are clean, else None."""
    targets = ans.grading.target_columns
    numeric = ans.kind in NUMERIC_KINDS
    checker = CHECKERS[ans.kind]
    cols: list[np.ndarray] = []
    matrix = float_matrix(table.num_rows, len(targets)) if numeric else None
    for j, name in enumerate(targets):
        if name not in first_pos:
            continue
        dest = matrix[:, j] if matrix is not None and len(targets) > 1 else None
        check = ColumnCheck(name, table.column(first_pos[name]), key, ans, dest,
                            type_problems, missing_problems)
        values = checker(check)
        if values is not None:
            cols.append(values)
    if len(cols) != len(targets) or not cols:
        return None
    if len(cols) == 1:
        return cols[0]
    return matrix if matrix is not None else stack_columns(cols, numeric)


#: Default tolerance of a row sum (``value_policy.row_sum_tolerance``).
ROW_SUM_TOLERANCE = 1e-4


def rows_must_sum_to_one(ans: Answers) -> bool:
    """Whether rows of several probability columns must sum to 1: by the task's
    ``row_sum`` policy, else by the metric (one that compares distributions, or a
    ``renormalize`` parameter set to false)."""
    policy = ans.grading.value_policy.get("row_sum", "auto")
    if policy != "auto":
        return policy != "ignore"
    if ans.kind != "probability":
        return False
    return ans.metric.rows_are_distributions or ans.params.get("renormalize", True) is False


def check_row_sums(
    y: np.ndarray, ans: Answers, key: pa.ChunkedArray | None, problems: list[str]
) -> None:
    """Rows of several probability columns must sum to 1 when the task or metric says so
    (whatever the answers' own rows sum to: ``normalize_truths`` rescales truths only)."""
    if not rows_must_sum_to_one(ans):
        return
    tol = float(ans.grading.value_policy.get("row_sum_tolerance", ROW_SUM_TOLERANCE))
    sums = y.sum(axis=1)
    off = np.abs(sums - 1.0) > tol
    if off.any():
        where = np.flatnonzero(off)
        got = [round(float(sums[int(i)]), 6) for i in where[:MAX_EXAMPLES]]
        problems.append(
            f"{where.size} row(s) of probabilities do not sum to 1 (tolerance {tol:g}); got sums "
            f"{got} in {rows_desc(where, key)}"
        )


def check_targets(
    table: pa.Table, first_pos: dict[str, int], key: pa.ChunkedArray | None, ans: Answers
) -> tuple[Any, list[str]]:
    """Types and ranges, then missing values; the values in file order when all are clean."""
    type_problems: list[str] = []
    missing_problems: list[str] = []
    positions = [first_pos.get(c, -1) for c in ans.grading.target_columns]
    y_pred: Any = clean_numbers(table, positions, ans)
    if y_pred is None:
        y_pred = check_columns(table, first_pos, key, ans, type_problems, missing_problems)
    if ans.kind in NUMERIC_KINDS and y_pred is not None and y_pred.ndim == 2:
        check_row_sums(y_pred, ans, key, type_problems)
    return y_pred, type_problems + missing_problems
