"""Biendata: competition pages under ``/competition/<slug>/``."""

from __future__ import annotations

from typing import ClassVar

from tambench.acquisition.platforms.base import TemplateAdapter


class BiendataAdapter(TemplateAdapter):
    """biendata.xyz (or a mirror with the same paths)."""

    name: str = "biendata"
    default_base_url: ClassVar[str] = "https://www.biendata.xyz"
    page_paths: ClassVar[dict[str, str]] = {
        "overview": "/competition/{slug}/",
        "data": "/competition/{slug}/data/",
        "evaluation": "/competition/{slug}/evaluation/",
        "rules": "/competition/{slug}/rules/",
    }
    leaderboard_path: ClassVar[str] = "/competition/{slug}/final-leaderboard/?page={page}"
    slug_pattern: ClassVar[str] = r"^/competition/(?P<slug>[A-Za-z0-9][A-Za-z0-9_.-]*)"
    selectors: ClassVar[dict[str, str]] = {
        "default": "div.competition-content[data-content-ready]",
        "leaderboard": "table.rank-table[data-loaded='true']",
    }
