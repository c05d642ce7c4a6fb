"""Validating a CSV submission in the fixed order: format -> columns -> rows -> ids -> values.

Declared policy read here: ``extra_columns`` (``GradingSpec.value_policy``): ``"reject"``
(Kaggle's rule, default) or ``"ignore"``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from tambench.errors import InvalidSubmissionError
from tambench.validation.answers import NUMERIC_KINDS, Answers, make_key
from tambench.validation.columns import check_columns, check_row_sums, clean_numbers
from tambench.validation.ids import check_ids, check_superset
from tambench.validation.messages import loose
from tambench.validation.policies import values_may_span_lines
from tambench.validation.reading.csvbody import read_csv_columns
from tambench.validation.reading.csvio import MAX_EXAMPLES, CsvLayout, RawFile, sniff_csv
from tambench.validation.reading.limits import Limits
from tambench.validation.reading.text import clip, echo_list, format_examples
from tambench.validation.result import ValidatedSubmission


@dataclass
class _Alignment:
    """What the id stage found: the submission's ids and how its rows map to the answers'."""

    ok: bool = True
    key: pa.ChunkedArray | None = None
    perm: np.ndarray | None = None
    aligned_by: str = "position"
    problems: list[str] = field(default_factory=list)


def validate_csv(raw: RawFile, ans: Answers, limits: Limits) -> ValidatedSubmission:
    """Validate a CSV submission; return its predictions in the answers' row order."""
    expected = ans.expected_header
    layout = sniff_csv(raw, expected, max_columns=limits.max_columns)
    first_pos = _first_positions(layout.header)
    _refuse_headerless(layout.header, expected, first_pos)
    problems = column_problems(layout.header, ans)  # on the header, before the body is read
    table = _read_body(raw, layout, first_pos, ans, problems)
    del raw  # the table owns its buffers; let the mapping go
    problems += _row_problems(table, layout, ans, problems)
    ids = _align_ids(table, first_pos, ans)
    problems += ids.problems
    y_pred, value_problems = _check_values(table, first_pos, ids.key, ans)
    problems += value_problems
    if problems or not ids.ok or y_pred is None:
        raise InvalidSubmissionError(problems or ["submission could not be aligned to answers"])
    take = ids.perm  # the submission row of each answers row (None: the same row)
    if ans.scored is not None:
        take = ans.scored if take is None else take[ans.scored]
    if take is not None:
        y_pred = y_pred[take]
    return ValidatedSubmission(y_pred=y_pred, n_rows=table.num_rows, aligned_by=ids.aligned_by)


def _read_body(
    raw: RawFile, layout: CsvLayout, first_pos: dict[str, int], ans: Answers,
    column_problems: list[str],
) -> pa.Table:
    """Parse the body, converting only the id and target columns (any other column is
    tokenised, never built); format problems come first, then the header's."""
    g = ans.grading
    needed = [first_pos[c] for c in [*g.id_columns, *g.target_columns] if c in first_pos]
    targets = [first_pos[c] for c in g.target_columns if c in first_pos]
    numeric = ans.kind in NUMERIC_KINDS
    try:
        return read_csv_columns(raw, layout, columns=needed,
                                float_columns=targets if numeric else (),
                                multiline=values_may_span_lines(g, ans.kind))
    except InvalidSubmissionError as exc:
        raise InvalidSubmissionError([*exc.problems, *column_problems]) from None


def _first_positions(header: list[str]) -> dict[str, int]:
    first_pos: dict[str, int] = {}
    for i, name in enumerate(header):
        first_pos.setdefault(name, i)
    return first_pos


def _refuse_headerless(header: list[str], expected: list[str], first_pos: dict[str, int]) -> None:
    """A first line that names no expected column, even loosely, is data: refuse at once."""
    if any(c in first_pos for c in expected) or len(header) != len(expected):
        return
    names = {loose(c) for c in expected}
    if not any(loose(h) in names for h in header):
        raise InvalidSubmissionError([
            f"no header row: line 1 ({echo_list(header, MAX_EXAMPLES)}) looks like data; "
            f"expected the header {echo_list(expected)} on line 1"
        ])


def column_problems(header: list[str], ans: Answers) -> list[str]:
    """Duplicate, missing and unexpected columns (checked on the header alone)."""
    expected = ans.expected_header
    shown = echo_list(expected)
    problems = []
    if len(set(header)) != len(header):
        dups = sorted(h for h, n in Counter(header).items() if n > 1)
        problems.append(f"duplicate column name(s) {echo_list(dups)}; expected each of {shown} once")
    present = set(header)
    extra_cols = [h for h in dict.fromkeys(header) if h not in expected]
    loose_extra = {loose(h): h for h in reversed(extra_cols)}
    for c in expected:
        if c in present:
            continue
        near = loose_extra.get(loose(c))
        hint = f" (got `{clip(near)}`: names are case- and space-sensitive)" if near else ""
        problems.append(f"column `{c}` missing; expected {shown}, got {echo_list(header)}{hint}")
    if extra_cols and ans.grading.value_policy.get("extra_columns", "reject") != "ignore":
        problems.append(
            f"unexpected column(s) {format_examples(extra_cols)}; expected exactly {shown} "
            "(extra columns are not allowed)"
        )
    return problems


def _row_problems(
    table: pa.Table, layout: CsvLayout, ans: Answers, earlier: list[str]
) -> list[str]:
    """The row count; a file without data rows is refused at once (with ``earlier``)."""
    n_sub = table.num_rows
    expected = _expected_rows(ans)
    if n_sub == 0 or not layout.has_data:
        raise InvalidSubmissionError([
            *earlier,
            "no data rows (header only); expected "
            + (f"{expected[0]} rows (one per {expected[1]})" if expected else "data rows"),
        ])
    if expected and n_sub != expected[0]:
        return [f"{n_sub} rows; expected {expected[0]} (one per {expected[1]})"]
    return []


def _expected_rows(ans: Answers) -> tuple[int, str] | None:
    """How many rows a submission has, and of what; None when that is private (extra ids
    allowed without a public id list: the count would tell how many ids are scored)."""
    if ans.grading.extra_ids == "reject":
        return ans.n_rows, ans.noun
    if ans.universe is not None:
        return ans.universe.n_rows, ans.universe.noun
    return None


def _align_ids(table: pa.Table, first_pos: dict[str, int], ans: Answers) -> _Alignment:
    """Match rows by id (or by position for tasks without ids)."""
    id_columns = ans.grading.id_columns
    if not id_columns:
        return _Alignment(ok=table.num_rows == ans.n_rows)
    if not all(c in first_pos for c in id_columns):
        return _Alignment(ok=False)  # the missing id column is already reported
    key = make_key(table, [first_pos[c] for c in id_columns])
    if ans.grading.extra_ids == "reject":
        check = check_ids(key, ans)
    elif ans.universe is not None and ans.universe_rows is not None:
        check = check_ids(key, ans.universe)
        if check.ok:  # universe rows -> submission rows, then answers rows -> universe rows
            check.perm = ans.universe_rows if check.perm is None else check.perm[
                ans.universe_rows]
            check.aligned_by = "join"
    else:
        check = check_superset(key, ans)
    return _Alignment(ok=check.ok, key=key, perm=check.perm, aligned_by=check.aligned_by,
                      problems=check.problems)


def _check_values(
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
