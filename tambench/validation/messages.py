"""How rows, ids and near misses are named in messages.

Messages quote only the submission's own values, the public ids and declared label sets, never
a private label of a row (see :mod:`tambench.validation`).
"""

from __future__ import annotations

import math
import unicodedata

import numpy as np
import pyarrow as pa

from tambench.validation.reading.text import MAX_EXAMPLES, echo

#: Separator of composite ids (several id columns); NUL bytes are refused in submissions.
KEY_SEP = "\x00"


def show_id(key: str) -> str:
    """How an id (or composite id) is shown in messages."""
    return key.replace(KEY_SEP, " | ")


def rows_desc(positions: np.ndarray, keys: pa.Array | pa.ChunkedArray | None) -> str:
    """``rows [2, 7] (ids ['a', 'b'])``: 1-based data rows, with ids when there are ids."""
    total = int(positions.size)
    first = positions[:MAX_EXAMPLES]
    rows = ", ".join(str(int(p) + 1) for p in first)
    more = ", ..." if total > MAX_EXAMPLES else ""
    out = f"rows [{rows}{more}]"
    if keys is not None:
        ids = ", ".join(echo(show_id(keys[int(p)].as_py())) for p in first)
        out += f" (ids [{ids}])"
    return out


def loose(name: str) -> str:
    """A column name without spaces and case, to recognise near misses."""
    return "".join(name.split()).casefold()


def _hint_key(s: str) -> str:
    k = unicodedata.normalize("NFKC", s.replace("\ufeff", "")).strip().casefold()
    try:
        f = float(k)
    except ValueError:
        return k
    return repr(f) if math.isfinite(f) else k


def near_miss_hints(unknown: list[str], missing: list[str]) -> list[str]:
    """A hint pairing submitted ids with expected ids that differ only in number, case, space
    or Unicode form; empty when there is no such pair."""
    by_key: dict[str, str] = {}
    for m in missing[:5000]:
        by_key.setdefault(_hint_key(m), m)
    pairs = []
    for u in unknown[:5000]:
        hit = by_key.get(_hint_key(u))
        if hit is not None and hit != u:
            pairs.append(f"{echo(show_id(u))} vs {echo(show_id(hit))}")
        if len(pairs) >= MAX_EXAMPLES:
            break
    if not pairs:
        return []
    return [
        "ids are compared as exact strings (no number, case, space or Unicode normalisation); "
        f"near misses, submitted vs expected: {'; '.join(pairs)}"
    ]
