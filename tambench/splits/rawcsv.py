"""Strict reading of raw tables: every row has the header's fields, or the file is refused.

A raw table is refused, naming the file as the user knows it and the line, when a row has
more or fewer fields than its header, a line is blank (one blank line at the very end of the
file is allowed and ignored), a quoted field is never closed, a byte is not UTF-8, or the
header repeats a column name. The checks work on bytes with numpy, a block at a time, before a
CSV parser sees the rows, so no parser's own message (or option it suggests) reaches users.

* :func:`open_table` reads and checks the header and finds where the rows end;
* :func:`plain_block_problems` checks a block of whole lines of a table without quote
  characters (the fast path of the first pass);
* :func:`scan_table` checks a whole table, quotes included, and counts its rows;
* :func:`row_lines` maps row numbers to the line each row starts on, for messages.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from tambench.errors import SplitError

#: Bytes read per step by the scanners.
SCAN_BLOCK_BYTES = 1 << 23
#: The header line must end within this many bytes.
MAX_HEADER_BYTES = 4 << 20
#: Problems quoted in one message.
MAX_EXAMPLES = 5
UTF8_BOM = b"\xef\xbb\xbf"
_COMMA, _NEWLINE, _QUOTE, _CR = 44, 10, 34, 13


@dataclass(frozen=True)
class RawTable:
    """A raw CSV table whose header has been read and checked."""

    path: Path
    label: str
    """How messages name the file: a path that exists, or a member of the given archive."""
    columns: list[str]
    header: bytes
    """The header line without byte-order mark, ending in a single LF."""
    data_start: int
    """Offset of the first byte after the header line."""
    data_end: int
    """Offset just past the rows (a single trailing blank line is left out)."""

    @property
    def n_fields(self) -> int:
        """Fields every row must have."""
        return len(self.columns)


def polars_reason(exc: BaseException) -> str:
    """The first line of a polars error, without the parser options it suggests."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return first.split(" Consider ")[0].strip()


