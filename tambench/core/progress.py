"""Progress of long commands (acquire, prepare, grade-runs, subsets), always on stderr.

On a terminal the line is redrawn in place; otherwise (a pipe, a CI log) one line is written
at most every ``min_interval`` seconds plus the last one, so logs stay short. ``--json`` output
on stdout is never touched. A command wraps its loop in :class:`Progress` and says what it has
kept so far; Ctrl-C then ends with that sentence instead of a silent exit:

>>> import io
>>> err = io.StringIO()
>>> with Progress("runs graded", total=3, stream=err, min_interval=0) as p:
...     for _ in range(3):
...         p.advance()
>>> err.getvalue().splitlines()[-1]
'runs graded: 3/3'
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO


class Progress:
    """Count done items of one long step and report them on stderr.

    Args:
        what: what is counted, e.g. "runs graded".
        total: the number of items when known.
        kept: called on Ctrl-C; returns a sentence saying what was kept ("report not written;
            3 task folders complete").
        quiet: report nothing (tests, library use).
    """

    def __init__(
        self,
        what: str,
        total: int | None = None,
        *,
        kept: Callable[[], str] | None = None,
        stream: TextIO | None = None,
        quiet: bool = False,
        min_interval: float = 2.0,
    ) -> None:
        self.what = what
        self.total = total
        self.done = 0
        self._kept = kept
        self._stream = stream if stream is not None else sys.stderr
        self._quiet = quiet
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._min_interval = min_interval
        self._last = 0.0

    def _line(self, note: str = "") -> str:
        count = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        return f"{self.what}: {count}" + (f" ({note})" if note else "")

    def advance(self, n: int = 1, note: str = "") -> None:
        """Count ``n`` more items done; ``note`` names the latest (a task id, a run)."""
        self.done += n
        if self._quiet:
            return
        now = time.monotonic()
        final = self.total is not None and self.done >= self.total
        if not final and now - self._last < self._min_interval:
            return
        self._last = now
        if self._tty:
            self._stream.write("\r\x1b[K" + self._line(note))
            if final:
                self._stream.write("\n")
        else:
            self._stream.write(self._line(note) + "\n")
        self._stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is KeyboardInterrupt and not self._quiet:
            if self._tty:
                self._stream.write("\n")
            kept = self._kept() if self._kept else ""
            self._stream.write(
                f"interrupted after {self._line()}" + (f"; {kept}" if kept else "") + "\n"
            )
            self._stream.flush()
