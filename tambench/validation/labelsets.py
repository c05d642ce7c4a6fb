"""What a submission may say besides the answers' rows: the labels a target accepts and the
public id list, both from the task (its spec or a public file), never from the answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.core.layout import safe_join
from tambench.errors import TaskDataError, TaskSpecError
from tambench.schema.taskspec import (
    GradingSpec,
    PublicColumn,
)
from tambench.validation.answers import Answers, LabelSet
from tambench.validation.arrays import (
    chunk,
    int32_values,
)
from tambench.validation.idindex import IdSet
from tambench.validation.reading.csvbody import read_csv_columns
from tambench.validation.reading.csvio import sniff_csv
from tambench.validation.reading.files import open_regular_file

#: Public files read for labels or ids are task data; this cap guards against a wrong path.
PUBLIC_MAX_BYTES = 16 * 1024**3


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


def declared_label_set(grading: GradingSpec, public: Path | None) -> LabelSet | None:
    """The labels a ``label`` target accepts, from the task (its spec or a public column),
    never from the answers; None: any label."""
    policy = grading.value_policy.get("label_set")
    labels = task_labels(grading, public)
    if policy is not None:
        labels = _label_policy(policy, labels)
    return None if labels is None else LabelSet(labels, frozenset(labels))


def set_labels(ans: Answers, public: Path | None) -> None:
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


def set_universe(ans: Answers, public: Path | None) -> None:
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
