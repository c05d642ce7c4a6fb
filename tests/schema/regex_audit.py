"""A static audit of regular expressions: the shapes that make Python's backtracking engine
super-linear on hostile text.

A pattern run on page text must not hold:

* **nested**: an unbounded repeat inside another repeat of more than one (``(a+)*``,
  ``(?:\\w+\\s+){0,4}``; an optional group ``(?:-\\s+)?`` is fine);
* **group**: an unbounded repeat of a group (``(?:ab)*``); only single-character sets repeat
  without a bound;
* **adjacent**: two unbounded repeats in a row whose character sets overlap, with between them
  only items that may be empty or that the first repeat could take as well
  (``\\s*(.*?)\\s*``, ``[^$]*\\\\frac[^$]*``): the engine tries every split of a run;
* **rescan**: an unbounded repeat whose set holds a character the pattern can start with, in a
  pattern searched at every position (``\\[[^\\]]*\\]`` on ``[[[[...``): each start scans to
  the end. Patterns anchored at the text's start (``^``, ``\\A``), or guarded by a lookbehind
  whose set the repeat cannot match, are exempt.

Character sets are compared over a sample alphabet (ASCII and a few non-ASCII letters and
spaces), which is enough to tell the classes these patterns use apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants as C  # noqa: N812
from re import _parser as P  # noqa: N812
from typing import Any

SAMPLE = "".join(chr(i) for i in range(128)) + "øβéü\u00a0\u2013\u2014İſ²"
_ALL = frozenset(SAMPLE)
_CATEGORIES = {
    C.CATEGORY_WORD: frozenset(c for c in SAMPLE if c.isalnum() or c == "_"),
    C.CATEGORY_DIGIT: frozenset(c for c in SAMPLE if c.isdecimal()),
    C.CATEGORY_SPACE: frozenset(c for c in SAMPLE if c.isspace()),
}
_CATEGORIES[C.CATEGORY_NOT_WORD] = _ALL - _CATEGORIES[C.CATEGORY_WORD]
_CATEGORIES[C.CATEGORY_NOT_DIGIT] = _ALL - _CATEGORIES[C.CATEGORY_DIGIT]
_CATEGORIES[C.CATEGORY_NOT_SPACE] = _ALL - _CATEGORIES[C.CATEGORY_SPACE]
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)
_SINGLE = (C.LITERAL, C.NOT_LITERAL, C.IN, C.ANY)


def _fold(chars: frozenset[str], ignorecase: bool) -> frozenset[str]:
    if not ignorecase:
        return chars
    return frozenset(x for c in chars for x in (c, c.lower(), c.upper()) if x in _ALL)


def charset(op: Any, av: Any, flags: int) -> frozenset[str]:
    """The sample characters one single-character item matches."""
    ic = bool(flags & re.IGNORECASE)
    if op is C.LITERAL:
        return _fold(frozenset({chr(av)}) & _ALL, ic)
    if op is C.NOT_LITERAL:
        return _ALL - _fold(frozenset({chr(av)}), ic)
    if op is C.ANY:
        return _ALL if flags & re.DOTALL else _ALL - {"\n"}
    chars: set[str] = set()
    negate = False
    for sub_op, sub_av in av:
        if sub_op is C.NEGATE:
            negate = True
        elif sub_op is C.LITERAL:
            chars.add(chr(sub_av))
        elif sub_op is C.RANGE:
            chars.update(c for c in SAMPLE if sub_av[0] <= ord(c) <= sub_av[1])
        elif sub_op is C.CATEGORY:
            chars.update(_CATEGORIES.get(sub_av, _ALL))
        else:
            chars.update(_ALL)
    folded = _fold(frozenset(chars), ic)
    return _ALL - folded if negate else folded


def first(items: list[tuple[Any, Any]], flags: int) -> tuple[frozenset[str], bool]:
    """(characters a match of this sequence can start with, whether it can be empty)."""
    out: set[str] = set()
    for op, av in items:
        chars, nullable = _first_item(op, av, flags)
        out |= chars
        if not nullable:
            return frozenset(out), False
    return frozenset(out), True


def _first_item(op: Any, av: Any, flags: int) -> tuple[frozenset[str], bool]:
    if op in _SINGLE:
        return charset(op, av, flags), False
    if op is C.AT and av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING) and not flags & re.MULTILINE:
        return frozenset(), False  # starts only at the text's start: never inside a run
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
        return frozenset(), True
    if op is C.SUBPATTERN:
        return first(list(av[3].data), (flags | av[1]) & ~av[2])
    if op is C.ATOMIC_GROUP:
        return first(list(av.data), flags)
    if op is C.BRANCH:
        chars: set[str] = set()
        nullable = False
        for alt in av[1]:
            c, n = first(list(alt.data), flags)
            chars |= c
            nullable = nullable or n
        return frozenset(chars), nullable
    if op in _REPEATS:
        c, n = first(list(av[2].data), flags)
        return c, n or av[0] == 0
    return _ALL, True


def _chars(items: list[tuple[Any, Any]], flags: int) -> frozenset[str]:
    """Every sample character some single-character item of the subtree matches."""
    out: set[str] = set()
    for op, av in items:
        if op in _SINGLE:
            out |= charset(op, av, flags)
        elif op is C.SUBPATTERN:
            out |= _chars(list(av[3].data), (flags | av[1]) & ~av[2])
        elif op is C.BRANCH:
            for alt in av[1]:
                out |= _chars(list(alt.data), flags)
        elif op in _REPEATS:
            out |= _chars(list(av[2].data), flags)
        elif op is C.ATOMIC_GROUP:
            out |= _chars(list(av.data), flags)
    return frozenset(out)


def _inline(items: list[tuple[Any, Any]], flags: int) -> list[tuple[Any, Any, int]]:
    """The items with plain groups spliced in (their flags carried), so that repeats on both
    sides of a group's edge are seen as neighbours."""
    out: list[tuple[Any, Any, int]] = []
    for op, av in items:
        if op is C.SUBPATTERN:
            out.extend(_inline(list(av[3].data), (flags | av[1]) & ~av[2]))
        else:
            out.append((op, av, flags))
    return out


