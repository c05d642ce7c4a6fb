"""Turn a competition's raw training data into a public/private split (see :mod:`.layout`).

Tables are streamed: a first pass reads only the key columns (id, targets, group, time...) to
decide which rows are test rows; a second pass reads the table in batches and writes each
row to train or test. Only the test rows (a ``test_size`` share) are held in memory, to write
them in their final order. Every value is read and written as text, so ids such as ``007``
and numbers such as ``1.50`` keep their exact spelling.

Outputs are written into a staging folder next to the task folder and moved into place only
when complete, so an interrupted run never leaves a half-written task behind.
"""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from string import Formatter
from typing import Any, BinaryIO

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from tambench.errors import (
    LeakageError,
    SourceError,
    SplitError,
    TambenchError,
)
from tambench.schema.taskspec import TaskSpec
from tambench.splits.assign import (
    assign_groups,
    assign_random,
    assign_stratified,
    assign_time,
)
from tambench.splits.checksums import (
    CHECKSUMS_FILE,
    ChecksumDiff,
    diff_checksums,
    ensure_checksums,
    read_checksums,
    write_checksums,
)
from tambench.splits.hashing import stable_hash
from tambench.splits.layout import (
    MANIFEST_FILE,
    PRIVATE_DIR,
    PUBLIC_DIR,
    REPORT_FILE,
    RESERVED_PUBLIC,
    SAMPLE_FILE,
    TEST_FILE,
    TEST_FILES_DIR,
    TRAIN_FILE,
    TRAIN_FILES_DIR,
    SplitPlan,
    load_grader,
    plan_split,
    resolve_inside,
    safe_relpath,
    task_dir,
)
from tambench.splits.sources import KaggleSource, RawSource, open_source

#: Rows per streamed batch: small enough to bound memory, large enough to amortise overhead.
BATCH_ROWS = 250_000
#: At most this many classes are listed in a report's class balance.
MAX_BALANCE_CLASSES = 50
_MISSING = "\x00<missing>"


# --- reading ---------------------------------------------------------------------------------


def scan_table(path: Path) -> pl.LazyFrame:
    """A lazy CSV scan with every column read as text (no type inference, exact spelling)."""
    return pl.scan_csv(path, infer_schema=False)


def table_columns(path: Path) -> list[str]:
    """Header of a CSV table."""
    try:
        return scan_table(path).collect_schema().names()
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read the header of {path.name}: {exc}") from exc


def _collect(lf: pl.LazyFrame, what: str) -> pl.DataFrame:
    try:
        return lf.collect(engine="streaming")
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {what}: {exc}") from exc


def _require_columns(have: Sequence[str], need: Sequence[str], where: str) -> None:
    missing = [c for c in need if c and c not in have]
    if missing:
        raise SplitError(f"{where} lacks column(s) {missing}; it has {list(have)}")


def find_train_table(raw_root: Path, plan: SplitPlan) -> Path:
    """The table to split: ``split.train_file``, else the only CSV, else the only train.csv."""
    if plan.split.train_file:
        return _raw_file(raw_root, plan.split.train_file, "split.train_file")
    csvs = sorted(p for p in raw_root.rglob("*.csv") if p.is_file())
    if len(csvs) == 1:
        return csvs[0]
    named = [p for p in csvs if p.name == "train.csv"]
    if len(named) == 1:
        return named[0]
    found = [p.relative_to(raw_root).as_posix() for p in csvs[:20]]
    raise SplitError(
        f"cannot tell which table to split in {raw_root}: set split.train_file "
        f"(CSV files found: {found or 'none'})"
    )


def _raw_file(raw_root: Path, rel: str, what: str) -> Path:
    p = resolve_inside(raw_root, rel, what)
    if not p.is_file():
        raise SplitError(f"{what} {rel!r} not found in the raw data ({raw_root})")
    return p


# --- assignment ------------------------------------------------------------------------------


def _batches(lf: pl.LazyFrame, what: str) -> Iterator[pl.DataFrame]:
    """The rows of ``lf`` in order, :data:`BATCH_ROWS` at a time; read errors name ``what``."""
    try:
        it = iter(lf.collect_batches(chunk_size=BATCH_ROWS))
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {what}: {exc}") from exc
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except pl.exceptions.PolarsError as exc:
            raise SplitError(f"cannot read {what}: {exc}") from exc
        yield batch


def _report_duplicates(ids: pl.Series, where: str) -> None:
    dup = ids.filter(ids.is_duplicated()).unique(maintain_order=True)
    if dup.len():
        raise SplitError(
            f"{where}: id column {ids.name!r} has {dup.len()} duplicated value(s), e.g. "
            f"{dup.head(5).to_list()}; ids must be unique"
        )


def _check_ids(ids: pl.Series, where: str) -> None:
    nulls = ids.null_count()
    if nulls:
        raise SplitError(f"{where}: {nulls} row(s) have no value in id column {ids.name!r}")
    _report_duplicates(ids, where)


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


class _CodeBuilder:
    """Collects one column batch by batch; codes are merged once every value has been seen."""

    def __init__(self, fill: str | None = None) -> None:
        self.fill = fill
        self.nulls = 0
        self.parts: list[tuple[pl.Series, np.ndarray]] = []

    def add(self, values: pl.Series) -> None:
        self.nulls += values.null_count()
        if self.fill is not None:
            values = values.fill_null(self.fill)
        encoded = pc.dictionary_encode(values.to_arrow())
        local = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        self.parts.append((pl.Series(encoded.dictionary, dtype=pl.String), local))

    def build(self) -> CodedColumn:
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

    id_hashes: np.ndarray
    """Stable hash of every row's id (salted with the seed)."""
    coded: dict[str, CodedColumn]
    """Target (and other submission) columns, for placeholders and class balance."""
    strata: CodedColumn | None = None
    group: CodedColumn | None = None
    time: CodedColumn | None = None
    time_head: list[str] = field(default_factory=list)
    """The time column's first values, for error messages and date format inference."""
    holdout: np.ndarray | None = None
    file_keys: pl.DataFrame | None = None
    """files strategy: the id and file pattern columns, as text."""


