"""Fetching pages politely and defensively: HTTP for bytes, Chromium for rendering.

The split between the two clients:

* **Plain HTTP (httpx)** makes every network request: robots.txt, raw downloads, and also each
  request the browser makes. It enforces the URL policy at every redirect hop, the connect /
  read / total timeouts, the size cap, and detects truncated bodies.
* **Chromium (Playwright)** only renders. Every request of a browser context is intercepted
  (``context.route``) and answered by the HTTP client above, so scripts, XHR calls, meta
  refreshes and JavaScript navigations pass the same allow-list; anything else is aborted.
  A navigation that answers with a redirect is not followed inside the browser (Chromium does
  not route redirect hops): the target is checked and navigated to as a new hop.

Retries happen per page (a navigation): timeouts, truncated bodies, connection errors, 5xx
and 429 are retried with jittered exponential backoff, waiting at least the server's
``Retry-After``; blocked pages, refused URLs, robots.txt refusals, oversize responses and
other 4xx answers are not. Page requests to one origin are spaced by a rate limiter.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import os
import random
import re
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib import robotparser
from urllib.parse import urljoin

from tambench import __version__
from tambench._optional import require
from tambench.acquisition.markdown import MARK_HIDDEN_JS
from tambench.acquisition.platforms import PlatformAdapter
from tambench.acquisition.urls import UrlPolicy, origin_of
from tambench.errors import (
    BlockedPageError,
    BrowserNotFoundError,
    FetchError,
    FetchTimeoutError,
    HttpStatusError,
    OffDomainError,
    PageTooLargeError,
    RobotsDisallowedError,
    TruncatedPageError,
)

if TYPE_CHECKING:
    import httpx

USER_AGENT = f"tambench/{__version__} (benchmark construction; respects robots.txt)"

#: Chromium flags for a browser that talks to nobody on its own (stack.md).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
#: Added in hermetic mode: every host name but the loopback ones resolves to nothing.
HERMETIC_RESOLVER_FLAG = (
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1, EXCLUDE localhost"
)
SYSTEM_CHROMIUM_PATHS = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
)
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class FetchSettings:
    """Limits and manners of a crawl. Every duration is in seconds."""

    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    total_timeout: float = 60.0
    """Upper bound of one attempt at one page, rendering included."""
    selector_timeout: float = 15.0
    """How long to wait for a page's ready selector once its document has loaded."""
    retries: int = 3
    """Extra attempts after the first, for transient failures only."""
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    max_retry_after: float = 120.0
    """A Retry-After longer than this makes the page fail instead of waiting."""
    max_bytes: int = 20_000_000
    """Size cap of one response."""
    max_redirects: int = 5
    concurrency: int = 4
    """Browser contexts (pages) open at once."""
    respect_robots: bool = True
    renderer: Literal["browser", "http"] = "browser"
    """``browser`` renders JavaScript; ``http`` reads the served HTML only."""
    hermetic: bool = False
    """Resolve no host name in Chromium except the loopback ones (tests, local site)."""
    chromium: str = ""
    """Explicit Chromium binary; else ``TAMBENCH_CHROMIUM``, Playwright's, then the system's."""
    tmp_dir: str = ""
    """Where Chromium and its driver put temporary folders (default: a fresh temp folder)."""
    user_agent: str = USER_AGENT


