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
from tambench.core.metrics.base import Metric
from tambench.errors import TambenchError, TaskDataError, TaskSpecError
from tambench.schema.taskspec import GradingSpec, SubmissionFormat
from tambench.validation.arrays import (
    NUMBER_RE,
    all_within,
    chunk,
    fill_floats,
    int32_values,
    stack_columns,
    to_float64,
    to_object,
)
from tambench.validation.idindex import IdIndex, IdSet
from tambench.validation.messages import KEY_SEP
from tambench.validation.policies import (
    answers_targets,
    apply_empty_token,
    check_applicable,
    marker_cells,
    normalise_rows,
    public_dir_of,
    read_public_column,
    scored_index,
    task_labels,
    values_may_span_lines,
)
from tambench.validation.reading.csvbody import read_csv_columns
from tambench.validation.reading.csvio import decode_text_file, sniff_csv
from tambench.validation.reading.files import RawFile, open_regular_file
from tambench.validation.textfiles import parse_json, split_lines

NUMERIC_KINDS = frozenset({"value", "probability"})
#: Answers files are ours; this cap only guards against a wrong path (a disk image, say).
ANSWERS_MAX_BYTES = 64 * 1024**3
#: Files of the private folder whose identity is remembered (the answers file always is).
MAX_PRIVATE_FILES = 10_000


def answers_error(problems: list[str]) -> TambenchError:
    """The error a problem with an answers file becomes."""
    return TaskDataError("answers file is unusable: " + "; ".join(problems))


@dataclass(frozen=True)
class LabelSet:
    """The labels a column accepts: sorted (for messages) and as a set (for lookups)."""

    labels: list[str]
    members: frozenset[str]


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
    """Targets of the scored rows in file order: float64 (n,) / (n, k) for numeric kinds,
    object str otherwise; for structured tasks the parsed document (dict/list) or list of
    lines."""
    aux: dict[str, np.ndarray] = field(default_factory=dict)
    """Auxiliary columns of the scored rows, keyed by keyword name (``groups`` for
    ``groups_column``)."""
    scored: np.ndarray | None = None
    """Positions of the scored rows among all answers rows, ascending (None: every row)."""
    universe: IdSet | None = None
    """The public id list a submission holds (``ids_from``), or None."""
    universe_rows: np.ndarray | None = None
    """For each answers row, its row in ``universe``."""
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
    noun: str = "answer id"
    """What an id of this set is called in messages."""
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


def split_params(
    metric: Metric, grading: GradingSpec
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """(keyword parameters without those naming answers columns, {aux keyword: answers
    columns}); a ``*_column`` parameter gives one column (a 1-D array), a ``*_columns`` one a
    list (a 2-D array)."""
    params = metric.call_params(grading.metric_params)
    aux: dict[str, list[str]] = {k: [v] for k, v in metric.aux_columns(grading.metric_params).items()}
    aux.update(metric.aux_column_lists(grading.metric_params))
    return params, aux


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


def load_answers(
    path: Path,
    grading: GradingSpec,
    metric: Metric,
    *,
    max_bytes: int | None = None,
    public_dir: Path | None = None,
) -> Answers:
    """Load and check a task's private answers (our data: problems raise TaskDataError).

    ``public_dir`` is where ``labels_from`` and ``ids_from`` files are read (default: the
    ``public/`` folder beside the answers' ``private/`` folder).

    Raises:
        TaskSpecError: the grading spec declares a convention that does not apply.
        TaskDataError: the answers (or a public file the spec names) are unusable.
    """
    check_applicable(grading, metric)
    path = Path(path).resolve()
    raw = open_regular_file(
        path, max_bytes=max_bytes or ANSWERS_MAX_BYTES, what="answers", error=answers_error
    )
    ans = Answers(path=path, grading=grading, metric=metric, size=raw.size,
                  identity=raw.identity)
    ans.private_dir, ans.private_files = private_identity(path, raw.identity)
    ans.params, aux_cols = split_params(metric, grading)
    if metric.kind == "structured" or grading.submission_format != SubmissionFormat.CSV:
        _load_structured(raw, ans)
        return ans
    public = public_dir if public_dir is not None else public_dir_of(path)
    ans.expected_header = expected_header(grading)
    table, pos = _read_table(raw, ans, aux_cols)
    ans.n_rows = table.num_rows
    if grading.id_columns:
        ans.key = make_key(table, [pos[c] for c in grading.id_columns])
    truths, marked = _truths(table, pos, ans)
    ans.scored = scored_index(table, pos, grading, marked)
    ans.y_true = _scored_truths(truths, ans)
    singles = set(metric.aux_columns(grading.metric_params))
    for name, col_names in aux_cols.items():
        aux = _aux_arrays(table, pos, col_names, name in singles)
        ans.aux[name] = aux if ans.scored is None else aux[ans.scored]
    if metric.kind == "label":
        _set_labels(ans, public)
    if grading.ids_from is not None:
        _set_universe(ans, public)
    return ans


def private_identity(
    path: Path, answers_identity: tuple[int, int]
) -> tuple[Path | None, frozenset[tuple[int, int]]]:
    """The private folder (when the answers sit in one) and the identities (device, inode) of
    its files, read from the folder's entries: no file is opened."""
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
    raw: RawFile, ans: Answers, aux_cols: dict[str, list[str]]
) -> tuple[pa.Table, dict[str, int]]:
    """Parse the answers' CSV; return the table and each needed column's position."""
    g = ans.grading
    targets = answers_targets(g)
    needed = list(dict.fromkeys(
        [*g.id_columns, *targets, *(c for cols in aux_cols.values() for c in cols)]))
    layout = sniff_csv(raw, needed, what="answers", error=answers_error)
    pos: dict[str, int] = {}
    for i, name in enumerate(layout.header):
        pos.setdefault(name, i)
    missing = [c for c in needed if c not in pos]
    if missing:
        raise TaskDataError(
            f"answers file {ans.path} lacks column(s) {missing}; it has {layout.header[:50]}"
        )
    rule_columns = [c for c in _scored_rule_columns(g) if c in pos]
    numeric = ans.kind in NUMERIC_KINDS
    table = read_csv_columns(
        raw, layout, columns=[pos[c] for c in [*needed, *rule_columns]],
        float_columns=[pos[c] for c in targets] if numeric else (),
        multiline=values_may_span_lines(g, ans.kind),
        what="answers", error=answers_error,
    )
    return table, pos


