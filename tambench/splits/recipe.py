"""A recipe's raw tables: found by name in the unpacked download, read from CSV or JSON, and
transformed, before the split reads them.

The split reads CSV tables as text. A raw table named by the recipe that is JSON (a list of
records) or JSON lines or tab-separated, or any table of a recipe with ``transforms``, is rewritten once into a
scratch folder as such a CSV (nested values as JSON text) and the split reads that instead;
other tables are read where they are, untouched. A recipe path naming a folder that holds one
file (``train.csv/train.csv``, as some unpacking tools leave it) means that file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from tambench.errors import SplitError
from tambench.schema.splitspec import SplitSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.rawcsv import polars_reason
from tambench.splits.transforms import apply_transforms

#: Suffixes read as JSON (a list of records) and as JSON lines.
JSON_SUFFIXES = frozenset({".json"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
#: Suffixes read as tab-separated tables (no quoting, as Kaggle's .tsv files are written).
TSV_SUFFIXES = frozenset({".tsv"})
#: Suffixes read as Parquet tables (icecube's train_meta.parquet), every column as text.
PARQUET_SUFFIXES = frozenset({".parquet"})
#: Tables always rewritten as CSV before the split reads them.
REWRITTEN = JSON_SUFFIXES | JSONL_SUFFIXES | TSV_SUFFIXES | PARQUET_SUFFIXES
#: The key of the training table built by a ``files_table`` transform.
FILES_TABLE = ""


@dataclass
class RecipeTables:
    """Tables the recipe rewrote: recipe path -> the CSV the split reads, and the notes."""

    derived: dict[str, Path] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def name_of(self, path: Path) -> str | None:
        """The recipe path of a rewritten table (None for a raw file)."""
        for rel, p in self.derived.items():
            if p == path:
                return rel or "(the files_table transform's table)"
        return None


def resolve_raw(root: Path, rel: str, what: str, tables: RecipeTables | None = None) -> Path:
    """The raw file a recipe names (or its rewritten table); a folder holding exactly one file
    stands for that file; refuses paths that leave the raw data."""
    if tables is not None and rel in tables.derived:
        return tables.derived[rel]
    p = resolve_inside(root, rel, what)
    if p.is_dir():
        inner = [c for c in p.iterdir() if not c.name.startswith(".")]
        if len(inner) == 1 and inner[0].is_file():
            p = inner[0]
    if not p.is_file():
        raise SplitError(f"{what} {rel!r} not found in the raw data")
    return p


def _table_paths(split: SplitSpec) -> list[tuple[str, str, bool]]:
    """(recipe path, what it is, is the training table) of every table the split reads."""
    out = [(split.train_file, "split.train_file", True)]
    for name in ("holdout_file", "official_test_file", "official_answers_file"):
        rel = getattr(split, name, "")
        if rel:
            out.append((rel, f"split.{name}", False))
    return out


def _read_text_frame(path: Path, label: str) -> pl.LazyFrame:
    """A raw table as a lazy frame of text columns (CSV, TSV, JSON records, JSON lines or
    Parquet)."""
    suffix = path.suffix.lower()
    try:
        if suffix in PARQUET_SUFFIXES:
            pl.read_parquet_schema(path)  # not a Parquet file: refused here, named
            return pl.scan_parquet(path).select(pl.all().cast(pl.String))
        if suffix in TSV_SUFFIXES:
            return pl.scan_csv(path, infer_schema=False, separator="\t", quote_char=None)
        if suffix not in JSON_SUFFIXES | JSONL_SUFFIXES:
            return pl.scan_csv(path, infer_schema=False)
        frame = _read_json(path) if suffix in JSON_SUFFIXES else pl.read_ndjson(path)
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        raise SplitError(f"cannot read {label}: {polars_reason(exc)}") from exc
    return frame.with_columns([_as_text(frame, c) for c in frame.columns]).lazy()


def _read_json(path: Path) -> pl.DataFrame:
    """A ``.json`` table: a list of records, or JSON lines under that name (Kaggle's
    stanford-covid-vaccine train.json)."""
    with open(path, "rb") as fh:
        first = fh.read(64).lstrip()[:1]
    return pl.read_json(path) if first == b"[" else pl.read_ndjson(path)


def _as_text(frame: pl.DataFrame, column: str) -> pl.Expr:
    dtype = frame.schema[column]
    if dtype.is_nested():
        return pl.col(column).map_elements(lambda v: json.dumps(_plain(v)),
                                           return_dtype=pl.String)
    return pl.col(column).cast(pl.String)


def _plain(value: object) -> object:
    return value.to_list() if isinstance(value, pl.Series) else value


def rewrite_tables(root: Path, split: SplitSpec, scratch: Path) -> RecipeTables:
    """Rewrite the tables that need it (JSON, or every table of a recipe with transforms)
    into ``scratch``; returns where they went and the transforms' notes."""
    tables = RecipeTables()
    steps = list(split.transforms)
    builds = bool(steps) and steps[0].builds_table
    if builds and split.train_file:
        raise SplitError(f"a recipe whose first transform is {steps[0].op} builds its training "
                         f"table: leave train_file empty (it is "
                         f"{split.train_file!r})")
    for i, (rel, what, is_train) in enumerate(_table_paths(split)):
        if is_train and builds:
            frame: pl.LazyFrame = pl.LazyFrame()
            label = f"the {steps[0].op} transform's table"
        elif rel:
            path = resolve_raw(root, rel, what)
            if not (steps or path.suffix.lower() in REWRITTEN):
                continue
            label = rel
            frame = _read_text_frame(path, rel)
        else:
            continue  # the training table is found by the usual rule
        frame, notes = apply_transforms(steps if (is_train or not builds) else steps[1:],
                                        frame, root, label, required=is_train)
        out = scratch / f"table{i}.csv"
        try:
            frame.collect(engine="streaming").write_csv(out)
        except pl.exceptions.PolarsError as exc:
            raise SplitError(f"the recipe's transforms of {label} failed: "
                             f"{polars_reason(exc)}") from exc
        tables.derived[FILES_TABLE if (is_train and builds) else rel] = out
        tables.notes += notes
    return tables