@dataclass
class RawResponse:
    """One HTTP answer after checked redirects."""

    url: str
    final_url: str
    status: int
    headers: dict[str, str]
    body: bytes
    hops: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The body decoded with the declared charset (UTF-8 by default)."""
        ctype = self.headers.get("content-type", "")
        m = re.search(r"charset=([\w-]+)", ctype, re.I)
        enc = m.group(1) if m else "utf-8"
        try:
            return self.body.decode(enc, errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")


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


# --- rate limiting ------------------------------------------------------------------------


class RateLimiter(Protocol):
    """Spaces requests per origin. A process-wide one can be swapped for a shared one."""

    async def acquire(self, origin: str, min_interval: float) -> None:
        """Wait until a request to ``origin`` may start, and claim that slot."""
        ...

    def defer(self, origin: str, seconds: float) -> None:
        """Make no request to ``origin`` start for ``seconds`` (Retry-After, backoff)."""
        ...


class DomainRateLimiter:
    """In-process per-origin limiter: a minimum gap between starts, plus deferrals."""

    def __init__(self) -> None:
        self._next: dict[str, float] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def acquire(self, origin: str, min_interval: float) -> None:
        """Wait for the origin's next slot, then book the following one."""
        lock = self._locks.setdefault(origin, asyncio.Lock())
        async with lock:
            now = time.monotonic()
            wait = self._next.get(origin, 0.0) - now
            if wait > 0:
                await asyncio.sleep(wait)
                now = time.monotonic()
            self._next[origin] = max(self._next.get(origin, 0.0), now + min_interval)

    def defer(self, origin: str, seconds: float) -> None:
        """Push the origin's next slot at least ``seconds`` into the future."""
        until = time.monotonic() + seconds
        self._next[origin] = max(self._next.get(origin, 0.0), until)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date).

    >>> parse_retry_after("2")
    2.0
    >>> parse_retry_after("soon") is None
    True
    """
    if not value:
        return None
    v = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", v):
        return float(v)
    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now if now is not None else time.time()
    return max(0.0, when.timestamp() - current)


def backoff_delay(attempt: int, settings: FetchSettings, retry_after: float | None) -> float:
    """Jittered exponential backoff, never shorter than the server's Retry-After."""
    base = settings.backoff_base * (2**attempt) * random.uniform(0.5, 1.5)  # noqa: S311
    delay = min(settings.backoff_max, base)
    if retry_after is not None:
        delay = max(delay, retry_after + random.uniform(0.0, 0.25))  # noqa: S311
    return delay


# --- the HTTP client ----------------------------------------------------------------------


