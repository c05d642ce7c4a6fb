"""Validate a submission once, before scoring, and align it to the answers by id.

Order (style guide section 4): file -> format -> columns -> rows -> ids -> types and ranges ->
missing values. Every problem of every stage that can be checked is collected; a stage that
makes the later ones meaningless (the file cannot be read, it is not CSV) stops there. The
result is an :class:`InvalidSubmissionError` listing the problems, or a
:class:`ValidatedSubmission` whose predictions are in the answers' row order, so a metric can
assume clean, aligned input (contract in :mod:`tambench.core.metrics.base`).

Rules:

* Ids are exact strings: ``0001`` is not ``1``, ``1.0`` is not ``1``, and ``NA``, ``None`` or
  ``null`` are ids, never missing values (nothing is ever read as missing). Rows are matched by
  id; order does not matter. Same length and every answer id found proves a one-to-one match.
* Messages name the problem, what was expected and what was got, with counts and up to five
  example ids, rows or columns. They only ever quote the submission's own values, the public
  ids, and the set of class labels; never a private label of a row, so permuting the private
  labels gives byte-identical messages.

Declared policies (``GradingSpec.value_policy``; absent keys take these defaults):

* ``extra_columns``: ``"reject"`` (Kaggle's rule, default) or ``"ignore"``.
* ``label_set`` (kind ``label``): ``"auto"`` (default: the labels present in the answers when
  there are at most 256 of them, else any string), ``"answers"``, ``"any"`` or an explicit list.
* ``allow_empty``: whether an empty cell is a value. Default false for kinds ``value``,
  ``probability`` and ``label``; true for ``text``, ``set``, ``ranking`` and ``mask``, where an
  empty string is an empty set, ranking, mask or text.
* ``row_sum`` (kind ``probability``, several target columns): ``"auto"`` (default: rows must sum
  to 1 when the metric takes a ``renormalize`` parameter set to false; a metric that
  renormalises declares so), ``"require"``, or ``"ignore"``. ``row_sum_tolerance`` default 1e-4.
* ``strip_spaces``: spaces around numbers are always ignored (they cannot change a number);
  with true, spaces around labels and strings are removed too. Ids are never stripped.
* ``json_shape`` (json submissions): ``"mirror"`` (default: every key, list length and leaf
  type of the answers' document, no extra keys) or ``"keys"`` (top-level keys only).
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.core.metrics.base import AUX_SUFFIX, Metric
from tambench.errors import InvalidSubmissionError, TambenchError, TaskDataError
from tambench.grading.csvio import (
    MAX_EXAMPLES,
    CsvLayout,
    ErrorFactory,
    Limits,
    RawFile,
    decode_text_file,
    float_matrix_view,
    format_examples,
    open_regular_file,
    read_csv_columns,
    sniff_csv,
    submission_error,
)
from tambench.schema.taskspec import GradingSpec, SubmissionFormat

NUMERIC_KINDS = frozenset({"value", "probability"})
STRING_KINDS = frozenset({"label", "text", "set", "ranking", "mask"})
#: Kinds where an empty cell is a legitimate value by default.
EMPTY_OK_KINDS = frozenset({"text", "set", "ranking", "mask"})
AUTO_LABEL_SET_MAX = 256
#: Separator of composite ids (several id columns); NUL bytes are refused in submissions.
KEY_SEP = "\x00"

_NUMBER_RE = r"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$"
_NONFINITE_RE = r"(?i)^\s*[+-]?(?:nan|inf|infinity)\s*$"


def _answers_error(problems: list[str]) -> TambenchError:
    return TaskDataError("answers file is unusable: " + "; ".join(problems))


# --- answers --------------------------------------------------------------------------------


@dataclass(frozen=True)
class LabelSet:
    """The labels a column accepts, sorted, as text (for messages) and as arrow (for lookups)."""

    labels: list[str]
    values: pa.Array


@dataclass
class Answers:
    """A task's private answers, loaded once and reused for every submission of the task."""

    path: Path
    grading: GradingSpec
    metric: Metric
    size: int
    n_rows: int = 0
    expected_header: list[str] = field(default_factory=list)
    key: pa.ChunkedArray | None = None
    """Row ids (joined with NUL when there are several id columns), as parsed (in chunks);
    None for positional."""
    y_true: Any = None
    """Targets in file order: float64 (n,) / (n, k) for numeric kinds, object str otherwise;
    for structured tasks the parsed document (dict/list) or list of lines."""
    aux: dict[str, np.ndarray] = field(default_factory=dict)
    """Auxiliary columns keyed by keyword name (``groups`` for ``groups_column``)."""
    params: dict[str, Any] = field(default_factory=dict)
    """Metric keyword arguments other than the auxiliary columns."""
    label_sets: dict[str, LabelSet | None] = field(default_factory=dict)
    """Allowed labels per target column (None: any string)."""
    _key_array: pa.Array | None = field(default=None, repr=False)
    _key_index: IdIndex | None = field(default=None, repr=False)

    def key_array(self) -> pa.Array:
        """The ids as one contiguous array (a hash lookup's value set), built once on demand.

        A submission in the answers' order never needs it, so loading does not pay the copy.
        """
        if self.key is None:
            raise TaskDataError("answers have no ids but the task declares id columns")
        if self._key_array is None:
            self._key_array = _chunk(self.key)
        return self._key_array

    def key_index(self) -> IdIndex | None:
        """The ids' hash index (:class:`IdIndex`), built once on demand; None when the ids
        are too long for it."""
        if self.key is None:
            raise TaskDataError("answers have no ids but the task declares id columns")
        if self._key_index is None:
            self._key_index = IdIndex.build(self.key)
        return self._key_index

    @property
    def kind(self) -> str:
        """The metric's input kind."""
        return self.metric.kind

    @property
    def fmt(self) -> SubmissionFormat:
        """The submission format."""
        return self.grading.submission_format


