"""A task's private answers, loaded and checked once, then reused for every submission.

Problems with the answers are our data's problems: they raise :class:`TaskDataError`, never
:class:`InvalidSubmissionError`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.core.layout import PRIVATE_DIR
from tambench.core.metrics.base import AUX_SUFFIX, Metric
from tambench.errors import TambenchError, TaskDataError
from tambench.grading.csvio import read_csv_columns, sniff_csv
from tambench.grading.files import RawFile, decode_text_file, open_regular_file
from tambench.grading.validation.arrays import (
    NUMBER_RE,
    all_within,
    chunk,
    fill_floats,
    stack_columns,
    to_float64,
    to_object,
)
from tambench.grading.validation.idindex import IdIndex
from tambench.grading.validation.messages import KEY_SEP
from tambench.grading.validation.textfiles import parse_json, split_lines
from tambench.schema.taskspec import GradingSpec, SubmissionFormat

NUMERIC_KINDS = frozenset({"value", "probability"})
AUTO_LABEL_SET_MAX = 256
#: Answers files are ours; this cap only guards against a wrong path (a disk image, say).
ANSWERS_MAX_BYTES = 64 * 1024**3
#: Files of the private folder whose identity is remembered (the answers file always is).
MAX_PRIVATE_FILES = 10_000


def answers_error(problems: list[str]) -> TambenchError:
    """The error a problem with an answers file becomes."""
    return TaskDataError("answers file is unusable: " + "; ".join(problems))


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
    identity: tuple[int, int] = (0, 0)
    """(device, inode) of the answers file."""
    private_dir: Path | None = None
    """The task's private folder (the answers' folder when it is named ``private``)."""
    private_files: frozenset[tuple[int, int]] = frozenset()
    """(device, inode) of the answers file and of every file directly in the private folder:
    a submission that is one of them (a hard link) is refused."""
    _key_array: pa.Array | None = field(default=None, repr=False)
    _key_index: IdIndex | None = field(default=None, repr=False)

    def key_array(self) -> pa.Array:
        """The ids as one contiguous array (a hash lookup's value set), built once on demand.

        A submission in the answers' order never needs it, so loading does not pay the copy.
        """
        if self.key is None:
            raise TaskDataError("answers have no ids but the task declares id columns")
        if self._key_array is None:
            self._key_array = chunk(self.key)
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


def split_params(metric: Metric, grading: GradingSpec) -> tuple[dict[str, Any], dict[str, str]]:
    """(keyword parameters without ``*_column`` ones, {aux keyword: answers column})."""
    resolved = metric.resolve_params(grading.metric_params)
    params = {k: v for k, v in resolved.items() if not k.endswith(AUX_SUFFIX)}
    return params, metric.aux_columns(grading.metric_params)


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


def load_answers(
    path: Path, grading: GradingSpec, metric: Metric, *, max_bytes: int | None = None
) -> Answers:
    """Load and check a task's private answers (our data: problems raise TaskDataError)."""
    path = Path(path).resolve()
    raw = open_regular_file(
        path, max_bytes=max_bytes or ANSWERS_MAX_BYTES, what="answers", error=answers_error
    )
    ans = Answers(path=path, grading=grading, metric=metric, size=raw.size,
                  identity=raw.identity)
    ans.private_dir, ans.private_files = _private_identity(path, raw.identity)
    ans.params, aux_cols = split_params(metric, grading)
    if metric.kind == "structured" or grading.submission_format != SubmissionFormat.CSV:
        _load_structured(raw, ans)
        return ans
    ans.expected_header = expected_header(grading)
    table, pos = _read_table(raw, ans, aux_cols)
    ans.n_rows = table.num_rows
    if grading.id_columns:
        ans.key = make_key(table, [pos[c] for c in grading.id_columns])
    ans.y_true = _truths(table, pos, ans)
    for name, col_name in aux_cols.items():
        ans.aux[name] = _aux_array(table.column(pos[col_name]))
    if metric.kind == "label":
        policy = grading.value_policy.get("label_set", "auto")
        for c in grading.target_columns:
            ans.label_sets[c] = _label_set(policy, table.column(pos[c]))
    return ans


def _private_identity(
    path: Path, answers_identity: tuple[int, int]
) -> tuple[Path | None, frozenset[tuple[int, int]]]:
    """The private folder (when the answers sit in one) and the identities of its files."""
    found = {answers_identity}
    folder = path.parent if path.parent.name == PRIVATE_DIR else None
    if folder is not None:
        with os.scandir(folder) as entries:
            for n, entry in enumerate(entries):
                if n >= MAX_PRIVATE_FILES:
                    break
                if entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    found.add((st.st_dev, st.st_ino))
    return folder, frozenset(found)


def _load_structured(raw: RawFile, ans: Answers) -> None:
    """Answers of a JSON or line-file task: the parsed document or the list of lines."""
    text = decode_text_file(raw, what="answers", error=answers_error)
    if ans.grading.submission_format == SubmissionFormat.JSON:
        ans.y_true = parse_json(text, "answers", answers_error)
        ans.n_rows = len(ans.y_true) if isinstance(ans.y_true, dict | list) else 1
    else:
        ans.y_true = split_lines(text)
        ans.n_rows = len(ans.y_true)


def _read_table(
    raw: RawFile, ans: Answers, aux_cols: dict[str, str]
) -> tuple[pa.Table, dict[str, int]]:
    """Parse the answers' CSV; return the table and each needed column's position."""
    g = ans.grading
    needed = [*g.id_columns, *g.target_columns, *aux_cols.values()]
    layout = sniff_csv(raw, needed, what="answers", error=answers_error)
    pos: dict[str, int] = {}
    for i, name in enumerate(layout.header):
        pos.setdefault(name, i)
    missing = [c for c in needed if c not in pos]
    if missing:
        raise TaskDataError(
            f"answers file {ans.path} lacks column(s) {missing}; it has {layout.header}"
        )
    numeric = ans.kind in NUMERIC_KINDS
    tcols = [pos[c] for c in g.target_columns]
    table = read_csv_columns(
        raw, layout, columns=[pos[c] for c in needed], float_columns=tcols if numeric else (),
        what="answers", error=answers_error,
    )
    return table, pos


def _truths(table: pa.Table, pos: dict[str, int], ans: Answers) -> np.ndarray:
    """The target columns: finite float64 for numeric kinds, object strings otherwise."""
    targets = ans.grading.target_columns
    if ans.kind not in NUMERIC_KINDS:
        cols = [to_object(table.column(pos[c])) for c in targets]
        return cols[0] if len(cols) == 1 else stack_columns(cols, False)
    for c in targets:
        if table.column(pos[c]).type != pa.float64():
            raise TaskDataError(f"answers column {c!r} in {ans.path} is not all numbers")
    y_true = fill_floats(table, [pos[c] for c in targets])
    if not all_within(y_true, -math.inf, math.inf):
        for j, c in enumerate(targets):
            column = y_true if y_true.ndim == 1 else y_true[:, j]
            if not np.isfinite(column).all():
                raise TaskDataError(f"answers column {c!r} in {ans.path} holds NaN or inf")
    return y_true


def _label_set(policy: Any, col: pa.ChunkedArray) -> LabelSet | None:
    if isinstance(policy, list):
        labels = sorted(str(x) for x in policy)
        return LabelSet(labels, pa.array(labels, type=pa.string()))
    if policy == "any":
        return None
    if policy not in {"auto", "answers"}:
        raise TaskDataError(f"value_policy label_set {policy!r}: expected auto|answers|any|list")
    uniq = chunk(pc.unique(col))
    if policy == "auto" and len(uniq) > AUTO_LABEL_SET_MAX:
        return None
    ordered = uniq.take(pc.sort_indices(uniq))
    return LabelSet(ordered.to_pylist(), ordered)
