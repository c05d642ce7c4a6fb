"""The kaggle client, behind a small interface: leaderboards and competition listings.

Importing ``kaggle`` authenticates at import time (and prints a long help text without
credentials), so it is imported only inside :func:`kaggle_api`. Credentials come from the
environment or the user's kaggle.json, never from tambench settings; they are never logged.

:class:`CompetitionSource` is the interface discovery depends on; :class:`KaggleSource`
implements it with the client, and tests give it a fake (or point the client at a local
server).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol

from tambench._optional import require
from tambench.core.leaderboard import Leaderboard, leaderboard_from_client_rows
from tambench.errors import RulesNotAcceptedError, SourceError


@dataclass(frozen=True)
class CompetitionInfo:
    """What a listing says about one competition."""

    slug: str
    title: str
    url: str
    category: str
    enabled: date | None
    deadline: date | None
    metric: str
    teams: int
    kernels_only: bool
    submissions_disabled: bool


class CompetitionSource(Protocol):
    """Lists competitions page by page."""

    def list_page(self, *, category: str, search: str, page_token: str
                  ) -> tuple[list[CompetitionInfo], str]:
        """One page of competitions and the next page's token ("" at the end)."""
        ...


def kaggle_api() -> Any:
    """The authenticated kaggle client (imported here: importing it authenticates)."""
    require("kaggle", extra="kaggle", feature="the kaggle client")
    # The client prints its help to stdout when it has no credentials; keep stdout clean.
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            import kaggle
        except (OSError, ValueError) as exc:
            raise SourceError(
                "the kaggle client could not authenticate: set KAGGLE_USERNAME and KAGGLE_KEY "
                "(or KAGGLE_API_TOKEN), or put kaggle.json in ~/.kaggle"
            ) from exc
    return kaggle.api


def _slug_of(ref: str) -> str:
    return ref.rstrip("/").rsplit("/", 1)[-1]


def _day(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and value:
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(value.replace("Z", "+00:00")).date()
    return None


def _raise_source_error(slug: str, exc: Exception) -> None:
    text = str(exc)
    if "accept" in text.lower() and "rules" in text.lower():
        raise RulesNotAcceptedError(
            f"you must accept the rules of {slug} first: "
            f"https://www.kaggle.com/competitions/{slug}/rules"
        ) from None
    raise SourceError(f"kaggle client failed for {slug}: {type(exc).__name__}") from None


@contextlib.contextmanager
def _client_errors(slug: str) -> Iterator[None]:
    try:
        yield
    except (RulesNotAcceptedError, SourceError):
        raise
    except Exception as exc:  # noqa: BLE001 - the client raises requests/HTTP errors of many kinds
        _raise_source_error(slug, exc)


def fetch_client_leaderboard(slug: str) -> Leaderboard:
    """The private leaderboard of a Kaggle competition through the client."""
    api = kaggle_api()
    with _client_errors(slug):
        rows = api.competition_leaderboard_view(slug)
    return leaderboard_from_client_rows(rows or [])


class KaggleSource:
    """:class:`CompetitionSource` backed by the kaggle client."""

    def __init__(self, api: Any | None = None) -> None:
        self.api = api if api is not None else kaggle_api()

    def list_page(self, *, category: str, search: str, page_token: str
                  ) -> tuple[list[CompetitionInfo], str]:
        """One page of ``competitions_list``."""
        with _client_errors("competitions list"):
            resp = self.api.competitions_list(
                category=category or None, search=search or None,
                page_token=page_token or None, page_size=100,
            )
        comps = list(getattr(resp, "competitions", None) or [])
        token = str(getattr(resp, "next_page_token", "") or "")
        out = []
        for c in comps:
            ref = str(getattr(c, "ref", "") or "")
            out.append(CompetitionInfo(
                slug=_slug_of(ref),
                title=str(getattr(c, "title", "") or ""),
                url=str(getattr(c, "url", "") or ref),
                category=str(getattr(c, "category", "") or ""),
                enabled=_day(getattr(c, "enabled_date", None)),
                deadline=_day(getattr(c, "deadline", None)),
                metric=str(getattr(c, "evaluation_metric", "") or ""),
                teams=int(getattr(c, "team_count", 0) or 0),
                kernels_only=bool(getattr(c, "is_kernels_submissions_only", False)),
                submissions_disabled=bool(getattr(c, "submissions_disabled", False)),
            ))
        return out, token
