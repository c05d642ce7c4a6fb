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

from tambench._optional import require
from tambench.core.bounded import parse_json
from tambench.core.registry import Registry
from tambench.errors import SplitError
from tambench.schema.transforms import (
    TRANSFORM_MODELS,
    Aggregate,
    CombineInts,
    ComposeId,
    DropRows,
    Explode,
    FilesTable,
    GroupMembers,
    HashId,
    Join,
    JoinList,
    MapValues,
    OneHot,
    Pixels,
    Rename,
    RowNumber,
    SplitLast,
    SplitValues,
    Transform,
    Unpivot,
    UpdateRows,
)
from tambench.schema.transforms_tables import (
    Baseline,
    Bibliography,
    CocoTable,
    ConcatFiles,
    GroupRows,
    LinesTable,
    Merge,
    NpyRle,
    NpyTable,
    RaggedTable,
    RemoveWord,
)
from tambench.splits.bibliography import bibliography
from tambench.splits.layout import resolve_inside
from tambench.splits.rawcsv import open_table, polars_reason, scan_table
from tambench.splits.transforms_tables import (
    baseline,
    coco_table,
    group_rows,
    merge,
    npy_rle,
    npy_table,
)
from tambench.splits.transforms_text import lines_table, remove_word

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


def _concat_files(t: ConcatFiles, _table: pl.LazyFrame, raw_root: Path) -> Applied:
    files = _files_table(FilesTable(pattern=t.pattern), pl.LazyFrame(), raw_root)[0].collect()
    fields = [c for c in files.columns if c != "path"]
    parts, header = [], None
    for row in files.iter_rows(named=True):
        raw = open_table(resolve_inside(raw_root, row["path"], "concat_files file"),
                         row["path"])
        scan_table(raw)  # every row checked, as for any raw table
        try:
            frame = pl.read_csv(raw.path, infer_schema=False)
        except pl.exceptions.PolarsError as exc:
            raise SplitError(f"cannot read {row['path']}: {polars_reason(exc)}") from exc
        if header is None:
            header = frame.columns
        if frame.columns != header or set(fields) & set(header):
            raise SplitError(f"concat_files: {row['path']} has the columns {frame.columns[:20]}"
                             f"; every file needs {header[:20]}, none named as a field "
                             f"of {t.pattern!r}")
        parts.append(frame.with_columns([pl.lit(row[f]).alias(f) for f in fields]))
    rows = sum(p.height for p in parts)
    return (pl.concat(parts).lazy(),
            f"concat_files: {rows} row(s) of {len(parts)} file(s) matching {t.pattern!r}")


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
    if t.separator:  # an empty multi-label cell is the empty set
        labels = labels.list.eval(pl.element().filter(pl.element() != ""))
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


def _filled(template: str, cell: Callable[[pl.Expr], pl.Expr] = lambda c: c) -> pl.Expr:
    """Text of ``template`` with each ``{column}`` replaced by ``cell`` of that column."""
    parts: list[pl.Expr] = []
    for literal, name, _, _ in Formatter().parse(template):
        if literal:
            parts.append(pl.lit(literal))
        if name:
            parts.append(cell(pl.col(name).fill_null("")))
    return pl.concat_str(parts)


def _compose_id(t: ComposeId, table: pl.LazyFrame, _raw: Path) -> Applied:
    def cell(name: str) -> pl.Expr:
        value = pl.col(name).fill_null("")
        return pl.when(value == "").then(pl.lit(t.empty[name])).otherwise(value) \
            if name in t.empty else value

    parts: list[pl.Expr] = []
    for literal, name, _, _ in Formatter().parse(t.template):
        if literal:
            parts.append(pl.lit(literal))
        if name:
            parts.append(cell(name))
    return table.with_columns(pl.concat_str(parts).alias(t.column)), ""


def _hash_id(t: HashId, table: pl.LazyFrame, _raw: Path) -> Applied:
    salt = t.salt.encode()

    def digest(value: str) -> str:
        return hashlib.sha256(salt + b"\x00" + value.encode()).hexdigest()[:16]

    joined = pl.concat_str([pl.col(c).fill_null("") for c in t.columns], separator="\x1f")
    return table.with_columns(
        joined.map_elements(digest, return_dtype=pl.String).alias(t.column)), ""


