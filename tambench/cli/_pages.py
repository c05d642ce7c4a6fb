"""Where a command may read a competition's pages: the ``--pages-from`` and ``--pages-online``
options shared by ``tambench prepare`` and ``tambench tasks pages``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from tambench.acquisition.statement_pages import PageOptions
    from tambench.schema.taskspec import TaskSpec


def pages_from_option() -> list[str]:
    return typer.Option(
        [], "--pages-from", metavar="NAME=PATH",
        help="Read pages from a local checkout (or git directory) of a peer benchmark, e.g. "
        "mle-bench=~/src/mle-bench (names: mle-bench, mle-dojo, dslighting, dsgym, ogb-web, "
        "tam-bench), or acquired=DIR for pages `tambench acquire` wrote. Repeatable.")


def pages_online_option() -> bool:
    return typer.Option(
        False, "--pages-online",
        help="Also read pages over the network: the repository's file at its pinned commit, "
        "then the platform's page.")


def page_options(pages_from: list[str], online: bool, catalogue: Path | None,
                 specs: list[TaskSpec]) -> PageOptions:
    """The options, with the catalogue's own acquired pages of these tasks first."""
    from tambench.acquisition.statement_pages import parse_pages_from
    from tambench.config import load_settings
    from tambench.core.layout import PAGES_DIR

    opts = parse_pages_from(pages_from)
    opts.network = online
    root = catalogue or load_settings().catalogue
    if any((root / s.platform / s.slug / PAGES_DIR).is_dir() for s in specs):
        opts.acquired.insert(0, root)
    return opts


def obtain_for_tasks(specs: list[TaskSpec], opts: PageOptions, data_dir: Path
                     ) -> list[dict[str, object]]:
    """Obtain and keep each task's pages in its data folder; one result per task."""
    from tambench.acquisition.statement_pages import obtain_pages, save_pages
    from tambench.splits.layout import task_dir

    out: list[dict[str, object]] = []
    for spec in specs:
        folder = task_dir(spec, data_dir)
        got, problems = obtain_pages(spec, opts)
        if got is not None:
            save_pages(got, folder)
        out.append({"task": spec.id, "obtained": got is not None,
                    "origin": got.origin if got else "", "folder": str(folder),
                    "problems": problems})
    return out


def statement_json(spec: TaskSpec) -> dict[str, object]:
    """The statement and page sources, for ``tasks show --json``."""
    from tambench.schema.io import PAPER_FIELDS

    return {"statement": spec.model_dump(mode="json", include=set(PAPER_FIELDS)),
            "page_sources": [s.model_dump(mode="json") for s in spec.page_sources]}


def statement_lines(spec: TaskSpec) -> list[str]:
    """The task's statement (the schema's fields) and its page sources, for ``tasks show``."""
    from tambench.splits.statement import statement_parts

    lines = ["  statement:"]
    lines += [f"    {name.lower()}: {text or '-'}" for name, text in statement_parts(spec)]
    for src in spec.page_sources:
        where = src.url if src.kind == "platform" else (
            f"{src.source}@{src.commit[:12]}:{src.path}" + (f" [{src.key}]" if src.key else ""))
        pin = f" sha256 {src.sha256[:16]}..." if src.sha256 else " (not pinned)"
        lines.append(f"  page source: {where}{pin}")
    if not spec.page_sources:
        lines.append("  page source: none")
    return lines
