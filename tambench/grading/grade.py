"""Grade one submission: validate -> score -> rank and medals -> report.

:func:`grade_submission` is what the CLI, the batch grader and the Lite-task tests call.
:func:`resolve_task` turns ``--task TASK_DIR_OR_ID`` into the spec, the answers file and the
leaderboard, refusing ids and paths that would leave their root.

A submission the author can fix never raises: it becomes ``valid_submission: false`` with every
problem in ``errors``. That includes a metric returning NaN, infinity or something that is not a
number: such a score is never ranked. A finite score outside the metric's declared value range
cannot come from a valid submission: it raises :class:`ScoreRangeError` (a grader error) and
is never ranked either. Anything else that goes wrong is our bug and propagates.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from tambench.core.layout import (
    LEADERBOARD_FILE,
    data_dir_problem,
    safe_join,
    task_data_problem,
    task_data_root,
)
from tambench.core.leaderboard import Leaderboard, order_problem, read_leaderboard
from tambench.core.metrics.base import Metric, get_metric
from tambench.core.rank import award_medal, medal_thresholds, rank_score
from tambench.errors import (
    ConfigError,
    InputError,
    InvalidSubmissionError,
    MissingSubmissionError,
    ScoreRangeError,
    TaskDataError,
    TaskSpecError,
)
from tambench.grading.report import GradeReport
from tambench.schema.taskspec import GradingSpec, SubmissionFormat, TaskSpec
from tambench.validation.labels import answers_overlap_warning
from tambench.validation.reading.csvio import Limits
from tambench.validation.reading.files import bound_message
from tambench.validation.validate import Answers, load_answers, validate_submission

# --- resolving --task --------------------------------------------------------------------------


@dataclass(frozen=True)
class ResolvedTask:
    """Everything needed to grade one task."""

    spec: TaskSpec
    task_file: Path
    answers: Path
    leaderboard: Path | None


def resolve_task(
    task: str | Path,
    *,
    catalogue: Path | None = None,
    data_dir: Path | None = None,
    leaderboard: Path | None = None,
    allow_quarantined: bool = False,
    check_data: bool = True,
) -> ResolvedTask:
    """Resolve a task reference (file, folder, id or unique slug: :func:`locate_task`).

    The answers ``<data_dir>/<platform>/<slug>/private/<answers_file>`` (or in MLE-bench's
    ``<data_dir>/<slug>/prepared/private/``: :func:`task_data_root`); the leaderboard
    ``leaderboard`` if given, else ``leaderboard.csv`` beside the spec if present. A prepared
    task whose leakage audit failed raises :class:`QuarantinedTaskError` unless
    ``allow_quarantined`` (see :mod:`tambench.splits.quarantine`).
    """
    from tambench.config import load_settings
    from tambench.schema.io import load_taskspec
    from tambench.tasks.locate import locate_task

    settings = load_settings(catalogue=catalogue, data_dir=data_dir)
    task_file = locate_task(task, settings.catalogue)
    spec = load_taskspec(task_file)
    if spec.grading is None:
        raise TaskDataError(f"task {spec.id} has no grading spec; it cannot be graded")
    from tambench.splits.quarantine import check_gradable  # a failed leakage audit: refused

    if check_data:  # the answers come from the data folder: say plainly when it is not there
        check_task_data(settings, spec)
    root = task_data_root(settings.data_dir, spec.platform, spec.slug)
    check_gradable(root, allow=allow_quarantined)
    answers = safe_join(root, "private", spec.grading.answers_file)
    lb = leaderboard
    if lb is None and (task_file.parent / LEADERBOARD_FILE).is_file():
        lb = task_file.parent / LEADERBOARD_FILE
    return ResolvedTask(spec=spec, task_file=task_file, answers=answers, leaderboard=lb)


def check_task_data(settings: Any, spec: TaskSpec) -> None:
    """Refuse a data folder that does not hold the task's prepared data, saying where it looked
    (and that it was the default), what makes it, and the folder meant when one level off.

    Raises:
        ConfigError: the data folder does not exist.
        TaskDataError: the task is not prepared there.
    """
    from tambench.config import is_default

    problem = data_dir_problem(settings.data_dir, is_default(settings, "data_dir"))
    if problem is not None:
        raise ConfigError(problem)
    problem = task_data_problem(settings.data_dir, spec.platform, spec.slug)
    if problem is not None:
        raise TaskDataError(problem)


# --- grading ---------------------------------------------------------------------------------


def _hugepage_switch() -> Callable[[bool], bool] | None:
    """numpy's switch for ``madvise(MADV_HUGEPAGE)`` on large arrays (None if it has none)."""
    import importlib

    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2.x, 1.x
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        switch = getattr(module, "_set_madvise_hugepage", None)
        if callable(switch):
            return switch
    return None


