"""Which task, which files: ``--task TASK_DIR_OR_ID`` resolved to the spec, the answers file and
the leaderboard (refusing ids and paths that would leave their root), a submission path checked,
and a spec for grading without a catalogue.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tambench.core.layout import (
    LEADERBOARD_FILE,
    data_dir_problem,
    safe_join,
    task_data_problem,
    task_data_root,
)
from tambench.errors import ConfigError, InputError, TaskDataError, TaskSpecError
from tambench.schema.io import load_taskspec
from tambench.schema.taskspec import GradingSpec, SubmissionFormat, TaskSpec


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
    # start-up: saves 3 ms (settings, for import tambench.api)
    from tambench.config import load_settings

    # start-up: saves 1 ms (the task locator, for grade --answers)
    from tambench.tasks.locate import locate_task

    settings = load_settings(catalogue=catalogue, data_dir=data_dir)
    task_file = locate_task(task, settings.catalogue)
    spec = load_taskspec(task_file)
    if spec.grading is None:
        raise TaskDataError(f"task {spec.id} has no grading spec; it cannot be graded")
    # start-up: saves 20 ms (the quarantine check, for grade --answers)
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
    # start-up: saves 3 ms (settings, for import tambench.api)
    from tambench.config import is_default

    problem = data_dir_problem(settings.data_dir, is_default(settings, "data_dir"))
    if problem is not None:
        raise ConfigError(problem)
    problem = task_data_problem(settings.data_dir, spec.platform, spec.slug)
    if problem is not None:
        raise TaskDataError(problem)


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


__all__ = ["ResolvedTask", "resolve_task", "check_task_data", "check_submission_path", "adhoc_spec"]
