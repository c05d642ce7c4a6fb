"""Parsing whole-file text formats: JSON documents and plain-text line files."""

from __future__ import annotations

import json
from typing import Any

from tambench.grading.csvio import format_examples
from tambench.grading.files import MAX_EXAMPLES, ErrorFactory


def split_lines(text: str) -> list[str]:
    """Lines of a text file: CRLF normalised, trailing blank lines dropped."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (only finite numbers)")


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
    """Parse a JSON document strictly (NaN and infinity refused, a key given twice in one
    object refused), raising ``error`` with the line and column of the first problem."""
    duplicates = _DuplicateKeys()
    try:
        doc = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=duplicates)
    except json.JSONDecodeError as exc:
        raise error([
            f"{what} is not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ]) from None
    except ValueError as exc:  # NaN / Infinity constants
        raise error([f"{what} is not valid JSON: {exc}"]) from None
    except RecursionError:
        raise error([f"{what} JSON is nested too deeply"]) from None
    if duplicates.count:
        raise error([
            f"{what} JSON gives {duplicates.count} key(s) a second time in the same object "
            f"{format_examples(duplicates.examples, duplicates.count)}; expected each key once "
            "(a repeated key would silently replace the first value)"
        ])
    return doc
