"""The recipe transforms, applied to raw tables read as text (one function per ``op``).

The models (parameters, documentation) are in :mod:`tambench.schema.transforms`; this module
registers how each one changes a table in :data:`TRANSFORMS`, under the same names. A
transform takes a lazy frame whose every column is text and returns one, plus an optional
note for the split report (rows dropped, files listed); it never runs code from the catalogue.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from string import Formatter
from typing import Any, TypeVar

import numpy as np
import polars as pl

from tambench.core.bounded import parse_json
from tambench.core.layout import safe_join
from tambench.core.registry import Registry
from tambench.errors import SplitError
from tambench.schema.transforms import (
    TRANSFORM_MODELS,
    Aggregate,
    CocoTable,
    ComposeId,
    DropRows,
    Explode,
    FilesTable,
    HashId,
    Join,
    MapValues,
    NpyTable,
    OneHot,
    Rename,
    Transform,
    Unpivot,
)

M = TypeVar("M", bound=Transform)

#: What a transform returns: the new table and a note for the split report ("" for none).
Applied = tuple[pl.LazyFrame, str]
TransformFn = Callable[[Any, pl.LazyFrame, Path], Applied]

#: op -> implementation ``fn(model, table, raw_root) -> (table, note)``: the "recipe
#: transform" extension point (its models are ``tambench.schema.transforms.TRANSFORM_MODELS``).
TRANSFORMS: Registry[TransformFn] = Registry(
    "recipe transform", error=SplitError,
    hint="register both halves with tambench.splits.transforms.register_transform")


def register_transform(model: type[M], fn: Callable[[M, pl.LazyFrame, Path], Applied]) -> None:
    """Register a transform: its model (schema half, unless registered) and its function."""
    op = str(model.model_fields["op"].default)
    if op not in TRANSFORM_MODELS:
        TRANSFORM_MODELS.register(op, model)
    TRANSFORMS.register(op, fn)


def _files_table(t: FilesTable, _table: pl.LazyFrame, raw_root: Path) -> Applied:
    regex, fields = _pattern_regex(t.pattern)
    rows: list[dict[str, str]] = []
    for dirpath, dirnames, names in os.walk(raw_root):
        dirnames.sort()
        for name in sorted(names):
            rel = (Path(dirpath) / name).relative_to(raw_root).as_posix()
            m = regex.fullmatch(rel)
            if m is not None:
                rows.append({**{f: m.group(f) for f in fields}, t.path_column: rel})
    if not rows:
        raise SplitError(f"files_table: no raw file matches {t.pattern!r}")
    frame = pl.DataFrame(rows, schema={f: pl.String for f in [*fields, t.path_column]})
    return frame.lazy(), f"files_table: {len(rows)} file(s) match {t.pattern!r}"


def _coco_table(t: CocoTable, _table: pl.LazyFrame, raw_root: Path) -> Applied:
    path = safe_join(raw_root, t.file, what="coco_table file")
    if not path.is_file():
        raise SplitError(f"coco_table: {t.file!r} not found in the raw data")
    try:
        with open(path, encoding=t.encoding) as fh:
            data = json.load(fh)
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


def _npy_table(t: NpyTable, _table: pl.LazyFrame, raw_root: Path) -> Applied:
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


def _pattern_regex(pattern: str) -> tuple[re.Pattern[str], list[str]]:
    """A pattern's regular expression (each field one path part, non-greedy) and fields."""
    out, fields = "", []
    for piece in re.split(r"(\{[A-Za-z_][A-Za-z0-9_]*\})", pattern):
        if piece.startswith("{") and piece.endswith("}"):
            name = piece[1:-1]
            out += f"(?P={name})" if name in fields else f"(?P<{name}>[^/]+)"
            if name not in fields:
                fields.append(name)
        else:
            out += re.escape(piece)
    return re.compile(out), fields