def read_keys(table: Path, plan: SplitPlan, strategy: str, coded: Sequence[str]) -> KeyPass:
    """First pass: stream the key columns of ``table`` in batches, keeping hashes and codes.

    Ids become their 64-bit stable hashes and the stratify, group, time and ``coded`` columns
    become small integer codes, so memory grows by a few bytes per row whatever the length of
    the values.
    """
    s = plan.split
    salt = str(s.seed)
    id_col = plan.id_column
    group_col = s.group_column if strategy == "group" else ""
    time_col = s.time_column if strategy == "time" else ""
    holdout_col = s.holdout_column if strategy == "holdout" else ""
    fields = ([f for f in pattern_fields(s.file_id_pattern) if f != "id"]
              if s.strategy == "files" else [])
    strata_cols = plan.stratify_columns if strategy == "stratified" else []
    cols = list(dict.fromkeys(c for c in [id_col, group_col, time_col, holdout_col, *strata_cols,
                                          *coded, *fields] if c))
    what = f"table {table.name}"

    def collect(batches: Iterator[pl.DataFrame | None]) -> KeyPass | None:
        builders = {c: _CodeBuilder() for c in coded}
        strata = _CodeBuilder(_MISSING) if strata_cols else None
        group = _CodeBuilder(_MISSING) if group_col else None
        time = _CodeBuilder() if time_col else None
        time_head: list[str] = []
        holdout: list[np.ndarray] = []
        hashes: list[np.ndarray] = []
        files: list[pl.DataFrame] = []
        id_nulls = 0
        for batch in batches:
            if batch is None:  # the quote-free reader gave up: start again
                return None
            ids = batch[id_col]
            id_nulls += ids.null_count()
            if not id_nulls:
                hashes.append(stable_hash(ids.to_arrow(), salt))
            for c, b in builders.items():
                b.add(batch[c])
            if strata is not None:
                strata.add(_strata(batch, strata_cols))
            if group is not None:
                group.add(batch[group_col])
            if time is not None:
                if len(time_head) < 3:
                    time_head += batch[time_col].head(3 - len(time_head)).to_list()
                time.add(batch[time_col])
            if holdout_col:
                holdout.append((batch[holdout_col] == s.holdout).fill_null(False).to_numpy())
            if s.strategy == "files":
                files.append(batch.select(list(dict.fromkeys([id_col, *fields]))))
        if id_nulls:
            raise SplitError(f"the table to split: {id_nulls} row(s) have no value in id column "
                             f"{id_col!r}")
        return KeyPass(
            id_hashes=np.concatenate(hashes) if hashes else np.zeros(0, dtype=np.uint64),
            coded={c: b.build() for c, b in builders.items()},
            strata=strata.build() if strata is not None else None,
            group=group.build() if group is not None else None,
            time=time.build() if time is not None else None,
            time_head=time_head,
            holdout=np.concatenate(holdout) if holdout else None,
            file_keys=pl.concat(files) if files else None,
        )

    keys = collect(_line_blocks(table, cols, what))
    if keys is None:
        keys = collect(_batches(scan_table(table).select(cols), what))
    if keys is None:
        raise SplitError(f"internal: the batched scan of {table.name} gave up")
    _check_unique_ids(table, id_col, keys.id_hashes, salt)
    return keys


#: Bytes of a quote-free table parsed per step in the first pass.
KEY_BLOCK_BYTES = 1 << 23


def _line_blocks(table: Path, cols: list[str], what: str) -> Iterator[pl.DataFrame | None]:
    """The columns ``cols`` of a quote-free ``table`` in row order, a block of lines at a time.

    Without quote characters every row is one line, so parsing blocks of whole lines (each
    behind the header) reads exactly what parsing the table whole reads. One block is parsed
    on a helper thread while the caller uses the previous one, and no further block is read
    until then, which bounds memory. Yields None and stops at the first quote character (a
    quoted field may span lines).
    """
    with open(table, "rb") as src, ThreadPoolExecutor(max_workers=1) as parser:
        header = src.readline()
        pending: Future[pl.DataFrame] | None = None
        for data in _raw_line_blocks(src, header):
            if data is None:
                yield None
                return
            parsed = parser.submit(_parse_block, header, data, cols, what)
            if pending is not None:
                yield pending.result()
            pending = parsed
        if pending is not None:
            yield pending.result()


def _raw_line_blocks(src: BinaryIO, header: bytes) -> Iterator[bytes | None]:
    """Blocks of whole lines from ``src`` (at least one, possibly empty); None at a quote."""
    if b'"' in header:
        yield None
        return
    carry = b""
    blocks = 0
    while True:
        block = src.read(KEY_BLOCK_BYTES)
        if b'"' in block:
            yield None
            return
        data = carry + block if carry else block
        if block:
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # no line end yet: read on
                carry = data
                continue
            data, carry = data[:cut], data[cut:]
        if data or blocks == 0:  # a header-only table still yields its empty columns
            yield data
            blocks += 1
        if not block:
            return


def _parse_block(header: bytes, data: bytes, cols: list[str], what: str) -> pl.DataFrame:
    try:
        return pl.read_csv(header + data, infer_schema=False, columns=cols)
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {what}: {exc}") from exc


def _check_unique_ids(table: Path, id_col: str, hashes: np.ndarray, salt: str) -> None:
    """Raise on duplicated ids. Equal ids have equal hashes, so only rows sharing a hash are
    read again (normally none): far cheaper than a hash table of every id string."""
    s = np.sort(hashes)  # numpy, not a hash table: polars' allocator would keep that memory
    same = s[1:] == s[:-1]
    if not same.any():
        return
    wanted = np.unique(s[1:][same])
    del s, same
    parts = []
    for batch in _batches(scan_table(table).select([id_col]), f"table {table.name}"):
        ids = batch[id_col]
        parts.append(ids.filter(pl.Series(np.isin(stable_hash(ids.to_arrow(), salt), wanted))))
    _report_duplicates(pl.concat(parts), "the table to split")


def _strata(keys: pl.DataFrame, columns: list[str]) -> pl.Series:
    """One stratum key per row: the label set of each column (tokens sorted), joined."""
    exprs = [
        pl.col(c).fill_null(_MISSING).str.extract_all(r"\S+").list.sort().list.join(" ")
        for c in columns
    ]
    return keys.select(pl.concat_str(exprs, separator="\x1f").alias("stratum")).to_series()


