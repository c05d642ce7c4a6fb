"""The first pass over a table: ids and key columns, checked, kept as hashes and small codes.

Only the columns that decide the split are read (the id, the targets, the group, time or
holdout column, the submission header's columns, per-row file fields). Ids become 64-bit
stable hashes and the other columns small integer codes, so memory grows by a few bytes per
row whatever the length of the values.

A table without quote characters is read a block of whole lines at a time: one block is
checked (field counts, blank lines, UTF-8) and its key fields located
(:mod:`tambench.splits.plainblock`) on a helper thread while the caller codes the previous one. A quote character anywhere sends the table to the quote-aware path: the whole
table is checked by :func:`tambench.splits.rawcsv.scan_table`, then parsed in batches.
Every id must be present and unique, and every target cell must hold a label.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from io import BufferedReader
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from tambench.errors import SplitError
from tambench.splits.hashing import stable_hash
from tambench.splits.plainblock import block_fields
from tambench.splits.rawcsv import (
    RawTable,
    describe_rows,
    empty_label_values,
    plain_block_problems,
    polars_reason,
    scan_table,
)

#: Rows per batch on the quote-aware path.
BATCH_ROWS = 250_000
#: Bytes of a quote-free table parsed per step.
KEY_BLOCK_BYTES = 1 << 23
#: Helper threads reading the blocks of a quote-free table.
KEY_PARSERS = 2


def _code_dtype(k: int) -> type[np.signedinteger[Any]]:
    for dtype in (np.int8, np.int16, np.int32):
        if k < np.iinfo(dtype).max:
            return dtype
    return np.int64


@dataclass
class CodedColumn:
    """A text column kept as one small integer per row instead of its strings."""

    values: pl.Series
    """The distinct values (missing excluded), sorted as polars sorts strings."""
    codes: np.ndarray
    """Per row: the index of its value in ``values``, or -1 where the value is missing."""
    nulls: int = 0
    """How many rows have no value."""

    def counts(self, rows: np.ndarray) -> tuple[np.ndarray, int]:
        """Rows per value among the rows selected by the boolean ``rows``; and missing rows."""
        shifted = self.codes[rows].astype(np.int64)
        shifted += 1
        per = np.bincount(shifted, minlength=len(self.values) + 1)
        return per[1:], int(per[0])

    def rows_of(self, value_indices: np.ndarray, missing: bool = False) -> np.ndarray:
        """Rows whose value is one of ``value_indices`` (and missing rows if ``missing``)."""
        hit = np.isin(self.codes, value_indices)
        if missing:
            hit |= self.codes < 0
        return np.flatnonzero(hit)


#: One batch of a column coded on its own: its distinct values, each row's index among them
#: (-1 where the value is missing), and how many rows miss it.
LocalCodes = tuple[pl.Series, np.ndarray, int]


def local_codes(values: pa.Array) -> LocalCodes:
    """Code one batch of values on its own (:data:`LocalCodes`)."""
    encoded = pc.dictionary_encode(values)
    indices = encoded.indices  # int32; a missing value has no index
    data = indices.buffers()[1]
    local = np.frombuffer(data, dtype=np.int32)[
        indices.offset : indices.offset + len(indices)] if data else np.zeros(0, np.int32)
    if indices.null_count:
        # Not fill_null(-1): pyarrow turns the -1 into a scalar, which imports pandas.
        local = np.where(indices.is_valid().to_numpy(zero_copy_only=False), local, -1)
    return pl.Series(encoded.dictionary, dtype=pl.String), local, values.null_count


class CodeBuilder:
    """Collects one column batch by batch; codes are merged once every value has been seen."""

    def __init__(self) -> None:
        self.nulls = 0
        self.parts: list[tuple[pl.Series, np.ndarray]] = []

    def add(self, values: pa.Array | LocalCodes) -> None:
        """Code one batch of values (or take it coded by :func:`local_codes`)."""
        dictionary, local, nulls = values if isinstance(values, tuple) else local_codes(values)
        self.nulls += nulls
        self.parts.append((dictionary, local))

    def build(self) -> CodedColumn:
        """Merge the batches' codes into one :class:`CodedColumn`."""
        if self.parts:
            values = pl.concat([d for d, _ in self.parts]).unique().sort()
        else:
            values = pl.Series([], dtype=pl.String)
        dtype = _code_dtype(values.len())
        codes = np.empty(sum(len(c) for _, c in self.parts), dtype=dtype)
        pos = 0
        for local_values, local in self.parts:
            # remap[-1] is -1, so a missing value (local code -1) stays missing.
            remap = np.append(values.search_sorted(local_values).to_numpy(), -1).astype(dtype)
            codes[pos : pos + len(local)] = remap[local]
            pos += len(local)
        self.parts = []
        return CodedColumn(values, codes, self.nulls)


