"""Unknown sites: one page to start from, the browser agent finds the rest.

The generic adapter allows exactly the origin of the URL it was given. Its pages are not
known in advance: :func:`tambench.acquisition.agent.run_agent` visits them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import urlsplit

from tambench.acquisition.platforms._base import PageSpec, PageTemplate, TemplateAdapter


def _slugify(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")
    return (s or "competition")[:80]


@dataclass
class GenericAdapter(TemplateAdapter):
    """Any site; the start URL is the overview, the agent discovers the other pages."""

    name: ClassVar[str] = "generic"
    default_base_url: ClassVar[str] = "https://example.invalid"
    pages: ClassVar[dict[str, PageTemplate]] = {}
    slug_pattern: ClassVar[str] = r"^$"

    start_url: str = ""
    slug: str = ""

    @classmethod
    def for_url(cls, url: str) -> GenericAdapter:
        """An adapter for one competition URL on an unknown site."""
        parts = urlsplit(url)
        tail = [p for p in parts.path.split("/") if p]
        return cls(base_url=f"{parts.scheme}://{parts.netloc}", start_url=url,
                   slug=_slugify(tail[-1] if tail else (parts.hostname or "")))

    def page_specs(self, slug: str) -> list[PageSpec]:
        """Only the start page is known; the agent finds the others."""
        return [PageSpec(kind="overview", url=self.start_url, hooks=())] if self.start_url else []


ADAPTER = GenericAdapter
