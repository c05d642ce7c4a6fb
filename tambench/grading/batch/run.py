"""``grade_runs``: discover -> grade on an executor -> rows -> aggregates -> one BatchReport."""

from __future__ import annotations

from concurrent.futures import Executor
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import Any

from tambench.core.layout import data_dir_problem
from tambench.core.metrics.base import get_metric
from tambench.core.progress import Progress
from tambench.errors import ConfigError, InputError, TambenchError
from tambench.grading.batch.deadline import DEFAULT_TIME_LIMIT
from tambench.grading.batch.discover import JudgeConfig, RunItem, RunSettings, discover_runs
from tambench.grading.batch.models import Aggregation, BatchReport, RunRow, RunStatus
from tambench.grading.batch.records import difference_warnings, read_run_records
from tambench.grading.batch.resolve import make_resolver
from tambench.grading.batch.summary import summarise
from tambench.grading.batch.worker import (
    grade_run_item,
    identity,
    load_board_cached,
    load_spec_cached,
)
from tambench.grading.grade import leaderboard_order_fields, no_leaderboard_warning
from tambench.grading.sanitize import report_text
from tambench.validation.reading.limits import Limits
from tambench.validation.validate import EXTRA_COLUMNS_CHOICES


def _check_folders(source: Path, catalogue: Path, data_dir: Path, data_defaulted: bool) -> None:
    if not source.exists():
        raise InputError(f"runs folder or JSONL file {source} does not exist")
    if not source.is_dir() and source.suffix != ".jsonl":
        raise InputError(f"{source} is neither a runs folder nor a .jsonl file of submissions")
    if not catalogue.is_dir():
        raise ConfigError(f"task catalogue {catalogue} is not a folder; give --catalogue")
    problem = data_dir_problem(data_dir, data_defaulted)
    if problem is not None:
        raise ConfigError(problem)


def _opt_path(path: str | PathLike[str] | None) -> Path | None:
    return None if path is None else Path(path)


def rows_from_results(items: list[RunItem], results: list[Any]) -> list[RunRow]:
    """One row per item: the worker's row, or an ``error`` row when grading raised."""
    rows = []
    for item, res in zip(items, results, strict=True):
        if res.ok and res.value is not None:
            rows.append(RunRow.model_validate(res.value))
            continue
        row = identity(item)
        if item.task_ref is not None and item.task_ref.leaderboard is not None:
            row.update(dict.fromkeys(("any_medal", "gold_medal", "silver_medal", "bronze_medal",
                                      "above_median"), False))
        rows.append(RunRow(**row, status=RunStatus.ERROR, error=report_text(res.error)))
    rows.sort(key=lambda r: (r.agent, r.task, r.run))
    return rows


def leaderboard_warnings(items: list[RunItem]) -> list[str]:
    """One warning per graded task without a leaderboard, and one per task whose leaderboard
    is sorted against its metric's declared direction."""
    missing = sorted({it.task_ref.task_id for it in items
                      if it.task_ref is not None and it.task_ref.leaderboard is None})
    boards = {it.task_ref.task_id: it.task_ref for it in items
              if it.task_ref is not None and it.task_ref.leaderboard is not None}
    order = [w for task_id in sorted(boards) for w in _order_warnings(boards[task_id])]
    return [no_leaderboard_warning(t) for t in missing] + order


def batch_warnings(items: list[RunItem], runs: Path) -> list[str]:
    """The runs' own warnings (a JSONL path read two ways), the leaderboards' warnings, then one
    each when the runs' records (run.json, written by ``tambench run``) show different hardware
    or limits."""
    own = [i.warning for i in items if i.warning]
    return own + leaderboard_warnings(items) + difference_warnings(read_run_records(runs))


def _order_warnings(ref: Any) -> list[str]:
    """The order warning of one task's leaderboard (none when it cannot be read: its runs say
    why). Spec and board come from the process's cache (graded in this process: no reading)."""
    try:
        spec = load_spec_cached(ref.task_file)
        if spec.grading is None:
            return []
        metric = get_metric(spec.grading.metric)
        board = load_board_cached(ref.leaderboard, metric)
    except (TambenchError, OSError):
        return []
    return [f"task {spec.id}: {w}" for w in leaderboard_order_fields(board, metric)["warnings"]]


def _task_order(item: RunItem) -> tuple[str, str, str]:
    return (item.task_ref.task_id if item.task_ref else "", item.agent, item.run)