def open_table(path: Path, label: str) -> RawTable:
    """Read and check the header of the CSV table at ``path``; ``label`` names it in messages."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            raw = fh.readline(MAX_HEADER_BYTES + 1)
    except OSError as exc:
        raise SplitError(f"cannot read {label}: {exc.strerror or exc}") from exc
    if len(raw) > MAX_HEADER_BYTES:
        raise SplitError(f"{label}: line 1 (the header) is longer than {MAX_HEADER_BYTES} bytes")
    line = raw[len(UTF8_BOM):] if raw.startswith(UTF8_BOM) else raw
    line = line.rstrip(b"\n").rstrip(b"\r")
    if not line.strip():
        raise SplitError(f"{label}: line 1 is empty; expected the header row naming the columns")
    columns = _header_columns(line, label)
    return RawTable(path=path, label=label, columns=columns, header=line + b"\n",
                    data_start=len(raw), data_end=_data_end(path, size, len(raw)))


def _header_columns(line: bytes, label: str) -> list[str]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SplitError(f"{label}, line 1: the header is not UTF-8 (byte "
                         f"0x{line[exc.start]:02x} at column {exc.start + 1})") from None
    try:
        rows = list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as exc:
        raise SplitError(f"{label}, line 1: the header is not a CSV row ({exc})") from None
    if len(rows) != 1:
        raise SplitError(f"{label}, line 1: the header spans several lines")
    columns = rows[0]
    seen: set[str] = set()
    dups = [c for c in columns if c in seen or seen.add(c)]  # type: ignore[func-returns-value]
    if dups:
        raise SplitError(f"{label}, line 1: the header repeats column name(s) "
                         f"{sorted(set(dups))}; every column needs its own name")
    return columns


def _data_end(path: Path, size: int, start: int) -> int:
    """``size``, less one blank line at the very end of the file."""
    with open(path, "rb") as fh:
        fh.seek(max(0, size - 4))
        tail = fh.read()
    for blank in (b"\r\n", b"\n"):
        if tail.endswith(b"\n" + blank) and size - len(blank) >= start:
            return size - len(blank)
    return size


# --- problems --------------------------------------------------------------------------------


@dataclass
class Problems:
    """Bad lines of one table: the first few, described, and how many in all."""

    examples: list[str] = field(default_factory=list)
    total: int = 0

    def add(self, lines: np.ndarray, fields: np.ndarray, blank: np.ndarray, n_fields: int,
            ) -> None:
        """Record bad lines: ``fields`` per line, ``blank`` where the line is empty."""
        self.total += int(lines.size)
        for line, k, b in zip(lines.tolist(), fields.tolist(), blank.tolist(), strict=True):
            if len(self.examples) >= MAX_EXAMPLES:
                break
            self.examples.append(
                f"line {line} is blank (a blank line is allowed only at the very end)" if b
                else f"line {line} has {k} field{'s' if k != 1 else ''}, expected {n_fields}")

    def note(self, text: str) -> None:
        """Record one problem described in words."""
        self.total += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(text)

    def raise_if_any(self, table: RawTable) -> None:
        """Raise :class:`SplitError` naming the file and the lines."""
        if not self.total:
            return
        shown = "; ".join(self.examples)
        more = f" (first {len(self.examples)} of {self.total})" if self.total > len(
            self.examples) else ""
        header = ",".join(table.columns)
        if len(header) > 120:
            header = header[:117] + "..."
        raise SplitError(
            f"{table.label}: {self.total} line(s) cannot be read as rows of the header's "
            f"{table.n_fields} column(s) [{header}]: {shown}{more}")


# --- quote-free blocks -----------------------------------------------------------------------


def plain_block_problems(data: bytes | bytearray | memoryview, n_fields: int) -> tuple[np.ndarray, ...]:
    """Bad lines of a block of whole lines without quote characters.

    Returns (line index within the block, fields, blank) of every line whose field count
    differs from ``n_fields`` or that is blank. A block that does not end with a line end has
    its last line counted as it stands.

    >>> [a.tolist() for a in plain_block_problems(b"1,a\\n2\\n\\n3,b,c\\n4,d", 2)]
    [[1, 2, 3], [1, 1, 3], [False, True, False]]
    """
    arr = np.frombuffer(data, dtype=np.uint8)
    seps = np.flatnonzero((arr == _COMMA) | (arr == _NEWLINE))
    ends_at = np.flatnonzero(arr[seps] == _NEWLINE)
    ends = seps[ends_at]
    n_seps = seps.size
    if arr.size and arr[-1] != _NEWLINE:  # a last line without its line end
        ends_at = np.append(ends_at, n_seps)
        ends = np.append(ends, arr.size)
    commas = np.diff(ends_at, prepend=-1) - 1
    starts = np.concatenate([[0], ends[:-1] + 1]) if ends.size else ends
    length = ends - starts
    blank = (length == 0) | ((length == 1) & (arr[np.clip(ends - 1, 0, None)] == _CR))
    bad = np.flatnonzero(blank | (commas != n_fields - 1))
    return bad, commas[bad] + 1, blank[bad]


# --- whole tables, quotes included -----------------------------------------------------------


@dataclass
class TableScan:
    """What :func:`scan_table` found."""

    rows: int
    """Data rows (records), a single trailing blank line left out."""
    quoted: bool
    """Whether a quote character occurs in the rows."""
    lines: dict[int, int] = field(default_factory=dict)
    """Row number (0-based) -> the line it starts on, for the rows asked for."""


def scan_table(table: RawTable, want_lines: Sequence[int] = ()) -> TableScan:
    """Check every row of ``table`` (quoted fields may hold commas and line ends).

    Raises :class:`SplitError` naming the lines whose field count differs from the header's,
    blank lines, a quote left open and bytes that are not UTF-8. ``want_lines`` lists rows
    whose line numbers are returned.
    """
    problems = Problems()
    wanted = np.unique(np.asarray(want_lines, dtype=np.int64))
    scan = TableScan(rows=0, quoted=False)
    state = _ScanState(start=table.data_start)
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(table.path, "rb") as fh:
        fh.seek(table.data_start)
        pos = table.data_start
        while pos < table.data_end:
            block = fh.read(min(SCAN_BLOCK_BYTES, table.data_end - pos))
            if not block:
                break
            _check_utf8(decoder, block, pos, state, problems)
            arr = np.frombuffer(block, dtype=np.uint8)
            scan.quoted |= bool((arr == _QUOTE).any())
            _scan_block(arr, pos, state, table.n_fields, problems, wanted, scan.lines)
            pos += len(block)
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        problems.note(f"line {state.newlines}: the file ends inside a UTF-8 character")
    _finish(state, table, problems, wanted, scan.lines)
    problems.raise_if_any(table)
    scan.rows = state.records
    return scan


def row_lines(table: RawTable, rows: Sequence[int]) -> dict[int, int]:
    """Row number (0-based) -> the line the row starts on (1 is the header)."""
    return scan_table(table, rows).lines


@dataclass
class _ScanState:
    start: int
    """Global offset where the unfinished record starts."""
    line: int = 2
    """The line the unfinished record starts on."""
    commas: int = 0
    """Field separators seen so far in the unfinished record."""
    inside: int = 0
    """1 when the previous block ended inside a quoted field."""
    newlines: int = 1
    """Line ends before the current block (the header's included)."""
    records: int = 0
    last_byte: int = _NEWLINE


def _check_utf8(decoder: codecs.IncrementalDecoder, block: bytes, pos: int, state: _ScanState,
                problems: Problems) -> None:
    try:
        decoder.decode(block)
    except UnicodeDecodeError as exc:
        before = block[: max(exc.start, 0)]
        line = state.newlines + before.count(b"\n") + 1
        problems.note(f"line {line} holds bytes that are not UTF-8 (0x{block[exc.start]:02x}); "
                      "save the file as UTF-8")
        decoder.reset()


def _scan_block(arr: np.ndarray, pos: int, st: _ScanState, n_fields: int, problems: Problems,
                wanted: np.ndarray, lines: dict[int, int]) -> None:
    is_quote = arr == _QUOTE
    separator = (arr == _COMMA) | (arr == _NEWLINE)
    if st.inside or is_quote.any():
        inside = (np.cumsum(is_quote, dtype=np.int64) + st.inside) & 1
        separator &= inside == 0
        st.inside = int(inside[-1])
    seps = np.flatnonzero(separator)
    ends_at = np.flatnonzero(arr[seps] == _NEWLINE)
    all_newlines = np.flatnonzero(arr == _NEWLINE)
    if ends_at.size:
        ends = seps[ends_at] + pos
        starts = np.concatenate([[st.start], ends[:-1] + 1])
        commas = np.diff(ends_at, prepend=-1) - 1
        commas[0] += st.commas
        first = np.searchsorted(all_newlines, starts[1:] - pos)
        start_lines = np.concatenate([[st.line], st.newlines + first + 1])
        length = ends - starts
        cr_before = np.where(ends - 1 >= pos, arr[np.clip(ends - 1 - pos, 0, None)],
                             st.last_byte) == _CR
        blank = (length == 0) | ((length == 1) & cr_before)
        _record(st.records, start_lines, commas + 1, blank, n_fields, problems, wanted, lines)
        st.records += int(ends.size)
        st.start = int(ends[-1]) + 1
        st.line = st.newlines + int(np.searchsorted(all_newlines, ends[-1] - pos)) + 2
        st.commas = int(seps.size - ends_at[-1] - 1)
    else:
        st.commas += int(seps.size)
    st.newlines += int(all_newlines.size)
    st.last_byte = int(arr[-1])


def _record(first_row: int, start_lines: np.ndarray, fields: np.ndarray, blank: np.ndarray,
            n_fields: int, problems: Problems, wanted: np.ndarray,
            lines: dict[int, int]) -> None:
    bad = np.flatnonzero(blank | (fields != n_fields))
    if bad.size:
        problems.add(start_lines[bad], fields[bad], blank[bad], n_fields)
    if wanted.size:
        rows = np.arange(first_row, first_row + fields.size)
        hit = np.isin(rows, wanted)
        lines.update(zip(rows[hit].tolist(), start_lines[hit].tolist(), strict=True))


def _finish(st: _ScanState, table: RawTable, problems: Problems, wanted: np.ndarray,
            lines: dict[int, int]) -> None:
    if st.inside:
        problems.note(f"line {st.line}: a quoted field is opened and never closed")
        return
    if st.start < table.data_end:  # a last row without a line end
        _record(st.records, np.array([st.line]), np.array([st.commas + 1]),
                np.array([False]), table.n_fields, problems, wanted, lines)
        st.records += 1


# --- values ------------------------------------------------------------------------------------

#: Target cells that hold no label: empty, blank, or a NaN spelling.
EMPTY_LABEL = r"(?i)^\s*([+-]?nan)?\s*$"


def empty_label_values(values: pl.Series) -> np.ndarray:
    """Indices of ``values`` that are not a label: empty, blank or NaN (missing excluded).

    >>> empty_label_values(pl.Series(["a", "", " ", "NaN", "nan ", "n"])).tolist()
    [1, 2, 3, 4]
    """
    return np.flatnonzero(values.str.contains(EMPTY_LABEL).fill_null(False).to_numpy())


def describe_rows(table: RawTable, rows: np.ndarray, plain: bool) -> str:
    """``lines 5, 9 and 12`` (first few) for 0-based rows; ``plain`` tables have one row per line.

    >>> t = RawTable(Path("t.csv"), "t.csv", ["a"], b"a\\n", 2, 2)
    >>> describe_rows(t, np.array([0, 3]), plain=True)
    'lines 2, 5'
    """
    shown = np.sort(rows)[:MAX_EXAMPLES]
    if plain:
        found = [int(r) + 2 for r in shown.tolist()]
    else:
        mapping = row_lines(table, shown.tolist())
        found = [mapping.get(int(r), -1) for r in shown.tolist()]
    more = f" (first {len(found)} of {rows.size})" if rows.size > len(found) else ""
    word = "line" if len(found) == 1 else "lines"
    return f"{word} {', '.join(str(f) for f in found)}{more}"
