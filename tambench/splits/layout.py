"""Names and places of a prepared task's files, what the spec says goes in them, and their modes.

Layout of one prepared task (names from :mod:`tambench.core.layout`)::

    <data dir>/<platform>/<slug>/           0755
      public/                               0755, files 0644: readable by agents of any user
        train.csv                           training rows (minus hidden "public" columns)
        test.csv                            test rows without targets or hidden columns
        sample_submission.csv               the exact header the grader expects, one row per id
        files_manifest.csv                  per-row files: id, split, path of every file
        train/..., test/...                 per-row files
      private/                              0700, files 0600: the answers never leave it
        <answers_file>                      ids, target columns, the metric's extra columns
                                            (a line-file task: answers.csv keyed, and the
                                            grading's answers file, one line per test row)
      split_report.json                     0644: settings applied, sizes, class balance
      checksums.json                        0644: sha256 of every file above
      quarantine.json                       0644, only after a failed leakage audit

Byte convention of public files: the tables prepare writes (train.csv, test.csv,
sample_submission.csv and the answers) are UTF-8 without a byte-order mark, with LF line ends;
each row of a raw table without quote characters keeps its exact bytes otherwise, and rows of
a quoted table are written back with quotes only where a field needs them. Raw files copied
into public/ unchanged (extra_public_files, per-row files) keep their own bytes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from tambench.core import layout as core_layout
from tambench.core.layout import DEFAULT_ANSWERS_FILE, safe_join, safe_relpath
from tambench.core.metrics import get_metric
from tambench.errors import SplitError
from tambench.schema.taskspec import (
    GradingSpec,
    ScoredLastPerGroup,
    ScoredWhere,
    SplitSpec,
    StratifiedSplit,
    SubmissionFormat,
    TaskSpec,
)

# The names of a prepared task's files (defined in core.layout; short names for this stage).
PUBLIC_DIR = core_layout.PUBLIC_DIR
PRIVATE_DIR = core_layout.PRIVATE_DIR
TRAIN_FILE = core_layout.PUBLIC_TRAIN_FILE
TEST_FILE = core_layout.PUBLIC_TEST_FILE
SAMPLE_FILE = core_layout.SAMPLE_SUBMISSION_FILE
MANIFEST_FILE = core_layout.FILES_MANIFEST_FILE
TRAIN_FILES_DIR = core_layout.TRAIN_FILES_DIR
TEST_FILES_DIR = core_layout.TEST_FILES_DIR
REPORT_FILE = core_layout.SPLIT_REPORT_FILE
CHECKSUMS_FILE = core_layout.CHECKSUMS_FILE
QUARANTINE_FILE = core_layout.QUARANTINE_FILE

#: The public sample submission of a task graded on a line file or a JSON document, by format
#: (the names grading looks for).
RENDERED_SAMPLE_FILES = {"txt": "sample_submission.txt", "json": "sample_submission.json"}

RESERVED_PUBLIC = frozenset(
    {TRAIN_FILE, TEST_FILE, SAMPLE_FILE, MANIFEST_FILE, TRAIN_FILES_DIR, TEST_FILES_DIR,
     core_layout.DESCRIPTION_FILE, core_layout.INSTRUCTIONS_FILE}
)

PUBLIC_DIR_MODE = 0o755
PUBLIC_FILE_MODE = 0o644
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


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
    """Answer-only columns the metric reads (:meth:`Metric.answers_columns`: its
    ``<name>_column`` and ``<name>_columns`` parameters)."""
    answer_columns: list[str]
    submission_header: list[str]
    answers_file: str
    metric_kind: str | None
    metric_id: str | None
    rendered_file: str = ""
    """A task graded on a line file or a JSON document (submission format txt or json): the
    grading's answers file, written from the split's keyed answers (``answers_file``) by
    :mod:`.answerfiles`. Empty for CSV tasks."""
    rendered_format: str = ""
    """"txt" or "json" for such a task, else empty."""

    @property
    def sample_file(self) -> str:
        """The public sample submission's name: sample_submission.txt (or .json) for a task
        graded on a line file (or a JSON document)."""
        return RENDERED_SAMPLE_FILES.get(self.rendered_format, SAMPLE_FILE)
    answer_names: dict[str, str] = field(default_factory=dict)
    """Submission column -> the answers' name of that target, where they differ (the
    grading's ``answers_target_columns``: jigsaw's ``prediction`` is ``toxicity``)."""
    train_id_column: str = ""
    """A task whose answers are regrouped per key (``split.answers_per``), in the plan of the
    prepared files: the row id of public/train.csv's events, which are not keys (empty:
    ``id_column``)."""
    submission_only: dict[str, str] = field(default_factory=dict)
    """Submission columns the answers do not hold -> the sample submission's value (the
    grading's ``submission_only_columns``: OSIC's Confidence)."""

    @property
    def stratify_columns(self) -> list[str]:
        """The columns whose (normalised) value set defines a stratum."""
        s = self.split
        if isinstance(s, StratifiedSplit) and s.stratify_column:
            return [s.stratify_column]
        return self.hidden_columns

    @property
    def labelled_columns(self) -> list[str]:
        """Targets whose every cell must hold a label: all of them, but for a mask metric an
        empty cell is an empty mask (tgs-salt's images without salt)."""
        return [] if self.metric_kind == "mask" else self.hidden_columns

    @property
    def dropped_columns(self) -> list[str]:
        """Columns removed from every public file (``hidden_columns: {c: "public"}``)."""
        return [c for c, where in self.split.hidden_columns.items() if where == "public"]

    @property
    def withheld_from_test(self) -> list[str]:
        """Every column public/test.csv leaves out: targets and every hidden column."""
        return list(dict.fromkeys([*self.hidden_columns, *self.split.hidden_columns]))


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def plan_split(spec: TaskSpec) -> SplitPlan:
    """Resolve ids, targets, answers columns and the submission header from a TaskSpec."""
    split = spec.split
    if split is None:
        raise SplitError(f"task {spec.id} has no split spec; add a 'split' section to its task.json")
    g = spec.grading
    if g is not None and g.submission_format != SubmissionFormat.CSV:
        return _plan_rendered(spec, split, g)
    if split.answers_per is not None:
        return _plan_regrouped(spec, split, g, prepared=False)
    id_column = split.id_column or (g.id_columns[0] if g and g.id_columns else "")
    if not id_column:
        raise SplitError(f"task {spec.id}: set split.id_column (or grading.id_columns)")
    id_columns = _unique(list(g.id_columns) if g and g.id_columns else [id_column])
    if id_column not in id_columns:
        id_columns = [id_column, *id_columns]
    # the targets under the answers' names (answers_target_columns)
    hidden = _unique([*split.target_columns, *(g.answers_targets() if g else [])])
    if not hidden:
        raise SplitError(
            f"task {spec.id}: no target columns (set split.target_columns or grading.target_columns)"
        )
    overlap = sorted(set(hidden) & set(id_columns))
    if overlap:
        raise SplitError(f"task {spec.id}: column(s) {overlap} are both ids and targets")
    clash = sorted(set(split.hidden_columns) & set([*hidden, *id_columns]))
    if clash:
        raise SplitError(f"task {spec.id}: split.hidden_columns {clash} are ids or targets of the "
                         "grading spec; targets are hidden from public/test.csv already")
    aux: list[str] = []
    kind: str | None = None
    metric_id: str | None = None
    if g is not None:
        metric = get_metric(g.metric)
        kind = metric.kind
        metric_id = metric.id
        aux = _unique([*metric.answers_columns(g.metric_params), *scored_columns(g)])
    header = list(g.submission_header) if g and g.submission_header else [*id_columns, *(
        g.target_columns if g and g.target_columns else hidden)]
    answers_file = g.answers_file if g else DEFAULT_ANSWERS_FILE
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
        answer_names=_answer_names(g),
        submission_only=dict(g.submission_only_columns) if g else {},
    )


