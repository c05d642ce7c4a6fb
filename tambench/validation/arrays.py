"""Arrow columns as numpy arrays, read from their buffers (no pandas import, no extra copies).

Validation works on the parser's arrow columns and hands numpy arrays to the metrics; these
helpers are the only place the two meet.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.errors import TaskDataError
from tambench.validation.reading.csvbody import bytes_hold_line_break, float_matrix_view

#: A cell that is a decimal number (spaces around it allowed; they cannot change a number).
NUMBER_RE = r"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$"
#: A cell spelling NaN or infinity.
NONFINITE_RE = r"(?i)^\s*[+-]?(?:nan|inf|infinity)\s*$"


def chunk(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    """One contiguous array (a copy only when there are several chunks)."""
    if isinstance(col, pa.ChunkedArray):
        return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return col


def to_float64(col: pa.ChunkedArray | pa.Array, out: np.ndarray | None = None) -> np.ndarray:
    """A float64 column as a writable numpy array, read from the buffers (no pandas import).

    With ``out`` (e.g. one column of a 2-D array) the values are written there, copied once.
    """
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    if out is None:
        out = np.empty(len(col), dtype=np.float64)
    at = 0
    for arr in chunks:
        n = len(arr)
        if arr.null_count:
            raise TaskDataError("internal: float column with nulls reached conversion")
        buf = arr.buffers()[1]
        if n and buf is not None:
            out[at : at + n] = np.frombuffer(buf, dtype=np.float64, count=n, offset=arr.offset * 8)
        at += n
    return out


def to_object(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A string column as a numpy object array of Python str."""
    out = np.empty(len(col), dtype=object)
    out[:] = chunk(col).to_pylist()  # to_numpy() would import pandas
    return out


def bool_mask(result: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A boolean arrow array as numpy bools (nulls false), read from its bitmaps."""
    arr = chunk(result)
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=bool)
    validity, data = arr.buffers()[:2]
    if data is None:
        return np.zeros(n, dtype=bool)
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
    out = bits[arr.offset : arr.offset + n].astype(bool)
    if arr.null_count and validity is not None:
        valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        out &= valid[arr.offset : arr.offset + n].astype(bool)
    return out


def int32_values(result: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray | None]:
    """An int32 arrow array as numpy, with its validity mask (None when no nulls)."""
    arr = chunk(result)
    n = len(arr)
    data = arr.buffers()[1]
    if data is None or n == 0:
        return np.zeros(n, dtype=np.int32), None
    values = np.frombuffer(data, dtype=np.int32, count=n, offset=arr.offset * 4)
    if not arr.null_count:
        return values, None
    validity = arr.buffers()[0]
    bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
    return values, bits[arr.offset : arr.offset + n].astype(bool)


def empty_cells(col: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Which cells are the empty string."""
    lengths, _ = int32_values(pc.utf8_length(chunk(col)))
    return lengths == 0


def float_matrix(n: int, k: int) -> np.ndarray:
    """An uninitialised (n, k) float64 matrix, column-major so that each column is filled with
    one contiguous copy."""
    return np.empty((n, k), dtype=np.float64, order="F")


def fill_floats(table: pa.Table, positions: Sequence[int]) -> np.ndarray:
    """float64 columns of ``table`` as one array, each value copied at most once.

    One position gives a vector (n,); several a column-major matrix (n, k): a read-only view
    when the columns were packed into one buffer (:func:`~tambench.validation.reading.csvio.
    pack_float_columns`), else a copy.
    """
    if len(positions) == 1:
        return to_float64(table.column(positions[0]))
    view = float_matrix_view(table, positions)
    if view is not None:
        return view
    matrix = float_matrix(table.num_rows, len(positions))
    for j, i in enumerate(positions):
        to_float64(table.column(i), out=matrix[:, j])
    return matrix


def all_within(values: np.ndarray, lo: float, hi: float) -> bool:
    """Whether every value is finite and in [lo, hi]: two reductions, no temporary arrays.

    NaN propagates through min and max, so one NaN anywhere makes this false.

    >>> all_within(np.array([0.0, 1.0]), 0.0, 1.0), all_within(np.array([0.5, np.nan]), 0, 1)
    (True, False)
    """
    if values.size == 0:
        return True
    low, high = float(values.min()), float(values.max())
    return math.isfinite(low) and math.isfinite(high) and lo <= low and high <= hi


def stack_columns(cols: list[np.ndarray], numeric: bool) -> np.ndarray:
    """Several 1-D columns as one (n, k) array (float64 or object)."""
    if numeric:
        return np.column_stack(cols)
    out = np.empty((len(cols[0]), len(cols)), dtype=object)
    for j, c in enumerate(cols):
        out[:, j] = c
    return out


def has_line_break(key: pa.ChunkedArray) -> np.ndarray:
    """Cells holding CR or LF; a scan of the raw bytes first, a regex only on a hit."""
    if key.type == pa.string() and not any(bytes_hold_line_break(c) for c in key.chunks):
        return np.zeros(len(key), dtype=bool)
    return bool_mask(pc.match_substring_regex(key, r"[\r\n]"))
