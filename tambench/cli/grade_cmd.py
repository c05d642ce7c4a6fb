"""``tambench grade`` (one submission) and ``tambench grade-runs`` (a folder of agent runs)."""

from __future__ import annotations

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


def grade(
    submission: Path = typer.Argument(..., help="The submission file."),
    task: str | None = typer.Option(
        None, "--task", help="Task folder (holding task.json) or task id <platform>/<slug>."
    ),
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Prepared data: answers at <D>/<platform>/<slug>/private/."
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
) -> None:
    """Grade one submission: validate, score, rank and award medals."""
    from tambench.grading.grade import grade_submission, resolve_task

    if task is not None:
        if answers is not None or metric is not None:
            raise typer.BadParameter("give either --task, or --answers with --metric, not both")
        resolved = resolve_task(task, catalogue=catalogue, data_dir=data_dir,
                                leaderboard=leaderboard)
        report = grade_submission(submission, resolved.spec, resolved.answers,
                                  resolved.leaderboard)
    else:
        if answers is None or metric is None:
            raise typer.BadParameter("give --task, or --answers and --metric")
        opts = _adhoc.AdhocOptions(
            answers, metric, metric_param, id_column, target_column, not_target,
            answers_target_column, submission_header, fmt, label, labels_from, empty_token,
            unscored_marker, normalize_truths, scored_where, scored_last, extra_ids, ids_from,
            value_policy, grading,
        )
        report = _grade_adhoc(submission, opts, leaderboard)
    _print_report(report, json_out)


def _grade_adhoc(submission: Path, opts: _adhoc.AdhocOptions, leaderboard: Path | None) -> Any:
    """Grade against an answers file with a spec built from the flags."""
    from tambench.core.metrics import get_metric
    from tambench.grading.grade import adhoc_spec, grade_submission
    from tambench.grading.validate import load_answers

    fields_, public_dir = _adhoc.adhoc_grading(opts)
    spec = adhoc_spec(**fields_)
    grading = spec.grading
    if grading is None:  # adhoc_spec always sets it; this narrows the type
        raise typer.BadParameter("no grading spec")
    answers = load_answers(opts.answers, grading, get_metric(grading.metric),
                           public_dir=public_dir)
    return grade_submission(submission, spec, answers, leaderboard)


def _print_report(report: Any, json_out: bool) -> None:
    from tambench.cli._console import console

    if json_out:
        print(report.to_json())
        return
    if report.valid_submission:
        console.print(f"{report.task_id}: {report.metric} = {report.score!r}", markup=False)
        if report.rank is not None:
            console.print(
                f"rank {report.rank} of {report.n_teams} (percentile {report.percentile:.4f}); "
                f"medal: {report.medal or 'none'}; above median: {report.above_median}",
                markup=False,
            )
    else:
        what = "missing" if not report.submission_exists else "invalid"
        console.print(f"{report.task_id}: submission {what} ({len(report.errors)} problem(s)):",
                      markup=False)
        for e in report.errors:
            console.print(f"  - {e}", markup=False)


def grade_runs(
    runs_dir: Path = typer.Argument(..., help="Folder laid out <agent>/<task>/<run>/."),
    catalogue: Path | None = typer.Option(
        None, "--catalogue", "--task-dir", help="Task catalogue folder [default: settings]."
    ),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Prepared data folder."),
    leaderboard_dir: Path | None = typer.Option(
        None, "--leaderboard-dir",
        help="Leaderboards as <dir>/<slug>/leaderboard.csv (default: beside each task.json).",
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Write grades.json, grades.csv and report.html here."
    ),
    executor: str | None = executor_option(),
    executor_address: str | None = executor_address_option(),
    max_workers: int | None = max_workers_option(),
    workers: int | None = typer.Option(None, "--workers", min=0, help="Alias of --max-workers."),
    retries: int | None = retries_option(),
    invalid_percentile: float | None = typer.Option(
        None, "--invalid-percentile",
        help="Rank percentage counted for runs without a valid ranked submission "
        "(default: left out of the means).",
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the batch report as strict JSON."),
    judge_model: str | None = typer.Option(
        None, "--judge-model",
        help="Model that judges each run's solution file against the task's constraints "
        "[default: settings llm_model; none: constraints are reported as not judged].",
    ),
    judge_base_url: str | None = typer.Option(
        None, "--judge-base-url", help="OpenAI-compatible endpoint of the judge model."
    ),
) -> None:
    """Grade every <agent>/<task>/<run>/submission.* and aggregate per agent (exit 3 when
    some runs failed with status error)."""
    from rich.table import Table
    from rich.text import Text

    from tambench.cli._console import console
    from tambench.cli._executor import open_executor
    from tambench.grading.batch import JudgeConfig, batch_to_json, write_batch_outputs
    from tambench.grading.batch import grade_runs as run_batch
    from tambench.grading.judge import default_cache_dir

    with open_executor(executor, executor_address, max_workers if workers is None else workers,
                       retries) as (pool, settings):
        model = judge_model or settings.llm_model
        judge = JudgeConfig(
            model=model, base_url=judge_base_url or settings.llm_base_url or None,
            cache_dir=str(default_cache_dir()),
        ) if model else None
        report = run_batch(
            runs_dir, catalogue=catalogue, data_dir=data_dir, leaderboard_dir=leaderboard_dir,
            executor=pool, retries=settings.retries, progress=True,
            invalid_percentile=invalid_percentile, judge=judge,
        )
    if out is not None:
        write_batch_outputs(report, out)
    if json_out:
        print(batch_to_json(report))
    else:
        table = Table("agent", "runs", "submitted", "valid", "medals", "above median",
                      "weighted rank %", "constraints", "errors")
        for a in report.agents:
            table.add_row(
                Text(a.agent), str(a.total_runs), str(a.total_runs_with_submissions),
                str(a.total_valid_submissions), str(a.total_medals), str(a.total_above_median),
                "" if a.modality_weighted_rank_pct is None
                else f"{100 * a.modality_weighted_rank_pct:.1f}",
                "not judged" if a.constraint_pass_rate is None
                else f"{a.constraints_passed}/{a.constraints_total}",
                str(a.total_errors),
            )
        console.print(table)
        if out is not None:
            console.print(f"wrote {out}/grades.json, grades.csv, report.html", markup=False)
    if report.n_failed:
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    """Attach the commands."""
    app.command("grade")(grade)
    app.command("grade-runs")(grade_runs)
