"""Competition references in, complete task folders out.

For each reference (``PLATFORM:SLUG`` or a URL) :func:`acquire_competitions`:

1. resolves the platform adapter (base URLs are settings) and plans the pages;
2. fetches each page (skipping those already in the snapshot store: the crawl resumes) and
   waits for its content hooks; kinds sharing a URL (AIcrowd's and Kaggle's evaluation, a
   section of the overview) share one fetch;
3. converts each page's content region to Markdown (:func:`~tambench.acquisition.markdown.
   extract_markdown`), keeping only the evaluation sections where the page is an overview;
4. reads what the platform's official API has, when it has one and credentials exist (Kaggle:
   metadata, file listing and the complete private leaderboard), else the leaderboard from the
   site: every page of a paged board, the whole of a board that loads on scrolling; rows that
   cannot be read are reported;
5. writes the task folder (:func:`~tambench.acquisition.assemble.assemble_task`).

A blocked page (CAPTCHA, login wall, rules gate) stops its competition at once with status
``blocked``; a page that fails after its retries stops it with status ``incomplete`` and the
reason (the content hooks that never matched, the page that needs JavaScript...). Neither
writes a task.json: no schema is invented from missing pages. Unknown sites go to the browser
agent (needs ``llm``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from tambench.acquisition.assemble import (
    API_FILE,
    Collected,
    assemble_task,
    metadata_json,
    text_sha,
)
from tambench.acquisition.fetch import FetchSettings, PageFetcher, RateLimiter
from tambench.acquisition.leaderboard import (
    BoardResult,
    LeaderboardPage,
    leaderboard_from_pages,
    parse_leaderboard_html,
)
from tambench.acquisition.markdown import extract_markdown, markdown_sections
from tambench.acquisition.platforms import PageSpec, TemplateAdapter, resolve_ref
from tambench.acquisition.snapshots import Snapshot, SnapshotStore
from tambench.acquisition.urls import UrlPolicy
from tambench.core.fielddocs import DOCUMENTED
from tambench.core.leaderboard import Leaderboard, leaderboard_to_csv
from tambench.errors import (
    BlockedPageError,
    FetchError,
    LeaderboardError,
    RulesNotAcceptedError,
    SchemaMappingError,
    SourceError,
    UnknownPlatformError,
)
from tambench.fileio import write_bytes_atomic, write_text_atomic
from tambench.schema.taskspec import SourcePage, make_task_id

log = logging.getLogger(__name__)

REPORT_VERSION = 1
#: Leaderboard pages read at most (a runaway pager must not crawl forever).
MAX_LEADERBOARD_PAGES = 200

Status = Literal["complete", "incomplete", "blocked", "failed"]


class _Model(BaseModel):
    model_config = DOCUMENTED


class CompetitionResult(_Model):
    """What happened to one competition reference."""

    ref: str
    """The reference as given (``PLATFORM:SLUG`` or a URL)."""

    task_id: str = ""
    """``<platform>/<slug>`` once resolved."""

    status: Status = "failed"
    """complete: task folder written and gradable; incomplete: pages or leaderboard missing,
    or the mapper left grading unfilled; blocked: a CAPTCHA, login wall or rules gate;
    failed: the reference could not be resolved."""

    folder: str = ""
    """The task folder (empty when nothing was written)."""

    pages: list[SourcePage] = Field(default_factory=list)
    """Pages read, with their SHA-256 and fetch time."""

    fetched: int = 0
    """Pages fetched over the network in this run (the rest came from the snapshot store)."""

    leaderboard_rows: int = 0
    """Rows of the normalised leaderboard."""

    leaderboard_source: str = ""
    """Where the leaderboard came from: ``api`` or ``pages``."""

    unfilled: list[str] = Field(default_factory=list)
    """TaskSpec fields the mapper could not fill."""

    notes: list[str] = Field(default_factory=list)
    """What was left out or worked around (unreadable leaderboard rows, a suggested split)."""

    errors: list[str] = Field(default_factory=list)
    """Why the competition is not complete."""


class AcquireReport(_Model):
    """The outcome of one acquisition run (``report_version`` guards the format)."""

    report_version: int = REPORT_VERSION
    """Version of this report format."""

    started_at: datetime
    """When the run started (UTC)."""

    finished_at: datetime
    """When the run finished (UTC)."""

    catalogue: str
    """Catalogue folder the task folders were written into."""

    results: list[CompetitionResult] = Field(default_factory=list)
    """One entry per reference, in the order given."""

    @property
    def ok(self) -> bool:
        """Whether every competition is complete."""
        return all(r.status == "complete" for r in self.results)

    def counts(self) -> dict[str, int]:
        """Number of competitions per status."""
        out: dict[str, int] = {}
        for r in self.results:
            out[r.status] = out.get(r.status, 0) + 1
        return out


def default_state_dir(catalogue_dir: Path) -> Path:
    """Where snapshots and crawl plans live by default (beside the task folders)."""
    return catalogue_dir / ".acquire"


def acquire_competitions(refs: list[str], catalogue_dir: str | Path, **kwargs: Any
                         ) -> AcquireReport:
    """Acquire competitions into task folders (blocking); see :func:`acquire_competitions_async`.
    """
    return asyncio.run(acquire_competitions_async(refs, catalogue_dir, **kwargs))


async def acquire_competitions_async(
    refs: list[str],
    catalogue_dir: str | Path,
    *,
    base_urls: dict[str, str] | None = None,
    concurrency: int = 4,
    llm: str | None = None,
    llm_base_url: str | None = None,
    settings: FetchSettings | None = None,
    state_dir: str | Path | None = None,
    fresh: bool = False,
    limiter: RateLimiter | None = None,
    browser: Any = None,
    on_result: Callable[[CompetitionResult], None] | None = None,
) -> AcquireReport:
    """Acquire competitions into task folders (see the module docstring).

    Args:
        refs: ``PLATFORM:SLUG`` or competition URLs.
        catalogue_dir: root of the task folders.
        base_urls: platform -> base URL (a mirror or the local site); default the real sites.
        concurrency: competitions and browser pages worked on at once.
        llm: model name for the schema mapper (and the agent on unknown sites); None maps
            offline with rules.
        llm_base_url: OpenAI-compatible endpoint (else ``OPENAI_BASE_URL``).
        settings: fetch settings (timeouts, retries, renderer...); ``concurrency`` wins.
        state_dir: snapshot store and crawl plans (default ``<catalogue>/.acquire``).
        fresh: ignore pages already in the snapshot store and fetch everything again.
        limiter: the per-origin rate limiter (default: one for this process); workers that
            crawl in parallel pass one shared limiter (:func:`tambench.executors.shared_rate_limiter`).
        browser: a launched Playwright browser to share (default: launch one).
        on_result: called with each competition's result as soon as it is known.
    """
    started = datetime.now(UTC)
    catalogue = Path(catalogue_dir)
    store = SnapshotStore(Path(state_dir) if state_dir else default_state_dir(catalogue))
    base = settings or FetchSettings()
    fetch_settings = FetchSettings(**{**base.__dict__, "concurrency": max(1, concurrency)})
    sem = asyncio.Semaphore(max(1, concurrency))
    async with PageFetcher(fetch_settings, limiter=limiter, browser=browser) as fetcher:
        job = _Job(fetcher, store, catalogue, base_urls or {}, llm, llm_base_url, fresh)

        async def one(ref: str) -> CompetitionResult:
            async with sem:
                result = await job.run(ref)
            if on_result is not None:
                on_result(result)
            return result

        results = await asyncio.gather(*(one(r) for r in refs))
    return AcquireReport(started_at=started, finished_at=datetime.now(UTC),
                         catalogue=str(catalogue), results=list(results))


class _Job:
    """Shared state of one run; :meth:`run` acquires one competition."""

    def __init__(self, fetcher: PageFetcher, store: SnapshotStore, catalogue: Path,
                 base_urls: dict[str, str], llm: str | None, llm_base_url: str | None,
                 fresh: bool) -> None:
        self.fetcher = fetcher
        self.store = store
        self.catalogue = catalogue
        self.base_urls = base_urls
        self.llm = llm
        self.llm_base_url = llm_base_url
        self.fresh = fresh

    async def run(self, ref: str) -> CompetitionResult:
        result = CompetitionResult(ref=ref)
        try:
            adapter, slug = resolve_ref(ref, base_urls=self.base_urls)
        except (UnknownPlatformError, ValueError) as exc:
            result.errors.append(str(exc))
            return result
        result.task_id = make_task_id(adapter.name, slug)
        folder = self.catalogue / adapter.name / slug
        try:
            collected = await self._collect(adapter, slug, result)
            await self._assemble(collected, folder, result)
        except (BlockedPageError, RulesNotAcceptedError) as exc:
            result.status = "blocked"
            result.errors.append(str(exc))
        except (FetchError, LeaderboardError, SchemaMappingError, SourceError) as exc:
            result.status = "incomplete"
            result.errors.append(f"{type(exc).__name__}: {exc}")
        if result.status != "complete":
            log.warning("%s: %s (%s)", ref, result.status, "; ".join(result.errors)[:300])
        self._write_status(folder, result)
        return result

    async def _collect(self, adapter: TemplateAdapter, slug: str,
                       result: CompetitionResult) -> Collected:
        if adapter.name == "generic":
            return await self._collect_generic(adapter, slug, result)
        task_id = make_task_id(adapter.name, slug)
        client = getattr(adapter, "api_client", lambda: None)()
        collected = Collected(task_id=task_id, url=adapter.page_urls(slug).get("overview", ""),
                              markdown={}, sources=[], leaderboard=_EMPTY)
        policy = adapter.url_policy()
        job = task_id
        plan = self.store.load_plan(job) or [*dict.fromkeys(adapter.page_urls(slug).values())]
        self.store.save_plan(job, plan)
        for spec in adapter.page_specs(slug):
            snap, html = await self._page(spec.url, adapter, policy, spec, result)
            collected.markdown[spec.kind] = page_markdown(html, spec)
            collected.sources.append(SourcePage(kind=spec.kind, url=snap.final_url,
                                                sha256=snap.sha256, fetched_at=snap.fetched_at,
                                                path=f"pages/{spec.kind}.md"))
        result.pages = list(collected.sources)
        if client is not None:  # after the pages: a blocked page stops the job first
            await self._from_api(client, slug, collected, result)
        else:
            board, board_pages = await self._board(adapter, slug, policy, job, plan, result)
            collected.sources.extend(board_pages)
            collected.leaderboard = board.leaderboard
            collected.notes.extend(board.problems)
            result.leaderboard_source = "pages"
        return collected

    async def _from_api(self, client: Any, slug: str, collected: Collected,
                        result: CompetitionResult) -> None:
        meta = await asyncio.to_thread(client.metadata, slug)
        board = await asyncio.to_thread(client.leaderboard, slug)
        now = datetime.now(UTC)
        endpoint = client.api_url or "https://api.kaggle.com"
        collected.metadata = meta
        collected.metadata_source = SourcePage(
            kind="api", url=f"{endpoint}/v1/competitions.CompetitionApiService/GetCompetition"
            f"?competitionName={slug}", sha256=text_sha(metadata_json(meta)), fetched_at=now,
            path=API_FILE)
        collected.leaderboard = board
        collected.sources.append(SourcePage(
            kind="leaderboard", url=f"{endpoint}/v1/competitions.CompetitionApiService/"
            f"GetLeaderboard?competitionName={slug}", sha256=text_sha(leaderboard_to_csv(board)),
            fetched_at=now))
        result.leaderboard_source = "api"

    async def _page(self, url: str, adapter: TemplateAdapter, policy: UrlPolicy,
                    spec: PageSpec | None, result: CompetitionResult, *,
                    kind: str = "", scroll: Any = None) -> tuple[Snapshot, str]:
        snap = None if self.fresh else self.store.get(url)
        if snap is None:
            hooks = spec.hooks if spec is not None else adapter.board.hooks  # type: ignore[union-attr]
            region = spec.region if spec is not None else ()
            page = await self.fetcher.fetch_page(url, adapter, policy, hooks=hooks,
                                                 region=region, scroll=scroll)
            snap = self.store.put(url, page.html.encode("utf-8"), status=page.status,
                                  kind=spec.kind if spec is not None else kind,
                                  final_url=page.final_url, fetched_at=page.fetched_at)
            result.fetched += 1
        return snap, self.store.read_html(snap)

    async def _board(self, adapter: TemplateAdapter, slug: str, policy: UrlPolicy, job: str,
                     plan: list[str], result: CompetitionResult
                     ) -> tuple[BoardResult, list[SourcePage]]:
        board = adapter.board
        if board is None:
            raise LeaderboardError(f"{adapter.name} has no leaderboard page")
        scroll = adapter.scroll_spec()
        pages: list[LeaderboardPage] = []
        sources: list[SourcePage] = []
        problems: list[str] = []
        for number in range(1, MAX_LEADERBOARD_PAGES + 1):
            url = adapter.leaderboard_url(slug, number)
            if url not in plan:
                plan.append(url)
                self.store.save_plan(job, plan)
            snap, html = await self._page(url, adapter, policy, None, result,
                                          kind="leaderboard", scroll=scroll)
            parsed = parse_leaderboard_html(html, board.scope)
            parsed.page = number
            sources.append(SourcePage(kind="leaderboard", url=snap.final_url,
                                      sha256=snap.sha256, fetched_at=snap.fetched_at))
            if pages and parsed.rows and parsed.rows == pages[-1].rows:
                problems.append(f"leaderboard page {number} repeats page {number - 1}; "
                                "the site ignores the page number, stopped there")
                break
            pages.append(parsed)
            if _last_page(parsed, number, board.per_page, scroll is not None):
                break
        else:
            problems.append(f"leaderboard has more than {MAX_LEADERBOARD_PAGES} pages; "
                            "read the first ones only")
        out = leaderboard_from_pages([p for p in pages if p.rows or p is pages[0]],
                                     source=adapter.leaderboard_url(slug, 1))
        out.problems[:0] = problems
        return out, sources

    async def _collect_generic(self, adapter: TemplateAdapter, slug: str,
                               result: CompetitionResult) -> Collected:
        if not self.llm:
            raise FetchError(
                f"{adapter.base_url} is not a known platform; the browser agent needs a model "
                "(--llm MODEL with OPENAI_BASE_URL / OPENAI_API_KEY)"
            )
        # start-up: saves 3 ms (the browser agent)
        from tambench.acquisition.agent import run_agent

        start = adapter.page_urls(slug).get("overview", adapter.base_url)
        got = await run_agent(start, llm=self.llm, base_url=self.llm_base_url,
                              allowed_origins=sorted(adapter.url_policy().origins),
                              settings=self.fetcher.settings)
        collected = Collected(task_id=make_task_id(adapter.name, slug), url=start, markdown={},
                              sources=[], leaderboard=_EMPTY)
        for kind, page in got.pages.items():
            sha = self.store.put(page.url, page.markdown.encode("utf-8"), status=200, kind=kind,
                                 fetched_at=page.fetched_at).sha256
            if page.kind != "leaderboard":
                collected.markdown[kind] = page.markdown
            collected.sources.append(SourcePage(kind=page.kind, url=page.url, sha256=sha,
                                                fetched_at=page.fetched_at,
                                                path=f"pages/{kind}.md"
                                                if page.kind != "leaderboard" else ""))
            result.fetched += 1
        result.pages = list(collected.sources)
        if got.leaderboard is None:
            raise LeaderboardError(f"the agent found no leaderboard on {start}")
        collected.leaderboard = got.leaderboard.leaderboard
        collected.notes.extend(got.leaderboard.problems)
        result.leaderboard_source = "pages"
        return collected

    async def _assemble(self, collected: Collected, folder: Path,
                        result: CompetitionResult) -> None:
        done = await asyncio.to_thread(assemble_task, collected, folder, llm=self.llm,
                                       llm_base_url=self.llm_base_url)
        result.folder = str(folder)
        result.pages = list(done.spec.provenance.pages)
        result.leaderboard_rows = len(collected.leaderboard)
        result.unfilled = done.unfilled
        result.notes.extend(collected.notes)
        result.status = "complete" if done.complete else "incomplete"
        result.errors.extend(done.problems)

    def _write_status(self, folder: Path, result: CompetitionResult) -> None:
        if result.status == "failed":
            return
        folder.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(folder / "acquisition.json",
                           (result.model_dump_json(indent=2) + "\n").encode("utf-8"))


def page_markdown(html: str, spec: PageSpec) -> str:
    """The Markdown of one page kind: its region, cut to its sections when it has some."""
    md = extract_markdown(html, region=spec.region, title=spec.title)
    if not spec.section:
        return md
    part = markdown_sections(md, spec.section)
    return part if part.strip() else md


def _last_page(page: LeaderboardPage, number: int, per_page: int, scrolled: bool) -> bool:
    if scrolled or not page.rows:
        return True
    if page.total_pages is not None:
        return number >= page.total_pages
    return not per_page or len(page.rows) < per_page


def write_report(report: AcquireReport, path: str | Path) -> None:
    """Write a report as strict JSON, atomically."""
    write_text_atomic(path, report.model_dump_json(indent=2) + "\n")


def _empty_board() -> Any:
    return Leaderboard(rows=(), format="page-table", source_columns=())


_EMPTY = _empty_board()
