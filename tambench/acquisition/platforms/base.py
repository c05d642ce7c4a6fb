"""A URL-template adapter: most platforms are fully described by a few templates."""

from __future__ import annotations

import re
from typing import ClassVar
from urllib.parse import urlsplit

from tambench.acquisition.urls import UrlPolicy, origin_of

#: Visible-text signs of a blocked page, by reason. Only consulted when a page's content
#: selector never appeared, so a rules page that merely mentions "accept the rules" is fine.
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

#: Markup of a blocked page, by reason (checked together with the ready selector).
DEFAULT_BLOCK_SELECTORS: dict[str, str] = {
    "captcha": ".g-recaptcha, .h-captcha, #challenge-form, iframe[src*='captcha'], "
    "form[action*='captcha']",
    "login": "form#login-form, form[action*='/login'], form[action*='signin']",
    "rules": "#accept-rules, [data-accept-rules], form[action*='rules/accept']",
}


class TemplateAdapter:
    """An adapter whose pages are ``base_url`` + a path template with ``{slug}``.

    Subclasses set the class attributes; instances differ only by base URL (a setting) and,
    optionally, by overridden selectors.
    """

    name: str = ""
    default_base_url: ClassVar[str] = ""
    #: Page kind -> path template relative to the base URL.
    page_paths: ClassVar[dict[str, str]] = {}
    #: Path template of a leaderboard page, with ``{slug}`` and ``{page}``.
    leaderboard_path: ClassVar[str] = ""
    #: Regex on the URL path (after the base URL's own path) capturing the slug.
    slug_pattern: ClassVar[str] = ""
    #: Page kind -> CSS selector present once the content has rendered.
    selectors: ClassVar[dict[str, str]] = {}
    #: Other hosts of the platform that its pages may load (https only).
    extra_hosts: ClassVar[tuple[str, ...]] = ()
    #: Polite default gap between two page requests on the real site.
    default_min_interval_s: ClassVar[float] = 2.0

    def __init__(
        self,
        base_url: str | None = None,
        *,
        min_interval_s: float | None = None,
        selectors: dict[str, str] | None = None,
    ) -> None:
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        scheme = urlsplit(self.base_url).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"base URL of {self.name} must be http(s), got {self.base_url!r}")
        self._policy = UrlPolicy.from_base_urls(
            self.base_url, extra_hosts=() if self.is_mirror else self.extra_hosts
        )
        if min_interval_s is None:
            min_interval_s = 0.0 if self._policy.allow_loopback else self.default_min_interval_s
        self.min_interval_s = min_interval_s
        self._selectors = {**self.selectors, **(selectors or {})}

    @property
    def is_mirror(self) -> bool:
        """Whether the base URL is not the platform's own site (a mirror or the local site)."""
        return origin_of(self.base_url) != origin_of(self.default_base_url)

    def page_urls(self, slug: str) -> dict[str, str]:
        """The URL of each page kind of a competition."""
        return {k: self.base_url + p.format(slug=slug) for k, p in self.page_paths.items()}

    def leaderboard_url(self, slug: str, page: int) -> str:
        """The URL of one page (1-based) of the private leaderboard."""
        return self.base_url + self.leaderboard_path.format(slug=slug, page=page)

    def ready_selector(self, kind: str) -> str:
        """The selector to wait for on a page of this kind."""
        return self._selectors.get(kind) or self._selectors["default"]

    def block_selectors(self) -> dict[str, str]:
        """Reason -> CSS selector of a blocked page."""
        return dict(DEFAULT_BLOCK_SELECTORS)

    def detect_block_text(self, text: str) -> str | None:
        """The reason the visible text shows a block, or None."""
        for reason, pattern in DEFAULT_BLOCK_TEXT.items():
            if pattern.search(text):
                return reason
        return None

    def slug_from_url(self, url: str) -> str | None:
        """The slug if ``url`` lies under this adapter's base URL and matches its pattern."""
        base = urlsplit(self.base_url)
        parts = urlsplit(url)
        if origin_of(url) != origin_of(self.base_url) and not (
            not self.is_mirror and (parts.hostname or "") in {*self.extra_hosts, base.hostname}
        ):
            return None
        path = parts.path
        prefix = base.path.rstrip("/")
        if prefix and not path.startswith(prefix + "/"):
            return None
        m = re.match(self.slug_pattern, path[len(prefix):])
        return m.group("slug") if m else None

    def url_policy(self) -> UrlPolicy:
        """A fresh allow-list for one crawl (refusals are recorded per policy)."""
        return UrlPolicy(
            origins=self._policy.origins,
            allow_loopback=self._policy.allow_loopback,
            resolve=self._policy.resolve,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"
