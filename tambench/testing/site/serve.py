"""Serving the local site (and its canary) on 127.0.0.1: :func:`serve_site`."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

from tambench.testing.fake_kaggle import FakeKaggleApi
from tambench.testing.servers import serving, url_of
from tambench.testing.site.competitions import (
    SiteCompetition,
    as_fake_kaggle,
    demo_competitions,
    load_description_competitions,
)
from tambench.testing.site.handler import make_handler
from tambench.testing.site.server import ADAPTED, SiteState, comp_base


class _CanaryHandler(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def log_message(self, *args: Any) -> None:
        return

    def do_GET(self) -> None:  # noqa: N802
        type(self).hits.append(self.path)
        body = b"canary"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET  # noqa: N815


@dataclass
class RunningSite:
    """A site being served: its URLs and what it has seen."""

    base_url: str
    canary_url: str
    state: SiteState
    canary_hits: list[str]

    @property
    def base_urls(self) -> dict[str, str]:
        """Base URL of each platform style an adapter reads (the ``base_url`` setting)."""
        return {p: f"{self.base_url}/{p}" for p in ADAPTED}

    @property
    def slugs(self) -> list[str]:
        """The competitions served (fault and injected variants not listed)."""
        return sorted(self.state.competitions)

    def novel_url(self, slug: str, tab: str = "task") -> str:
        """A page of the layout no adapter knows."""
        return f"{self.base_url}{comp_base('novel', slug)}/{tab}"

    def download_url(self, slug: str, filename: str = "train.csv",
                     platform: str = "kaggle") -> str:
        """Where a demo competition's data file is served (for the split stage)."""
        return f"{self.base_url}{comp_base(platform, slug)}/download/{filename}"

    def hits_for(self, fragment: str) -> int:
        """Requests whose path contains ``fragment``."""
        with self.state.lock:
            return sum(n for p, n in self.state.hits.items() if fragment in p)

    def hit_times(self, fragment: str) -> list[float]:
        """Monotonic times of the requests whose path contains ``fragment``."""
        with self.state.lock:
            return [t for t, p in self.state.log if fragment in p]

    def posts(self, fragment: str) -> list[dict[str, Any]]:
        """The POSTs the site received whose path contains ``fragment``."""
        with self.state.lock:
            return [r for r in self.state.requests if fragment in r["path"]]

    @contextlib.contextmanager
    def kaggle_api(self, **kwargs: Any) -> Iterator[FakeKaggleApi]:
        """The local fake of Kaggle's API, knowing this site's competitions and leaderboards."""
        comps = {s: as_fake_kaggle(c) for s, c in self.state.competitions.items()}
        with FakeKaggleApi(comps, **kwargs) as fake:
            yield fake


def build_competitions(descriptions: str | Path | None = None, *, seed: int = 0,
                       demo: bool = True) -> dict[str, SiteCompetition]:
    """The competitions a site serves: demo ones and/or those of a descriptions folder."""
    comps: dict[str, SiteCompetition] = {}
    if demo:
        comps.update({c.slug: c for c in demo_competitions(seed=seed)})
    if descriptions is not None:
        comps.update({c.slug: c for c in load_description_competitions(descriptions, seed=seed)})
    return comps


@contextlib.contextmanager
def serve_site(
    descriptions: str | Path | None = None,
    *,
    port: int = 0,
    seed: int = 0,
    demo: bool = True,
    slow_seconds: float = 30.0,
    score_titles: dict[str, str] | None = None,
) -> Iterator[RunningSite]:
    """Serve the local competition site on 127.0.0.1 (and a canary) while the block runs.

    Args:
        descriptions: a folder of competition Markdown files to serve as well.
        port: the site's port (0: any free port).
        seed: seed of the synthetic leaderboards and of the demo baselines' split.
        demo: serve the bundled demo competitions.
        slow_seconds: how long the ``fault-slow`` competition takes to answer.
        score_titles: slug -> title of the AIcrowd-style score column ("Primary Score").
    """
    _CanaryHandler.hits = []
    state = SiteState(competitions=build_competitions(descriptions, seed=seed, demo=demo),
                      slow_seconds=slow_seconds, score_titles=dict(score_titles or {}))

    def warm() -> None:
        # Train the demo baselines now, so the first leaderboard request does not wait.
        for comp in list(state.competitions.values()):
            if comp.files and not state.stopping.is_set():
                comp.leaderboard()

    with serving(_CanaryHandler) as canary:
        state.canary_url = url_of(canary)
        with serving(make_handler(state), port) as server:
            threading.Thread(target=warm, daemon=True).start()
            try:
                yield RunningSite(base_url=url_of(server), canary_url=state.canary_url,
                                  state=state, canary_hits=_CanaryHandler.hits)
            finally:
                state.stopping.set()
                time.sleep(0)
