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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tambench.core.layout import PRIVATE_DIR, PUBLIC_DIR
from tambench.core.metrics.base import Metric
from tambench.errors import TaskSpecError
from tambench.schema.taskspec import (
    GradingSpec,
    SubmissionFormat,
)

#: Kinds whose cells may use an empty token (an empty mask, set, ranking or text).
EMPTY_TOKEN_KINDS = frozenset({"mask", "set", "ranking", "text"})
#: Kinds whose truths come from a closed domain (numbers, labels), where a marker is unambiguous.
MARKER_KINDS = frozenset({"value", "probability", "label"})


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
    """The answers' names of the target columns the answers hold (a submission-only column,
    OSIC's Confidence, is not one)."""
    return grading.answers_targets()


def public_dir_of(answers_path: Path) -> Path | None:
    """The task's public folder beside the answers' private folder, when there is one."""
    if answers_path.parent.name != PRIVATE_DIR:
        return None
    folder = answers_path.parent.parent / PUBLIC_DIR
    return folder if folder.is_dir() else None


# --- which rows are scored ----------------------------------------------------------------------


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


def scored_rule_columns(grading: GradingSpec) -> list[str]:
    rule = grading.scored_rows
    if rule is None:
        return []
    if rule.rule == "where":
        return [rule.column] if isinstance(rule.column, str) else list(rule.column)
    return [rule.group_column, rule.order_column]


@dataclass(frozen=True)
class AnswersPlan:
    """What the spec alone says about reading a task's answers, decided before the file is
    opened."""

    params: dict[str, Any]
    """Metric keyword arguments other than the auxiliary columns."""
    aux_columns: dict[str, list[str]]
    """Answers columns of each auxiliary keyword (:func:`split_params`)."""
    expected_header: list[str]
    targets: list[str]
    """The answers' names of the target columns."""
    needed: list[str]
    """Id, target and auxiliary columns, each once, in that order."""
    rule_columns: list[str]
    """Columns a scored-rows rule reads (read when present)."""
    multiline: bool
    public: Path | None
    """The task's public folder (``labels_from`` and ``ids_from`` files)."""
    structured: bool
    """A JSON or line-file task: the answers are a document, not a table."""


def answers_plan(
    grading: GradingSpec, metric: Metric, path: Path, public_dir: Path | None = None
) -> AnswersPlan:
    """Check the spec's conventions (:func:`check_applicable`), then decide how its answers
    are read; ``public_dir`` defaults to the ``public/`` folder beside the answers'
    ``private/`` one.

    Raises:
        TaskSpecError: a declared convention does not apply.
    """
    check_applicable(grading, metric)
    params, aux_cols = split_params(metric, grading)
    targets = answers_targets(grading)
    needed = list(dict.fromkeys(
        [*grading.id_columns, *targets, *(c for cols in aux_cols.values() for c in cols)]))
    return AnswersPlan(
        params=params, aux_columns=aux_cols, expected_header=expected_header(grading),
        targets=targets, needed=needed, rule_columns=scored_rule_columns(grading),
        multiline=values_may_span_lines(grading, metric.kind),
        public=public_dir if public_dir is not None else public_dir_of(path),
        structured=metric.kind == "structured"
        or grading.submission_format != SubmissionFormat.CSV,
    )
