"""Plain HTTP for acquisition: robots.txt, data files, and pages read without a browser.

:class:`HttpClient` (httpx) checks every redirect hop against the URL policy and enforces the
connect / read / total timeouts, the size cap and complete bodies. Requests to one origin are
spaced by a :class:`RateLimiter`; a ``Retry-After`` defers the whole origin.
"""

from __future__ import annotations

import asyncio
import re
import time
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol
from urllib import robotparser
from urllib.parse import urljoin, urlsplit

from tambench import __version__
from tambench._optional import require
from tambench.acquisition.retry import (
    RetryPolicy,
    is_unreachable,
    parse_retry_after,
    unreachable_message,
)
from tambench.acquisition.urls import UrlPolicy, origin_of
from tambench.errors import (
    FetchError,
    FetchTimeoutError,
    HttpStatusError,
    OffDomainError,
    PageTooLargeError,
    RobotsDisallowedError,
    TruncatedPageError,
    UnreachableHostError,
)

if TYPE_CHECKING:
    import httpx

USER_AGENT = f"tambench/{__version__} (benchmark construction; respects robots.txt)"
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class FetchSettings:
    """Limits and manners of a crawl. Every duration is in seconds."""

    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    total_timeout: float = 60.0
    """Upper bound of one attempt at one page, rendering included."""
    selector_timeout: float = 15.0
    """How long to wait for a page's content hooks once its document has loaded."""
    settle_ms: int = 400
    """The content region's text must stay unchanged this long before the page is taken."""
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

    @property
    def retry_policy(self) -> RetryPolicy:
        """The retry policy these settings describe."""
        return RetryPolicy(retries=self.retries, backoff_base=self.backoff_base,
                           backoff_max=self.backoff_max, max_retry_after=self.max_retry_after)


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


def raise_for_status(url: str, status: int, headers: dict[str, str]) -> None:
    """Raise :class:`HttpStatusError` (with the parsed Retry-After) unless 2xx."""
    if 200 <= status < 300:
        return
    raise HttpStatusError(f"{url}: HTTP {status}", status=status,
                          retry_after=parse_retry_after(headers.get("retry-after")))


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


# --- the HTTP client ----------------------------------------------------------------------


class HttpClient:
    """httpx with the crawl's rules: checked hops, timeouts, size cap, truncation checks."""

    def __init__(self, settings: FetchSettings) -> None:
        httpx_mod = require("httpx", extra="browser", feature="fetching pages")
        self.settings = settings
        timeout = httpx_mod.Timeout(
            connect=settings.connect_timeout, read=settings.read_timeout,
            write=settings.read_timeout, pool=settings.total_timeout,
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

    async def get(self, url: str, policy: UrlPolicy, *, follow: bool = True) -> RawResponse:
        """GET ``url``; with ``follow``, redirects are followed hop by hop, each checked.

        Raises:
            OffDomainError: a hop leaves the allow-list.
            FetchTimeoutError, TruncatedPageError, PageTooLargeError, FetchError.
        """
        policy.check(url)
        hops: list[str] = []
        current = url
        for _ in range(self.settings.max_redirects + 1):
            status, headers, body = await self._get_once(current)
            if follow and status in REDIRECT_STATUS and "location" in headers:
                nxt = policy.check_redirect(current, headers["location"])
                hops.append(nxt)
                current = nxt
                continue
            return RawResponse(url, current, status, headers, body, hops)
        raise FetchError(f"{url}: more than {self.settings.max_redirects} redirects")

    async def _get_once(self, url: str) -> tuple[int, dict[str, str], bytes]:
        httpx_mod = self._httpx
        cap = self.settings.max_bytes
        try:
            async with asyncio.timeout(self.settings.total_timeout):
                async with self.client.stream("GET", url) as resp:
                    h = {k.lower(): v for k, v in resp.headers.items()}
                    declared = h.get("content-length", "")
                    if declared.isdigit() and int(declared) > cap:
                        raise PageTooLargeError(
                            f"{url}: Content-Length {declared} exceeds the cap of {cap} bytes")
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
                f"{url}: no complete answer within {self.settings.total_timeout} s") from None
        except httpx_mod.TimeoutException as exc:
            raise FetchTimeoutError(f"{url}: {type(exc).__name__} ({exc})") from None
        except httpx_mod.RemoteProtocolError as exc:
            raise TruncatedPageError(f"{url}: response cut short ({exc})") from None
        except httpx_mod.TransportError as exc:
            if is_unreachable(exc):
                raise UnreachableHostError(
                    f"{unreachable_message(urlsplit(url).hostname or url)} ({url})") from None
            raise FetchError(f"{url}: {type(exc).__name__} ({exc})") from None


def _decode_body(body: bytes, encoding: str, cap: int, url: str) -> bytes:
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
        except (OffDomainError, FetchError):
            return False
        if 400 <= resp.status < 500:
            return True
        if resp.status >= 500:
            return False
        parser = robotparser.RobotFileParser(robots_url)
        parser.parse(resp.text().splitlines())
        return parser


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
