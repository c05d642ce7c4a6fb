"""What ``grade-runs`` reports: versioned pydantic models, written as strict JSON.

A :class:`RunRow` is a :class:`~tambench.grading.report.GradeReport`'s fields (MLE-bench's names
and meanings) plus where the run came from, a typed :class:`RunStatus` and, apart from the
submission's own problems (``errors``), the grader's ``error`` when the run could not be graded.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError, model_validator

from tambench._optional import require
from tambench.core.bounded import REPORT_BOUNDS, load_json
from tambench.core.fielddocs import DOCUMENTED
from tambench.errors import ReportVersionError, TaskDataError
from tambench.grading.report import GradeFields, check_report_version

#: The batch report version this tambench writes and the newest it reads.
BATCH_REPORT_VERSION = 2


class RunStatus(StrEnum):
    """What happened to one run."""

    GRADED_VALID = "graded_valid"
    """The submission was valid and scored (and ranked when the task has a leaderboard)."""
    INVALID_SUBMISSION = "invalid_submission"
    """The submission was refused; ``errors`` lists every problem."""
    MISSING_SUBMISSION = "missing_submission"
    """The run holds no submission file."""
    TIMEOUT = "timeout"
    """Grading took longer than the per-run time limit; the batch went on."""
    UNREADABLE = "unreadable"
    """The run's folder or files could not be read (permissions, a vanished file, bad JSONL)."""
    TASK_UNKNOWN = "task_unknown"
    """The task folder names no task of the catalogue; ``error`` suggests the closest ids."""
    TASK_AMBIGUOUS = "task_ambiguous"
    """The task folder is a slug found on several platforms; ``error`` lists them."""
    ERROR = "error"
    """Grading raised (broken task data, or a bug); ``error`` says what."""


#: Statuses of runs the grader could not grade: counted as failed, the command exits 3.
FAILED_STATUSES = frozenset({
    RunStatus.TIMEOUT, RunStatus.UNREADABLE, RunStatus.TASK_UNKNOWN, RunStatus.TASK_AMBIGUOUS,
    RunStatus.ERROR,
})


class _Model(BaseModel):
    model_config = DOCUMENTED


class RunRow(GradeFields):
    """One agent run of one task: the grade report's fields plus the run's identity."""

    agent: str
    """The agent (folder name, MLE-bench run group, or the JSONL's agent)."""
    task: str
    """The task folder's name as found under the agent (or the JSONL's competition_id)."""
    run: str
    """The run folder's name (or ``line<N>`` of a JSONL file)."""
    status: RunStatus
    """What happened (see :class:`RunStatus`)."""
    error: str | None = None
    """Why the grader could not grade this run (null when it could)."""
    solution_path: str | None = None
    """The solution file beside the submission, when present."""
    constraints_passed: int | None = None
    """Constraints of the task the judge found respected (null: not judged)."""
    constraints_total: int | None = None
    """Constraints judged (null: not judged)."""
    constraint_pass_rate: float | None = None
    """constraints_passed / constraints_total (null: not judged)."""
    judge_note: str | None = None
    """Why constraints were not judged, or what went wrong while judging (null: nothing)."""

    @property
    def failed(self) -> bool:
        """Whether the grader could not grade this run."""
        return self.status in FAILED_STATUSES

    def medal_name(self) -> str:
        """"gold", "silver", "bronze" or ""."""
        return self.medal or ""


class Spread(_Model):
    """Mean and spread of one quantity over the runs of one agent on one task."""

    n: int
    """Values."""
    mean: float
    """Arithmetic mean."""
    std: float | None
    """Sample standard deviation (null with fewer than two values)."""
    se: float | None
    """Standard error of the mean, std / sqrt(n) (null with fewer than two values)."""
    min: float
    """Smallest value."""
    max: float
    """Largest value."""


class Estimate(_Model):
    """An aggregate with its uncertainty over runs (seeded bootstrap; see docs/numbers.md)."""

    value: float
    """The aggregate computed on the runs as graded."""
    se: float | None
    """Bootstrap standard error (null when the runs cannot vary: one run per task)."""
    ci_low: float | None
    """Lower end of the percentile bootstrap interval."""
    ci_high: float | None
    """Upper end of the percentile bootstrap interval."""


