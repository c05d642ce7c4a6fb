"""Task folder names -> task files, through the one task locator (:mod:`tambench.tasks.locate`).

A folder is named by a slug (``spaceship-titanic``), by ``<platform>__<slug>``, or (MLE-bench)
by the bare competition id. Only ids and slugs are looked up, never paths: a folder name an
agent chose cannot reach a file of the current directory. An unknown name gets the locator's
"did you mean"; a slug on several platforms is ambiguous and lists them.
"""

from __future__ import annotations

from pathlib import Path

from tambench.core.layout import LEADERBOARD_FILE, safe_join, task_data_problem, task_data_root
from tambench.errors import (
    AmbiguousTaskError,
    TambenchError,
    TaskDataError,
    TaskNotFoundError,
    UnsafePathError,
)
from tambench.grading.batch.discover import Resolver, TaskProblem, TaskRef
from tambench.grading.batch.models import RunStatus
from tambench.grading.batch.worker import load_spec_cached
from tambench.grading.sanitize import report_text
from tambench.schema.taskspec import TaskSpec
from tambench.splits.quarantine import check_gradable
from tambench.tasks.locate import locate_task


def _leaderboard(task_file: Path, platform: str, slug: str, extra: Path | None) -> str | None:
    if extra is not None:
        for cand in (extra / platform / slug / LEADERBOARD_FILE, extra / slug / LEADERBOARD_FILE):
            if cand.is_file():
                return str(cand)
    beside = task_file.parent / LEADERBOARD_FILE
    return str(beside) if beside.is_file() else None


def _task_ref(spec: TaskSpec, task_file: Path, data_dir: Path,
              leaderboard_dir: Path | None, allow_quarantined: bool) -> TaskRef:
    if spec.grading is None:
        raise TaskDataError(f"task {spec.id} has no grading spec")
    problem = task_data_problem(data_dir, spec.platform, spec.slug)
    if problem is not None:
        raise TaskDataError(problem)
    root = task_data_root(data_dir, spec.platform, spec.slug)  # ours, or MLE-bench's prepared/
    check_gradable(root, allow=allow_quarantined)
    answers = safe_join(root, "private", spec.grading.answers_file)
    return TaskRef(
        task_id=spec.id, task_file=str(task_file), answers=str(answers),
        leaderboard=_leaderboard(task_file, spec.platform, spec.slug, leaderboard_dir),
        formats=(spec.grading.submission_format.value,),
    )


def make_resolver(catalogue: Path, data_dir: Path, leaderboard_dir: Path | None = None,
                  allow_quarantined: bool = False) -> Resolver:
    """A function mapping a task folder name to the task's files, or to why it cannot.

    Leaderboards come from ``leaderboard_dir`` (``<dir>/<platform>/<slug>/leaderboard.csv`` or
    ``<dir>/<slug>/leaderboard.csv``) when given and present, else from beside the task file.
    A prepared task whose leakage audit failed (quarantined) resolves to an error for each of
    its runs unless ``allow_quarantined``.
    """
    cache: dict[str, TaskRef | TaskProblem] = {}

    def lookup(name: str) -> TaskRef | TaskProblem:
        ref = name.replace("__", "/", 1) if "__" in name else name
        try:
            task_file = locate_task(ref, catalogue, ids_only=True)
        except AmbiguousTaskError as exc:
            return TaskProblem(RunStatus.TASK_AMBIGUOUS, report_text(
                f"{exc}; name the task folder <platform>__<slug>"))
        except (TaskNotFoundError, UnsafePathError) as exc:
            return TaskProblem(RunStatus.TASK_UNKNOWN, report_text(exc))
        try:
            return _task_ref(load_spec_cached(task_file), task_file, data_dir, leaderboard_dir,
                             allow_quarantined)
        except TambenchError as exc:  # broken task data: every run of the task says why
            return TaskProblem(RunStatus.ERROR, report_text(f"{type(exc).__name__}: {exc}"))

    def resolve(name: str) -> TaskRef | TaskProblem:
        if name not in cache:
            cache[name] = lookup(name)
        return cache[name]

    return resolve