def _one_hot(t: OneHot, table: pl.LazyFrame, _raw: Path) -> Applied:
    col = pl.col(t.column).fill_null("")
    labels = (col.str.split(t.separator) if t.separator else pl.concat_list(col)).list.eval(
        pl.element().str.strip_chars())
    known = pl.lit(pl.Series(t.classes, dtype=pl.String)).implode()
    unknown = table.select(labels.alias("_l")).explode("_l").filter(
        ~pl.col("_l").is_in(known)).unique().head(5).collect()
    if unknown.height:
        raise SplitError(f"one_hot: column {t.column!r} holds {unknown['_l'].to_list()} "
                         f"outside the class list {t.classes[:10]}")
    new = [labels.list.contains(pl.lit(c)).cast(pl.Int8).cast(pl.String).alias(f"{t.prefix}{c}")
           for c in t.classes]
    out = table.with_columns(new)
    return (out if t.keep else out.drop(t.column)), ""


def _rename(t: Rename, table: pl.LazyFrame, _raw: Path) -> Applied:
    return table.rename(t.columns), ""


def _compose_id(t: ComposeId, table: pl.LazyFrame, _raw: Path) -> Applied:
    parts: list[pl.Expr] = []
    for literal, name, _, _ in Formatter().parse(t.template):
        if literal:
            parts.append(pl.lit(literal))
        if name:
            cell = pl.col(name).fill_null("")
            parts.append(pl.when(cell == "").then(pl.lit(t.empty[name])).otherwise(cell)
                         if name in t.empty else cell)
    return table.with_columns(pl.concat_str(parts).alias(t.column)), ""


def _hash_id(t: HashId, table: pl.LazyFrame, _raw: Path) -> Applied:
    salt = t.salt.encode()

    def digest(value: str) -> str:
        return hashlib.sha256(salt + b"\x00" + value.encode()).hexdigest()[:16]

    joined = pl.concat_str([pl.col(c).fill_null("") for c in t.columns], separator="\x1f")
    return table.with_columns(
        joined.map_elements(digest, return_dtype=pl.String).alias(t.column)), ""


def _map_values(t: MapValues, table: pl.LazyFrame, _raw: Path) -> Applied:
    col = pl.col(t.column)
    known = pl.lit(pl.Series(list(t.mapping), dtype=pl.String)).implode()
    unknown = table.filter(~col.is_in(known).fill_null(False)).select(col).unique().head(5)
    found = unknown.collect()[t.column].to_list()
    if found:
        raise SplitError(f"map_values: column {t.column!r} holds {found} outside the mapping "
                         f"{t.mapping}")
    return table.with_columns(col.replace_strict(t.mapping, return_dtype=pl.String)), ""


def _unpivot(t: Unpivot, table: pl.LazyFrame, _raw: Path) -> Applied:
    spelled = set(t.reads())
    index = [c for c in table.collect_schema().names() if c not in spelled]
    parts = [table.select(*index, pl.lit(k, dtype=pl.String).alias(t.key_column),
                          *[pl.col(tmpl.replace("{key}", k)).alias(new)
                            for new, tmpl in t.columns.items()])
             for k in t.keys]
    return pl.concat(parts, how="vertical"), ""


def _json_items(text: str | None) -> list[str]:
    try:
        items = parse_json(text, "explode's cell", error=SplitError) if text else []
    except SplitError as exc:
        raise SplitError(f"explode: a cell is not a JSON list: {str(text)[:60]!r}") from exc
    if not isinstance(items, list):
        raise SplitError(f"explode: a cell is not a JSON list: {str(text)[:60]!r}")
    return [v if isinstance(v, str) else json.dumps(v) for v in items]


