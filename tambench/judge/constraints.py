"""``special_instructions`` -> numbered constraints, split robustly and losslessly."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Constraint:
    """One numbered constraint of a task."""

    number: int
    text: str


@dataclass(frozen=True)
class ParsedInstructions:
    """``special_instructions`` split into a preamble (text before "1.") and constraints."""

    preamble: str
    constraints: list[Constraint]


# A marker candidate: 1-3 digits then "." or ")" at the start of the text or after whitespace,
# followed by whitespace or the end. "0.5", "3.11", "v2." and "1.2.3" never match.
_MARKER_RE = re.compile(r"(?:(?<=\s)|^)(\d{1,3})([.)])(?=\s|$)")
# Abbreviations whose trailing period does not end a sentence ("Fig. 2." is no marker).
_ABBREVIATIONS = frozenset({
    "fig", "figs", "eq", "eqs", "no", "nos", "nr", "sec", "secs", "ch", "chap", "vol", "p", "pp",
    "ref", "refs", "approx", "cf", "vs", "e.g", "i.e", "al", "art", "para", "tab", "ver", "v",
    "op", "cit", "ex", "st", "mr", "ms", "dr", "prof", "inc", "ltd", "co", "corp", "dept",
})
_SENTENCE_END = frozenset(".!?;:)]}\"'`*\u201d\u2019")
_BULLET_RE = re.compile(r"^\s*(?:[-*\u2022\u25cf])\s+(.*\S)\s*$")


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _ends_sentence(before: str) -> bool:
    """Whether the text before a marker candidate ends where a new item may start."""
    stripped = before.rstrip(" \t")
    if not stripped or stripped.endswith(("\n", "\r")):
        return True
    if stripped[-1] not in _SENTENCE_END:
        return False
    if stripped[-1] == ".":
        word = re.search(r"([A-Za-z][A-Za-z.]*)\.$", stripped)
        if word and word.group(1).lower() in _ABBREVIATIONS:
            return False
    return True


def parse_instructions(text: str) -> ParsedInstructions:
    """Split ``special_instructions`` into numbered constraints, robustly.

    A marker ``N.`` (or ``N)``, the style of the first marker) starts constraint N only when N
    is the next number in sequence, it stands at the start of the text or of a line or follows
    the end of a sentence, and it is followed by whitespace. So a stray "2." inside a sentence,
    decimals ("0.5"), versions ("3.11", "v2."), and "Fig. 2." never split a constraint. Text
    without numbering gives one constraint per bullet line, else one constraint in all.
    Whitespace inside a constraint is collapsed. Nothing is dropped: text before "1." is the
    preamble.

    >>> [c.text for c in parse_instructions("1. Use v2. 2. Keep 0.5 as is. 3. Done").constraints]
    ['Use v2.', 'Keep 0.5 as is.', 'Done']
    """
    if not text or not text.strip():
        return ParsedInstructions("", [])
    starts: list[tuple[int, int, int]] = []  # (number, marker start, text start)
    style: str | None = None
    for m in _MARKER_RE.finditer(text):
        number, delim = int(m.group(1)), m.group(2)
        expected = len(starts) + 1
        if number != expected or (style is not None and delim != style):
            continue
        if not _ends_sentence(text[: m.start()]):
            continue
        starts.append((number, m.start(), m.end()))
        style = delim
    if not starts:
        bullets = [b.group(1) for line in text.splitlines() if (b := _BULLET_RE.match(line))]
        non_bullet = [ln for ln in text.splitlines() if ln.strip() and not _BULLET_RE.match(ln)]
        if len(bullets) >= 2 and not non_bullet:
            return ParsedInstructions("", [Constraint(i, _collapse(b))
                                           for i, b in enumerate(bullets, 1)])
        return ParsedInstructions("", [Constraint(1, _collapse(text))])
    preamble = _collapse(text[: starts[0][1]])
    out: list[Constraint] = []
    for i, (number, _, begin) in enumerate(starts):
        end = starts[i + 1][1] if i + 1 < len(starts) else len(text)
        body = _collapse(text[begin:end])
        if body:
            out.append(Constraint(number, body))
    return ParsedInstructions(preamble, out)


def parse_constraints(text: str) -> list[Constraint]:
    """The numbered constraints of ``special_instructions`` (see :func:`parse_instructions`).

    >>> parse_constraints("1. Use CNNs. 2. Output probabilities (see Fig. 2. below).")[1].text
    'Output probabilities (see Fig. 2. below).'
    """
    return parse_instructions(text).constraints
