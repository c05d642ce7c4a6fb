"""Grade one run on a worker: :func:`grade_run_item` of one picklable :class:`RunItem`.

Answers and leaderboard are loaded once per task per worker process and kept in the
module-level cache :data:`_TASK_CACHE` (outside the run's time limit: loading our own data is
not the run's cost). The row comes back as a plain dict; the batch validates it as a RunRow.

Whatever the run's folder holds, the worker returns a row: a refused or missing submission, a
file that cannot be read (status ``unreadable``) and grading past the time limit (status
``timeout``) are all statuses. Broken task data raises (the batch records status ``error``).
"""

from __future__ import annotations

import os
import stat
from collections import Counter, OrderedDict
from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tambench.core.metrics.base import get_metric
from tambench.errors import GradingTimeout, TaskDataError
from tambench.grading.batch.deadline import time_limit
from tambench.grading.batch.discover import JudgeConfig, RunItem, TaskRef
from tambench.grading.batch.models import RunStatus
from tambench.grading.grade import grade_submission, load_task_leaderboard, unscored_medal_fields
from tambench.grading.sanitize import report_messages, report_text
from tambench.schema.io import load_taskspec
from tambench.schema.taskspec import GradingSpec, TaskSpec
from tambench.validation.reading.limits import Limits
from tambench.validation.validate import load_answers, with_extra_columns

#: Tasks whose answers a worker keeps loaded at once.
TASK_CACHE_SIZE = 8
#: Per-worker cache: task key -> (spec, answers, leaderboard). Module level so that it lives as
#: long as the worker process (or the calling process for serial/thread executors).
_TASK_CACHE: OrderedDict[tuple[Any, ...], tuple[Any, Any, Any]] = OrderedDict()
#: Task id -> how many times this process loaded the task's answers and leaderboard (cache
#: misses); lets tests check that a worker loads a task once, not once per submission.
TASK_LOADS: Counter[str] = Counter()
_MEDAL_FLAGS = ("any_medal", "gold_medal", "silver_medal", "bronze_medal", "above_median")


def _file_key(path: str | None) -> tuple[str | None, int, int]:
    if path is None:
        return (None, 0, 0)
    st = os.stat(path)
    return (path, st.st_mtime_ns, st.st_size)


#: Per-process caches of parsed task files and cleaned leaderboards, by file identity (path,
#: modification time, size) and, for a board, the metric's value range: discovery, grading
#: and the batch's warnings read each file once per process, whatever the number of runs.
_SPECS: OrderedDict[tuple[Any, ...], TaskSpec] = OrderedDict()
_BOARDS: OrderedDict[tuple[Any, ...], Any] = OrderedDict()


def _remember(cache: OrderedDict[tuple[Any, ...], Any], key: tuple[Any, ...],
              load: Callable[[], Any]) -> Any:
    hit = cache.get(key)
    if hit is not None:
        with suppress(KeyError):  # another thread of a thread pool may have dropped it
            cache.move_to_end(key)
        return hit
    value = cache[key] = load()
    while len(cache) > TASK_CACHE_SIZE:
        cache.popitem(last=False)
    return value


def load_spec_cached(task_file: str | Path) -> TaskSpec:
    """A task file's spec, parsed once per process (a changed file is parsed again)."""
    return _remember(_SPECS, _file_key(str(task_file)), lambda: load_taskspec(Path(task_file)))


def load_board_cached(path: str, metric: Any) -> Any:
    """A leaderboard read and cleaned for ``metric``'s value range, once per process."""
    key = (*_file_key(path), metric.lower_bound, metric.upper_bound)
    return _remember(_BOARDS, key, lambda: load_task_leaderboard(Path(path), metric))


def _spec_and_metric(ref: TaskRef, extra_columns: str | None = None
                     ) -> tuple[TaskSpec, GradingSpec, Any]:
    """A task's spec (cached; ``value_policy.extra_columns`` set when given), its grading and
    its registered metric; a task without grading is refused."""
    spec = with_extra_columns(load_spec_cached(ref.task_file), extra_columns)
    if spec.grading is None:
        raise TaskDataError(f"task {spec.id} has no grading spec")
    return spec, spec.grading, get_metric(spec.grading.metric)


