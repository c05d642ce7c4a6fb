"""Run-length encoded masks: the one strict parser every mask metric uses.

A run-length encoding (RLE) is Kaggle's ``"start length start length ..."``: 1-based pixel
starts in the competition's pixel order, runs sorted by start and not overlapping; an empty
string is an empty mask. Agents write these cells, so every token is checked before any
arithmetic:

* a token is a run of ASCII digits (``0-9``) only: no sign (``+1``), no other script's digits
  (``١``), no underscore (``1_0``), no exponent or decimal point; tokens are separated by
  ASCII spaces or tabs;
* at most :data:`MAX_TOKEN_DIGITS` digits, so that ``start + length`` can never wrap around a
  64-bit integer (a wrapped run once made a bogus mask score Dice 20);
* starts and lengths are >= 1; runs are sorted and do not overlap (touching runs are fine);
* when the image size is known, no run ends beyond the last pixel.

A violation raises :class:`RleError` naming the offending token or run; metrics turn it into
:class:`~tambench.errors.InvalidSubmissionError` (submission side) or
:class:`~tambench.errors.TaskDataError` (answers side).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Longest token accepted: 10**15 pixels is beyond any image, and two such numbers add up far
#: below 2**63.
MAX_TOKEN_DIGITS = 15
#: Characters of an offending token quoted in a message.
QUOTE_CHARS = 24

_VALID_TEXT = re.compile(r"[0-9 \t]*")
_ASCII_SPACE = re.compile(r"[ \t]+")
_TOKEN = re.compile(r"[0-9]+")
#: Rows joined by line feeds, each as :data:`_VALID_TEXT` allows.
_VALID_ROWS = re.compile(r"[0-9 \t\n]*")
#: Offsets that keep rows apart in one sweep stay below this (no int64 overflow).
_OFFSET_LIMIT = 2**62


class RleError(ValueError):
    """A malformed run-length encoding; the message names the token or run at fault."""


def _quote(token: str) -> str:
    shown = token if len(token) <= QUOTE_CHARS else token[:QUOTE_CHARS] + "..."
    return repr(shown)


def _first_bad_token(text: str) -> str:
    for i, tok in enumerate(_ASCII_SPACE.split(text.strip(" \t")), start=1):
        if not _TOKEN.fullmatch(tok):
            return (f"token {i} {_quote(tok)} is not a whole number written with the ASCII "
                    "digits 0-9 (no sign, decimal point, underscore or other script)")
    return "the encoding holds a character other than the digits 0-9, spaces and tabs"


def _tokens(text: str) -> np.ndarray:
    if not _VALID_TEXT.fullmatch(text):
        raise RleError(_first_bad_token(text))
    tokens = text.split()
    if len(tokens) % 2:
        raise RleError(f"a run-length encoding needs start/length pairs, got {len(tokens)} numbers")
    longest = max((len(t) for t in tokens), default=0)
    if longest > MAX_TOKEN_DIGITS:
        big = next(t for t in tokens if len(t) > MAX_TOKEN_DIGITS)
        raise RleError(f"token {_quote(big)} has {len(big)} digits; at most {MAX_TOKEN_DIGITS} "
                       "are accepted (no image has that many pixels)")
    return np.array(tokens, dtype=np.int64)


def _run(starts: np.ndarray, lengths: np.ndarray, i: int) -> str:
    return f"run {i + 1} ('{int(starts[i])} {int(lengths[i])}')"


def parse_rle(text: str, *, n_pixels: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Half-open pixel intervals [start, end) of a run-length encoding, 0-based.

    Args:
        text: the cell, e.g. ``"1 3 10 2"``; empty or blank for an empty mask.
        n_pixels: the image's number of pixels; runs ending beyond it are refused.

    Raises:
        RleError: naming the first malformed token or run.

    >>> [a.tolist() for a in parse_rle("1 3 10 2")]
    [[0, 9], [3, 11]]
    >>> parse_rle("1 3 +10 2")
    Traceback (most recent call last):
    ...
    tambench.core.metrics.rle.RleError: token 3 '+10' is not a whole number written with the ASCII digits 0-9 (no sign, decimal point, underscore or other script)
    """
    values = _tokens(text)
    starts1, lengths = values[0::2], values[1::2]
    if (starts1 < 1).any():
        i = int(np.argmax(starts1 < 1))
        raise RleError(f"{_run(starts1, lengths, i)} starts at pixel 0; starts are 1-based")
    if (lengths < 1).any():
        i = int(np.argmax(lengths < 1))
        raise RleError(f"{_run(starts1, lengths, i)} has length 0; lengths must be >= 1")
    starts = starts1 - 1
    ends = starts + lengths
    if starts.size > 1:
        bad = starts[1:] < ends[:-1]
        if bad.any():
            i = int(np.argmax(bad)) + 1
            raise RleError(f"{_run(starts1, lengths, i)} overlaps or precedes the run before it; "
                           "runs must be sorted by start and must not overlap")
    if n_pixels is not None and ends.size and int(ends[-1]) > n_pixels:
        i = int(np.argmax(ends > n_pixels))
        raise RleError(f"{_run(starts1, lengths, i)} ends at pixel {int(ends[i])}, beyond the "
                       f"image's {n_pixels} pixels")
    return starts, ends