def _parse_periods(values: pl.Series, column: str,
                   head: list[str] | None = None) -> tuple[pl.Series, str]:
    """Sortable period values: numbers if every value is one, else datetimes.

    ``head`` (the column's first values in table order, when ``values`` are its distinct
    values) decides the date format polars infers and is quoted in errors.
    """
    if values.null_count():
        raise SplitError(f"time column {column!r} has {values.null_count()} missing value(s)")
    as_num = values.cast(pl.Float64, strict=False)
    if as_num.null_count() == 0:
        return as_num, "number"
    first = pl.Series(head[:1] if head else [], dtype=pl.String)
    try:
        # polars infers the format from the first value: put the table's first value first.
        dt = pl.concat([first, values]).str.to_datetime(strict=True, time_unit="us")
    except pl.exceptions.PolarsError as exc:
        bad = head if head else values.head(3).to_list()
        raise SplitError(
            f"time column {column!r}: values such as {bad} are neither numbers nor ISO dates ({exc})"
        ) from exc
    dt = dt.slice(first.len())
    if isinstance(dt.dtype, pl.Datetime) and dt.dtype.time_zone is not None:
        dt = dt.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
    return dt, "datetime"


def _cutoff_code(periods_sorted: pl.Series, kind: str, cutoff: str) -> int:
    if kind == "number":
        try:
            value: Any = float(cutoff)
        except ValueError:
            raise SplitError(f"time_cutoff {cutoff!r} is not a number, but the time column is"
                             ) from None
    else:
        parsed = pl.Series([cutoff]).str.to_datetime(strict=False, time_unit="us")
        if parsed.null_count():
            raise SplitError(f"time_cutoff {cutoff!r} is not an ISO date/time")
        value = parsed[0]
    return int(periods_sorted.search_sorted(value, side="left"))


@dataclass
class Assignment:
    """The outcome of the first pass."""

    mask: np.ndarray
    """True for test rows, in the table's row order."""
    info: dict[str, Any] = field(default_factory=dict)
    """Strategy-specific facts for the split report."""


def _required(coded: CodedColumn | None, what: str) -> CodedColumn:
    if coded is None:
        raise SplitError(f"internal: the first pass did not read the {what} column")
    return coded


def assign_rows(keys: KeyPass, plan: SplitPlan, strategy: str) -> Assignment:
    """Decide the test rows of a table from its first pass."""
    split = plan.split
    salt = str(split.seed)
    id_hashes = keys.id_hashes
    n = len(id_hashes)
    info: dict[str, Any] = {}
    if strategy == "random":
        mask = assign_random(id_hashes, split.test_size)
    elif strategy == "stratified":
        strata = _required(keys.strata, "stratify")
        if strata.values.len() > max(2, n // 2):
            raise SplitError(
                f"stratify column(s) {plan.stratify_columns} have {strata.values.len()} distinct "
                f"values over {n} rows; stratified splits need repeated classes (use random, or "
                "set split.stratify_column to a class column)"
            )
        mask = assign_stratified(id_hashes, strata.codes, split.test_size)
        info["strata"] = int(strata.values.len())
    elif strategy == "group":
        col = split.group_column
        if not col:
            raise SplitError("the group strategy needs split.group_column")
        groups = _required(keys.group, "group")
        if groups.nulls:
            raise SplitError(f"group column {col!r} has {groups.nulls} missing value(s)")
        ghash = stable_hash(groups.values.to_arrow(), f"{salt}:group")
        mask = assign_groups(groups.codes, ghash, split.test_size)
        test_groups = np.unique(groups.codes[mask])
        info["groups"] = {"column": col, "train": int(groups.values.len() - test_groups.size),
                          "test": int(test_groups.size), "shared": 0}
    elif strategy == "time":
        col = split.time_column
        if not col:
            raise SplitError("the time strategy needs split.time_column")
        raw = _required(keys.time, "time")
        if raw.nulls:
            raise SplitError(f"time column {col!r} has {raw.nulls} missing value(s)")
        periods, kind = _parse_periods(raw.values, col, keys.time_head)
        uniq = periods.unique().sort()
        # Dense ranks of the distinct spellings, then one period code per row.
        rank = (periods.rank("dense").cast(pl.Int64) - 1).to_numpy().astype(raw.codes.dtype)
        codes = rank[raw.codes]
        cutoff = _cutoff_code(uniq, kind, split.time_cutoff) if split.time_cutoff else None
        mask = assign_time(codes, uniq.len(), cutoff_code=cutoff, last_k=split.last_k_periods,
                           test_size=split.test_size)
        info["time"] = {
            "column": col,
            "train": _time_range(raw, codes, ~mask),
            "test": _time_range(raw, codes, mask),
        }
    elif strategy == "holdout":
        col, value = split.holdout_column, split.holdout
        if not col or not value:
            raise SplitError("the holdout strategy (row form) needs split.holdout_column and "
                             "split.holdout")
        mask = keys.holdout if keys.holdout is not None else np.zeros(n, dtype=bool)
        if not mask.any():
            raise SplitError(f"no row has {col} == {value!r}: the holdout would be empty")
        if mask.all():
            raise SplitError(f"every row has {col} == {value!r}: no training rows would remain")
        info["holdout"] = {"column": col, "value": value}
    else:
        raise SplitError(f"strategy {strategy!r} does not split a single table")
    return Assignment(mask=np.asarray(mask, dtype=bool), info=info)


def _time_range(raw: CodedColumn, periods: np.ndarray, rows: np.ndarray) -> list[str]:
    """Earliest and latest value among ``rows``, spelled as in the table (first row on ties)."""
    idx = np.flatnonzero(rows)
    p = periods[idx]
    first, last = idx[int(np.argmin(p))], idx[int(np.argmax(p))]
    return [str(raw.values[int(raw.codes[first])]), str(raw.values[int(raw.codes[last])])]


# --- writing ---------------------------------------------------------------------------------


def _open_text(path: Path) -> Any:
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path, "wb")


def _test_order(ids: pl.Series, plan: SplitPlan) -> np.ndarray:
    if plan.split.test_order == "original":
        return np.arange(ids.len())
    return np.argsort(stable_hash(ids.to_arrow(), f"{plan.split.seed}:order"), kind="stable")


_BLOCK = 1 << 26
_NEWLINE = 10
_IOV_MAX = 1024


