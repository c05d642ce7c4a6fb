"""Biendata: competition pages under ``/competition/<slug>/``, on both of its domains.

Competitions are linked at ``www.biendata.xyz`` and, in public material from 2026, at
``www.biendata.net``; the adapter accepts either (and redirects between them). No real page of
either domain was available to this project: the hooks below are those of the local site's
Biendata style and are the first thing to check against the live site.
"""

from __future__ import annotations

from typing import ClassVar

from tambench.acquisition.hooks import Hook
from tambench.acquisition.platforms._base import BoardTemplate, PageTemplate, TemplateAdapter

_HOOKS = (Hook(".competition-content"), Hook("main h1, main h2"))
_REGION = (".competition-content", "main")
_TITLE = ("h1.competition-title", "main h1")


class BiendataAdapter(TemplateAdapter):
    """biendata.xyz / biendata.net (or a mirror with the same paths)."""

    name: ClassVar[str] = "biendata"
    default_base_url: ClassVar[str] = "https://www.biendata.xyz"
    pages: ClassVar[dict[str, PageTemplate]] = {
        "overview": PageTemplate("/competition/{slug}/", _HOOKS, _REGION, _TITLE),
        "data": PageTemplate("/competition/{slug}/data/", _HOOKS, _REGION, _TITLE),
        "evaluation": PageTemplate("/competition/{slug}/evaluation/", _HOOKS, _REGION, _TITLE),
        "rules": PageTemplate("/competition/{slug}/rules/", _HOOKS, _REGION, _TITLE),
    }
    board: ClassVar[BoardTemplate | None] = BoardTemplate(
        "/competition/{slug}/final-leaderboard/?page={page}",
        (Hook("table.rank-table[data-loaded='true']"), Hook("table.rank-table tbody tr td")),
        mode="pages", scope="table.rank-table",
    )
    slug_pattern: ClassVar[str] = r"^/competition/(?P<slug>[A-Za-z0-9][A-Za-z0-9_.-]*)"
    extra_hosts: ClassVar[tuple[str, ...]] = ("biendata.xyz", "www.biendata.net", "biendata.net")


ADAPTER = BiendataAdapter