def image_pixels(height: Any, width: Any, n: int, what: str = "answers") -> list[int | None]:
    """Per-row pixel counts from answers columns of heights and widths (None: no bound).

    Raises:
        ValueError: a height or width that is not a positive whole number.
    """
    if height is None or width is None:
        return [None] * n
    h = np.asarray(height, dtype=object).ravel()
    w = np.asarray(width, dtype=object).ravel()
    if h.size != n or w.size != n:
        raise ValueError(f"{what}: expected {n} heights and widths, got {h.size} and {w.size}")
    out: list[int | None] = []
    for i, (a, b) in enumerate(zip(h, w, strict=True)):
        try:
            fa, fb = float(a), float(b)
        except (TypeError, ValueError):
            raise ValueError(f"{what} row {i + 1}: image size {a!r} x {b!r} is not numeric") \
                from None
        if not (fa >= 1 and fb >= 1 and fa == int(fa) and fb == int(fb)):
            raise ValueError(f"{what} row {i + 1}: image size {a!r} x {b!r} must be whole "
                             "numbers >= 1")
        out.append(int(fa) * int(fb))
    return out


def interval_overlap(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> int:
    """Number of pixels two unions of disjoint intervals share.

    >>> interval_overlap(parse_rle("1 4"), parse_rle("3 4"))
    2
    """
    pos = np.concatenate([a[0], a[1], b[0], b[1]])
    if pos.size == 0:
        return 0
    delta = np.concatenate([
        np.ones_like(a[0]), -np.ones_like(a[1]), np.ones_like(b[0]), -np.ones_like(b[1])
    ])
    order = np.argsort(pos, kind="stable")
    coverage = np.cumsum(delta[order])
    gaps = np.diff(pos[order])
    return int(gaps[coverage[:-1] == 2].sum())


def interval_size(a: tuple[np.ndarray, np.ndarray]) -> int:
    """Number of pixels of a parsed encoding."""
    return int((a[1] - a[0]).sum())


def decode_rle(intervals: tuple[np.ndarray, np.ndarray], n_pixels: int) -> np.ndarray:
    """A flat boolean mask of ``n_pixels`` from parsed intervals (checked against the size)."""
    starts, ends = intervals
    if ends.size and int(ends[-1]) > n_pixels:
        raise RleError(f"a run ends at pixel {int(ends[-1])}, beyond the image's {n_pixels} pixels")
    delta = np.zeros(n_pixels + 1, dtype=np.int8)
    np.add.at(delta, starts, 1)
    np.add.at(delta, ends, -1)
    return np.cumsum(delta[:-1]) > 0


#: Runs of many rows: (0-based starts, ends, row of each run), rows in order.
Runs = tuple[np.ndarray, np.ndarray, np.ndarray]


def parse_rle_rows(texts: Sequence[str], n_pixels: Sequence[int | None]) -> Runs | None:
    """Every row's runs in one pass, exactly as :func:`parse_rle` reads each row, or None
    when any row is one :func:`parse_rle` refuses: the caller then parses row by row, which
    names the first fault (this pass only says that there is one).

    >>> [a.tolist() for a in parse_rle_rows(["1 3 10 2", "", "5 1"], [None, None, 9])]
    [[0, 9, 4], [3, 11, 5], [0, 0, 2]]
    >>> parse_rle_rows(["1 3", "3 1 2 1"], [None, None]) is None  # runs out of order
    True
    """
    joined = "\n".join(texts)
    if joined.count("\n") != max(len(texts) - 1, 0) or not _VALID_ROWS.fullmatch(joined):
        return None
    found = _token_rows(joined, len(texts))
    if found is None:
        return None
    token_rows = found
    values = np.fromstring(joined, dtype=np.int64, sep=" ") if token_rows.size \
        else np.empty(0, dtype=np.int64)
    if values.size != token_rows.size:
        return None
    starts1, lengths = values[0::2], values[1::2]
    rows = token_rows[0::2]  # the row of each run: tokens come in row order
    if (starts1 < 1).any() or (lengths < 1).any():
        return None
    starts = starts1 - 1
    ends = starts + lengths
    if ((rows[1:] == rows[:-1]) & (starts[1:] < ends[:-1])).any():
        return None
    unbounded = np.iinfo(np.int64).max
    limit = np.array([unbounded if n is None else n for n in n_pixels], dtype=np.int64)
    if ends.size and (ends > limit[rows]).any():
        return None
    return starts, ends, rows


def _token_rows(joined: str, n_rows: int) -> np.ndarray | None:
    """The row of each token of validated rows joined by line feeds; None when a row has an
    odd number of tokens or a token is too long."""
    b = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    digit = (b >= ord("0")) & (b <= ord("9"))
    edge = np.diff(digit.astype(np.int8), prepend=0, append=0)
    first, past = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    if first.size and int((past - first).max()) > MAX_TOKEN_DIGITS:
        return None
    rows = np.searchsorted(np.flatnonzero(b == ord("\n")), first)
    counts = np.bincount(rows, minlength=n_rows)
    if (counts % 2).any():
        return None
    return rows


def row_overlaps(a: Runs, b: Runs, n_rows: int) -> np.ndarray | None:
    """(3, n_rows) float64: per row, the pixels ``a`` and ``b`` share, ``a``'s and ``b``'s
    pixels; the numbers :func:`interval_overlap` and :func:`interval_size` give row by row.
    None when the rows cannot be laid side by side within int64 (the caller goes row by row).

    Every row's positions are shifted by ``row * width`` (past the last end of any row), so
    one stable sort and one running count cover all rows. Counts are sums of whole numbers
    under 2**53 (runs do not overlap, so a row's total is at most its last end): exact in
    float64.

    >>> row_overlaps(parse_rle_rows(["1 4", ""], [None] * 2),
    ...              parse_rle_rows(["3 4", "1 2"], [None] * 2), 2).tolist()
    [[2.0, 0.0], [4.0, 0.0], [4.0, 2.0]]
    """
    width = 1 + max(int(a[1].max(initial=0)), int(b[1].max(initial=0)))
    if width * n_rows >= _OFFSET_LIMIT:
        return None
    out = np.zeros((3, n_rows), dtype=np.float64)
    out[1] = np.bincount(a[2], weights=(a[1] - a[0]).astype(np.float64), minlength=n_rows)
    out[2] = np.bincount(b[2], weights=(b[1] - b[0]).astype(np.float64), minlength=n_rows)
    shift_a, shift_b = a[2] * width, b[2] * width
    pos = np.concatenate([a[0] + shift_a, a[1] + shift_a, b[0] + shift_b, b[1] + shift_b])
    if pos.size == 0:
        return out
    na, nb = a[0].size, b[0].size
    delta = np.concatenate([np.ones(na, np.int64), -np.ones(na, np.int64),
                            np.ones(nb, np.int64), -np.ones(nb, np.int64)])
    order = np.argsort(pos, kind="stable")
    ordered = pos[order]
    both = np.cumsum(delta[order])[:-1] == 2
    gaps = np.diff(ordered)[both]
    out[0] = np.bincount(ordered[:-1][both] // width, weights=gaps.astype(np.float64),
                         minlength=n_rows)
    return out