def _line_bytes(lines: pa.Array) -> memoryview:
    """The bytes of consecutive binary values, as one view."""
    if len(lines) == 0:
        return memoryview(b"")
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[
        lines.offset : lines.offset + len(lines) + 1]
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]


def _write_runs(fd: int, view: memoryview, starts: np.ndarray, stops: np.ndarray) -> None:
    """Write ``view[starts[i]:stops[i]]`` for every i, in order, with few system calls."""
    pieces = [view[a:b] for a, b in zip(starts.tolist(), stops.tolist(), strict=True)]
    for i in range(0, len(pieces), _IOV_MAX):
        batch = pieces[i : i + _IOV_MAX]
        want = sum(len(p) for p in batch)
        done = os.writev(fd, batch)
        if done != want:  # a short write (rare): finish this batch piece by piece
            for p in batch:
                skip = min(done, len(p))
                done -= skip
                rest = p[skip:]
                while len(rest):
                    rest = rest[os.write(fd, rest):]


def split_lines(table: Path, mask: np.ndarray, train_out: Path,
                order: np.ndarray | None = None) -> bytes | None:
    """Byte-level second pass for CSVs without quote characters: one row per line.

    Train lines are copied byte for byte to ``train_out`` (runs of consecutive train lines are
    written straight from the read buffer); the header plus the test lines are returned.
    Returns None (and the caller falls back to parsing) when the file has a quote character
    (a quoted field may hold a newline) or its line count differs from the row count (blank
    lines). ``order`` permutes the returned test lines.
    """
    parts = split_line_parts(table, mask, train_out)
    if parts is None:
        return None
    header, lines = parts
    if order is not None:
        lines = lines.take(pa.array(order))
    return header + bytes(_line_bytes(lines))


def split_line_parts(table: Path, mask: np.ndarray,
                     train_out: Path) -> tuple[bytes, pa.LargeBinaryArray] | None:
    """:func:`split_lines`, returning the header and the test lines (one value per line, in
    table order) instead of joining them."""
    row = 0
    test_parts: list[pa.Array] = []
    buf = bytearray(_BLOCK)
    with open(table, "rb") as src, open(train_out, "wb") as dst:
        header = src.readline()
        if b'"' in header:
            return None
        dst.write(header)
        dst.flush()
        fd = dst.fileno()
        carry = 0  # bytes of an unfinished line kept at the start of buf
        while True:
            if carry == len(buf):  # one line longer than the buffer: grow it
                buf.extend(bytearray(len(buf)))
            got = src.readinto(memoryview(buf)[carry:])
            size = carry + (got or 0)
            if not got:
                if carry == 0:
                    break
                if len(buf) == size:
                    buf.append(_NEWLINE)
                else:
                    buf[size] = _NEWLINE
                size += 1  # the last line had no newline: give it one
            view = memoryview(buf)[:size]
            arr = np.frombuffer(view, dtype=np.uint8)
            if (arr == ord('"')).any():
                return None
            ends = np.flatnonzero(arr == _NEWLINE) + 1
            k = ends.size
            if k:
                if row + k > mask.size:
                    return None
                offsets = np.concatenate([np.zeros(1, dtype=np.int64), ends.astype(np.int64)])
                in_test = mask[row : row + k]
                edges = np.diff(np.concatenate([[1], in_test.astype(np.int8), [1]]))
                run_starts = np.flatnonzero(edges == -1)
                run_stops = np.flatnonzero(edges == 1)
                _write_runs(fd, view, offsets[run_starts], offsets[run_stops])
                test_idx = np.flatnonzero(in_test)
                if test_idx.size:
                    lines = pa.LargeBinaryArray.from_buffers(
                        pa.large_binary(), k, [None, pa.py_buffer(offsets), pa.py_buffer(view)])
                    test_parts.append(lines.take(pa.array(test_idx)))
                    del lines  # release the export of buf before it may be resized
                row += k
                last = int(ends[-1])
            else:
                last = 0
            rest = size - last
            del view, arr
            buf[:rest] = buf[last:size]
            carry = rest
            if not got:
                break
    if row != mask.size:
        return None
    if not test_parts:
        return header, pa.array([], pa.large_binary())
    test_lines = pa.concat_arrays(test_parts)
    del test_parts
    return header, test_lines


#: Test rows parsed and written per step when the test side is written from raw lines.
TEST_CHUNK_ROWS = 100_000


def _parse_lines(header: bytes, lines: pa.Array, name: str,
                 columns: list[str] | None = None) -> pl.DataFrame:
    try:
        return pl.read_csv(header + bytes(_line_bytes(lines)), infer_schema=False,
                           columns=columns)
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read the test rows of {name}: {exc}") from exc


def _ordered_line_chunks(header: bytes, lines: pa.Array, order: np.ndarray,
                         name: str) -> Iterator[pl.DataFrame]:
    """The test lines parsed in public order, :data:`TEST_CHUNK_ROWS` rows at a time."""
    yield _parse_lines(header, lines.take(pa.array(order[:TEST_CHUNK_ROWS])), name)
    for i in range(TEST_CHUNK_ROWS, len(order), TEST_CHUNK_ROWS):
        yield _parse_lines(header, lines.take(pa.array(order[i : i + TEST_CHUNK_ROWS])), name)


def stream_split(
    table: Path, mask: np.ndarray, plan: SplitPlan, out: Path, columns: list[str],
) -> Iterator[pl.DataFrame]:
    """Second pass: write train rows to public/train.csv; return the test rows (all columns)
    in public order, as a sequence of frames.

    Quote-free tables keep only the raw bytes of their test lines; those are parsed a chunk
    at a time while the test side is written, so the test rows never all exist as strings.
    """
    train_cols = [c for c in columns if c not in plan.split.drop_columns]
    train_path = out / PUBLIC_DIR / TRAIN_FILE
    if not plan.split.drop_columns:
        train_path.parent.mkdir(parents=True, exist_ok=True)
        parts = split_line_parts(table, mask, train_path)
        if parts is not None:
            header, lines = parts
            ids = pl.concat([
                _parse_lines(header, lines.slice(i, TEST_CHUNK_ROWS), table.name,
                             [plan.id_column])[plan.id_column]
                for i in range(0, max(len(lines), 1), TEST_CHUNK_ROWS)
            ])
            return _ordered_line_chunks(header, lines, _test_order(ids, plan), table.name)
    pos = 0
    test_parts: list[pl.DataFrame] = []
    with _open_text(out / PUBLIC_DIR / TRAIN_FILE) as ftrain:
        first = True
        for df in _batches(scan_table(table), table.name):
            n = df.height
            if pos + n > len(mask):
                raise SplitError(f"{table.name} grew while it was being split")
            m = pl.Series(mask[pos : pos + n])
            pos += n
            df.filter(~m).select(train_cols).write_csv(ftrain, include_header=first)
            test_parts.append(df.filter(m))
            first = False
        if first:  # no batch at all: still write the header
            pl.DataFrame(schema=dict.fromkeys(train_cols, pl.String)).write_csv(ftrain)
    if pos != len(mask):
        raise SplitError(f"{table.name} changed while it was being split ({pos} != {len(mask)})")
    test = pl.concat(test_parts) if test_parts else pl.DataFrame(
        schema=dict.fromkeys(columns, pl.String))
    return iter([_in_test_order(test, plan)])


