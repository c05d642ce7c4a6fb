"""Fixtures of the acquisition tests: one local site and one Chromium for the whole session."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tambench.acquisition.browser import launch_chromium
from tambench.acquisition.fetch import FetchSettings
from tambench.testing.site import RunningSite, serve_site

T = TypeVar("T")


class BrowserHarness:
    """An event loop in a thread holding one launched Chromium that tests share."""

    def __init__(self, tmp_dir: Path) -> None:
        self.tmp_dir = tmp_dir
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.settings = FetchSettings(hermetic=True, tmp_dir=str(tmp_dir))
        self.pw, self.browser = self.run(launch_chromium(self.settings, str(tmp_dir)))

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 240) -> T:
        """Run a coroutine on the harness loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.run(self.browser.close())
        self.run(self.pw.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="session")
def site(shared_dir: Path) -> Iterator[RunningSite]:
    """The local competition site: demo competitions plus the shared competition texts."""
    with serve_site(shared_dir / "data" / "competition-descriptions", slow_seconds=20) as s:
        yield s


@pytest.fixture(scope="session")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserHarness]:
    """One hermetic Chromium for every browser test of the session."""
    h = BrowserHarness(tmp_path_factory.mktemp("chromium"))
    try:
        yield h
    finally:
        h.close()


@pytest.fixture
def new_hits(site: RunningSite) -> Any:
    """``new_hits(fragment)``: requests whose path contains ``fragment`` since the test began."""
    with site.state.lock:
        before = dict(site.state.hits)

    def delta(fragment: str) -> int:
        with site.state.lock:
            return sum(n - before.get(p, 0) for p, n in site.state.hits.items() if fragment in p)

    return delta
