"""Leaderboards read from rendered pages, as the sites render them, then one normalised board.

Two shapes are read:

* a ``<table>`` (AIcrowd's server-rendered Bootstrap table, Biendata, most sites): a header
  row of ``th`` cells, data rows of ``td`` cells; ``colspan`` cells count for as many columns
  (AIcrowd's baseline rows leave three columns to one empty cell);
* Kaggle's list (``ul.km-list``): one ``<li>`` per row, its first ``div`` holding one
  ``<span>`` per column; the first ``<li>`` is the header (``#``, ``Team``, ``Members``,
  ``Score``, ``Entries``, ``Last``, ``Code``).

Header names are matched to the normalised fields through :data:`COLUMN_ALIASES` (case and
punctuation ignored; ``#`` is the rank); a header cell with the class ``score-title`` (AIcrowd
names that column after the metric, "Primary Score" by default) is the score. A row that
cannot be read (a cell count no colspan explains) is left out and reported, never the board;
a row without a rank on a board that has ranks (a baseline) is left out and reported too.

The number of pages is read from a ``data-total-pages`` attribute or a "Page N of M" text when
the site paginates; boards that load more rows on scrolling are scrolled by the fetcher first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

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
    "score": ("score", "privatescore", "private", "result", "finalscore", "primaryscore"),
    "entries": ("entries", "submissions", "submissioncount", "entriescount", "subs",
                "successfulentries", "successfulsubmissions"),
    "submitted_at": ("last", "lastsubmission", "lastsubmitted", "submitted", "date",
                     "lastsubmissiondate", "time"),
}
#: Header cells that are symbols rather than words.
SYMBOL_HEADERS = {"#": "rank", "№": "rank"}
#: Class of a header cell that holds the score whatever its title (AIcrowd).
SCORE_CLASS = "score-title"

_PAGE_OF = re.compile(r"page\s+(\d+)\s+of\s+(\d+)", re.I)
_LAST_SUBMISSION = re.compile(r"last submission:\s*(.+)", re.I)
_MAX_COLSPAN = 50


@dataclass
class LeaderboardPage:
    """The leaderboard of one page: its header and rows, as text cells."""

    header: list[str]
    rows: list[list[str]]
    page: int = 1
    total_pages: int | None = None
    score_column: int | None = None
    """Index of the score column when the markup names it (``score-title``)."""
    dates: dict[int, str] = field(default_factory=dict)
    """Row index -> exact submission time from a tooltip, when the cell shows "3h"."""
    shape: str = "table"
    """``table`` or ``list`` (Kaggle's ``ul.km-list``)."""


@dataclass
class BoardResult:
    """A normalised leaderboard and what was left out of it, with the reasons."""

    leaderboard: Leaderboard
    problems: list[str] = field(default_factory=list)


def _norm(name: str) -> str:
    text = name.strip()
    if text in SYMBOL_HEADERS:
        return SYMBOL_HEADERS[text]
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _cell_text(cell: Any) -> str:
    for tip in cell.select(".__react_component_tooltip, [role=tooltip]"):
        tip.extract()
    return " ".join(cell.get_text(" ").split())


def _tooltip_date(cell: Any) -> str:
    for tip in cell.select(".__react_component_tooltip, [role=tooltip]"):
        m = _LAST_SUBMISSION.search(" ".join(tip.get_text(" ").split()))
        if m:
            return m.group(1).strip()
    return ""


def _table_cells(tr: Any) -> list[str]:
    out: list[str] = []
    for cell in tr.find_all(["th", "td"], recursive=False):
        span = str(cell.get("colspan", "1"))
        n = max(1, min(_MAX_COLSPAN, int(span))) if span.isdigit() else 1
        out.append(_cell_text(cell))
        out.extend([""] * (n - 1))
    return out


def _read_table(table: Any) -> LeaderboardPage | None:
    header: list[str] = []
    score_col: int | None = None
    rows: list[list[str]] = []
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:
            continue
        cells = tr.find_all(["th", "td"], recursive=False)
        if not header and cells and (tr.find_parent("thead") is not None
                                     or all(c.name == "th" for c in cells)):
            for i, c in enumerate(cells):
                if SCORE_CLASS in (c.get("class") or []):
                    score_col = i
            header = _table_cells(tr)
            continue
        values = _table_cells(tr)
        if values:
            rows.append(values)
    if not header:
        return None
    page = LeaderboardPage(header=header, rows=rows, score_column=score_col)
    if table.has_attr("data-page") and str(table["data-page"]).isdigit():
        page.page = int(table["data-page"])
    return page


def _list_cells(li: Any) -> tuple[list[Any], str]:
    box = li.find("div", recursive=False) or li
    spans = box.find_all("span", recursive=False)
    date = ""
    for s in spans:
        date = date or _tooltip_date(s)
    return spans, date


def _read_list(ul: Any) -> LeaderboardPage | None:
    items = ul.find_all("li", recursive=False)
    if not items:
        return None
    head_cells, _ = _list_cells(items[0])
    header = [_cell_text(c) for c in head_cells]
    if "score" not in _column_index(header):
        return None
    rows: list[list[str]] = []
    dates: dict[int, str] = {}
    for li in items[1:]:
        cells, date = _list_cells(li)
        if date:
            dates[len(rows)] = date
        rows.append([_cell_text(c) for c in cells])
    return LeaderboardPage(header=header, rows=rows, dates=dates, shape="list")


def _total_pages(soup: Any, holder: Any) -> int | None:
    if holder is not None and str(holder.get("data-total-pages", "")).isdigit():
        return int(holder["data-total-pages"])
    marked = soup.select_one("[data-total-pages]")
    if marked is not None and str(marked.get("data-total-pages", "")).isdigit():
        return int(marked["data-total-pages"])
    m = _PAGE_OF.search(soup.get_text(" ", strip=True))
    return int(m.group(2)) if m else None


def parse_leaderboard_html(html: str, selector: str = "") -> LeaderboardPage:
    """Read the leaderboard of a page: the first table or ``ul.km-list`` with a score column.

    ``selector`` narrows the search to the elements it matches (and their descendants).

    Raises:
        LeaderboardError: nothing on the page has a header with a score column.
    """
    bs4 = require("bs4", extra="browser", feature="reading leaderboards")
    soup = bs4.BeautifulSoup(html, "lxml")
    scopes = soup.select(selector) if selector else []
    if not scopes:
        scopes = [soup]
    seen: list[str] = []
    for scope in scopes:
        found = [scope] if scope.name in ("table", "ul") else []
        found += scope.find_all(["table", "ul"])
        for el in found:
            page = _read_table(el) if el.name == "table" else (
                _read_list(el) if "km-list" in (el.get("class") or []) else None)
            if page is None:
                continue
            if page.score_column is not None or "score" in _column_index(page.header):
                page.total_pages = _total_pages(soup, el)
                return page
            seen.append(str(page.header))
    where = f" (selector {selector!r})" if selector else ""
    got = f"; headers seen: {', '.join(seen[:3])}" if seen else ""
    raise LeaderboardError(
        f"no leaderboard on the page{where}: no <table> and no Kaggle list (ul.km-list) with a "
        f"score column{got}"
    )


def _column_index(header: list[str]) -> dict[str, int]:
    normed = [_norm(h) for h in header]
    found: dict[str, int] = {}
    for key, aliases in COLUMN_ALIASES.items():
        for i, name in enumerate(normed):
            if name == key or name in aliases:
                found[key] = i
                break
    return found


def _rank_of(text: str) -> int | None:
    t = text.strip().lstrip("#").rstrip(".")
    return int(t) if t.isascii() and t.isdigit() and len(t) <= 18 else None


def _entries_of(text: str) -> int | None:
    t = text.strip().replace(",", "")
    return int(t) if t.isascii() and t.isdigit() and len(t) <= 18 else None


def _row(values: list[str], header: list[str], idx: dict[str, int], n: int,
         date: str) -> LeaderboardRow:
    raw = values[idx["score"]]
    score, _ = parse_score(raw)
    when = date or (values[idx["submitted_at"]] if "submitted_at" in idx else "")
    rank = _rank_of(values[idx["rank"]]) if "rank" in idx else None
    return LeaderboardRow(
        row=n, rank=rank if rank is not None else n, team=values[idx["team"]] if "team" in idx
        else "", score=score, score_raw=raw,
        entries=_entries_of(values[idx["entries"]]) if "entries" in idx else None,
        submitted_at=parse_timestamp(when) if when else None,
        source={h: v for h, v in zip(header, values, strict=True) if h},
    )


def leaderboard_from_pages(pages: list[LeaderboardPage], *, source: str = "") -> BoardResult:
    """One normalised leaderboard from all its pages, in page order.

    Rows that cannot be read, and rows without a rank on a ranked board (baselines), are left
    out and listed in :attr:`BoardResult.problems`; the rest of the board stands.

    Raises:
        LeaderboardError: no pages, no score column, pages with different headers, or no row.
    """
    what = source or "this competition"
    if not pages:
        raise LeaderboardError(f"no leaderboard pages for {what}")
    header = pages[0].header
    for p in pages[1:]:
        if p.header != header:
            raise LeaderboardError(f"leaderboard page {p.page} has header {p.header}, "
                                   f"expected {header}")
    idx = _column_index(header)
    if pages[0].score_column is not None:
        idx["score"] = pages[0].score_column
    if "score" not in idx:
        raise LeaderboardError(f"leaderboard of {what} has no score column; got {header}")
    ranked = "rank" in idx and any(_rank_of(v[idx["rank"]]) is not None
                                   for p in pages for v in p.rows if len(v) == len(header))
    out: list[LeaderboardRow] = []
    problems: list[str] = []
    for p in pages:
        for i, values in enumerate(p.rows, start=1):
            where = f"leaderboard page {p.page}, row {i}"
            if len(values) != len(header):
                problems.append(f"{where}: {len(values)} cells, expected {len(header)} "
                                f"({' | '.join(values)[:120]!r}); left out")
                continue
            if ranked and _rank_of(values[idx["rank"]]) is None:
                problems.append(f"{where}: no rank ({' '.join(v for v in values if v)[:80]!r}, "
                                "a baseline or a note); left out")
                continue
            out.append(_row(values, header, idx, len(out) + 1, p.dates.get(i - 1, "")))
    if not out:
        raise LeaderboardError(f"leaderboard of {what} has no rows"
                               + (f" ({problems[0]})" if problems else ""))
    board = Leaderboard(rows=tuple(out), format="page-table",
                        source_columns=tuple(dict.fromkeys(h for h in header if h)), path=source)
    return BoardResult(board, problems)
