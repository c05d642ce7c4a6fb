"""Answer-file conventions of real competitions, declared in the GradingSpec and applied once,
when the answers load, so that metrics only ever see the scored rows.

* ``unscored_marker``: answers rows marked in any target cell are not scored.
* ``scored_rows``: a flag column (``where``) or the last rows of each group
  (``last_per_group``) say which of the remaining rows are scored.
* ``normalize_truths``: ``row_sum`` turns rows of counts into distributions.
* ``empty_token``: a token that stands for an empty mask, set, ranking or text.
* ``extra_ids`` / ``ids_from``: a submission may list ids that are not scored.
* ``labels`` / ``labels_from``: the valid class labels, from the task, never the answers.

:func:`check_applicable` refuses a declaration that does not apply to the task's metric kind or
format, naming the field; the answers never decide what is accepted or what a message says.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.core.layout import PRIVATE_DIR, PUBLIC_DIR, safe_join
from tambench.core.metrics.base import Metric
from tambench.errors import TaskDataError, TaskSpecError
from tambench.schema.taskspec import (
    GradingSpec,
    PublicColumn,
    ScoredLastPerGroup,
    ScoredWhere,
    SubmissionFormat,
)
from tambench.validation.arrays import chunk, to_float64, to_object
from tambench.validation.reading.csvbody import read_csv_columns
from tambench.validation.reading.csvio import sniff_csv
from tambench.validation.reading.files import open_regular_file

#: Kinds whose cells may use an empty token (an empty mask, set, ranking or text).
EMPTY_TOKEN_KINDS = frozenset({"mask", "set", "ranking", "text"})
#: Kinds whose truths come from a closed domain (numbers, labels), where a marker is unambiguous.
MARKER_KINDS = frozenset({"value", "probability", "label"})
#: Public files read for labels or ids are task data; this cap guards against a wrong path.
PUBLIC_MAX_BYTES = 16 * 1024**3


def check_applicable(grading: GradingSpec, metric: Metric) -> None:
    """Refuse every declared convention that does not apply to the metric's kind or format.

    Raises:
        TaskSpecError: naming each field that does not apply and why.
    """
    kind, csv_task = metric.kind, grading.submission_format == SubmissionFormat.CSV
    problems = []

    def refuse(field: str, why: str) -> None:
        problems.append(f"{field}: {why}")

    if grading.submission_format == SubmissionFormat.JSON and kind != "structured":
        refuse("submission_format", f"json needs a metric of kind structured; metric "
                                    f"`{metric.id}` takes {kind} values (csv columns or txt "
                                    "lines)")
    if not csv_task or kind == "structured":
        for field in ("answers_target_columns", "labels", "labels_from", "label_equivalence",
                      "empty_token",
                      "unscored_marker", "scored_rows", "ids_from"):
            if getattr(grading, field):
                refuse(field, "applies to CSV submissions only")
        if grading.normalize_truths != "none" or grading.extra_ids != "reject":
            refuse("normalize_truths/extra_ids", "applies to CSV submissions only")
    if (grading.labels or grading.labels_from) and kind != "label":
        refuse("labels", f"applies to kind label only; metric `{metric.id}` takes {kind}")
    if grading.label_equivalence and not (
        grading.labels or grading.labels_from
        or isinstance(grading.value_policy.get("label_set"), list)
    ):
        refuse("label_equivalence", "needs the task's label set (labels or labels_from): the "
                                    "spelling a label is graded as comes from the task")
    if grading.label_equivalence and kind != "label":
        refuse("label_equivalence", f"applies to kind label only; metric `{metric.id}` takes "
                                    f"{kind}")
    if grading.empty_token is not None and kind not in EMPTY_TOKEN_KINDS:
        refuse("empty_token", f"applies to kinds {sorted(EMPTY_TOKEN_KINDS)} only; metric "
                              f"`{metric.id}` takes {kind}")
    if grading.unscored_marker is not None and kind not in MARKER_KINDS:
        refuse("unscored_marker", f"applies to kinds {sorted(MARKER_KINDS)} only (any {kind} "
                                  f"value is a legitimate truth); metric `{metric.id}`")
    if grading.normalize_truths == "row_sum" and (
        kind != "probability" or len(grading.target_columns) < 2
    ):
        refuse("normalize_truths", "row_sum applies to kind probability with several target "
                                   f"columns; metric `{metric.id}` takes {kind} with "
                                   f"{len(grading.target_columns)}")
    if grading.extra_ids == "ignore" and not grading.id_columns:
        refuse("extra_ids", "ignore needs id columns (rows are matched by id)")
    if grading.ids_from is not None and grading.extra_ids != "ignore":
        refuse("ids_from", 'applies with extra_ids "ignore" only')
    n_alias, n_target = len(grading.answers_target_columns), len(grading.target_columns)
    if n_alias and n_alias != n_target:
        refuse("answers_target_columns", f"names {n_alias} column(s) for {n_target} target "
                                         "column(s); expected one per target column")
    if problems:
        raise TaskSpecError("grading spec declares what does not apply: " + "; ".join(problems))


#: Kinds whose values may hold a quoted line break by default (RFC 4180; pandas writes one
#: whenever a value holds a line break): free text. Labels, numbers, sets, rankings and masks
#: keep the refusal unless the task declares ``value_policy.multiline_values``.
MULTILINE_KINDS = frozenset({"text"})


def values_may_span_lines(grading: GradingSpec, kind: str) -> bool:
    """Whether quoted values may hold line breaks: ``value_policy.multiline_values``, by
    default true for kind text only."""
    return bool(grading.value_policy.get("multiline_values", kind in MULTILINE_KINDS))


def answers_targets(grading: GradingSpec) -> list[str]:
    """The answers' names of the target columns."""
    return list(grading.answers_target_columns or grading.target_columns)