def _scored_rule_columns(grading: GradingSpec) -> list[str]:
    rule = grading.scored_rows
    if rule is None:
        return []
    if rule.rule == "where":
        return [rule.column] if isinstance(rule.column, str) else list(rule.column)
    return [rule.group_column, rule.order_column]


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


def declared_label_set(grading: GradingSpec, public: Path | None) -> LabelSet | None:
    """The labels a ``label`` target accepts, from the task (its spec or a public column),
    never from the answers; None: any label."""
    policy = grading.value_policy.get("label_set")
    labels = task_labels(grading, public)
    if policy is not None:
        labels = _label_policy(policy, labels)
    return None if labels is None else LabelSet(labels, frozenset(labels))


def _set_labels(ans: Answers, public: Path | None) -> None:
    """The label set of every target column, from the task; the scored answers must use it."""
    label_set = declared_label_set(ans.grading, public)
    for c in ans.grading.target_columns:
        ans.label_sets[c] = label_set
    if label_set is None:
        return
    labels = label_set.labels
    truths = np.asarray(ans.y_true, dtype=object).ravel()
    outside = sorted({str(v) for v in truths} - set(labels))
    if outside:
        raise TaskDataError(
            f"answers hold {len(outside)} label(s) that are not among the task's declared "
            f"labels, e.g. {outside[:5]}; fix GradingSpec.labels / labels_from"
        )


def _label_policy(policy: Any, labels: list[str] | None) -> list[str] | None:
    """The older ``value_policy.label_set``: a list or ``"any"``; never the answers."""
    if isinstance(policy, list):
        return sorted({str(x) for x in policy})
    if policy == "any":
        return None
    raise TaskSpecError(
        f"value_policy label_set {policy!r} is not supported: a label set read from the private "
        "answers would tell agents which classes the test split holds; declare "
        "GradingSpec.labels or labels_from (or label_set \"any\" or a list)"
    )


def _set_universe(ans: Answers, public: Path | None) -> None:
    """The public id list (``ids_from``): unique, and holding every answer id."""
    source = ans.grading.ids_from
    if source is None or ans.key is None:
        return
    values = read_public_column(public, source, "ids_from")
    universe = IdSet(pa.chunked_array([values]), "test id")
    if len(pc.unique(values)) != len(values):
        raise TaskDataError("ids_from: the public id list holds duplicated ids")
    rows, valid = int32_values(pc.index_in(ans.key_array(), value_set=values))
    if valid is not None and not valid.all():
        raise TaskDataError(
            f"ids_from: {int((~valid).sum())} answer id(s) are not in the public id list"
        )
    ans.universe, ans.universe_rows = universe, rows.astype(np.int64)
