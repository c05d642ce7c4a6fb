"""The Python API: grade submissions and runs from code, with the command line's checks.

Every name here is also importable from ``tambench`` itself, lazily (``import tambench`` loads
none of the grading code until a name is used):

>>> import tambench
>>> tambench.get_metric("rmse").higher_is_better
False

Submissions and answers are paths, or in-memory tables (pandas or polars DataFrames, pyarrow
Tables). A table is written to a temporary CSV file with its own library's writer and then
graded exactly as that file would be, so a table and a file get the same validation and the
same report.

>>> import pandas as pd
>>> answers = pd.DataFrame({"id": ["a", "b", "c"], "y": [1.0, 2.0, 4.0]})
>>> submission = pd.DataFrame({"id": ["c", "a", "b"], "y": [4.0, 1.0, 2.5]})
>>> report = tambench.grade(submission, answers=answers, metric="mae", id_columns=["id"])
>>> report.valid_submission, round(report.score, 4)
(True, 0.1667)
>>> bad = pd.DataFrame({"id": ["a", "b"], "y": [1.0, 2.0]})
>>> report = tambench.grade(bad, answers=answers, metric="mae", id_columns=["id"])
>>> report.valid_submission, report.score is None, len(report.errors) >= 1
(False, True, True)
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from tambench.core.layout import task_data_root
from tambench.core.leaderboard import Leaderboard
from tambench.core.metrics import get_metric, list_metrics
from tambench.errors import ConfigError, InputError
from tambench.grading.batch import (
    Aggregation,
    BatchReport,
    RunRow,
    RunStatus,
    grade_runs,
    load_batch_report,
    write_batch_outputs,
)
from tambench.grading.grade import adhoc_spec, check_submission_path, grade_submission, resolve_task
from tambench.grading.report import GradeReport, load_report
from tambench.grading.verdict import Verdict, check_submission, public_task, resolve_public_task
from tambench.schema.taskspec import TaskSpec
from tambench.tasks.locate import load_task, locate_task
from tambench.validation.reading.limits import Limits

__all__ = [
    "Aggregation",
    "BatchReport",
    "GradeReport",
    "RunRow",
    "RunStatus",
    "TaskSpec",
    "Verdict",
    "get_metric",
    "grade",
    "grade_runs",
    "list_metrics",
    "load_batch_report",
    "load_report",
    "load_task",
    "locate_task",
    "run",
    "validate",
    "write_batch_outputs",
]

PathLike = str | Path


def _table_kind(obj: Any) -> str | None:
    """"pandas", "polars" or "arrow" for a supported in-memory table, else None."""
    module = type(obj).__module__.split(".")[0]
    name = type(obj).__name__
    if module == "pandas" and name == "DataFrame":
        return "pandas"
    if module == "polars" and name == "DataFrame":
        return "polars"
    if module == "pyarrow" and name == "Table":
        return "arrow"
    return None


def _write_table(table: Any, path: Path) -> None:
    kind = _table_kind(table)
    if kind == "pandas":
        table.to_csv(path, index=False)
    elif kind == "polars":
        table.write_csv(path)
    elif kind == "arrow":
        import pyarrow.csv as pacsv

        pacsv.write_csv(table, path, pacsv.WriteOptions(quoting_style="needed"))
    else:
        raise InputError(
            f"cannot grade a {type(table).__name__}: give a path, a pandas or polars "
            "DataFrame, or a pyarrow Table"
        )


@contextmanager
def as_file(data: PathLike | Any, name: str, stack_dir: Path) -> Iterator[Path]:
    """A path for ``data``: the path itself, or a temporary CSV holding the table."""
    if isinstance(data, str | Path):
        yield Path(data)
        return
    path = stack_dir / name
    _write_table(data, path)
    yield path


def _answers_columns(answers: Path, id_columns: Sequence[str]) -> list[str]:
    import csv

    with open(answers, encoding="utf-8-sig", newline="") as fh:
        header = next(csv.reader(fh), [])
    return [c for c in header if c not in id_columns]


def _adhoc(answers: Path, metric: str, id_columns: Sequence[str] | None,
           target_columns: Sequence[str] | None, metric_params: dict[str, Any] | None,
           submission_format: str) -> TaskSpec:
    if submission_format == "csv" and not id_columns:
        raise ConfigError("id_columns is required to grade a csv submission without a task")
    targets = list(target_columns or _answers_columns(answers, list(id_columns or [])))
    return adhoc_spec(metric=metric, id_columns=list(id_columns or []), target_columns=targets,
                      metric_params=metric_params, submission_format=submission_format,
                      answers_file=answers.name)


def grade(
    submission: PathLike | Any,
    task: PathLike | TaskSpec | None = None,
    *,
    answers: PathLike | Any | None = None,
    metric: str | None = None,
    id_columns: Sequence[str] | None = None,
    target_columns: Sequence[str] | None = None,
    metric_params: dict[str, Any] | None = None,
    submission_format: str = "csv",
    leaderboard: PathLike | Leaderboard | None = None,
    catalogue: PathLike | None = None,
    data_dir: PathLike | None = None,
    limits: Limits | None = None,
    now: datetime | None = None,
) -> GradeReport:
    """Grade one submission, as ``tambench grade`` does.

    Give either ``task`` (a task file, folder, id or unique slug; or a TaskSpec with
    ``answers``), or ``answers`` with ``metric`` and ``id_columns`` (ad-hoc grading; the
    target columns default to the answers' other columns).

    Args:
        submission: the submission file, or a table.
        task: the task, or a TaskSpec with ``answers``.
        answers: the answers file or table (default with a task: its prepared answers).
        metric, id_columns, target_columns, metric_params, submission_format: ad-hoc grading.
        leaderboard: a leaderboard file or object (default: the task's leaderboard.csv).
        catalogue, data_dir: where tasks and prepared data are (default: settings).
        limits: size and column caps.
        now: the report's created_at.

    Returns:
        The report; an invalid submission is a report with ``valid_submission`` false and
        every problem in ``errors``, never an exception.

    Raises:
        InputError: the submission path does not exist, or a table of an unsupported type.
        TaskNotFoundError, AmbiguousTaskError: the task reference names no single task.
        ConfigError: neither a task nor answers with a metric, or both.
    """
    if (task is None) == (metric is None):
        raise ConfigError("give either task, or answers with metric (ad-hoc grading)")
    with tempfile.TemporaryDirectory(prefix="tambench-api-") as tmp, ExitStack() as stack:
        sub = stack.enter_context(as_file(submission, "submission.csv", Path(tmp)))
        check_submission_path(sub)
        ans = (None if answers is None
               else stack.enter_context(as_file(answers, "answers.csv", Path(tmp))))
        lb = Path(leaderboard) if isinstance(leaderboard, str) else leaderboard
        if task is None:
            if ans is None:
                raise ConfigError("ad-hoc grading needs answers= as well as metric=")
            spec = _adhoc(ans, metric or "", id_columns, target_columns, metric_params,
                          submission_format)
        else:
            spec, ans, lb = _task_files(task, ans, lb, catalogue, data_dir)
        return _as_given(grade_submission(sub, spec, ans, lb, now=now, limits=limits,
                                          answers_visible=task is None), submission)


def _as_given(report: GradeReport, submission: Any) -> GradeReport:
    """The report naming the submission as given: a table's temporary file is gone, so a table
    is named by what it is, e.g. ``<pandas DataFrame, 4 rows>``."""
    if isinstance(submission, str | Path):
        return report
    return report.model_copy(update={"submission_path": _table_label(submission)})


def _table_label(table: Any) -> str:
    """How a report names a submission given as a table."""
    kind = {"pandas": "pandas DataFrame", "polars": "polars DataFrame",
            "arrow": "pyarrow Table"}.get(_table_kind(table) or "", type(table).__name__)
    try:
        rows = f", {len(table)} rows"
    except TypeError:
        rows = ""
    return f"<{kind}{rows}>"


def _task_files(task: PathLike | TaskSpec, answers: Path | None,
                leaderboard: Path | Leaderboard | None, catalogue: PathLike | None,
                data_dir: PathLike | None) -> tuple[TaskSpec, Path, Path | Leaderboard | None]:
    """The spec, answers and leaderboard of a task reference (explicit ones win)."""
    if isinstance(task, TaskSpec):
        if answers is None:
            raise ConfigError("a TaskSpec object needs answers=")
        return task, answers, leaderboard
    resolved = resolve_task(task, catalogue=_path(catalogue), data_dir=_path(data_dir),
                            leaderboard=leaderboard if isinstance(leaderboard, Path) else None,
                            check_data=answers is None)
    board = leaderboard if leaderboard is not None else resolved.leaderboard
    return resolved.spec, answers or resolved.answers, board


def _path(p: PathLike | None) -> Path | None:
    return None if p is None else Path(p)


def validate(
    submission: PathLike | Any,
    task: PathLike | TaskSpec,
    *,
    catalogue: PathLike | None = None,
    data_dir: PathLike | None = None,
    public_dir: PathLike | None = None,
    sample_submission: str | None = None,
    limits: Limits | None = None,
) -> Verdict:
    """Check one submission as ``tambench validate`` does: the verdict and every problem, from
    the task's public files alone (never a score, and nothing the answers hold).

    Args:
        submission: the submission file, or a table.
        task: the task (a task file, folder, id or unique slug), or a TaskSpec with
            ``public_dir`` or ``data_dir``.
        catalogue, data_dir: where tasks and prepared data are (default: settings).
        public_dir: the task's public folder (default: ``<data_dir>/<platform>/<slug>/public``,
            or MLE-bench's ``<data_dir>/<slug>/prepared/public``).
        sample_submission: the public file listing the test ids, by name in the public folder
            (default: ``sample_submission.csv``, else ``test.csv``).
        limits: size and column caps.

    Returns:
        The verdict; an invalid submission is a verdict with ``valid_submission`` false and
        every problem in ``errors``, never an exception.

    Raises:
        InputError: the submission path does not exist, or a table of an unsupported type.
        TaskNotFoundError, AmbiguousTaskError: the task reference names no single task.
        TaskDataError: the task's public files are missing or unusable.
    """
    with tempfile.TemporaryDirectory(prefix="tambench-api-") as tmp, ExitStack() as stack:
        sub = stack.enter_context(as_file(submission, "submission.csv", Path(tmp)))
        check_submission_path(sub)
        if isinstance(task, TaskSpec):
            task_dir = None if data_dir is None else task_data_root(Path(data_dir), task.platform,
                                                                    task.slug)
            resolved = public_task(task, public_dir=_path(public_dir), task_dir=task_dir)
        else:
            resolved = resolve_public_task(task, catalogue=_path(catalogue),
                                           data_dir=_path(data_dir),
                                           public_dir=_path(public_dir))
        reference = resolved.reference(sample_submission)
        shown = str(submission) if isinstance(submission, str | Path) else "submission.csv"
        return check_submission(sub, resolved, reference, limits=limits, shown_as=shown)


def run(
    agent: str | PathLike | Sequence[str | PathLike],
    tasks: str | Sequence[str],
    *,
    seeds: int | Sequence[int] = 1,
    out: PathLike = "runs",
    name: str | None = None,
    time_limit: str | float = "8h",
    memory: str | int | None = None,
    cpus: float | None = None,
    processes: int | None = 1024,
    disk: str | int | None = "50G",
    log_limit: str | int | None = "100M",
    gpus: int = 0,
    **options: Any,
) -> Any:
    """Run agents on tasks x seeds as ``tambench run`` does: each run sandboxed, limited by the
    harness and recorded in ``<out>/<agent>/<platform>__<slug>/<seed>/run.json``; finished runs
    are not run again.

    Args:
        agent: a shell command, an MLE-bench agent folder (start.sh and config.yaml), or a
            list of them (each named after its folder or command, or ``name`` for one agent).
        tasks: task ids or unique slugs, prepared in the data folder.
        seeds: a number of seeds (0..n-1) or the seeds themselves.
        out: the runs folder.
        time_limit, memory, cpus, processes, disk, log_limit, gpus: the limits of each run
            (``"8h"``, ``"16G"``, ...; None: no limit).
        **options: passed to :func:`tambench.runs.run.run_agents`: ``sandbox``,
            ``allow_hosts``, ``model_gateways``, ``executor``, ``parallel``, ``gpu_devices``, ``grade``,
            ``catalogue``, ``data_dir``, ``prices``, ``validation``.

    Returns:
        A :class:`tambench.runs.run.RunsResult`: one record per run, the number already
        finished, warnings, and the graded report with ``grade=True``.

    Raises:
        ConfigError: bad limits, an unknown sandbox or one this machine cannot run.
        TaskNotFoundError, TaskDataError: a task that does not resolve or is not prepared.
    """
    # start-up: saves 5 ms (the runner, for import tambench.api)
    from tambench.runs import limits as run_limits

    # start-up: saves 3 ms (the runner, for import tambench.api)
    from tambench.runs.agents import make_agent

    # start-up: saves 105 ms (the runner, for import tambench.api)
    from tambench.runs.run import run_agents

    given = [agent] if isinstance(agent, str | Path) else list(agent)
    if name is not None and len(given) != 1:
        raise ConfigError("name= names one agent; give each of several agents its own run")
    specs = [make_agent(str(a), name) for a in given]
    size = run_limits.parse_size
    limits = run_limits.Limits(time=run_limits.parse_duration(time_limit),
                               memory=size(memory, "memory"), cpus=cpus, processes=processes,
                               disk=size(disk, "disk"), log=size(log_limit, "log"), gpus=gpus)
    names = [tasks] if isinstance(tasks, str) else list(tasks)
    return run_agents(specs, names, seeds=seeds, out=out, limits=limits, **options)
