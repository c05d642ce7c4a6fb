"""Checking a submission's ids against the answers' ids and aligning rows by id.

Ids are exact strings: ``0001`` is not ``1``, ``1.0`` is not ``1``, and ``NA``, ``None`` or
``null`` are ids, never missing values. Rows are matched by id; order does not matter. Same
length and every answer id found proves a one-to-one match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.errors import TaskDataError
from tambench.validation.answers import Answers
from tambench.validation.arrays import empty_cells, has_line_break, int32_values
from tambench.validation.idindex import IdIndex, match_ids
from tambench.validation.messages import near_miss_hints, rows_desc, show_id
from tambench.validation.reading.text import MAX_EXAMPLES, format_examples
from tambench.validation.truths import make_key


def to_int64(arr: pa.Array) -> np.ndarray:
    """An int64 arrow array without nulls as numpy (a view of its buffer)."""
    return np.frombuffer(arr.buffers()[1], dtype=np.int64, count=len(arr), offset=arr.offset * 8)

#: How many unknown and missing ids are kept to look for near misses.
HINT_SAMPLE = 5000


class IdSource(Protocol):
    """The ids a submission must hold exactly once each: the answers' own, or the public id
    list of a task whose answers score only some of them."""

    @property
    def key(self) -> pa.ChunkedArray | None: ...

    @property
    def n_rows(self) -> int: ...

    @property
    def noun(self) -> str: ...

    def key_array(self) -> pa.Array: ...

    def key_index(self) -> IdIndex | None: ...


@dataclass
class IdCheck:
    """The outcome of :func:`check_ids`."""

    ok: bool
    perm: np.ndarray | None = None
    """Submission row of each answer row (None: already in the answers' order, or not ok)."""
    aligned_by: str = "join"
    problems: list[str] = field(default_factory=list)


def _check_answer_duplicates(ans_key: pa.Array, missing: np.ndarray) -> None:
    """Raise when an answer row went unmatched because its id repeats an earlier answer id.

    A lookup finds the first row holding an id, so duplicated answer ids would otherwise be
    blamed on the submission as missing; checked only when rows are missing.
    """
    sample = missing[:100_000]
    first, _ = int32_values(pc.index_in(ans_key.take(pa.array(sample)), value_set=ans_key))
    if (first.astype(np.int64) != sample).any():
        raise TaskDataError("the answers hold duplicated ids; they cannot be matched by id")


def _malformed_ids(key: pa.ChunkedArray) -> list[str]:
    """Empty ids and ids holding a line break (a quoted newline)."""
    problems = []
    empty = np.flatnonzero(empty_cells(key))
    if empty.size:
        problems.append(f"{empty.size} empty id cell(s): {rows_desc(empty, None)}")
    broken = np.flatnonzero(has_line_break(key))
    if broken.size:
        problems.append(
            f"{broken.size} id(s) hold a line break (a quoted newline): {rows_desc(broken, key)}"
        )
    return problems


def check_ids(key: pa.ChunkedArray, ans: IdSource) -> IdCheck:
    """Check that the submitted ids are exactly ``ans``'s ids; on success, say how rows map
    to its rows."""
    if ans.key is None:
        raise TaskDataError("answers have no ids but the task declares id columns")
    n_sub = len(key)
    if n_sub == ans.n_rows and key.equals(ans.key):
        return IdCheck(ok=True, aligned_by="order")  # the usual case: the sample's order
    problems = _malformed_ids(key)
    if n_sub == ans.n_rows and not problems:
        index = ans.key_index()
        perm = index.align(key) if index is not None else None
        if perm is not None:
            return IdCheck(ok=True, perm=perm)
    # Something is off (or the ids are too long to hash here): the exact lookup names it.
    idx = match_ids(key, ans.key_array())
    problems += _mismatch_problems(key, idx, ans)
    if problems:
        return IdCheck(ok=False, problems=problems)
    perm = np.empty(ans.n_rows, dtype=np.int64)
    perm[idx] = np.arange(n_sub, dtype=np.int64)
    return IdCheck(ok=True, perm=perm)


def _mismatch_problems(key: pa.ChunkedArray, idx: np.ndarray, ans: IdSource) -> list[str]:
    """Unknown, duplicated and missing ids (with near-miss hints), given each submitted row's
    answer row ``idx`` (-1 when unknown)."""
    ans_key = ans.key_array()
    unknown = np.flatnonzero(idx < 0)
    counts = np.bincount(idx[idx >= 0], minlength=ans.n_rows)
    missing = np.flatnonzero(counts == 0)
    if missing.size:
        _check_answer_duplicates(ans_key, missing)
    dup_rows = np.flatnonzero(counts > 1)
    problems: list[str] = []
    unknown_ids: list[str] = []
    missing_ids: list[str] = []
    if unknown.size:
        unknown_ids = [key[int(i)].as_py() for i in unknown[:HINT_SAMPLE]]
        all_wrong = f" (no submitted id matches any {ans.noun})" if unknown.size == len(key) else ""
        problems.append(
            f"unknown ids{all_wrong}: {unknown.size} submitted id(s) are not {ans.noun}s "
            f"{format_examples([show_id(u) for u in unknown_ids], int(unknown.size))}"
        )
    if dup_rows.size:
        dup_ids = [show_id(ans_key[int(i)].as_py()) for i in dup_rows[:MAX_EXAMPLES]]
        extra = int(counts[dup_rows].sum() - dup_rows.size)
        problems.append(
            f"duplicated ids: {dup_rows.size} id(s) appear more than once ({extra} extra "
            f"row(s)) {format_examples(dup_ids, int(dup_rows.size))}"
        )
    if missing.size:
        missing_ids = [ans_key[int(i)].as_py() for i in missing[:HINT_SAMPLE]]
        problems.append(
            f"missing ids: {missing.size} {ans.noun}(s) have no row "
            f"{format_examples([show_id(m) for m in missing_ids], int(missing.size))}"
        )
    if unknown_ids and missing_ids:
        problems.extend(near_miss_hints(unknown_ids, missing_ids))
    return problems


def check_superset(key: pa.ChunkedArray, ans: Answers) -> IdCheck:
    """Extra ids allowed and no public id list: the submission must hold every answer id once.

    Nothing here names an answer id or counts them: which ids are scored is private. Unknown
    ids are dropped; repeated ids are the submission's own and are named.
    """
    if ans.key is None:
        raise TaskDataError("answers have no ids but the task declares id columns")
    problems = _malformed_ids(key)
    if len(pc.unique(key)) != len(key):
        counts = pc.value_counts(key)
        n_seen = to_int64(counts.field("counts"))
        repeated = np.flatnonzero(n_seen > 1)
        values = counts.field("values")
        ids = [show_id(values[int(i)].as_py()) for i in repeated[:MAX_EXAMPLES]]
        problems.append(
            f"duplicated ids: {repeated.size} id(s) appear more than once "
            f"{format_examples(ids, int(repeated.size))}"
        )
    rows, valid = int32_values(pc.index_in(ans.key_array(), value_set=key))
    if valid is not None and not valid.all():
        problems.append(
            "missing ids: the submission has no row for some of the ids that are scored; "
            "expected a row for every test id (which ids are scored is not disclosed)"
        )
    if problems:
        return IdCheck(ok=False, problems=problems)
    return IdCheck(ok=True, perm=rows.astype(np.int64))


@dataclass
class Alignment:
    """What the id stage found: the submission's ids and how its rows map to the answers'."""

    ok: bool = True
    key: pa.ChunkedArray | None = None
    perm: np.ndarray | None = None
    aligned_by: str = "position"
    problems: list[str] = field(default_factory=list)


def align_ids(table: pa.Table, first_pos: dict[str, int], ans: Answers) -> Alignment:
    """Match rows by id (or by position for tasks without ids)."""
    id_columns = ans.grading.id_columns
    if not id_columns:
        return Alignment(ok=table.num_rows == ans.n_rows)
    if not all(c in first_pos for c in id_columns):
        return Alignment(ok=False)  # the missing id column is already reported
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
    return Alignment(ok=check.ok, key=key, perm=check.perm, aligned_by=check.aligned_by,
                      problems=check.problems)
