"""Platform adapters: where a competition's pages are and what a blocked page looks like.

One registry, :data:`PLATFORMS`, maps a platform name to the dotted path of its adapter class;
a module is imported only when its platform is used, so a missing optional package (the kaggle
client, a browser) only matters to the platforms that need it.

Base URLs are settings: ``get_adapter("kaggle", base_url="http://127.0.0.1:8000/kaggle")``
runs the same adapter against a mirror or the local competition site. Without an explicit
value the environment variable ``TAMBENCH_<NAME>_BASE_URL`` is read, then the adapter's
default (the real site).
"""

from __future__ import annotations

import importlib
import os
import re
from typing import Protocol, runtime_checkable

from tambench.acquisition.urls import UrlPolicy
from tambench.errors import UnknownPlatformError

#: Platform name -> "module:Class" of its adapter. Adding a platform = one line here.
PLATFORMS: dict[str, str] = {
    "kaggle": "tambench.acquisition.platforms.kaggle:KaggleAdapter",
    "aicrowd": "tambench.acquisition.platforms.aicrowd:AIcrowdAdapter",
    "biendata": "tambench.acquisition.platforms.biendata:BiendataAdapter",
    "generic": "tambench.acquisition.platforms.generic:GenericAdapter",
}

#: The page kinds every adapter names (the schema mapper reads these four).
PAGE_KINDS = ("overview", "data", "evaluation", "rules")

_SLUG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@runtime_checkable
class PlatformAdapter(Protocol):
    """What the crawler needs to know about one platform."""

    name: str
    """Short platform name, the first part of task ids (``kaggle``)."""

    base_url: str
    """Root of the site (no trailing slash); a setting, so mirrors work."""

    min_interval_s: float
    """Minimum gap between two page requests to this platform's origin."""

    def page_urls(self, slug: str) -> dict[str, str]:
        """The URL of each page kind (overview, data, evaluation, rules) of a competition."""
        ...

    def leaderboard_url(self, slug: str, page: int) -> str:
        """The URL of page ``page`` (1-based) of the private leaderboard."""
        ...

    def ready_selector(self, kind: str) -> str:
        """CSS selector that is present once a page of this kind has rendered its content."""
        ...

    def block_selectors(self) -> dict[str, str]:
        """Reason -> CSS selector of a blocked page (captcha, login, rules)."""
        ...

    def detect_block_text(self, text: str) -> str | None:
        """The reason a page's visible text shows it is blocked, or None."""
        ...

    def slug_from_url(self, url: str) -> str | None:
        """The competition slug if ``url`` is one of this platform's competition pages."""
        ...

    def url_policy(self) -> UrlPolicy:
        """The allow-list of origins this platform's crawl may touch."""
        ...


def base_url_env_var(name: str) -> str:
    """The environment variable holding a platform's base URL.

    >>> base_url_env_var("kaggle")
    'TAMBENCH_KAGGLE_BASE_URL'
    """
    return f"TAMBENCH_{name.upper()}_BASE_URL"


def get_adapter(name: str, *, base_url: str | None = None) -> PlatformAdapter:
    """Instantiate the adapter registered as ``name``.

    Raises:
        UnknownPlatformError: no adapter has that name.
    """
    try:
        target = PLATFORMS[name]
    except KeyError:
        raise UnknownPlatformError(
            f"unknown platform {name!r}; known: {sorted(PLATFORMS)}"
        ) from None
    module_name, _, cls_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    url = base_url or os.environ.get(base_url_env_var(name)) or None
    adapter: PlatformAdapter = cls(base_url=url) if url else cls()
    return adapter


def check_slug(slug: str) -> str:
    """Return ``slug`` if it is a safe competition slug, else raise ValueError.

    >>> check_slug("spaceship-titanic")
    'spaceship-titanic'
    """
    if not _SLUG_RE.match(slug) or ".." in slug:
        raise ValueError(
            f"{slug!r} is not a valid competition slug (letters, digits, '.', '_', '-')"
        )
    return slug


def resolve_ref(
    ref: str, *, base_urls: dict[str, str] | None = None
) -> tuple[PlatformAdapter, str]:
    """Turn ``PLATFORM:SLUG`` or a competition URL into (adapter, slug).

    A URL is matched against every registered platform's base URL (settings included); a URL
    no adapter recognises goes to the generic adapter (the browser agent).

    Raises:
        UnknownPlatformError: ``PLATFORM:SLUG`` names an unknown platform.
        ValueError: the slug is malformed.
    """
    base_urls = base_urls or {}
    if "://" not in ref:
        platform, sep, slug = ref.partition(":")
        if not sep or not slug:
            raise ValueError(f"{ref!r} is neither a URL nor PLATFORM:SLUG (e.g. kaggle:titanic)")
        adapter = get_adapter(platform, base_url=base_urls.get(platform))
        return adapter, check_slug(slug)
    for name in PLATFORMS:
        if name == "generic":
            continue
        adapter = get_adapter(name, base_url=base_urls.get(name))
        found = adapter.slug_from_url(ref)
        if found:
            return adapter, check_slug(found)
    from tambench.acquisition.platforms.generic import GenericAdapter

    generic = GenericAdapter.for_url(ref)
    return generic, check_slug(generic.slug)
