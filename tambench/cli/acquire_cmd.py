"""``tambench acquire`` and ``tambench discover``: competitions in, task folders out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import typer

from tambench.cli._executor import (
    executor_address_option,
    executor_option,
    max_workers_option,
    retries_option,
)


def _parse_base_urls(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in values:
        name, sep, url = v.partition("=")
        if not sep or not name or not url.startswith(("http://", "https://")):
            raise typer.BadParameter(
                f"expected PLATFORM=URL (e.g. kaggle=http://127.0.0.1:8000/kaggle), got {v!r}",
                param_hint="--base-url",
            )
        out[name] = url
    return out


def acquire(
    refs: list[str] = typer.Argument(..., help="Competitions: PLATFORM:SLUG or URLs."),
    catalogue: Path | None = typer.Option(
        None, "--catalogue", help="Catalogue the task folders are written into (default: the "
        "configured one, as for every command; never the installed package's)."),
    concurrency: int = typer.Option(4, "--concurrency", min=1, max=32,
                                    help="Competitions and browser pages at once."),
    llm: str | None = typer.Option(None, "--llm", help="Model for the schema mapper and the "
                                   "agent (OpenAI-compatible; OPENAI_BASE_URL, OPENAI_API_KEY)."),
    base_url: list[str] = typer.Option([], "--base-url", help="PLATFORM=URL: a mirror or the "
                                       "local site (repeatable)."),
    renderer: str = typer.Option("browser", "--renderer", help="browser (Chromium) or http "
                                 "(served HTML only; sites that need JavaScript are reported)."),
    fresh: bool = typer.Option(False, "--fresh", help="Refetch pages already in the store."),
    state_dir: Path | None = typer.Option(None, "--state-dir",
                                          help="Snapshots and crawl plans (default "
                                          "CATALOGUE/.acquire)."),
    hermetic: bool = typer.Option(False, "--hermetic", help="Chromium resolves no host but "
                                  "127.0.0.1/localhost."),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    executor: str | None = executor_option(),
    executor_address: str | None = executor_address_option(),
    max_workers: int | None = max_workers_option(),
    retries: int | None = retries_option(),
) -> None:
    """Acquire competitions into complete task folders (pages, leaderboard, task.json), then
    compute each new task's difficulty.

    With --executor (or executor = "ray" in the settings) each competition is crawled as its
    own task on that executor, under one per-domain rate limit shared by all workers. Ctrl-C
    stops the run; finished task folders and fetched pages are kept (rerun to resume).
    """
    from tambench.acquisition.pipeline import write_report
    from tambench.cli._catalogue_options import import_catalogue

    if renderer not in ("browser", "http"):
        raise typer.BadParameter("expected browser or http", param_hint="--renderer")
    catalogue = import_catalogue(catalogue)
    job = _AcquireJob(list(refs), catalogue, _parse_base_urls(base_url), concurrency, llm,
                      renderer, hermetic, state_dir, fresh)
    report = job.run(executor, executor_address, max_workers, retries, quiet=json_out)
    notes = add_difficulty(catalogue, [r.task_id for r in report.results
                                       if r.status == "complete"])
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report_path = (state_dir or catalogue / ".acquire") / "reports" / f"acquire-{stamp}.json"
    write_report(report, report_path)
    _print_report(report, report_path, notes, json_out)
    if not report.ok:
        raise typer.Exit(3)


@dataclass
class _AcquireJob:
    """One ``acquire`` run's inputs."""

    refs: list[str]
    catalogue: Path
    base_urls: dict[str, str]
    concurrency: int
    llm: str | None
    renderer: str
    hermetic: bool
    state_dir: Path | None
    fresh: bool

    def settings(self) -> Any:
        from tambench.acquisition.fetch import FetchSettings

        return FetchSettings(renderer=self.renderer, hermetic=self.hermetic,  # type: ignore[arg-type]
                             concurrency=self.concurrency)

    def kept(self, done: list[Any]) -> str:
        folders = sum(1 for r in done if r.folder)
        store = self.state_dir or self.catalogue / ".acquire"
        return (f"{folders} task folder(s) written under {self.catalogue}; fetched pages kept in "
                f"{store} (run the same command to resume); no report written")

    def run(self, executor: str | None, address: str | None, workers: int | None,
            retries: int | None, *, quiet: bool) -> Any:
        from tambench.config import load_settings
        from tambench.core.progress import Progress

        done: list[Any] = []
        with Progress("competitions acquired", total=len(self.refs), quiet=quiet,
                      kept=lambda: self.kept(done)) as progress:

            def on_result(result: Any) -> None:
                done.append(result)
                progress.advance(note=f"{result.task_id or result.ref}: {result.status}")

            if executor is not None or load_settings().executor == "ray":
                report = self._crawl(executor, address, workers, retries)
                for r in report.results:
                    on_result(r)
                return report
            from tambench.acquisition.pipeline import acquire_competitions

            return acquire_competitions(
                self.refs, self.catalogue, base_urls=self.base_urls,
                concurrency=self.concurrency, llm=self.llm, settings=self.settings(),
                state_dir=self.state_dir, fresh=self.fresh, on_result=on_result)

    def _crawl(self, executor: str | None, address: str | None, workers: int | None,
               retries: int | None) -> Any:
        from tambench.acquisition.crawl import crawl_competitions
        from tambench.cli._executor import open_executor

        with open_executor(executor, address, workers, retries) as (pool, resolved):
            return crawl_competitions(
                self.refs, self.catalogue, pool, retries=resolved.retries,
                base_urls=self.base_urls, concurrency=self.concurrency, llm=self.llm,
                settings=self.settings(), state_dir=self.state_dir, fresh=self.fresh)