def _in_test_order(test: pl.DataFrame, plan: SplitPlan) -> pl.DataFrame:
    return test.select(pl.all().gather(pl.Series(_test_order(test[plan.id_column], plan))))


def _is_numeric(values: pl.Series) -> bool:
    nonnull = values.drop_nulls()
    return nonnull.len() > 0 and nonnull.cast(pl.Float64, strict=False).null_count() == 0


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def placeholder(values: pl.Series, kind: str | None) -> str:
    """A constant, label-free prediction for one column, from its training values.

    value -> the median; probability -> the mean when values are numbers in [0, 1], else 0.5;
    otherwise the most frequent value (ties: the smallest).

    >>> placeholder(pl.Series(["b", "a", "b"]), "label")
    'b'
    >>> placeholder(pl.Series(["1", "2", "10"]), "value")
    '2'
    """
    nonnull = values.drop_nulls()
    if kind == "value" and _is_numeric(nonnull):
        return _fmt(float(np.median(nonnull.cast(pl.Float64).to_numpy())))
    if kind == "probability":
        if _is_numeric(nonnull):
            num = nonnull.cast(pl.Float64).to_numpy()
            if num.min() >= 0.0 and num.max() <= 1.0:
                return _fmt(float(num.mean()))
        return "0.5"
    if nonnull.len() == 0:
        return ""
    counts = nonnull.value_counts(name="n").sort(["n", nonnull.name], descending=[True, False])
    return str(counts[nonnull.name][0])


def coded_placeholder(col: CodedColumn, rows: np.ndarray, kind: str | None) -> str:
    """:func:`placeholder` of the values of the rows selected by ``rows``, from the codes.

    >>> c = CodedColumn(pl.Series(["a", "b"]), np.array([1, 0, 1, -1], dtype=np.int8))
    >>> coded_placeholder(c, np.array([True, True, True, True]), "label")
    'b'
    """
    counts, _ = col.counts(rows)
    n = int(counts.sum())
    numeric = n > 0 and col.values.gather(np.flatnonzero(counts)).cast(
        pl.Float64, strict=False).null_count() == 0
    if kind in ("value", "probability") and numeric:
        codes = col.codes[rows]
        # The numbers in row order, as placeholder() sees them (the mean depends on order).
        num = col.values.cast(pl.Float64, strict=False).to_numpy()[codes[codes >= 0]]
        if kind == "value":
            return _fmt(float(np.median(num)))
        if num.min() >= 0.0 and num.max() <= 1.0:
            return _fmt(float(num.mean()))
    if kind == "probability":
        return "0.5"
    if n == 0:
        return ""
    # Most frequent; values are sorted, so argmax's first maximum is the smallest on ties.
    return str(col.values[int(np.argmax(counts))])


def coded_balance(col: CodedColumn, mask: np.ndarray) -> dict[str, Any] | None:
    """:func:`class_balance` of the rows outside and inside ``mask``, from the codes."""
    def shares(rows: np.ndarray) -> dict[str, float] | None:
        counts, nulls = col.counts(rows)
        present = np.flatnonzero(counts)
        if present.size + (1 if nulls else 0) > MAX_BALANCE_CLASSES:
            return None
        total = max(int(counts.sum()) + nulls, 1)
        found: dict[str, int] = {_MISSING: nulls} if nulls else {}
        for i in present.tolist():
            key = str(col.values[i])
            found[key] = found.get(key, 0) + int(counts[i])
        return {k: round(v / total, 6) for k, v in found.items()}

    tr, te = shares(~mask), shares(mask)
    if tr is None or te is None or len(set(tr) | set(te)) > MAX_BALANCE_CLASSES:
        return None
    return {"train": tr, "test": te}


def write_test_side(
    chunks: Iterable[pl.DataFrame], fill_value: Callable[[str, str | None], str | None],
    plan: SplitPlan, out: Path, columns: list[str],
) -> dict[str, Any]:
    """Write public/test.csv, private answers and public/sample_submission.csv.

    ``chunks`` are the test rows in public order (at least one frame, possibly empty);
    ``fill_value(column, metric_kind)`` is the sample submission's constant for a column the
    test rows do not show (None: no such column).
    """
    _require_columns(columns, plan.answer_columns, "the test rows")
    hidden = set(plan.hidden_columns) | set(plan.split.drop_columns)
    public_cols = [c for c in columns if c not in hidden]
    fills: dict[str, str] = {}
    for col in plan.submission_header:
        if col in plan.id_columns or (col in columns and col not in hidden):
            continue
        kind = plan.metric_kind if col in plan.hidden_columns else None
        value = fill_value(col, kind)
        if value is None:
            raise SplitError(
                f"submission header column {col!r} is neither an id, a target, nor a column of "
                "the raw table"
            )
        fills[col] = value
    (out / PRIVATE_DIR).mkdir(parents=True, exist_ok=True)
    rows = 0
    with (open(out / PUBLIC_DIR / TEST_FILE, "wb") as ftest,
          open(out / PRIVATE_DIR / plan.answers_file, "wb") as fanswers,
          open(out / PUBLIC_DIR / SAMPLE_FILE, "wb") as fsample):
        for i, test in enumerate(chunks):
            header = i == 0
            test.select(public_cols).write_csv(ftest, include_header=header)
            test.select(plan.answer_columns).write_csv(fanswers, include_header=header)
            sample = {
                col: pl.repeat(fills[col], test.height, dtype=pl.String, eager=True)
                if col in fills else test[col]
                for col in plan.submission_header
            }
            pl.DataFrame(sample).select(plan.submission_header).write_csv(
                fsample, include_header=header)
            rows += test.height
    return {"header": plan.submission_header, "rows": rows}


