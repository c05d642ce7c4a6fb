"""Strict reading of a leaderboard's numeric cells: scores, ranks and entry counts.

Only ASCII numbers are numbers: ``float()`` alone would also take ``1_000``, Arabic-Indic
digits or surrounding spaces inside quotes, and ``int(float(...))`` crashed on ``inf`` and
``1e400``. A cell that is not a number is a per-row problem (junk rule ``unparseable``), never
an exception.

Commas in scores are read by their shape, and by the board's convention when one is visible:

* ``1,234,567`` and ``1,234.5`` can only be thousands separators;
* ``0,5``, ``12,25`` or ``1234,5`` can only be a decimal comma (thousands separators come in
  groups of three digits, after a first group that does not start with 0);
* ``1,234`` could be either: it is read with the board's convention (the unambiguous cells
  show it), as thousands when the board shows none;
* a board whose cells show both conventions has its comma cells refused: such a cell is never
  guessed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Literal

#: How a board writes commas: ``decimal`` (0,5), ``thousands`` (1,234,567), ``mixed`` (both:
#: its comma cells cannot be read), or None (no cell says).
CommaConvention = Literal["decimal", "thousands", "mixed"] | None

_PLAIN = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                    r"|[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_THOUSANDS = re.compile(r"[+-]?[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+(?:[eE][+-]?[0-9]+)?")
_WHOLE = re.compile(r"[+-]?([0-9]{1,18})(?:\.0*)?")


def clean_cell(text: str | None) -> str:
    """A cell without surrounding spaces and quotes."""
    return (text or "").strip().strip('"').strip()


def comma_kind(s: str) -> str | None:
    """``thousands``, ``decimal``, ``ambiguous`` or ``bad`` for a cell holding a comma; None
    for one without.

    >>> [comma_kind(s) for s in ("0,5", "1,234", "1,234,567", "1,234.5", "1,2,3", "0.5")]
    ['decimal', 'ambiguous', 'thousands', 'thousands', 'bad', None]
    """
    if "," not in s:
        return None
    thousands, decimal = _THOUSANDS.fullmatch(s), _DECIMAL_COMMA.fullmatch(s)
    if thousands and decimal:
        return "ambiguous"
    return "thousands" if thousands else "decimal" if decimal else "bad"


def comma_convention(cells: Iterable[str]) -> CommaConvention:
    """The convention a board's score cells show (see the module docstring).

    >>> comma_convention(["0,9", "1,234"]), comma_convention(["12,345,678", "1,234"])
    ('decimal', 'thousands')
    >>> comma_convention(["1,234", "0.5"]), comma_convention(["0,5", "1,234,567"])
    (None, 'mixed')
    """
    kinds = {comma_kind(clean_cell(c)) for c in cells}
    if "decimal" in kinds and "thousands" in kinds:
        return "mixed"
    if "decimal" in kinds:
        return "decimal"
    return "thousands" if "thousands" in kinds else None


def read_score(text: str | None, comma: CommaConvention = None
               ) -> tuple[float, str | None, str]:
    """(value, junk rule, detail) of a score cell; the rule is None for a finite number.

    >>> read_score("0,5"), read_score("1,234")[0], read_score("1,234", "decimal")[0]
    ((0.5, None, ''), 1234.0, 1.234)
    >>> read_score("1e400")[1:], read_score("١٢")[1]
    (('non_finite', "score '1e400' is not finite"), 'unparseable')
    """
    s = clean_cell(text)
    if s == "":
        return math.nan, "missing", "empty score"
    kind = comma_kind(s)
    if kind is None:
        if not _PLAIN.fullmatch(s):
            return math.nan, "unparseable", f"score {s!r} is not a number"
        value = float(s)
    elif kind == "bad":
        return math.nan, "unparseable", f"score {s!r} is not a number"
    elif comma == "mixed":
        return math.nan, "unparseable", (
            f"score {s!r}: this board writes commas both as a decimal mark and as a thousands "
            "separator; it is not guessed")
    else:
        decimal = kind == "decimal" or (kind == "ambiguous" and comma == "decimal")
        value = float(s.replace(",", ".") if decimal else s.replace(",", ""))
    if not math.isfinite(value):
        return value, "non_finite", f"score {s!r} is not finite"
    return value, None, ""


def read_whole(text: str | None, what: str, least: int = 0) -> tuple[int | None, str | None]:
    """(number, problem) of a cell that must hold a whole number of at least ``least`` (an
    empty cell is None without a problem; ``3.0`` is 3).

    >>> read_whole("12", "rank", 1), read_whole("", "rank", 1)
    ((12, None), (None, None))
    >>> read_whole("inf", "rank", 1)
    (None, "rank 'inf' is not a whole number")
    """
    s = clean_cell(text)
    if not s:
        return None, None
    m = _WHOLE.fullmatch(s)
    if m is None:
        return None, f"{what} {s[:40]!r} is not a whole number"
    value = int(s.split(".", 1)[0])
    if value < least:
        return None, f"{what} {s!r} is below {least}"
    return value, None
