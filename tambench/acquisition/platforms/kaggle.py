"""Kaggle: the official API for everything it has, the browser for the pages' text.

The API (:class:`~tambench.acquisition.kaggle_client.KaggleClient`) gives the metadata (title,
dates, team count, category, metric name, tags), the file listing and the complete private
leaderboard, when credentials exist (``KAGGLE_USERNAME`` + ``KAGGLE_KEY``,
``KAGGLE_API_TOKEN`` or a kaggle.json) and the adapter is on the real site or the API's
endpoint is set (``TAMBENCH_KAGGLE_API_URL``, the local fake of the API). Otherwise the
leaderboard is read from the rendered list, scrolled to its end.

Hooks and regions follow the real DOM: the application sits in ``#site-content``, the
competition in ``[data-testid="competition-detail-render-tid"]`` (2021 on) or
``.site-layout__main-content`` (2017-2020); class names are hashed (``sc-*``) and unusable.
The overview holds its sections as ``#abstract``, ``#description``, ``#evaluation``...; the
evaluation page is the overview's evaluation section.
"""

from __future__ import annotations

import os
from typing import ClassVar

from tambench.acquisition.hooks import Hook
from tambench.acquisition.kaggle_client import API_URL_ENV, KaggleClient, has_credentials
from tambench.acquisition.platforms._base import (
    EVALUATION_SECTION,
    BoardTemplate,
    PageTemplate,
    TemplateAdapter,
)

DETAIL = '[data-testid="competition-detail-render-tid"]'
REGION = (DETAIL, ".site-layout__main-content", "#site-content")
TITLE = (f"{DETAIL} h1", "h1.competition-header__title", "#comp-header h1")
_OVERVIEW_HOOKS = (
    Hook("#site-content #abstract, #site-content #description, #site-content #evaluation"),
    Hook(f"{DETAIL} h2", r"^(overview|description|evaluation)$"),
    Hook(".competition-overview__content, .competition-overview .markdown-converter__text--rendered"),
)


class KaggleAdapter(TemplateAdapter):
    """kaggle.com (or a mirror with the same paths)."""

    name: ClassVar[str] = "kaggle"
    default_base_url: ClassVar[str] = "https://www.kaggle.com"
    pages: ClassVar[dict[str, PageTemplate]] = {
        "overview": PageTemplate("/competitions/{slug}/overview", _OVERVIEW_HOOKS, REGION, TITLE),
        "data": PageTemplate(
            "/competitions/{slug}/data",
            (Hook(f"{DETAIL} h2, {DETAIL} h3", r"^(dataset|data) description$"),
             Hook(".competition-data__content, .competition-data__description")),
            (".competition-data__description", ".competition-data__content", DETAIL,
             ".site-layout__main-content"), TITLE),
        "evaluation": PageTemplate("/competitions/{slug}/overview", _OVERVIEW_HOOKS,
                                   ("#evaluation", *REGION), TITLE, EVALUATION_SECTION),
        "rules": PageTemplate(
            "/competitions/{slug}/rules",
            (Hook(f"{DETAIL} h2, {DETAIL} h3", r"rules"), Hook(".competition-rules"),
             Hook("#comp-homepage-content h1", r"rules")),
            (*REGION, "#comp-homepage-content", "#competition"), TITLE),
    }
    board: ClassVar[BoardTemplate | None] = BoardTemplate(
        "/competitions/{slug}/leaderboard?tab=private",
        (Hook("#site-content ul.km-list > li", r"team.*score"),),
        mode="scroll", scope="#site-content", rows="#site-content ul.km-list > li",
    )
    slug_pattern: ClassVar[str] = r"^/(?:competitions|c)/(?P<slug>[A-Za-z0-9][A-Za-z0-9_.-]*)"
    extra_hosts: ClassVar[tuple[str, ...]] = ("kaggle.com",)

    def api_client(self) -> KaggleClient | None:
        """The API client to use, or None (no credentials, or a mirror without an API URL)."""
        api_url = os.environ.get(API_URL_ENV, "")
        if not has_credentials() or (self.is_mirror and not api_url):
            return None
        return KaggleClient(api_url=api_url)


ADAPTER = KaggleAdapter