def class_balance(train: pl.Series, test: pl.Series) -> dict[str, Any] | None:
    """Share of each class in train and test (None for columns with too many values)."""
    def shares(s: pl.Series) -> dict[str, float] | None:
        if s.n_unique() > MAX_BALANCE_CLASSES:
            return None
        s = s.fill_null(_MISSING)
        total = max(s.len(), 1)
        vc = s.value_counts(name="n").sort(s.name)
        return {str(k): round(int(v) / total, 6) for k, v in zip(vc[s.name], vc["n"], strict=True)}

    tr, te = shares(train), shares(test)
    if tr is None or te is None or len(set(tr) | set(te)) > MAX_BALANCE_CLASSES:
        return None
    return {"train": tr, "test": te}


def copy_extra_files(raw_root: Path, plan: SplitPlan, out: Path) -> list[str]:
    """Copy ``split.extra_public_files`` unchanged into public/."""
    copied = []
    for rel in plan.split.extra_public_files:
        clean = safe_relpath(rel, "split.extra_public_files entry")
        if clean.parts[0] in RESERVED_PUBLIC:
            raise SplitError(f"extra public file {rel!r} would overwrite public/{clean.parts[0]}")
        src = _raw_file(raw_root, rel, "split.extra_public_files entry")
        dst = out / PUBLIC_DIR / clean
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        copied.append(clean.as_posix())
    return copied


# --- files strategy --------------------------------------------------------------------------


def pattern_fields(pattern: str) -> list[str]:
    """Field names used by a file pattern.

    >>> pattern_fields("images/{label_free}/{id}.png")
    ['label_free', 'id']
    """
    return [f for _, f, _, _ in Formatter().parse(pattern) if f is not None]


def _place_file(src: Path, dst: Path, link: bool) -> str:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if link:
        try:
            os.link(src, dst)
            return "linked"
        except OSError:
            pass  # another file system or links not allowed: copy instead
    shutil.copyfile(src, dst)
    return "copied"


