"""Names and places of a prepared task's files, and what the spec says goes in them.

Layout of one prepared task::

    <data dir>/<platform>/<slug>/
      public/train.csv              training rows, every column (minus split.drop_columns)
      public/test.csv               test rows without the target columns
      public/sample_submission.csv  the exact header the grader expects, one row per test id
      public/files_manifest.csv     files strategy: id, split, path of every copied file
      public/train/..., test/...    files strategy: the per-row files
      private/<answers_file>        ids, target columns and the metric's auxiliary columns
      split_report.json             sizes, class balance, groups, time ranges
      checksums.json                sha256 of every file above
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tambench.core.layout import safe_join, safe_relpath
from tambench.errors import SplitError
from tambench.schema.taskspec import SplitSpec, SubmissionFormat, TaskSpec

PUBLIC_DIR = "public"
PRIVATE_DIR = "private"
TRAIN_FILE = "train.csv"
TEST_FILE = "test.csv"
SAMPLE_FILE = "sample_submission.csv"
MANIFEST_FILE = "files_manifest.csv"
REPORT_FILE = "split_report.json"
TRAIN_FILES_DIR = "train"
TEST_FILES_DIR = "test"
RESERVED_PUBLIC = frozenset(
    {TRAIN_FILE, TEST_FILE, SAMPLE_FILE, MANIFEST_FILE, TRAIN_FILES_DIR, TEST_FILES_DIR}
)


def task_dir(spec: TaskSpec, data_dir: Path) -> Path:
    """``<data_dir>/<platform>/<slug>`` (the id was validated against traversal on load)."""
    return Path(data_dir) / spec.platform / spec.slug


def resolve_inside(root: Path, rel: str, what: str) -> Path:
    """``root / rel``, refusing paths (symlinks included) that resolve outside ``root``."""
    return safe_join(root, rel, what=what)


@dataclass(frozen=True)
class SplitPlan:
    """The columns and files a task's split produces, resolved from its spec once."""

    split: SplitSpec
    id_column: str
    id_columns: list[str]
    hidden_columns: list[str]
    """Target columns: removed from public test, kept in the answers."""
    aux_columns: list[str]
    """Answer-only columns a metric reads through ``<name>_column`` parameters."""
    answer_columns: list[str]
    submission_header: list[str]
    answers_file: str
    metric_kind: str | None
    metric_id: str | None

    @property
    def stratify_columns(self) -> list[str]:
        """The columns whose (normalised) value set defines a stratum."""
        return [self.split.stratify_column] if self.split.stratify_column else self.hidden_columns


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def plan_split(spec: TaskSpec) -> SplitPlan:
    """Resolve ids, targets, answers columns and the submission header from a TaskSpec."""
    split = spec.split
    if split is None:
        raise SplitError(f"task {spec.id} has no split spec; add a 'split' section to its task.json")
    g = spec.grading
    if g is not None and g.submission_format != SubmissionFormat.CSV:
        raise SplitError(
            f"task {spec.id}: prepare writes CSV answers, but the grading spec declares "
            f"{g.submission_format.value} submissions"
        )
    id_column = split.id_column or (g.id_columns[0] if g and g.id_columns else "")
    if not id_column:
        raise SplitError(f"task {spec.id}: set split.id_column (or grading.id_columns)")
    id_columns = _unique(list(g.id_columns) if g and g.id_columns else [id_column])
    if id_column not in id_columns:
        id_columns = [id_column, *id_columns]
    hidden = _unique([*split.target_columns, *(g.target_columns if g else [])])
    if not hidden:
        raise SplitError(
            f"task {spec.id}: no target columns (set split.target_columns or grading.target_columns)"
        )
    overlap = sorted(set(hidden) & set(id_columns))
    if overlap:
        raise SplitError(f"task {spec.id}: column(s) {overlap} are both ids and targets")
    aux: list[str] = []
    kind: str | None = None
    metric_id: str | None = None
    if g is not None:
        from tambench.core.metrics import get_metric

        metric = get_metric(g.metric)
        kind = metric.kind
        metric_id = metric.id
        params = metric.resolve_params(g.metric_params)
        aux = _unique([str(v) for k, v in sorted(params.items())
                       if k.endswith("_column") and isinstance(v, str) and v])
    header = list(g.submission_header) if g and g.submission_header else [*id_columns, *(
        g.target_columns if g and g.target_columns else hidden)]
    answers_file = g.answers_file if g else "answers.csv"
    safe_relpath(answers_file, "grading.answers_file")
    if "/" in answers_file:
        raise SplitError(f"grading.answers_file {answers_file!r} must be a plain file name")
    return SplitPlan(
        split=split,
        id_column=id_column,
        id_columns=id_columns,
        hidden_columns=hidden,
        aux_columns=[a for a in aux if a not in hidden and a not in id_columns],
        answer_columns=_unique([*id_columns, *hidden, *aux]),
        submission_header=header,
        answers_file=answers_file,
        metric_kind=kind,
        metric_id=metric_id,
    )


GradeFn = Callable[..., Any]


def load_grader() -> GradeFn | None:
    """``tambench.grading.grade.grade_submission`` when that module exists, else None."""
    try:
        mod = importlib.import_module("tambench.grading.grade")
    except ModuleNotFoundError as exc:
        if exc.name in ("tambench.grading.grade",):
            return None
        raise
    fn = getattr(mod, "grade_submission", None)
    return fn if callable(fn) else None