class AtK(_Model):
    """any-medal@k: the chance that at least one of k runs on a task earns a medal."""

    k: int
    """Runs drawn per task."""
    n_tasks: int
    """Tasks with a leaderboard and at least k runs (the mean is over these)."""
    estimate: Estimate
    """Mean over those tasks of 1 - C(n - c, k) / C(n, k) (n runs, c with a medal)."""


class SeedRule(_Model):
    """MLE-bench's aggregation over seeds, beside the bootstrap: each seed (run name) is one
    attempt at every task the agent has runs of; a task missing a run of that seed counts as a
    failure; the rates are computed per seed, then their mean and standard error over seeds
    are reported."""

    n_seeds: int
    """Run names (seeds) seen for the agent."""
    n_tasks: int
    """Tasks the agent has runs of."""
    missing_runs: int
    """(task, seed) pairs without a run, each counted as a failure."""
    valid_submission: Spread
    """Per seed: the fraction of tasks with a valid submission."""
    any_medal: Spread | None
    """Per seed: the fraction of tasks with a leaderboard where the run earned a medal (null
    without such tasks)."""


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
    leaderboard: bool
    """Whether the task has a leaderboard (else rank and medals are unknown)."""
    n_runs: int
    """Runs found."""
    n_with_submission: int
    """Runs with a submission file."""
    n_valid: int
    """Runs with a valid, scored submission."""
    n_failed: int
    """Runs the grader could not grade."""
    score: Spread | None
    """Score over valid runs."""
    rank: Spread | None
    """Leaderboard rank over valid ranked runs."""
    rank_pct: Spread | None
    """Rank percentage over the runs counted by the aggregation rule (the task's RankPct is
    its mean)."""
    any_medals: int | None
    """Runs with any medal (null without a leaderboard)."""
    gold_medals: int | None
    """Runs with gold."""
    silver_medals: int | None
    """Runs with silver."""
    bronze_medals: int | None
    """Runs with bronze."""
    above_median: int | None
    """Runs strictly better than the median."""


class AgentSummary(_Model):
    """Aggregates of one agent over every run (MLE-bench's total_* names where they exist)."""

    agent: str
    """Agent name."""
    total_runs: int
    """Runs."""
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
    total_failed: int
    """Runs the grader could not grade (timeout, unreadable, unknown or ambiguous task, error)."""
    status_counts: dict[str, int]
    """Runs per status."""
    runs_with_leaderboard: int
    """Runs on tasks with a leaderboard: the denominator of the medal rates."""
    made_submission_rate: float
    """total_runs_with_submissions / total_runs."""
    valid_submission_rate: Estimate
    """total_valid_submissions / total_runs."""
    any_medal_rate: Estimate | None
    """Runs with any medal / runs_with_leaderboard (null: no task has a leaderboard)."""
    gold_medal_rate: Estimate | None
    """Runs with gold / runs_with_leaderboard."""
    silver_medal_rate: Estimate | None
    """Runs with silver / runs_with_leaderboard."""
    bronze_medal_rate: Estimate | None
    """Runs with bronze / runs_with_leaderboard."""
    above_median_rate: Estimate | None
    """Runs above the median / runs_with_leaderboard."""
    any_medal_at_k: list[AtK]
    """any-medal@k for k = 1 up to the most runs of one task (at most 10)."""
    n_tasks: int
    """Distinct task folders attempted."""
    n_tasks_ranked: int
    """Tasks with a rank percentage under the aggregation rule."""
    modality_weighted_rank_pct: Estimate | None
    """The paper's modality-weighted mean of the tasks' rank percentages (lower is better)."""
    mean_rank_pct: Estimate | None
    """Unweighted mean of the tasks' rank percentages (lower is better)."""
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
    seed_rule: SeedRule | None = None
    """MLE-bench's rule over seeds (missing seeds count as failures; mean and standard error
    over seeds)."""


class PairedComparison(_Model):
    """Agent a against agent b on the tasks both have a rank percentage for."""

    agent_a: str
    """First agent."""
    agent_b: str
    """Second agent."""
    n_tasks: int
    """Shared ranked tasks."""
    difference: Estimate
    """Modality-weighted rank % of a minus that of b over the shared tasks (negative: a is
    better)."""
    better: str | None
    """The agent whose interval lies entirely on the better side of zero (null: undecided)."""


InvalidRunRule = Literal["last", "exclude"]


