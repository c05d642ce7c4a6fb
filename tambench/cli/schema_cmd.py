"""``tambench schema``: export the TaskSpec JSON Schema, convert and validate task files."""

from __future__ import annotations

import json
from pathlib import Path

import typer

schema_app = typer.Typer(help="The TaskSpec schema: export, convert, validate.", no_args_is_help=True)


@schema_app.command("export")
def export(
    out: Path | None = typer.Option(None, "--out", "-o", help="Write here instead of stdout."),
) -> None:
    """Write the TaskSpec JSON Schema (field docstrings included as descriptions)."""
    from tambench.schema.io import taskspec_json_schema, write_text_atomic

    text = json.dumps(taskspec_json_schema(), indent=2, ensure_ascii=False) + "\n"
    if out is None:
        typer.echo(text, nl=False)
    else:
        write_text_atomic(out, text)
        typer.echo(f"wrote {out}", err=True)


@schema_app.command("convert")
def convert(
    paper_schema: Path = typer.Argument(..., help="A schema.json in the paper's release format."),
    task_id: str = typer.Option(..., "--id", help="Task id <platform>/<slug>."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write here instead of stdout."),
) -> None:
    """Convert a paper-format schema.json into a TaskSpec (lossless)."""
    from tambench.schema.io import dump_taskspec, load_taskspec, save_taskspec

    spec = load_taskspec(paper_schema, task_id=task_id)
    if out is None:
        typer.echo(dump_taskspec(spec), nl=False)
    else:
        save_taskspec(spec, out)
        typer.echo(f"wrote {out}", err=True)


@schema_app.command("validate")
def validate(paths: list[Path] = typer.Argument(..., help="task.json files.")) -> None:
    """Validate task files; migrates older schema versions in memory."""
    from tambench.cli._console import console
    from tambench.schema.io import load_taskspec

    for p in paths:
        spec = load_taskspec(p)
        console.print(f"ok  {spec.id}  ({p})")


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(schema_app, name="schema")
