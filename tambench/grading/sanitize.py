"""Text that agents control (folder names, messages that echo submission values), made safe.

Each output gets its own treatment, applied once where that output is written:

* reports (JSON rows): :func:`report_text` writes control characters, bidirectional overrides,
  invisible format characters and undecodable bytes as visible escapes (``\\x1b``, ``\\u202e``)
  and cuts the text to a bounded length, saying how much was cut;
* terminal: the same text, printed without console markup (see ``tambench.cli._console``);
* CSV: :func:`csv_field` quotes by RFC 4180 and :func:`escape_formula` neutralises a cell a
  spreadsheet would read as a formula;
* HTML: ``html.escape`` on text already free of control characters, data for scripts through
  :func:`json_for_script`;
* figures: :func:`figure_label` (mathtext is also switched off where figures are drawn).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

#: Longest agent, task or run name kept in a report.
MAX_NAME = 200
#: Longest message kept in a report.
MAX_MESSAGE = 1_000
#: Messages kept per run (the rest are counted).
MAX_MESSAGES = 20

# C0 and C1 controls, DEL, zero-width and bidirectional format characters, line and paragraph
# separators, the BOM, interlinear annotations, noncharacters and lone surrogates (undecodable
# bytes of a file name arrive as U+DC80-U+DCFF through surrogateescape).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb"
    "\ufffe\uffff\ud800-\udfff]"
)


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """Text with every unsafe character written as a visible escape.

    >>> printable("a\\x1b[31mb\\u202ec\\udcff")
    'a\\\\x1b[31mb\\\\u202ec\\\\xff'
    """
    return _UNSAFE.sub(_escape_char, text)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending with how many were cut.

    >>> clip("abcdef", 3)
    'abc... [3 more characters cut]'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text) - limit} more characters cut]"


def report_text(text: Any, limit: int = MAX_MESSAGE) -> str:
    """Any value as report text: printable and bounded."""
    return clip(printable(str(text)), limit)


def report_name(name: str) -> str:
    """An agent, task or run folder name as the reports show it."""
    return report_text(name, MAX_NAME)


def report_messages(messages: Iterable[Any], limit: int = MAX_MESSAGES) -> list[str]:
    """At most ``limit`` messages, each bounded, plus one line counting those left out."""
    out: list[str] = []
    extra = 0
    for m in messages:
        if len(out) < limit:
            out.append(report_text(m))
        else:
            extra += 1
    if extra:
        out.append(f"... and {extra} more message(s) not shown")
    return out


# --- CSV ----------------------------------------------------------------------------------------

_FORMULA_START = frozenset("=+-@\uff1d\uff0b\uff0d\uff20")
_LEADING_BLANK = re.compile(r"^[\s\x00-\x1f\x7f]*")


def escape_formula(text: str) -> str:
    """Prefix a single quote to a cell a spreadsheet could read as a formula.

    A cell is neutralised when its first character, after any leading blanks or control
    characters (which spreadsheets skip), is ``=``, ``+``, ``-``, ``@`` or their full-width
    forms, or when it starts with a tab, CR or LF.

    >>> escape_formula("=cmd|'/C calc'!A0"), escape_formula(" \\r=1+1"), escape_formula("ok")
    ("'=cmd|'/C calc'!A0", "' \\r=1+1", 'ok')
    """
    if not text:
        return text
    rest = text[_LEADING_BLANK.match(text).end():]  # type: ignore[union-attr]
    if text[0] in "\t\r\n" or (rest and rest[0] in _FORMULA_START):
        return "'" + text
    return text


def csv_field(text: str) -> str:
    r'''One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF; quotes doubled.

    >>> csv_field('a,b'), csv_field('say "hi"'), csv_field('a\rb'), csv_field('plain')
    ('"a,b"', '"say ""hi"""', '"a\rb"', 'plain')
    '''
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_line(fields: Iterable[str]) -> str:
    """One CSV record ending in CRLF (RFC 4180)."""
    return ",".join(csv_field(f) for f in fields) + "\r\n"


# --- HTML and figures ---------------------------------------------------------------------------


def json_for_script(data: Any) -> str:
    """Strict JSON safe inside an HTML ``<script type="application/json">`` element.

    ``<``, ``>`` and ``&`` are written as ``\\u003c``-style escapes, so no value can close the
    element or open a comment; U+2028 and U+2029 are escaped too.
    """
    text = json.dumps(data, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def figure_label(text: str, limit: int = 40) -> str:
    """A name as a figure label: printable and short (mathtext is off where figures are drawn).

    >>> figure_label("agent-with-a-very-long-name-that-goes-on-and-on-and-on")
    'agent-with-a-very-long-name-that-goes-o…'
    """
    text = printable(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"
