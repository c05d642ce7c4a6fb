"""The local competition site: an HTTP server on 127.0.0.1 with the platforms' real structure.

Routes (the paths after the platform prefix are those of the platform adapters)::

    /robots.txt                               allows everything but /private/
    /kaggle/competitions/<slug>/<tab>         application shell (kaggle_style)
    POST /kaggle/api/i/<Service>/<Method>     the JSON API the Kaggle-style pages call
    /aicrowd/challenges/<slug>[/<tab>]        server-rendered pages (aicrowd_style)
    /biendata/competition/<slug>/[<tab>/]     server-rendered pages (other_styles)
    /novel/contest/<slug>/<tab>               a layout no adapter knows (other_styles)
    <competition>/download/<file>             data files of the demo competitions
    /lab/post, POST /lab/echo                 a page making a JSON POST, and its echo
    /static/...                               scripts and stylesheets

Fault competitions (any platform; every page of the competition shows the fault):

    fault-slow       answers after ``slow_seconds`` (default 30)
    fault-429        429 with ``Retry-After: 1`` for the first two requests of each page
    fault-500        always 500
    fault-truncated  declares a length, sends half the body, closes
    fault-captcha    a CAPTCHA page; fault-login: a login wall; fault-rules: a rules gate
    fault-redirect   302 to the canary server (another port: off the allow-list)
    fault-refresh    a meta refresh to the canary
    fault-js-slow    content arriving 3 s late (Kaggle style: its API answers late)
    fault-huge       an endless body
    injected-<slug>  the pages of <slug> plus hidden instructions, comments and links, images
                     and scripts aimed at the canary
    restyled-<slug>  the pages of <slug> after a redesign: every class hashed, ids holding the
                     words menu, nav and sidebar on the blocks (restyle.py)

The canary is a second server on its own port that counts every request it receives.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import tambench.testing.site.aicrowd_style as aicrowd_style
import tambench.testing.site.kaggle_style as kaggle_style
from tambench.testing.site.competitions import SiteCompetition
from tambench.testing.site.restyle import RESTYLED_PREFIX

FAULT_SLUGS = ("fault-slow", "fault-429", "fault-500", "fault-truncated", "fault-captcha",
               "fault-login", "fault-rules", "fault-redirect", "fault-refresh", "fault-js-slow",
               "fault-huge")
INJECTED_PREFIX = "injected-"
ROOTS = {"kaggle": "/competitions/", "aicrowd": "/challenges/", "biendata": "/competition/",
         "novel": "/contest/"}
#: Platforms whose pages an adapter reads (the novel layout has none).
ADAPTED = ("kaggle", "aicrowd", "biendata")
STATIC = {
    "/static/kaggle-app.js": (kaggle_style.APP_JS, "application/javascript"),
    "/static/kaggle.css": (kaggle_style.CSS, "text/css"),
    "/static/aicrowd.js": (aicrowd_style.LOAD_MORE_JS, "application/javascript"),
    "/static/aicrowd.css": (aicrowd_style.CSS, "text/css"),
}
LAB_PAGE = """<!DOCTYPE html><html><head><title>POST lab</title></head><body><main>
<h1>POST lab</h1><div id="out">waiting</div><script>
fetch('/lab/echo', {method: 'POST', credentials: 'same-origin',
  headers: {'Content-Type': 'application/json', 'X-XSRF-TOKEN': 'lab-token-3f9a'},
  body: JSON.stringify({query: 'leaderboard', page: 2, tags: ['a', 'b'], note: 'caf\\u00e9'})})
 .then(function (r) { return r.json(); })
 .then(function (d) { document.getElementById('out').textContent = 'echo: ' + d.method + ' ' + d.length;
   return fetch('/lab/echo', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'}); })
 .then(function () { var p = document.createElement('p'); p.id = 'done'; p.textContent = 'done';
   document.querySelector('main').appendChild(p); });
</script></main></body></html>"""


def comp_base(platform: str, slug: str) -> str:
    """Path of a competition's root on the site."""
    return f"/{platform}{ROOTS[platform]}{slug}"


@dataclass
class Route:
    """A competition path, parsed."""

    platform: str
    slug: str
    tab: str
    download: str = ""


def parse_route(path: str) -> Route | None:
    """The competition, tab and download file a path names, or None."""
    for platform, root in ROOTS.items():
        prefix = f"/{platform}{root}"
        if not path.startswith(prefix):
            continue
        slug, _, tail = path[len(prefix):].partition("/")
        if not slug:
            return None
        if tail.startswith("download/"):
            return Route(platform, slug, "download", tail[len("download/"):])
        return Route(platform, slug, tail.strip("/"))
    return None


@dataclass
class SiteState:
    """Competitions and counters shared by the request handlers."""

    competitions: dict[str, SiteCompetition]
    canary_url: str = ""
    slow_seconds: float = 30.0
    score_titles: dict[str, str] = field(default_factory=dict)
    hits: Counter[str] = field(default_factory=Counter)
    log: list[tuple[float, str]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    """POSTs received by the site's own API and lab: path, headers, body."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)

    def record(self, path: str) -> int:
        """Count one request of ``path`` and return how many there have been."""
        with self.lock:
            self.hits[path] += 1
            self.log.append((time.monotonic(), path))
            return self.hits[path]

    def competition(self, slug: str) -> tuple[SiteCompetition | None, bool]:
        """(the competition a slug names, whether it is the injected variant); a
        ``restyled-`` slug names the same competition (see :mod:`.restyle`)."""
        slug = slug.removeprefix(RESTYLED_PREFIX)
        injected = slug.startswith(INJECTED_PREFIX)
        comp = self.competitions.get(slug[len(INJECTED_PREFIX):] if injected else slug)
        if comp is None and slug in FAULT_SLUGS:
            comp = fault_competition(slug)
        return comp, injected

    def sleep(self, seconds: float) -> None:
        """Wait, but stop waiting when the site shuts down."""
        self.stopping.wait(seconds)


def fault_competition(slug: str) -> SiteCompetition:
    """The stand-in content of a fault competition's pages."""
    return SiteCompetition(slug=slug, title=slug, pages={
        k: f"## {k.title()}\n\nContent of the {k} page of {slug}.\n"
        for k in ("overview", "data", "evaluation", "rules")
    }, subtitle=f"{slug} subtitle")
