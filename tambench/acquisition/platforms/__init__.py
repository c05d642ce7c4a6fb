"""Platform adapters: where a competition's pages are, how to know they rendered, what a
blocked page looks like. One registry, :data:`PLATFORMS`, of lazy entries.

Each module of this package (but those starting with ``_``) is one platform: the module's name
is the platform's name and its ``ADAPTER`` attribute the adapter class, imported only when the
platform is first used, so a missing optional package (the kaggle client, a browser) only
matters to the platforms that need it. Adding a platform is adding one module (plus its
tests); docs/extending.md shows one.

Base URLs are settings: ``get_adapter("kaggle", base_url="http://127.0.0.1:8000/kaggle")``
runs the same adapter against a mirror or the local competition site. Without an explicit
value the environment variable ``TAMBENCH_<NAME>_BASE_URL`` is read, then the adapter's
default (the real site).
"""

from __future__ import annotations

import os
import pkgutil
import re
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

from tambench.acquisition.platforms._base import (
    BoardTemplate,
    PageSpec,
    PageTemplate,
    ScrollSpec,
    TemplateAdapter,
)
from tambench.acquisition.urls import UrlPolicy, origin_of
from tambench.core.registry import Registry
from tambench.errors import UnknownPlatformError

#: Platform name -> its adapter class (lazy: ``tambench.acquisition.platforms.<name>:ADAPTER``).
PLATFORMS: Registry[type[TemplateAdapter]] = Registry(
    "platform", error=UnknownPlatformError,
    hint="`tambench acquire PLATFORM:SLUG` takes one of them, or a competition URL",
)
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _module.startswith("_"):
        PLATFORMS.register_lazy(_module, f"{__name__}.{_module}:ADAPTER")

#: The page kinds the schema mapper reads.
PAGE_KINDS = ("overview", "data", "evaluation", "rules")

_SLUG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

__all__ = ["PAGE_KINDS", "PLATFORMS", "BoardTemplate", "PageSpec", "PageTemplate",
           "PlatformAdapter", "ScrollSpec", "TemplateAdapter", "base_url_env_var", "check_slug",
           "get_adapter", "resolve_ref"]


@runtime_checkable
class PlatformAdapter(Protocol):
    """What the fetcher needs to know about a platform's pages."""

    @property
    def name(self) -> str:
        """Short platform name, the first part of task ids (``kaggle``)."""
        ...

    base_url: str
    min_interval_s: float

    def block_selectors(self) -> dict[str, str]:
        """Reason -> CSS selector of a blocked page (captcha, login, rules)."""
        ...

    def detect_block_text(self, text: str) -> str | None:
        """The reason a page's visible text shows it is blocked, or None."""
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


def get_adapter(name: str, *, base_url: str | None = None) -> TemplateAdapter:
    """Instantiate the adapter registered as ``name``.

    Raises:
        UnknownPlatformError: no adapter has that name (the message lists those that do).
    """
    cls = PLATFORMS[name]
    url = base_url or os.environ.get(base_url_env_var(name)) or ""
    return cls(base_url=url)


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
) -> tuple[TemplateAdapter, str]:
    """Turn ``PLATFORM:SLUG`` or a competition URL into (adapter, slug).

    A URL is matched against every registered platform (its base URL, or any of its own
    domains, which the crawl then uses: a biendata.net URL is read on biendata.net); a URL no
    adapter recognises goes to the generic adapter (the browser agent).

    Raises:
        UnknownPlatformError: ``PLATFORM:SLUG`` names an unknown platform.
        ValueError: the slug is malformed.
    """
    base_urls = base_urls or {}
    if "://" not in ref:
        platform, sep, slug = ref.partition(":")
        if not sep or not slug:
            raise ValueError(f"{ref!r} is neither a URL nor PLATFORM:SLUG (e.g. kaggle:titanic)")
        return get_adapter(platform, base_url=base_urls.get(platform)), check_slug(slug)
    for name in PLATFORMS:
        if name == "generic":
            continue
        adapter = get_adapter(name, base_url=base_urls.get(name))
        found = adapter.slug_from_url(ref)
        if found:
            parts = urlsplit(ref)
            own = f"{parts.scheme}://{parts.netloc}"
            if not adapter.is_mirror and origin_of(own) != origin_of(adapter.base_url):
                adapter = get_adapter(name, base_url=own)  # another of its own domains
            return adapter, check_slug(found)
    generic = PLATFORMS["generic"].for_url(ref)  # type: ignore[attr-defined]
    return generic, check_slug(generic.slug)
