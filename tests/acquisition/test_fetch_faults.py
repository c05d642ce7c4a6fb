"""Fault routes of the local site against the fetcher (one shared Chromium)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tambench.acquisition.fetch import FetchedPage, FetchSettings, PageFetcher
from tambench.acquisition.markdown import extract_markdown
from tambench.acquisition.platforms import get_adapter
from tambench.errors import (
    BlockedPageError,
    FetchTimeoutError,
    HttpStatusError,
    OffDomainError,
    PageTooLargeError,
    RobotsDisallowedError,
    TruncatedPageError,
)
from tambench.testing.site import RunningSite

from .conftest import BrowserHarness

FAST = dict(connect_timeout=2.0, read_timeout=1.0, total_timeout=3.0, selector_timeout=6.0,
            retries=2, backoff_base=0.05, backoff_max=0.2)


def fetch(harness: BrowserHarness, site: RunningSite, slug: str, kind: str = "overview",
          platform: str = "kaggle", **overrides: object) -> FetchedPage:
    settings = dataclasses.replace(harness.settings, **{**FAST, **overrides})  # type: ignore[arg-type]
    adapter = get_adapter(platform, base_url=site.base_urls[platform])
    spec = {s.kind: s for s in adapter.page_specs(slug)}[kind]

    async def go() -> FetchedPage:
        async with PageFetcher(settings, browser=harness.browser) as fetcher:
            return await fetcher.fetch_page(spec.url, adapter, adapter.url_policy(),
                                            hooks=spec.hooks, region=spec.region)

    return harness.run(go())


def test_hanging_page_times_out_after_a_bounded_number_of_hits(
        harness: BrowserHarness, site: RunningSite, new_hits: Any) -> None:
    # The page answers after 30 s: any total timeout well under that shows the bound (1.5 s
    # a try instead of 3 keeps the test to about 5 s).
    with pytest.raises(FetchTimeoutError, match="gave up after 3 attempts"):
        fetch(harness, site, "fault-slow", total_timeout=1.5)
    assert new_hits("/fault-slow/") <= 3


def test_429_is_retried_no_sooner_than_retry_after(harness: BrowserHarness,
                                                    site: RunningSite) -> None:
    page = fetch(harness, site, "fault-429", "data", platform="biendata")
    assert page.attempts == 3
    times = site.hit_times("/biendata/competition/fault-429/data/")
    assert len(times) == 3
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= 1.0  # Retry-After: 1, although the backoff alone is 0.2 s at most
    assert "Content of the data page of fault-429" in extract_markdown(page.html)


def test_persistent_500_is_retried_a_capped_number_of_times(harness: BrowserHarness,
                                                            site: RunningSite, new_hits: Any) -> None:
    with pytest.raises(HttpStatusError, match="HTTP 500 .*gave up after 3 attempts"):
        fetch(harness, site, "fault-500", "rules", platform="aicrowd")
    assert new_hits("/aicrowd/challenges/fault-500/challenge_rules") == 3


@pytest.mark.parametrize("slug, reason", [("fault-captcha", "captcha"),
                                          ("fault-login", "login"),
                                          ("fault-rules", "rules")])
def test_blocked_page_is_reported_after_one_hit(harness: BrowserHarness, site: RunningSite,
                                               slug: str, reason: str, new_hits: Any) -> None:
    with pytest.raises(BlockedPageError, match=rf"blocked \({reason}\)"):
        fetch(harness, site, slug, "evaluation")
    assert new_hits(f"/{slug}/overview") == 1


def test_content_rendered_by_script_after_three_seconds_is_found_by_selector_wait(
        harness: BrowserHarness, site: RunningSite) -> None:
    page = fetch(harness, site, "fault-js-slow", "data", retries=0)
    assert page.attempts == 1
    assert "Content of the data page of fault-js-slow" in extract_markdown(page.html)


def test_truncated_body_is_a_failure_not_a_page(harness: BrowserHarness,
                                                site: RunningSite) -> None:
    # The server closes after half the body at once; the browser then waits for the rest
    # until the total timeout, so a shorter one (1.5 s) finds the same truncation sooner.
    with pytest.raises(TruncatedPageError, match="cut short"):
        fetch(harness, site, "fault-truncated", retries=1, total_timeout=1.5)


def test_redirect_off_domain_is_refused_without_touching_the_target(
        harness: BrowserHarness, site: RunningSite) -> None:
    with pytest.raises(OffDomainError, match="not on the allow-list"):
        fetch(harness, site, "fault-redirect")
    with pytest.raises(OffDomainError, match="tried to leave"):
        fetch(harness, site, "fault-refresh", selector_timeout=2.0)
    assert site.canary_hits == []


def test_endless_body_stops_at_the_size_cap(harness: BrowserHarness, site: RunningSite) -> None:
    with pytest.raises(PageTooLargeError, match="exceeds the cap of 1000000 bytes"):
        fetch(harness, site, "fault-huge", max_bytes=1_000_000)


def test_robots_txt_disallowed_path_is_never_requested(harness: BrowserHarness,
                                                        site: RunningSite, new_hits: Any) -> None:
    adapter = get_adapter("kaggle", base_url=site.base_url + "/private/kaggle")

    async def go() -> None:
        async with PageFetcher(FetchSettings(renderer="http")) as fetcher:
            url = adapter.page_urls("x")["overview"]
            await fetcher.fetch_page(url, adapter, adapter.url_policy(), hooks=())

    with pytest.raises(RobotsDisallowedError, match="disallows"):
        harness.run(go())
    assert new_hits("/private/") == 0
