"""Kaggle's own record of each competition's deadline (helper of fill_catalogue).

Meta Kaggle is Kaggle's public export of its site's tables; its ``Competitions.csv`` has one
row per competition with its ``Slug``, ``EnabledDate`` (launch) and ``DeadlineDate`` (the day
the competition closed, UTC; for a two-stage or code competition whose final submissions are
rerun on new data, the close of that last stage). The fill reads a copy of it committed to a
public repository (:data:`peer_trees.SOURCES`, ``meta-kaggle``: the commit and path are cited
with every date it gives), as data.

A row's deadline is a statement of the competition's end, cross-checked against the final
leaderboards' last submissions as every timeline is (:mod:`tambench.tasks.dates`). It is read
only for an entry whose descriptions and boards give no end date and disagree on none: beside
a description's final submission deadline, the record of a two-stage competition's later close
would only contradict it. A deadline after the newest launch the export holds is not read: the
competition may still have been running, and its deadline moving, when the table was exported.
"""

from __future__ import annotations

import csv
import io
from datetime import date, datetime

from fill_sources import Sources

from tambench.schema.taskspec import FactSource
from tambench.tasks.dates import DatedSource, DateStatement

NAME = "meta-kaggle"
_STAMP = "%m/%d/%Y %H:%M:%S"


def _day(stamp: str) -> date | None:
    try:
        return datetime.strptime(stamp.strip(), _STAMP).date()
    except ValueError:
        return None


def _rows(sources: Sources) -> dict[str, dict[str, str]]:
    """Lower-cased slug -> its row (read once); empty without the source."""
    cached = sources.cache.get(NAME)
    if isinstance(cached, dict):
        return cached
    rows: dict[str, dict[str, str]] = {}
    tree = sources.trees.get(NAME)
    if tree is not None and tree.competitions.is_file():
        text = tree.competitions.read_text(encoding="utf-8", errors="replace")
        for row in csv.DictReader(io.StringIO(text, newline="")):
            slug = (row.get("Slug") or "").lower()
            if slug in rows:
                raise SystemExit(f"{tree.cite(tree.competitions)}: the slug {slug!r} twice")
            rows[slug] = row
    sources.cache[NAME] = rows
    return rows


def exported_after(sources: Sources) -> date | None:
    """The newest launch the export holds: it was exported on or after that day."""
    days = [d for r in _rows(sources).values() if (d := _day(r.get("EnabledDate", "")))]
    return max(days, default=None)


def meta_kaggle_dated(sources: Sources, slug: str) -> DatedSource | None:
    """The row's deadline as an end statement, or None (no row, no deadline, or a deadline
    after the export)."""
    row = _rows(sources).get(slug.lower())
    tree = sources.trees.get(NAME)
    if row is None or tree is None:
        return None
    end, newest = _day(row.get("DeadlineDate", "")), exported_after(sources)
    if end is None or newest is None or end > newest:
        return None
    line = f"Meta Kaggle record of slug {row['Slug']}: DeadlineDate {row['DeadlineDate']}"
    src = FactSource(source=tree.peer.repository, commit=tree.commit,
                     path=tree.cite(tree.competitions))
    return DatedSource(src, statements=(DateStatement("end", end, line),))
