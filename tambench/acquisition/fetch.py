"""Fetching pages politely and defensively: one page fetcher over HTTP and Chromium.

* :mod:`~tambench.acquisition.http`: robots.txt, raw downloads and ``--renderer http`` pages;
* :mod:`~tambench.acquisition.browser`: pages rendered by Chromium, their own traffic intact.

:class:`PageFetcher` adds what both share: the URL policy and robots.txt before anything is
requested, the per-origin rate limit, and the one retry policy
(:mod:`~tambench.acquisition.retry`): timeouts, truncated bodies, connection errors, 5xx and 429
are retried with jittered exponential backoff no shorter than the server's ``Retry-After``
(booked in the rate limiter, so the whole origin waits); blocked pages, refused URLs, robots.txt
refusals, oversize responses, other 4xx, content that never appeared and pages that need
JavaScript are not.

A page is *blocked* (CAPTCHA, login wall, rules gate) only when its content hooks never
matched and what the reader would see says so: hidden text (a closed "I Understand and
Accept" dialog) does not count.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from tambench.acquisition.browser import BrowserTab, Rendered, launch_chromium, render
from tambench.acquisition.hooks import Hook, app_shell_reason, describe_hooks, first_match
from tambench.acquisition.http import (
    DomainRateLimiter,
    FetchSettings,
    HttpClient,
    RateLimiter,
    RawResponse,
    RobotsCache,
    meta_refresh_target,
    raise_for_status,
)
from tambench.acquisition.markdown import clean_soup
from tambench.acquisition.platforms import PlatformAdapter, ScrollSpec
from tambench.acquisition.retry import (
    RETRYABLE_STATUS,
    GaveUpError,
    RetryAfterTooLongError,
    Verdict,
    call_with_retries_async,
)
from tambench.acquisition.urls import UrlPolicy, origin_of
from tambench.errors import (
    BlockedPageError,
    ContentNotFoundError,
    FetchError,
    HttpStatusError,
    JavaScriptRequiredError,
    OffDomainError,
    PageTooLargeError,
    RobotsDisallowedError,
    UnreachableHostError,
)

__all__ = ["FetchSettings", "FetchedPage", "PageFetcher", "RateLimiter", "open_fetcher"]

T = TypeVar("T")

#: Failures another attempt cannot fix.
FINAL_ERRORS = (BlockedPageError, OffDomainError, PageTooLargeError, RobotsDisallowedError,
                ContentNotFoundError, JavaScriptRequiredError, UnreachableHostError)


@dataclass
class FetchedPage:
    """A page as rendered, ready to store."""

    url: str
    final_url: str
    status: int
    html: str
    fetched_at: datetime
    attempts: int = 1
    refused: list[str] = field(default_factory=list)


def classify_fetch_error(exc: BaseException) -> Verdict:
    """Retry timeouts, truncation, connection errors, 429 and 5xx; stop everything else."""
    if isinstance(exc, FINAL_ERRORS):
        return Verdict(retry=False)
    if isinstance(exc, HttpStatusError):
        return Verdict(retry=exc.status in RETRYABLE_STATUS, retry_after=exc.retry_after)
    return Verdict(retry=isinstance(exc, FetchError))


def _final(exc: BaseException) -> BaseException:
    """The error a caller sees after the retries: the last failure, saying how it ended."""
    if isinstance(exc, GaveUpError | RetryAfterTooLongError):
        last = exc.last
        if isinstance(last, HttpStatusError):
            return HttpStatusError(str(exc), status=last.status, retry_after=last.retry_after)
        if isinstance(last, FetchError):
            return type(last)(str(exc))
    return exc


def check_blocked(visible_text: str, adapter: PlatformAdapter, url: str, block: str = "") -> None:
    """Raise :class:`BlockedPageError` when a visible element or the visible text shows a block."""
    reason = block or adapter.detect_block_text(visible_text[:20000]) or ""
    if reason:
        raise BlockedPageError(f"{url}: blocked ({reason}); open it in a browser to resolve")


def _visible_block(soup: Any, adapter: PlatformAdapter) -> str:
    for reason, css in adapter.block_selectors().items():
        if soup.select_one(css) is not None:
            return reason
    return ""


def content_missing(url: str, hooks: Sequence[Hook], waited: float | None = None) -> FetchError:
    """The error of a page whose content hooks never matched."""
    within = f" within {waited:g} s" if waited is not None else ""
    return ContentNotFoundError(f"{url}: the page never showed its content: "
                                f"{describe_hooks(hooks)} matched nothing{within}")


class PageFetcher:
    """Fetches pages with retries, politeness and the URL policy (an async context manager)."""

    def __init__(self, settings: FetchSettings | None = None, *,
                 limiter: RateLimiter | None = None, browser: Any = None) -> None:
        """Args:
            settings: limits and manners of the crawl.
            limiter: the per-origin rate limiter (default: one for this fetcher).
            browser: an already launched Playwright browser to share (it is not closed
                here); default: launch one on entry.
        """
        self.settings = settings or FetchSettings()
        self._shared_browser = browser is not None
        self.limiter: RateLimiter = limiter or DomainRateLimiter()
        self.http: HttpClient | None = None
        self.robots: RobotsCache | None = None
        self._sem = asyncio.Semaphore(max(1, self.settings.concurrency))
        self._pw: Any = None
        self._browser: Any = browser
        self._tabs: list[BrowserTab] = []
        self._tmp = ""
        self._own_tmp = False
        self.attempts = 0
        """Requests actually sent for pages (attempts), for reports."""

    async def __aenter__(self) -> PageFetcher:
        self.http = HttpClient(self.settings)
        self.robots = RobotsCache(self.http, "tambench")
        if self.settings.renderer == "browser" and self._browser is None:
            self._tmp = self.settings.tmp_dir or tempfile.mkdtemp(prefix="tambench-chromium-")
            self._own_tmp = not self.settings.tmp_dir
            self._pw, self._browser = await launch_chromium(self.settings, self._tmp)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the tabs, the browser and the HTTP client; remove temp folders we made."""
        while self._tabs:
            await self._tabs.pop().close()
        if self._browser is not None and not self._shared_browser:
            await self._browser.close()
        self._browser = None
        if self._pw is not None:
            await self._pw.stop()
            self._pw = None
        if self.http is not None:
            await self.http.aclose()
            self.http = None
        if self._own_tmp and self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    # -- public API --------------------------------------------------------------------------

    async def fetch_raw(self, url: str, policy: UrlPolicy, *, min_interval: float = 0.0
                        ) -> RawResponse:
        """Bytes of a URL (a data file, robots-checked, rate-limited, with retries)."""

        async def attempt() -> RawResponse:
            resp = await self._http().get(url, policy)
            raise_for_status(resp.final_url, resp.status, resp.headers)
            return resp

        raw, _ = await self._with_retries(url, policy, min_interval, attempt)
        return raw

    async def fetch_page(self, url: str, adapter: PlatformAdapter, policy: UrlPolicy, *,
                         hooks: Sequence[Hook], region: Sequence[str] = (),
                         scroll: ScrollSpec | None = None) -> FetchedPage:
        """Fetch one page and wait for its content (``hooks``), scrolling it with ``scroll``.

        Raises:
            BlockedPageError: a CAPTCHA, login wall or rules gate (not retried).
            ContentNotFoundError: the page loaded but its content never appeared.
            JavaScriptRequiredError: ``--renderer http`` on a page that needs JavaScript.
            FetchError and its subclasses: after bounded retries.
        """

        async def attempt() -> FetchedPage:
            if self.settings.renderer == "browser":
                return await self._browser_attempt(url, adapter, policy, hooks, region, scroll)
            return await self._http_attempt(url, adapter, policy, hooks)

        page, n = await self._with_retries(url, policy, adapter.min_interval_s, attempt)
        page.attempts = n
        return page

    # -- retries -----------------------------------------------------------------------------

    def _http(self) -> HttpClient:
        if self.http is None:
            raise FetchError("PageFetcher used outside its `async with` block")
        return self.http

    async def _with_retries(self, url: str, policy: UrlPolicy, min_interval: float,
                            attempt_fn: Callable[[], Awaitable[T]]) -> tuple[T, int]:
        if self.robots is None:
            raise FetchError("PageFetcher used outside its `async with` block")
        policy.check(url)
        if self.settings.respect_robots:
            await self.robots.check(url, policy)
        origin = origin_of(url)

        async def once(n: int) -> tuple[T, int]:
            await self.limiter.acquire(origin, min_interval)
            self.attempts += 1
            return await attempt_fn(), n

        async def book(delay: float) -> None:
            self.limiter.defer(origin, delay)

        try:
            return await call_with_retries_async(once, self.settings.retry_policy,
                                                 classify_fetch_error, sleep=book)
        except (GaveUpError, RetryAfterTooLongError) as exc:
            raise _final(exc) from None

    # -- one attempt, plain HTTP -------------------------------------------------------------

    async def _http_attempt(self, url: str, adapter: PlatformAdapter, policy: UrlPolicy,
                            hooks: Sequence[Hook]) -> FetchedPage:
        current = url
        for _ in range(self.settings.max_redirects + 1):
            resp = await self._http().get(current, policy)
            html = resp.text()
            refresh = meta_refresh_target(html) if resp.status == 200 else None
            if refresh is not None:
                current = policy.check_redirect(resp.final_url, refresh)
                continue
            soup = clean_soup(html)
            if resp.status != 200:
                check_blocked(" ".join(soup.get_text(" ").split()), adapter, resp.final_url,
                              _visible_block(soup, adapter))
                raise_for_status(resp.final_url, resp.status, resp.headers)
            if not hooks or first_match(soup, hooks) is not None:
                return FetchedPage(url, resp.final_url, resp.status, html, datetime.now(UTC))
            check_blocked(" ".join(soup.get_text(" ").split()), adapter, resp.final_url,
                          _visible_block(soup, adapter))
            shell = app_shell_reason(soup)
            if shell:
                raise JavaScriptRequiredError(
                    f"{resp.final_url}: {shell}; this site renders its pages with JavaScript: "
                    "use --renderer browser")
            raise content_missing(resp.final_url, hooks)
        raise FetchError(f"{url}: more than {self.settings.max_redirects} redirects")

    # -- one attempt, Chromium ---------------------------------------------------------------

    async def _browser_attempt(self, url: str, adapter: PlatformAdapter, policy: UrlPolicy,
                               hooks: Sequence[Hook], region: Sequence[str],
                               scroll: ScrollSpec | None) -> FetchedPage:
        if self._browser is None:
            raise FetchError("fetcher is closed")
        async with self._sem:
            tab = self._tabs.pop() if self._tabs else await BrowserTab.open(self._browser,
                                                                            self.settings)
            reusable = False
            try:
                got = await render(tab, url, policy, hooks=hooks,
                                   blocks=adapter.block_selectors(), region=region,
                                   settings=self.settings, scroll=scroll)
                self._judge(url, got, adapter, hooks)
                reusable = True
                return FetchedPage(url, got.final_url, got.status, got.html, datetime.now(UTC),
                                   refused=got.refused)
            finally:
                if reusable:
                    self._tabs.append(tab)
                else:
                    await tab.close()

    def _judge(self, url: str, got: Rendered, adapter: PlatformAdapter,
               hooks: Sequence[Hook]) -> None:
        """Raise the reason a rendered page is not a page of content."""
        if got.status != 200:
            check_blocked(got.visible_text, adapter, got.final_url, got.block)
            raise_for_status(got.final_url, got.status, got.headers)
        if got.ready or not hooks:
            return
        if got.left_page is not None:
            raise OffDomainError(f"{url}: the page tried to leave for {got.left_page}")
        check_blocked(got.visible_text, adapter, got.final_url, got.block)
        raise content_missing(got.final_url, hooks, self.settings.selector_timeout)


@contextlib.asynccontextmanager
async def open_fetcher(settings: FetchSettings | None = None) -> AsyncIterator[PageFetcher]:
    """``async with open_fetcher(settings) as f:`` a started :class:`PageFetcher`."""
    fetcher = PageFetcher(settings)
    await fetcher.__aenter__()
    try:
        yield fetcher
    finally:
        await fetcher.aclose()
