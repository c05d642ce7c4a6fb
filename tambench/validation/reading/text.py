"""How messages quote what a file holds: values cut to a length, lists shortened, sizes in words.

Every message about a submission quotes only the submission's own text (and public names),
cut by these helpers, so a message can never grow with a hostile file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: How many example lines/ids/rows a message lists.
MAX_EXAMPLES = 5


#: How many characters of one submitted value (an id, a cell, a column name) a message quotes.
MAX_ECHO_CHARS = 80


#: How many names of a submitted header a message lists.
MAX_NAMES = 20


#: No single problem message is longer than this (a last bound, whatever built the message).
MAX_MESSAGE_CHARS = 2000


def clip(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a count of what was cut.

    >>> clip("sep=,"), clip("abcdef", limit=2)
    ('sep=,', 'ab... (+4 characters)')
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (+{len(text) - limit} characters)"


def echo(value: object, limit: int = MAX_ECHO_CHARS) -> str:
    """A submitted value as a message quotes it: its ``repr``, cut to ``limit`` characters
    with a count of what was cut, so that a 1 MB id gives a short message.

    >>> echo("r1"), echo("x" * 1000, limit=4)
    ("'r1'", "'xxxx'... (+996 characters)")
    """
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... (+{len(text) - limit} characters)"


def echo_list(values: Sequence[object], limit: int = MAX_NAMES) -> str:
    """A list of submitted names (a header, say) with each name and the length bounded.

    >>> echo_list(["id", "y"]), echo_list([str(i) for i in range(30)], limit=2)
    ("['id', 'y']", "['0', '1', ... (30 in all)]")
    """
    shown = ", ".join(echo(v) for v in values[:limit])
    more = f", ... ({len(values)} in all)" if len(values) > limit else ""
    return f"[{shown}{more}]"


def bound_message(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """A message of at most ``limit`` characters: a longer one is cut, with a count of what
    was cut (so bounding twice changes nothing).

    >>> bound_message("a" * 50, limit=40)
    'aaaaaaaaaaaaaaaa... (+34 characters cut)'
    """
    if len(message) <= limit:
        return message
    suffix = f"... (+{len(message)} characters cut)"  # an upper bound of the suffix's length
    keep = max(0, limit - len(suffix))
    return f"{message[:keep]}... (+{len(message) - keep} characters cut)"


def human_bytes(n: int) -> str:
    """A byte count for messages: ``512 bytes``, ``3.0 GiB``."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return f"{n} bytes"  # pragma: no cover


def format_examples(values: Sequence[Any], total: int | None = None) -> str:
    """``(k of n): ['a', 'b']`` with at most :data:`MAX_EXAMPLES` values shown, each cut to
    :data:`~tambench.validation.reading.text.MAX_ECHO_CHARS` characters (:func:`echo`)."""
    total = len(values) if total is None else total
    shown = list(values)[:MAX_EXAMPLES]
    more = "" if total <= len(shown) else ", ..."
    inner = ", ".join(echo(v) for v in shown)
    return f"({len(shown)} of {total}): [{inner}{more}]"
