"""``tambench grade`` (one submission) and ``tambench grade-runs`` (a folder of agent runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from tambench.cli._executor import (
    executor_address_option,
    executor_option,
    max_workers_option,
    retries_option,
)


def _parse_params(items: list[str]) -> dict[str, Any]:
    """``k=v`` pairs; values are read as JSON when they parse (numbers, booleans), else text."""
    import json

    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise typer.BadParameter(f"--metric-param {item!r}: expected key=value")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = json.loads(v)
        except json.JSONDecodeError:
            out[k.strip()] = v
    return out


def grade(
    submission: Path = typer.Argument(..., help="The submission file."),
    task: str | None = typer.Option(
        None, "--task", help="Task folder (holding task.json) or task id <platform>/<slug>."
    ),
    data_dir: Path | None = typer.Option(
        None, "--data-dir", help="Prepared data: answers at <D>/<platform>/<slug>/private/."
    ),
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Task catalogue folder."),
    answers: Path | None = typer.Option(None, "--answers", help="Answers file (no catalogue)."),
    metric: str | None = typer.Option(None, "--metric", help="Metric id (with --answers)."),
    metric_param: list[str] = typer.Option(
        [], "--metric-param", help="Metric parameter k=v (repeatable)."
    ),
    id_column: list[str] = typer.Option([], "--id-column", help="Id column (repeatable)."),
    target_column: list[str] = typer.Option(
        [], "--target-column", help="Target column (repeatable; default: the answers' others)."
    ),
    fmt: str = typer.Option("csv", "--format", help="Submission format: csv, json or txt."),
    leaderboard: Path | None = typer.Option(
        None, "--leaderboard", help="Leaderboard file to rank against (any known format)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the report as strict JSON."),
) -> None:
    """Grade one submission: validate, score, rank and award medals."""
    from tambench.cli._console import console
    from tambench.errors import ConfigError
    from tambench.grading.grade import adhoc_spec, grade_submission, resolve_task

    if task is not None:
        if answers is not None or metric is not None:
            raise typer.BadParameter("give either --task, or --answers with --metric, not both")
        resolved = resolve_task(task, catalogue=catalogue, data_dir=data_dir,
                                leaderboard=leaderboard)
        spec, answers_path, lb = resolved.spec, resolved.answers, resolved.leaderboard
    else:
        if answers is None or metric is None:
            raise typer.BadParameter("give --task, or --answers and --metric")
        if fmt == "csv" and not id_column:
            raise typer.BadParameter("--id-column is required for csv submissions")
        targets = list(target_column) or _other_columns(answers, id_column)
        if fmt == "csv" and not targets:
            raise ConfigError(f"cannot tell the target columns of {answers}; give --target-column")
        spec = adhoc_spec(metric=metric, id_columns=list(id_column), target_columns=targets,
                          metric_params=_parse_params(metric_param), submission_format=fmt,
                          answers_file=answers.name)
        answers_path, lb = answers, leaderboard
    report = grade_submission(submission, spec, answers_path, lb)
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


def _other_columns(answers: Path, id_columns: list[str]) -> list[str]:
    """The answers' columns other than the ids (read from its header line only)."""
    import csv

    with open(answers, encoding="utf-8-sig", newline="") as fh:
        header = next(csv.reader(fh), [])
    return [c for c in header if c not in id_columns]


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