def _row_number(t: RowNumber, table: pl.LazyFrame, _raw: Path) -> Applied:
    if t.column in table.collect_schema().names():
        raise SplitError(f"row_number: the table already has a column {t.column!r}")
    before, _, after = t.template.partition("{n}")
    number = pl.int_range(t.start, t.start + pl.len(), dtype=pl.Int64).cast(pl.String)
    return table.with_columns(pl.concat_str([pl.lit(before), number, pl.lit(after)])
                              .alias(t.column)), ""


def _split_values(t: SplitValues, table: pl.LazyFrame, _raw: Path) -> Applied:
    parts = pl.col(t.column).fill_null("").str.split(t.separator)
    bad = table.with_row_index("_row").filter(parts.list.len() != len(t.into)).select(
        "_row", pl.col(t.column)).head(3).collect()
    if bad.height:
        shown = [f"row {r}: {str(v)[:60]!r}" for r, v in bad.rows()]
        raise SplitError(f"split_values: column {t.column!r} must hold {len(t.into)} values "
                         f"joined by {t.separator!r}; it does not in {shown}")
    out = table.with_columns([parts.list.get(i).str.strip_chars().alias(name)
                              for i, name in enumerate(t.into)])
    return (out if t.keep else out.drop(t.column)), ""


def _join_list(t: JoinList, table: pl.LazyFrame, _raw: Path) -> Applied:
    def joined(text: str | None) -> str:
        items = _json_items(text, "join_list")
        if any(t.separator in item for item in items):
            raise SplitError(f"join_list: an item of column {t.column!r} holds the separator "
                             f"{t.separator!r}: {str(text)[:60]!r}")
        return t.separator.join(items)

    return table.with_columns(
        pl.col(t.column).map_elements(joined, return_dtype=pl.String)), ""


def _split_last(t: SplitLast, table: pl.LazyFrame, _raw: Path) -> Applied:
    if t.into in table.collect_schema().names():
        raise SplitError(f"split_last: the table already has a column {t.into!r}")
    empty = table.filter(pl.col(t.column).is_null() | (pl.col(t.column).str.strip_chars() == ""))
    blank = empty.select(pl.len()).collect().item()
    if blank:
        raise SplitError(f"split_last: {blank} row(s) have an empty {t.column!r}: no last item "
                         "to take (drop them first with drop_rows, rule 'empty')")
    items = pl.col(t.column).str.split(t.separator)
    return table.with_columns(items.list.last().str.strip_chars().alias(t.into),
                              items.list.head(items.list.len() - 1).list.join(t.separator)
                              .alias(t.column)), ""


def _update_rows(t: UpdateRows, table: pl.LazyFrame, raw_root: Path) -> Applied:
    path = resolve_inside(raw_root, t.file, "update_rows.file")
    if not path.is_file():
        raise SplitError(f"update_rows: {t.file!r} not found in the raw data")
    fixes = pl.read_csv(path, infer_schema=False)
    have = table.collect_schema().names()
    cols = [c for c in fixes.columns if c != t.key]
    unknown = [c for c in [t.key, *cols] if c not in have]
    if unknown or not cols:
        raise SplitError(f"update_rows: {t.file} has column(s) {unknown or fixes.columns} "
                         f"that do not match the table's {have[:20]} (key {t.key!r})")
    if fixes[t.key].is_duplicated().any():
        raise SplitError(f"update_rows: {t.file} corrects some {t.key!r} more than once")
    fixes = fixes.with_columns([pl.when(pl.col(c).str.strip_chars() != "").then(pl.col(c))
                                .alias(c) for c in cols])
    blank = fixes.filter(pl.all_horizontal([pl.col(c).is_null() for c in cols]))[t.key]
    fixed = fixes.filter(~pl.col(t.key).is_in(blank.implode()))
    before = table.select(pl.len()).collect().item()
    kept = table.filter(~pl.col(t.key).is_in(blank.implode()))
    dropped = before - kept.select(pl.len()).collect().item()
    changed = kept.join(fixed.lazy().select(t.key), on=t.key).select(pl.len()).collect().item()
    out = kept.update(fixed.lazy(), on=t.key, how="left")
    return out, (f"update_rows: {changed} row(s) corrected and {dropped} dropped "
                 f"(all-empty corrections) from {t.file}")


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


def _json_items(text: str | None, op: str = "explode") -> list[str]:
    try:
        items = parse_json(text, f"{op}'s cell", error=SplitError) if text else []
    except SplitError as exc:
        raise SplitError(f"{op}: a cell is not a JSON list: {str(text)[:60]!r}") from exc
    if not isinstance(items, list):
        raise SplitError(f"{op}: a cell is not a JSON list: {str(text)[:60]!r}")
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


