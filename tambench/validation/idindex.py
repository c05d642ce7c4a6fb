"""Matching a submission's ids to the answers' ids by sorting 64-bit hashes.

A submission holding exactly the answers' ids in another order is aligned by one sort of
hashes (:class:`IdIndex`); every pairing is then checked byte for byte, so a hash collision
costs time, never a wrong match. Anything else (unknown, duplicated or missing ids) goes to
:func:`match_ids`, arrow's exact lookup, which names the problems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.errors import TaskDataError
from tambench.validation.arrays import chunk as one_chunk
from tambench.validation.arrays import int32_values

#: Ids longer than this many bytes are matched by arrow's lookup alone.
HASH_MAX_ID_BYTES = 64
#: Rows per piece when ids of different lengths are padded (bounds the temporaries).
_PAD_ROWS = 1 << 20
_MIX = np.uint64(0x9E3779B97F4A7C15)


def _string_pieces(key: pa.ChunkedArray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(offsets as int64, data bytes) of each chunk of a string column without nulls."""
    out = []
    for chunk in key.chunks:
        n = len(chunk)
        if n == 0:
            continue
        _, offsets, data = chunk.buffers()
        offs = np.frombuffer(offsets, dtype=np.int32, count=n + 1, offset=chunk.offset * 4)
        raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
        out.append((offs.astype(np.int64), raw))
    return out


