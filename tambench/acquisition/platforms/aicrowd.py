"""AIcrowd: challenge pages under ``/challenges/<slug>``."""

from __future__ import annotations

from typing import ClassVar

from tambench.acquisition.platforms.base import TemplateAdapter


class AIcrowdAdapter(TemplateAdapter):
    """aicrowd.com (or a mirror with the same paths)."""

    name: str = "aicrowd"
    default_base_url: ClassVar[str] = "https://www.aicrowd.com"
    page_paths: ClassVar[dict[str, str]] = {
        "overview": "/challenges/{slug}",
        "data": "/challenges/{slug}/dataset_files",
        "evaluation": "/challenges/{slug}/evaluation",
        "rules": "/challenges/{slug}/challenge_rules",
    }
    leaderboard_path: ClassVar[str] = "/challenges/{slug}/leaderboards?page={page}"
    slug_pattern: ClassVar[str] = r"^/challenges/(?P<slug>[A-Za-z0-9][A-Za-z0-9_.-]*)"
    selectors: ClassVar[dict[str, str]] = {
        "default": ".challenge-body[data-content-ready]",
        "leaderboard": "table#leaderboard-table[data-loaded='true']",
    }
