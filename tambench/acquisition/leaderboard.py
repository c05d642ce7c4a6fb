"""Leaderboards read from rendered pages: the table of each page, then one normalised board.

A leaderboard page's table is located by the adapter's ready selector; its header names are
matched to the normalised fields through :data:`COLUMN_ALIASES` (case and punctuation
ignored). The number of pages is read from a ``data-total-pages`` attribute or a
"Page N of M" text; every page is fetched and the rows are concatenated in page order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tambench._optional import require
from tambench.core.leaderboard import (
    Leaderboard,
    LeaderboardRow,
    parse_score,
    parse_timestamp,
)
from tambench.errors import LeaderboardError

#: Normalised field -> header names that mean it (lower case, letters and digits only).
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "rank": ("rank", "place", "position", "pos", "no"),
    "team": ("team", "teamname", "participant", "participants", "user", "username", "name"),
    "score": ("score", "privatescore", "private", "result", "finalscore"),
    "entries": ("entries", "submissions", "submissioncount", "entriescount", "subs"),
    "submitted_at": ("last", "lastsubmission", "lastsubmitted", "submitted", "date",
                     "lastsubmissiondate", "time"),
}

_PAGE_OF = re.compile(r"page\s+(\d+)\s+of\s+(\d+)", re.I)


@dataclass
class LeaderboardPage:
    """The table of one leaderboard page."""

    header: list[str]
    rows: list[list[str]]
    page: int = 1
    total_pages: int | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def parse_leaderboard_html(html: str, selector: str) -> LeaderboardPage:
    """Read the leaderboard table found by ``selector`` (or the first table) of a page.

    Raises:
        LeaderboardError: no table, or a table without rows.
    """
    bs4 = require("bs4", extra="browser", feature="reading leaderboards")
    soup = bs4.BeautifulSoup(html, "lxml")
    table = soup.select_one(selector)
    if table is not None and table.name != "table":
        table = table.find("table")
    if table is None:
        table = soup.find("table")
    if table is None:
        raise LeaderboardError(f"no leaderboard table on the page (selector {selector!r})")
    header: list[str] = []
    rows: list[list[str]] = []
    for tr in table.find_all("tr"):
        cells = tr.find_all(["th", "td"], recursive=False)
        values = [c.get_text(" ", strip=True) for c in cells]
        if not header and (tr.find_parent("thead") is not None or all(c.name == "th"
                                                                         for c in cells)):
            header = values
            continue
        if values:
            rows.append(values)
    if not header:
        raise LeaderboardError("the leaderboard table has no header row")
    total = None
    holder = table if table.has_attr("data-total-pages") else soup.select_one("[data-total-pages]")
    if holder is not None and str(holder.get("data-total-pages", "")).isdigit():
        total = int(holder["data-total-pages"])
    else:
        m = _PAGE_OF.search(soup.get_text(" ", strip=True))
        if m:
            total = int(m.group(2))
    page = 1
    if table.has_attr("data-page") and str(table["data-page"]).isdigit():
        page = int(table["data-page"])
    return LeaderboardPage(header=header, rows=rows, page=page, total_pages=total)


def _column_index(header: list[str]) -> dict[str, int]:
    normed = [_norm(h) for h in header]
    found: dict[str, int] = {}
    for key, aliases in COLUMN_ALIASES.items():
        for alias in aliases:
            if alias in normed:
                found[key] = normed.index(alias)
                break
    return found


def leaderboard_from_pages(pages: list[LeaderboardPage], *, source: str = "") -> Leaderboard:
    """One normalised leaderboard from the tables of all its pages, in page order.

    Raises:
        LeaderboardError: no rows, no score column, or pages with different headers.
    """
    if not pages:
        raise LeaderboardError(f"no leaderboard pages for {source or 'this competition'}")
    header = pages[0].header
    for p in pages[1:]:
        if p.header != header:
            raise LeaderboardError(
                f"leaderboard page {p.page} has header {p.header}, expected {header}"
            )
    idx = _column_index(header)
    if "score" not in idx:
        raise LeaderboardError(
            f"leaderboard of {source or 'this competition'} has no score column; got {header}"
        )
    out: list[LeaderboardRow] = []
    for p in pages:
        for values in p.rows:
            if len(values) != len(header):
                raise LeaderboardError(
                    f"leaderboard page {p.page}: a row has {len(values)} cells, expected "
                    f"{len(header)} ({header})"
                )
            rec = dict(zip(header, values, strict=True))
            raw = values[idx["score"]]
            score, _ = parse_score(raw)
            rank_text = values[idx["rank"]] if "rank" in idx else ""
            entries_text = values[idx["entries"]] if "entries" in idx else ""
            out.append(LeaderboardRow(
                row=len(out) + 1,
                rank=int(rank_text) if rank_text.strip().isdigit() else len(out) + 1,
                team=values[idx["team"]].strip() if "team" in idx else "",
                score=score,
                score_raw=raw,
                entries=int(entries_text) if entries_text.strip().isdigit() else None,
                submitted_at=parse_timestamp(values[idx["submitted_at"]])
                if "submitted_at" in idx else None,
                source=rec,
            ))
    if not out:
        raise LeaderboardError(f"leaderboard of {source or 'this competition'} has no rows")
    return Leaderboard(rows=tuple(out), format="page-table", source_columns=tuple(header),
                       path=source)