@dataclass
class KeyPass:
    """What the first pass keeps of a table: id hashes and codes, never whole text columns."""

    table: RawTable
    rows: int
    """Rows of the table."""
    id_hashes: np.ndarray
    """Stable hash of every row's id (salted with the seed)."""
    coded: dict[str, CodedColumn]
    """Every key column but the id, by name."""
    plain: bool = True
    """True when the table has no quote character: one row per line."""
    file_keys: pl.DataFrame | None = None
    """Per-row files: the id and file pattern columns, as text."""
    missing_ids: list[int] = field(default_factory=list)
    """Rows (0-based) without an id."""
    line_ends: np.ndarray | None = None
    """For a quote-free table: the file offset of each row's line end (the end of the rows
    for a last line without one), so that the second pass need not search for them."""

    def column(self, name: str) -> CodedColumn:
        """The codes of a key column (an internal error if the pass did not read it)."""
        try:
            return self.coded[name]
        except KeyError:
            raise SplitError(f"internal: the first pass did not read column {name!r}") from None


def read_keys(table: RawTable, id_column: str, coded: Sequence[str], seed: int,
              file_fields: Sequence[str] | None = None) -> KeyPass:
    """First pass: check and read the key columns of ``table``; keep hashes and codes.

    ``file_fields`` (not None) keeps the id and those columns as text, for per-row files.

    Raises :class:`SplitError`, naming the file and lines, for rows that do not fit the
    header, missing or duplicated ids.
    """
    cols = list(dict.fromkeys(c for c in [id_column, *coded, *(file_fields or [])] if c))
    salt = str(seed)
    work = _BlockWork(cols, id_column, salt, list(coded))
    keys = _collect(table, _plain_batches(table, work), id_column, coded, file_fields, salt)
    if keys is None:  # a quote character: check every row, then parse in batches
        rows = scan_table(table).rows
        batches = (Batch({c: df[c].to_arrow() for c in cols})
                   for df in _parsed_batches(table, cols, rows))
        keys = _collect(table, batches, id_column, coded, file_fields, salt)
        if keys is None:
            raise SplitError(f"internal: the batched read of {table.label} gave up")
        keys.plain = False
    if keys.missing_ids:
        rows_ = np.asarray(keys.missing_ids)
        raise SplitError(f"{table.label}: {rows_.size} row(s) have no value in id column "
                         f"{id_column!r} ({describe_rows(table, rows_, keys.plain)})")
    _check_unique_ids(table, id_column, keys, salt)
    return keys


def check_labels(keys: KeyPass, targets: Sequence[str]) -> None:
    """Refuse rows whose target cell is empty, blank or NaN: they cannot be answers."""
    for col in targets:
        coded = keys.coded.get(col)
        if coded is None:
            continue
        rows = coded.rows_of(empty_label_values(coded.values), missing=True)
        if rows.size:
            raise SplitError(
                f"{keys.table.label}: target column {col!r} has no label in {rows.size} row(s) "
                f"({describe_rows(keys.table, rows, keys.plain)}): empty cells and NaN cannot "
                "be scored; fill them in or remove those rows from the raw data")


