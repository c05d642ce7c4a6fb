"""Parsing whole-file text formats: JSON documents and plain-text line files."""

from __future__ import annotations

import json
from typing import Any

from tambench.grading.files import ErrorFactory


def split_lines(text: str) -> list[str]:
    """Lines of a text file: CRLF normalised, trailing blank lines dropped."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (only finite numbers)")


def parse_json(text: str, what: str, error: ErrorFactory) -> Any:
    """Parse a JSON document strictly (NaN and infinity refused), raising ``error`` with the
    line and column of the first problem."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise error([
            f"{what} is not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ]) from None
    except ValueError as exc:  # NaN / Infinity constants
        raise error([f"{what} is not valid JSON: {exc}"]) from None
    except RecursionError:
        raise error([f"{what} JSON is nested too deeply"]) from None