@contextmanager
def small_pages() -> Iterator[None]:
    """Let numpy's large arrays use ordinary pages while grading; restore the setting after.

    numpy asks the kernel for transparent huge pages for every array of 4 MB or more. Where the
    kernel defragments on such requests (``defrag=madvise``, a common default) and the page
    cache fills memory, as it does right after large CSV files were read, the first touch of
    a fresh array stalls on compaction: grading a 10M-row file spent 0.2 s extra in one 80 MB
    subtraction. Grading's large arrays are short-lived, so small pages cost nothing.
    """
    switch = _hugepage_switch()
    if switch is None:
        yield
        return
    before = switch(False)
    try:
        yield
    finally:
        switch(before)


def load_task_leaderboard(lb: Path | Leaderboard | None, metric: Metric) -> Leaderboard | None:
    """Read a leaderboard and drop junk rows (default rules, the metric's value range); a board
    already cleaned for the same range is returned as it is (:meth:`Leaderboard.clean`)."""
    if lb is None:
        return None
    board = lb if isinstance(lb, Leaderboard) else read_leaderboard(lb)
    return board.clean(value_range=(metric.lower_bound, metric.upper_bound))


#: Relative slack at a metric's range bounds for floating-point rounding (a mean of equal
#: values, a logarithm computed by another library). A score this close beyond a bound is
#: that bound; anything further is a grader error.
RANGE_ROUNDING = 1e-9


def score_submission(answers: Answers, y_pred: Any) -> float:
    """Call the metric on aligned inputs; a non-finite or non-numeric result is invalid.

    Raises:
        InvalidSubmissionError: the metric returned NaN, infinity or a non-number, or the
            metric itself refused the (validated) input as invalid.
        ScoreRangeError: the metric returned a number outside its declared range.
    """
    metric = answers.metric
    # What Metric.__call__ does (parameters without the *_column names, plus the auxiliary
    # arrays), but keeping the raw return value so that a non-number is caught, not coerced.
    kwargs = {**answers.params, **answers.aux}
    value = metric.fn(answers.y_true, y_pred, **kwargs)
    if isinstance(value, bool) or not isinstance(value, numbers.Real | np.floating | np.integer):
        raise InvalidSubmissionError([
            f"metric `{metric.id}` returned {type(value).__name__}, not a number; the "
            "submission is not scored or ranked"
        ])
    out = float(value)
    if not math.isfinite(out):
        raise InvalidSubmissionError([
            f"metric `{metric.id}` returned {out!r} for this submission (e.g. constant "
            "predictions); a non-finite score is never ranked"
        ])
    return check_score_range(out, metric)


def check_score_range(score: float, metric: Metric) -> float:
    """The score itself when it lies in the metric's declared range (rounding at a bound is
    snapped to the bound); raise :class:`ScoreRangeError` otherwise.

    >>> check_score_range(1.0 + 1e-15, get_metric("accuracy"))
    1.0
    """
    lo, hi = metric.lower_bound, metric.upper_bound
    if lo <= score <= hi:
        return score
    bound = lo if score < lo else hi
    if abs(score - bound) <= RANGE_ROUNDING * max(1.0, abs(bound)):
        return bound
    raise ScoreRangeError(
        f"grader error: metric `{metric.id}` returned {score!r}, outside its declared range "
        f"[{lo:g}, {hi:g}]; the score is not ranked (a metric bug or a hole in validation, "
        "not a property of the submission)"
    )