@dataclass
class Batch:
    """One batch of the first pass."""

    columns: dict[str, pa.Array]
    """Column name -> its values, in row order."""
    line_ends: np.ndarray | None = None
    """File offset of each row's line end (quote-free blocks)."""
    id_hashes: np.ndarray | None = None
    """The stable hashes of the ids when every row has one (quote-free blocks)."""
    coded: dict[str, LocalCodes] = field(default_factory=dict)
    """Columns already coded on their own (quote-free blocks)."""


def _collect(table: RawTable, batches: Iterator[Batch | None], id_column: str,
             coded: Sequence[str], file_fields: Sequence[str] | None,
             salt: str) -> KeyPass | None:
    builders = {c: CodeBuilder() for c in coded}  # the id too where a strategy keys on it
    hashes: list[np.ndarray] = []
    files: list[pl.DataFrame] = []
    missing: list[int] = []
    ends: list[np.ndarray] | None = []
    pos = 0
    for found in batches:
        if found is None:  # the quote-free reader met a quote: start again
            return None
        batch = found.columns
        ends = None if ends is None or found.line_ends is None else [*ends, found.line_ends]
        ids = batch[id_column]
        if ids.null_count:
            missing += (np.flatnonzero(ids.is_null().to_numpy(zero_copy_only=False))
                        + pos).tolist()
        elif not missing:
            hashes.append(found.id_hashes if found.id_hashes is not None
                          else stable_hash(ids, salt))
        for c, b in builders.items():
            b.add(found.coded.get(c, batch[c]))
        if file_fields is not None:
            names = list(dict.fromkeys([id_column, *file_fields]))
            files.append(pl.DataFrame([pl.Series(c, batch[c], dtype=pl.String) for c in names]))
        pos += len(ids)
    return KeyPass(
        table=table,
        rows=pos,
        id_hashes=np.concatenate(hashes) if hashes and not missing else np.zeros(
            0, dtype=np.uint64),
        coded={c: b.build() for c, b in builders.items()},
        file_keys=pl.concat(files) if files else None,
        missing_ids=missing,
        line_ends=None if ends is None else np.concatenate([np.zeros(0, np.int64), *ends]),
    )


class _BadLines(Exception):
    """A block of a quote-free table has lines that do not fit its header."""


@dataclass(frozen=True)
class _BlockWork:
    """What the helper threads do with a block of a quote-free table."""

    cols: list[str]
    """The columns read."""
    id_column: str
    salt: str
    """The salt of the id hashes."""
    coded: list[str]
    """The columns coded."""


def _plain_batches(table: RawTable, work: _BlockWork) -> Iterator[Batch | None]:
    """The columns ``work.cols`` of a quote-free table in row order, a block of lines at a time.

    Without quote characters every row is one line, so reading blocks of whole lines reads
    exactly what reading the table whole reads. :data:`KEY_PARSERS` blocks are checked and
    read on helper threads while the caller uses the previous one, and no further block is
    read until then, which bounds memory. Yields None and stops at the first quote character
    (a quoted field may span lines). The helpers also hash the ids and code the coded
    columns of their blocks.
    """
    try:
        with (open(table.path, "rb") as src,
              ThreadPoolExecutor(max_workers=KEY_PARSERS) as parser):
            src.seek(table.data_start)
            pending: deque[Future[Batch]] = deque()
            start = table.data_start
            for data in _raw_line_blocks(src, table):
                if data is None:
                    yield None
                    return
                pending.append(parser.submit(_parse_block, table, data, work, start))
                start += len(data)
                if len(pending) > KEY_PARSERS:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
    except _BadLines as exc:
        scan_table(table)  # raises with every bad line numbered
        raise SplitError(f"cannot read {table.label}: {exc}") from None


