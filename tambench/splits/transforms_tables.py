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
from tambench.schema.transforms_tables import (
    Baseline,
    CocoTable,
    GroupRows,
    Merge,
    NpyRle,
    NpyTable,
)

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



def baseline(t: Baseline, table: pl.LazyFrame, _raw: Path) -> Applied:
    names = table.collect_schema().names()
    taken = [n for n in t.columns.values() if n in names]
    if taken:
        raise SplitError(f"baseline: the table already has column(s) {taken}")
    frame = table.collect().with_row_index("__row")
    order = frame[t.order].str.strip_chars().cast(pl.Float64, strict=False)
    bad = order.is_null() | order.is_nan()
    if bad.any():
        first_bad = int(bad.arg_max() or 0)
        raise SplitError(f"baseline: order column {t.order!r} is not a number in "
                         f"{int(bad.sum())} row(s), e.g. data row {first_bad + 1} "
                         f"({frame[t.order][first_bad]!r})")
    firsts = (frame.with_columns(order.alias("__order")).sort(["__order", "__row"])
              .group_by(t.group, maintain_order=True).first()
              .select([t.group, pl.col("__row").alias("__first"),
                       *[pl.col(c).alias(new) for c, new in t.columns.items()]]))
    joined = frame.join(firsts, on=t.group, how="left")
    later = joined.filter(pl.col("__row") != pl.col("__first")).sort("__row")
    alone = firsts.height - later[t.group].n_unique()
    out = later.select([*names, *t.columns.values()])
    return out.lazy(), (f"baseline: the first row of each of {firsts.height} {t.group!r} "
                        f"group(s) by {t.order!r} moved into {list(t.columns.values())} of "
                        f"its later rows; {alone} group(s) of one row dropped")


def mask_rle(mask: np.ndarray, empty: str = "") -> str:
    """Runs ``start length`` of a 2-D mask's non-zero pixels numbered from 1 down each column.

    >>> mask_rle(np.array([[1, 0], [1, 1]]))
    '1 2 4 1'
    """
    flat = np.concatenate([[0], (mask.T.reshape(-1) != 0).astype(np.int8), [0]])
    edges = np.flatnonzero(np.diff(flat))
    starts, ends = edges[0::2], edges[1::2]
    return " ".join(f"{s + 1} {e - s}" for s, e in zip(starts, ends, strict=True)) or empty


def npy_rle(t: NpyRle, table: pl.LazyFrame, raw_root: Path) -> Applied:
    frame = table.collect()
    new = [c for c in (t.into, t.height_column, t.width_column) if c]
    taken = [c for c in new if c in frame.columns]
    if taken:
        raise SplitError(f"npy_rle: the table already has column(s) {taken}")
    codes, heights, widths = [], [], []
    for row in frame.iter_rows(named=True):
        rel = t.pattern.format(**row)
        path = safe_join(raw_root, rel, what="npy_rle file")
        try:
            mask = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise SplitError(f"npy_rle: cannot read {rel!r}: {exc}") from None
        if mask.ndim == 3 and mask.shape[2] == 1:
            mask = mask[:, :, 0]
        if mask.ndim != 2:
            raise SplitError(f"npy_rle: {rel!r} has the shape {mask.shape}, not a 2-D mask")
        codes.append(mask_rle(mask, t.empty))
        heights.append(str(mask.shape[0]))
        widths.append(str(mask.shape[1]))
    out = frame.with_columns(pl.Series(t.into, codes, dtype=pl.String))
    for name, values in ((t.height_column, heights), (t.width_column, widths)):
        if name:
            out = out.with_columns(pl.Series(name, values, dtype=pl.String))
    empty = sum(1 for c in codes if c == t.empty)
    return out.lazy(), f"npy_rle: {len(codes)} mask(s) encoded into {t.into!r}, {empty} empty"