def load_task_cached(ref: TaskRef, extra_columns: str | None = None) -> tuple[Any, Any, Any]:
    """(spec, answers, leaderboard) of a task, loaded once per worker process."""
    key = (_file_key(ref.task_file), ref.answers, _file_key(ref.leaderboard), extra_columns)

    def load() -> tuple[Any, Any, Any]:
        spec, grading, metric = _spec_and_metric(ref, extra_columns)
        if not os.path.isfile(ref.answers):
            raise TaskDataError(f"answers of task {spec.id} not found at {ref.answers}")
        answers = load_answers(Path(ref.answers), grading, metric)
        board = load_board_cached(ref.leaderboard, metric) if ref.leaderboard else None
        TASK_LOADS[ref.task_id] += 1
        return spec, answers, board

    result: tuple[Any, Any, Any] = _remember(_TASK_CACHE, key, load)
    return result


def identity(item: RunItem) -> dict[str, Any]:
    """The fields of a row that come from discovery alone."""
    return {
        "agent": item.agent,
        "task": item.task,
        "run": item.run,
        "task_id": item.task_ref.task_id if item.task_ref else None,
        "submission_path": item.submission_shown,
        "solution_path": item.solution_shown,
        "submission_exists": item.submission is not None,
        "created_at": item.settings.created_at,
    }


def task_fields(spec: TaskSpec, metric_id: str, higher_is_better: bool,
                has_leaderboard: bool) -> dict[str, Any]:
    """The task's fields of a row; medal flags are false (nothing earned yet) when the task has
    a leaderboard and stay null (unknown) when it has none."""
    out: dict[str, Any] = {
        "task_id": spec.id,
        "competition_id": spec.slug,
        "metric": metric_id,
        "is_lower_better": not higher_is_better,
        "modality": spec.modality.value if spec.modality else None,
        "tier": spec.difficulty.tier.value if spec.difficulty else None,
    }
    if has_leaderboard:
        out.update(dict.fromkeys(_MEDAL_FLAGS, False))
    return out


def grade_run_item(item: RunItem) -> dict[str, Any]:
    """Grade one run (worker side); returns the row as a plain dict, its ``created_at`` the
    moment it was graded (unless the batch fixed one time for every row).

    Raises whatever loading the task raises (recorded by the batch as status ``error``).
    """
    row = _grade_run(item)
    if not item.settings.fixed_time:
        row["created_at"] = datetime.now(UTC)
    return row


def _grade_run(item: RunItem) -> dict[str, Any]:
    row = identity(item)
    if item.status is not None:
        return _decided(item, row)
    if item.task_ref is None:  # discovery resolves every task or sets a status
        raise TaskDataError(f"run {item.agent}/{item.task}/{item.run} has no task")
    spec, answers, board = load_task_cached(item.task_ref, item.settings.extra_columns)
    row.update(task_fields(spec, answers.metric.id, answers.metric.higher_is_better,
                           board is not None))
    if board is not None:  # the thresholds belong to the leaderboard: every row has them
        row.update(_board_fields(board, answers.metric, spec.id))
    if item.submission is None:
        fmt = "/".join(item.task_ref.formats)
        missing = item.problem or (f"no submission.{fmt} in the run folder"
                                   if item.submission_shown is None
                                   else f"submission file {item.submission_shown} not found")
        row.update(status=RunStatus.MISSING_SUBMISSION, errors=[missing])
        return row
    row.update(_graded(item, spec, answers, board))
    judge = item.settings.judge
    if judge is not None and item.solution is not None and row["status"] != RunStatus.TIMEOUT:
        row.update(judge_run_solution(spec, Path(item.solution), judge))
    return row


def _board_fields(board: Any, metric: Any, task_id: str) -> dict[str, Any]:
    """A run's medal fields before it is scored: the board's thresholds, nothing earned."""
    return unscored_medal_fields(board, metric, task_id)


