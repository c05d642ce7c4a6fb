"""``tambench tasks pages``: obtain the competitions' pages into the tasks' data folders."""

from __future__ import annotations

from pathlib import Path

import typer

from tambench.cli._pages import page_options, pages_from_option, pages_online_option


def pages(
    tasks: list[str] = typer.Argument(..., help="Task id(s), task.json path(s) or folder(s)."),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Where prepared tasks go."),
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Catalogue folder."),
    pages_from: list[str] = pages_from_option(),
    pages_online: bool = pages_online_option(),
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
) -> None:
    """Obtain each task's pages from its page sources, check their SHA-256, convert them to
    Markdown without leaderboard and prizes, and keep them in <data dir>/<task>/pages/.

    The next `tambench prepare` puts them into public/description.md (a task prepared
    already: prepare it again with --force). Exit 3 when a task's pages were not obtained.
    """
    from tambench.cli._console import console, print_json
    from tambench.cli._pages import obtain_for_tasks
    from tambench.config import load_settings
    from tambench.tasks.locate import load_task

    specs = [load_task(t, catalogue) for t in tasks]
    opts = page_options(pages_from, pages_online, catalogue, specs)
    results = obtain_for_tasks(specs, opts, load_settings(data_dir=data_dir).data_dir)
    if json_out:
        print_json(results)
    else:
        for r in results:
            if r["obtained"]:
                console.print(f"{r['task']}: pages from {r['origin']} -> {r['folder']}/pages",
                              markup=False)
            else:
                console.print(f"{r['task']}: NOT obtained", markup=False)
            for p in r["problems"]:  # type: ignore[attr-defined]
                console.print(f"  - {p}", markup=False)
    if not all(r["obtained"] for r in results):
        raise typer.Exit(3)
