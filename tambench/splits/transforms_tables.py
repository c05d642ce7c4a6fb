"""Recipe transforms that build a whole table or reshape its rows (implementations; the
models are in :mod:`tambench.schema.transforms_tables`; registered by
:mod:`tambench.splits.transforms`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from tambench.core.bounded import REPORT_BOUNDS, parse_json
from tambench.core.layout import safe_join
from tambench.errors import SplitError
from tambench.schema.transforms_tables import CocoTable, GroupRows, Merge, NpyTable

#: What a transform returns: the new table and a note for the split report.
Applied = tuple[pl.LazyFrame, str]


def coco_table(t: CocoTable, _table: pl.LazyFrame, raw_root: Path) -> Applied:
    path = safe_join(raw_root, t.file, what="coco_table file")
    if not path.is_file():
        raise SplitError(f"coco_table: {t.file!r} not found in the raw data")
    try:
        text = path.read_bytes().decode(t.encoding)
        data = parse_json(text, f"coco_table {t.file!r}", error=SplitError, bounds=REPORT_BOUNDS)
        images, annotations = data["images"], data.get("annotations", [])
        keys = [str(im[t.image_key]) for im in images]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SplitError(f"coco_table: {t.file!r} is not a COCO-style JSON with images "
                         f"holding {t.image_key!r} ({type(exc).__name__}: {exc})") from None
    by_image: dict[str, dict[str, Any]] = {}
    for ann in annotations:
        key = str(ann.get("image_id"))
        if key in by_image:
            raise SplitError(f"coco_table: image {key!r} of {t.file!r} has several annotations; "
                             "one per image (its category) is expected")
        by_image[key] = ann
    image_fields = list(dict.fromkeys(f for im in images for f in im))
    ann_fields = list(dict.fromkeys(f for a in annotations for f in a if f != "image_id"))
    names = {f: f"annotation_{f}" if f in image_fields else f for f in ann_fields}
    rows = [{**{f: _cell(im.get(f)) for f in image_fields},
             **{names[f]: _cell(by_image.get(k, {}).get(f)) for f in ann_fields}}
            for im, k in zip(images, keys, strict=True)]
    frame = pl.DataFrame(rows, schema={c: pl.String for c in [*image_fields, *names.values()]})
    return frame.lazy(), (f"coco_table: {len(rows)} image(s) of {t.file!r}, "
                          f"{len(by_image)} annotated")


#: Rows of a 2-D array turned into a frame at a time (a frame per chunk, cast to text when
#: the table is written, so the arrays are never held as text at once).
NPY_CHUNK_ROWS = 100_000


def npy_table(t: NpyTable, _table: pl.LazyFrame, raw_root: Path) -> Applied:
    arrays = {}
    for name, rel in t.arrays.items():
        path = safe_join(raw_root, rel, what="npy_table array")
        try:
            arrays[name] = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise SplitError(f"npy_table: cannot read {rel!r} as a NumPy array ({exc})") from None
    lengths = {name: a.shape[0] if a.ndim else 0 for name, a in arrays.items()}
    bad = {n: a.ndim for n, a in arrays.items() if a.ndim not in (1, 2)}
    if bad or len(set(lengths.values())) != 1:
        raise SplitError(f"npy_table: the arrays must be 1-D or 2-D with one item per row; "
                         f"rows {lengths}, dimensions of the others {bad}")
    n = next(iter(lengths.values()))
    chunks = []
    for start in range(0, n, NPY_CHUNK_ROWS):
        stop = min(n, start + NPY_CHUNK_ROWS)
        cols = {t.row_column: np.arange(start, stop)}
        for name, a in arrays.items():
            part = np.asarray(a[start:stop])
            cols.update({name: part} if a.ndim == 1 else
                        {f"{name}_{j}": part[:, j] for j in range(a.shape[1])})
        chunks.append(pl.DataFrame(cols).lazy())
    if not chunks:
        raise SplitError(f"npy_table: the arrays {list(t.arrays.values())} have no rows")
    table = pl.concat(chunks).select(pl.all().cast(pl.String))
    return table, f"npy_table: {n} row(s) from {len(arrays)} array(s)"


def _cell(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value) if isinstance(value, (dict, list, bool)) else str(value)


def group_rows(t: GroupRows, table: pl.LazyFrame, _raw: Path) -> Applied:
    names = table.collect_schema().names()
    others = [c for c in names if c not in t.by and c not in t.join]
    grouped = table.group_by(t.by, maintain_order=True).agg(
        [pl.col(c).str.join(sep) for c, sep in t.join.items()]
        + [pl.col(c).first() for c in others]
        + [(pl.col(c).n_unique() > 1).alias(f"__differs__{c}") for c in others]).collect()
    before = table.select(pl.len()).collect().item()
    differs = [f"{c} in {n}" for c in others
               if (n := int(grouped[f"__differs__{c}"].sum()))]
    out = grouped.select(names)
    note = f"group_rows: {before} row(s) into {out.height} by {t.by}"
    if differs:
        note += f"; first value kept where it differs: {', '.join(differs)} group(s)"
    return out.lazy(), note


def merge(t: Merge, table: pl.LazyFrame, raw_root: Path) -> Applied:
    path = safe_join(raw_root, t.file, what="merge file")
    if not path.is_file():
        raise SplitError(f"merge: {t.file!r} not found in the raw data")
    other = pl.scan_csv(path, infer_schema=False)
    have = other.collect_schema().names()
    missing = [c for c in t.on if c not in have]
    if missing:
        raise SplitError(f"merge: {t.file!r} has no column(s) {missing} (it has {have[:20]})")
    before = table.select(pl.len()).collect().item()
    joined = table.join(other, on=t.on, how="inner", suffix=" (joined)")
    kept = table.join(other.select(t.on).unique(), on=t.on, how="semi")
    unmatched = before - kept.select(pl.len()).collect().item()
    rows = joined.select(pl.len()).collect().item()
    return joined, (f"merge: {rows} row(s) after joining {t.file!r} on {t.on}; {unmatched} "
                    "row(s) without a match dropped")

