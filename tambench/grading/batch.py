"""Batch-grade agent runs laid out as ``<agent>/<task>/<run>/submission.<fmt>``.

Every run folder becomes one row with a status:

* ``graded_valid``: the submission was scored (and ranked when a leaderboard is known);
* ``invalid_submission``: the submission was refused; ``errors`` says why;
* ``missing_submission``: the run folder holds no submission file;
* ``task_unknown``: the ``<task>`` folder names no task of the catalogue;
* ``error: <text>``: grading raised (a bug or broken task data); the batch goes on, and the
  command exits with code 3.

``<task>`` is a task slug (``spaceship-titanic``) or ``<platform>__<slug>``. A solution file
(``best_solution.py``, else ``solution.py``) beside the submission is recorded in the row.

Work runs on any ``concurrent.futures.Executor`` through :func:`tambench.executors.run_items`.
The per-item function :func:`grade_run_item` is a module-level function of one small picklable
:class:`RunItem`; answers and leaderboard are loaded once per task per worker process and kept
in the module-level cache :data:`_TASK_CACHE`.

Aggregates per agent (MLE-bench names where they exist): ``total_runs``,
``total_runs_with_submissions``, ``total_valid_submissions``, ``total_medals``,
``total_gold_medals``, ``total_silver_medals``, ``total_bronze_medals``, ``total_above_median``,
the made- and valid-submission rates, per-task mean and spread over runs, the paper's
modality-weighted average rank percentage ``sum_i p_i / f(m_i) / sum_i 1 / f(m_i)`` (f(m): the
number of ranked tasks of modality m), and averages by difficulty tier and by modality.

Constraint-judge results have a reserved place: ``constraints_passed``, ``constraints_total``
and ``constraint_pass_rate`` in every row and every agent summary, null until a judge fills
them.
"""

from __future__ import annotations

import math
import os
import stat
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tambench.errors import ConfigError
from tambench.grading.csvio import Limits
from tambench.grading.report import REPORT_VERSION

STATUSES = ("graded_valid", "invalid_submission", "missing_submission", "task_unknown", "error")
SOLUTION_FILES = ("best_solution.py", "solution.py")
#: Tasks whose answers a worker keeps loaded at once.
TASK_CACHE_SIZE = 8


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class RunRow(_Model):
    """One agent run of one task."""

    agent: str
    """The agent folder's name."""
    task: str
    """The task folder's name as found under the agent."""
    run: str
    """The run folder's name."""
    status: str
    """graded_valid | invalid_submission | missing_submission | task_unknown | error: <text>."""
    task_id: str | None = None
    """The resolved task id, when the task is known."""
    competition_id: str | None = None
    """The task's slug (MLE-bench's name)."""
    metric: str | None = None
    """Metric id."""
    is_lower_better: bool | None = None
    """The metric's direction."""
    modality: str | None = None
    """The task's modality."""
    tier: str | None = None
    """The task's difficulty tier."""
    submission_path: str | None = None
    """The submission file, relative to the runs folder."""
    solution_path: str | None = None
    """The solution file beside it, relative to the runs folder, when present."""
    submission_exists: bool = False
    """Whether a submission file was found."""
    valid_submission: bool = False
    """Whether it was valid and scored."""
    score: float | None = None
    """The metric's value."""
    rank: int | None = None
    """Leaderboard rank (null without a leaderboard)."""
    n_teams: int | None = None
    """Leaderboard size after junk rows are removed."""
    percentile: float | None = None
    """rank / n_teams (lower is better)."""
    gold_threshold: float | None = None
    """Gold threshold."""
    silver_threshold: float | None = None
    """Silver threshold."""
    bronze_threshold: float | None = None
    """Bronze threshold."""
    median_threshold: float | None = None
    """Median leaderboard score."""
    any_medal: bool = False
    """Any medal."""
    gold_medal: bool = False
    """Gold medal."""
    silver_medal: bool = False
    """Silver medal."""
    bronze_medal: bool = False
    """Bronze medal."""
    above_median: bool = False
    """Strictly better than the median."""
    errors: list[str] = []
    """Problems of an invalid submission, or the error of a failed item."""
    constraints_passed: int | None = None
    """Constraints of the task the judge found respected (null: not judged)."""
    constraints_total: int | None = None
    """Constraints judged (null: not judged)."""
    constraint_pass_rate: float | None = None
    """constraints_passed / constraints_total (null: not judged)."""
    judge_note: str | None = None
    """Why constraints were not judged, or what went wrong while judging (null: nothing)."""

    def medal_name(self) -> str:
        """"gold", "silver", "bronze" or ""."""
        for name in ("gold", "silver", "bronze"):
            if getattr(self, f"{name}_medal"):
                return name
        return ""


