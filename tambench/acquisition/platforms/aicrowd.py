"""AIcrowd: challenge pages under ``/challenges/<slug>``, server-rendered (Rails, Bootstrap).

The tabs are Overview, Leaderboard, Notebooks, Discussion, Insights, Resources, Submissions,
Winners and Rules: there is no evaluation page, the evaluation is a section of the overview.
The overview's text is ``#description-wrapper .md-content``, the title the masthead's ``h1``,
the data the "Resources" list (``/dataset_files``), the rules ``/challenge_rules``. The
leaderboard is a ``<table>`` whose body (``tbody#leaderboards-div``) loads 50 more rows per
``?page=N`` as the page is scrolled; its score column carries the class ``score-title``.
"""

from __future__ import annotations

from typing import ClassVar

from tambench.acquisition.hooks import Hook
from tambench.acquisition.platforms._base import (
    EVALUATION_SECTION,
    BoardTemplate,
    PageTemplate,
    TemplateAdapter,
)

TITLE = (".masthead h1",)
_OVERVIEW = (".md-content[data-controller=challenge-overview]", "#description-wrapper .md-content")
_OVERVIEW_HOOKS = (Hook("#description-wrapper .md-content"),
                   Hook(".md-content[data-controller=challenge-overview]"))


class AIcrowdAdapter(TemplateAdapter):
    """aicrowd.com (or a mirror with the same paths)."""

    name: ClassVar[str] = "aicrowd"
    default_base_url: ClassVar[str] = "https://www.aicrowd.com"
    pages: ClassVar[dict[str, PageTemplate]] = {
        "overview": PageTemplate("/challenges/{slug}", _OVERVIEW_HOOKS, _OVERVIEW, TITLE),
        "data": PageTemplate("/challenges/{slug}/dataset_files",
                             (Hook("section.dataset-files-list"), Hook("ul.list-group-dataset")),
                             ("section.dataset-files-list",), TITLE),
        "evaluation": PageTemplate("/challenges/{slug}", _OVERVIEW_HOOKS, _OVERVIEW, TITLE,
                                   EVALUATION_SECTION),
        "rules": PageTemplate("/challenges/{slug}/challenge_rules",
                              (Hook("main .md-content"), Hook(".md-content")),
                              ("main .md-content", ".md-content"), (".masthead h4 a", *TITLE)),
    }
    board: ClassVar[BoardTemplate | None] = BoardTemplate(
        "/challenges/{slug}/leaderboards?page={page}",
        (Hook("tbody#leaderboards-div"), Hook("section[data-controller=leaderboards] table")),
        mode="pages", scope="section[data-controller=leaderboards]", per_page=50,
    )
    slug_pattern: ClassVar[str] = r"^/challenges/(?P<slug>[A-Za-z0-9][A-Za-z0-9_.-]*)"
    extra_hosts: ClassVar[tuple[str, ...]] = ("aicrowd.com",)


ADAPTER = AIcrowdAdapter