def padded_ids(key: pa.ChunkedArray, width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Ids as rows of a (n, width) uint8 matrix, zero-padded, and their byte lengths.

    ``width`` is rounded up to a multiple of 8 (so rows view as uint64 words). None when an
    id is longer than ``width`` bytes, the column has nulls or is not ``string``.

    >>> m, lengths = padded_ids(pa.chunked_array([["ab", "c"], ["defghijkl"]]), 9)
    >>> m.shape, lengths.tolist(), bytes(m[2, : lengths[2]])
    ((3, 16), [2, 1, 9], b'defghijkl')
    """
    if key.type != pa.string() or key.null_count:
        return None
    width = max(8, -(-width // 8) * 8)
    n = len(key)
    out = np.zeros((n, width), dtype=np.uint8)
    lengths = np.empty(n, dtype=np.int64)
    at = 0
    for offs, raw in _string_pieces(key):
        rows = len(offs) - 1
        lens = np.diff(offs)
        if rows and int(lens.max()) > width:
            return None
        lengths[at : at + rows] = lens
        first, size = int(offs[0]), int(offs[-1] - offs[0])
        if rows and size == int(lens[0]) * rows and (lens == lens[0]).all():
            # Every id of this chunk has the same length: one reshaped copy.
            width_here = int(lens[0])
            block = raw[first : first + size].reshape(rows, width_here)
            out[at : at + rows, :width_here] = block
        else:
            for lo in range(0, rows, _PAD_ROWS):
                hi = min(rows, lo + _PAD_ROWS)
                piece_lens = lens[lo:hi]
                row_of = np.repeat(np.arange(at + lo, at + hi), piece_lens)
                starts = np.repeat(offs[lo:hi], piece_lens)
                pos = np.arange(int(offs[lo]), int(offs[hi]), dtype=np.int64)
                out[row_of, pos - starts] = raw[pos]
        at += rows
    return out, lengths


def hash_rows(ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each padded id row (its words and its length), well mixed in the top
    bits, which pick the hash-table slot."""
    words = ids.view("<u8")
    h = lengths.astype(np.uint64) * _MIX
    for k in range(words.shape[1]):
        h ^= words[:, k]
        h *= _MIX
        h ^= h >> np.uint64(29)
    h ^= h >> np.uint64(32)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(29)
    return h


@dataclass
class IdIndex:
    """The answers' ids, hashed and sorted, for matching a submission's ids by sorting.

    Each row's hash keeps its high bits and carries the row number in its low bits, so one
    sort of plain integers orders the rows by hash. The submission's ids get the same
    treatment; when the two sorted hash sequences agree, position i pairs an answer row with
    a submission row. Rows whose truncated hashes tie are re-paired by their exact bytes, and
    the whole pairing is accepted only after every id is compared byte for byte, so a hash
    collision can only cost time, never a wrong match.
    """

    ids: np.ndarray
    """Ids as fixed-width byte records (numpy void), zero-padded."""
    lengths: np.ndarray
    packed: np.ndarray
    """Sorted ``(hash & high mask) | row``."""
    row_bits: int

    @classmethod
    def build(cls, key: pa.ChunkedArray) -> IdIndex | None:
        """Index the answers' ids; None when an id is longer than
        :data:`HASH_MAX_ID_BYTES` (or the column is not plain strings)."""
        n = len(key)
        longest = int(pc.max(pc.binary_length(key)).as_py() or 0) if n else 0
        if n == 0 or longest > HASH_MAX_ID_BYTES:
            return None
        padded = padded_ids(key, longest)
        if padded is None:
            return None
        ids, lengths = padded
        row_bits = max(1, (n - 1).bit_length())
        packed = np.sort(_pack(hash_rows(ids, lengths), row_bits))
        return cls(ids=_records(ids), lengths=lengths, packed=packed, row_bits=row_bits)

    def align(self, key: pa.ChunkedArray) -> np.ndarray | None:
        """The permutation taking submission rows to answer rows when the submitted ids are
        exactly the answers' ids, each once; None otherwise (the caller then finds out why,
        with an exact lookup)."""
        n = self.lengths.size
        if len(key) != n:
            return None
        padded = padded_ids(key, self.ids.dtype.itemsize)
        if padded is None:
            return None
        ids, lengths = padded
        records = _records(ids)
        packed = np.sort(_pack(hash_rows(ids, lengths), self.row_bits))
        low = np.uint64((1 << self.row_bits) - 1)
        high = ~low
        if not np.array_equal(packed & high, self.packed & high):
            return None
        ans_rows = (self.packed & low).astype(np.int64)
        sub_rows = (packed & low).astype(np.int64)
        perm = np.empty(n, dtype=np.int64)
        perm[ans_rows] = sub_rows
        same = ((self.packed[1:] ^ self.packed[:-1]) & high) == 0
        if same.any():
            tied = np.zeros(n, dtype=bool)
            tied[1:] |= same
            tied[:-1] |= same
            if not self._repair_ties(perm, ans_rows[tied], sub_rows[tied], records, lengths):
                return None
        if not np.array_equal(lengths[perm], self.lengths):
            return None
        if not np.array_equal(records[perm], self.ids):
            return None
        return perm

    def _repair_ties(
        self,
        perm: np.ndarray,
        ans_rows: np.ndarray,
        sub_rows: np.ndarray,
        records: np.ndarray,
        lengths: np.ndarray,
    ) -> bool:
        """Pair rows whose truncated hashes tie by their exact bytes; False when they cannot
        be paired one to one (duplicated or unknown ids)."""
        where: dict[tuple[bytes, int], int] = {}
        for r in ans_rows.tolist():
            where[(self.ids[r].tobytes(), int(self.lengths[r]))] = r
        if len(where) != ans_rows.size:
            return False
        for r in sub_rows.tolist():
            a = where.pop((records[r].tobytes(), int(lengths[r])), None)
            if a is None:
                return False
            perm[a] = r
        return True


def _pack(hashes: np.ndarray, row_bits: int) -> np.ndarray:
    low = np.uint64((1 << row_bits) - 1)
    return (hashes & ~low) | np.arange(hashes.size, dtype=np.uint64)


def _records(ids: np.ndarray) -> np.ndarray:
    """(n, w) uint8 rows as n void records of w bytes (gathered and compared as units)."""
    return ids.view(f"V{ids.shape[1]}").ravel()


def match_ids(key: pa.ChunkedArray, ans_key: pa.Array) -> np.ndarray:
    """For each submitted id, the answers row holding it (-1 when unknown); one hash lookup.

    Arrow's ``index_in`` works on the parsed strings in place (no copy of either id column).
    """
    values, valid = int32_values(pc.index_in(key, value_set=ans_key))
    out = values.astype(np.int64)
    if valid is not None:
        out[~valid] = -1
    return out


class KeyedIds:
    """A set of ids (``key``, in file order, in the parser's chunks) with its lookups: one
    contiguous copy (a hash lookup's value set) and the hash index, each built once on demand.
    A submission in the ids' own order needs neither, so loading does not pay for them."""

    key: pa.ChunkedArray | None
    _key_array: pa.Array | None
    _key_index: IdIndex | None

    def key_array(self) -> pa.Array:
        """The ids as one contiguous array."""
        if self.key is None:
            raise TaskDataError("answers have no ids but the task declares id columns")
        if self._key_array is None:
            self._key_array = one_chunk(self.key)
        return self._key_array

    def key_index(self) -> IdIndex | None:
        """The ids' hash index (None when the ids are too long for it)."""
        if self.key is None:
            raise TaskDataError("answers have no ids but the task declares id columns")
        if self._key_index is None:
            self._key_index = IdIndex.build(self.key)
        return self._key_index


@dataclass
class IdSet(KeyedIds):
    """A set of ids a submission is checked against (the answers' own ids are one, with
    the answers' extra data): the ids in file order and, built once on demand, one contiguous
    copy and the hash index."""

    key: pa.ChunkedArray
    noun: str
    """What one id is called in messages, e.g. "answer id" or "test id"."""
    _key_array: pa.Array | None = None
    _key_index: IdIndex | None = None

    @property
    def n_rows(self) -> int:
        """How many ids."""
        return len(self.key)
