"""The key fields of a block of lines without quote characters, located with numpy.

Without quote characters every row is one line and every comma ends a field, so a block of
whole lines is read by finding its line ends and commas: the block is sound when every line
holds exactly the header's number of commas, and then the k-th comma of a row ends its k-th
field. Only the wanted columns are gathered, into arrow text arrays holding what a CSV parser
gives for them (the text as written, an empty field missing, the CR of a CRLF line end
dropped); the other columns are never converted.

A block that is not sound (a line with another number of fields, a blank line) or not UTF-8
gives None: the caller then finds and names the bad lines.

Every buffer handed to pyarrow is allocated by arrow (see :mod:`tambench.splits.lines`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pyarrow as pa

_COMMA, _NEWLINE, _CR = 44, 10, 13


def _utf8(data: bytes | bytearray) -> bool:
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class PlainBlock(NamedTuple):
    """What :func:`block_fields` found in a block."""

    ends: np.ndarray
    """Offset of each line's end (its LF; the block's size for a last line without one)."""
    fields: list[pa.LargeStringArray]
    """The wanted columns, in the order asked."""


def block_fields(data: bytes | bytearray, n_fields: int,
                 columns: Sequence[int]) -> PlainBlock | None:
    """The fields of columns ``columns`` (0-based) of every line of ``data``, a block of
    whole lines without quote characters (the last may lack its line end); None when a line
    does not have ``n_fields`` fields, a line is blank, or the block is not UTF-8.

    >>> [a.to_pylist() for a in block_fields(b"1,a,x\\r\\n2,,y\\r\\n", 3, [0, 1, 2]).fields]
    [['1', '2'], ['a', None], ['x', 'y']]
    >>> block_fields(b"1,a\\n2,b", 2, [0]).ends.tolist()
    [3, 7]
    >>> block_fields(b"1,a\\n2\\n", 2, [0]) is None
    True
    """
    if not _utf8(data):
        return None
    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(arr == _NEWLINE)
    if arr.size and arr[-1] != _NEWLINE:  # a last line without its line end
        ends = np.append(ends, arr.size)
    starts = np.zeros_like(ends)
    starts[1:] = ends[:-1] + 1
    k = n_fields - 1
    if k == 0:
        length = ends - starts
        if ((length == 0) | ((length == 1) & (arr[np.maximum(ends - 1, 0)] == _CR))).any():
            return None  # a blank line
        grid = np.zeros((ends.size, 0), dtype=np.int64)
    else:
        commas = np.flatnonzero(arr == _COMMA)
        if commas.size != ends.size * k:
            return None
        grid = commas.reshape(ends.size, k)
        # With the right total, every line has exactly k commas when each row of the grid
        # starts after the previous line end and ends before its own.
        if ends.size and ((grid[:, -1] >= ends).any() or (grid[1:, 0] <= ends[:-1]).any()):
            return None
    out = []
    for j in columns:
        first = starts if j == 0 else grid[:, j - 1] + 1
        last = ends if j == k else grid[:, j]
        if j == k:  # the CR of a CRLF line end is not part of the last field
            last = last - ((last > first) & (arr[np.maximum(last - 1, 0)] == _CR))
        out.append(_gather(arr, first, last))
    return PlainBlock(ends, out)


def _gather(arr: np.ndarray, first: np.ndarray, last: np.ndarray) -> pa.LargeStringArray:
    """The bytes ``arr[first[i]:last[i]]`` of every i as a text array; empty ones missing."""
    n = int(first.size)
    length = last - first
    offsets_buf = pa.allocate_buffer(8 * (n + 1))
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)
    offsets[0] = 0
    np.cumsum(length, out=offsets[1:])
    total = int(offsets[-1])
    data_buf = pa.allocate_buffer(total)
    if total:
        width = int(length[0])
        if (length == width).all():
            idx = (first[:, None] + np.arange(width)).ravel()
        else:
            idx = np.repeat(first - offsets[:-1], length) + np.arange(total)
        np.take(arr, idx, out=np.frombuffer(data_buf, dtype=np.uint8))
    present = length > 0
    nulls = n - int(np.count_nonzero(present))
    validity = None
    if nulls:
        bits = np.packbits(present, bitorder="little")
        validity = pa.allocate_buffer(bits.size)
        np.frombuffer(validity, dtype=np.uint8)[:] = bits
    return pa.LargeStringArray.from_buffers(n, offsets_buf, data_buf, validity, nulls)