def add_difficulty(catalogue: Path, task_ids: list[str]) -> list[str]:
    """Compute and store the difficulty of freshly acquired tasks; one note per failure."""
    if not task_ids:
        return []
    from tambench.difficulty.batch import catalogue_difficulties, store_difficulty

    wanted = set(task_ids)
    results = [r for r in catalogue_difficulties(catalogue) if r.task in wanted]
    store_difficulty(catalogue, results)
    return [f"{r.task}: difficulty not computed ({r.reason})" for r in results if r.status != "ok"]


def _print_report(report: Any, report_path: Path, notes: list[str], json_out: bool) -> None:
    from tambench.cli._console import err_console, print_json
    from tambench.core.tables import Column, print_table

    if json_out:
        print_json(report.model_dump(mode="json"))
    else:
        print_table([Column("status", priority=9), Column("task", key=True),
                     Column("folder", key=True), Column("why", priority=1, min_width=12)],
                    [(r.status, r.task_id or r.ref, r.folder, r.errors[0] if r.errors else None)
                     for r in report.results])
    for note in notes:
        err_console.print(note, markup=False)
    err_console.print(f"report: {report_path}  {report.counts()}", markup=False)


def discover(
    platform: str = typer.Argument(..., help="Platform to list (kaggle)."),
    since: str = typer.Option("2023-01-01", "--since", help="Keep competitions from this date."),
    category: str = typer.Option("", "--category", help="Listing category, e.g. featured."),
    search: str = typer.Option("", "--search", help="Search term."),
    min_teams: int = typer.Option(1, "--min-teams", help="Fewest teams to keep."),
    show_all: bool = typer.Option(False, "--all", help="Also list dropped ones, with reasons."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List candidate competitions through the platform's client, filters applied."""
    from tambench.acquisition.discover import discover_competitions
    from tambench.acquisition.kaggle_client import KaggleClient
    from tambench.cli._console import print_json
    from tambench.core.tables import Column, print_table

    if platform != "kaggle":
        raise typer.BadParameter(f"only kaggle has a listing client, got {platform!r}",
                                 param_hint="PLATFORM")
    try:
        since_day = date.fromisoformat(since)
    except ValueError:
        raise typer.BadParameter(f"expected YYYY-MM-DD, got {since!r}",
                                 param_hint="--since") from None
    cands = discover_competitions(KaggleClient(), since=since_day, category=category,
                                  search=search, min_teams=min_teams)
    shown = [c for c in cands if show_all or c.kept]
    if json_out:
        print_json([{
            "slug": c.info.slug, "title": c.info.title, "category": c.info.category,
            "enabled": c.info.enabled.isoformat() if c.info.enabled else None,
            "deadline": c.info.deadline.isoformat() if c.info.deadline else None,
            "metric": c.info.metric, "metric_id": c.metric_id, "teams": c.info.teams,
            "kept": c.kept, "dropped": c.dropped,
        } for c in shown])
        return
    print_table([Column("", priority=9), Column("competition", key=True),
                 Column("metric", priority=5), Column("teams", priority=6, align="right"),
                 Column("dropped because", priority=1, min_width=12)],
                [("keep" if c.kept else "drop", f"kaggle:{c.info.slug}", c.metric_id,
                  c.info.teams, "; ".join(c.dropped)) for c in shown])


def register(app: typer.Typer) -> None:
    """Attach the commands."""
    app.command("acquire")(acquire)
    app.command("discover")(discover)