def _ragged_lines(t: RaggedTable, raw_root: Path) -> list[tuple[int, list[str]]]:
    """(line number, fields) of the file's data lines; refuses blank lines inside it and
    bytes that are not UTF-8."""
    path = resolve_inside(raw_root, t.path, "ragged_table's path")
    if not path.is_file():
        raise SplitError(f"ragged_table: {t.path!r} not found in the raw data")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise SplitError(f"ragged_table: {t.path}, line {bad} is not UTF-8") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for n, text_line in enumerate(lines, start=1):
        if n == 1 and t.header:
            continue
        line = text_line.removesuffix("\r")
        if not line.strip():
            raise SplitError(f"ragged_table: {t.path}, line {n} is blank")
        out.append((n, line.split(",")))
    return out


def _ragged_table(t: RaggedTable, _table: pl.LazyFrame, raw_root: Path) -> Applied:
    k = len(t.columns)
    lines = _ragged_lines(t, raw_root)
    short = [n for n, fields in lines if len(fields) < k]
    if short:
        raise SplitError(f"ragged_table: {t.path}, line(s) {short[:5]} have fewer than {k} "
                         f"field(s) ({t.columns})")
    if not lines:
        raise SplitError(f"ragged_table: {t.path} has no data line")
    data = {c: [f[i] for _, f in lines] for i, c in enumerate(t.columns)}
    data[t.rest_column] = [t.separator.join(f[k:]) for _, f in lines]
    frame = pl.DataFrame(data, schema={c: pl.String for c in data})
    return frame.lazy(), f"ragged_table: {len(lines)} line(s) of {t.path}"


def _join(t: Join, table: pl.LazyFrame, raw_root: Path) -> Applied:
    path = resolve_inside(raw_root, t.file, "join's file")
    if not path.is_file():
        raise SplitError(f"join: {t.file!r} not found in the raw data")
    raw = open_table(path, t.file)
    missing = [c for c in [t.on, *t.columns] if c not in raw.columns]
    if missing:
        raise SplitError(f"join: {t.file} has no column(s) {missing} (it has {raw.columns[:20]})")
    clash = [c for c in t.columns if c in table.collect_schema().names()]
    if clash:
        raise SplitError(f"join: the table already has column(s) {clash}")
    scan_table(raw)  # every row checked, as for any raw table
    try:
        sep = "\t" if path.suffix.lower() == ".tsv" else ","
        other = pl.read_csv(path, infer_schema=False, columns=[t.on, *t.columns], separator=sep)
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {t.file}: {polars_reason(exc)}") from exc
    repeated = other.filter(pl.col(t.on).is_duplicated())[t.on].unique().head(5).to_list()
    if repeated:
        raise SplitError(f"join: key {t.on!r} repeats in {t.file}: {repeated}")
    joined = table.join(other.lazy().with_columns(pl.lit(True).alias("_joined")), on=t.on,
                        how="left", maintain_order="left")
    unmatched = joined.filter(pl.col("_joined").is_null()).select(t.on).head(5).collect()
    if unmatched.height:
        raise SplitError(f"join: {t.on} value(s) {unmatched[t.on].to_list()} have no line in "
                         f"{t.file}")
    return joined.drop("_joined"), f"join: {t.columns} from {t.file} by {t.on}"


def _combine_ints(t: CombineInts, table: pl.LazyFrame, _raw: Path) -> Applied:
    for c in t.terms:
        bad = table.filter(pl.col(c).str.strip_chars().cast(pl.Int64, strict=False).is_null()
                           ).select(c).unique().head(5).collect()[c].to_list()
        if bad:
            raise SplitError(f"combine_ints: column {c!r} holds {bad}, not integers")
    total = pl.sum_horizontal([pl.col(c).str.strip_chars().cast(pl.Int64) * f
                               for c, f in t.terms.items()])
    return table.with_columns(total.cast(pl.String).alias(t.column)), ""


def gray_pixels(path: Path, rel: str) -> Any:
    """The image at ``path`` as 8-bit gray levels (Pillow's ``L``), as float64."""
    image = require("PIL.Image", extra="images", feature="the pixels recipe transform")
    try:
        with image.open(path) as im:
            return np.asarray(im.convert("L"), dtype=np.float64)
    except (OSError, ValueError, image.DecompressionBombError) as exc:
        raise SplitError(f"pixels: cannot read the image {rel!r}: {exc}") from exc


