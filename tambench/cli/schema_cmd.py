"""``tambench schema``: export the TaskSpec JSON Schema, convert and validate task files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from tambench.schema.mapping import MappingResult

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
    Every file is checked (a path that does not exist or is a folder is a mistake: exit 1
    before any is checked); exit 3 when any file has a problem."""
    from tambench.cli._console import console
    from tambench.errors import InputError, SchemaVersionError, TaskSpecError
    from tambench.schema.complete import status_problems
    from tambench.schema.io import load_taskspec

    wrong = [str(p) for p in paths if not p.is_file()]
    if wrong:
        raise InputError(f"not a task file (missing, or a folder): {', '.join(wrong)}")
    failed = 0
    for p in paths:
        try:
            spec = load_taskspec(p)
        except (TaskSpecError, SchemaVersionError, OSError) as exc:
            message = str(exc) if not isinstance(exc, OSError) else (
                f"cannot be read: {exc.strerror or exc}")
            named = message if str(p) in message else f"{p}: {message}"
            console.print(f"error: {named}", markup=False)
            failed += 1
            continue
        problems = status_problems(spec)
        for message in problems:
            console.print(f"error: {p}: {message}", markup=False)
        if problems:
            failed += 1
        else:
            console.print(f"ok  {spec.id}  [{spec.status}]  ({p})", markup=False)
    if failed:
        raise typer.Exit(3)


def _read_pages(pages: Path) -> tuple[dict[str, str], list[str]]:
    """Page kind -> text from a folder of <kind>.md pages or one .md file, and remarks on
    pages that were not UTF-8. Unreadable input raises SchemaMappingError (no traceback)."""
    from tambench.errors import SchemaMappingError
    from tambench.schema.mapping.markdown import PAGE_KINDS
    from tambench.schema.mapping.pageio import read_page

    if pages.is_dir():
        files = sorted(pages.glob("*.md"))
        unknown = sorted(p.stem for p in files if p.stem not in PAGE_KINDS)
        if unknown or not files:
            raise typer.BadParameter(
                f"expected pages named {', '.join(k + '.md' for k in PAGE_KINDS)} in {pages}; "
                f"got {[p.name for p in files] or 'no .md file'}")
        decoded = {p.stem: read_page(p) for p in files}
    elif pages.exists():
        decoded = {"all": read_page(pages)}
    else:
        raise SchemaMappingError(f"page file not found: {pages}")
    notes = [f"{kind}: {d.note}" for kind, d in decoded.items() if d.note]
    return {kind: d.text for kind, d in decoded.items()}, notes


def _print_mapping(result: MappingResult) -> None:
    """The human-readable result: fields, evidence, unfilled fields, warnings (page text is
    data: never read as console markup)."""
    from tambench.cli._console import console
    from tambench.schema.mapping import submission_header_of

    spec = result.spec
    g = spec.grading
    pending = spec.provenance.pending_grading
    src = g if g is not None else pending
    metric = (f"{g.metric} {g.metric_params or ''}".strip() if g is not None
              else f"(none: {pending.reason})" if pending is not None else "")
    console.print(f"{spec.id}  mapper={result.mapper}  status={spec.status}", markup=False)
    rows = [
        ("title", spec.title), ("task_type", spec.task_type),
        ("modality", spec.modality.value if spec.modality else ""),
        ("metric", metric), ("metric_name", spec.metric.metric_name),
        ("submission_header", ",".join(submission_header_of(spec))),
        ("id_columns", ",".join(src.id_columns) if src is not None else ""),
        ("target_columns", ",".join(src.target_columns) if src is not None else ""),
    ]
    for name, value in rows:
        console.print(f"  {name:18} {value}", markup=False)
    for path, quote in result.evidence.items():
        console.print(f"  evidence {path}: {quote[:100]!r}", markup=False)
    if result.unfilled:
        console.print(f"  unfilled: {', '.join(result.unfilled)}", markup=False)
    for note in spec.provenance.notes:
        console.print(f"  note: {note}", markup=False)
    for w in result.warnings:
        console.print(f"  warning: {w}", markup=False)


@schema_app.command("map")
def map_cmd(
    pages: Path = typer.Argument(
        ..., help="A folder of <kind>.md pages (overview, data, evaluation, rules) or one .md."),
    task_id: str = typer.Option(..., "--id", help="Task id <platform>/<slug>."),
    llm: str | None = typer.Option(
        None, "--llm", help="Model for the LLM mapper: 'provider:model' (e.g. "
        "anthropic:claude-sonnet-4-5) or an OpenAI-compatible model name (default: the "
        "offline rule-based mapper)."),
    base_url: str | None = typer.Option(
        None, "--base-url", help="The provider's endpoint (default: OPENAI_BASE_URL)."),
    api_key_env: str | None = typer.Option(
        None, "--api-key-env", help="Environment variable holding the API key (default: the "
        "provider's, e.g. OPENAI_API_KEY)."),
    url: str = typer.Option("", "--url", help="The competition's overview URL."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Also write the TaskSpec here."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as strict JSON."),
) -> None:
    """Map competition pages' Markdown to a TaskSpec, with evidence for every field.

    Pages may be in any common encoding (UTF-8, UTF-16, Windows-1252); a file that is not a
    text page is refused with a message. A metric no registered id computes is left empty with
    the page's name for it and the reason.
    """
    from tambench.cli._console import print_json
    from tambench.schema.io import save_taskspec
    from tambench.schema.mapping import map_pages

    texts, decode_notes = _read_pages(pages)
    result = map_pages(texts, task_id=task_id, url=url, llm=llm, base_url=base_url,
                       api_key_env=api_key_env)
    result.spec.provenance.notes.extend(decode_notes)
    if out is not None:
        save_taskspec(result.spec, out)
        typer.echo(f"wrote {out}", err=True)
    if as_json:
        print_json({"mapper": result.mapper, "unfilled": result.unfilled,
                    "evidence": result.evidence, "warnings": result.warnings,
                    "spec": result.spec.model_dump(mode="json")})
    else:
        _print_mapping(result)


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(schema_app, name="schema")
