"""The caps a submission is read under: its size (from the answers' size unless set) and its
number of columns. Set by the caller (grading, the validation server, a batch) and passed down."""

from __future__ import annotations

from dataclasses import dataclass

#: Default cap on the number of columns of a CSV header (checked before parsing).
DEFAULT_MAX_COLUMNS = 10_000


#: Default cap on a file's size when no answers size is known to scale it by.
DEFAULT_MAX_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class Limits:
    """Caps applied before a file is parsed.

    ``max_bytes`` None means: scale with the answers file, ``max(256 MiB, 8 x answers size)``
    (a submission is about as large as its answers; eight times as large is absurd), or
    :data:`DEFAULT_MAX_BYTES` when no answers size is known.
    """

    max_bytes: int | None = None
    max_columns: int = DEFAULT_MAX_COLUMNS

    def byte_cap(self, answers_bytes: int | None) -> int:
        """The effective size cap in bytes."""
        if self.max_bytes is not None:
            return self.max_bytes
        if answers_bytes is None:
            return DEFAULT_MAX_BYTES
        return max(256 * 1024**2, 8 * answers_bytes)