class Spread(_Model):
    """Mean and spread of one quantity over the valid runs of a task."""

    mean: float
    """Arithmetic mean."""
    std: float | None
    """Sample standard deviation (null with fewer than two runs)."""
    min: float
    """Smallest value."""
    max: float
    """Largest value."""


class TaskSummary(_Model):
    """One agent on one task, over its runs."""

    task: str
    """Task folder name."""
    task_id: str | None
    """Resolved task id."""
    modality: str | None
    """Modality."""
    tier: str | None
    """Difficulty tier."""
    n_runs: int
    """Runs found."""
    n_with_submission: int
    """Runs with a submission file."""
    n_valid: int
    """Runs with a valid, scored submission."""
    score: Spread | None
    """Score over valid runs."""
    rank: Spread | None
    """Rank over valid ranked runs."""
    percentile: Spread | None
    """Rank percentage over valid ranked runs (the task's RankPct is its mean)."""
    gold_medals: int
    """Runs with gold."""
    silver_medals: int
    """Runs with silver."""
    bronze_medals: int
    """Runs with bronze."""
    above_median: int
    """Runs strictly better than the median."""


class AgentSummary(_Model):
    """Aggregates of one agent over every run."""

    agent: str
    """Agent folder name."""
    total_runs: int
    """Run folders."""
    total_runs_with_submissions: int
    """Runs with a submission file."""
    total_valid_submissions: int
    """Runs with a valid, scored submission."""
    total_medals: int
    """Runs earning any medal."""
    total_gold_medals: int
    """Runs earning gold."""
    total_silver_medals: int
    """Runs earning silver."""
    total_bronze_medals: int
    """Runs earning bronze."""
    total_above_median: int
    """Runs strictly above the median."""
    total_errors: int
    """Runs whose grading failed with status error."""
    made_submission_rate: float
    """total_runs_with_submissions / total_runs."""
    valid_submission_rate: float
    """total_valid_submissions / total_runs."""
    n_tasks: int
    """Distinct tasks attempted."""
    n_tasks_ranked: int
    """Tasks with a rank percentage (a valid ranked run)."""
    modality_weighted_rank_pct: float | None
    """The paper's modality-weighted average rank percentage (lower is better)."""
    mean_rank_pct: float | None
    """Unweighted mean of the tasks' rank percentages."""
    rank_pct_by_tier: dict[str, float]
    """Mean task rank percentage per difficulty tier."""
    rank_pct_by_modality: dict[str, float]
    """Mean task rank percentage per modality."""
    tasks: list[TaskSummary]
    """Per-task results, sorted by task."""
    constraints_passed: int | None = None
    """Sum over judged runs (null: nothing judged)."""
    constraints_total: int | None = None
    """Sum over judged runs (null: nothing judged)."""
    constraint_pass_rate: float | None = None
    """constraints_passed / constraints_total (null: nothing judged)."""


class BatchReport(_Model):
    """Everything ``tambench grade-runs`` produces."""

    report_version: int = REPORT_VERSION
    """Report format version."""
    created_at: datetime
    """When the batch finished (UTC)."""
    runs_dir: str
    """The runs folder graded (as given)."""
    rows: list[RunRow]
    """One row per run folder, sorted by agent, task, run."""
    agents: list[AgentSummary]
    """One summary per agent, sorted by agent."""

    @property
    def n_failed(self) -> int:
        """Rows whose status is ``error: ...``."""
        return sum(1 for r in self.rows if r.status.startswith("error"))


# --- discovery ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskRef:
    """Where one task's files are."""

    task_id: str
    task_file: str
    answers: str
    leaderboard: str | None


@dataclass(frozen=True)
class JudgeConfig:
    """Where the constraint judge's model is (picklable; the API key stays in the environment)."""

    model: str
    base_url: str | None = None
    cache_dir: str | None = None
    max_code_bytes: int = 2_000_000
    """Solution files larger than this are not sent to the model (recorded as an error)."""


