"""Candidate competitions, with the method's filters applied.

The method keeps competitions from 2023 on (less contamination) and drops those without public
data, without ground-truth labels or a reproducible split, or whose official scoring cannot be
replicated. From a listing alone tambench can check:

* ``since``: the competition opened (or, when the opening date is unknown, closed) on or after
  the date;
* ``category``: the listing's category, when one is asked for;
* ``teams``: at least ``min_teams`` teams (a leaderboard to compute difficulty from);
* ``metric``: the listed metric maps to a registered metric id (official scoring replicable);
* ``finished``: the deadline has passed (the private leaderboard exists).

Public data and labels are only known once the data page is read; ``acquire`` checks them.
Every competition is returned with the reasons it was dropped, so nothing disappears silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from tambench.acquisition.kaggle_client import CompetitionInfo, CompetitionSource


@dataclass
class Candidate:
    """A listed competition and the filters it failed (empty: kept)."""

    info: CompetitionInfo
    metric_id: str = ""
    dropped: list[str] = field(default_factory=list)

    @property
    def kept(self) -> bool:
        """Whether every filter passed."""
        return not self.dropped


def metric_id_for(name: str) -> str:
    """The registered metric id a listed metric name maps to ("" when none)."""
    if not name.strip():
        return ""
    # start-up: saves 7 ms (the metric registry)
    from tambench.core.metrics import METRICS

    # start-up: saves 279 ms (the metric-naming rules)
    from tambench.schema.mapping.metric_rules import match_sentence

    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    if key in METRICS:
        return key
    # Listings spell metrics in CamelCase ("RootMeanSquaredError"): split into words first.
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ")
    found = match_sentence(words)
    return found[0].metric_id if found and found[0].metric_id in METRICS else ""


def discover_competitions(
    source: CompetitionSource,
    *,
    since: date,
    category: str = "",
    search: str = "",
    min_teams: int = 1,
    today: date | None = None,
    max_pages: int = 50,
) -> list[Candidate]:
    """Every competition of the listing, each with the filters it failed."""
    today = today or date.today()
    out: list[Candidate] = []
    token = ""
    for _ in range(max_pages):
        infos, token = source.list_page(category=category, search=search, page_token=token)
        for info in infos:
            cand = Candidate(info=info, metric_id=metric_id_for(info.metric))
            when = info.enabled or info.deadline
            if when is None or when < since:
                cand.dropped.append(f"since: opened {when or 'unknown'}, before {since}")
            if category and info.category.lower() != category.lower():
                cand.dropped.append(f"category: {info.category or 'none'}, not {category}")
            if info.teams < min_teams:
                cand.dropped.append(f"teams: {info.teams} < {min_teams}")
            if not cand.metric_id:
                cand.dropped.append(
                    f"metric: {info.metric or 'not listed'!r} maps to no registered metric"
                )
            if info.deadline is None or info.deadline >= today:
                cand.dropped.append("finished: no final private leaderboard yet")
            out.append(cand)
        if not token:
            break
    return out
