"""Unknown sites: one page to start from, the browser agent finds the rest.

The generic adapter allows exactly the origin of the URL it was given. Its pages are not
known in advance: :func:`tambench.acquisition.agent.run_agent` visits them.
"""

from __future__ import annotations

import re
from typing import ClassVar
from urllib.parse import urlsplit

from tambench.acquisition.platforms.base import TemplateAdapter


def _slugify(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")
    return (s or "competition")[:80]


class GenericAdapter(TemplateAdapter):
    """Any site; the start URL is the overview, the agent discovers the other pages."""

    name: str = "generic"
    default_base_url: ClassVar[str] = "https://example.invalid"
    page_paths: ClassVar[dict[str, str]] = {}
    leaderboard_path: ClassVar[str] = ""
    slug_pattern: ClassVar[str] = r"^$"
    selectors: ClassVar[dict[str, str]] = {"default": "body"}

    start_url: str = ""
    slug: str = ""

    @classmethod
    def for_url(cls, url: str) -> GenericAdapter:
        """An adapter for one competition URL on an unknown site."""
        parts = urlsplit(url)
        adapter = cls(base_url=f"{parts.scheme}://{parts.netloc}")
        adapter.start_url = url
        tail = [p for p in parts.path.split("/") if p]
        adapter.slug = _slugify(tail[-1] if tail else (parts.hostname or ""))
        return adapter

    def page_urls(self, slug: str) -> dict[str, str]:
        """Only the start page is known; the agent finds the others."""
        return {"overview": self.start_url} if self.start_url else {}

    def leaderboard_url(self, slug: str, page: int) -> str:
        """Unknown for a generic site."""
        return ""
