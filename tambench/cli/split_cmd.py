"""``tambench prepare``, ``tambench audit`` and ``tambench check-split``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from tambench.cli._executor import (
    executor_address_option,
    executor_option,
    max_workers_option,
    retries_option,
)
from tambench.cli._pages import page_options, pages_from_option, pages_online_option

if TYPE_CHECKING:
    from tambench.schema.taskspec import TaskSpec


def resolve_task(task: str, catalogue: Path | None = None) -> TaskSpec:
    """A task from a task.json path, a task folder, an id or a slug in the catalogue."""
    from tambench.tasks.locate import load_task

    return load_task(task, catalogue)


_CATALOGUE = typer.Option(
    None, "--catalogue", help="Task catalogue folder in which task ids are looked up (default: "
    "settings, else the bundled one).")


def _data_dir(data_dir: Path | None) -> Path:
    from tambench.config import load_settings

    return load_settings(data_dir=data_dir).data_dir


def _raw_for(spec: TaskSpec, raw: Path, many: bool) -> str:
    """The raw input of one task: ``raw`` itself, or ``raw/<slug>[.zip|.tar|...]`` for many."""
    from tambench.errors import SourceError

    if not many:
        return str(raw)
    for name in (spec.slug, f"{spec.slug}.zip", f"{spec.slug}.tar", f"{spec.slug}.tar.gz",
                 f"{spec.slug}.tgz"):
        if (raw / name).exists():
            return str(raw / name)
    raise SourceError(f"no raw data for {spec.id} under {raw} (expected {spec.slug}/ or "
                      f"{spec.slug}.zip)")


def _print_audit(report: Any) -> None:
    from rich.text import Text

    from tambench.cli._console import console

    for c in report.checks:
        colour = {"pass": "green", "fail": "red", "skipped": "yellow"}[c.status]
        detail = f" ({c.detail})" if c.detail else ""
        console.print(Text.assemble((f"{c.status:7}", colour), f" {c.name}{detail}"))
        for f in c.findings:
            console.print(f"        - {f}", markup=False)


def prepare(
    tasks: list[str] = typer.Argument(..., help="task.json path(s), task folder(s) or task id(s)."),
    raw: Path | None = typer.Option(
        None, "--raw", help="Raw data folder or archive (several tasks: a folder holding "
        "<slug>/ or <slug>.zip per task)."),
    download: bool = typer.Option(False, "--download", help="Download the data from Kaggle."),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Where prepared tasks go."),
    catalogue: Path | None = _CATALOGUE,
    force: bool = typer.Option(False, "--force", help="Rebuild even if checksums match."),
    no_audit: bool = typer.Option(False, "--no-audit", help="Skip the leakage audit."),
    pages_from: list[str] = pages_from_option(),
    pages_online: bool = pages_online_option(),
    executor: str | None = executor_option(),
    executor_address: str | None = executor_address_option(),
    max_workers: int | None = max_workers_option(),
    retries: int | None = retries_option(),
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
    like: str | None = typer.Option(
        None, "--like", help="mle-bench: MLE-bench's own files, row for row, for the tasks "
        "whose MLE-bench prepare.py is one train_test_split of a raw table (with --raw DIR; "
        "needs pandas: the mlebench extra)."),
) -> None:
    """Split raw competition data into public/ (with description.md, instructions.txt) and
    private/, then audit it for leakage."""
    from tambench.config import load_settings
    from tambench.grading.grade import grade_submission
    from tambench.splits.prepare import PrepareJob, prepare_job, prepare_many

    if (raw is None) == (not download):
        raise typer.BadParameter("give exactly one of --raw DIR_OR_ARCHIVE or --download")
    settings = load_settings(data_dir=data_dir, executor=executor, max_workers=max_workers)
    specs = [resolve_task(t, catalogue) for t in tasks]
    many = len(specs) > 1
    if like is not None:
        _prepare_like(like, specs, raw, many, settings.data_dir, json_out)
        return
    pages = page_options(pages_from, pages_online, catalogue, specs)
    jobs = [PrepareJob(spec=s, raw=None if download else _raw_for(s, raw, many) if raw else None,
                       data_dir=str(settings.data_dir), force=force, run_audit=not no_audit,
                       grader=grade_submission, pages=pages)
            for s in specs]
    if many:
        from tambench.cli._executor import open_executor

        with open_executor(executor, executor_address, max_workers, retries) as (pool, resolved):
            outcomes = prepare_many(jobs, executor=pool, retries=resolved.retries,
                                    progress=True)
    else:
        outcomes = [prepare_job(jobs[0], progress=True)]
    _report_prepared(outcomes, many, json_out)


def _report_prepared(outcomes: list[Any], many: bool, json_out: bool) -> None:
    """Print what ``prepare`` did; one task's failure is the command's error, several tasks'
    failures exit 3."""
    from tambench.cli._console import console, print_json

    if json_out:
        print_json([o.__dict__ for o in outcomes])
    else:
        for o in outcomes:
            if o.ok:
                console.print(f"{o.task_id}: {o.status} in {o.task_dir} (rows {o.rows})")
                console.print(f"  pages: {o.pages or 'none'}", markup=False)
            elif many:  # one task's failure is the command's one error line, printed once
                console.print(f"{o.task_id}: FAILED ({o.error_type})\n{o.error}")
    failed = [o for o in outcomes if not o.ok]
    if failed and not many:
        from tambench.errors import TambenchError

        raise TambenchError(failed[0].error)
    if failed:
        raise typer.Exit(3)


def _prepare_like(like: str, specs: list[TaskSpec], raw: Path | None, many: bool,
                  data_dir: Path, json_out: bool) -> None:
    """``prepare --like mle-bench``: MLE-bench's split (:mod:`tambench.splits.like_mlebench`)."""
    from tambench.cli._console import console, print_json
    from tambench.splits.like_mlebench import prepare_like_mle_bench

    if like != "mle-bench":
        raise typer.BadParameter(f"expected mle-bench, got {like!r}", param_hint="--like")
    if raw is None:
        raise typer.BadParameter("--like mle-bench reads a raw folder: give --raw DIR")
    done = []
    for spec in specs:
        folder = prepare_like_mle_bench(spec, Path(_raw_for(spec, raw, many)), data_dir)
        done.append({"task_id": spec.id, "task_dir": str(folder), "like": like})
        if not json_out:
            console.print(f"{spec.id}: prepared like {like} in {folder} (no leakage audit: "
                          "the split is MLE-bench's)", markup=False)
    if json_out:
        print_json(done)


