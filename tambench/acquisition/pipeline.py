"""Competition references in, complete task folders out.

For each reference (``PLATFORM:SLUG`` or a URL) :func:`acquire_competitions`:

1. resolves the platform adapter (base URLs are settings) and plans the page URLs;
2. fetches each page (skipping those already in the snapshot store: the crawl resumes);
3. converts each page to Markdown (:func:`~tambench.acquisition.markdown.extract_markdown`);
4. reads the private leaderboard, every page of it (or, for Kaggle with credentials, through
   the kaggle client) and normalises it;
5. maps the pages to a TaskSpec (:func:`tambench.schema.mapping.map_pages`: offline rules, or
   an LLM), adds provenance (each source page with its SHA-256 and fetch time), the team count
   and the difficulty;
6. writes ``<catalogue>/<platform>/<slug>/``: ``pages/<kind>.md``, ``leaderboard.csv``,
   ``acquisition.json`` (status and errors) and, last, ``task.json``.

A blocked page (CAPTCHA, login wall, rules gate) stops its competition at once with status
``blocked``; a page that fails after its retries stops it with status ``incomplete``. Neither
writes a task.json: no schema is invented from missing pages. Unknown sites go to the browser
agent (needs ``llm``).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tambench.acquisition.fetch import FetchSettings, PageFetcher, RateLimiter
from tambench.acquisition.leaderboard import (
    LeaderboardPage,
    leaderboard_from_pages,
    parse_leaderboard_html,
)
from tambench.acquisition.markdown import extract_markdown
from tambench.acquisition.platforms import PAGE_KINDS, PlatformAdapter, resolve_ref
from tambench.acquisition.snapshots import Snapshot, SnapshotStore
from tambench.acquisition.urls import UrlPolicy
from tambench.core.leaderboard import Leaderboard, write_leaderboard
from tambench.errors import (
    BlockedPageError,
    FetchError,
    LeaderboardError,
    SchemaMappingError,
    TambenchError,
    UnknownPlatformError,
)
from tambench.fileio import write_bytes_atomic, write_text_atomic
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import SourcePage, TaskSpec, make_task_id

log = logging.getLogger(__name__)

REPORT_VERSION = 1
#: Leaderboard pages read at most (a runaway pager must not crawl forever).
MAX_LEADERBOARD_PAGES = 200

Status = Literal["complete", "incomplete", "blocked", "failed"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


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

    unfilled: list[str] = Field(default_factory=list)
    """TaskSpec fields the mapper could not fill."""

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


def acquire_competitions(
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
) -> AcquireReport:
    """Acquire competitions into task folders (blocking; see the module docstring).

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
    """
    return asyncio.run(acquire_competitions_async(
        refs, catalogue_dir, base_urls=base_urls, concurrency=concurrency, llm=llm,
        llm_base_url=llm_base_url, settings=settings, state_dir=state_dir, fresh=fresh,
        limiter=limiter,
    ))


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
) -> AcquireReport:
    """The coroutine behind :func:`acquire_competitions`; ``browser`` shares a launched one."""
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
                return await job.run(ref)

        results = await asyncio.gather(*(one(r) for r in refs))
    report = AcquireReport(started_at=started, finished_at=datetime.now(UTC),
                           catalogue=str(catalogue), results=list(results))
    return report


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
            await self._acquire(adapter, slug, folder, result)
        except BlockedPageError as exc:
            result.status = "blocked"
            result.errors.append(str(exc))
        except (FetchError, LeaderboardError, SchemaMappingError) as exc:
            result.status = "incomplete"
            result.errors.append(f"{type(exc).__name__}: {exc}")
        if result.status != "complete":
            log.warning("%s: %s (%s)", ref, result.status, "; ".join(result.errors)[:300])
        self._write_status(folder, result)
        return result

    async def _page(self, url: str, adapter: PlatformAdapter, policy: UrlPolicy, kind: str,
                    result: CompetitionResult) -> tuple[Snapshot, str]:
        snap = None if self.fresh else self.store.get(url)
        if snap is None:
            page = await self.fetcher.fetch_page(url, adapter, policy, kind=kind)
            snap = self.store.put(url, page.html.encode("utf-8"), status=page.status, kind=kind,
                                  final_url=page.final_url, fetched_at=page.fetched_at)
            result.fetched += 1
        return snap, self.store.read_html(snap)

    async def _acquire(self, adapter: PlatformAdapter, slug: str, folder: Path,
                       result: CompetitionResult) -> None:
        if adapter.name == "generic":
            await self._acquire_generic(adapter, slug, folder, result)
            return
        policy = adapter.url_policy()
        urls = adapter.page_urls(slug)
        job = f"{adapter.name}/{slug}"
        plan = self.store.load_plan(job) or [*urls.values(), adapter.leaderboard_url(slug, 1)]
        self.store.save_plan(job, plan)
        markdown: dict[str, str] = {}
        sources: list[SourcePage] = []
        for kind in PAGE_KINDS:
            if kind not in urls:
                continue
            snap, html = await self._page(urls[kind], adapter, policy, kind, result)
            markdown[kind] = extract_markdown(html)
            sources.append(SourcePage(kind=kind, url=snap.final_url, sha256=snap.sha256,
                                      fetched_at=snap.fetched_at, path=f"pages/{kind}.md"))
        result.pages = list(sources)
        leaderboard, lb_sources = await self._leaderboard(adapter, slug, policy, job, plan,
                                                          result)
        await self._finish(adapter, slug, folder, markdown, sources + lb_sources, leaderboard,
                           urls.get("overview", ""), result)

    async def _leaderboard(self, adapter: PlatformAdapter, slug: str, policy: UrlPolicy,
                           job: str, plan: list[str], result: CompetitionResult
                           ) -> tuple[Leaderboard, list[SourcePage]]:
        use_client = getattr(adapter, "use_client", None)
        if callable(use_client) and use_client():
            lb: Leaderboard = await asyncio.to_thread(adapter.client_leaderboard, slug)  # type: ignore[attr-defined]
            return lb, []
        selector = adapter.ready_selector("leaderboard")
        pages: list[LeaderboardPage] = []
        sources: list[SourcePage] = []
        page_no, total = 1, 1
        while page_no <= total:
            url = adapter.leaderboard_url(slug, page_no)
            if url not in plan:
                plan.append(url)
                self.store.save_plan(job, plan)
            snap, html = await self._page(url, adapter, policy, "leaderboard", result)
            parsed = parse_leaderboard_html(html, selector)
            parsed.page = page_no
            pages.append(parsed)
            sources.append(SourcePage(kind="leaderboard", url=snap.final_url, sha256=snap.sha256,
                                      fetched_at=snap.fetched_at))
            if page_no == 1:
                total = min(parsed.total_pages or 1, MAX_LEADERBOARD_PAGES)
            page_no += 1
        return leaderboard_from_pages(pages, source=adapter.leaderboard_url(slug, 1)), sources

    async def _acquire_generic(self, adapter: PlatformAdapter, slug: str, folder: Path,
                               result: CompetitionResult) -> None:
        if not self.llm:
            raise FetchError(
                f"{adapter.base_url} is not a known platform; the browser agent needs a model "
                "(--llm MODEL with OPENAI_BASE_URL / OPENAI_API_KEY)"
            )
        from tambench.acquisition.agent import run_agent

        start = adapter.page_urls(slug).get("overview", adapter.base_url)
        collected = await run_agent(start, llm=self.llm, base_url=self.llm_base_url,
                                    allowed_origins=sorted(adapter.url_policy().origins),
                                    settings=self.fetcher.settings)
        sources: list[SourcePage] = []
        markdown: dict[str, str] = {}
        for kind, page in collected.pages.items():
            sha = self.store.put(page.url, page.markdown.encode("utf-8"), status=200, kind=kind,
                                 fetched_at=page.fetched_at).sha256
            markdown[kind] = page.markdown
            sources.append(SourcePage(kind=kind, url=page.url, sha256=sha,
                                      fetched_at=page.fetched_at, path=f"pages/{kind}.md"))
            result.fetched += 1
        result.pages = sources
        if collected.leaderboard is None:
            raise LeaderboardError(f"the agent found no leaderboard on {start}")
        await self._finish(adapter, slug, folder, markdown, sources, collected.leaderboard,
                           start, result)

    async def _finish(self, adapter: PlatformAdapter, slug: str, folder: Path,
                      markdown: dict[str, str], sources: list[SourcePage],
                      leaderboard: Leaderboard, url: str, result: CompetitionResult) -> None:
        from tambench.schema.mapping import map_pages

        task_id = make_task_id(adapter.name, slug)
        mapped = await asyncio.to_thread(
            map_pages, {k: v for k, v in markdown.items() if v.strip()}, task_id=task_id,
            url=url, llm=self.llm, base_url=self.llm_base_url,
        )
        spec = mapped.spec
        clean = leaderboard.clean()
        notes = list(spec.provenance.notes)
        difficulty = None
        if spec.grading is not None:
            difficulty, note = _difficulty(clean, spec.grading.metric)
            if note:
                notes.append(note)
        complete = spec.grading is not None and len(clean) > 0
        split = spec.split
        if split is None:
            from tambench.schema.suggest import suggest_split_spec

            split = suggest_split_spec(spec)
            if split is not None:
                notes.append(
                    f"split: a default {split.strategy} split of {split.test_size:.0%} was "
                    "suggested from the grading spec; review it before preparing"
                )
        spec = spec.model_copy(update={
            "title": spec.title or _first_heading(markdown.get("overview", "")),
            "split": split,
            "url": spec.url or url,
            "status": "complete" if complete else "incomplete",
            "n_teams": len(clean),
            "difficulty": difficulty if difficulty is not None else spec.difficulty,
            "provenance": spec.provenance.model_copy(update={
                "pages": sources, "unfilled": list(mapped.unfilled), "notes": notes,
            }),
        })
        spec = TaskSpec.model_validate(spec.model_dump())
        folder.mkdir(parents=True, exist_ok=True)
        for kind, md in markdown.items():
            write_text_atomic(folder / "pages" / f"{kind}.md", md)
        write_leaderboard(leaderboard, folder / "leaderboard.csv")
        save_taskspec(spec, folder / "task.json")
        result.folder = str(folder)
        result.pages = sources
        result.leaderboard_rows = len(leaderboard)
        result.unfilled = list(mapped.unfilled)
        result.status = "complete" if complete else "incomplete"
        if spec.grading is None:
            result.errors.append("the mapper could not fill the grading fields")
        if not clean.rows:
            result.errors.append("the leaderboard has no usable rows")

    def _write_status(self, folder: Path, result: CompetitionResult) -> None:
        if result.status == "failed":
            return
        folder.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(folder / "acquisition.json",
                           (result.model_dump_json(indent=2) + "\n").encode("utf-8"))


def _first_heading(md: str) -> str:
    """The text of the first ``#`` heading of a Markdown page ('' when there is none)."""
    for line in md.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def _difficulty(lb: Leaderboard, metric_id: str) -> tuple[object | None, str]:
    """The difficulty of a leaderboard when the difficulty module is available."""
    try:
        from tambench.core.metrics import get_metric
        from tambench.difficulty import compute_all
    except ImportError:
        return None, ""
    try:
        metric = get_metric(metric_id)
        primary, others = compute_all(lb, metric)
    except TambenchError as exc:
        return None, f"difficulty not computed: {exc}"
    return primary.to_model(others), ""


def write_report(report: AcquireReport, path: str | Path) -> None:
    """Write a report as strict JSON, atomically."""
    write_text_atomic(path, report.model_dump_json(indent=2) + "\n")
