"""A recipe's raw tables: found by name in the unpacked download, read from CSV or JSON, and
transformed, before the split reads them.

The split reads CSV tables as text. A raw table named by the recipe that is JSON (a list of
records, or one object of records: a row per entry, its key in column ``key``) or JSON lines
(``.jsonl``, or a ``.txt`` starting with "{") or tab-separated, or any table of a recipe with ``transforms``, is rewritten once into a
scratch folder as such a CSV (nested values as JSON text) and the split reads that instead;
other tables are read where they are, untouched. A recipe path naming a folder that holds one
file (``train.csv/train.csv``, as some unpacking tools leave it) means that file.
"""

from __future__ import annotations

import codecs
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from tambench.core.bounded import REPORT_BOUNDS, parse_json
from tambench.errors import SplitError
from tambench.schema.splitspec import SplitSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.rawcsv import polars_reason
from tambench.splits.transforms import apply_transforms

#: Suffixes read as JSON (a list of records) and as JSON lines.
JSON_SUFFIXES = frozenset({".json"})
JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
#: Suffixes read as tab-separated tables: unquoted, as Kaggle's .tsv files are mostly written,
#: unless the header's first field is quoted (stumbleupon's train.tsv quotes every field).
TSV_SUFFIXES = frozenset({".tsv"})
#: Suffixes read as Parquet tables (wsdm-cup-multilingual-chatbot-arena's train.parquet,
#: icecube's train_meta.parquet), every column as text.
PARQUET_SUFFIXES = frozenset({".parquet"})
#: Tables always rewritten as CSV before the split reads them.
REWRITTEN = JSON_SUFFIXES | JSONL_SUFFIXES | TSV_SUFFIXES | PARQUET_SUFFIXES
#: A table with this suffix is JSON lines when its first non-blank byte is "{" (biendata's
#: qa_train.txt), else CSV.
TXT_SUFFIXES = frozenset({".txt"})
#: The key of the training table built by a transform (``files_table``, ``ragged_table``).
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
                return rel or "(the table the recipe's first transform built)"
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


def named_tables(split: SplitSpec) -> frozenset[str]:
    """The raw paths of the tables the recipe reads (a gzipped one is unpacked for them)."""
    return frozenset(rel for rel, _, _ in _table_paths(split) if rel)