@dataclass(frozen=True)
class RunItem:
    """One run folder to grade: small and picklable, sent to a worker."""

    agent: str
    task: str
    run: str
    runs_dir: str
    submission: str | None
    """Submission path relative to runs_dir, when a file of that name exists (may be a link)."""
    solution: str | None
    task_ref: TaskRef | None
    problem: str | None = None
    """A problem found while scanning (a linked folder)."""
    max_bytes: int | None = None
    max_columns: int = 10_000
    judge: JudgeConfig | None = None
    """The constraint judge to run on the solution file (None: constraints not judged)."""


def index_catalogue(catalogue: Path) -> dict[str, list[str]]:
    """Map each task folder name an agent may use (slug, ``platform__slug``) to task ids."""
    out: dict[str, list[str]] = defaultdict(list)
    if not catalogue.is_dir():
        return {}
    for task_file in sorted(catalogue.glob("*/*/task.json")):
        platform, slug = task_file.parent.parent.name, task_file.parent.name
        tid = f"{platform}/{slug}"
        out[slug].append(tid)
        out[f"{platform}__{slug}"].append(tid)
    return dict(out)


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as it:
        return sorted(it, key=lambda e: e.name)


def _is_dir_nofollow(e: os.DirEntry[str]) -> bool:
    return e.is_dir(follow_symlinks=False)


def discover_runs(
    runs_dir: Path,
    resolve: Callable[[str], TaskRef | None],
    *,
    formats: Callable[[TaskRef | None], list[str]],
    limits: Limits,
) -> list[RunItem]:
    """Find every ``<agent>/<task>/<run>`` folder; symlinked folders become refused rows."""
    items: list[RunItem] = []
    root = str(runs_dir)

    def linked(agent: str, task: str, run: str, path: str) -> RunItem:
        return RunItem(agent, task, run, root, None, None, resolve(task) if task != "*" else None,
                       problem=f"{path} is a symbolic link; run folders must be real folders",
                       max_bytes=limits.max_bytes, max_columns=limits.max_columns)

    for a in _entries(runs_dir):
        if a.is_symlink():
            items.append(linked(a.name, "*", "*", a.name))
            continue
        if not _is_dir_nofollow(a):
            continue
        for t in _entries(Path(a.path)):
            if t.is_symlink():
                items.append(linked(a.name, t.name, "*", f"{a.name}/{t.name}"))
                continue
            if not _is_dir_nofollow(t):
                continue
            ref = resolve(t.name)
            for r in _entries(Path(t.path)):
                rel = f"{a.name}/{t.name}/{r.name}"
                if r.is_symlink():
                    items.append(linked(a.name, t.name, r.name, rel))
                    continue
                if not _is_dir_nofollow(r):
                    continue
                sub = None
                for ext in formats(ref):
                    cand = Path(r.path) / f"submission.{ext}"
                    try:
                        os.lstat(cand)
                    except FileNotFoundError:
                        continue
                    sub = f"{rel}/submission.{ext}"
                    break
                sol = next(
                    (f"{rel}/{s}" for s in SOLUTION_FILES
                     if (Path(r.path) / s).is_file() and not (Path(r.path) / s).is_symlink()),
                    None,
                )
                items.append(RunItem(a.name, t.name, r.name, root, sub, sol, ref,
                                     max_bytes=limits.max_bytes, max_columns=limits.max_columns))
    return items


# --- the worker ---------------------------------------------------------------------------------

#: Per-worker cache: task key -> (spec, answers, leaderboard). Module level so that it lives as
#: long as the worker process (or the calling process for serial/thread executors).
_TASK_CACHE: OrderedDict[tuple[Any, ...], tuple[Any, Any, Any]] = OrderedDict()
#: Task id -> how many times this process loaded the task's answers and leaderboard (cache
#: misses); lets tests check that a worker loads a task once, not once per submission.
TASK_LOADS: Counter[str] = Counter()


def _file_key(path: str | None) -> tuple[str | None, int, int]:
    if path is None:
        return (None, 0, 0)
    st = os.stat(path)
    return (path, st.st_mtime_ns, st.st_size)


