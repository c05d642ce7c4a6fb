"""Shared rich consoles: results on stdout, progress and errors on stderr.

Both consoles treat text as data: no console markup (``[red]`` in a name stays as written),
no emoji codes, no highlighting. A styled word is asked for explicitly
(``console.print(Text("failed", style="red"))`` or ``markup=True`` on a literal with escaped
data). Piped output is not wrapped: ids and paths stay whole on one line; only a terminal
wraps at its width.
"""

from __future__ import annotations

import json
import os
from typing import Any

from rich.console import Console, ConsoleDimensions

#: Width of output that is not a terminal: wide enough that no line is ever wrapped.
UNWRAPPED_WIDTH = 100_000


class DataConsole(Console):
    """A console for data: markup off, and lines unwrapped unless it writes to a terminal."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        kwargs.setdefault("emoji", False)
        kwargs.setdefault("highlight", False)
        super().__init__(**kwargs)

    def on_broken_pipe(self) -> None:
        """The reader of this console's output went away (``| head``): print nothing more and
        let the command finish its work, so that it ends with its own exit code (rich's own
        handler exits 1; a batch cut short by a closed pipe would lose its reports)."""
        self.quiet = True
        discard_output(self.file)

    @property
    def size(self) -> ConsoleDimensions:
        """The terminal's size, or an unbounded width when output goes to a pipe or file."""
        if not self.is_terminal:
            return ConsoleDimensions(UNWRAPPED_WIDTH, 25)
        return super().size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        width, height = new_size
        self._width = width
        self._height = height


def discard_output(stream: Any) -> None:
    """Point ``stream``'s file descriptor at /dev/null, so that nothing more (not even
    Python's flush at exit) writes to a pipe whose reader has gone."""
    try:
        fd = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a file descriptor (a test's capture)
        pass


console = DataConsole(soft_wrap=True)
err_console = DataConsole(stderr=True)


def print_json(data: Any) -> None:
    """Print strict JSON (NaN and inf refused) on stdout."""
    typer_safe = json.dumps(data, indent=2, allow_nan=False, ensure_ascii=False)
    print(typer_safe)