def audit(
    task: str = typer.Argument(..., help="task.json path, task folder or task id."),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Where prepared tasks are."),
    catalogue: Path | None = _CATALOGUE,
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
) -> None:
    """Run the leakage audit on a prepared task (exit 1 with every finding when it fails).

    A failed audit quarantines the task (it is not graded); a passing one lifts a quarantine.
    With --json the full report (every check, its status and findings) is printed whether the
    audit passes or fails.
    """
    from tambench.cli._console import print_json
    from tambench.grading.grade import grade_submission
    from tambench.splits.layout import task_dir
    from tambench.splits.prepare import audit_prepared

    spec = resolve_task(task, catalogue)
    report = audit_prepared(spec, task_dir(spec, _data_dir(data_dir)), grader=grade_submission)
    if not json_out:
        _print_audit(report)
        report.raise_for_findings()
        return
    # A failed audit is a result, like an invalid submission: the whole report, exit 1.
    print_json(report.model_dump(mode="json"))
    if not report.passed:
        from tambench.cli._echo import echo

        echo(f"error: leakage audit of {report.task_id} failed ({len(report.findings)} "
             "finding(s)); the task is quarantined", err=True)
        raise typer.Exit(1)


def check_split_cmd(
    input_csv: Path = typer.Argument(..., help="CSV with task, submission, official_score "
                                     "[, leaderboard]."),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Where prepared tasks are."),
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
) -> None:
    """Score baselines locally and compare with their official scores (per task and overall)."""
    from tambench.cli._console import console, print_json
    from tambench.grading.check_split import check_split, read_check_input

    def leaderboard_for(spec: TaskSpec) -> Path | None:
        from tambench.config import load_settings
        from tambench.core.layout import LEADERBOARD_FILE

        p = load_settings().catalogue / spec.platform / spec.slug / LEADERBOARD_FILE
        return p if p.is_file() else None

    report = check_split(read_check_input(input_csv), resolve_task, _data_dir(data_dir),
                         leaderboard_for=leaderboard_for)
    if json_out:
        print_json(report.model_dump(mode="json"))
    else:
        for r in report.rows:
            if r.error:
                console.print(f"{r.task}: FAILED {r.error}")
                continue
            pct = (f", percentile official {r.official_percentile:.4f} local "
                   f"{r.local_percentile:.4f}" if r.official_percentile is not None
                   and r.local_percentile is not None else "")
            console.print(f"{r.task}: official {r.official_score:.6g} local {r.local_score:.6g} "
                          f"|diff| {r.abs_error:.3g}{pct}")
        console.print(f"pearson over tasks: {report.pearson}; median rank-percentile error "
                      f"(points): {report.median_percentile_error_points}")
    if report.failed:
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    """Attach the commands."""
    app.command("prepare")(prepare)
    app.command("audit")(audit)
    app.command("check-split")(check_split_cmd)