def load_task_cached(ref: TaskRef) -> tuple[Any, Any, Any]:
    """(spec, answers, leaderboard) of a task, loaded once per worker process."""
    from tambench.core.metrics.base import get_metric
    from tambench.errors import TaskDataError
    from tambench.grading.grade import load_task_leaderboard
    from tambench.grading.validate import load_answers
    from tambench.schema.io import load_taskspec

    key = (_file_key(ref.task_file), ref.answers, _file_key(ref.leaderboard))
    hit = _TASK_CACHE.get(key)
    if hit is not None:
        _TASK_CACHE.move_to_end(key)
        return hit
    spec = load_taskspec(ref.task_file)
    if spec.grading is None:
        raise TaskDataError(f"task {spec.id} has no grading spec")
    metric = get_metric(spec.grading.metric)
    if not os.path.isfile(ref.answers):
        raise TaskDataError(f"answers of task {spec.id} not found at {ref.answers}")
    answers = load_answers(Path(ref.answers), spec.grading, metric)
    board = load_task_leaderboard(Path(ref.leaderboard), metric) if ref.leaderboard else None
    _TASK_CACHE[key] = (spec, answers, board)
    TASK_LOADS[ref.task_id] += 1
    while len(_TASK_CACHE) > TASK_CACHE_SIZE:
        _TASK_CACHE.popitem(last=False)
    return spec, answers, board


def _base_row(item: RunItem) -> dict[str, Any]:
    return {
        "agent": item.agent,
        "task": item.task,
        "run": item.run,
        "submission_path": item.submission,
        "solution_path": item.solution,
    }


def grade_run_item(item: RunItem) -> dict[str, Any]:
    """Grade one run folder (worker side); returns the row as a plain dict.

    Raises whatever grading raises beyond an invalid submission (recorded as ``error``).
    """
    from tambench.grading.grade import grade_submission

    row = _base_row(item)
    if item.problem is not None and item.task_ref is None:
        row.update(status="invalid_submission", errors=[item.problem])
        return row
    if item.task_ref is None:
        row.update(status="task_unknown", errors=[
            f"task folder {item.task!r} names no task of the catalogue (expected a slug or "
            "<platform>__<slug>)"
        ], submission_exists=item.submission is not None)
        return row
    spec, answers, board = load_task_cached(item.task_ref)
    row.update(
        task_id=spec.id,
        competition_id=spec.slug,
        metric=answers.metric.id,
        is_lower_better=not answers.metric.higher_is_better,
        modality=spec.modality.value if spec.modality else None,
        tier=spec.difficulty.tier.value if spec.difficulty else None,
    )
    if item.problem is not None:
        row.update(status="invalid_submission", errors=[item.problem])
        return row
    if item.submission is None:
        row.update(status="missing_submission", errors=[
            f"no submission.{spec.grading.submission_format.value} in the run folder"
        ])
        return row
    report = grade_submission(
        Path(item.runs_dir) / item.submission, spec, answers, board,
        now=datetime(1970, 1, 1, tzinfo=UTC),
        limits=Limits(max_bytes=item.max_bytes, max_columns=item.max_columns),
    )
    data = report.model_dump()
    for k in ("report_version", "created_at", "submission_path", "task_id", "competition_id",
              "metric", "modality", "tier", "is_lower_better"):
        data.pop(k)
    row.update(data)
    row["status"] = (
        "graded_valid" if report.valid_submission
        else "invalid_submission" if report.submission_exists else "missing_submission"
    )
    if item.judge is not None and item.solution is not None:
        row.update(judge_run_solution(spec, Path(item.runs_dir) / item.solution, item.judge))
    return row


def judge_run_solution(spec: Any, solution: Path, judge: JudgeConfig) -> dict[str, Any]:
    """Judge a run's final solution code against the task's constraints.

    Returns the row's constraint fields. A task without constraints, or a solution that cannot
    be read as UTF-8 text within the size cap, is not judged: the counts stay null and
    ``judge_note`` says why. Nothing is ever counted as passed without a checked verdict.
    """
    from tambench.grading.judge import judge_solution, parse_instructions

    constraints = parse_instructions(spec.special_instructions)
    if not constraints.constraints:
        return {"judge_note": "the task states no constraints"}
    try:
        st = os.lstat(solution)
    except FileNotFoundError:
        return {"judge_note": f"solution file {solution.name} disappeared before judging"}
    if not stat.S_ISREG(st.st_mode):
        return {"judge_note": f"solution file {solution.name} is not a regular file; not judged"}
    if st.st_size > judge.max_code_bytes:
        return {"judge_note": f"solution file is {st.st_size} bytes, over the judge's cap of "
                              f"{judge.max_code_bytes}; not judged"}
    try:
        code = solution.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return {"judge_note": "solution file is not UTF-8 text; not judged"}
    result = judge_solution(spec, code, model=judge.model, base_url=judge.base_url,
                            cache_dir=judge.cache_dir)
    if not result.judged:
        return {"judge_note": "constraints not judged (no model answered)"}
    note = None
    errors = result.count("error")
    if errors:
        note = f"{errors} constraint(s) got no verdict from the endpoint and count as not passed"
    return {
        "constraints_passed": result.passed,
        "constraints_total": result.total,
        "constraint_pass_rate": result.pass_rate,
        "judge_note": note,
    }