def _plan_rendered(spec: TaskSpec, split: SplitSpec, g: GradingSpec) -> SplitPlan:
    """The plan of a task graded on a line file or a JSON document: the split's row id and
    its one target column give keyed answers (checked by the audit), rendered into the
    grading's file after the split (JSON: nested by ``split.answers_keys``)."""
    fmt = g.submission_format.value
    if not split.id_column or len(split.target_columns) != 1:
        raise SplitError(
            f"task {spec.id} is graded on a {fmt} file: set split.id_column (the rows' id in "
            "public/test.csv) and exactly one split.target_columns (the values graded)")
    keys = list(split.answers_keys)
    if (fmt == "json") != bool(keys) or (keys and len(keys) != 2):
        raise SplitError(f"task {spec.id}: split.answers_keys names the two columns that nest "
                         "JSON answers {k1: {k2: target}}, and only for json submissions")
    if split.answers_list and fmt != "json":
        raise SplitError(f"task {spec.id}: split.answers_list applies to json submissions only")
    safe_relpath(g.answers_file, "grading.answers_file")
    if "/" in g.answers_file or g.answers_file == DEFAULT_ANSWERS_FILE:
        raise SplitError(f"grading.answers_file {g.answers_file!r} of a {fmt} task must "
                         f"be a plain file name other than {DEFAULT_ANSWERS_FILE!r}")
    metric = get_metric(g.metric)
    idc, target = split.id_column, split.target_columns[0]
    if idc == target or {idc, target} & set(split.hidden_columns) or target in keys:
        raise SplitError(f"task {spec.id}: the id {idc!r} and the target {target!r} must be "
                         "two columns, neither of them hidden nor an answers key")
    return SplitPlan(split=split, id_column=idc, id_columns=[idc], hidden_columns=[target],
                     aux_columns=[], answer_columns=_unique([idc, target, *keys]),
                     submission_header=[idc, target], answers_file=DEFAULT_ANSWERS_FILE,
                     metric_kind=metric.kind, metric_id=metric.id,
                     rendered_file=g.answers_file, rendered_format=fmt)


