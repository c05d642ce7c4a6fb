"""``tambench validate``: is a submission valid? From the task's public files alone.

Exit 0 when valid, 1 when invalid (or on an error, as every command); ``--json`` prints the
verdict. No score, rank or medal: the answers are never opened.
"""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from pathlib import Path

import typer


class ExtraColumns(StrEnum):
    """What grading and validation do with columns beyond the expected header."""

    reject = "reject"
    ignore = "ignore"


EXTRA_COLUMNS_OPTION = typer.Option(
    None, "--extra-columns",
    help="ignore: columns beyond the expected header are ignored, as mlebench grade does; "
    "reject: refused (default: the task's rule, reject unless it declares otherwise).")

PUBLIC_DIR_OPTION = typer.Option(
    None, "--public-dir", help="The task's public folder (default: "
    "<data dir>/<platform>/<slug>/public); in an MLE-bench container, its data mount.")
SAMPLE_OPTION = typer.Option(
    None, "--sample-submission", help="The public file listing the test ids, by name in the "
    "public folder (default: sample_submission.csv, else test.csv).")
TASK_OPTION = typer.Option(
    ..., "--task", help="Task folder (holding task.json), task id <platform>/<slug>, or a bare "
    "slug (an MLE-bench competition id) when one platform has it.")
DATA_DIR_OPTION = typer.Option(
    None, "--data-dir", help="Prepared data: the public folder at <D>/<platform>/<slug>/public/ "
    "(or MLE-bench's <D>/<competition>/prepared/public/).")
CATALOGUE_OPTION = typer.Option(None, "--catalogue", help="Task catalogue folder.")


def validate(
    submission: Path = typer.Argument(..., help="The submission file."),
    task: str = TASK_OPTION,
    data_dir: Path | None = DATA_DIR_OPTION,
    catalogue: Path | None = CATALOGUE_OPTION,
    public_dir: Path | None = PUBLIC_DIR_OPTION,
    sample: str | None = SAMPLE_OPTION,
    json_out: bool = typer.Option(False, "--json", help="Print the verdict as strict JSON."),
    extra_columns: ExtraColumns | None = EXTRA_COLUMNS_OPTION,
) -> None:
    """Check a submission without the answers: the verdict and every problem, no score.

    Exit 0 when it is valid, 1 when it is not.
    """
    from tambench.cli._echo import echo
    from tambench.grading.grade import check_submission_path
    from tambench.grading.sanitize import report_text
    from tambench.grading.verdict import check_submission, resolve_public_task
    from tambench.validation.validate import with_extra_columns

    resolved = resolve_public_task(task, catalogue=catalogue, data_dir=data_dir,
                                   public_dir=public_dir)
    if extra_columns is not None:
        resolved = replace(resolved, spec=with_extra_columns(resolved.spec, extra_columns.value))
    reference = resolved.reference(sample)
    check_submission_path(submission)
    verdict = check_submission(submission, resolved, reference)
    for w in verdict.warnings:
        echo(f"warning: {report_text(w)}", err=True)
    if json_out:
        print(verdict.to_json())
    elif verdict.valid_submission:
        echo(f"{verdict.task_id}: submission valid")
    else:
        echo(f"{verdict.task_id}: submission invalid ({len(verdict.errors)} problem(s)):")
        for e in verdict.errors:
            echo(f"  - {report_text(e)}")
    if not verdict.valid_submission:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Attach the command."""
    app.command("validate")(validate)
