"""What an adapter declares: where each page is, how to know it has rendered, where its text is.

Most platforms are described by data alone: a :class:`TemplateAdapter` subclass sets
:attr:`~TemplateAdapter.pages` (one :class:`PageTemplate` per page kind) and
:attr:`~TemplateAdapter.board` (a :class:`BoardTemplate`), and instances differ only by base
URL, a setting (a mirror or the local site).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Literal
from urllib.parse import urlsplit

from tambench.acquisition.hooks import Hook
from tambench.acquisition.urls import UrlPolicy, origin_of

#: Headings that introduce the evaluation part of an overview (metric, submission format).
EVALUATION_SECTION = r"evaluat|metric|scoring|submission (file|format)|how (we|to) score"

#: Visible-text signs of a blocked page, by reason. Only consulted when a page's content
#: hooks never matched, so a rules page that merely mentions "accept the rules" is fine.
DEFAULT_BLOCK_TEXT: dict[str, re.Pattern[str]] = {
    "captcha": re.compile(
        r"captcha|verify (that )?you are (a )?human|are you a robot|unusual traffic", re.I
    ),
    "login": re.compile(r"(sign|log) ?in to (continue|view|access)|please (sign|log) ?in", re.I),
    "rules": re.compile(
        r"(must|need to|please) accept (the|this competition'?s?) (competition )?rules"
        r"|i understand and accept",
        re.I,
    ),
}

#: Markup of a blocked page, by reason (only visible elements count).
DEFAULT_BLOCK_SELECTORS: dict[str, str] = {
    "captcha": ".g-recaptcha, .h-captcha, #challenge-form, iframe[src*='captcha'], "
    "form[action*='captcha']",
    "login": "form#login-form, form[action*='/login'], form[action*='signin']",
    "rules": "#accept-rules, [data-accept-rules], form[action*='rules/accept']",
}


@dataclass(frozen=True)
class PageTemplate:
    """One page kind of a platform."""

    path: str
    """Path after the base URL, with ``{slug}``."""
    hooks: tuple[Hook, ...]
    """Signs the content has rendered (any one suffices)."""
    region: tuple[str, ...] = ()
    """CSS selectors of the content region, tried in order (Markdown comes from there)."""
    title: tuple[str, ...] = ()
    """CSS selectors of the competition's title, put first when the region lacks it."""
    section: str = ""
    """Keep only the Markdown sections whose heading matches (evaluation inside an overview);
    the whole region when no heading matches."""


@dataclass(frozen=True)
class BoardTemplate:
    """Where the private leaderboard is and how the site hands it out."""

    path: str
    """Path after the base URL, with ``{slug}`` (and ``{page}`` when ``mode`` is pages)."""
    hooks: tuple[Hook, ...]
    mode: Literal["pages", "scroll"] = "pages"
    """``pages``: ``{page}`` = 1, 2, ... until the last page; ``scroll``: one page that loads
    more rows as it is scrolled (Kaggle, AIcrowd in a browser)."""
    scope: str = ""
    """CSS selector the leaderboard lies in (narrows the search for its table or list)."""
    rows: str = ""
    """CSS selector of the rows, counted while scrolling."""
    per_page: int = 0
    """Rows a full page holds (pages mode without a page count: a shorter page is the last)."""


@dataclass(frozen=True)
class PageSpec:
    """One page of one competition, as the fetcher and the Markdown converter need it."""

    kind: str
    url: str
    hooks: tuple[Hook, ...]
    region: tuple[str, ...] = ()
    title: tuple[str, ...] = ()
    section: str = ""


@dataclass(frozen=True)
class ScrollSpec:
    """How to make a page load all its rows: scroll until ``rows`` stops growing."""

    rows: str
    max_rounds: int = 400
    quiet_ms: int = 1200