# --- the batch ----------------------------------------------------------------------------------


def make_resolver(
    catalogue: Path, data_dir: Path, leaderboard_dir: Path | None = None
) -> Callable[[str], TaskRef | None]:
    """A function mapping a task folder name to the task's files (None when unknown)."""
    from tambench.core.layout import LEADERBOARD_FILE, TASK_FILE, safe_join
    from tambench.schema.io import load_taskspec

    index = index_catalogue(catalogue)
    cache: dict[str, TaskRef | None] = {}

    def resolve(name: str) -> TaskRef | None:
        if name in cache:
            return cache[name]
        ids = index.get(name, [])
        ref = None
        if len(ids) == 1:
            platform, slug = ids[0].split("/", 1)
            task_file = safe_join(catalogue, platform, slug, TASK_FILE)
            spec = load_taskspec(task_file)
            answers_file = spec.grading.answers_file if spec.grading else "answers.csv"
            answers = safe_join(data_dir, platform, slug, "private", answers_file)
            lb: Path | None = task_file.parent / LEADERBOARD_FILE
            if leaderboard_dir is not None:
                for cand in (
                    leaderboard_dir / platform / slug / LEADERBOARD_FILE,
                    leaderboard_dir / slug / LEADERBOARD_FILE,
                ):
                    if cand.is_file():
                        lb = cand
                        break
            ref = TaskRef(ids[0], str(task_file), str(answers),
                          str(lb) if lb is not None and lb.is_file() else None)
        cache[name] = ref
        return ref

    return resolve


def _formats_of(ref: TaskRef | None) -> list[str]:
    from tambench.schema.io import load_taskspec

    if ref is None:
        return ["csv", "json", "txt"]
    spec = load_taskspec(ref.task_file)
    return [spec.grading.submission_format.value] if spec.grading else ["csv"]


def grade_runs(
    runs_dir: Path,
    *,
    catalogue: Path | None = None,
    data_dir: Path | None = None,
    leaderboard_dir: Path | None = None,
    executor: Executor | None = None,
    retries: int = 0,
    limits: Limits | None = None,
    progress: bool = False,
    invalid_percentile: float | None = None,
    now: datetime | None = None,
    judge: JudgeConfig | None = None,
) -> BatchReport:
    """Grade every run under ``runs_dir``; one row per run folder, whatever happens.

    Args:
        runs_dir: the ``<agent>/<task>/<run>/`` tree.
        catalogue: task catalogue (default: settings).
        data_dir: prepared task data holding the private answers (default: settings).
        leaderboard_dir: extra leaderboards, ``<dir>/<slug>/leaderboard.csv`` or
            ``<dir>/<platform>/<slug>/leaderboard.csv`` (default: beside each task.json).
        executor: where items run (default: serial in this process).
        retries: extra attempts for an item whose grading raised.
        limits: size and column caps for submissions.
        progress: show a progress bar on stderr.
        invalid_percentile: rank percentage given to a run without a valid ranked submission
            in the per-task means (None: such runs are left out; 1.0: counted as last).
        now: the report's ``created_at``.
        judge: the constraint judge to run on each run's solution file (None: constraints are
            reported as not judged, never as passed).
    """
    from tambench.config import load_settings
    from tambench.executors import SerialExecutor, run_items

    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        raise ConfigError(f"runs folder {runs_dir} does not exist or is not a folder")
    settings = load_settings(catalogue=catalogue, data_dir=data_dir)
    limits = limits or Limits()
    resolve = make_resolver(settings.catalogue, settings.data_dir, leaderboard_dir)
    fmt_cache: dict[str | None, list[str]] = {}

    def formats(ref: TaskRef | None) -> list[str]:
        k = ref.task_file if ref else None
        if k not in fmt_cache:
            fmt_cache[k] = _formats_of(ref)
        return fmt_cache[k]

    items = discover_runs(runs_dir, resolve, formats=formats, limits=limits)
    if judge is not None:
        items = [replace(it, judge=judge) for it in items]
    # Items of one task sit together so that a worker's chunk reuses the loaded answers.
    items.sort(key=lambda it: (it.task_ref.task_id if it.task_ref else "", it.agent, it.run))
    pool = executor if executor is not None else SerialExecutor()
    on_result, bar = _progress(len(items)) if progress else (None, None)
    try:
        results = run_items(grade_run_item, items, pool, retries=retries, on_result=on_result)
    finally:
        if bar is not None:
            bar.stop()
    rows: list[RunRow] = []
    for item, res in zip(items, results, strict=True):
        if res.ok and res.value is not None:
            rows.append(RunRow.model_validate(res.value))
        else:
            rows.append(RunRow(**_base_row(item), status=f"error: {res.error}",
                               task_id=item.task_ref.task_id if item.task_ref else None,
                               submission_exists=item.submission is not None,
                               errors=[str(res.error)]))
    rows.sort(key=lambda r: (r.agent, r.task, r.run))
    return BatchReport(
        created_at=now or datetime.now(UTC),
        runs_dir=str(runs_dir),
        rows=rows,
        agents=summarise_agents(rows, invalid_percentile=invalid_percentile),
    )


