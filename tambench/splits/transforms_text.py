"""Recipe transforms of plain text: ``lines_table`` (a table from a file of one record a line)
and ``remove_word`` (a text with one inner word removed). The models and their rules are in
:mod:`tambench.schema.transforms_tables`; registered by :mod:`tambench.splits.transforms`."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl

from tambench.errors import SplitError
from tambench.schema.transforms_tables import LinesTable, RemoveWord
from tambench.splits.layout import resolve_inside

Applied = tuple[pl.LazyFrame, str]

#: A field separator no text line holds: each line is read whole as one field.
_NO_SEPARATOR = "\x1f"


def lines_table(t: LinesTable, _table: pl.LazyFrame, raw_root: Path) -> Applied:
    """One row per line of the file (see the model)."""
    path = resolve_inside(raw_root, t.path, "lines_table's path")
    if not path.is_file():
        raise SplitError(f"lines_table: {t.path!r} not found in the raw data")
    lines = pl.scan_csv(path, has_header=False, separator=_NO_SEPARATOR, quote_char=None,
                        schema={t.column: pl.String}, raise_if_empty=False)
    try:
        checked = lines.select(pl.len().alias("rows"),
                               pl.col(t.column).is_null().arg_true().first().alias("blank"),
                               ).collect()
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"lines_table: {t.path!r} cannot be read as one text a line "
                         f"(bytes that are not UTF-8, or a {_NO_SEPARATOR!r} character): "
                         f"{str(exc).splitlines()[0]}") from None
    rows, blank = checked["rows"][0], checked["blank"][0]
    if blank is not None:
        raise SplitError(f"lines_table: {t.path}, line {blank + 1} is blank")
    if not rows:
        raise SplitError(f"lines_table: {t.path} has no line")
    return lines, f"lines_table: {rows} line(s) of {t.path}"


def _cut(row: dict[str, str | None], t: RemoveWord) -> str | None:
    words = (row[t.column] or "").split()
    if len(words) < 3:
        return None
    digest = hashlib.sha256(f"{t.salt}\x00{row[t.id_column]}".encode()).digest()
    drop = 1 + int.from_bytes(digest[:8], "big") % (len(words) - 2)
    return " ".join(words[:drop] + words[drop + 1:])


def remove_word(t: RemoveWord, table: pl.LazyFrame, _raw: Path) -> Applied:
    """The text with one inner word removed, in a new column (see the model)."""
    if t.into in table.collect_schema().names():
        raise SplitError(f"remove_word: the table already has a column {t.into!r}")
    cut = (pl.struct(t.column, t.id_column)
           .map_elements(lambda r: _cut(r, t), return_dtype=pl.String).alias(t.into))
    out = table.with_columns(cut)
    short = out.select(pl.col(t.into).is_null().sum()).collect().item()
    return (out.drop_nulls(t.into),
            f"remove_word: {short} row(s) with fewer than three words in {t.column!r} "
            "dropped (no inner word to remove)")