def grade_submission(
    submission: Path,
    spec: TaskSpec,
    answers: Path | Answers,
    leaderboard: Path | Leaderboard | None = None,
    *,
    now: datetime | None = None,
    limits: Limits | None = None,
    answers_visible: bool = False,
) -> GradeReport:
    """Grade one submission file against a task's answers and (optionally) its leaderboard.

    Args:
        submission: the submission file.
        spec: the task; ``spec.grading`` says how to check and score.
        answers: the private answers file, or answers already loaded (batch mode).
        leaderboard: a leaderboard file or object; junk rows are dropped before ranking.
        now: the report's ``created_at`` (default: the current UTC time).
        limits: size and column caps.
        answers_visible: the user holds the answers (ad hoc grading): warnings may quote
            them (few predicted labels among the answers' values). Never for an agent's task.

    Returns:
        The report; an invalid or missing submission is a report with ``valid_submission``
        false, never an exception.
    """
    with small_pages():
        return _grade(submission, spec, answers, leaderboard, now=now, limits=limits,
                      answers_visible=answers_visible)


def _grade(
    submission: Path,
    spec: TaskSpec,
    answers: Path | Answers,
    leaderboard: Path | Leaderboard | None,
    *,
    now: datetime | None,
    limits: Limits | None,
    answers_visible: bool = False,
) -> GradeReport:
    grading = _grading(spec)
    metric = get_metric(grading.metric)
    ans = answers if isinstance(answers, Answers) else load_answers(Path(answers), grading, metric)
    board = load_task_leaderboard(leaderboard, metric)
    order = leaderboard_order_fields(board, metric)
    order_warnings: list[str] = order.pop("warnings", [])
    base: dict[str, Any] = {
        "competition_id": spec.slug,
        "task_id": spec.id,
        "metric": metric.id,
        "is_lower_better": not metric.higher_is_better,
        "created_at": now or datetime.now(UTC),
        "submission_path": str(submission),
        "modality": spec.modality.value if spec.modality else None,
        "tier": spec.difficulty.tier.value if spec.difficulty else None,
        **order,
    }
    try:
        validated = validate_submission(Path(submission), ans, limits=limits)
        score = score_submission(ans, validated.y_pred)
    except MissingSubmissionError as exc:
        return GradeReport(**base, **unscored_medal_fields(board, metric, spec.id,
                                                           order_warnings),
                           submission_exists=False, errors=bounded(exc.problems))
    except InvalidSubmissionError as exc:
        return GradeReport(**base, **unscored_medal_fields(board, metric, spec.id,
                                                           order_warnings),
                           submission_exists=True, errors=bounded(exc.problems))
    notes = label_warnings(spec.id, ans, validated.y_pred, answers_visible)
    if board is None:
        return GradeReport(**base, score=score, submission_exists=True, valid_submission=True,
                           warnings=[*order_warnings, *notes, no_leaderboard_warning(spec.id)])
    r = rank_score(score, board, metric.higher_is_better)
    medal = award_medal(score, board, metric.higher_is_better)
    return GradeReport(
        **base,
        score=score,
        submission_exists=True,
        valid_submission=True,
        warnings=[*order_warnings, *notes],
        rank=r.rank,
        n_teams=r.n,
        rank_pct=r.rank_pct,
        **medal.as_dict(),
    )


def label_warnings(task_id: str, ans: Answers, y_pred: Any, answers_visible: bool) -> list[str]:
    """Warnings of a scored label submission graded without a declared label set: ad hoc,
    when few predicted labels occur among the answers' values (quoting them); for a task,
    that its labels are not checked against a label set (never depending on the answers)."""
    if ans.kind != "label" or any(s is not None for s in ans.label_sets.values()):
        return []
    if answers_visible:
        found = answers_overlap_warning(y_pred, ans.y_true)
        return [found] if found else []
    return [f"task {task_id} declares no label set (GradingSpec.labels or labels_from): "
            "labels are compared as exact strings, so one spelt unlike the answers (1 for "
            "True, 3.0 for 3) scores as a wrong prediction"]