def _quoted_header(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(1) == b'"'


def _first_byte(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(64).lstrip()[:1]


def _json_lines_txt(path: Path) -> bool:
    """A ``.txt`` table holding JSON lines."""
    return path.suffix.lower() in TXT_SUFFIXES and _first_byte(path) == b"{"


def _read_text_frame(path: Path, label: str) -> pl.LazyFrame:
    """A raw table as a lazy frame of text columns (CSV, JSON records or lines, Parquet)."""
    suffix = ".jsonl" if _json_lines_txt(path) else path.suffix.lower()
    try:
        if suffix in PARQUET_SUFFIXES:
            schema = pl.read_parquet_schema(path)  # not a Parquet file: refused here, named
            if not any(dtype.is_nested() for dtype in schema.values()):
                return pl.scan_parquet(path).select(pl.all().cast(pl.String))
            frame = pl.read_parquet(path)  # nested values become JSON text below
        elif suffix in TSV_SUFFIXES:
            return pl.scan_csv(path, infer_schema=False, separator="\t",
                               quote_char='"' if _quoted_header(path) else None)
        elif suffix not in JSON_SUFFIXES | JSONL_SUFFIXES:
            return pl.scan_csv(path, infer_schema=False)
        else:
            frame = _read_json(path) if suffix in JSON_SUFFIXES else pl.read_ndjson(path)
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        raise SplitError(f"cannot read {label}: {polars_reason(exc)}") from exc
    return frame.with_columns([_as_text(frame, c) for c in frame.columns]).lazy()


#: The column holding each entry's key when a JSON object of records is read as a table.
KEY_COLUMN = "key"


def _read_json(path: Path) -> pl.DataFrame:
    """A ``.json`` table: a list of records, JSON lines under that name (Kaggle's
    stanford-covid-vaccine train.json), or one object of records (biendata's
    train_author.json: author id -> record), one row per entry with its key in ``key``."""
    if _first_byte(path) == b"[":
        return pl.read_json(path)
    keyed = _keyed_records(path)
    return keyed if keyed is not None else pl.read_ndjson(path)


def _keyed_records(path: Path) -> pl.DataFrame | None:
    """One JSON object whose every value is an object, as rows (None for JSON lines)."""
    try:
        doc = parse_json(path.read_bytes(), str(path), error=SplitError, bounds=REPORT_BOUNDS)
    except SplitError:
        return None  # several JSON values: JSON lines
    if not (isinstance(doc, dict) and doc and all(isinstance(v, dict) for v in doc.values())):
        return None
    if any(KEY_COLUMN in v for v in doc.values()):
        raise SplitError(f"{path.name}: its records have a field {KEY_COLUMN!r}, the column "
                         "that holds each entry's key")
    return pl.DataFrame([{KEY_COLUMN: k, **v} for k, v in doc.items()], infer_schema_length=None)


def _as_text(frame: pl.DataFrame, column: str) -> pl.Expr:
    dtype = frame.schema[column]
    if dtype.is_nested():
        return pl.col(column).map_elements(lambda v: json.dumps(_plain(v)),
                                           return_dtype=pl.String)
    return pl.col(column).cast(pl.String)


def _plain(value: object) -> object:
    return value.to_list() if isinstance(value, pl.Series) else value


def _as_utf8(path: Path, label: str, encoding: str, out: Path) -> Path:
    """``path`` decoded from ``encoding`` and written as UTF-8 to ``out``."""
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise SplitError(f"split.encoding {encoding!r} is not a known text encoding") from None
    try:
        with (open(path, encoding=encoding, newline="") as src,
              open(out, "w", encoding="utf-8", newline="") as dst):
            shutil.copyfileobj(src, dst, 1 << 20)
    except UnicodeDecodeError as exc:
        raise SplitError(f"{label} is not {encoding} text: {exc.reason} at byte "
                         f"{exc.start}") from None
    return out


def rewrite_tables(root: Path, split: SplitSpec, scratch: Path) -> RecipeTables:
    """Rewrite the tables that need it (JSON, or every table of a recipe with transforms)
    into ``scratch``; returns where they went and the transforms' notes."""
    tables = RecipeTables()
    steps = list(split.transforms)
    builds = bool(steps) and steps[0].builds_table
    if builds and split.train_file:
        raise SplitError(f"a recipe whose first transform is {steps[0].op} builds its "
                         f"training table: leave train_file empty (it is "
                         f"{split.train_file!r})")
    for i, (rel, what, is_train) in enumerate(_table_paths(split)):
        if is_train and builds:
            frame: pl.LazyFrame = pl.LazyFrame()
            label = f"the {steps[0].op} transform's table"
        elif rel:
            path = resolve_raw(root, rel, what)
            if not (steps or split.encoding or path.suffix.lower() in REWRITTEN
                    or _json_lines_txt(path)):
                continue
            label = rel
            if split.encoding:
                path = _as_utf8(path, rel, split.encoding, scratch / f"utf8-{i}{path.suffix}")
            frame = _read_text_frame(path, rel)
        else:
            continue  # the training table is found by the usual rule
        frame, notes = apply_transforms(steps if (is_train or not builds) else steps[1:],
                                        frame, root, label, required=is_train)
        out = scratch / f"table{i}.csv"
        try:
            frame.sink_csv(out)  # streamed: a table of pixels is never held whole
        except pl.exceptions.PolarsError as exc:
            raise SplitError(f"the recipe's transforms of {label} failed: "
                             f"{polars_reason(exc)}") from exc
        tables.derived[FILES_TABLE if (is_train and builds) else rel] = out
        tables.notes += notes
    return tables
