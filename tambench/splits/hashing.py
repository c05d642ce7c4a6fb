"""A stable, vectorised 64-bit hash of id strings, independent of library versions.

Split assignment must give the same rows to the test set on every machine and with every
version of polars, pyarrow or numpy, so it cannot use a library's built-in hash (polars says
its hash may change between versions). The hash here is defined by its algorithm alone:

1. FNV-1a 64 over the UTF-8 bytes of ``salt``, a zero byte, then the UTF-8 bytes of the id;
2. the splitmix64 finaliser, so that ids differing in one trailing character spread over the
   whole 64-bit range.

:func:`stable_hash_one` is a pure-Python reference of the same function; a test checks that the
vectorised version agrees with it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from tambench.errors import SplitError

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK64 = (1 << 64) - 1


def _fnv_bytes(state: int, data: bytes) -> int:
    for b in data:
        state = ((state ^ b) * _FNV_PRIME) & _MASK64
    return state


def _splitmix_one(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def stable_hash_one(value: str, salt: str) -> int:
    """The stable hash of one string (pure-Python reference implementation).

    >>> stable_hash_one("abc", "0")
    18230675592361029236
    >>> stable_hash_one("abc", "1") != stable_hash_one("abc", "0")
    True
    """
    state = _fnv_bytes(_FNV_OFFSET, salt.encode("utf-8") + b"\x00")
    return _splitmix_one(_fnv_bytes(state, value.encode("utf-8")))


def _splitmix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _as_large_string(values: pa.Array | pa.ChunkedArray | Sequence[str]) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        arr = values.combine_chunks() if values.num_chunks else pa.array([], pa.large_string())
    elif isinstance(values, pa.Array):
        arr = values
    else:
        arr = pa.array(list(values), type=pa.large_string())
    if not pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.large_string())
    if arr.null_count:
        raise SplitError(f"{arr.null_count} id value(s) are missing; every row needs an id")
    return arr


#: Strings hashed per step: bounds the temporaries of the byte loop.
HASH_CHUNK = 1_000_000


def stable_hash(values: pa.Array | pa.ChunkedArray | Sequence[str], salt: str) -> np.ndarray:
    """Hash every string of ``values`` with ``salt``; returns a uint64 array.

    The result equals :func:`stable_hash_one` element by element. Long inputs are hashed in
    chunks of :data:`HASH_CHUNK` strings so that memory stays bounded.

    >>> int(stable_hash(["abc", "d"], "0")[0]) == stable_hash_one("abc", "0")
    True
    """
    if isinstance(values, (pa.Array, pa.ChunkedArray)) and len(values) > HASH_CHUNK:
        return np.concatenate([
            _hash_chunk(values.slice(i, HASH_CHUNK), salt)
            for i in range(0, len(values), HASH_CHUNK)
        ])
    return _hash_chunk(values, salt)


def _hash_chunk(values: pa.Array | pa.ChunkedArray | Sequence[str], salt: str) -> np.ndarray:
    arr = _as_large_string(values)
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + n + 1]
    data_buf = arr.buffers()[2]
    data = (
        np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None
        else np.zeros(0, dtype=np.uint8)
    )
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    seed_state = _fnv_bytes(_FNV_OFFSET, salt.encode("utf-8") + b"\x00")
    h = np.full(n, seed_state, dtype=np.uint64)
    prime = np.uint64(_FNV_PRIME)
    max_len = int(lengths.max())
    if int(lengths.min()) == max_len:
        # Equal lengths (the usual case for ids): the bytes form an n x max_len matrix, read
        # column by column without gathering.
        first = int(offsets[0])
        matrix = data[first : first + n * max_len].reshape(n, max_len)
        column = np.empty(n, dtype=np.uint64)
        for j in range(max_len):
            column[...] = matrix[:, j]
            np.bitwise_xor(h, column, out=h)
            np.multiply(h, prime, out=h)
        return _splitmix(h)
    rows: np.ndarray | None = None  # None: every row still has bytes left
    for j in range(max_len):
        if rows is None and int(lengths.min()) <= j:
            rows = np.flatnonzero(lengths > j)
        elif rows is not None:
            rows = rows[lengths[rows] > j]
        if rows is None:
            h = (h ^ data[starts + j].astype(np.uint64)) * prime
        else:
            h[rows] = (h[rows] ^ data[starts[rows] + j].astype(np.uint64)) * prime
    return _splitmix(h)