def bounded(problems: list[str]) -> list[str]:
    """Problems as a report keeps them: each cut to
    :data:`~tambench.validation.reading.files.MAX_MESSAGE_CHARS` characters, whatever built it (a metric's
    own structural check included)."""
    return [bound_message(p) for p in problems]


def check_submission_path(path: Path) -> None:
    """Refuse a submission path the user mistyped (it does not exist) or that is a folder.

    A path that exists but is not a regular file (a link, a FIFO) is left to validation, which
    refuses it as an invalid submission.

    Raises:
        InputError: the path does not exist or is a folder.
    """
    if path.is_symlink():
        return
    if not path.exists():
        raise InputError(f"submission file not found: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a folder; the submission must be a file")


def no_leaderboard_warning(task_id: str) -> str:
    """The one warning a task without a leaderboard gets: medals unknown, not absent."""
    return (f"task {task_id} has no leaderboard: rank, medals and above_median are unknown "
            "(null), not false")


def leaderboard_order_fields(board: Leaderboard | None, metric: Metric) -> dict[str, Any]:
    """The report's ``leaderboard_order_inversions`` and, when a board is sorted against the
    metric's declared direction, its warning (nothing without a board)."""
    if board is None:
        return {}
    hib = metric.higher_is_better  # the same board is checked once, not for every run
    inversions, message = board.memo(("order_problem", hib), lambda: order_problem(board, hib))
    return {"leaderboard_order_inversions": inversions, "warnings": [message] if message else []}


def unscored_medal_fields(board: Leaderboard | None, metric: Metric, task_id: str,
                          warnings: list[str] | None = None) -> dict[str, Any]:
    """Medal fields of a submission that is not scored: the thresholds and false against a
    leaderboard (it earns nothing; the thresholds are the board's, as MLE-bench reports them),
    null without one (unknown) with the warning; ``warnings`` (the board's own) come first."""
    warnings = list(warnings or [])
    if board is None:
        return {"warnings": [*warnings, no_leaderboard_warning(task_id)]}
    gold, silver, bronze, median = medal_thresholds(board, metric.higher_is_better)
    return {
        "gold_threshold": gold, "silver_threshold": silver, "bronze_threshold": bronze,
        "median_threshold": median, "warnings": warnings,
        **dict.fromkeys(
            ("any_medal", "gold_medal", "silver_medal", "bronze_medal", "above_median"), False),
    }


def _grading(spec: TaskSpec) -> GradingSpec:
    if spec.grading is None:
        raise TaskDataError(f"task {spec.id} has no grading spec; it cannot be graded")
    return spec.grading


def adhoc_spec(
    *,
    metric: str,
    id_columns: list[str] | None = None,
    target_columns: list[str] | None = None,
    metric_params: dict[str, Any] | None = None,
    submission_format: str = "csv",
    submission_header: list[str] | None = None,
    answers_file: str = "answers.csv",
    **more: Any,
) -> TaskSpec:
    """A TaskSpec for grading without a catalogue (``tambench grade --answers ... --metric``).

    ``more`` takes any other GradingSpec field (policies, labels, scored rows, ...). Id and
    target columns may be empty: JSON and line-file submissions have none.

    Raises:
        TaskSpecError: the fields do not make a valid GradingSpec.
    """
    try:
        grading = GradingSpec(
            metric=metric,
            metric_params=dict(metric_params or {}),
            id_columns=list(id_columns or []),
            target_columns=list(target_columns or []),
            submission_format=SubmissionFormat(submission_format),
            submission_header=list(submission_header or []),
            answers_file=answers_file,
            **more,
        )
    except (ValidationError, ValueError) as exc:
        raise TaskSpecError(f"ad hoc grading spec is invalid: {exc}") from None
    return TaskSpec(id="local/adhoc", platform="local", title="ad-hoc grading", grading=grading)