def _progress(total: int) -> tuple[Callable[[Any], None], Any]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress(
        "grading", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), transient=False,
    )
    task = bar.add_task("grading", total=total)
    bar.start()

    def tick(_: Any) -> None:
        bar.advance(task)

    return tick, bar


# --- aggregates ---------------------------------------------------------------------------------


def _spread(values: list[float]) -> Spread | None:
    if not values:
        return None
    n = len(values)
    mean = math.fsum(values) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    return Spread(mean=mean, std=std, min=min(values), max=max(values))


def modality_weighted_mean(pcts: Iterable[tuple[str, float]]) -> float | None:
    """The paper's modality-weighted mean: ``sum p_i / f(m_i) / sum 1 / f(m_i)``.

    >>> modality_weighted_mean([("Text", 0.2), ("Text", 0.4), ("Image", 0.9)])
    0.6
    """
    pairs = list(pcts)
    if not pairs:
        return None
    f: dict[str, int] = defaultdict(int)
    for m, _ in pairs:
        f[m] += 1
    num = math.fsum(p / f[m] for m, p in pairs)
    den = math.fsum(1.0 / f[m] for m, _ in pairs)
    return num / den


def summarise_agents(
    rows: list[RunRow], *, invalid_percentile: float | None = None
) -> list[AgentSummary]:
    """Per-agent aggregates of sorted rows (see the module docstring)."""
    by_agent: dict[str, list[RunRow]] = defaultdict(list)
    for r in rows:
        by_agent[r.agent].append(r)
    out = []
    for agent in sorted(by_agent):
        rs = by_agent[agent]
        by_task: dict[str, list[RunRow]] = defaultdict(list)
        for r in rs:
            by_task[r.task].append(r)
        tasks = [_task_summary(t, by_task[t], invalid_percentile) for t in sorted(by_task)]
        ranked = [(t.modality or "unknown", t.percentile.mean) for t in tasks if t.percentile]
        by_tier: dict[str, list[float]] = defaultdict(list)
        by_mod: dict[str, list[float]] = defaultdict(list)
        for t in tasks:
            if t.percentile:
                by_tier[t.tier or "unknown"].append(t.percentile.mean)
                by_mod[t.modality or "unknown"].append(t.percentile.mean)
        judged = [r for r in rs if r.constraints_total is not None]
        c_pass = sum(r.constraints_passed or 0 for r in judged) if judged else None
        c_total = sum(r.constraints_total or 0 for r in judged) if judged else None
        n = len(rs)
        out.append(AgentSummary(
            agent=agent,
            total_runs=n,
            total_runs_with_submissions=sum(r.submission_exists for r in rs),
            total_valid_submissions=sum(r.valid_submission for r in rs),
            total_medals=sum(r.any_medal for r in rs),
            total_gold_medals=sum(r.gold_medal for r in rs),
            total_silver_medals=sum(r.silver_medal for r in rs),
            total_bronze_medals=sum(r.bronze_medal for r in rs),
            total_above_median=sum(r.above_median for r in rs),
            total_errors=sum(r.status.startswith("error") for r in rs),
            made_submission_rate=sum(r.submission_exists for r in rs) / n,
            valid_submission_rate=sum(r.valid_submission for r in rs) / n,
            n_tasks=len(tasks),
            n_tasks_ranked=len(ranked),
            modality_weighted_rank_pct=modality_weighted_mean(ranked),
            mean_rank_pct=(math.fsum(p for _, p in ranked) / len(ranked)) if ranked else None,
            rank_pct_by_tier={k: math.fsum(v) / len(v) for k, v in sorted(by_tier.items())},
            rank_pct_by_modality={k: math.fsum(v) / len(v) for k, v in sorted(by_mod.items())},
            tasks=tasks,
            constraints_passed=c_pass,
            constraints_total=c_total,
            constraint_pass_rate=(c_pass / c_total) if c_pass is not None and c_total else None,
        ))
    return out


