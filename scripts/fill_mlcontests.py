"""ML Contests' list of competitions: launch and deadline of each (helper of fill_catalogue).

ML Contests (mlcontests.com) publishes the competitions it lists as data in its site's public
repository (github:mlcontests/mlcontests.github.io, ``competitions.json``): one item per
competition with its address (``url``), ``launched`` and ``deadline`` (``"22 Jan 2024"``). An
item stays listed after its competition closes until the list is pruned, so the fill reads two
pinned commits (:data:`peer_trees.SOURCES`, ``mlcontests-2024`` and ``mlcontests``): the last
one before the prune of 2024-10-07 and a later one. The commit and path are cited with every
date read.

An item speaks for the catalogue entry whose address it names: a Kaggle item by its slug
(``kaggle.com/competitions/<slug>``), an AIcrowd item by its problem (:data:`ALIASES`). Like
Meta Kaggle's record (``fill_metakaggle``), it is read only for an entry whose descriptions and
boards give no end date and disagree on none, and after Meta Kaggle's record, where that gives
none: Kaggle's own record wins (the list's deadline of a two-stage competition can be its first
stage's, Global Wheat Detection's 2020-08-04 beside Kaggle's 2020-08-19). The two lists read
are cross-checked with each other and with the entry's boards; a deadline after the newest
launch the list holds is not read (the competition may still have been running, its deadline
moving). An address two items of one list name with different dates is read from neither.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from urllib.parse import urlsplit

from fill_sources import Sources

from tambench.schema.taskspec import FactSource
from tambench.tasks.dates import DatedSource, DateStatement

NAMES = ("mlcontests-2024", "mlcontests")
#: Catalogue slug -> the last segment of its item's address, where that is not the slug.
ALIASES = {"nextproductprediction": "task-1-next-product-recommendation"}
#: Catalogue platform -> the host its items' addresses name.
HOSTS = {"kaggle": "kaggle.com", "aicrowd": "aicrowd.com"}


def _day(text: object) -> date | None:
    try:
        return datetime.strptime(str(text).strip(), "%d %b %Y").date()
    except ValueError:
        return None


def _key(url: str) -> tuple[str, str]:
    """(host, the competition's key): Kaggle's slug, else the address's last segment."""
    parts = urlsplit(url)
    segments = [s.lower() for s in parts.path.split("/") if s]
    if "competitions" in segments[:-1]:
        return parts.netloc.lower(), segments[segments.index("competitions") + 1]
    return parts.netloc.lower(), segments[-1] if segments else ""


def _items(sources: Sources, name: str) -> dict[tuple[str, str], dict[str, str] | None]:
    """(host, key) -> its item (None: items that disagree), read once; empty without it."""
    cached = sources.cache.get(name)
    if isinstance(cached, dict):
        return cached
    out: dict[tuple[str, str], dict[str, str] | None] = {}
    tree = sources.trees.get(name)
    if tree is not None and tree.competitions.is_file():
        data = json.loads(tree.competitions.read_text(encoding="utf-8"))["data"]
        for item in data:
            key = _key(str(item.get("url", "")))
            seen = out.get(key, item)
            same = seen is not None and all(seen.get(f) == item.get(f)
                                            for f in ("launched", "deadline"))
            out[key] = item if key not in out or same else None
    sources.cache[name] = out
    return out


def _dated(sources: Sources, name: str, host: str, key: str) -> DatedSource | None:
    items = _items(sources, name)
    item = next((v for (h, k), v in items.items() if k == key and h.endswith(host)), None)
    tree = sources.trees.get(name)
    newest = max((d for v in items.values() if v and (d := _day(v.get("launched")))),
                 default=None)
    end = _day(item.get("deadline")) if item else None
    if item is None or tree is None or end is None or newest is None or end > newest:
        return None
    said = f"ML Contests' item {item['url']}"
    kept = [DateStatement("end", end, f"{said}: deadline {item['deadline']}")]
    if (start := _day(item.get("launched"))) is not None:
        kept.append(DateStatement("start", start, f"{said}: launched {item['launched']}"))
    src = FactSource(source=tree.peer.repository, commit=tree.commit,
                     path=tree.cite(tree.competitions))
    return DatedSource(src, statements=tuple(kept))


def mlcontests_dated(sources: Sources, slug: str, platform: str) -> list[DatedSource]:
    """The items naming the competition, one dated source per list read (none: no item)."""
    host = HOSTS.get(platform)
    if host is None:
        return []
    key = ALIASES.get(slug.lower(), slug.lower())
    found = (_dated(sources, name, host, key) for name in NAMES)
    return [d for d in found if d is not None]
