"""Chromium for acquisition: render a page as the site serves it, under the URL policy.

The page's own traffic is left alone: every request keeps its method, headers, cookies and
body (a site that loads its content with JSON POSTs carrying an XSRF token works as in any
browser). The allow-list is enforced in two places that only *continue or abort*:

* the tab's request routing (``page.route``) aborts requests off the allow-list, requests of
  types a reader does not need (images, fonts, media, beacons), and any navigation away from
  the page once it has loaded (a meta refresh or script sending it elsewhere);
* a per-tab :class:`~tambench.acquisition.proxy.PolicyProxy` sees every request the routing
  cannot (Chromium follows redirects without routing them again): each redirect hop is checked
  there, and the size cap and truncation are measured there.

A page is taken when one of its content hooks matches (:mod:`~tambench.acquisition.hooks`) and
its content region's text has stopped changing; a board that loads rows on scrolling is
scrolled until no more come. Elements hidden by stylesheets are marked so that extraction
drops them too.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tambench._optional import require
from tambench.acquisition.hooks import HOOKS_JS, SETTLE_TEXT_JS, Hook, hooks_arg
from tambench.acquisition.http import FetchSettings
from tambench.acquisition.markdown import MARK_HIDDEN_JS
from tambench.acquisition.platforms import ScrollSpec
from tambench.acquisition.proxy import PolicyProxy
from tambench.acquisition.retry import is_unreachable, unreachable_message
from tambench.acquisition.urls import UrlPolicy
from tambench.config import home_dir
from tambench.errors import (
    BrowserNotFoundError,
    FetchError,
    FetchTimeoutError,
    OffDomainError,
    PageTooLargeError,
    TruncatedPageError,
    UnreachableHostError,
)

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
#: Request types a reader of the page does not need: never requested.
SKIPPED_RESOURCES = frozenset({"image", "media", "font", "websocket", "manifest", "ping",
                               "eventsource"})

#: Which hook matched, or which block is visible, or null (polled until not null).
READY_JS = """
([hooks, blocks]) => {
  const hooksIndex = """ + HOOKS_JS.strip() + """;
  const i = hooksIndex(hooks);
  if (i >= 0) { return {hook: i}; }
  for (const [reason, css] of blocks) {
    let els = [];
    try { els = document.querySelectorAll(css); } catch (e) { continue; }
    for (const el of els) {
      if (el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null) {
        return {block: reason};
      }
    }
  }
  return null;
}
"""

#: Scroll to the last row until the row count stops growing; returns the count.
SCROLL_JS = """
async ([rowsCss, quietMs, maxRounds]) => {
  const count = () => document.querySelectorAll(rowsCss).length;
  let n = count();
  for (let round = 0; round < maxRounds; round++) {
    const rows = document.querySelectorAll(rowsCss);
    if (rows.length) { rows[rows.length - 1].scrollIntoView(); }
    window.scrollTo(0, document.body.scrollHeight);
    window.dispatchEvent(new Event('scroll'));
    const start = Date.now();
    let grew = false;
    while (Date.now() - start < quietMs) {
      await new Promise((r) => setTimeout(r, 50));
      if (count() > n) { n = count(); grew = true; break; }
    }
    if (!grew) { break; }
  }
  return n;
}
"""


# --- Chromium -----------------------------------------------------------------------------


def find_chromium(explicit: str = "", playwright_path: str = "") -> str:
    """The Chromium binary to drive.

    Order: ``explicit`` (a setting), ``TAMBENCH_CHROMIUM``, the browser Playwright installed
    (``playwright_path``), then the system's Chromium.

    Raises:
        BrowserNotFoundError: none of them exists.
    """
    for candidate, origin in ((explicit, "setting"),
                              (os.environ.get("TAMBENCH_CHROMIUM", ""), "TAMBENCH_CHROMIUM")):
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
    env.setdefault("HOME", tmp_dir)  # no home directory: Chromium's profile goes to tmp_dir
    return env


async def launch_chromium(settings: FetchSettings, tmp_dir: str) -> tuple[Any, Any]:
    """Start Playwright and launch Chromium; returns (playwright, browser) to stop/close.

    Temporary folders of the driver and of Chromium go under ``tmp_dir``.
    """
    pw_mod = require("playwright.async_api", extra="browser", feature="rendering pages")
    Path(tmp_dir).mkdir(parents=True, exist_ok=True)
    # The Playwright driver copies os.environ when it starts; its temp profile folders
    # follow TMPDIR, so TMPDIR is set for that moment only. Without a home directory the
    # driver (Node) cannot start: HOME points at tmp_dir for that moment too.
    home = {} if home_dir() is not None else {"HOME": tmp_dir}
    with _environ(TMPDIR=tmp_dir, **home):
        pw = await pw_mod.async_playwright().start()
    pw_path = ""
    with contextlib.suppress(Exception):  # noqa: BLE001 - a missing bundled browser is normal
        pw_path = str(pw.chromium.executable_path)
    try:
        browser = await pw.chromium.launch(
            executable_path=find_chromium(settings.chromium, pw_path), headless=True,
            args=chromium_args(settings.hermetic), env=chromium_env(tmp_dir),
            handle_sigint=False, handle_sigterm=False, handle_sighup=False,
        )
    except BaseException:
        await pw.stop()
        raise
    return pw, browser


def browser_error(url: str, exc: BaseException) -> FetchError:
    """A Playwright failure as a FetchError (a timeout as FetchTimeoutError)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if is_unreachable(exc):
        return UnreachableHostError(f"{unreachable_message(urlsplit(url).hostname or url)} "
                                    f"({url}: {text})")
    if "Timeout" in type(exc).__name__ or "Timeout" in text:
        return FetchTimeoutError(f"{url}: browser timeout ({text})")
    return FetchError(f"{url}: browser error ({text})")