def expected_header(grading: GradingSpec) -> list[str]:
    """The exact header a CSV submission must have (order is free)."""
    if grading.submission_header:
        return list(grading.submission_header)
    return [*grading.id_columns, *grading.target_columns]


def _split_params(metric: Metric, grading: GradingSpec) -> tuple[dict[str, Any], dict[str, str]]:
    """(keyword parameters without ``*_column`` ones, {aux keyword: answers column})."""
    resolved = metric.resolve_params(grading.metric_params)
    params = {k: v for k, v in resolved.items() if not k.endswith(AUX_SUFFIX)}
    return params, metric.aux_columns(grading.metric_params)


def _chunk(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    if isinstance(col, pa.ChunkedArray):
        return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return col


def to_float64(col: pa.ChunkedArray | pa.Array, out: np.ndarray | None = None) -> np.ndarray:
    """A float64 column as a writable numpy array, read from the buffers (no pandas import).

    With ``out`` (e.g. one column of a 2-D array) the values are written there, copied once.
    """
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    if out is None:
        out = np.empty(len(col), dtype=np.float64)
    at = 0
    for arr in chunks:
        n = len(arr)
        if arr.null_count:
            raise TaskDataError("internal: float column with nulls reached conversion")
        buf = arr.buffers()[1]
        if n and buf is not None:
            out[at : at + n] = np.frombuffer(buf, dtype=np.float64, count=n, offset=arr.offset * 8)
        at += n
    return out


def to_object(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A string column as a numpy object array of Python str."""
    out = np.empty(len(col), dtype=object)
    out[:] = _chunk(col).to_pylist()  # to_numpy() would import pandas
    return out


def _mask(result: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A boolean arrow array as numpy bools (nulls false), read from its bitmaps."""
    arr = _chunk(result)
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=bool)
    validity, data = arr.buffers()[:2]
    if data is None:
        return np.zeros(n, dtype=bool)
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
    out = bits[arr.offset : arr.offset + n].astype(bool)
    if arr.null_count and validity is not None:
        valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        out &= valid[arr.offset : arr.offset + n].astype(bool)
    return out


def _int32(result: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray | None]:
    """An int32 arrow array as numpy, with its validity mask (None when no nulls)."""
    arr = _chunk(result)
    n = len(arr)
    data = arr.buffers()[1]
    if data is None or n == 0:
        return np.zeros(n, dtype=np.int32), None
    values = np.frombuffer(data, dtype=np.int32, count=n, offset=arr.offset * 4)
    if not arr.null_count:
        return values, None
    validity = arr.buffers()[0]
    bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
    return values, bits[arr.offset : arr.offset + n].astype(bool)


def _empty_cells(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    lengths, _ = _int32(pc.utf8_length(_chunk(col)))
    return lengths == 0


def _aux_array(col: pa.ChunkedArray) -> np.ndarray:
    ok = pc.all(pc.match_substring_regex(col, _NUMBER_RE)).as_py()
    if ok and len(col):
        return to_float64(pc.cast(pc.utf8_trim_whitespace(col), pa.float64()))
    return to_object(col)


def _make_key(table: pa.Table, indices: Sequence[int]) -> pa.ChunkedArray:
    # Kept in the parser's chunks: comparing with the answers' ids needs no contiguous copy.
    cols = [table.column(i) for i in indices]
    if len(cols) == 1:
        return cols[0]
    joined = pc.binary_join_element_wise(*cols, KEY_SEP)
    return joined if isinstance(joined, pa.ChunkedArray) else pa.chunked_array([joined])


def show_id(key: str) -> str:
    """How an id (or composite id) is shown in messages."""
    return key.replace(KEY_SEP, " | ")


def load_answers(
    path: Path, grading: GradingSpec, metric: Metric, *, max_bytes: int | None = None
) -> Answers:
    """Load and check a task's private answers (our data: problems raise TaskDataError)."""
    path = Path(path).resolve()
    raw = open_regular_file(
        path, max_bytes=max_bytes or 64 * 1024**3, what="answers", error=_answers_error
    )
    ans = Answers(path=path, grading=grading, metric=metric, size=raw.size)
    ans.params, aux_cols = _split_params(metric, grading)
    if metric.kind == "structured" or grading.submission_format != SubmissionFormat.CSV:
        text = decode_text_file(raw, what="answers", error=_answers_error)
        if grading.submission_format == SubmissionFormat.JSON:
            ans.y_true = _parse_json(text, "answers", _answers_error)
            ans.n_rows = len(ans.y_true) if isinstance(ans.y_true, dict | list) else 1
        else:
            ans.y_true = split_lines(text)
            ans.n_rows = len(ans.y_true)
        return ans
    ans.expected_header = expected_header(grading)
    needed = [*grading.id_columns, *grading.target_columns, *aux_cols.values()]
    layout = sniff_csv(raw, needed, what="answers", error=_answers_error)
    pos: dict[str, int] = {}
    for i, name in enumerate(layout.header):
        pos.setdefault(name, i)
    missing = [c for c in needed if c not in pos]
    if missing:
        raise TaskDataError(
            f"answers file {path} lacks column(s) {missing}; it has {layout.header}"
        )
    numeric = metric.kind in NUMERIC_KINDS
    tcols = [pos[c] for c in grading.target_columns]
    table = read_csv_columns(
        raw, layout, float_columns=tcols if numeric else (), what="answers",
        error=_answers_error,
    )
    ans.n_rows = table.num_rows
    if grading.id_columns:
        ans.key = _make_key(table, [pos[c] for c in grading.id_columns])
    if numeric:
        for c in grading.target_columns:
            if table.column(pos[c]).type != pa.float64():
                raise TaskDataError(f"answers column {c!r} in {path} is not all numbers")
        y_true = fill_floats(table, tcols)
        if not all_within(y_true, -math.inf, math.inf):
            for j, c in enumerate(grading.target_columns):
                column = y_true if y_true.ndim == 1 else y_true[:, j]
                if not np.isfinite(column).all():
                    raise TaskDataError(f"answers column {c!r} in {path} holds NaN or inf")
        ans.y_true = y_true
    else:
        cols = [to_object(table.column(pos[c])) for c in grading.target_columns]
        ans.y_true = cols[0] if len(cols) == 1 else _stack(cols, numeric)
    for name, col_name in aux_cols.items():
        ans.aux[name] = _aux_array(table.column(pos[col_name]))
    if metric.kind == "label":
        policy = grading.value_policy.get("label_set", "auto")
        for c in grading.target_columns:
            ans.label_sets[c] = _label_set(policy, table.column(pos[c]))
    return ans


def _float_matrix(n: int, k: int) -> np.ndarray:
    # Column-major, so that each column is filled with one contiguous copy.
    return np.empty((n, k), dtype=np.float64, order="F")


def fill_floats(table: pa.Table, positions: Sequence[int]) -> np.ndarray:
    """float64 columns of ``table`` as one array, each value copied at most once.

    One position gives a vector (n,); several a column-major matrix (n, k): a read-only view
    when the columns were packed into one buffer (:func:`pack_float_columns`), else a copy.
    """
    if len(positions) == 1:
        return to_float64(table.column(positions[0]))
    view = float_matrix_view(table, positions)
    if view is not None:
        return view
    matrix = _float_matrix(table.num_rows, len(positions))
    for j, i in enumerate(positions):
        to_float64(table.column(i), out=matrix[:, j])
    return matrix


def all_within(values: np.ndarray, lo: float, hi: float) -> bool:
    """Whether every value is finite and in [lo, hi]: two reductions, no temporary arrays.

    NaN propagates through min and max, so one NaN anywhere makes this false.

    >>> all_within(np.array([0.0, 1.0]), 0.0, 1.0), all_within(np.array([0.5, np.nan]), 0, 1)
    (True, False)
    """
    if values.size == 0:
        return True
    low, high = float(values.min()), float(values.max())
    return math.isfinite(low) and math.isfinite(high) and lo <= low and high <= hi


def _stack(cols: list[np.ndarray], numeric: bool) -> np.ndarray:
    if numeric:
        return np.column_stack(cols)
    out = np.empty((len(cols[0]), len(cols)), dtype=object)
    for j, c in enumerate(cols):
        out[:, j] = c
    return out


def _label_set(policy: Any, col: pa.ChunkedArray) -> LabelSet | None:
    if isinstance(policy, list):
        labels = sorted(str(x) for x in policy)
        return LabelSet(labels, pa.array(labels, type=pa.string()))
    if policy == "any":
        return None
    if policy not in {"auto", "answers"}:
        raise TaskDataError(f"value_policy label_set {policy!r}: expected auto|answers|any|list")
    uniq = _chunk(pc.unique(col))
    if policy == "auto" and len(uniq) > AUTO_LABEL_SET_MAX:
        return None
    ordered = uniq.take(pc.sort_indices(uniq))
    return LabelSet(ordered.to_pylist(), ordered)


# --- helpers for messages ---------------------------------------------------------------------


def _rows_desc(positions: np.ndarray, keys: pa.Array | pa.ChunkedArray | None) -> str:
    """``rows [2, 7] (ids ['a', 'b'])``: 1-based data rows, with ids when there are ids."""
    total = int(positions.size)
    first = positions[:MAX_EXAMPLES]
    rows = ", ".join(str(int(p) + 1) for p in first)
    more = ", ..." if total > MAX_EXAMPLES else ""
    out = f"rows [{rows}{more}]"
    if keys is not None:
        ids = [show_id(keys[int(p)].as_py()) for p in first]
        out += f" (ids {ids})"
    return out


def _hint_key(s: str) -> str:
    k = unicodedata.normalize("NFKC", s).strip().casefold()
    try:
        f = float(k)
    except ValueError:
        return k
    return repr(f) if math.isfinite(f) else k


def _near_miss_hints(unknown: list[str], missing: list[str]) -> list[str]:
    by_key: dict[str, str] = {}
    for m in missing[:5000]:
        by_key.setdefault(_hint_key(m), m)
    pairs = []
    for u in unknown[:5000]:
        hit = by_key.get(_hint_key(u))
        if hit is not None and hit != u:
            pairs.append(f"{show_id(u)!r} vs {show_id(hit)!r}")
        if len(pairs) >= MAX_EXAMPLES:
            break
    if not pairs:
        return []
    return [
        "ids are compared as exact strings (no number, case, space or Unicode normalisation); "
        f"near misses, submitted vs expected: {pairs}"
    ]


# --- the validated result ---------------------------------------------------------------------


@dataclass
class ValidatedSubmission:
    """A submission that passed every check: predictions in the answers' row order."""

    y_pred: Any
    n_rows: int
    aligned_by: str
    """"order" (ids already in the answers' order), "join" (matched by id) or "position"."""


def validate_submission(
    path: Path, answers: Answers, *, limits: Limits | None = None
) -> ValidatedSubmission:
    """Validate a submission file against loaded answers; return aligned predictions.

    Raises:
        InvalidSubmissionError: listing every problem found (MissingSubmissionError when the
            file does not exist).
    """
    limits = limits or Limits()
    raw = open_regular_file(
        Path(path), max_bytes=limits.byte_cap(answers.size), what="submission"
    )
    if answers.fmt == SubmissionFormat.CSV and answers.kind != "structured":
        return _validate_csv(raw, answers, limits)
    return _validate_structured(raw, answers)


def _validate_csv(raw: RawFile, ans: Answers, limits: Limits) -> ValidatedSubmission:
    g = ans.grading
    expected = ans.expected_header
    layout = sniff_csv(raw, expected, max_columns=limits.max_columns)
    problems: list[str] = []
    header = layout.header

    # --- columns (checked on the header; the body is parsed next so its format errors win)
    first_pos: dict[str, int] = {}
    for i, name in enumerate(header):
        first_pos.setdefault(name, i)
    if not any(c in first_pos for c in expected) and len(header) == len(expected):
        loose = {_loose(c) for c in expected}
        if not any(_loose(h) in loose for h in header):
            raise InvalidSubmissionError([
                f"no header row: line 1 ({header[:MAX_EXAMPLES]}) looks like data; expected the "
                f"header {expected} on line 1"
            ])
    numeric = ans.kind in NUMERIC_KINDS
    target_pos = [first_pos[c] for c in g.target_columns if c in first_pos]
    table = read_csv_columns(raw, layout, float_columns=target_pos if numeric else ())
    del raw  # the table owns its buffers; let the mapping go

    dups = sorted({h for h in header if header.count(h) > 1}) if len(set(header)) != len(
        header) else []
    if dups:
        problems.append(f"duplicate column name(s) {dups}; expected each of {expected} once")
    missing_cols = [c for c in expected if c not in first_pos]
    extra_cols = [h for h in dict.fromkeys(header) if h not in expected]
    for c in missing_cols:
        near = [h for h in extra_cols if _loose(h) == _loose(c)]
        hint = (
            f" (got `{near[0]}`: names are case- and space-sensitive)" if near else ""
        )
        problems.append(f"column `{c}` missing; expected {expected}, got {header}{hint}")
    if extra_cols and g.value_policy.get("extra_columns", "reject") != "ignore":
        problems.append(
            f"unexpected column(s) {format_examples(extra_cols)}; expected exactly {expected} "
            "(extra columns are not allowed)"
        )

    # --- rows
    n_sub = table.num_rows
    if n_sub == 0 or not layout.has_data:
        problems.append(
            f"no data rows (header only); expected {ans.n_rows} rows (one per answer id)"
        )
        raise InvalidSubmissionError(problems)
    if n_sub != ans.n_rows:
        problems.append(f"{n_sub} rows; expected {ans.n_rows} (one per answer id)")

    # --- ids
    key: pa.ChunkedArray | None = None
    perm: np.ndarray | None = None
    aligned_by = "position"
    ids_ok = True
    if g.id_columns:
        if all(c in first_pos for c in g.id_columns):
            key = _make_key(table, [first_pos[c] for c in g.id_columns])
            ids_ok, perm, aligned_by = _check_ids(key, ans, problems)
        else:
            ids_ok = False
    elif n_sub != ans.n_rows:
        ids_ok = False

    # --- types and ranges, then missing values
    type_problems: list[str] = []
    missing_problems: list[str] = []
    y_pred: Any = _clean_numbers(table, [first_pos.get(c, -1) for c in g.target_columns], ans)
    if y_pred is None:
        y_pred = _check_columns(table, first_pos, key, ans, type_problems, missing_problems)
    if numeric and y_pred is not None and y_pred.ndim == 2:
        _check_row_sums(y_pred, ans, key, type_problems)
    problems.extend(type_problems)
    problems.extend(missing_problems)
    if problems or not ids_ok or y_pred is None:
        raise InvalidSubmissionError(problems or ["submission could not be aligned to answers"])
    if perm is not None:
        y_pred = y_pred[perm]
    return ValidatedSubmission(y_pred=y_pred, n_rows=n_sub, aligned_by=aligned_by)


def _clean_numbers(table: pa.Table, positions: list[int], ans: Answers) -> np.ndarray | None:
    """The common case in one pass: every numeric target column parsed as float64, every value
    finite (and a probability for kind ``probability``). None when anything needs a closer
    look; :func:`_check_columns` then names each problem."""
    if ans.kind not in NUMERIC_KINDS or not positions or min(positions) < 0:
        return None
    if any(table.column(i).type != pa.float64() for i in positions):
        return None
    values = fill_floats(table, positions)
    lo, hi = (0.0, 1.0) if ans.kind == "probability" else (-math.inf, math.inf)
    return values if all_within(values, lo, hi) else None


def _check_columns(
    table: pa.Table,
    first_pos: dict[str, int],
    key: pa.ChunkedArray | None,
    ans: Answers,
    type_problems: list[str],
    missing_problems: list[str],
) -> Any:
    """Check every target column on its own, collecting problems; the aligned-to-file values
    (1-D, or 2-D for several columns) when all are clean, else None."""
    g = ans.grading
    numeric = ans.kind in NUMERIC_KINDS
    cols: list[np.ndarray] = []
    matrix = _float_matrix(table.num_rows, len(g.target_columns)) if numeric else None
    for j, c in enumerate(g.target_columns):
        if c not in first_pos:
            continue
        col = table.column(first_pos[c])
        dest = matrix[:, j] if matrix is not None and len(g.target_columns) > 1 else None
        arr = _check_column(c, col, key, ans, type_problems, missing_problems, dest)
        if arr is not None:
            cols.append(arr)
    if len(cols) != len(g.target_columns) or not cols:
        return None
    if len(cols) == 1:
        return cols[0]
    return matrix if matrix is not None else _stack(cols, numeric)


def _loose(name: str) -> str:
    return "".join(name.split()).casefold()


# --- matching ids by hash ---------------------------------------------------------------------

#: Ids longer than this many bytes are matched by arrow's lookup alone.
HASH_MAX_ID_BYTES = 64
#: Rows per piece when ids of different lengths are padded (bounds the temporaries).
_PAD_ROWS = 1 << 20
_MIX = np.uint64(0x9E3779B97F4A7C15)


def _string_pieces(key: pa.ChunkedArray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(offsets as int64, data bytes) of each chunk of a string column without nulls."""
    out = []
    for chunk in key.chunks:
        n = len(chunk)
        if n == 0:
            continue
        _, offsets, data = chunk.buffers()
        offs = np.frombuffer(offsets, dtype=np.int32, count=n + 1, offset=chunk.offset * 4)
        raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
        out.append((offs.astype(np.int64), raw))
    return out


def padded_ids(key: pa.ChunkedArray, width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Ids as rows of a (n, width) uint8 matrix, zero-padded, and their byte lengths.

    ``width`` is rounded up to a multiple of 8 (so rows view as uint64 words). None when an
    id is longer than ``width`` bytes, the column has nulls or is not ``string``.

    >>> m, lengths = padded_ids(pa.chunked_array([["ab", "c"], ["defghijkl"]]), 9)
    >>> m.shape, lengths.tolist(), bytes(m[2, : lengths[2]])
    ((3, 16), [2, 1, 9], b'defghijkl')
    """
    if key.type != pa.string() or key.null_count:
        return None
    width = max(8, -(-width // 8) * 8)
    n = len(key)
    out = np.zeros((n, width), dtype=np.uint8)
    lengths = np.empty(n, dtype=np.int64)
    at = 0
    for offs, raw in _string_pieces(key):
        rows = len(offs) - 1
        lens = np.diff(offs)
        if rows and int(lens.max()) > width:
            return None
        lengths[at : at + rows] = lens
        first, size = int(offs[0]), int(offs[-1] - offs[0])
        if rows and size == int(lens[0]) * rows and (lens == lens[0]).all():
            # Every id of this chunk has the same length: one reshaped copy.
            width_here = int(lens[0])
            block = raw[first : first + size].reshape(rows, width_here)
            out[at : at + rows, :width_here] = block
        else:
            for lo in range(0, rows, _PAD_ROWS):
                hi = min(rows, lo + _PAD_ROWS)
                piece_lens = lens[lo:hi]
                row_of = np.repeat(np.arange(at + lo, at + hi), piece_lens)
                starts = np.repeat(offs[lo:hi], piece_lens)
                pos = np.arange(int(offs[lo]), int(offs[hi]), dtype=np.int64)
                out[row_of, pos - starts] = raw[pos]
        at += rows
    return out, lengths


def hash_rows(ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each padded id row (its words and its length), well mixed in the top
    bits, which pick the hash-table slot."""
    words = ids.view("<u8")
    h = lengths.astype(np.uint64) * _MIX
    for k in range(words.shape[1]):
        h ^= words[:, k]
        h *= _MIX
        h ^= h >> np.uint64(29)
    h ^= h >> np.uint64(32)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(29)
    return h


@dataclass
class IdIndex:
    """The answers' ids, hashed and sorted, for matching a submission's ids by sorting.

    Each row's hash keeps its high bits and carries the row number in its low bits, so one
    sort of plain integers orders the rows by hash. The submission's ids get the same
    treatment; when the two sorted hash sequences agree, position i pairs an answer row with
    a submission row. Rows whose truncated hashes tie are re-paired by their exact bytes, and
    the whole pairing is accepted only after every id is compared byte for byte, so a hash
    collision can only cost time, never a wrong match.
    """

    ids: np.ndarray
    """Ids as fixed-width byte records (numpy void), zero-padded."""
    lengths: np.ndarray
    packed: np.ndarray
    """Sorted ``(hash & high mask) | row``."""
    row_bits: int

    @classmethod
    def build(cls, key: pa.ChunkedArray) -> IdIndex | None:
        """Index the answers' ids; None when an id is longer than
        :data:`HASH_MAX_ID_BYTES` (or the column is not plain strings)."""
        n = len(key)
        longest = int(pc.max(pc.binary_length(key)).as_py() or 0) if n else 0
        if n == 0 or longest > HASH_MAX_ID_BYTES:
            return None
        padded = padded_ids(key, longest)
        if padded is None:
            return None
        ids, lengths = padded
        row_bits = max(1, (n - 1).bit_length())
        packed = np.sort(_pack(hash_rows(ids, lengths), row_bits))
        return cls(ids=_records(ids), lengths=lengths, packed=packed, row_bits=row_bits)

    def align(self, key: pa.ChunkedArray) -> np.ndarray | None:
        """The permutation taking submission rows to answer rows when the submitted ids are
        exactly the answers' ids, each once; None otherwise (the caller then finds out why,
        with an exact lookup)."""
        n = self.lengths.size
        if len(key) != n:
            return None
        padded = padded_ids(key, self.ids.dtype.itemsize)
        if padded is None:
            return None
        ids, lengths = padded
        records = _records(ids)
        packed = np.sort(_pack(hash_rows(ids, lengths), self.row_bits))
        low = np.uint64((1 << self.row_bits) - 1)
        high = ~low
        if not np.array_equal(packed & high, self.packed & high):
            return None
        ans_rows = (self.packed & low).astype(np.int64)
        sub_rows = (packed & low).astype(np.int64)
        perm = np.empty(n, dtype=np.int64)
        perm[ans_rows] = sub_rows
        same = ((self.packed[1:] ^ self.packed[:-1]) & high) == 0
        if same.any():
            tied = np.zeros(n, dtype=bool)
            tied[1:] |= same
            tied[:-1] |= same
            if not self._repair_ties(perm, ans_rows[tied], sub_rows[tied], records, lengths):
                return None
        if not np.array_equal(lengths[perm], self.lengths):
            return None
        if not np.array_equal(records[perm], self.ids):
            return None
        return perm

    def _repair_ties(
        self,
        perm: np.ndarray,
        ans_rows: np.ndarray,
        sub_rows: np.ndarray,
        records: np.ndarray,
        lengths: np.ndarray,
    ) -> bool:
        """Pair rows whose truncated hashes tie by their exact bytes; False when they cannot
        be paired one to one (duplicated or unknown ids)."""
        where: dict[tuple[bytes, int], int] = {}
        for r in ans_rows.tolist():
            where[(self.ids[r].tobytes(), int(self.lengths[r]))] = r
        if len(where) != ans_rows.size:
            return False
        for r in sub_rows.tolist():
            a = where.pop((records[r].tobytes(), int(lengths[r])), None)
            if a is None:
                return False
            perm[a] = r
        return True


def _pack(hashes: np.ndarray, row_bits: int) -> np.ndarray:
    low = np.uint64((1 << row_bits) - 1)
    return (hashes & ~low) | np.arange(hashes.size, dtype=np.uint64)


def _records(ids: np.ndarray) -> np.ndarray:
    """(n, w) uint8 rows as n void records of w bytes (gathered and compared as units)."""
    return ids.view(f"V{ids.shape[1]}").ravel()


def _match_ids(key: pa.ChunkedArray, ans_key: pa.Array) -> np.ndarray:
    """For each submitted id, the answers row holding it (-1 when unknown); one hash lookup.

    Arrow's ``index_in`` works on the parsed strings in place (no copy of either id column).
    """
    values, valid = _int32(pc.index_in(key, value_set=ans_key))
    out = values.astype(np.int64)
    if valid is not None:
        out[~valid] = -1
    return out


def _check_answer_duplicates(ans_key: pa.Array, missing: np.ndarray) -> None:
    """Raise when an answer row went unmatched because its id repeats an earlier answer id.

    A lookup finds the first row holding an id, so duplicated answer ids would otherwise be
    blamed on the submission as missing; checked only when rows are missing.
    """
    sample = missing[:100_000]
    first, _ = _int32(pc.index_in(ans_key.take(pa.array(sample)), value_set=ans_key))
    if (first.astype(np.int64) != sample).any():
        raise TaskDataError("the answers hold duplicated ids; they cannot be matched by id")


def _has_line_break(key: pa.ChunkedArray) -> np.ndarray:
    """Rows whose id holds CR or LF; a scan of the raw bytes first, a regex only on a hit."""
    if key.type == pa.string() and not any(_bytes_hold_line_break(c) for c in key.chunks):
        return np.zeros(len(key), dtype=bool)
    return _mask(pc.match_substring_regex(key, r"[\r\n]"))


def _bytes_hold_line_break(chunk: pa.Array) -> bool:
    data = chunk.buffers()[2]
    if data is None:
        return False
    # The whole data buffer, a superset of this chunk's slice: a false hit only costs the regex.
    # A copy to bytes and two memchr scans beat numpy comparisons (three temporaries) by 3x.
    raw = data.to_pybytes()
    return raw.find(b"\n") >= 0 or raw.find(b"\r") >= 0


def _check_ids(
    key: pa.ChunkedArray, ans: Answers, problems: list[str]
) -> tuple[bool, np.ndarray | None, str]:
    """Check ids; return (ok, permutation taking submission rows to answer order, how)."""
    if ans.key is None:
        raise TaskDataError("answers have no ids but the task declares id columns")
    n_sub = len(key)
    if n_sub == ans.n_rows and key.equals(ans.key):
        return True, None, "order"  # the usual case: the sample submission's order
    ans_key = ans.key_array()
    empty = np.flatnonzero(_empty_cells(key))
    if empty.size:
        problems.append(f"{empty.size} empty id cell(s): {_rows_desc(empty, None)}")
    broken = np.flatnonzero(_has_line_break(key))
    if broken.size:
        problems.append(
            f"{broken.size} id(s) hold a line break (a quoted newline): {_rows_desc(broken, key)}"
        )
    if n_sub == ans.n_rows and not empty.size and not broken.size:
        index = ans.key_index()
        perm = index.align(key) if index is not None else None
        if perm is not None:
            return True, perm, "join"
    # Something is off (or the ids are too long to hash here): the exact lookup names it.
    idx = _match_ids(key, ans_key)
    unknown = np.flatnonzero(idx < 0)
    counts = np.bincount(idx[idx >= 0], minlength=ans.n_rows)
    missing = np.flatnonzero(counts == 0)
    if missing.size:
        _check_answer_duplicates(ans_key, missing)
    dup_rows = np.flatnonzero(counts > 1)
    unknown_ids: list[str] = []
    missing_ids: list[str] = []
    if unknown.size:
        unknown_ids = [key[int(i)].as_py() for i in unknown[:5000]]
        all_wrong = " (no submitted id matches any answer id)" if unknown.size == n_sub else ""
        problems.append(
            f"unknown ids{all_wrong}: {unknown.size} submitted id(s) are not answer ids "
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
        missing_ids = [ans_key[int(i)].as_py() for i in missing[:5000]]
        problems.append(
            f"missing ids: {missing.size} answer id(s) have no row "
            f"{format_examples([show_id(m) for m in missing_ids], int(missing.size))}"
        )
    if unknown_ids and missing_ids:
        problems.extend(_near_miss_hints(unknown_ids, missing_ids))
    if unknown.size or dup_rows.size or missing.size or empty.size or broken.size:
        return False, None, "join"
    perm = np.empty(ans.n_rows, dtype=np.int64)
    perm[idx] = np.arange(n_sub, dtype=np.int64)
    return True, perm, "join"


def _check_column(
    name: str,
    col: pa.ChunkedArray,
    key: pa.ChunkedArray | None,
    ans: Answers,
    type_problems: list[str],
    missing_problems: list[str],
    dest: np.ndarray | None = None,
) -> np.ndarray | None:
    """Check one target column; return its values (written into ``dest`` when given), or None
    when it has problems."""
    kind = ans.kind
    policy = ans.grading.value_policy
    allow_empty = bool(policy.get("allow_empty", kind in EMPTY_OK_KINDS))
    if kind in NUMERIC_KINDS:
        ok = True
        if col.type != pa.float64():
            trimmed = pc.utf8_trim_whitespace(col)
            empty = _empty_cells(trimmed)
            nonfinite_txt = _mask(pc.match_substring_regex(col, _NONFINITE_RE))
            number_arrow = _chunk(pc.match_substring_regex(col, _NUMBER_RE))
            number = _mask(number_arrow)
            bad = ~(empty | nonfinite_txt | number)
            if bad.any():
                where = np.flatnonzero(bad)
                examples = [col[int(i)].as_py() for i in where[:MAX_EXAMPLES]]
                type_problems.append(
                    f"column `{name}`: {where.size} value(s) are not numbers; expected decimal "
                    f"numbers, got {examples} in {_rows_desc(where, key)}"
                )
            if empty.any():
                where = np.flatnonzero(empty)
                missing_problems.append(
                    f"column `{name}`: {where.size} empty cell(s) in {_rows_desc(where, key)}; "
                    "expected a number in every row"
                )
            # Placeholders stand in for cells that are not numbers: the submission is rejected.
            zeros = pc.replace_substring_regex(_chunk(trimmed), pattern=r"^.*$", replacement="0")
            texts = pc.if_else(number_arrow, _chunk(trimmed), zeros)
            values = to_float64(pc.cast(texts, pa.float64()), out=dest)
            values[nonfinite_txt] = np.nan
            ok = not (bad.any() or empty.any())
        else:
            values = to_float64(col, out=dest)
        nonfinite = ~np.isfinite(values)
        if nonfinite.any():
            where = np.flatnonzero(nonfinite)
            type_problems.append(
                f"column `{name}`: {where.size} value(s) are NaN or infinite in "
                f"{_rows_desc(where, key)}; expected finite numbers"
            )
            ok = False
        if kind == "probability":
            with np.errstate(invalid="ignore"):
                out = (values < 0.0) | (values > 1.0)
            if out.any():
                where = np.flatnonzero(out)
                got = [float(values[int(i)]) for i in where[:MAX_EXAMPLES]]
                type_problems.append(
                    f"column `{name}`: {where.size} probabilit{'y is' if where.size == 1 else 'ies are'}"
                    f" outside [0, 1]; got {got} in {_rows_desc(where, key)}"
                )
                ok = False
        return values if ok else None

    # string kinds
    if policy.get("strip_spaces", False):
        col = pc.utf8_trim_whitespace(col)
    ok = True
    empty_mask = _empty_cells(col)
    if empty_mask.any() and not allow_empty:
        where = np.flatnonzero(empty_mask)
        missing_problems.append(
            f"column `{name}`: {where.size} empty cell(s) in {_rows_desc(where, key)}; "
            "expected a value in every row"
        )
        ok = False
    if kind == "label":
        label_set = ans.label_sets.get(name)
        if label_set is not None:
            allowed = label_set.labels
            known = _mask(pc.is_in(col, value_set=label_set.values))
            bad = ~known & ~empty_mask
            if bad.any():
                where = np.flatnonzero(bad)
                got = sorted({col[int(i)].as_py() for i in where[:1000]})
                type_problems.append(
                    f"column `{name}`: {where.size} unknown label(s) "
                    f"{format_examples(got)} in {_rows_desc(where, key)}; allowed labels: "
                    f"{allowed[:50]}{' ...' if len(allowed) > 50 else ''}"
                )
                ok = False
    return to_object(col) if ok else None


def _check_row_sums(
    y: np.ndarray, ans: Answers, key: pa.ChunkedArray | None, problems: list[str]
) -> None:
    policy = ans.grading.value_policy.get("row_sum", "auto")
    if policy == "ignore":
        return
    if policy == "auto":
        if ans.kind != "probability" or ans.params.get("renormalize", True) is not False:
            return
    tol = float(ans.grading.value_policy.get("row_sum_tolerance", 1e-4))
    sums = y.sum(axis=1)
    off = np.abs(sums - 1.0) > tol
    if off.any():
        where = np.flatnonzero(off)
        got = [round(float(sums[int(i)]), 6) for i in where[:MAX_EXAMPLES]]
        problems.append(
            f"{where.size} row(s) of probabilities do not sum to 1 (tolerance {tol:g}); got sums "
            f"{got} in {_rows_desc(where, key)}"
        )


# --- structured submissions (JSON, plain-text lines) ------------------------------------------


def split_lines(text: str) -> list[str]:
    """Lines of a text file: CRLF normalised, trailing blank lines dropped."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (only finite numbers)")


def _parse_json(text: str, what: str, error: ErrorFactory) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise error([
            f"{what} is not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ]) from None
    except ValueError as exc:  # NaN / Infinity constants
        raise error([f"{what} is not valid JSON: {exc}"]) from None
    except RecursionError:
        raise error([f"{what} JSON is nested too deeply"]) from None


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "object"
    return "null"


class _ShapeCollector:
    """Collects structural differences by category, with counts and examples."""

    def __init__(self) -> None:
        self.cats: dict[str, tuple[int, list[str]]] = {}

    def add(self, cat: str, example: str) -> None:
        n, ex = self.cats.get(cat, (0, []))
        if len(ex) < MAX_EXAMPLES:
            ex.append(example)
        self.cats[cat] = (n + 1, ex)

    def messages(self) -> list[str]:
        return [
            f"{cat}: {n} {format_examples(ex, n)}" for cat, (n, ex) in self.cats.items()
        ]


def _mirror(ref: Any, sub: Any, where: str, out: _ShapeCollector, depth: int = 0) -> None:
    """Compare the shape (keys, lengths, leaf types) of ``sub`` with the answers' ``ref``."""
    if isinstance(ref, dict):
        if not isinstance(sub, dict):
            out.add("expected an object", f"{where or '<top>'} is a {_type_name(sub)}")
            return
        for k in ref:
            if k not in sub:
                out.add("missing keys", f"{where}/{k}" if where else k)
        for k in sub:
            if k not in ref:
                out.add("unexpected keys", f"{where}/{k}" if where else k)
        for k, v in ref.items():
            if k in sub:
                _mirror(v, sub[k], f"{where}/{k}" if where else k, out, depth + 1)
        return
    if isinstance(ref, list):
        if not isinstance(sub, list):
            out.add("expected a list", f"{where or '<top>'} is a {_type_name(sub)}")
            return
        if len(sub) != len(ref):
            out.add("wrong list lengths", f"{where}: {len(sub)} items, expected {len(ref)}")
            return
        for i, (r, s) in enumerate(zip(ref, sub, strict=True)):
            _mirror(r, s, f"{where}[{i}]", out, depth + 1)
        return
    rt, st = _type_name(ref), _type_name(sub)
    if rt == "number" and st == "number":
        return
    if rt != st:
        out.add(f"expected {rt} values", f"{where} is a {st}")


def _validate_structured(raw: RawFile, ans: Answers) -> ValidatedSubmission:
    text = decode_text_file(raw, what="submission")
    check = ans.metric.check
    if check is not None:
        # The metric knows its structure better than a generic comparison of shapes.
        parsed: Any = (
            _parse_json(text, "submission", submission_error)
            if ans.fmt == SubmissionFormat.JSON else split_lines(text)
        )
        problems = check(ans.y_true, parsed, **ans.params)
        if problems:
            raise InvalidSubmissionError(list(problems))
        n = len(parsed) if isinstance(parsed, dict | list) else 1
        return ValidatedSubmission(y_pred=parsed, n_rows=n, aligned_by="key")
    if ans.fmt == SubmissionFormat.JSON:
        sub = _parse_json(text, "submission", submission_error)
        ref = ans.y_true
        shape = ans.grading.value_policy.get("json_shape", "mirror")
        out = _ShapeCollector()
        if shape == "keys" and isinstance(ref, dict):
            if not isinstance(sub, dict):
                raise InvalidSubmissionError(
                    [f"top level is a {_type_name(sub)}; expected an object keyed by id"]
                )
            _mirror({k: None for k in ref}, {k: None for k in sub}, "", out)
        else:
            if type(ref) is not type(sub) and isinstance(ref, dict | list):
                raise InvalidSubmissionError([
                    f"top level is a {_type_name(sub)}; expected a {_type_name(ref)}"
                ])
            _mirror(ref, sub, "", out)
        if out.cats:
            raise InvalidSubmissionError(out.messages())
        n = len(sub) if isinstance(sub, dict | list) else 1
        return ValidatedSubmission(y_pred=sub, n_rows=n, aligned_by="key")
    lines = split_lines(text)
    if not lines:
        raise InvalidSubmissionError([f"no lines; expected {ans.n_rows} (one per query)"])
    if len(lines) != ans.n_rows:
        raise InvalidSubmissionError(
            [f"{len(lines)} lines; expected {ans.n_rows} (one per query, in the answers' order)"]
        )
    return ValidatedSubmission(y_pred=lines, n_rows=len(lines), aligned_by="position")


__all__ = [
    "Answers",
    "CsvLayout",
    "Limits",
    "ValidatedSubmission",
    "expected_header",
    "load_answers",
    "show_id",
    "split_lines",
    "validate_submission",
]