def _pixels(t: Pixels, table: pl.LazyFrame, raw_root: Path) -> Applied:
    images = table.collect()
    parts: list[pl.LazyFrame] = []
    for row in images.iter_rows(named=True):
        rel = row[t.path_column] or ""
        path = resolve_inside(raw_root, rel, "pixels' image")
        if not path.is_file():
            raise SplitError(f"pixels: image {rel!r} not found in the raw data")
        gray = gray_pixels(path, rel)
        h, w = gray.shape
        ids: list[pl.Expr] = []
        for literal, name, _, _ in Formatter().parse(t.id_template):
            if literal:
                ids.append(pl.lit(literal))
            if name:
                ids.append(pl.col(f"_{name}").cast(pl.String) if name in ("row", "col")
                           else pl.lit(row[name] or ""))
        # numbers until the frame is written (streamed): the text is made batch by batch
        pixels = pl.LazyFrame({"_row": np.repeat(np.arange(1, h + 1, dtype=np.uint32), w),
                               "_col": np.tile(np.arange(1, w + 1, dtype=np.uint32), h),
                               "_value": gray.ravel() / t.scale})
        parts.append(pixels.select(
            *[pl.lit(v, dtype=pl.String).alias(c) for c, v in row.items()],
            pl.concat_str(ids).alias(t.id_column),
            pl.col("_value").cast(pl.String).alias(t.value_column)))
    if not parts:
        raise SplitError("pixels: the table has no image row")
    return pl.concat(parts), f"pixels: {len(parts)} image(s)"


def _group_members(t: GroupMembers, table: pl.LazyFrame, _raw: Path) -> Applied:
    if t.group_column == t.member_column:
        raise SplitError("group_members: the group and member columns must differ")
    members = pl.col(t.member_column).fill_null("").sort().str.join(" ")
    return table.with_columns(members.over(t.group_column).alias(t.column)), ""


_NUMBER_LIST = r"^\[\s*-?[0-9.eE+-]+(\s*,\s*-?[0-9.eE+-]+)*\s*\]$"


def _spelled(cell: pl.Expr) -> pl.Expr:
    """A cell holding a list of numbers ("[1.0, 2]") as its numbers separated by spaces."""
    spelled = cell.str.strip_chars("[] ").str.replace_all(r"\s*,\s*", " ")
    return pl.when(cell.str.contains(_NUMBER_LIST)).then(spelled).otherwise(cell)


def _aggregate(t: Aggregate, table: pl.LazyFrame, _raw: Path) -> Applied:
    item = _filled(t.template, _spelled).alias(t.column)
    uneven = [c for c in t.keep if table.group_by(t.key).agg(pl.col(c).n_unique() > 1)
              .filter(pl.col(c)).select(pl.len()).collect().item()]
    if uneven:
        raise SplitError(f"aggregate: column(s) {uneven} hold several values for one {t.key}")
    if t.skip_empty:
        item = item.filter(item.fill_null("") != "")
    out = table.group_by(t.key, maintain_order=True).agg(
        *[pl.col(c).first() for c in t.keep], item.str.join(t.separator))
    return out, f"aggregate: one row per {t.key}"


register_transform(FilesTable, _files_table)
register_transform(OneHot, _one_hot)
register_transform(Rename, _rename)
register_transform(ComposeId, _compose_id)
register_transform(HashId, _hash_id)
register_transform(RowNumber, _row_number)
register_transform(SplitLast, _split_last)
register_transform(UpdateRows, _update_rows)
register_transform(MapValues, _map_values)
register_transform(Unpivot, _unpivot)
register_transform(Explode, _explode)
register_transform(DropRows, _drop_rows)
register_transform(RaggedTable, _ragged_table)
register_transform(Join, _join)
register_transform(CombineInts, _combine_ints)
register_transform(Pixels, _pixels)
register_transform(GroupMembers, _group_members)
register_transform(Aggregate, _aggregate)
register_transform(SplitValues, _split_values)
register_transform(JoinList, _join_list)
register_transform(Bibliography, bibliography)
register_transform(LinesTable, lines_table)
register_transform(RemoveWord, remove_word)
register_transform(CocoTable, coco_table)
register_transform(NpyTable, npy_table)
register_transform(GroupRows, group_rows)
register_transform(Merge, merge)
register_transform(Baseline, baseline)
register_transform(ConcatFiles, _concat_files)
register_transform(NpyRle, npy_rle)


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

