"""The ``bibliography`` recipe transform: one row per entry of each row's TEI XML bibliography,
labelled by the titles the row lists (the model and its rules are
:class:`tambench.schema.transforms_tables.Bibliography`; registered by
:mod:`tambench.splits.transforms`).

The documents are GROBID's TEI output. They are parsed with the standard library's expat
parser, which fetches no external entity and, from expat 2.4, refuses entity expansion
attacks; a document larger than :data:`MAX_DOCUMENT_BYTES` is refused before it is read.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import polars as pl

from tambench.core.bounded import parse_json
from tambench.errors import SplitError
from tambench.schema.transforms_tables import Bibliography
from tambench.splits.layout import resolve_inside

#: A TEI document larger than this is refused (GROBID's papers are well under 1 MB).
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024

_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_ENTRY_ID = re.compile(r"b(\d+)")

Applied = tuple[pl.LazyFrame, str]


def _local(tag: Any) -> str:
    """An element's name without its namespace."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _child(element: ET.Element, name: str) -> ET.Element | None:
    """The first descendant of ``element`` named ``name`` (any namespace)."""
    return next((e for e in element.iter() if e is not element and _local(e.tag) == name),
                None)


def entry_titles(path: Path, rel: str) -> list[str]:
    """The titles of a TEI document's bibliography by entry number (``b0``, ``b1``, ...),
    up to the last entry with an analytic title; a number without one holds ""."""
    if path.stat().st_size > MAX_DOCUMENT_BYTES:
        raise SplitError(f"bibliography: {rel!r} is larger than {MAX_DOCUMENT_BYTES} bytes")
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError, ValueError) as exc:
        raise SplitError(f"bibliography: {rel!r} is not an XML document ({exc})") from None
    titles: dict[int, str] = {}
    for entry in root.iter():
        if _local(entry.tag) != "biblStruct":
            continue
        number = _ENTRY_ID.fullmatch(entry.get(_XML_ID, ""))
        analytic = _child(entry, "analytic")
        title = _child(analytic, "title") if analytic is not None else None
        if number is None or title is None:
            continue
        titles[int(number.group(1))] = "".join(title.itertext()).strip()
    if not titles:
        return []
    return [titles.get(n, "") for n in range(max(titles) + 1)]


def _listed_titles(cell: str | None, t: Bibliography, row_label: str) -> list[str]:
    try:
        records = parse_json(cell, f"{t.titles_column!r} of {row_label}",
                             error=SplitError) if cell else []
    except SplitError:
        records = None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise SplitError(f"bibliography: {t.titles_column!r} of {row_label} is not a JSON "
                         f"list of records: {str(cell)[:60]!r}")
    return [str(r.get(t.title_field) or "").lower() for r in records if r.get(t.title_field)]


def matches(title: str, listed: list[str], min_ratio: int) -> bool:
    """Whether ``title`` (any case) matches one of the lower-case ``listed`` titles."""
    low = title.lower()
    return bool(low) and any(round(100 * SequenceMatcher(None, low, other).ratio()) >= min_ratio
                             for other in listed)


def bibliography(t: Bibliography, table: pl.LazyFrame, raw_root: Path) -> Applied:
    """One row per bibliography entry of each row's document (see the model)."""
    frame = table.collect()
    kept = [c for c in frame.columns if c != t.titles_column]
    clash = {t.position_column, t.title_column, t.label_column} & set(kept)
    if clash:
        raise SplitError(f"bibliography: the table already has column(s) {sorted(clash)}")
    out: dict[str, list[str]] = {c: [] for c in [*kept, t.position_column, t.title_column,
                                                 t.label_column]}
    empty = unmatched = 0
    for row in frame.iter_rows(named=True):
        rel = t.pattern.format(**{f: row[f] or "" for f in t.fields()})
        path = resolve_inside(raw_root, rel, "bibliography's document")
        if not path.is_file():
            raise SplitError(f"bibliography: document {rel!r} not found in the raw data")
        titles = entry_titles(path, rel)
        listed = _listed_titles(row[t.titles_column], t, repr(rel))
        labels = ["1" if matches(title, listed, t.min_ratio) else "0" for title in titles]
        empty += not titles
        unmatched += bool(titles) and "1" not in labels
        for c in kept:
            out[c].extend([row[c]] * len(titles))
        out[t.position_column].extend(str(n) for n in range(len(titles)))
        out[t.title_column].extend(titles)
        out[t.label_column].extend(labels)
    note = (f"bibliography: {frame.height} document(s), {len(out[t.label_column])} entries; "
            f"{empty} without a titled entry (no row), {unmatched} whose entries match none "
            f"of the {t.titles_column!r} titles (all 0)")
    return pl.DataFrame(out, schema=dict.fromkeys(out, pl.String)).lazy(), note
