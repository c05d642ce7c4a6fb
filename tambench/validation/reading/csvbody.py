"""A CSV body read into columns: only the columns asked for are built (ids as text, targets as
floats when they can be), in blocks sized to the file, with every row checked against the
header's width; a row that does not parse is named with its line and why.

:func:`read_csv_columns` hands the body to ``pyarrow.csv`` with every column read as exact
strings (no NA inference: ``NA``, ``None`` and ``null`` stay strings) except the columns the
caller wants as float64, which pyarrow parses exactly. Several float columns are then packed
into one column-major buffer (:func:`pack_float_columns`) that numpy views as a matrix. When
pyarrow refuses the file, :func:`diagnose_csv_body` rescans it in Python to name the offending
lines. The layout (where the body starts, the header) comes from :func:`~.csvio.sniff_csv`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from tambench.validation.reading.csvio import CsvLayout, _csv_field_limit, invalid_utf8_lines
from tambench.validation.reading.files import ErrorFactory, RawFile, submission_error
from tambench.validation.reading.text import (
    MAX_EXAMPLES,
    human_bytes,
)

#: Bounds of the parser's block size. Each block becomes one chunk of every column, so blocks of
#: about a sixteenth of the body keep both cores busy while a 200 MB file gives ~16 chunks, not
#: ~200 (per-chunk work in the checks and copies made 1 MiB blocks measurably slower).
MIN_BLOCK_BYTES = 1024**2


MAX_BLOCK_BYTES = 32 * 1024**2


#: The longest row (physical line) the parser reads; a longer one is refused, named.
MAX_ROW_BYTES = 64 * 1024**2


def diagnose_csv_body(
    raw: RawFile, layout: CsvLayout, *, limit: int = MAX_EXAMPLES, multiline: bool = False
) -> list[str]:
    """Rescan the body in Python and name the lines a parser refuses (slow path, errors only).

    Finds invalid UTF-8, rows longer than :data:`MAX_ROW_BYTES`, rows with too many or too few
    fields, comment and preamble-like lines, and (unless ``multiline``) line breaks inside
    quoted values.
    """
    bad_utf8 = invalid_utf8_lines(raw.data, layout.header_start)
    if bad_utf8:
        return bad_utf8
    too_long = _long_lines(raw, layout, MAX_ROW_BYTES)
    if too_long:
        return too_long
    text = bytes(raw.data[layout.body_start :]).decode("utf-8")
    with _csv_field_limit(MAX_ROW_BYTES):
        return _diagnose_rows(text, len(layout.header), limit, multiline)


def _diagnose_rows(text: str, n_expected: int, limit: int, multiline: bool = False
                   ) -> list[str]:
    problems: list[str] = []
    total_bad = 0

    def note(message: str) -> None:
        nonlocal total_bad
        total_bad += 1
        if len(problems) < limit:
            problems.append(message)

    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    consumed = 0  # physical body lines read so far; file line = body line + 1 (header)
    while True:
        first = consumed + 2
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            note(f"line {first}: cannot be parsed as CSV ({exc})")
            consumed = reader.line_num
            continue
        consumed = reader.line_num
        last = consumed + 1
        if not fields:
            continue
        if last > first and not multiline:
            note(
                f"line {first}: a quoted value holds a line break (the row spans lines "
                f"{first}-{last}); expected one row per line"
            )
            continue
        if len(fields) != n_expected:
            hint = " (a comment line?)" if fields[0].lstrip().startswith("#") else ""
            note(
                f"line {first}: {len(fields)} field{'s' if len(fields) != 1 else ''}, "
                f"expected {n_expected}{hint}"
            )
    if total_bad > len(problems):
        problems.append(f"... {total_bad} malformed lines in all")
    return problems


def _long_lines(raw: RawFile, layout: CsvLayout, limit: int) -> list[str]:
    """Lines of the body longer than ``limit`` bytes, named (at most a few)."""
    longest, line = longest_line(raw, layout)
    if longest <= limit:
        return []
    return [
        f"line {line}: one row of {human_bytes(longest)}; expected rows of at most "
        f"{human_bytes(limit)} (the parser's limit for one row)"
    ]


def longest_line(raw: RawFile, layout: CsvLayout) -> tuple[int, int]:
    """(length in bytes of the body's longest physical line, its 1-based line number)."""
    data = raw.data
    pos, lineno = layout.body_start, 2
    best, best_line = 0, 2
    while pos < raw.size:
        end = data.find(b"\n", pos)
        end = raw.size if end == -1 else end
        if end - pos > best:
            best, best_line = end - pos, lineno
        pos, lineno = end + 1, lineno + 1
    return best, best_line


def block_size_for(n_bytes: int) -> int:
    """The parser's block size for a body of ``n_bytes``: about a sixteenth, within bounds.

    >>> block_size_for(10_000), block_size_for(320 * 1024**2) // 1024**2
    (1048576, 20)
    """
    return max(MIN_BLOCK_BYTES, min(MAX_BLOCK_BYTES, n_bytes // 16))


def read_csv_columns(
    raw: RawFile,
    layout: CsvLayout,
    *,
    columns: Sequence[int] | None = None,
    float_columns: Sequence[int] = (),
    multiline: bool = False,
    what: str = "submission",
    error: ErrorFactory = submission_error,
) -> pa.Table:
    """Parse the body into a table with columns named ``c0, c1, ...`` (header positions).

    Only the columns at ``columns`` (default: all) and ``float_columns`` are converted; the
    others stay in the table as all-null placeholders without memory, so positions keep their
    meaning and a file with thousands of unexpected columns costs one tokenising pass.
    Converted columns are exact strings (nothing is read as missing) except those in
    ``float_columns``, which pyarrow parses as exact float64 when every cell is a number (spaces
    around a number are ignored). When a float column holds anything else, that column comes
    back as strings so the caller can name the offending rows.

    Raises the ``error`` class with line-level messages when the file is not parseable CSV.
    """
    names = [f"c{i}" for i in range(len(layout.header))]
    if not layout.has_data:
        return pa.schema([(n, pa.string()) for n in names]).empty_table()
    wanted = range(len(names)) if columns is None else sorted({*columns, *float_columns})
    parse = _BodyParser(_body_buffer(raw, layout), names, [names[i] for i in wanted],
                        multiline=multiline)
    table, as_float = _parse_body(parse, float_columns, raw, layout, what, error)
    return pack_float_columns(parse.full_width(table), as_float)


def _parse_body(
    parse: _BodyParser,
    float_columns: Sequence[int],
    raw: RawFile,
    layout: CsvLayout,
    what: str,
    error: ErrorFactory,
) -> tuple[pa.Table, Sequence[int]]:
    """Parse, recovering from a row longer than a parser block (blocks as long as the longest
    row, up to :data:`MAX_ROW_BYTES`) and from float columns holding other text (read as
    strings, so the caller can name the cells); return the table and its float columns."""
    as_float = float_columns
    while True:
        try:
            table = parse.attempt(as_float)
        except pa.ArrowInvalid as exc:
            msg = str(exc)
            if "straddling" in msg and not parse.block_size:
                longest, _ = longest_line(raw, layout)
                if longest > MAX_ROW_BYTES:
                    raise error(_long_lines(raw, layout, MAX_ROW_BYTES)) from None
                parse.block_size = max(block_size_for(parse.body.size), longest + 2)
            elif "conversion error to double" in msg and as_float:
                as_float = ()
            elif parse.multiline and not parse.serial and parse.holds_quote():
                parse.serial = True  # a block boundary fell inside a quoted line break
            else:
                problems = diagnose_csv_body(raw, layout, multiline=parse.multiline)
                raise error(problems or [f"{what} file is not parseable CSV: {msg[:300]}"]) from None
            continue
        if parse.needs_serial(table):
            parse.serial = True
            continue
        return table, as_float


def _body_buffer(raw: RawFile, layout: CsvLayout) -> pa.Buffer:
    """The body for pyarrow, starting at the header's line feed (read as a blank line).

    pyarrow drops a UTF-8 byte-order mark at the start of what it reads; starting one byte
    early keeps a BOM before the first data row in that row, as it is before any later row.
    A BOM is accepted only as the file's first bytes (:func:`check_encoding_head`).
    """
    start = layout.body_start
    if start > 0 and raw.data[start - 1 : start] == b"\n":
        start -= 1
    return raw.arrow.slice(start)


@dataclass
class _BodyParser:
    """One configuration of pyarrow's reader over a body: which columns, as what types."""

    body: pa.Buffer
    names: list[str]
    include: list[str]
    multiline: bool = False
    """Whether quoted values may span lines (RFC 4180). The body is first read in parallel
    blocks cut at line breaks; only when a quoted value holds a line break and the body spans
    several blocks is it read again with blocks found serially (slower)."""
    block_size: int = 0
    serial: bool = False
    """Whether blocks are found serially (quoted line breaks cannot split a row)."""

    def holds_quote(self) -> bool:
        """Whether the body holds a double quote at all (read after a failed parse only)."""
        return bool((np.frombuffer(self.body, dtype=np.uint8) == ord('"')).any())

    def needs_serial(self, table: pa.Table) -> bool:
        """Whether a table read in parallel blocks must be read again serially: values may
        span lines, a read value holds a line break, and the body spans several blocks (one
        block is always read whole, quotes included)."""
        if not self.multiline or self.serial:
            return False
        if self.body.size <= (self.block_size or block_size_for(self.body.size)):
            return False
        return any(table.column(i).type == pa.string() and column_holds_line_break(
            table.column(i)) for i in range(table.num_columns))

    def attempt(self, as_float: Sequence[int]) -> pa.Table:
        types: dict[str, pa.DataType] = {n: pa.string() for n in self.include}
        for i in as_float:
            types[self.names[i]] = pa.float64()
        return pacsv.read_csv(
            pa.BufferReader(self.body),
            read_options=pacsv.ReadOptions(
                column_names=self.names,
                block_size=self.block_size or block_size_for(self.body.size),
            ),
            parse_options=pacsv.ParseOptions(newlines_in_values=self.serial),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                include_columns=self.include,
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                null_values=[],
                true_values=[],
                false_values=[],
                check_utf8=True,
            ),
        )

    def full_width(self, table: pa.Table) -> pa.Table:
        """Every header position back in place: skipped columns as all-null placeholders."""
        if len(self.include) == len(self.names):
            return table
        n = table.num_rows
        placeholder = pa.chunked_array([pa.nulls(n)], type=pa.null())
        return pa.table(
            [table.column(name) if name in table.column_names else placeholder
             for name in self.names],
            names=self.names,
        )


def bytes_hold_line_break(piece: pa.Array) -> bool:
    """Whether a string array's data buffer holds CR or LF (a superset of the array's slice:
    a false hit only costs a closer look)."""
    data = piece.buffers()[2]
    if data is None:
        return False
    # A copy to bytes and two memchr scans beat numpy comparisons (three temporaries) by 3x.
    raw = data.to_pybytes()
    return raw.find(b"\n") >= 0 or raw.find(b"\r") >= 0


def column_holds_line_break(col: pa.ChunkedArray) -> bool:
    """Whether any value of a string column holds CR or LF."""
    if not any(bytes_hold_line_break(c) for c in col.chunks):
        return False
    return bool(pc.any(pc.match_substring_regex(col, r"[\r\n]")).as_py())


def pack_float_columns(table: pa.Table, positions: Sequence[int]) -> pa.Table:
    """Put several float64 columns into one buffer, column after column (column-major order).

    Each column is replaced by its slice of the buffer, so together they are a column-major
    (rows, columns) matrix that :func:`float_matrix_view` returns without another copy. The
    copy is one pass in arrow's allocator, in place of one numpy copy per parser block and
    column. Tables with fewer than two such columns, or with nulls, come back unchanged.
    """
    cols = [table.column(i) for i in positions]
    if len(cols) < 2 or any(c.type != pa.float64() or c.null_count for c in cols):
        return table
    packed = pa.concat_arrays([chunk for col in cols for chunk in col.chunks])
    n = table.num_rows
    arrays: list[Any] = list(table.columns)
    for j, i in enumerate(positions):
        arrays[i] = packed.slice(j * n, n)
    # One new table (replacing columns one by one rebuilt the table for each: quadratic in
    # the number of columns, a millisecond on 99 of them).
    return pa.Table.from_arrays(arrays, schema=table.schema)


def float_matrix_view(table: pa.Table, positions: Sequence[int]) -> np.ndarray | None:
    """The columns at ``positions`` as a read-only column-major numpy matrix viewing their
    buffer, when :func:`pack_float_columns` laid them out in one; else None.

    >>> t = pack_float_columns(pa.table({"a": [1.0, 2.0], "b": [3.0, 4.0]}), [0, 1])
    >>> float_matrix_view(t, [0, 1]).tolist(), float_matrix_view(t, [1, 0]) is None
    ([[1.0, 3.0], [2.0, 4.0]], True)
    """
    n, k = table.num_rows, len(positions)
    if k < 2 or n == 0:
        return None
    chunks = []
    for i in positions:
        col = table.column(i)
        if col.type != pa.float64() or col.num_chunks != 1 or col.null_count:
            return None
        chunks.append(col.chunk(0))
    base, start = chunks[0].buffers()[1], chunks[0].offset
    if base is None:
        return None
    for j, chunk in enumerate(chunks):
        buf = chunk.buffers()[1]
        if buf is None or buf.address != base.address or chunk.offset != start + j * n:
            return None
    flat = np.frombuffer(base, dtype=np.float64, count=n * k, offset=start * 8)
    # Read-only: loaded answers are reused for many submissions, and a metric must never
    # change its inputs.
    flat.flags.writeable = False
    return flat.reshape(k, n).T