@dataclass
class TemplateAdapter:
    """An adapter whose pages are ``base_url`` + a path template with ``{slug}``."""

    name: ClassVar[str] = ""
    default_base_url: ClassVar[str] = ""
    #: Page kind -> template.
    pages: ClassVar[dict[str, PageTemplate]] = {}
    board: ClassVar[BoardTemplate | None] = None
    #: Regex on the URL path (after the base URL's own path) capturing the slug.
    slug_pattern: ClassVar[str] = ""
    #: Other hosts of the platform (https): its pages may load from and redirect to them.
    extra_hosts: ClassVar[tuple[str, ...]] = ()
    #: Polite default gap between two page requests on the real site.
    default_min_interval_s: ClassVar[float] = 2.0

    base_url: str = ""
    min_interval_s: float = -1.0
    _policy: UrlPolicy = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.base_url = (self.base_url or self.default_base_url).rstrip("/")
        if urlsplit(self.base_url).scheme not in ("http", "https"):
            raise ValueError(f"base URL of {self.name} must be http(s), got {self.base_url!r}")
        self._policy = UrlPolicy.from_base_urls(
            self.base_url, extra_hosts=() if self.is_mirror else self.extra_hosts)
        if self.min_interval_s < 0:
            self.min_interval_s = (0.0 if self._policy.allow_loopback
                                   else self.default_min_interval_s)

    @property
    def is_mirror(self) -> bool:
        """Whether the base URL is not the platform's own site (a mirror or the local site)."""
        own = {origin_of(self.default_base_url), *(origin_of(f"https://{h}/")
                                                   for h in self.extra_hosts)}
        return origin_of(self.base_url) not in own

    # -- pages -----------------------------------------------------------------------------------

    def page_specs(self, slug: str) -> list[PageSpec]:
        """Every page of a competition, in reading order (kinds may share a URL)."""
        return [PageSpec(kind=k, url=self.base_url + t.path.format(slug=slug), hooks=t.hooks,
                         region=t.region, title=t.title, section=t.section)
                for k, t in self.pages.items()]

    def page_urls(self, slug: str) -> dict[str, str]:
        """The URL of each page kind of a competition."""
        return {s.kind: s.url for s in self.page_specs(slug)}

    def leaderboard_url(self, slug: str, page: int = 1) -> str:
        """The URL of one page (1-based) of the private leaderboard ("" when unknown)."""
        if self.board is None:
            return ""
        return self.base_url + self.board.path.format(slug=slug, page=page)

    def scroll_spec(self) -> ScrollSpec | None:
        """How to scroll the leaderboard for more rows (None: the site pages it)."""
        if self.board is None or self.board.mode != "scroll":
            return None
        return ScrollSpec(rows=self.board.rows)

    # -- blocks ----------------------------------------------------------------------------------

    def block_selectors(self) -> dict[str, str]:
        """Reason -> CSS selector of a blocked page."""
        return dict(DEFAULT_BLOCK_SELECTORS)

    def detect_block_text(self, text: str) -> str | None:
        """The reason the visible text shows a block, or None."""
        for reason, pattern in DEFAULT_BLOCK_TEXT.items():
            if pattern.search(text):
                return reason
        return None

    # -- URLs ------------------------------------------------------------------------------------

    def slug_from_url(self, url: str) -> str | None:
        """The slug if ``url`` lies under this platform (its base URL or own hosts)."""
        base = urlsplit(self.base_url)
        parts = urlsplit(url)
        own_host = not self.is_mirror and (parts.hostname or "") in {*self.extra_hosts,
                                                                     base.hostname}
        if origin_of(url) != origin_of(self.base_url) and not own_host:
            return None
        prefix = base.path.rstrip("/")
        if prefix and not parts.path.startswith(prefix + "/"):
            return None
        m = re.match(self.slug_pattern, parts.path[len(prefix):])
        return m.group("slug") if m else None

    def url_policy(self) -> UrlPolicy:
        """A fresh allow-list for one crawl (refusals are recorded per policy)."""
        return UrlPolicy(origins=self._policy.origins, allow_loopback=self._policy.allow_loopback,
                         resolve=self._policy.resolve)