def public_dir_of(answers_path: Path) -> Path | None:
    """The task's public folder beside the answers' private folder, when there is one."""
    if answers_path.parent.name != PRIVATE_DIR:
        return None
    folder = answers_path.parent.parent / PUBLIC_DIR
    return folder if folder.is_dir() else None


def read_public_column(public_dir: Path | None, source: PublicColumn, what: str) -> pa.Array:
    """The values of a public column, in file order (task data: problems raise TaskDataError)."""
    (values,) = read_public_columns(public_dir, source.file, [source.column], what)
    return values


def read_public_columns(
    public_dir: Path | None, file: str, columns: list[str], what: str
) -> list[pa.Array]:
    """The values of columns of a public file, in file order, one array per column (task
    data: problems raise TaskDataError)."""
    if public_dir is None:
        raise TaskDataError(
            f"{what} reads public file {file!r}, but the task's public folder is not "
            "known (answers outside a private/ folder beside public/; ad hoc: give the file)"
        )
    path = safe_join(public_dir, file, what=what)

    def error(problems: list[str]) -> TaskDataError:
        return TaskDataError(f"{what}: public file {path} is unusable: " + "; ".join(problems))

    raw = open_regular_file(path, max_bytes=PUBLIC_MAX_BYTES, what="public file", error=error)
    layout = sniff_csv(raw, columns, what="public file", error=error)
    missing = [c for c in columns if c not in layout.header]
    if missing:
        raise TaskDataError(
            f"{what}: public file {path} has no column(s) {missing}; it has "
            f"{layout.header[:20]}"
        )
    positions = [layout.header.index(c) for c in columns]
    table = read_csv_columns(raw, layout, columns=positions, what="public file", error=error)
    return [chunk(table.column(pos)) for pos in positions]


def task_labels(grading: GradingSpec, public_dir: Path | None) -> list[str] | None:
    """The task's valid labels, sorted (None: any label), from the spec or a public column."""
    if grading.labels:
        return sorted(set(grading.labels))
    if grading.labels_from is not None:
        values = read_public_column(public_dir, grading.labels_from, "labels_from")
        labels = sorted(set(chunk(pc.unique(values)).to_pylist()))
        if not labels:
            raise TaskDataError("labels_from: the public column holds no labels")
        return labels
    return None


# --- which rows are scored ----------------------------------------------------------------------


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