def _raw_line_blocks(src: BufferedReader, table: RawTable) -> Iterator[bytearray | None]:
    """Blocks of whole lines up to the end of the rows (at least one, possibly empty), each
    in a buffer of its own; None at a quote character."""
    if b'"' in table.header:
        yield None
        return
    left = table.data_end - table.data_start
    carry = b""
    blocks = 0
    while True:
        want = min(KEY_BLOCK_BYTES, left)
        data = bytearray(len(carry) + want)
        data[: len(carry)] = carry
        got = src.readinto(memoryview(data)[len(carry):]) if want else 0
        left -= got
        del data[len(carry) + got:]
        if b'"' in data:
            yield None
            return
        carry = b""
        if got:
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # no line end yet: read on
                carry = bytes(data)
                continue
            carry = bytes(data[cut:])
            del data[cut:]
        if data or blocks == 0:  # a header-only table still yields its empty columns
            yield data
            blocks += 1
        if not got:
            return


def _parse_block(table: RawTable, data: bytearray, work: _BlockWork, start: int) -> Batch:
    """The columns ``work.cols`` of a block of whole lines starting at file offset ``start``;
    the hashes of its ids when none is missing, its coded columns coded."""
    cols = work.cols
    found = block_fields(data, table.n_fields, [table.columns.index(c) for c in cols])
    if found is not None:
        columns = dict(zip(cols, found.fields, strict=True))
        ids = columns[work.id_column]
        return Batch(columns, found.ends + start,
                     None if ids.null_count else stable_hash(ids, work.salt),
                     {c: local_codes(columns[c]) for c in work.coded})
    bad, _, _ = plain_block_problems(data, table.n_fields)
    if bad.size:
        raise _BadLines(f"{bad.size} line(s) do not have {table.n_fields} fields")
    try:  # not UTF-8: the parser's reason
        df = pl.read_csv(table.header + data, infer_schema=False, columns=cols)
    except pl.exceptions.PolarsError as exc:
        raise _BadLines(polars_reason(exc)) from exc
    return Batch({c: df[c].to_arrow() for c in cols})


def _parsed_batches(table: RawTable, cols: list[str], rows: int) -> Iterator[pl.DataFrame]:
    """The columns ``cols`` of a checked table in row order, :data:`BATCH_ROWS` at a time."""
    lf = pl.scan_csv(table.path, infer_schema=False).select(cols).head(rows)
    try:
        it = iter(lf.collect_batches(chunk_size=BATCH_ROWS))
        while True:
            try:
                yield next(it)
            except StopIteration:
                return
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {table.label}: {polars_reason(exc)}") from exc


def _check_unique_ids(table: RawTable, id_col: str, keys: KeyPass, salt: str) -> None:
    """Raise on duplicated ids. Equal ids have equal hashes, so only rows sharing a hash are
    read again (normally none): far cheaper than a hash table of every id string."""
    s = np.sort(keys.id_hashes)  # numpy, not a hash table: polars' allocator would keep it
    same = s[1:] == s[:-1]
    if not same.any():
        return
    wanted = np.unique(s[1:][same])
    del s, same
    parts = []
    rows_seen = 0
    for batch in _parsed_batches(table, [id_col], keys.rows):
        ids = batch[id_col]
        hit = np.isin(stable_hash(ids.to_arrow(), salt), wanted)
        parts.append(pl.DataFrame({"id": ids.filter(pl.Series(hit)),
                                   "row": np.flatnonzero(hit) + rows_seen}))
        rows_seen += batch.height
    found = pl.concat(parts)
    dup = found.filter(pl.col("id").is_duplicated())
    if dup.height:
        values = dup["id"].unique(maintain_order=True)
        raise SplitError(
            f"{table.label}: id column {id_col!r} has {values.len()} duplicated value(s), e.g. "
            f"{values.head(5).to_list()} ({describe_rows(table, dup['row'].to_numpy(), keys.plain)}); "
            "ids must be unique")
