"""``tambench grade`` (one submission) and ``tambench grade-runs`` (a folder of agent runs)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from tambench.cli import _adhoc
from tambench.cli._executor import (
    executor_address_option,
    executor_option,
    max_workers_option,
    retries_option,
)
from tambench.cli.validate_cmd import EXTRA_COLUMNS_OPTION, ExtraColumns
from tambench.core.tables import Column, print_table
from tambench.grading.batch.deadline import DEFAULT_TIME_LIMIT

_ALLOW_QUARANTINED = typer.Option(
    False, "--allow-quarantined",
    help="Grade against a prepared task whose leakage audit failed (quarantine.json in its "
    "data folder); refused by default.")


def grade(
    submission: Path = typer.Argument(..., help="The submission file."),
    task: str | None = typer.Option(
        None, "--task", help="Task folder (holding task.json), task id <platform>/<slug>, or a "
        "bare slug (an MLE-bench competition id) when one platform has it."
    ),
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Prepared data: answers at <D>/<platform>/<slug>/private/ "
        "(or MLE-bench's <D>/<competition>/prepared/private/)."
    ),
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Task catalogue folder."),
    answers: Path | None = _adhoc.ANSWERS,
    metric: str | None = _adhoc.METRIC,
    metric_param: list[str] = _adhoc.METRIC_PARAM,
    id_column: list[str] = _adhoc.ID_COLUMN,
    target_column: list[str] = _adhoc.TARGET_COLUMN,
    not_target: list[str] = _adhoc.NOT_TARGET,
    answers_target_column: list[str] = _adhoc.ANSWERS_TARGET,
    submission_header: str | None = _adhoc.SUBMISSION_HEADER,
    fmt: str = _adhoc.FORMAT,
    label: list[str] = _adhoc.LABEL,
    labels_from: str | None = _adhoc.LABELS_FROM,
    label_equivalence: list[str] = _adhoc.LABEL_EQUIVALENCE,
    empty_token: str | None = _adhoc.EMPTY_TOKEN,
    unscored_marker: str | None = _adhoc.UNSCORED_MARKER,
    normalize_truths: str | None = _adhoc.NORMALIZE_TRUTHS,
    scored_where: str | None = _adhoc.SCORED_WHERE,
    scored_last: str | None = _adhoc.SCORED_LAST,
    extra_ids: str | None = _adhoc.EXTRA_IDS,
    ids_from: str | None = _adhoc.IDS_FROM,
    value_policy: list[str] = _adhoc.VALUE_POLICY,
    grading: str | None = _adhoc.GRADING,
    leaderboard: Path | None = typer.Option(
        None, "--leaderboard", help="Leaderboard file to rank against (any known format)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the report as strict JSON."),
    allow_quarantined: bool = _ALLOW_QUARANTINED,
    extra_columns: ExtraColumns | None = EXTRA_COLUMNS_OPTION,
) -> None:
    """Grade one submission: validate, score, rank and award medals."""
    from tambench.grading.grade import check_submission_path

    extra = None if extra_columns is None else extra_columns.value
    if task is not None:
        if answers is not None or metric is not None:
            raise typer.BadParameter("give either --task, or --answers with --metric, not both")
        report = _grade_task(submission, task, catalogue, data_dir, leaderboard,
                             allow_quarantined, extra)
    else:
        if answers is None or metric is None:
            raise typer.BadParameter("give --task, or --answers and --metric")
        opts = _adhoc.AdhocOptions(
            answers, metric, metric_param, id_column, target_column, not_target,
            answers_target_column, submission_header, fmt, label, labels_from,
            label_equivalence, empty_token, unscored_marker, normalize_truths, scored_where,
            scored_last, extra_ids, ids_from, value_policy, grading,
        )
        check_submission_path(submission)
        report = _grade_adhoc(submission, opts, leaderboard, extra)
    _show_report(report, json_out)


def _grade_task(submission: Path, task: str, catalogue: Path | None, data_dir: Path | None,
                leaderboard: Path | None, allow_quarantined: bool, extra: str | None) -> Any:
    """Grade against a task of the catalogue (its answers in the data folder)."""
    from tambench.grading.grade import check_submission_path, grade_submission, resolve_task
    from tambench.validation.validate import with_extra_columns

    resolved = resolve_task(task, catalogue=catalogue, data_dir=data_dir,
                            leaderboard=leaderboard, allow_quarantined=allow_quarantined)
    check_submission_path(submission)
    return grade_submission(submission, with_extra_columns(resolved.spec, extra),
                            resolved.answers, resolved.leaderboard)


def _grade_adhoc(submission: Path, opts: _adhoc.AdhocOptions, leaderboard: Path | None,
                 extra_columns: str | None) -> Any:
    """Grade against an answers file with a spec built from the flags."""
    from tambench.core.metrics import get_metric
    from tambench.grading.grade import adhoc_spec, grade_submission
    from tambench.validation.validate import load_answers, with_extra_columns

    fields_, public_dir = _adhoc.adhoc_grading(opts)
    spec = with_extra_columns(adhoc_spec(**fields_), extra_columns)
    grading = spec.grading
    if grading is None:  # adhoc_spec always sets it; this narrows the type
        raise typer.BadParameter("no grading spec")
    answers = load_answers(opts.answers, grading, get_metric(grading.metric),
                           public_dir=public_dir)
    return grade_submission(submission, spec, answers, leaderboard, answers_visible=True)


def _show_report(report: Any, json_out: bool) -> None:
    """Warnings on stderr; the report as JSON, or in a few lines."""
    from tambench.cli._echo import echo
    from tambench.grading.sanitize import report_text

    for w in report.warnings:
        echo(f"warning: {w}", err=True)
    if json_out:
        print(report.to_json())
        return

    if report.valid_submission:
        echo(f"{report.task_id}: {report.metric} = {report.score!r}")
        if report.rank is not None:
            echo(
                f"rank {report.rank} of {report.n_teams} (rank % {report.rank_pct:.2f}, lower "
                f"is better); medal: {report.medal or 'none'}; above median: "
                f"{'yes' if report.above_median else 'no'}")
        return
    what = "missing" if not report.submission_exists else "invalid"
    echo(f"{report.task_id}: submission {what} ({len(report.errors)} problem(s)):")
    for e in report.errors:
        echo(f"  - {report_text(e)}")


class InvalidRuns(StrEnum):
    """How runs without a valid submission count in rank averages."""

    last = "last"
    exclude = "exclude"


_RUNS = typer.Argument(
    ..., help="Runs folder (<agent>/<task>/<run>/, or MLE-bench run groups "
    "<group>/<competition>_<id>/submission/) or an MLE-bench submissions.jsonl.")
_CATALOGUE = typer.Option(None, "--catalogue", "--task-dir",
                          help="Task catalogue folder (default: settings).")
_DATA_DIR = typer.Option(None, "--data-dir", help="Prepared data folder (default: settings); "
                      "MLE-bench's <D>/<competition>/prepared/ layout is read too.")
_LEADERBOARD_DIR = typer.Option(
    None, "--leaderboard-dir",
    help="Leaderboards as <dir>/<slug>/leaderboard.csv (default: beside each task.json).")
_OUT = typer.Option(
    None, "--out", help="Write grades.json, grades.csv, report.html and manifest.json here; the "
    "folder is replaced as one unit by each batch (so it holds nothing else).")
_OUTPUT_DIR = typer.Option(None, "--output-dir",
                           help="Write MLE-bench's timestamped <time>_grading_report.json here.")
_WORKERS = typer.Option(None, "--workers", min=0, help="Alias of --max-workers.")
_INVALID_RUNS = typer.Option(
    InvalidRuns.last, "--invalid-runs",
    help="Runs without a valid submission count as last place (rank % 100), or are excluded "
    "from rank averages. The report states the rule.")
_BOOTSTRAP = typer.Option(1000, "--bootstrap", min=0,
                          help="Bootstrap resamples for intervals (0: none).")
_SEED = typer.Option(0, "--seed", help="Seed of the bootstrap.")
_TIME_LIMIT = typer.Option(
    DEFAULT_TIME_LIMIT, "--time-limit", min=0,
    help="Seconds one run may take to grade; past it the run gets status timeout and the batch "
    "goes on (0: no limit).")
_AGENT = typer.Option(None, "--agent",
                      help="Agent of JSONL lines that name none (default: the file's folder).")
_JSON = typer.Option(False, "--json", help="Print the batch report as strict JSON.")
_JUDGE_MODEL = typer.Option(
    None, "--judge-model",
    help="Model that judges each run's solution file against the task's constraints (default: "
    "settings llm_model; without one, constraints are reported as not judged).")
_JUDGE_BASE_URL = typer.Option(None, "--judge-base-url",
                               help="OpenAI-compatible endpoint of the judge model.")


def grade_runs(
    runs_dir: Path = _RUNS,
    catalogue: Path | None = _CATALOGUE,
    data_dir: Path | None = _DATA_DIR,
    leaderboard_dir: Path | None = _LEADERBOARD_DIR,
    out: Path | None = _OUT,
    output_dir: Path | None = _OUTPUT_DIR,
    executor: str | None = executor_option(),
    executor_address: str | None = executor_address_option(),
    max_workers: int | None = max_workers_option(),
    workers: int | None = _WORKERS,
    retries: int | None = retries_option(),
    invalid_runs: InvalidRuns = _INVALID_RUNS,
    bootstrap: int = _BOOTSTRAP,
    seed: int = _SEED,
    time_limit: float = _TIME_LIMIT,
    agent: str | None = _AGENT,
    json_out: bool = _JSON,
    judge_model: str | None = _JUDGE_MODEL,
    judge_base_url: str | None = _JUDGE_BASE_URL,
    allow_quarantined: bool = _ALLOW_QUARANTINED,
    extra_columns: ExtraColumns | None = EXTRA_COLUMNS_OPTION,
) -> None:
    """Grade every run and aggregate per agent; exit 3 when some runs could not be graded."""
    from tambench.cli._executor import open_executor
    from tambench.grading.batch import Aggregation, batch_to_json
    from tambench.grading.batch import grade_runs as run_batch

    agg = Aggregation(invalid_runs=invalid_runs.value, bootstrap_samples=bootstrap, seed=seed)
    if out is not None:  # a folder that cannot take the set is refused before any grading
        from tambench.grading.batch.writers import check_report_folder

        check_report_folder(out)
    with open_executor(executor, executor_address, max_workers if workers is None else workers,
                       retries) as (pool, settings):
        report = run_batch(
            runs_dir, catalogue=catalogue, data_dir=data_dir, leaderboard_dir=leaderboard_dir,
            executor=pool, retries=settings.retries, progress=True, aggregation=agg,
            time_limit=time_limit, agent=agent, allow_quarantined=allow_quarantined,
            extra_columns=None if extra_columns is None else extra_columns.value,
            judge=_judge_config(judge_model or settings.llm_model,
                                judge_base_url or settings.llm_base_url or None),
        )
    written = _write_reports(report, out, output_dir)
    if json_out:
        print(batch_to_json(report))
    else:
        _print_batch(report, written)
    _print_problems(report)
    if report.n_failed:
        raise typer.Exit(3)


def _judge_config(model: str | None, base_url: str | None) -> Any:
    if not model:  # no judge: its code is not even imported
        return None
    from tambench.grading.batch import JudgeConfig
    from tambench.judge import default_cache_dir

    return JudgeConfig(model=model, base_url=base_url, cache_dir=str(default_cache_dir()))


def _write_reports(report: Any, out: Path | None, output_dir: Path | None) -> list[Path]:
    """The report set into ``out`` (replaced as one unit); MLE-bench's timestamped file into
    ``output_dir``, or into the set when both name one folder."""
    from tambench.grading.batch import write_batch_outputs, write_mle_bench_report
    from tambench.grading.batch.writers import mle_bench_report_name, mle_bench_report_text

    written: list[Path] = []
    same = out is not None and output_dir is not None and out.resolve() == output_dir.resolve()
    if out is not None:
        extra = {mle_bench_report_name(report.created_at): mle_bench_report_text(report)} \
            if same else None
        written += list(write_batch_outputs(report, out, extra).values())
    if output_dir is not None and not same:
        written.append(write_mle_bench_report(report, output_dir))
    return written


def _interval(e: Any, scale: float = 1.0) -> str | None:
    if e is None:
        return None
    text = f"{scale * e.value:.1f}"
    if e.ci_low is not None and e.ci_high is not None:
        text += f" [{scale * e.ci_low:.1f}, {scale * e.ci_high:.1f}]"
    return text


#: The per-agent table of ``grade-runs``: the agent is never cut; on a narrow terminal the
#: constraint and secondary rate columns go first, the headline rank % last.
BATCH_COLUMNS = (
    Column("agent", key=True), Column("runs", priority=8, align="right"),
    Column("valid %", priority=7, align="right"),
    Column("weighted rank % [CI]", priority=9), Column("any medal % [CI]", priority=6),
    Column("gold %", priority=3),
    Column("above median %", priority=2), Column("constraints", priority=1),
    Column("failed", priority=5, align="right"),
)


def _print_batch(report: Any, written: list[Path]) -> None:
    from tambench.cli._echo import echo  # plain lines: rich is not needed (nor imported)

    print_table(BATCH_COLUMNS, [
        (a.agent, a.total_runs, f"{100 * a.valid_submission_rate.value:.1f}",
         _interval(a.modality_weighted_rank_pct), _interval(a.any_medal_rate, 100),
         _interval(a.gold_medal_rate, 100), _interval(a.above_median_rate, 100),
         None if a.constraint_pass_rate is None
         else f"{a.constraints_passed}/{a.constraints_total}",
         a.total_failed)
        for a in report.agents])
    if all(a.constraint_pass_rate is None for a in report.agents):
        echo("constraints: not judged (no judge model; see --judge-model)")
    echo(report.aggregation_rule)
    for path in written:  # the README's rule: "wrote ..." lines go to stderr, as progress does
        echo(f"wrote {path}", err=True)


def _print_problems(report: Any) -> None:
    """Batch warnings, then the distinct reasons runs could not be graded, on stderr."""
    from collections import Counter

    from tambench.cli._echo import echo

    for w in report.warnings:
        echo(f"warning: {w}", err=True)
    reasons = Counter(f"{r.status.value}: {r.error}" for r in report.rows if r.failed)
    for reason, n in reasons.most_common(10):
        echo(f"{n} run(s) {reason}", err=True)
    if len(reasons) > 10:
        echo(f"... {len(reasons) - 10} more distinct reasons (see the report)", err=True)


def register(app: typer.Typer) -> None:
    """Attach the commands."""
    app.command("grade")(grade)
    app.command("grade-runs")(grade_runs)
