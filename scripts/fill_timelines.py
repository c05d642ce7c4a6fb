"""Timelines held outside the peers' trees (helper of fill_catalogue): a public copy of the KDD
Cup 2024 timeline, and the lines public pages state about a competition's dates.

* ``kddcup2024`` (:data:`peer_trees.SOURCES`): the OAG-Challenge of KDD Cup 2024 (biendata's
  WhoIsWho-IND, AQA and PST tracks) ran on one timeline, "March 20th, 2024: Start of KDD Cup
  2024" to "June 7th, 2024: All tracks end.". The fill reads it, as data, from the copy a team
  made of the KDD Cup website's timeline in a public repository (its section "Timeline from
  KDD Cup website"), cited by repository, commit and path. Only the start and the end of all
  tracks count; the merge deadline, the test release and the winners' announcement do not.
* ``bench/data/page_dates.csv``: one row per line a public page states about a competition's
  dates (its address, the line as the page words it), checked by hand against the page. The
  line is read as any description's (:func:`tambench.tasks.dates.dated_text`): a full dated
  timeline line, or a line saying the competition never ends. Cited by the page's address.

Both are dated sources like any description's timeline, cross-checked with every other source
of the entry (:func:`tambench.tasks.dates.decide_dates`).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from fill_sources import Sources

from tambench.schema.taskspec import FactSource
from tambench.tasks.dates import DatedSource, DateStatement, dated_text, timeline_statements

NAME = "kddcup2024"
#: Catalogue slug -> the KDD Cup 2024 track.
TRACKS = {"ind": "WhoIsWho-IND", "aqa": "AQA", "pst": "PST"}
_SECTION = re.compile(r"^#+\s*Timeline from KDD Cup website\s*$", re.M | re.I)
PAGE_DATES = Path(__file__).resolve().parents[1] / "bench" / "data" / "page_dates.csv"
PAGE_COLUMNS = ("slug", "url", "statement")


def kddcup2024_dates(sources: Sources, slug: str) -> DatedSource | None:
    """The OAG-Challenge timeline's start and end of all tracks, for its three tracks."""
    tree = sources.trees.get(NAME)
    if tree is None or slug.lower() not in TRACKS:
        return None
    text = tree.competitions.read_text(encoding="utf-8")
    head = _SECTION.search(text)
    if head is None:
        raise SystemExit(f"{tree.cite(tree.competitions)}: no 'Timeline from KDD Cup website'")
    section = re.split(r"\n#+ ", text[head.end():], maxsplit=1)[0]
    kept = []
    for st in timeline_statements(section):
        if "Start of KDD Cup 2024" in st.line:
            kept.append(DateStatement("start", st.day, st.line))
        elif "All tracks end" in st.line:
            kept.append(DateStatement("end", st.day, st.line))
    src = FactSource(source=tree.peer.repository, commit=tree.commit,
                     path=tree.cite(tree.competitions),
                     detail="a copy of the KDD Cup 2024 website's timeline, shared by the "
                            "OAG-Challenge's three tracks")
    return DatedSource(src, statements=tuple(kept))


def read_page_dates(path: Path = PAGE_DATES) -> dict[str, list[tuple[str, str]]]:
    """Lower-cased slug -> (address, statement) of every row, checked."""
    out: dict[str, list[tuple[str, str]]] = {}
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != PAGE_COLUMNS:
            raise SystemExit(f"{path}: the columns must be {', '.join(PAGE_COLUMNS)}")
        for n, row in enumerate(reader, start=2):
            slug, url, line = (row[c].strip() for c in PAGE_COLUMNS)
            if not (slug and url.startswith("https://") and line):
                raise SystemExit(f"{path}:{n}: a row needs a slug, an https address and a line")
            out.setdefault(slug.lower(), []).append((url, line))
    return out


def page_dated(sources: Sources, slug: str) -> list[DatedSource]:
    """The lines public pages state about the competition's dates, one source per line."""
    cached = sources.cache.get("page-dates")
    if not isinstance(cached, dict):
        cached = read_page_dates()
        sources.cache["page-dates"] = cached
    return [dated_text(FactSource(source=url, detail="the page's line, checked by hand"), line)
            for url, line in cached.get(slug.lower(), [])]


def extra_timelines(sources: Sources, slug: str) -> list[DatedSource]:
    """Every dated source of this module for a competition."""
    kdd = kddcup2024_dates(sources, slug)
    return [*([kdd] if kdd is not None else []), *page_dated(sources, slug)]
