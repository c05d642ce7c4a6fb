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
    from tambench.fileio import write_text_atomic
    from tambench.schema.io import taskspec_json_schema

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
    """Validate task files (migrating older schema versions in memory); a file that says it is
    complete must be (``tambench.schema.complete``: the definition ``tasks validate`` uses too).
    Exit 3 when any file has a problem."""
    from tambench.cli._console import console
    from tambench.schema.complete import status_problems
    from tambench.schema.io import load_taskspec

    failed = 0
    for p in paths:
        spec = load_taskspec(p)
        problems = status_problems(spec)
        for message in problems:
            console.print(f"error: {p}: {message}", markup=False)
        if problems:
            failed += 1
        else:
            console.print(f"ok  {spec.id}  [{spec.status}]  ({p})", markup=False)
    if failed:
        raise typer.Exit(3)


@schema_app.command("map")
def map_cmd(
    pages: Path = typer.Argument(
        ..., help="A folder of <kind>.md pages (overview, data, evaluation, rules) or one .md."),
    task_id: str = typer.Option(..., "--id", help="Task id <platform>/<slug>."),
    llm: str | None = typer.Option(
        None, "--llm", help="Model for the LLM mapper (default: the offline rule-based mapper)."),
    base_url: str | None = typer.Option(
        None, "--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL)."),
    api_key_env: str = typer.Option(
        "OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the API key."),
    url: str = typer.Option("", "--url", help="The competition's overview URL."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Also write the TaskSpec here."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as strict JSON."),
) -> None:
    """Map competition pages' Markdown to a TaskSpec, with evidence for every field."""
    from tambench.cli._console import console, print_json
    from tambench.schema.io import save_taskspec
    from tambench.schema.mapping import map_pages
    from tambench.schema.mapping.markdown import PAGE_KINDS

    if pages.is_dir():
        texts = {p.stem: p.read_text(encoding="utf-8") for p in sorted(pages.glob("*.md"))}
        unknown = sorted(set(texts) - set(PAGE_KINDS))
        if unknown or not texts:
            raise typer.BadParameter(
                f"expected pages named {', '.join(k + '.md' for k in PAGE_KINDS)} in {pages}; "
                f"got {sorted(p.name for p in pages.glob('*.md')) or 'no .md file'}")
    elif pages.is_file():
        texts = {"all": pages.read_text(encoding="utf-8")}
    else:
        raise typer.BadParameter(f"{pages} is neither a folder nor a file")
    result = map_pages(texts, task_id=task_id, url=url, llm=llm, base_url=base_url,
                       api_key_env=api_key_env)
    if out is not None:
        save_taskspec(result.spec, out)
        typer.echo(f"wrote {out}", err=True)
    if as_json:
        print_json({
            "mapper": result.mapper,
            "unfilled": result.unfilled,
            "evidence": result.evidence,
            "warnings": result.warnings,
            "spec": result.spec.model_dump(mode="json"),
        })
        return
    spec = result.spec
    g = spec.grading
    console.print(f"{spec.id}  mapper={result.mapper}  status={spec.status}")
    rows = [
        ("title", spec.title), ("task_type", spec.task_type),
        ("modality", spec.modality.value if spec.modality else ""),
        ("metric", f"{g.metric} {g.metric_params or ''}".strip() if g else ""),
        ("submission_header", ",".join(g.submission_header) if g else ""),
        ("id_columns", ",".join(g.id_columns) if g else ""),
        ("target_columns", ",".join(g.target_columns) if g else ""),
    ]
    for name, value in rows:
        console.print(f"  {name:18} {value}", markup=False)
    for path, quote in result.evidence.items():
        console.print(f"  evidence {path}: {quote[:100]!r}", markup=False)
    if result.unfilled:
        console.print(f"  unfilled: {', '.join(result.unfilled)}", markup=False)
    for w in result.warnings:
        console.print(f"  warning: {w}", markup=False)


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(schema_app, name="schema")
