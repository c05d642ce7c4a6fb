"""Distributed acquisition: one competition per task, one per-domain rate limit for all.

:func:`crawl_competitions` runs :func:`tambench.acquisition.pipeline.acquire_competitions` for
each reference as a separate task on an executor (process pool or Ray). Every task's page
fetcher books its requests in one shared :class:`~tambench.executors.limiter.SlotBook`, so two
workers crawling two competitions of the same platform space their requests as one polite
client would, and a ``Retry-After`` seen by one worker holds back all of them.

A competition that is blocked or incomplete is a result, not a failure; a task that raises or
whose worker dies is retried (``retries``) and then reported ``failed`` with the error.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tambench.executors.limiter import GlobalRateLimiter, shared_rate_limiter
from tambench.executors.retry import DEFAULT_RETRIES, run_items

if TYPE_CHECKING:
    from tambench.acquisition.fetch import FetchSettings
    from tambench.acquisition.pipeline import AcquireReport


@dataclass(frozen=True)
class CrawlItem:
    """One competition to acquire on a worker (small and picklable)."""

    ref: str
    catalogue_dir: str
    limiter: GlobalRateLimiter
    base_urls: dict[str, str] = field(default_factory=dict)
    concurrency: int = 2
    llm: str | None = None
    llm_base_url: str | None = None
    settings: FetchSettings | None = None
    state_dir: str | None = None
    fresh: bool = False


def crawl_competition(item: CrawlItem) -> dict[str, Any]:
    """Worker side: acquire one competition; its result as JSON-ready data."""
    # start-up: saves 572 ms (the pipeline: numpy)
    from tambench.acquisition.pipeline import acquire_competitions

    report = acquire_competitions(
        [item.ref], item.catalogue_dir, base_urls=item.base_urls, concurrency=item.concurrency,
        llm=item.llm, llm_base_url=item.llm_base_url, settings=item.settings,
        state_dir=item.state_dir, fresh=item.fresh, limiter=item.limiter,
    )
    return report.results[0].model_dump(mode="json")


def crawl_competitions(
    refs: list[str],
    catalogue_dir: str | Path,
    executor: Executor,
    *,
    retries: int = DEFAULT_RETRIES,
    min_interval: float = 0.0,
    per_domain: Mapping[str, float] | None = None,
    base_urls: dict[str, str] | None = None,
    concurrency: int = 2,
    llm: str | None = None,
    llm_base_url: str | None = None,
    settings: FetchSettings | None = None,
    state_dir: str | Path | None = None,
    fresh: bool = False,
) -> AcquireReport:
    """Acquire competitions in parallel on ``executor``, with a global per-domain rate limit.

    Args:
        refs: ``PLATFORM:SLUG`` or competition URLs; one task each.
        catalogue_dir: root of the task folders (on a cluster: a path every node sees).
        executor: where the crawls run.
        retries: extra attempts for a crawl that raised or whose worker died.
        min_interval: least seconds between two requests to one origin, over all workers; each
            platform's own politeness interval applies on top.
        per_domain: least intervals for particular origins (``"https://www.kaggle.com"``).
        base_urls, concurrency, llm, llm_base_url, settings, state_dir, fresh: as for
            :func:`tambench.acquisition.pipeline.acquire_competitions` (per worker).

    Returns:
        The report, one result per reference in the order given.
    """
    # start-up: saves 572 ms (the pipeline: numpy)
    from tambench.acquisition.pipeline import AcquireReport, CompetitionResult

    started = datetime.now(UTC)
    with shared_rate_limiter(executor, min_interval, per_domain) as limiter:
        items = [
            CrawlItem(
                ref=ref, catalogue_dir=str(catalogue_dir), limiter=limiter,
                base_urls=dict(base_urls or {}), concurrency=concurrency, llm=llm,
                llm_base_url=llm_base_url, settings=settings,
                state_dir=str(state_dir) if state_dir is not None else None, fresh=fresh,
            )
            for ref in refs
        ]
        outcomes = run_items(crawl_competition, items, executor, retries=retries, chunk_size=1)
    results = []
    for ref, outcome in zip(refs, outcomes, strict=True):
        if outcome.ok:
            results.append(CompetitionResult.model_validate(outcome.value))
        else:
            results.append(CompetitionResult(ref=ref, status="failed", errors=[
                f"crawl failed after {outcome.attempts} attempt(s): {outcome.error}"
            ]))
    return AcquireReport(started_at=started, finished_at=datetime.now(UTC),
                         catalogue=str(catalogue_dir), results=results)
