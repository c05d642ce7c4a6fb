"""The one table renderer of every command and of the demo: plain text columns that fit.

A table is a list of :class:`Column` and rows of cells. Where it goes decides how it looks:

* to a terminal ``width`` columns wide: a header, a rule under it, and rows, fitted to the
  width. Identifier columns (``key=True``: an id, an agent, a path) are never cut or left out.
  When the table is too wide, the least important columns (lowest ``priority``) are left out
  until the rest fits with its free-text columns (those with a ``min_width``) at their
  shortest; those are then cut (ending with ``…``) only as much as needed. A last line names
  the columns left out;
* anywhere else (a pipe, a file): plain fixed columns, every cell whole, no rule and no width
  limit, so ``grep``, ``cut`` and ``awk`` read it; ``tsv=True`` gives tab-separated values.

A column whose every cell is empty (``None`` or ``""``) is not shown at all, unless it says
``always``: one whose emptiness is news (a catalogue without dates).

>>> cols = [Column("id", key=True), Column("metric", priority=2),
...         Column("notes", min_width=5), Column("unused")]
>>> rows = [("kaggle/spaceship-titanic", "accuracy", "a long note about the task", None),
...         ("biendata/pst", "map", "", None)]
>>> print(render_table(cols, rows), end="")
id                        metric    notes
kaggle/spaceship-titanic  accuracy  a long note about the task
biendata/pst              map
>>> print(render_table(cols, rows, width=42), end="")
id                        metric    notes
────────────────────────  ────────  ──────
kaggle/spaceship-titanic  accuracy  a lon…
biendata/pst              map
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Literal

#: Columns between two cells.
GAP = 2
#: What ends a cut cell.
ELLIPSIS = "…"


@dataclass(frozen=True)
class Column:
    """One column of a table."""

    header: str
    """The column's name, printed in the header."""
    priority: int = 0
    """How important the column is: on a narrow terminal the lowest are shortened, then left
    out, first."""
    key: bool = False
    """An identifier (an id, a name, a path): never cut, never left out."""
    align: Literal["left", "right"] = "left"
    """Right for numbers."""
    min_width: int | None = None
    """Free text that may be cut (ending with ``…``) down to this many characters on a narrow
    terminal, header included; None: the column is whole or left out, never cut."""
    always: bool = False
    """Shown even when every cell is empty (left out on a narrow terminal all the same)."""


def cell_width(text: str) -> int:
    """Terminal columns ``text`` takes: 2 for a wide (East Asian) character, 0 for a combining
    mark, else 1.

    >>> cell_width("abc"), cell_width("日本"), cell_width("é")
    (3, 4, 1)
    """
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(ch) else
               2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` terminal columns, ending with ``…`` when cut.

    >>> cut("spaceship-titanic", 8), cut("short", 8)
    ('spacesh…', 'short')
    """
    if cell_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = cell_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + ELLIPSIS


def _pad(text: str, width: int, align: str) -> str:
    fill = " " * max(0, width - cell_width(text))
    return fill + text if align == "right" else text + fill


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _fit(cols: list[Column], widths: list[int], width: int) -> tuple[list[int], list[bool]]:
    """Column widths and which columns are shown so that the table fits ``width``: leave out
    the least important columns until what is left fits with its free-text columns at their
    shortest, then shorten those (least important first) only as much as needed. Identifiers
    are untouched; a table of identifiers alone may stay wider than ``width``."""
    shown = [True] * len(cols)
    order = sorted((i for i, c in enumerate(cols) if not c.key),
                   key=lambda i: (cols[i].priority, -i))

    def total(ws: list[int]) -> int:
        kept = [w for w, s in zip(ws, shown, strict=True) if s]
        return sum(kept) + GAP * (len(kept) - 1)

    def shortest(i: int) -> int:
        least = cols[i].min_width
        return widths[i] if least is None else min(widths[i], least)

    for i in order:
        if total([shortest(j) for j in range(len(cols))]) <= width:
            break
        shown[i] = False
    out = list(widths)
    for i in order:
        over = total(out) - width
        if over <= 0:
            break
        if shown[i]:
            out[i] = max(shortest(i), out[i] - over)
    return out, shown


def render_table(columns: Sequence[Column], rows: Iterable[Sequence[object]], *,
                 width: int | None = None, tsv: bool = False) -> str:
    """The table as text, one line per row after the header (see the module docstring).

    Args:
        columns: the columns, in order.
        rows: one sequence of cells per row (any values; None is an empty cell).
        width: the terminal's width, or None for output that is not a terminal.
        tsv: tab-separated values (with ``width`` None): cells whole, tabs and newlines in a
            cell written as spaces.
    """
    table = [[_text(v) for v in row] for row in rows]
    used = [i for i, c in enumerate(columns) if c.always or any(r[i] for r in table)]
    cols = [columns[i] for i in used]
    cells = [[r[i] for i in used] for r in table]
    if tsv:
        def clean(s: str) -> str:
            return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")
        lines = ["\t".join(clean(c.header) for c in cols)]
        lines += ["\t".join(clean(x) for x in r) for r in cells]
        return "".join(line + "\n" for line in lines)
    widths = [max([cell_width(c.header), *(cell_width(r[j]) for r in cells)])
              for j, c in enumerate(cols)]
    shown = [True] * len(cols)
    if width is not None:
        widths, shown = _fit(cols, widths, width)
    keep = [j for j in range(len(cols)) if shown[j]]

    def line(texts: list[str]) -> str:
        parts = [_pad(cut(texts[j], widths[j]), widths[j], cols[j].align) for j in keep]
        return (" " * GAP).join(parts).rstrip()

    out = [line([c.header for c in cols])]
    if width is not None:
        out.append((" " * GAP).join("─" * widths[j] for j in keep))
    out += [line(r) for r in cells]
    left_out = [cols[j].header for j in range(len(cols)) if not shown[j]]
    if left_out:
        note = f"(left out at {width} columns: {', '.join(left_out)})"
        out += textwrap.wrap(note, width or len(note), break_long_words=False)
    return "".join(f"{x}\n" for x in out)


def terminal_width(stream: IO[str] | None = None) -> int | None:
    """The width of the terminal ``stream`` (default stdout) writes to, or None when it is
    not a terminal. ``COLUMNS`` wins when set, as for every terminal program."""
    stream = stream or sys.stdout
    try:
        is_tty = stream.isatty()
    except (AttributeError, ValueError):
        is_tty = False
    if not is_tty:
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return shutil.get_terminal_size((80, 24)).columns


def print_table(columns: Sequence[Column], rows: Iterable[Sequence[object]], *,
                stream: IO[str] | None = None, tsv: bool = False) -> None:
    """Print a table to ``stream`` (default stdout), fitted when it is a terminal."""
    stream = stream or sys.stdout
    width = None if tsv else terminal_width(stream)
    stream.write(render_table(columns, rows, width=width, tsv=tsv))