# --- tabs -----------------------------------------------------------------------------------


@dataclass
class NavState:
    """What one page load did besides loading: refusals, failures, skipped requests."""

    started: bool = False
    """The main document was requested (a later main-frame request is a new navigation)."""
    refused: list[str] = field(default_factory=list)
    left_page: str | None = None
    """A refused navigation away from the loaded page (meta refresh, script)."""
    failed: dict[str, str] = field(default_factory=dict)
    """URL -> Chromium's error text, for requests that failed."""
    skipped: int = 0
    """Requests not made because their type is not needed (images, fonts, media...)."""


class BrowserTab:
    """One browser tab in its own context, with its own policy proxy."""

    def __init__(self, context: Any, page: Any, proxy: PolicyProxy) -> None:
        self.context = context
        self.page = page
        self.proxy = proxy
        self.nav = NavState()
        self.policy: UrlPolicy | None = None

    @classmethod
    async def open(cls, browser: Any, settings: FetchSettings) -> BrowserTab:
        """A new tab: a context routed through a fresh proxy, with the routing installed."""
        proxy = await PolicyProxy(None, max_bytes=settings.max_bytes,
                                  connect_timeout=settings.connect_timeout).start()
        try:
            context = await browser.new_context(
                user_agent=settings.user_agent, service_workers="block", accept_downloads=False,
                proxy={"server": proxy.url, "bypass": "<-loopback>"},
            )
        except BaseException:
            await proxy.stop()
            raise
        page = await context.new_page()
        tab = cls(context, page, proxy)
        await page.route("**/*", tab._route)
        page.on("requestfailed", tab._failed)
        return tab

    async def close(self) -> None:
        """Close the context and stop the proxy."""
        try:
            await self.context.close()
        finally:
            await self.proxy.stop()

    def begin(self, policy: UrlPolicy) -> NavState:
        """Start a page under ``policy`` with fresh state."""
        self.nav = NavState()
        self.policy = policy
        self.proxy.clear()
        self.proxy.policy = policy
        return self.nav

    def end(self) -> None:
        """Between pages nothing may load."""
        self.policy = None
        self.proxy.policy = None

    def _failed(self, request: Any) -> None:
        self.nav.failed[request.url] = str(request.failure or "")

    async def _route(self, route: Any) -> None:
        request = route.request
        nav, policy = self.nav, self.policy
        if policy is None:
            await route.abort("blockedbyclient")
            return
        if request.resource_type in SKIPPED_RESOURCES:
            nav.skipped += 1
            await route.abort("blockedbyclient")
            return
        is_main = request.is_navigation_request() and request.frame == self.page.main_frame
        leaving = is_main and nav.started
        nav.started = nav.started or is_main
        try:
            policy.check(request.url)
        except OffDomainError:
            nav.refused.append(request.url)
            if leaving:
                nav.left_page = request.url
            await route.abort("blockedbyclient")
            return
        await route.continue_()


# --- one page ---------------------------------------------------------------------------------