_WORD = _CATEGORIES[C.CATEGORY_WORD]


@dataclass(frozen=True)
class _Start:
    """One top-level alternative's possible first characters, and whether ``\\b`` guards it."""

    chars: frozenset[str]
    word_guarded: bool

    def can_start_inside(self, run: frozenset[str]) -> bool:
        """Whether a match of this alternative can start strictly inside a run of ``run``
        characters. Behind ``\\b`` a word-led alternative starts only where word and non-word
        characters meet, which never happens inside a run of only one kind."""
        if not run & self.chars:
            return False
        return not (self.word_guarded and self.chars <= _WORD and (run <= _WORD
                                                                    or not run & _WORD))


def _starts(items: list[tuple[Any, Any]], flags: int) -> list[_Start]:
    inline = _inline(items, flags)
    if len(inline) == 1 and inline[0][0] is C.BRANCH:
        alts = [list(a.data) for a in inline[0][1][1]]
        return [s for alt in alts for s in _starts(alt, inline[0][2])]
    plain = [(op, av) for op, av, _ in inline]
    guarded = bool(plain) and plain[0][0] is C.AT and plain[0][1] is C.AT_BOUNDARY
    return [_Start(first(plain, flags)[0], guarded)]


@dataclass
class _Audit:
    starts: list[_Start]
    anchored: bool
    guard: frozenset[str] | None
    problems: list[str]

    def repeat(self, av: Any, flags: int, depth: int, tail: bool) -> frozenset[str] | None:
        """Check one repeat; the set of an unbounded single-character repeat, else None. A
        repeat at the tail of the pattern cannot fail after its run, so it never rescans."""
        _, hi, item = av
        if hi is not C.MAXREPEAT:
            return None
        if depth:
            self.problems.append("nested: an unbounded repeat inside another repeat")
        items = list(item.data)
        if len(items) != 1 or items[0][0] not in _SINGLE:
            self.problems.append("group: an unbounded repeat of a group")
            return None
        chars = charset(*items[0], flags)
        guarded = self.guard is not None and not chars & self.guard
        if not (self.anchored or tail or guarded) and any(
                st.can_start_inside(chars) for st in self.starts):
            sample = "".join(sorted(chars & frozenset().union(*(st.chars for st in self.starts))))
            self.problems.append(f"rescan: an unbounded repeat can match a start character "
                                 f"({sample[:12]!r})")
        return chars

    def sequence(self, items: list[tuple[Any, Any]], flags: int, depth: int,
                 tail: bool = False) -> None:
        """Check a sequence; ``pending`` holds the sets of earlier unbounded repeats that can
        still take the characters reaching the current item; ``tail``: nothing that can fail
        follows the sequence."""
        inline = _inline(items, flags)
        rest_nullable = [True] * (len(inline) + 1)
        for i in range(len(inline) - 1, -1, -1):
            op, av, fl = inline[i]
            rest_nullable[i] = rest_nullable[i + 1] and _first_item(op, av, fl)[1]
        pending: list[frozenset[str]] = []
        for i, (op, av, fl) in enumerate(inline):
            at_tail = tail and rest_nullable[i + 1]
            if op in _REPEATS:
                chars = self.repeat(av, fl, depth, at_tail)
                self.sequence(list(av[2].data), fl, depth + (av[1] is C.MAXREPEAT or av[1] > 1),
                              at_tail)
                if chars is not None:
                    if any(chars & p for p in pending):
                        self.problems.append("adjacent: two unbounded repeats in a row share "
                                             "characters")
                    pending = [chars] + (pending if av[0] == 0 else [])
                    continue
            else:
                self.item(op, av, fl, depth, at_tail)
            if _first_item(op, av, fl)[1]:
                continue  # an empty match passes the pending sets on
            taken = _chars([(op, av)], fl)
            pending = [p for p in pending if taken <= p]

    def item(self, op: Any, av: Any, flags: int, depth: int, tail: bool) -> None:
        if op is C.BRANCH:
            for alt in av[1]:
                self.sequence(list(alt.data), flags, depth, tail)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            self.sequence(list(av[1].data), flags, depth)
        elif op is C.ATOMIC_GROUP:
            self.sequence(list(av.data), flags, depth, tail)


def audit(pattern: re.Pattern[str], *, anchored: bool = False) -> list[str]:
    """The super-linear shapes found in ``pattern`` (an empty list when it has none).
    ``anchored``: the pattern is only matched at a given position (``.match``), never
    searched, so no start can fall inside one of its runs."""
    tree = P.parse(pattern.pattern, pattern.flags & ~re.UNICODE)
    items = list(tree.data)
    flags = tree.state.flags
    anchored = anchored or (bool(items) and items[0][0] is C.AT and items[0][1] in (
        C.AT_BEGINNING_STRING,) + (() if flags & re.MULTILINE else (C.AT_BEGINNING,)))
    guard = None
    if items and items[0][0] is C.ASSERT and items[0][1][0] == -1:
        guard = first(list(items[0][1][1].data), flags)[0]
    a = _Audit(_starts(items, flags), anchored, guard, [])
    a.sequence(items, flags, 0, tail=True)
    return sorted(set(a.problems))
