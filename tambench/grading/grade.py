"""Grade one submission: validate -> score -> rank and medals -> report.

:func:`grade_submission` is what the CLI, the batch grader and the Lite-task tests call. It
walks the rooms in one direction: the answers and the submission are checked by
:mod:`tambench.validation`, the leaderboard side is :mod:`.board`, the score :mod:`.score`,
the report :mod:`.report`. :mod:`.resolve` turns ``--task TASK_DIR_OR_ID`` into the spec, the
answers file and the leaderboard.

A submission the author can fix never raises: it becomes ``valid_submission: false`` with every
problem in ``errors``. That includes a metric returning NaN, infinity or something that is not a
number: such a score is never ranked. A finite score outside the metric's declared value range
cannot come from a valid submission: it raises :class:`ScoreRangeError` (a grader error) and
is never ranked either. Anything else that goes wrong is our bug and propagates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tambench.core.leaderboard import Leaderboard
from tambench.core.metrics.base import get_metric
from tambench.core.rank import award_medal, rank_score
from tambench.errors import InvalidSubmissionError, MissingSubmissionError, TaskDataError
from tambench.grading.board import (
    leaderboard_order_fields,
    load_task_leaderboard,
    no_leaderboard_warning,
    unscored_medal_fields,
)
from tambench.grading.report import GradeReport
from tambench.grading.resolve import (
    ResolvedTask,
    adhoc_spec,
    check_submission_path,
    check_task_data,
    resolve_task,
)
from tambench.grading.score import (
    RANGE_ROUNDING,
    bounded,
    check_score_range,
    label_warnings,
    score_submission,
)
from tambench.schema.taskspec import GradingSpec, TaskSpec
from tambench.validation.reading.limits import Limits
from tambench.validation.validate import Answers, load_answers, validate_submission


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


def _grading(spec: TaskSpec) -> GradingSpec:
    if spec.grading is None:
        raise TaskDataError(f"task {spec.id} has no grading spec; it cannot be graded")
    return spec.grading


__all__ = [
    "RANGE_ROUNDING", "ResolvedTask", "adhoc_spec", "bounded", "check_score_range",
    "check_submission_path", "check_task_data", "grade_submission", "label_warnings",
    "leaderboard_order_fields", "load_task_leaderboard", "no_leaderboard_warning",
    "resolve_task", "score_submission", "small_pages", "unscored_medal_fields",
]
