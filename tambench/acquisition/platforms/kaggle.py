"""Kaggle: page layout of kaggle.com, and its leaderboard through the kaggle client.

On the real site the private leaderboard is read with the kaggle client when credentials
exist (``KAGGLE_USERNAME`` + ``KAGGLE_KEY``, ``KAGGLE_API_TOKEN`` or a kaggle.json); the
rendered leaderboard table is the fallback and the only source on a mirror.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from tambench.acquisition.platforms.base import TemplateAdapter
from tambench.core.leaderboard import Leaderboard


class KaggleAdapter(TemplateAdapter):
    """kaggle.com (or a mirror with the same paths)."""

    name: str = "kaggle"
    default_base_url: ClassVar[str] = "https://www.kaggle.com"
    page_paths: ClassVar[dict[str, str]] = {
        "overview": "/competitions/{slug}/overview",
        "data": "/competitions/{slug}/data",
        "evaluation": "/competitions/{slug}/overview/evaluation",
        "rules": "/competitions/{slug}/rules",
    }
    leaderboard_path: ClassVar[str] = "/competitions/{slug}/leaderboard?tab=private&page={page}"
    slug_pattern: ClassVar[str] = r"^/(?:competitions|c)/(?P<slug>[A-Za-z0-9][A-Za-z0-9_.-]*)"
    selectors: ClassVar[dict[str, str]] = {
        "default": "#site-content [data-content-ready]",
        "leaderboard": "table.competition-leaderboard[data-loaded='true']",
    }
    extra_hosts: ClassVar[tuple[str, ...]] = ("kaggle.com",)

    def has_client_credentials(self) -> bool:
        """Whether kaggle client credentials are available (never reads their values)."""
        if os.environ.get("KAGGLE_API_TOKEN"):
            return True
        if os.environ.get("KAGGLE_USERNAME") and os.environ.get("KAGGLE_KEY"):
            return True
        cfg = Path(os.environ.get("KAGGLE_CONFIG_DIR") or Path.home() / ".kaggle")
        return (cfg / "kaggle.json").is_file()

    def use_client(self) -> bool:
        """Read the leaderboard through the client: real site and credentials present."""
        return not self.is_mirror and self.has_client_credentials()

    def client_leaderboard(self, slug: str) -> Leaderboard:
        """The private leaderboard from the kaggle client (``competition_leaderboard_view``)."""
        from tambench.acquisition.kaggle_client import fetch_client_leaderboard

        return fetch_client_leaderboard(slug)