class HttpClient:
    """httpx with the crawl's rules: checked hops, timeouts, size cap, truncation checks."""

    def __init__(self, settings: FetchSettings) -> None:
        httpx_mod = require("httpx", extra="browser", feature="fetching pages")
        self.settings = settings
        timeout = httpx_mod.Timeout(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.read_timeout,
            pool=settings.total_timeout,
        )
        self._httpx = httpx_mod
        self.client: httpx.AsyncClient = httpx_mod.AsyncClient(
            timeout=timeout,
            follow_redirects=False,
            trust_env=False,  # no proxies or netrc from the environment: policy is ours
            headers={"User-Agent": settings.user_agent},
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self.client.aclose()

    async def get(
        self,
        url: str,
        policy: UrlPolicy,
        *,
        follow: bool = True,
        headers: dict[str, str] | None = None,
    ) -> RawResponse:
        """GET ``url``; with ``follow``, redirects are followed hop by hop, each checked.

        Raises:
            OffDomainError: a hop leaves the allow-list.
            FetchTimeoutError, TruncatedPageError, PageTooLargeError, FetchError.
        """
        policy.check(url)
        hops: list[str] = []
        current = url
        for _ in range(self.settings.max_redirects + 1):
            status, resp_headers, body = await self._get_once(current, headers)
            if follow and status in (301, 302, 303, 307, 308) and "location" in resp_headers:
                nxt = policy.check_redirect(current, resp_headers["location"])
                hops.append(nxt)
                current = nxt
                continue
            return RawResponse(url, current, status, resp_headers, body, hops)
        raise FetchError(f"{url}: more than {self.settings.max_redirects} redirects")

    async def _get_once(
        self, url: str, headers: dict[str, str] | None
    ) -> tuple[int, dict[str, str], bytes]:
        httpx_mod = self._httpx
        cap = self.settings.max_bytes
        try:
            async with asyncio.timeout(self.settings.total_timeout):
                async with self.client.stream("GET", url, headers=headers) as resp:
                    h = {k.lower(): v for k, v in resp.headers.items()}
                    declared = h.get("content-length", "")
                    if declared.isdigit() and int(declared) > cap:
                        raise PageTooLargeError(
                            f"{url}: Content-Length {declared} exceeds the cap of {cap} bytes"
                        )
                    chunks: list[bytes] = []
                    size = 0
                    async for chunk in resp.aiter_raw():
                        size += len(chunk)
                        if size > cap:
                            raise PageTooLargeError(f"{url}: body exceeds the cap of {cap} bytes")
                        chunks.append(chunk)
                    body = b"".join(chunks)
                    if h.get("content-encoding", "identity") not in ("identity", ""):
                        body = _decode_body(body, h["content-encoding"], cap, url)
                    return resp.status_code, h, body
        except TimeoutError:
            raise FetchTimeoutError(
                f"{url}: no complete answer within {self.settings.total_timeout} s"
            ) from None
        except httpx_mod.TimeoutException as exc:
            raise FetchTimeoutError(f"{url}: {type(exc).__name__} ({exc})") from None
        except httpx_mod.RemoteProtocolError as exc:
            raise TruncatedPageError(f"{url}: response cut short ({exc})") from None
        except httpx_mod.TransportError as exc:
            raise FetchError(f"{url}: {type(exc).__name__} ({exc})") from None


def _decode_body(body: bytes, encoding: str, cap: int, url: str) -> bytes:
    import zlib

    enc = encoding.strip().lower()
    if enc in ("gzip", "deflate"):
        d = zlib.decompressobj(wbits=47 if enc == "gzip" else 15)
        try:
            out = d.decompress(body, cap + 1)
        except zlib.error as exc:
            raise TruncatedPageError(f"{url}: corrupt {enc} body ({exc})") from None
        if len(out) > cap or d.unconsumed_tail:
            raise PageTooLargeError(f"{url}: decompressed body exceeds the cap of {cap} bytes")
        return out
    raise FetchError(f"{url}: unsupported Content-Encoding {encoding!r}")


# --- robots.txt ---------------------------------------------------------------------------


class RobotsCache:
    """robots.txt per origin, fetched once (RFC 9309: 4xx allows all, 5xx/unreachable none)."""

    def __init__(self, http: HttpClient, user_agent: str) -> None:
        self.http = http
        self.user_agent = user_agent
        self._parsers: dict[str, robotparser.RobotFileParser | bool] = {}
        self._lock = asyncio.Lock()

    async def check(self, url: str, policy: UrlPolicy) -> None:
        """Raise :class:`RobotsDisallowedError` when robots.txt forbids ``url``."""
        origin = origin_of(url)
        async with self._lock:
            if origin not in self._parsers:
                self._parsers[origin] = await self._load(url, policy)
        parser = self._parsers[origin]
        allowed = parser if isinstance(parser, bool) else parser.can_fetch(self.user_agent, url)
        if not allowed:
            raise RobotsDisallowedError(f"robots.txt of {origin} disallows {url}")

    async def _load(self, url: str, policy: UrlPolicy) -> robotparser.RobotFileParser | bool:
        robots_url = urljoin(url, "/robots.txt")
        try:
            resp = await self.http.get(robots_url, policy)
        except OffDomainError:
            return False
        except FetchError:
            return False
        if 400 <= resp.status < 500:
            return True
        if resp.status >= 500:
            return False
        parser = robotparser.RobotFileParser(robots_url)
        parser.parse(resp.text().splitlines())
        return parser


# --- Chromium -----------------------------------------------------------------------------


def find_chromium(explicit: str = "", playwright_path: str = "") -> str:
    """The Chromium binary to drive.

    Order: ``explicit`` (a setting), ``TAMBENCH_CHROMIUM``, the browser Playwright installed
    (``playwright_path``), then the system's Chromium.

    Raises:
        BrowserNotFoundError: none of them exists.
    """
    for candidate, origin in ((explicit, "setting"), (os.environ.get("TAMBENCH_CHROMIUM", ""),
                                                       "TAMBENCH_CHROMIUM")):
        if candidate:
            if not Path(candidate).is_file():
                raise BrowserNotFoundError(f"Chromium from {origin} not found at {candidate}")
            return candidate
    if playwright_path and Path(playwright_path).is_file():
        return playwright_path
    for path in SYSTEM_CHROMIUM_PATHS:
        if Path(path).is_file():
            return path
    raise BrowserNotFoundError(
        "no Chromium found: run `playwright install chromium`, install your system's chromium "
        "package, or set TAMBENCH_CHROMIUM to a Chromium binary"
    )


def chromium_args(hermetic: bool) -> list[str]:
    """Launch flags (the headless flag is passed by Playwright itself)."""
    args = [f for f in CHROMIUM_FLAGS if f != "--headless"]
    if hermetic:
        args.append(HERMETIC_RESOLVER_FLAG)
    return args


@contextlib.contextmanager
def _environ(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def chromium_env(tmp_dir: str) -> dict[str, str | float | bool]:
    """A minimal environment for Chromium: no secrets, temp folders under ``tmp_dir``."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "DISPLAY", "XDG_RUNTIME_DIR", "FONTCONFIG_PATH")
    env: dict[str, str | float | bool] = {k: os.environ[k] for k in keep if k in os.environ}
    env["TMPDIR"] = tmp_dir
    return env


async def launch_chromium(settings: FetchSettings, tmp_dir: str) -> tuple[Any, Any]:
    """Start Playwright and launch Chromium; returns (playwright, browser) to stop/close.

    Temporary folders of the driver and of Chromium go under ``tmp_dir``.
    """
    pw_mod = require("playwright.async_api", extra="browser", feature="rendering pages")
    Path(tmp_dir).mkdir(parents=True, exist_ok=True)
    # The Playwright driver copies os.environ when it starts; its temp profile folders
    # follow TMPDIR, so TMPDIR is set for that moment only.
    with _environ(TMPDIR=tmp_dir):
        pw = await pw_mod.async_playwright().start()
    pw_path = ""
    with contextlib.suppress(Exception):  # noqa: BLE001 - a missing bundled browser is normal
        pw_path = str(pw.chromium.executable_path)
    try:
        exe = find_chromium(settings.chromium, pw_path)
        browser = await pw.chromium.launch(
            executable_path=exe,
            headless=True,
            args=chromium_args(settings.hermetic),
            env=chromium_env(tmp_dir),
            handle_sigint=False,
            handle_sigterm=False,
            handle_sighup=False,
        )
    except BaseException:
        await pw.stop()
        raise
    return pw, browser


# --- the page fetcher ---------------------------------------------------------------------


@dataclass
class _NavState:
    """What the route handler saw of the main document of one navigation."""

    response: RawResponse | None = None
    error: BaseException | None = None
    redirect: str | None = None
    refused: list[str] = field(default_factory=list)
    left_page: str | None = None
    """A refused main-frame navigation after the document loaded (meta refresh, script)."""
    skipped: int = 0
    """Requests not made because their type is not needed (images, fonts, media...)."""


class _Tab:
    """One pooled browser tab in its own context, with the state of its current page."""

    def __init__(self, context: Any, page: Any) -> None:
        self.context = context
        self.page = page
        self.nav = _NavState()
        self.policy: UrlPolicy | None = None

    def begin(self, policy: UrlPolicy) -> _NavState:
        """Start a navigation under ``policy`` with fresh state."""
        self.nav = _NavState()
        self.policy = policy
        return self.nav


class PageFetcher:
    """Fetches pages with retries, politeness and the URL policy (an async context manager)."""

    def __init__(
        self,
        settings: FetchSettings | None = None,
        *,
        limiter: RateLimiter | None = None,
        browser: Any = None,
    ) -> None:
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
        self._tabs: list[_Tab] = []
        self._tmp: str = ""
        self._own_tmp = False
        #: Requests actually sent for pages (attempts), for reports.
        self.attempts = 0

    async def __aenter__(self) -> PageFetcher:
        self.http = HttpClient(self.settings)
        self.robots = RobotsCache(self.http, "tambench")
        if self.settings.renderer == "browser" and self._browser is None:
            await self._start_browser()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the browser and the HTTP client, and remove temp folders we made."""
        while self._tabs:
            await self._tabs.pop().context.close()
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

    async def _start_browser(self) -> None:
        if self.settings.tmp_dir:
            self._tmp = self.settings.tmp_dir
        else:
            self._tmp = tempfile.mkdtemp(prefix="tambench-chromium-")
            self._own_tmp = True
        self._pw, self._browser = await launch_chromium(self.settings, self._tmp)

    # -- public API --------------------------------------------------------------------------
    async def fetch_raw(self, url: str, policy: UrlPolicy, *, min_interval: float = 0.0
                        ) -> RawResponse:
        """Bytes of a URL (a data file, robots-checked, rate-limited, with retries)."""

        async def attempt(u: str) -> RawResponse:
            if self.http is None:
                raise FetchError("fetcher is closed")
            resp = await self.http.get(u, policy)
            _raise_for_status(resp)
            return resp

        raw: RawResponse = await self._with_retries(url, policy, min_interval, attempt)
        return raw

    async def fetch_page(
        self, url: str, adapter: PlatformAdapter, policy: UrlPolicy, *, kind: str
    ) -> FetchedPage:
        """Fetch and render one page of a competition.

        Raises:
            BlockedPageError: a CAPTCHA, login wall or rules gate (not retried).
            FetchError and its subclasses: after bounded retries.
        """
        selector = adapter.ready_selector(kind)

        async def attempt(u: str) -> FetchedPage:
            if self.settings.renderer == "browser":
                return await self._browser_attempt(u, adapter, policy, selector)
            return await self._http_attempt(u, adapter, policy, selector)

        page: FetchedPage = await self._with_retries(url, policy, adapter.min_interval_s, attempt)
        return page

    # -- retries -----------------------------------------------------------------------------
    async def _with_retries(self, url: str, policy: UrlPolicy, min_interval: float,
                            attempt_fn: Any) -> Any:
        if self.http is None or self.robots is None:
            raise FetchError("PageFetcher used outside its `async with` block")
        policy.check(url)
        if self.settings.respect_robots:
            await self.robots.check(url, policy)
        origin = origin_of(url)
        last: FetchError | None = None
        for attempt in range(self.settings.retries + 1):
            await self.limiter.acquire(origin, min_interval)
            self.attempts += 1
            retry_after: float | None = None
            try:
                result = await attempt_fn(url)
                if isinstance(result, FetchedPage):
                    result.attempts = attempt + 1
                return result
            except (BlockedPageError, OffDomainError, PageTooLargeError, RobotsDisallowedError):
                raise
            except HttpStatusError as exc:
                if exc.status not in RETRYABLE_STATUS:
                    raise
                retry_after = exc.retry_after
                if retry_after is not None and retry_after > self.settings.max_retry_after:
                    raise HttpStatusError(
                        f"{exc} asks to wait {retry_after:.0f} s, more than the "
                        f"{self.settings.max_retry_after:.0f} s allowed",
                        status=exc.status, retry_after=retry_after,
                    ) from None
                last = exc
            except FetchError as exc:  # timeouts, truncation, connection and browser failures
                last = exc
            if attempt < self.settings.retries:
                delay = backoff_delay(attempt, self.settings, retry_after)
                self.limiter.defer(origin, delay)
        n = self.settings.retries + 1
        if last is None:
            raise FetchError(f"{url}: gave up after {n} attempts")
        msg = f"{last} (gave up after {n} attempts)"
        if isinstance(last, HttpStatusError):
            raise HttpStatusError(msg, status=last.status, retry_after=last.retry_after)
        raise type(last)(msg)

    # -- one attempt, plain HTTP -------------------------------------------------------------
    async def _http_attempt(
        self, url: str, adapter: PlatformAdapter, policy: UrlPolicy, selector: str
    ) -> FetchedPage:
        if self.http is None:
            raise FetchError("fetcher is closed")
        current = url
        for _ in range(self.settings.max_redirects + 1):
            resp = await self.http.get(current, policy)
            html = resp.text()
            if resp.status != 200:
                _raise_if_blocked(html, adapter, resp.final_url, selector)
                _raise_for_status(resp)
            refresh = meta_refresh_target(html)
            if refresh is None:
                _raise_if_blocked(html, adapter, resp.final_url, selector, require_ready=True)
                return FetchedPage(url, resp.final_url, resp.status, html, datetime.now(UTC))
            current = policy.check_redirect(resp.final_url, refresh)
        raise FetchError(f"{url}: more than {self.settings.max_redirects} redirects")

    # -- one attempt, Chromium ---------------------------------------------------------------
    async def _browser_attempt(
        self, url: str, adapter: PlatformAdapter, policy: UrlPolicy, selector: str
    ) -> FetchedPage:
        if self._browser is None or self.http is None:
            raise FetchError("fetcher is closed")
        async with self._sem:
            tab = await self._take_tab()
            reusable = False
            try:
                current = url
                for _ in range(self.settings.max_redirects + 1):
                    nav = tab.begin(policy)
                    try:
                        await tab.page.goto(current, wait_until="domcontentloaded",
                                            timeout=self.settings.total_timeout * 1000)
                    except Exception as exc:  # noqa: BLE001 - re-raised below as a FetchError
                        if nav.error is None and nav.redirect is None and nav.response is None:
                            raise _browser_error(current, exc) from None
                    if nav.error is not None:
                        raise nav.error
                    if nav.redirect is not None:
                        current = nav.redirect
                        continue
                    if nav.response is None:
                        raise FetchError(f"{current}: the browser made no request")
                    if nav.response.status != 200:
                        _raise_if_blocked(nav.response.text(), adapter, current, selector)
                        _raise_for_status(nav.response)
                    html = await self._wait_ready(tab.page, adapter, current, selector, nav)
                    final = tab.page.url
                    policy.check(final)
                    reusable = True
                    return FetchedPage(url, final, 200, html, datetime.now(UTC),
                                       refused=list(nav.refused))
                raise FetchError(f"{url}: more than {self.settings.max_redirects} redirects")
            finally:
                await self._return_tab(tab, reusable)

    async def _take_tab(self) -> _Tab:
        """A browser tab (own context) from the pool, or a new one.

        Tabs are reused across pages because a new tab costs a renderer process; a tab that
        saw any failure is closed instead of being reused.
        """
        if self._tabs:
            return self._tabs.pop()
        if self._browser is None or self.http is None:
            raise FetchError("fetcher is closed")
        context = await self._browser.new_context(
            user_agent=self.settings.user_agent, service_workers="block",
            accept_downloads=False,
        )
        page = await context.new_page()
        tab = _Tab(context, page)
        await page.route("**/*", _route_handler(tab, self.http))
        return tab

    async def _return_tab(self, tab: _Tab, reusable: bool) -> None:
        tab.policy = None
        if reusable and self._browser is not None:
            self._tabs.append(tab)
        else:
            await tab.context.close()

    async def _wait_ready(
        self, page: Any, adapter: PlatformAdapter, url: str, selector: str, nav: _NavState
    ) -> str:
        blocks = adapter.block_selectors()
        union = ", ".join([selector, *blocks.values()])
        try:
            await page.wait_for_selector(union, state="attached",
                                         timeout=self.settings.selector_timeout * 1000)
        except Exception as exc:  # noqa: BLE001 - a missing selector is reported below
            if "Timeout" not in type(exc).__name__ and "Timeout" not in str(exc):
                raise _browser_error(url, exc) from None
            if nav.left_page is not None:
                # No content, and the page tried to navigate elsewhere (meta refresh, script).
                raise OffDomainError(
                    f"{url}: the page tried to leave for {nav.left_page}"
                ) from None
        # Elements hidden by stylesheets are marked so extraction can drop them too.
        await page.evaluate(MARK_HIDDEN_JS)
        html: str = await page.content()
        if await page.query_selector(selector) is None:
            _raise_if_blocked(html, adapter, url, selector, require_ready=True)
        return html


def _raise_for_status(resp: RawResponse) -> None:
    if 200 <= resp.status < 300:
        return
    raise HttpStatusError(
        f"{resp.final_url}: HTTP {resp.status}",
        status=resp.status,
        retry_after=parse_retry_after(resp.headers.get("retry-after")),
    )


def _raise_if_blocked(
    html: str, adapter: PlatformAdapter, url: str, selector: str, *, require_ready: bool = False
) -> None:
    """Raise BlockedPageError for a blocked page; with ``require_ready`` also a missing selector.

    A page holding its ready selector is never called blocked, whatever else it contains (a
    rules page may say "accept the rules", a header may hold a login form).
    """
    bs4 = require("bs4", extra="browser", feature="reading pages")
    soup = bs4.BeautifulSoup(html, "lxml")
    if soup.select_one(selector) is not None:
        return
    for reason, block_sel in adapter.block_selectors().items():
        if soup.select_one(block_sel) is not None:
            raise BlockedPageError(f"{url}: blocked ({reason}); open it in a browser to resolve")
    reason_text = adapter.detect_block_text(soup.get_text(" ", strip=True)[:20000])
    if reason_text:
        raise BlockedPageError(f"{url}: blocked ({reason_text}); open it in a browser to resolve")
    if require_ready:
        raise FetchError(f"{url}: the page never showed its content (selector {selector!r})")


_META_REFRESH = re.compile(
    r"<meta[^>]+http-equiv=[\"']?refresh[\"']?[^>]*content=[\"']?\s*\d*\s*;?\s*url\s*=\s*"
    r"[\"']?([^\"'>\s]+)",
    re.I,
)


def meta_refresh_target(html: str) -> str | None:
    """The target of a ``<meta http-equiv="refresh">`` redirect, if the page has one.

    >>> meta_refresh_target('<meta http-equiv="refresh" content="0; url=/next">')
    '/next'
    """
    m = _META_REFRESH.search(html[:20000])
    return m.group(1) if m else None


def _browser_error(url: str, exc: BaseException) -> FetchError:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "Timeout" in type(exc).__name__ or "Timeout" in text:
        return FetchTimeoutError(f"{url}: browser timeout ({text})")
    return FetchError(f"{url}: browser error ({text})")


_SKIPPED_RESOURCES = frozenset({"image", "media", "font", "websocket", "manifest", "ping",
                                "eventsource"})
_DROP_HEADERS = frozenset({"content-length", "content-encoding", "transfer-encoding",
                           "connection", "set-cookie"})


def _route_handler(tab: _Tab, http: HttpClient) -> Any:
    # Playwright passes (route, request) to handlers taking two parameters: one parameter only.
    async def handle(route: Any) -> None:
        if tab.policy is None:  # between two pages: nothing may load
            await route.abort("blockedbyclient")
            return
        await _route_request(route, tab.page, tab.nav, http, tab.policy)

    return handle


async def _route_request(
    route: Any, page: Any, nav: _NavState, http: HttpClient, policy: UrlPolicy
) -> None:
    """Answer one browser request through the HTTP client, under the URL policy."""
    request = route.request
    url: str = request.url
    if request.resource_type in _SKIPPED_RESOURCES:
        # Not needed to read a page; not fetched at all (also keeps beacons off the wire).
        nav.skipped += 1
        await route.abort("blockedbyclient")
        return
    is_main = request.is_navigation_request() and request.frame == page.main_frame
    if is_main and nav.response is not None:
        # A second main-frame navigation (meta refresh, script): a new hop, checked.
        try:
            policy.check(url, referrer=nav.response.final_url)
        except OffDomainError:
            nav.refused.append(url)
            nav.left_page = url
            await route.abort("blockedbyclient")
            return
    try:
        resp = await http.get(url, policy, follow=not is_main)
    except OffDomainError as exc:
        nav.refused.append(url)
        if is_main and nav.response is None:
            nav.error = exc
        await route.abort("blockedbyclient")
        return
    except FetchError as exc:
        if is_main and nav.response is None:
            nav.error = exc
        await route.abort("failed")
        return
    if is_main and resp.status in (301, 302, 303, 307, 308) and "location" in resp.headers:
        try:
            nav.redirect = policy.check_redirect(url, resp.headers["location"])
        except OffDomainError as exc:
            nav.refused.append(urljoin(url, resp.headers["location"]))
            nav.error = exc
        await route.abort("aborted")
        return
    if is_main and nav.response is None:
        nav.response = resp
        if resp.status != 200:
            await route.abort("failed")
            return
    headers = {k: v for k, v in resp.headers.items() if k not in _DROP_HEADERS}
    await route.fulfill(status=resp.status, headers=headers, body=resp.body)


@contextlib.asynccontextmanager
async def open_fetcher(settings: FetchSettings | None = None) -> AsyncIterator[PageFetcher]:
    """``async with open_fetcher(settings) as f:`` a started :class:`PageFetcher`."""
    fetcher = PageFetcher(settings)
    await fetcher.__aenter__()
    try:
        yield fetcher
    finally:
        await fetcher.aclose()