def _run(items: list[RunItem], pool: Executor | None, retries: int, progress: bool) -> list[Any]:
    # start-up: saves 16 ms (executors, for import tambench.api)
    from tambench.executors import SerialExecutor, run_items

    pool = SerialExecutor() if pool is None else pool

    def kept() -> str:
        return "nothing was written: the reports are written once every run is graded"

    with Progress("runs graded", total=len(items), kept=kept, quiet=not progress) as bar:
        return run_items(grade_run_item, items, pool, retries=retries,
                         no_retry=(TambenchError,), on_result=lambda _: bar.advance())


def _run_settings(limits: Limits, now: datetime | None, time_limit: float | None,
                  judge: JudgeConfig | None, extra_columns: str | None) -> RunSettings:
    if extra_columns is not None and extra_columns not in EXTRA_COLUMNS_CHOICES:
        raise InputError(f"extra_columns must be one of {', '.join(EXTRA_COLUMNS_CHOICES)}, "
                         f"got {extra_columns!r}")
    return RunSettings(created_at=now or datetime.now(UTC), fixed_time=now is not None,
                       max_bytes=limits.max_bytes, max_columns=limits.max_columns,
                       time_limit=time_limit or None, judge=judge, extra_columns=extra_columns)


def grade_runs(
    runs: str | PathLike[str],
    *,
    catalogue: str | PathLike[str] | None = None,
    data_dir: str | PathLike[str] | None = None,
    leaderboard_dir: str | PathLike[str] | None = None,
    executor: Executor | None = None,
    retries: int = 0,
    limits: Limits | None = None,
    progress: bool = False,
    aggregation: Aggregation | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    agent: str | None = None,
    now: datetime | None = None,
    judge: JudgeConfig | None = None,
    allow_quarantined: bool = False,
    extra_columns: str | None = None,
) -> BatchReport:
    """Grade every run of a runs folder or an MLE-bench ``submissions.jsonl``; one row per run,
    whatever happens to it.

    Args:
        runs: a ``<agent>/<task>/<run>/`` tree, MLE-bench run group(s), or a ``.jsonl`` file.
        catalogue, data_dir: the task catalogue and the prepared data holding the private
            answers (default: settings); every path may be a ``str`` or a ``Path``.
        leaderboard_dir: extra leaderboards (see :func:`make_resolver`).
        executor: where runs are graded (default: serially in this process).
        retries: extra attempts for a run whose grading raised something unexpected.
        limits, progress: size and column caps for submissions; report progress on stderr.
        aggregation: how runs are aggregated (default: :class:`Aggregation`'s defaults).
        time_limit: seconds one run may take (None or 0: no limit).
        agent: the agent of JSONL lines that name none (default: the file's folder name).
        now: the report's and every row's ``created_at`` (default: now, each row its own).
        judge: the constraint judge for each run's solution file (None: not judged).
        allow_quarantined: grade runs of tasks whose leakage audit failed (by default each
            of their runs is an error naming the audit's findings).
        extra_columns: ``"ignore"`` extra columns as mlebench grade does, or ``"reject"``.

    Raises:
        InputError: the runs folder or JSONL file does not exist, or holds no run.
        ConfigError: the catalogue or data folder does not exist."""
    # start-up: saves 3 ms (settings, for import tambench.api)
    from tambench.config import is_default, load_settings
    runs = Path(runs)
    settings = load_settings(catalogue=_opt_path(catalogue), data_dir=_opt_path(data_dir))
    _check_folders(runs, settings.catalogue, settings.data_dir, is_default(settings, "data_dir"))
    agg = aggregation or Aggregation()
    run_settings = _run_settings(limits or Limits(), now, time_limit, judge, extra_columns)
    resolve = make_resolver(settings.catalogue, settings.data_dir, _opt_path(leaderboard_dir),
                            allow_quarantined)
    # Runs of one task sit together so that a worker's chunk reuses the loaded answers.
    items = sorted(discover_runs(runs, resolve, run_settings, agent=agent), key=_task_order)
    results = _run(items, executor, retries, progress)
    rows = rows_from_results(items, results)
    agents, comparisons = summarise(rows, agg)
    return BatchReport(
        created_at=run_settings.created_at, runs_dir=report_text(str(runs), 500), aggregation=agg,
        aggregation_rule=agg.statement, warnings=batch_warnings(items, runs), rows=rows,
        agents=agents, comparisons=comparisons,
    )