@dataclass
class Rendered:
    """A page as Chromium rendered it."""

    final_url: str
    status: int
    html: str
    visible_text: str
    headers: dict[str, str]
    refused: list[str]
    ready: bool
    """Whether a content hook matched (False: the caller decides why not)."""
    block: str = ""
    """A visible blocking element's reason (captcha, login, rules), when one showed."""
    left_page: str | None = None
    """A refused attempt of the page to navigate elsewhere."""


def _chain(response: Any) -> list[str]:
    urls = [response.url]
    request = response.request
    while request is not None:
        urls.append(request.url)
        request = request.redirected_from
    return urls


def _proxy_verdict(tab: BrowserTab, urls: Sequence[str]) -> FetchError | None:
    """The failure the proxy saw for the main document (refused, oversize, cut short)."""
    for url in urls:
        if url in tab.proxy.refusals:
            return OffDomainError(tab.proxy.refusals[url])
        if url in tab.proxy.oversize:
            return PageTooLargeError(f"{url}: body exceeds the cap of "
                                     f"{tab.proxy.max_bytes} bytes")
        if url in tab.proxy.truncated or "CONTENT_LENGTH_MISMATCH" in tab.nav.failed.get(url, ""):
            return TruncatedPageError(f"{url}: response cut short (fewer bytes than its "
                                      "Content-Length)")
    return None


async def _goto(tab: BrowserTab, url: str, settings: FetchSettings) -> Any:
    try:
        response = await tab.page.goto(url, wait_until="domcontentloaded",
                                       timeout=settings.total_timeout * 1000)
    except Exception as exc:  # noqa: BLE001 - Playwright errors become named FetchErrors
        seen = [url, *tab.proxy.refused, *tab.proxy.oversize, *tab.proxy.truncated,
                *tab.nav.failed]
        raise (_proxy_verdict(tab, seen) or browser_error(url, exc)) from None
    if response is None:
        raise FetchError(f"{url}: the browser made no request")
    verdict = _proxy_verdict(tab, _chain(response))
    if verdict is not None:
        raise verdict
    return response


async def _wait_ready(tab: BrowserTab, hooks: Sequence[Hook], blocks: dict[str, str],
                      settings: FetchSettings) -> tuple[bool, str]:
    """(a hook matched, the reason of a visible block) once either shows, or at the timeout."""
    try:
        handle = await tab.page.wait_for_function(
            READY_JS, arg=[hooks_arg(hooks), list(blocks.items())],
            timeout=settings.selector_timeout * 1000, polling=100)
        found = await handle.json_value()
    except Exception as exc:  # noqa: BLE001 - a timeout is an answer; others are re-raised
        if "Timeout" not in type(exc).__name__ and "Timeout" not in str(exc):
            raise browser_error(tab.page.url, exc) from None
        return False, ""
    return "hook" in found, str(found.get("block", ""))


async def render(tab: BrowserTab, url: str, policy: UrlPolicy, *, hooks: Sequence[Hook],
                 blocks: dict[str, str], region: Sequence[str], settings: FetchSettings,
                 scroll: ScrollSpec | None = None) -> Rendered:
    """Load ``url`` in ``tab`` and wait for its content (see the module docstring)."""
    nav = tab.begin(policy)
    try:
        response = await _goto(tab, url, settings)
        headers = {k.lower(): v for k, v in (await response.all_headers()).items()}
        ready, block = False, ""
        if response.status == 200:
            ready, block = await _wait_ready(tab, hooks, blocks, settings)
        if ready and not block:
            await tab.page.evaluate(SETTLE_TEXT_JS, [", ".join(region), settings.settle_ms,
                                                     settings.selector_timeout * 1000])
            if scroll is not None:
                await tab.page.evaluate(SCROLL_JS, [scroll.rows, scroll.quiet_ms,
                                                    scroll.max_rounds])
        if nav.left_page is None:
            await tab.page.evaluate(MARK_HIDDEN_JS)
        html: str = await tab.page.content()
        text: str = await tab.page.evaluate("() => document.body ? document.body.innerText : ''")
        final = tab.page.url
        if final.startswith(("http://", "https://")):
            policy.check(final)
        return Rendered(final_url=final, status=response.status, html=html, visible_text=text,
                        headers=headers, refused=list(nav.refused), ready=ready, block=block,
                        left_page=nav.left_page)
    finally:
        tab.end()