class Aggregation(_Model):
    """How runs are aggregated; the report states it."""

    invalid_runs: InvalidRunRule = "last"
    """Runs without a valid ranked submission on a task with a leaderboard: ``last`` counts
    them as last place (rank_pct 100), ``exclude`` leaves them out of rank averages."""
    bootstrap_samples: int = 1000
    """Bootstrap resamples of runs (0: no intervals)."""
    seed: int = 0
    """Seed of the bootstrap."""
    confidence: float = 0.95
    """Coverage of the intervals."""

    @property
    def statement(self) -> str:
        """The rule in one sentence, as the reports print it."""
        if self.invalid_runs == "last":
            rule = ("runs without a valid submission (invalid, missing, timed out, unreadable or "
                    "failed to grade) count as last place, rank_pct 100")
        else:
            rule = ("runs without a valid submission are left out of rank averages (they still "
                    "count in every rate)")
        interval = (f"{self.confidence:.0%} intervals from {self.bootstrap_samples} seeded "
                    f"bootstrap resamples of runs within each task (seed {self.seed})"
                    if self.bootstrap_samples else "no intervals (bootstrap off)")
        return f"Rank percentages: {rule}; {interval}."


class BatchReport(_Model):
    """Everything ``tambench grade-runs`` produces."""

    report_version: int = BATCH_REPORT_VERSION
    """Report format version; newer versions are refused by older readers."""
    created_at: datetime
    """When the batch started (UTC); every row's created_at."""
    runs_dir: str
    """The runs folder or JSONL file graded (as given)."""
    aggregation: Aggregation
    """How aggregates were computed."""
    aggregation_rule: str
    """The rule in one sentence."""
    warnings: list[str]
    """Batch-wide warnings (one per task without a leaderboard, ...)."""
    rows: list[RunRow]
    """One row per run, sorted by agent, task, run."""
    agents: list[AgentSummary]
    """One summary per agent, sorted by agent."""
    comparisons: list[PairedComparison]
    """Every pair of agents with shared ranked tasks."""

    @model_validator(mode="before")
    @classmethod
    def _read_known_versions(cls, data: Any) -> Any:
        version = check_report_version(data, BATCH_REPORT_VERSION, "batch")
        if version < BATCH_REPORT_VERSION:
            raise ReportVersionError(
                f"batch report_version {version} was written by an older tambench; grade the "
                "runs again to get the current report"
            )
        return data

    @property
    def n_failed(self) -> int:
        """Runs the grader could not grade."""
        return sum(1 for r in self.rows if r.failed)

    def row_records(self) -> list[dict[str, Any]]:
        """One plain dict per run (every field of :class:`RunRow`, ``medal`` included; the
        status as its text), in the rows' order."""
        records = []
        for row in self.rows:
            record = row.model_dump()
            record["status"] = row.status.value
            records.append(record)
        return records

    def to_pandas(self) -> Any:
        """The runs as a pandas DataFrame, one row per run (see :meth:`row_records`)."""
        pd = require("pandas", feature="BatchReport.to_pandas()")
        columns = [*RunRow.model_fields, *RunRow.model_computed_fields]
        return pd.DataFrame(self.row_records(), columns=columns)

    def to_polars(self) -> Any:
        """The runs as a polars DataFrame, one row per run (see :meth:`row_records`)."""
        import polars as pl

        columns = [*RunRow.model_fields, *RunRow.model_computed_fields]
        records = self.row_records()
        if not records:
            return pl.DataFrame(schema=dict.fromkeys(columns, pl.String))
        return pl.DataFrame(records, infer_schema_length=None).select(columns)


def load_batch_report(path: str | Path) -> BatchReport:
    """Read ``grades.json``, refusing newer or older report versions with a clear error."""
    data = load_json(Path(path), error=TaskDataError, bounds=REPORT_BOUNDS)
    try:
        return BatchReport.model_validate(data)
    except ValidationError as exc:
        raise TaskDataError(f"{path} does not validate as a batch report: {exc}") from None


class MleBenchReport(_Model):
    """The report ``mlebench grade`` writes (its names), with tambench's rows as the
    competition reports; written as ``<timestamp>_grading_report.json`` by ``--output-dir``."""

    report_version: int = BATCH_REPORT_VERSION
    """tambench's report format version."""
    total_runs: int
    """Runs."""
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
    competition_reports: list[RunRow]
    """One report per run (MLE-bench's fields plus tambench's)."""