def _explode(t: Explode, table: pl.LazyFrame, _raw: Path) -> Applied:
    lists = [pl.col(c).map_elements(_json_items, return_dtype=pl.List(pl.String)).alias(c)
             for c in t.columns]
    out = table.with_columns(lists)
    lengths = [pl.col(c).list.len() for c in t.columns]
    uneven = out.filter(pl.any_horizontal([n != lengths[0] for n in lengths[1:]])
                        if len(lengths) > 1 else pl.lit(False)).select(pl.len()).collect().item()
    if uneven:
        raise SplitError(f"explode: {uneven} row(s) have lists of different lengths in "
                         f"{t.columns}")
    out = out.with_columns(pl.int_ranges(0, lengths[0]).cast(pl.List(pl.String))
                           .alias(t.position_column))
    return out.explode([*t.columns, t.position_column]).drop_nulls(t.position_column), ""


def _drop_rows(t: DropRows, table: pl.LazyFrame, _raw: Path) -> Applied:
    col = pl.col(t.column)
    if t.rule == "empty":
        keep = col.is_not_null() & (col.str.strip_chars() != "")
    elif t.rule == "equals":
        keep = ~col.is_in(pl.lit(pl.Series(t.values, dtype=pl.String)).implode()).fill_null(False)
    else:
        keep = col.is_first_distinct()
    before = table.select(pl.len()).collect().item()
    kept = table.filter(keep)
    dropped = before - kept.select(pl.len()).collect().item()
    return kept, f"drop_rows: {dropped} row(s) dropped ({t.rule} {t.column!r}): {t.reason}"


def _aggregate(t: Aggregate, table: pl.LazyFrame, _raw: Path) -> Applied:
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
    note = f"aggregate: {before} row(s) into {out.height} by {t.by}"
    if differs:
        note += f"; first value kept where it differs: {', '.join(differs)} group(s)"
    return out.lazy(), note


def _join(t: Join, table: pl.LazyFrame, raw_root: Path) -> Applied:
    path = safe_join(raw_root, t.file, what="join file")
    if not path.is_file():
        raise SplitError(f"join: {t.file!r} not found in the raw data")
    other = pl.scan_csv(path, infer_schema=False)
    have = other.collect_schema().names()
    missing = [c for c in t.on if c not in have]
    if missing:
        raise SplitError(f"join: {t.file!r} has no column(s) {missing} (it has {have[:20]})")
    before = table.select(pl.len()).collect().item()
    joined = table.join(other, on=t.on, how="inner", suffix=" (joined)")
    kept = table.join(other.select(t.on).unique(), on=t.on, how="semi")
    unmatched = before - kept.select(pl.len()).collect().item()
    rows = joined.select(pl.len()).collect().item()
    return joined, (f"join: {rows} row(s) after joining {t.file!r} on {t.on}; {unmatched} "
                    "row(s) without a match dropped")


register_transform(FilesTable, _files_table)
register_transform(CocoTable, _coco_table)
register_transform(NpyTable, _npy_table)
register_transform(OneHot, _one_hot)
register_transform(Rename, _rename)
register_transform(ComposeId, _compose_id)
register_transform(HashId, _hash_id)
register_transform(MapValues, _map_values)
register_transform(Unpivot, _unpivot)
register_transform(Explode, _explode)
register_transform(DropRows, _drop_rows)
register_transform(Aggregate, _aggregate)
register_transform(Join, _join)


def apply_transforms(steps: list[Transform], table: pl.LazyFrame, raw_root: Path,
                     label: str, required: bool) -> tuple[pl.LazyFrame, list[str]]:
    """Apply ``steps`` in order to ``table`` (every column text); returns it with the notes.

    ``required`` (the training table): a step whose columns are missing is an error; for
    other tables such a step is skipped (a test table has no label column to one-hot).
    """
    notes: list[str] = []
    for i, step in enumerate(steps):
        if step.builds_table and i > 0:
            raise SplitError(f"{step.op} must be the first transform: it builds the table")
        have = table.collect_schema().names()
        missing = [c for c in step.reads() if c not in have]
        if missing:
            if required:
                raise SplitError(f"transform {step.op} reads column(s) {missing} that {label} "
                                 f"does not have (it has {have[:20]})")
            continue
        table, note = TRANSFORMS[step.op](step, table, raw_root)
        if note:
            notes.append(f"{label}: {note}")
    return table, notes