def _task_summary(task: str, rs: list[RunRow], invalid_percentile: float | None) -> TaskSummary:
    valid = [r for r in rs if r.valid_submission and r.score is not None]
    pcts = [r.percentile for r in valid if r.percentile is not None]
    if invalid_percentile is not None:
        pcts += [invalid_percentile] * sum(1 for r in rs if r.percentile is None)
    first = next((r for r in rs if r.task_id), rs[0])
    return TaskSummary(
        task=task,
        task_id=first.task_id,
        modality=first.modality,
        tier=first.tier,
        n_runs=len(rs),
        n_with_submission=sum(r.submission_exists for r in rs),
        n_valid=len(valid),
        score=_spread([r.score for r in valid if r.score is not None]),
        rank=_spread([float(r.rank) for r in valid if r.rank is not None]),
        percentile=_spread(pcts),
        gold_medals=sum(r.gold_medal for r in rs),
        silver_medals=sum(r.silver_medal for r in rs),
        bronze_medals=sum(r.bronze_medal for r in rs),
        above_median=sum(r.above_median for r in rs),
    )


# --- writers ------------------------------------------------------------------------------------

CSV_COLUMNS = (
    "agent", "task", "run", "status", "task_id", "metric", "modality", "tier", "score", "rank",
    "n_teams", "percentile", "any_medal", "gold_medal", "silver_medal", "bronze_medal",
    "above_median", "submission_exists", "valid_submission", "submission_path", "solution_path",
    "constraints_passed", "constraints_total", "constraint_pass_rate", "judge_note", "errors",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape_csv_cell(text: str) -> str:
    """Neutralise spreadsheet formulas: a text cell starting with = + - @ (or tab/CR) gets a
    leading single quote.

    >>> escape_csv_cell("=cmd|'/C calc'!A0"), escape_csv_cell("ok")
    ("'=cmd|'/C calc'!A0", 'ok')
    """
    return "'" + text if text.startswith(_FORMULA_START) else text


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)  # numbers are written by us: never a formula
    if isinstance(value, list):
        value = " | ".join(str(v) for v in value)
    return escape_csv_cell(str(value))


def batch_to_csv(report: BatchReport) -> str:
    """The rows as CSV (text cells escaped against formula injection)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in report.rows:
        d = r.model_dump()
        w.writerow([_cell(d[c]) for c in CSV_COLUMNS])
    return buf.getvalue()


def batch_to_json(report: BatchReport, *, indent: int | None = 2) -> str:
    """Strict JSON (NaN refused)."""
    import json

    return json.dumps(report.model_dump(mode="json"), indent=indent, allow_nan=False,
                      ensure_ascii=False)


def write_batch_outputs(report: BatchReport, out_dir: Path) -> dict[str, Path]:
    """Write ``grades.json``, ``grades.csv`` and ``report.html`` into ``out_dir``."""
    from tambench.fileio import write_text_atomic
    from tambench.grading.html import batch_to_html

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out_dir / "grades.json",
        "csv": out_dir / "grades.csv",
        "html": out_dir / "report.html",
    }
    write_text_atomic(paths["json"], batch_to_json(report) + "\n")
    write_text_atomic(paths["csv"], batch_to_csv(report))
    write_text_atomic(paths["html"], batch_to_html(report))
    return paths