def _decided(item: RunItem, row: dict[str, Any]) -> dict[str, Any]:
    """The row of a run whose outcome discovery already knows."""
    status = item.status or RunStatus.ERROR
    problem = item.problem or status.value
    if item.task_ref is not None:  # the spec and board only: no answers are read for it
        ref = item.task_ref
        spec, _, metric = _spec_and_metric(ref)
        board = load_board_cached(ref.leaderboard, metric) if ref.leaderboard else None
        row.update(task_fields(spec, metric.id, metric.higher_is_better, board is not None))
        if board is not None:  # the run earned nothing; the thresholds are the board's
            row.update(_board_fields(board, metric, spec.id))
    elif status in (RunStatus.TASK_UNKNOWN, RunStatus.TASK_AMBIGUOUS):
        row["competition_id"] = item.task  # the id as given, never null
    if status == RunStatus.INVALID_SUBMISSION:
        return {**row, "status": status, "errors": [problem], "submission_exists": True}
    return {**row, "status": status, "error": problem}


def _graded(item: RunItem, spec: TaskSpec, answers: Any, board: Any) -> dict[str, Any]:
    settings = item.settings
    limits = Limits(max_bytes=settings.max_bytes, max_columns=settings.max_columns)
    path = Path(item.submission or "")
    try:
        with time_limit(settings.time_limit):
            report = grade_submission(path, spec, answers, board, now=settings.created_at,
                                      limits=limits)
    except GradingTimeout:
        return {"status": RunStatus.TIMEOUT,
                "error": f"grading took longer than the per-run limit of "
                         f"{settings.time_limit:g} s; the batch went on"}
    except OSError as exc:  # the agent's file vanished or cannot be read: this run only
        return {"status": RunStatus.UNREADABLE,
                "error": report_text(f"cannot read {item.submission_shown}: "
                                     f"{exc.strerror or exc}")}
    # The board's order is said once per task, in the batch report's warnings.
    data = report.model_dump(exclude={"report_version", "created_at", "submission_path",
                                       "leaderboard_order_inversions"})
    data["errors"] = report_messages(data["errors"])
    data["warnings"] = []  # batch-wide, once per task (see the batch report's warnings)
    if report.valid_submission:
        status = RunStatus.GRADED_VALID
    elif report.submission_exists:
        status = RunStatus.INVALID_SUBMISSION
    else:
        status = RunStatus.MISSING_SUBMISSION
    return {**data, "status": status}


def judge_run_solution(spec: TaskSpec, solution: Path, judge: JudgeConfig) -> dict[str, Any]:
    """Judge a run's final solution code against the task's constraints.

    Returns the row's constraint fields. A task without constraints, or a solution that cannot
    be read as UTF-8 text within the size cap, is not judged: the counts stay null and
    ``judge_note`` says why. Nothing is ever counted as passed without a checked verdict.
    """
    # start-up: saves 30 ms (the LLM judge)
    from tambench.judge import judge_solution, parse_instructions

    constraints = parse_instructions(spec.special_instructions)
    if not constraints.constraints:
        return {"judge_note": "the task states no constraints"}
    code, note = _read_solution(solution, judge.max_code_bytes)
    if code is None:
        return {"judge_note": note}
    result = judge_solution(spec, code, model=judge.model, base_url=judge.base_url,
                            cache_dir=judge.cache_dir)
    n_na = len(result.not_applicable)
    if result.total == 0:
        return {"judge_note": f"none of the task's {n_na} constraint(s) can be shown by code; "
                              "listed as not applicable, not judged"}
    if not result.judged:
        return {"judge_note": "constraints not judged (no model answered)"}
    errors = result.count("error")
    notes = [f"{errors} constraint(s) got no verdict from the endpoint and count as not passed"
             if errors else "", f"{n_na} constraint(s) not applicable" if n_na else ""]
    return {
        "constraints_passed": result.passed,
        "constraints_total": result.total,
        "constraint_pass_rate": result.pass_rate,
        "judge_note": "; ".join(n for n in notes if n) or None,
    }


def _read_solution(solution: Path, cap: int) -> tuple[str | None, str]:
    try:
        st = os.lstat(solution)
    except FileNotFoundError:
        return None, f"solution file {solution.name} disappeared before judging"
    if not stat.S_ISREG(st.st_mode):
        return None, f"solution file {solution.name} is not a regular file; not judged"
    if st.st_size > cap:
        return None, (f"solution file is {st.st_size} bytes, over the judge's cap of {cap}; "
                      "not judged")
    try:
        return solution.read_bytes().decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "solution file is not UTF-8 text; not judged"
    except OSError as exc:
        return None, f"solution file cannot be read ({exc.strerror}); not judged"
