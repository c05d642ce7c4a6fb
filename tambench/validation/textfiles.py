"""Parsing whole-file text formats: JSON documents and plain-text line files."""

from __future__ import annotations

from typing import Any

from tambench.core.bounded import Bounds
from tambench.core.bounded import parse_json as parse_bounded
from tambench.validation.reading.files import ErrorFactory
from tambench.validation.reading.text import MAX_EXAMPLES, format_examples

#: The submission's size is capped before it is read (``Limits``); its integers may be as long
#: as Python reads (ids compared as text), its nesting as deep as the parser goes (about 1,000
#: levels; deeper is refused, never a RecursionError); a literal beyond the float range is left
#: to validation, which names the rows holding it.
SUBMISSION_BOUNDS = Bounds(max_bytes=2**62, max_depth=None, max_int_digits=4300,
                           finite_floats=False)


def split_lines(text: str) -> list[str]:
    """Lines of a text file: CRLF normalised, trailing blank lines dropped."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


class _Refused(Exception):
    """The loader's refusal, turned into the submission's problem list."""


class _DuplicateKeys:
    """An ``object_pairs_hook`` that builds dicts and remembers keys given twice in one object
    (``json`` would keep the last silently; duplicated ids are refused, like in a CSV)."""

    def __init__(self) -> None:
        self.count = 0
        self.examples: list[str] = []

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.count += 1
                    if len(self.examples) < MAX_EXAMPLES and key not in self.examples:
                        self.examples.append(key)
                seen.add(key)
        return out


def parse_json(text: str, what: str, error: ErrorFactory) -> Any:
    """Parse a JSON document strictly, through the bounded loader (NaN and infinity refused,
    nesting and integers bounded, a key given twice in one object refused), raising ``error``
    with the line and column of the first problem."""
    duplicates = _DuplicateKeys()
    try:
        doc = parse_bounded(text, what, error=_Refused, bounds=SUBMISSION_BOUNDS,
                         object_pairs_hook=duplicates)
    except _Refused as exc:
        raise error([str(exc)]) from None
    if duplicates.count:
        raise error([
            f"{what} JSON gives {duplicates.count} key(s) a second time in the same object "
            f"{format_examples(duplicates.examples, duplicates.count)}; expected each key once "
            "(a repeated key would silently replace the first value)"
        ])
    return doc
