"""Word patterns that stay fast on long text.

Most patterns the mappers run on page text name words: ``\\bauc\\b``, ``\\bevaluated on``. Python's
``re`` scans for such a pattern by trying every position of the text when the pattern begins
with ``\\b`` or is case-insensitive, about 100 ns a character; an 8 MB page under an Evaluation
heading, read by sixty metric terms, then takes minutes. A :class:`WordPattern` keeps the
pattern's meaning and scans at the speed of a plain search:

* the text is lowered once, keeping every character's position (:func:`lower`), and the
  pattern runs case-sensitively on it (its source is written in lower case);
* the leading ``\\b`` of every top-level alternative is checked by hand at each hit instead of by
  the engine, so that ``re`` can skip to the positions where an alternative's first letter
  occurs.

A hit is the match the original pattern gives at that position: same span, same groups (on the
lowered text). Every search starts where the previous one ended, so scanning stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cached_property

_TURKISH_DOTTED_I = "\u0130"  # the one character whose lower case is two characters long
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lower(text: str) -> str:
    """``text`` in lower case, one character for one (positions are kept).

    >>> lower("AUC-ROC İ")
    'auc-roc i'
    """
    low = text.replace(_TURKISH_DOTTED_I, "i").lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def alternatives(source: str) -> list[str]:
    """The top-level alternatives of a pattern source (``|`` outside groups and classes).

    >>> alternatives(r"\\ba(?:b|c)|\\b[|]d")
    ['\\\\ba(?:b|c)', '\\\\b[|]d']
    """
    out: list[str] = []
    depth, start, i, n = 0, 0, 0, len(source)
    in_class = False
    while i < n:
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if source.startswith("]", i + 1) or source.startswith("^]", i + 1):
                i += 2 if source[i + 1] == "]" else 3
                continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(source[start:i])
            start = i + 1
        i += 1
    out.append(source[start:])
    return out


def _is_word(text: str, i: int) -> bool:
    return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")


def word_start(text: str, i: int) -> bool:
    """Whether ``\\b`` holds at ``i`` (a word character on exactly one side)."""
    return _is_word(text, i - 1) != _is_word(text, i)


class WordPattern:
    """A pattern whose every top-level alternative begins with ``\\b``, scanned fast.

    ``cased`` patterns keep their letters' case and run on the text as it is; the others are
    case-insensitive: written in lower case and run on :func:`lower` of the text.
    """

    def __init__(self, source: str, *, cased: bool = False) -> None:
        alts = alternatives(source)
        bare = [a for a in alts if not a.startswith("\\b")]
        if bare:
            raise ValueError(f"every alternative must begin with \\b: {bare[0]!r}")
        if not cased and _has_upper(source):
            raise ValueError(f"a case-insensitive word pattern is written in lower case: "
                             f"{source!r}")
        self.cased = cased
        self.source = source
        self.scan = re.compile("|".join(a[2:] for a in alts))

    @cached_property
    def exact(self) -> re.Pattern[str]:
        """The pattern as written (case-insensitive unless ``cased``), compiled on first use
        (the mapper scans with :attr:`scan`; this one is for audits of the pattern)."""
        return re.compile(self.source, 0 if self.cased else re.IGNORECASE)

    def text_for(self, text: str, low: str | None = None) -> str:
        """The text this pattern scans: ``text`` itself when cased, else its lowered copy."""
        if self.cased:
            return text
        return lower(text) if low is None else low

    def search(self, text: str, pos: int = 0, *, low: str | None = None
               ) -> re.Match[str] | None:
        """The leftmost match at or after ``pos`` (on the lowered text unless cased); pass
        ``low`` (``lower(text)``) when several patterns read the same text."""
        scanned = self.text_for(text, low)
        while True:
            m = self.scan.search(scanned, pos)
            if m is None or word_start(scanned, m.start()):
                return m
            pos = m.start() + 1

    def finditer(self, text: str, *, low: str | None = None) -> Iterator[re.Match[str]]:
        """Non-overlapping matches, left to right (as ``re.finditer`` of the original)."""
        scanned = self.text_for(text, low)
        pos = 0
        while pos <= len(scanned):
            m = self.search(scanned, pos, low=scanned)
            if m is None:
                return
            yield m
            pos = m.end() if m.end() > m.start() else m.end() + 1


def _has_upper(source: str) -> bool:
    """Whether a pattern source holds an upper-case letter outside escapes (``\\S``, ``\\W``)."""
    i = 0
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source[i].isupper():
            return True
        i += 1
    return False