def prepared_plan(spec: TaskSpec) -> SplitPlan:
    """The plan the prepared files follow (what the audit reads): :func:`plan_split`'s, but
    for answers regrouped per key, whose public test rows and answers are the keys'."""
    split = spec.split
    if split is not None and split.answers_per is not None:
        return _plan_regrouped(spec, split, spec.grading, prepared=True)
    return plan_split(spec)


def _plan_regrouped(spec: TaskSpec, split: SplitSpec, g: GradingSpec | None, *,
                    prepared: bool) -> SplitPlan:
    """A task whose answers are regrouped per key (:mod:`.answerfiles`): the split runs on
    the events with the recipe's row id and its one target (the item column), keeping the
    key in the answers; ``prepared``: the plan of the files once regrouped."""
    per = split.answers_per
    if per is None:
        raise SplitError(f"task {spec.id}: split.answers_per is not set")
    if g is None or not split.uses_rows_of_one_table:
        raise SplitError(f"task {spec.id}: split.answers_per needs a one-table strategy and "
                         "a grading spec")
    if (not split.id_column or split.target_columns != [per.column]
            or list(g.id_columns) != [per.key] or g.answers_targets() != [per.into]):
        raise SplitError(
            f"task {spec.id}: split.answers_per regroups the test rows (id split.id_column) "
            f"by {per.key!r}: split.target_columns must be [{per.column!r}], the grading's "
            f"id columns [{per.key!r}] and its targets [{per.into!r}]")
    safe_relpath(g.answers_file, "grading.answers_file")
    metric = get_metric(g.metric)
    if prepared:
        return SplitPlan(split=split, id_column=per.key, id_columns=[per.key],
                         hidden_columns=[per.into], aux_columns=[],
                         answer_columns=[per.key, per.into],
                         submission_header=list(g.submission_header or [per.key, per.into]),
                         answers_file=g.answers_file, metric_kind=metric.kind,
                         metric_id=metric.id, train_id_column=split.id_column)
    idc = split.id_column
    return SplitPlan(split=split, id_column=idc, id_columns=[idc], hidden_columns=[per.column],
                     aux_columns=[per.key], answer_columns=[idc, per.column, per.key],
                     submission_header=[idc, per.column], answers_file=g.answers_file,
                     metric_kind=None, metric_id=metric.id)


def _answer_names(g: GradingSpec | None) -> dict[str, str]:
    """Submission column -> the answers' name, for the targets the answers name otherwise."""
    if g is None or not g.answers_target_columns:
        return {}
    return dict(zip(g.target_columns, g.answers_target_columns, strict=True))


def scored_columns(grading: GradingSpec) -> list[str]:
    """Answers columns the grading's ``scored_rows`` rule reads (ventilator's u_out), so the
    answers keep them; of alternative spellings, the first."""
    rule = grading.scored_rows
    if isinstance(rule, ScoredWhere):
        return [rule.column if isinstance(rule.column, str) else rule.column[0]]
    if isinstance(rule, ScoredLastPerGroup):
        return [rule.group_column, rule.order_column]
    return []


def set_modes(root: Path) -> None:
    """Give a prepared task folder its modes: public for everyone to read, private for us.

    Hard-linked per-row files share their mode with the raw file; they are only linked when
    that mode is already 0644 (see :mod:`tambench.splits.files`), so no raw file changes here.
    """
    _chmod(root, PUBLIC_DIR_MODE)
    for entry in root.iterdir():
        if entry.name == PRIVATE_DIR and entry.is_dir() and not entry.is_symlink():
            _chmod_tree(entry, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE)
        elif entry.is_dir() and not entry.is_symlink():
            _chmod_tree(entry, PUBLIC_DIR_MODE, PUBLIC_FILE_MODE)
        elif entry.is_file() and not entry.is_symlink():
            _chmod(entry, PUBLIC_FILE_MODE)


def _chmod(path: Path, mode: int) -> None:
    if stat.S_IMODE(path.lstat().st_mode) != mode:
        os.chmod(path, mode)


def _chmod_tree(top: Path, dir_mode: int, file_mode: int) -> None:
    _chmod(top, dir_mode)
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames:
            _chmod(Path(dirpath) / name, dir_mode)
        for name in filenames:
            _chmod(Path(dirpath) / name, file_mode)
