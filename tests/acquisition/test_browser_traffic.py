"""The browser fetcher leaves the page's own traffic alone and waits for real content hooks."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from tambench.acquisition.fetch import FetchedPage, FetchSettings, PageFetcher
from tambench.acquisition.hooks import Hook
from tambench.acquisition.leaderboard import leaderboard_from_pages, parse_leaderboard_html
from tambench.acquisition.markdown import extract_markdown
from tambench.acquisition.platforms import ScrollSpec, get_adapter
from tambench.acquisition.urls import UrlPolicy
from tambench.errors import ContentNotFoundError, JavaScriptRequiredError, OffDomainError
from tambench.testing.site import RunningSite

from .conftest import BrowserHarness

QUICK = dict(total_timeout=15.0, selector_timeout=6.0, retries=0)


def fetch(harness: BrowserHarness, site: RunningSite, url: str, hooks: tuple[Hook, ...], *,
          region: tuple[str, ...] = (), scroll: ScrollSpec | None = None,
          **overrides: Any) -> FetchedPage:
    settings = dataclasses.replace(harness.settings, **{**QUICK, **overrides})  # type: ignore[arg-type]
    adapter = get_adapter("kaggle", base_url=site.base_urls["kaggle"])

    async def go() -> FetchedPage:
        async with PageFetcher(settings, browser=harness.browser) as fetcher:
            return await fetcher.fetch_page(url, adapter, adapter.url_policy(), hooks=hooks,
                                            region=region, scroll=scroll)

    return harness.run(go())


def test_a_json_post_made_by_a_page_reaches_the_server_unchanged_through_the_fetcher(
        harness: BrowserHarness, site: RunningSite) -> None:
    before = len(site.posts("/lab/echo"))
    page = fetch(harness, site, site.base_url + "/lab/post", (Hook("#done"),))
    posts = site.posts("/lab/echo")[before:]
    assert len(posts) == 2
    first = posts[0]
    assert first["method"] == "POST"
    assert first["body"] == json.dumps(
        {"query": "leaderboard", "page": 2, "tags": ["a", "b"], "note": "café"},
        separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert first["headers"]["Content-Type"] == "application/json"
    assert first["headers"]["X-XSRF-TOKEN"] == "lab-token-3f9a"
    # the cookie the page's own response set (Set-Cookie) went back with the page's requests
    assert "lab_session=s1" in first["headers"].get("Cookie", "")
    assert posts[1]["body"] == b"{}"
    assert f"echo: POST {len(first['body'])}" in extract_markdown(page.html)


def test_kaggle_style_content_arrives_through_xsrf_guarded_json_posts(
        harness: BrowserHarness, site: RunningSite) -> None:
    adapter = get_adapter("kaggle", base_url=site.base_urls["kaggle"])
    spec = {s.kind: s for s in adapter.page_specs("wine-cultivar-classification")}["data"]
    before = len(site.posts("GetCompetitionPage"))
    page = fetch(harness, site, spec.url, spec.hooks, region=spec.region)
    calls = site.posts("GetCompetitionPage")[before:]
    assert [json.loads(c["body"]) for c in calls] == [
        {"competitionName": "wine-cultivar-classification", "pageName": "data"}]
    token = calls[0]["headers"]["X-XSRF-TOKEN"]
    assert token and f"XSRF-TOKEN={token}" in calls[0]["headers"]["Cookie"]
    md = extract_markdown(page.html, region=spec.region, title=spec.title)
    assert "## Dataset Description" in md and "train.csv" in md
    # the closed rules dialog is in the DOM, yet the page is content, not a block
    assert "I Understand and Accept" in page.html and "I Understand and Accept" not in md
    for noise in ("emoji_events", "Skip to content", "Recently Viewed", "Data Explorer"):
        assert noise not in md


def test_a_page_whose_hooks_never_match_names_them_in_its_reason(
        harness: BrowserHarness, site: RunningSite) -> None:
    url = site.base_urls["kaggle"] + "/competitions/wine-cultivar-classification/data"
    with pytest.raises(ContentNotFoundError,
                       match=r"'#no-such-region' matched nothing within 2 s"):
        fetch(harness, site, url, (Hook("#no-such-region"),), selector_timeout=2.0)


def test_the_http_renderer_on_a_javascript_site_says_so_instead_of_returning_nothing(
        site: RunningSite, harness: BrowserHarness) -> None:
    adapter = get_adapter("kaggle", base_url=site.base_urls["kaggle"])
    spec = adapter.page_specs("wine-cultivar-classification")[0]

    async def go() -> FetchedPage:
        async with PageFetcher(FetchSettings(renderer="http", retries=0)) as fetcher:
            return await fetcher.fetch_page(spec.url, adapter, adapter.url_policy(),
                                            hooks=spec.hooks)

    with pytest.raises(JavaScriptRequiredError, match=r"#root.*use --renderer browser"):
        harness.run(go())


def test_the_kaggle_list_leaderboard_is_scrolled_until_every_row_has_loaded(
        harness: BrowserHarness, site: RunningSite) -> None:
    adapter = get_adapter("kaggle", base_url=site.base_urls["kaggle"])
    board = adapter.board
    assert board is not None
    page = fetch(harness, site, adapter.leaderboard_url("spaceship-titanic"), board.hooks,
                 scroll=adapter.scroll_spec())
    parsed = parse_leaderboard_html(page.html, board.scope)
    rows = leaderboard_from_pages([parsed]).leaderboard.rows
    expected = site.state.competitions["spaceship-titanic"].leaderboard()
    assert len(rows) == len(expected) == 120  # 50 on load, 50 and 20 more on scrolling
    assert [r.team for r in rows] == [e.team for e in expected]


def test_redirects_between_a_platforms_own_domains_are_allowed_and_others_refused() -> None:
    for name, hops in (("biendata", ("https://www.biendata.xyz/competition/x/",
                                     "https://www.biendata.net/competition/x/",
                                     "https://biendata.net/competition/x/")),
                       ("kaggle", ("https://www.kaggle.com/c/x", "https://kaggle.com/c/x")),
                       ("aicrowd", ("https://www.aicrowd.com/challenges/x",
                                    "https://aicrowd.com/challenges/x"))):
        real = get_adapter(name).url_policy()
        policy = UrlPolicy(origins=real.origins, resolve=False)  # no DNS in tests
        for a, b in zip(hops, hops[1:], strict=False):
            assert policy.check_redirect(a, b) == b
        with pytest.raises(OffDomainError, match="not on the allow-list"):
            policy.check_redirect(hops[0], "https://evil.example.com/")


def test_a_biendata_net_url_is_crawled_on_that_domain() -> None:
    from tambench.acquisition.platforms import resolve_ref

    adapter, slug = resolve_ref("https://www.biendata.net/competition/kdd2023/data/")
    assert (adapter.name, slug) == ("biendata", "kdd2023")
    assert adapter.page_urls(slug)["data"] == "https://www.biendata.net/competition/kdd2023/data/"
    assert not adapter.is_mirror