def copy_row_files(
    raw_root: Path, keys: pl.DataFrame, mask: np.ndarray, plan: SplitPlan, out: Path
) -> dict[str, Any]:
    """Link or copy each row's file into public/train/ or public/test/, writing a manifest.

    Files are handled one at a time (never held in memory); the manifest lists train rows in
    table order, then test rows in the public test order.
    """
    pattern = plan.split.file_id_pattern
    fields = pattern_fields(pattern)
    bad = [f for f in fields if f in plan.hidden_columns]
    if bad:
        raise SplitError(f"file_id_pattern {pattern!r} uses target column(s) {bad}: file paths "
                         "would reveal the test labels")
    ids = keys[plan.id_column]
    values = {f: (ids if f == "id" else keys[f]) for f in fields}
    counts = {"linked": 0, "copied": 0}
    missing: list[str] = []
    test_rows: list[tuple[str, str]] = []
    raw_resolved = raw_root.resolve()
    with open(out / PUBLIC_DIR / MANIFEST_FILE, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", "split", "path"])
        for i in range(ids.len()):
            rel = pattern.format(**{f: values[f][i] for f in fields})
            clean = safe_relpath(rel, "file path")
            src = raw_root.joinpath(*clean.parts)
            if not src.is_file():
                missing.append(rel)
                continue
            if not src.resolve().is_relative_to(raw_resolved):
                raise SplitError(f"file {rel!r} resolves outside the raw data")
            split_dir = TEST_FILES_DIR if mask[i] else TRAIN_FILES_DIR
            dst_rel = f"{split_dir}/{clean.as_posix()}"
            counts[_place_file(src, out / PUBLIC_DIR / dst_rel, plan.split.link_files)] += 1
            if mask[i]:
                test_rows.append((str(ids[i]), dst_rel))
            else:
                w.writerow([ids[i], "train", dst_rel])
        if missing:
            raise SplitError(
                f"{len(missing)} row file(s) named by file_id_pattern {pattern!r} are missing, e.g. "
                f"{missing[:5]}"
            )
        tids = pl.Series([t[0] for t in test_rows], dtype=pl.String)
        for j in _test_order(tids, plan):
            w.writerow([test_rows[j][0], "test", test_rows[j][1]])
    n_test = len(test_rows)
    return {"train": int(ids.len()) - n_test, "test": n_test, **counts,
            "manifest": f"{PUBLIC_DIR}/{MANIFEST_FILE}"}


# --- strategies ------------------------------------------------------------------------------


def _key_columns(plan: SplitPlan, strategy: str) -> list[str]:
    s = plan.split
    cols = [plan.id_column, *plan.id_columns, *plan.hidden_columns, *plan.aux_columns]
    if strategy == "stratified":
        cols += plan.stratify_columns
    if strategy == "group":
        cols.append(s.group_column)
    if strategy == "time":
        cols.append(s.time_column)
    if strategy == "holdout":
        cols.append(s.holdout_column)
    if s.strategy == "files":
        cols += [f for f in pattern_fields(s.file_id_pattern) if f != "id"]
    return list(dict.fromkeys(c for c in cols if c))


def split_single_table(raw_root: Path, plan: SplitPlan, out: Path) -> dict[str, Any]:
    """random / stratified / group / time / holdout (row form) / files."""
    s = plan.split
    strategy = s.file_base_strategy if s.strategy == "files" else s.strategy
    if s.strategy == "files" and not s.file_id_pattern:
        raise SplitError("the files strategy needs split.file_id_pattern, e.g. 'images/{id}.png'")
    table = find_train_table(raw_root, plan)
    columns = table_columns(table)
    _require_columns(columns, [*_key_columns(plan, strategy), *s.drop_columns],
                     f"table {table.name}")
    # Columns whose training values give the sample submission's placeholders; header
    # columns the table lacks are reported by write_test_side.
    coded = [c for c in dict.fromkeys([*plan.hidden_columns, *plan.submission_header])
             if c in columns and (c in plan.hidden_columns or c not in plan.id_columns)]
    keys = read_keys(table, plan, strategy, coded)
    result = assign_rows(keys, plan, strategy)
    mask = result.mask
    keys.id_hashes = np.zeros(0, dtype=np.uint64)  # not needed any more: free it
    report: dict[str, Any] = dict(result.info)
    train = ~mask

    def fill_value(col: str, kind: str | None) -> str | None:
        return coded_placeholder(keys.coded[col], train, kind) if col in keys.coded else None

    test_rows = stream_split(table, mask, plan, out, columns)
    report["sample_submission"] = write_test_side(test_rows, fill_value, plan, out, columns)
    report["class_balance"] = {
        col: bal for col in plan.hidden_columns
        if col in keys.coded and (bal := coded_balance(keys.coded[col], mask)) is not None
    }
    if s.strategy == "files":
        if keys.file_keys is None:
            raise SplitError("internal: the first pass did not keep the file columns")
        report["files"] = copy_row_files(raw_root, keys.file_keys, mask, plan, out)
    report["rows"] = _rows(int(train.sum()), int(mask.sum()))
    report["source_table"] = table.relative_to(raw_root).as_posix()
    return report


def _rows(n_train: int, n_test: int) -> dict[str, Any]:
    return {"train": n_train, "test": n_test,
            "test_fraction": round(n_test / max(n_train + n_test, 1), 6)}


def _balances(train_values: Callable[[str], pl.Series | None], test: pl.DataFrame,
              plan: SplitPlan) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col in plan.hidden_columns:
        train = train_values(col)
        if train is not None and col in test.columns:
            bal = class_balance(train, test[col])
            if bal is not None:
                out[col] = bal
    return out


def split_two_tables(
    raw_root: Path, plan: SplitPlan, out: Path, test_rel: str, answers_rel: str
) -> dict[str, Any]:
    """official (published test labels) and holdout (a named file is the test set)."""
    s = plan.split
    train = find_train_table(raw_root, plan)
    test_path = _raw_file(raw_root, test_rel, "test file")
    answers_path = _raw_file(raw_root, answers_rel, "answers file")
    if test_path.resolve() == train.resolve():
        raise SplitError(f"the test file {test_rel!r} is the training table itself")
    train_cols = table_columns(train)
    _require_columns(train_cols, [plan.id_column, *plan.hidden_columns, *s.drop_columns],
                     f"training table {train.name}")
    try:
        scan_table(train).select([c for c in train_cols if c not in s.drop_columns]).sink_csv(
            _ensure_parent(out / PUBLIC_DIR / TRAIN_FILE))
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {train.name}: {exc}") from exc
    train_keys = _collect(scan_table(train).select(
        list(dict.fromkeys([plan.id_column, *plan.hidden_columns]))), f"table {train.name}")
    test_cols = table_columns(test_path)
    _require_columns(test_cols, [plan.id_column], f"test file {test_rel}")
    test = _collect(scan_table(test_path), f"test file {test_rel}")
    _check_ids(test[plan.id_column], f"test file {test_rel}")
    if answers_path.resolve() != test_path.resolve():
        ans_cols = table_columns(answers_path)
        _require_columns(ans_cols, [plan.id_column, *plan.hidden_columns],
                         f"answers file {answers_rel}")
        answers = _collect(
            scan_table(answers_path).select([c for c in plan.answer_columns if c in ans_cols]),
            f"answers file {answers_rel}")
        _check_ids(answers[plan.id_column], f"answers file {answers_rel}")
        extra = answers.join(test, on=plan.id_column, how="anti")[plan.id_column]
        lacking = test.join(answers, on=plan.id_column, how="anti")[plan.id_column]
        if extra.len() or lacking.len():
            raise SplitError(
                f"answers file {answers_rel} and test file {test_rel} hold different ids: "
                f"{lacking.len()} test id(s) without an answer (e.g. {lacking.head(3).to_list()}), "
                f"{extra.len()} answer(s) without a test row (e.g. {extra.head(3).to_list()})"
            )
        keep = [c for c in test.columns if c not in answers.columns or c == plan.id_column]
        test = test.select(keep).join(answers, on=plan.id_column, how="left",
                                      maintain_order="left")
    columns = [*test_cols, *[c for c in test.columns if c not in test_cols]]
    report: dict[str, Any] = {}
    def train_values(col: str) -> pl.Series | None:
        return train_keys[col] if col in train_keys.columns else None

    def fill_value(col: str, kind: str | None) -> str | None:
        values = train_values(col)
        return placeholder(values, kind) if values is not None else None

    _require_columns(columns, plan.answer_columns, "the test rows")
    report["sample_submission"] = write_test_side([_in_test_order(test, plan)], fill_value, plan,
                                                  out, columns)
    report["class_balance"] = _balances(train_values, test, plan)
    report["rows"] = _rows(train_keys.height, test.height)
    report["source_table"] = train.relative_to(raw_root).as_posix()
    report["test_source"] = test_rel
    return report


def _ensure_parent(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def build_split(spec: TaskSpec, raw_root: Path, out: Path) -> dict[str, Any]:
    """Write public/ and private/ for ``spec`` from ``raw_root`` into ``out``; return the report."""
    plan = plan_split(spec)
    s = plan.split
    (out / PUBLIC_DIR).mkdir(parents=True, exist_ok=True)
    (out / PRIVATE_DIR).mkdir(parents=True, exist_ok=True)
    if s.strategy == "official":
        if not (s.official_test_file and s.official_answers_file):
            raise SplitError("the official strategy needs split.official_test_file and "
                             "split.official_answers_file")
        body = split_two_tables(raw_root, plan, out, s.official_test_file, s.official_answers_file)
    elif s.strategy == "holdout" and not s.holdout_column:
        if not s.holdout:
            raise SplitError("the holdout strategy needs split.holdout (a file, or a value of "
                             "split.holdout_column)")
        body = split_two_tables(raw_root, plan, out, s.holdout, s.holdout)
    else:
        body = split_single_table(raw_root, plan, out)
    extra = copy_extra_files(raw_root, plan, out)
    report: dict[str, Any] = {
        "task_id": spec.id,
        "strategy": s.strategy,
        "seed": s.seed,
        "test_size": s.test_size,
        "test_order": s.test_order,
        **body,
        "extra_public_files": extra,
    }
    report["sample_submission"]["score"] = grade_sample(spec, out, plan)
    return report


def grade_sample(spec: TaskSpec, root: Path, plan: SplitPlan) -> float | None:
    """Score of the sample submission by the grader (None without a grader or grading spec)."""
    grader = load_grader()
    if grader is None or spec.grading is None:
        return None
    rep = grader(root / PUBLIC_DIR / SAMPLE_FILE, spec, root / PRIVATE_DIR / plan.answers_file)
    if not getattr(rep, "valid_submission", False):
        errors = getattr(rep, "errors", None) or getattr(rep, "messages", None)
        raise SplitError(f"the sample submission of {spec.id} does not validate: {errors}")
    score = getattr(rep, "score", None)
    if score is None or not math.isfinite(float(score)):
        raise SplitError(f"the sample submission of {spec.id} scores {score!r}, not a number")
    return float(score)


# --- driver ----------------------------------------------------------------------------------


@dataclass
class PrepareResult:
    """What one prepare did."""

    task_id: str
    task_dir: Path
    status: str
    """"prepared" (files written) or "up_to_date" (existing files matched their checksums)."""
    report: dict[str, Any]
    audit: Any = None
    """The :class:`tambench.splits.audit.AuditReport` (None when the audit was skipped)."""
    changed: ChecksumDiff | None = None
    """For a forced rebuild: how the new files differ from the previous ones."""


def _swap_into_place(staging: Path, final: Path) -> None:
    if final.exists():
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, old)
        os.replace(staging, final)
        shutil.rmtree(old)
    else:
        os.replace(staging, final)


def resolve_source(spec: TaskSpec, raw: RawSource | str | Path | None) -> RawSource:
    """The source to prepare from: the given one, a local path, or Kaggle for kaggle tasks."""
    if raw is None:
        if spec.platform != "kaggle":
            raise SourceError(f"task {spec.id}: only Kaggle tasks can be downloaded; give --raw")
        return KaggleSource(spec.slug)
    if isinstance(raw, (str, Path)):
        return open_source(raw)
    return raw


def prepare_task(
    spec: TaskSpec,
    raw: RawSource | str | Path | None,
    data_dir: Path,
    *,
    force: bool = False,
    run_audit: bool = True,
) -> PrepareResult:
    """Prepare one task into ``<data_dir>/<platform>/<slug>`` and audit it.

    An existing prepared task is verified against its ``checksums.json`` and kept when it
    matches (a mismatch raises :class:`ChecksumMismatchError` with the diff); ``force``
    rebuilds it. ``raw`` None downloads a Kaggle task. The leakage audit runs afterwards and
    raises :class:`LeakageError` listing every finding.
    """
    final = task_dir(spec, data_dir)
    if not force and (final / CHECKSUMS_FILE).is_file():
        ensure_checksums(final)
        report = json.loads((final / REPORT_FILE).read_text(encoding="utf-8"))
        result = PrepareResult(spec.id, final, "up_to_date", report)
    else:
        source = resolve_source(spec, raw)
        final.parent.mkdir(parents=True, exist_ok=True)
        previous = read_checksums(final) if (final / CHECKSUMS_FILE).is_file() else None
        staging = Path(tempfile.mkdtemp(prefix=f".{spec.slug}.staging-", dir=final.parent))
        work = Path(tempfile.mkdtemp(prefix=f".{spec.slug}.raw-", dir=final.parent))
        try:
            raw_root = source.fetch(work)
            report = build_split(spec, raw_root, staging)
            text = json.dumps(report, indent=1, sort_keys=True, allow_nan=False) + "\n"
            (staging / REPORT_FILE).write_text(text, encoding="utf-8")
            sums = write_checksums(staging)
            _swap_into_place(staging, final)
        finally:
            shutil.rmtree(work, ignore_errors=True)
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        changed = diff_checksums(previous, sums) if previous is not None else None
        result = PrepareResult(spec.id, final, "prepared", report, changed=changed)
    if run_audit:
        from tambench.splits.audit import audit_task  # imports scipy: only when auditing

        result.audit = audit_task(spec, final)
        if not result.audit.passed:
            raise LeakageError(result.audit.render_findings())
    return result


# --- many tasks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrepareJob:
    """One task to prepare in a worker process (picklable)."""

    spec: TaskSpec
    raw: str | None
    """A folder or archive; None downloads the task (Kaggle)."""
    data_dir: str
    force: bool = False
    run_audit: bool = True


@dataclass(frozen=True)
class PrepareOutcome:
    """The result of one job, as plain data."""

    task_id: str
    ok: bool
    status: str
    """"prepared", "up_to_date", or "failed"."""
    error: str = ""
    error_type: str = ""
    task_dir: str = ""
    rows: dict[str, Any] = field(default_factory=dict)


def prepare_job(job: PrepareJob) -> PrepareOutcome:
    """Run one :class:`PrepareJob`; tambench's own errors become a failed outcome."""
    try:
        res = prepare_task(job.spec, job.raw, Path(job.data_dir), force=job.force,
                           run_audit=job.run_audit)
    except TambenchError as exc:
        return PrepareOutcome(job.spec.id, False, "failed", str(exc), type(exc).__name__)
    return PrepareOutcome(job.spec.id, True, res.status, task_dir=str(res.task_dir),
                          rows=dict(res.report.get("rows", {})))


def prepare_many(
    jobs: Sequence[PrepareJob],
    *,
    executor: Executor | str = "local",
    max_workers: int | None = None,
    retries: int = 2,
) -> list[PrepareOutcome]:
    """Prepare many tasks on a pluggable executor; outcomes come back in job order.

    A job that raises something other than tambench's own errors, or whose worker dies, is
    retried ``retries`` times and then becomes a failed outcome; the batch always completes.
    """
    from tambench.executors import get_executor, run_items

    ex = get_executor(executor, max_workers) if isinstance(executor, str) else executor
    owned = isinstance(executor, str)
    try:
        results = run_items(prepare_job, jobs, ex, retries=retries, chunk_size=1)
    finally:
        if owned:
            ex.shutdown(wait=True)
    return [
        r.value if r.ok and r.value is not None else PrepareOutcome(
            job.spec.id, False, "failed", str(r.error), str(r.error).split(":", 1)[0]
        )
        for job, r in zip(jobs, results, strict=True)
    ]
