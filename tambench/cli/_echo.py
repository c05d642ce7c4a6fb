"""Plain lines of data on stdout or stderr, for commands that print a few lines (``grade``,
errors): the same text the rich consoles of :mod:`tambench.cli._console` print, without
importing rich (about 20 ms of start-up).

As there, text is data: no markup is read from it, and the terminal control codes rich drops
(bell, backspace, vertical tab, form feed, carriage return) are dropped here too, so a value
cannot rewrite the line it is printed on.
"""

from __future__ import annotations

import sys

#: Control codes removed from printed text (rich's Console removes the same ones).
_DROPPED = dict.fromkeys((0x07, 0x08, 0x0B, 0x0C, 0x0D))


def echo(text: str, *, err: bool = False) -> None:
    """Print one line of data on stdout, or on stderr with ``err=True``."""
    print(text.translate(_DROPPED), file=sys.stderr if err else sys.stdout)
