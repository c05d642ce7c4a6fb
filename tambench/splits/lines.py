"""The byte-level second pass over a table without quote characters: one row per line.

The first pass checked every line (field count, no blank line), so rows and lines coincide.
Train lines are copied to public/train.csv with their exact bytes except the line end, which
is always LF (a block's train lines are gathered into one buffer, written and hashed for
``checksums.json`` on a helper thread while the next block is read); the test lines are kept as arrow binary values, to be parsed a chunk at a
time in public order.

Every buffer handed to pyarrow here is allocated by arrow (``pa.allocate_buffer``), never a
view of Python memory: a Python-owned buffer released on an arrow thread while the interpreter
exits aborts the process (see tests/test_process_exit.py).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from io import BufferedReader
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.errors import SplitError
from tambench.splits.checksums import remember_written
from tambench.splits.rawcsv import RawTable

#: Bytes read per step (larger blocks cost more than they save: every temporary array of a
#: block is then mapped afresh by the system).
BLOCK_BYTES = 1 << 23
_NEWLINE = 10
_CR = 13
_IOV_MAX = 1024


def arrow_int64(values: np.ndarray) -> pa.Array:
    """An int64 arrow array holding a copy of ``values`` in arrow-allocated memory.

    >>> arrow_int64(np.array([3, 1])).to_pylist()
    [3, 1]
    """
    buf = pa.allocate_buffer(8 * len(values))
    np.frombuffer(buf, dtype=np.int64)[:] = values
    return pa.Array.from_buffers(pa.int64(), len(values), [None, buf])


def line_bytes(lines: pa.Array) -> memoryview:
    """The bytes of consecutive binary values, as one view."""
    if len(lines) == 0:
        return memoryview(b"")
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[
        lines.offset : lines.offset + len(lines) + 1]
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]


def _write_all(fd: int, pieces: list[memoryview]) -> None:
    """Write every piece, in order, with few system calls."""
    for i in range(0, len(pieces), _IOV_MAX):
        batch = pieces[i : i + _IOV_MAX]
        done = os.writev(fd, batch)
        if done != sum(len(p) for p in batch):  # a short write (rare): finish piece by piece
            for p in batch:
                skip = min(done, len(p))
                done -= skip
                rest = p[skip:]
                while len(rest):
                    rest = rest[os.write(fd, rest):]


def _train_bytes(buf: pa.Buffer, offsets: np.ndarray, in_test: np.ndarray) -> memoryview:
    """The train lines of one block (in ``buf``), with LF line ends, in a new buffer."""
    arr = np.frombuffer(buf, dtype=np.uint8, count=int(offsets[-1]))
    ends = offsets[1:]
    crlf = np.flatnonzero((ends >= offsets[:-1] + 2) & (arr[np.maximum(ends - 2, 0)] == _CR))
    if crlf.size == 0 and not in_test.any():
        return arr.copy().data
    keep = np.repeat(~in_test, np.diff(offsets))
    keep[ends[crlf] - 2] = False  # the CR of each CRLF line end
    bits = np.packbits(keep, bitorder="little")
    mask = pa.allocate_buffer(bits.size)
    np.frombuffer(mask, dtype=np.uint8)[:] = bits
    kept = pc.filter(pa.Array.from_buffers(pa.uint8(), arr.size, [None, buf]),
                     pa.Array.from_buffers(pa.bool_(), keep.size, [None, mask]))
    return memoryview(kept.buffers()[1]).cast("B")[: len(kept)]


def _write_hashed(fd: int, data: memoryview, digest: hashlib._Hash) -> None:
    digest.update(data)
    _write_all(fd, [data])


def _after_last_line_end(arr: np.ndarray) -> int:
    """The offset just past the last LF of ``arr`` (0 without one), looking from the end.

    >>> _after_last_line_end(np.frombuffer(b"a\\nbc\\nde", dtype=np.uint8))
    5
    """
    stop, step = arr.size, 1 << 16
    while stop > 0:
        start = max(0, stop - step)
        hits = np.flatnonzero(arr[start:stop] == _NEWLINE)
        if hits.size:
            return start + int(hits[-1]) + 1
        stop, step = start, step * 2
    return 0


#: A block of whole lines: its buffer, its size and the offset past each line end.
Block = tuple[pa.Buffer, int, np.ndarray]


def _line_blocks(src: BufferedReader, left: int) -> Iterator[Block]:
    """Blocks of whole lines read from ``src`` (``left`` bytes), in one arrow buffer reused
    from block to block. A last line without a line end gets one.

    The caller must be done with a block before asking for the next one.
    """
    buf = pa.allocate_buffer(BLOCK_BYTES + 1)
    carry = 0  # bytes of an unfinished line, moved to the start of the buffer
    while True:
        want = min(BLOCK_BYTES, left)
        if carry + want + 1 > buf.size:  # one line longer than the buffer: grow it
            bigger = pa.allocate_buffer(carry + want + 1)
            memoryview(bigger).cast("B")[:carry] = memoryview(buf).cast("B")[:carry]
            buf = bigger
        view = memoryview(buf).cast("B")
        got = src.readinto(view[carry : carry + want]) if want else 0
        left -= got
        size = carry + got
        if got == 0 and size and view[size - 1] != _NEWLINE:
            view[size] = _NEWLINE
            size += 1
        arr = np.frombuffer(buf, dtype=np.uint8, count=size)
        yield buf, size, np.flatnonzero(arr == _NEWLINE) + 1
        if got == 0:
            return
        last = _after_last_line_end(np.frombuffer(buf, dtype=np.uint8, count=size))
        carry = size - last
        view[:carry] = view[last:size].tobytes()


def _known_blocks(src: BufferedReader, table: RawTable,
                  line_ends: np.ndarray) -> Iterator[Block]:
    """:func:`_line_blocks` for a table whose line ends the first pass recorded (file
    offsets; the end of the rows for a last line without a line end): no byte is searched."""
    buf = pa.allocate_buffer(BLOCK_BYTES + 1)
    row, pos = 0, table.data_start
    while row < line_ends.size:
        stop = max(int(np.searchsorted(line_ends, pos + BLOCK_BYTES - 1, side="right")), row + 1)
        last = int(line_ends[stop - 1])
        size = last + 1 - pos if last < table.data_end else last - pos
        if size + 1 > buf.size:  # one line longer than the buffer: grow it
            buf = pa.allocate_buffer(size + 1)
        view = memoryview(buf).cast("B")
        if src.readinto(view[:size]) != size:
            raise SplitError(f"{table.label} changed while it was being split")
        if last == table.data_end:  # the last line has no line end: give it one
            view[size] = _NEWLINE
            size += 1
        ends = line_ends[row:stop] + (1 - pos)
        if (np.frombuffer(buf, dtype=np.uint8, count=size)[ends - 1] != _NEWLINE).any():
            raise SplitError(f"{table.label} changed while it was being split")
        yield buf, size, ends
        row, pos = stop, last + 1


def split_line_parts(table: RawTable, mask: np.ndarray, train_out: Path,
                     line_ends: np.ndarray | None = None) -> tuple[bytes, pa.LargeBinaryArray]:
    """Write the train rows of ``table`` to ``train_out``; return the header and the test
    lines (one value per line, in table order). ``line_ends`` (from the first pass) spares
    the search for line ends."""
    row = 0
    test_parts: list[pa.Array] = []
    digest = hashlib.sha256(table.header)
    with (open(table.path, "rb") as src, open(train_out, "wb") as dst,
          ThreadPoolExecutor(max_workers=1) as writer):
        src.seek(table.data_start)
        dst.write(table.header)
        dst.flush()
        written: Future[None] | None = None
        blocks = (_line_blocks(src, table.data_end - table.data_start) if line_ends is None
                  else _known_blocks(src, table, line_ends))
        for buf, size, ends in blocks:
            k = int(ends.size)
            if row + k > mask.size:
                raise SplitError(f"{table.label} changed while it was being split")
            if k:
                offsets = arrow_int64(np.concatenate([[0], ends]))
                in_test = mask[row : row + k]
                train = _train_bytes(buf, np.frombuffer(offsets.buffers()[1], dtype=np.int64),
                                     in_test)
                if written is not None:
                    written.result()
                written = writer.submit(_write_hashed, dst.fileno(), train, digest)
                test_idx = np.flatnonzero(in_test)
                if test_idx.size:
                    lines = pa.LargeBinaryArray.from_buffers(
                        pa.large_binary(), k, [None, offsets.buffers()[1], buf.slice(0, size)])
                    test_parts.append(lines.take(arrow_int64(test_idx)))  # a copy
                    del lines
                row += k
        if written is not None:
            written.result()
    remember_written(train_out, digest.hexdigest())
    if row != mask.size:
        raise SplitError(f"{table.label} changed while it was being split ({row} rows, "
                         f"{mask.size} in the first pass)")
    if not test_parts:
        return table.header, pa.nulls(0, pa.large_binary())
    return table.header, pa.concat_arrays(test_parts)


def split_lines(table: RawTable, mask: np.ndarray, train_out: Path,
                order: np.ndarray | None = None) -> bytes:
    """:func:`split_line_parts` with the test lines joined behind the header (``order``
    permutes them)."""
    header, lines = split_line_parts(table, mask, train_out)
    if order is not None:
        lines = lines.take(arrow_int64(order))
    return header + bytes(line_bytes(lines))
