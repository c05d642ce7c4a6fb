"""What a person sees on a page: the mappers read only that.

Saved pages and descriptions from other repositories are Markdown that may carry raw HTML. A
browser never shows HTML comments, elements marked hidden (``hidden``, ``aria-hidden="true"``,
``display:none``, ``visibility:hidden``, ``opacity:0``, ``font-size:0``, the ``hidden`` /
``sr-only`` / ``visually-hidden`` / ``d-none`` / ``invisible`` classes, ``<input
type="hidden">``), the content of ``<script>``, ``<style>``, ``<template>``, ``<noscript>``,
``<head>``, ``<iframe>`` and ``<datalist>``, an image's ``alt`` text (``<img alt>``,
``![alt](src)``) or a tag's attributes. :func:`visible_text` removes all of these, keeps the
inner text of visible elements, and counts what it removed, so that text planted where no
reader sees it ("evaluated on accuracy" in a comment, a header row in a hidden ``div``) can
neither name the metric nor become evidence.

Markdown's own literals stay: fenced code blocks and inline code spans are shown as written, so
an HTML comment inside them is text. Names in angle brackets that are not HTML elements
(``<image_id>``, ``<https://...>``) stay too. An unclosed comment or hidden element hides the
rest of the page, as it does in a browser.

The scan is linear in the page's length: one forward pass, every search starting where the
previous one ended, tags bounded to :data:`MAX_TAG_CHARS` characters.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

#: Longest tag read as a tag (name and attributes); a longer run is left as text.
MAX_TAG_CHARS = 2000
#: Longest backtick run read as an inline code span delimiter.
MAX_TICKS = 16
#: Longest ``![alt](src)`` read as an image.
MAX_IMAGE_CHARS = 2000

_ELEMENTS = frozenset("""
a abbr address area article aside audio b base bdi bdo big blockquote body br button canvas
caption center cite code col colgroup data datalist dd del details dfn dialog dir div dl dt em
embed fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head header
hgroup hr html i iframe img input ins kbd label legend li link main map mark marquee menu meta
meter nav noscript object ol optgroup option output p param picture pre progress q rp rt ruby
s samp script search section select slot small source span strike strong style sub summary sup
svg table tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr
""".split())
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
#: Elements whose whole content is never shown.
_CONTENT_HIDDEN = frozenset("script style template noscript head iframe datalist title".split())
#: Elements whose content is raw text: their end is the first closing tag, nothing nests.
_RAW_TEXT = frozenset("script style textarea title".split())
_HIDDEN_CLASSES = frozenset("hidden d-none sr-only visually-hidden invisible".split())
_LINE_BREAKING = frozenset("br p div li tr table ul ol section article header footer "
                           "blockquote pre hr h1 h2 h3 h4 h5 h6 dl dt dd".split())

_FENCE_RE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_OPENER_RE = re.compile(r"<!--|</?[A-Za-z]|!\[|`+")
_TAG_RE = re.compile(rf"<(/?)([A-Za-z][A-Za-z0-9-]{{0,30}})([^<>]{{0,{MAX_TAG_CHARS}}})>")
_ATTR_RE = re.compile(rf"([^\s\"'=/>]+)(?:\s*=\s*(\"[^\"]{{0,{MAX_TAG_CHARS}}}\"|'[^']{{0,{MAX_TAG_CHARS}}}'"
                      r"|[^\s\"'=<>`]+))?")
_OPACITY_ZERO_RE = re.compile(r"(?:^|;)(?:opacity:0*(?:\.0*)?|font-size:0*(?:\.0*)?[a-z%]*)"
                              r"(?:!important)?(?:;|$)")
_IMAGE_RE = re.compile(rf"!\[[^\[\]\n]{{0,{MAX_IMAGE_CHARS}}}\]"
                       rf"(?:\([^()\n]{{0,{MAX_IMAGE_CHARS}}}\)|\[[^\[\]\n]{{0,200}}\])")
_CLOSE_CACHE: dict[str, re.Pattern[str]] = {}
#: The kinds of removed text :attr:`Visible.removed` counts.
COMMENT, HIDDEN, IMAGE_ALT = "HTML comment", "hidden element", "image alt text"


@dataclass(frozen=True)
class Visible:
    """A page's visible text and what was taken out of it."""

    text: str
    removed: Counter[str] = field(default_factory=Counter)
    """Kind ("HTML comment", "hidden element", "image alt text") -> how many were removed."""

    def summary(self, kinds: tuple[str, ...] = (COMMENT, HIDDEN, IMAGE_ALT)) -> str:
        """"2 HTML comments, 1 hidden element" ("" when nothing of ``kinds`` was removed)."""
        return ", ".join(f"{self.removed[kind]} {kind}{'s' if self.removed[kind] > 1 else ''}"
                         for kind in kinds if self.removed[kind])


def _hidden_by_attributes(attrs: str) -> bool:
    for name, raw in _ATTR_RE.findall(attrs):
        name = name.lower()
        value = raw.strip("\"'").strip().lower()
        if name == "hidden":
            return True
        if name == "aria-hidden" and value == "true":
            return True
        if name == "type" and value == "hidden":
            return True
        if name == "class" and _HIDDEN_CLASSES & set(value.split()):
            return True
        if name == "style":
            style = "".join(value.split())
            if ("display:none" in style or "visibility:hidden" in style
                    or "visibility:collapse" in style or _OPACITY_ZERO_RE.search(style)):
                return True
    return False


def _closing(name: str) -> re.Pattern[str]:
    pattern = _CLOSE_CACHE.get(name)
    if pattern is None:
        pattern = re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])[^<>]{{0,{MAX_TAG_CHARS}}}>",
                             re.IGNORECASE)
        _CLOSE_CACHE[name] = pattern
    return pattern


def _element_end(text: str, name: str, start: int) -> int:
    """Index just past the element's closing tag (nested elements of the same name counted);
    the page's end when it never closes."""
    pattern = _closing(name)
    depth = 1
    pos = start
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return len(text)
        pos = m.end()
        if name in _RAW_TEXT:
            if m.group(1):
                return pos
            continue
        if m.group(1):
            depth -= 1
            if depth == 0:
                return pos
        elif not m.group(0).endswith("/>"):
            depth += 1


class _Scanner:
    """One forward pass over a page, copying what is visible into ``out``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[str] = []
        self.removed: Counter[str] = Counter()

    def run(self) -> Visible:
        text, n = self.text, len(self.text)
        pos = 0
        while pos < n:
            eol = text.find("\n", pos)
            eol = n if eol < 0 else eol + 1
            fence = _FENCE_RE.match(text, pos, eol)
            if fence:
                pos = self._fenced_block(pos, eol, fence.group(1))
            else:
                pos = self._line(pos, eol)
        return Visible("".join(self.out), self.removed)

    def _fenced_block(self, pos: int, eol: int, marker: str) -> int:
        """Copy a fenced code block verbatim, up to and including its closing fence line."""
        text, n = self.text, len(self.text)
        self.out.append(text[pos:eol])
        pos = eol
        while pos < n:
            eol = text.find("\n", pos)
            eol = n if eol < 0 else eol + 1
            self.out.append(text[pos:eol])
            line = text[pos:eol].strip()
            pos = eol
            if line.startswith(marker) and not line.strip(marker[0]):
                break
        return pos

    def _line(self, pos: int, eol: int) -> int:
        """Copy one line's visible text; returns where the next line starts (past the end of a
        hidden construct that began on this line)."""
        text = self.text
        if "<" not in text[pos:eol] and "![" not in text[pos:eol]:
            self.out.append(text[pos:eol])
            return eol
        while True:
            m = _OPENER_RE.search(text, pos, eol)
            if m is None:
                self.out.append(text[pos:eol])
                return eol
            self.out.append(text[pos:m.start()])
            end = self._construct(m.group(0), m.start(), eol)
            if end is None:
                self.out.append(m.group(0))
                pos = m.end()
                continue
            pos = end
            if pos >= len(text) or (pos >= eol and text[pos - 1] == "\n"):
                return pos  # the construct ended at a line end: the caller reads on
            if pos >= eol:  # it ended inside a later line: read the rest of that line
                nxt = text.find("\n", pos)
                eol = len(text) if nxt < 0 else nxt + 1

    def _construct(self, opener: str, start: int, eol: int) -> int | None:
        """The end of the construct opened at ``start`` (its visible part, if any, copied);
        None when the opener starts nothing."""
        if opener.startswith("`"):
            return self._code_span(opener, start, eol)
        if opener == "<!--":
            return self._comment(start)
        if opener == "![":
            m = _IMAGE_RE.match(self.text, start)
            if m is None:
                return None
            self.removed[IMAGE_ALT] += 1
            return m.end()
        return self._tag(start)

    def _code_span(self, ticks: str, start: int, eol: int) -> int | None:
        """An inline code span is shown literally: copy it whole."""
        k = len(ticks)
        if k > MAX_TICKS:
            return None
        text = self.text
        pos = start + k
        while True:
            found = text.find(ticks, pos, eol)
            if found < 0:
                return None
            run_end = found
            while run_end < eol and text[run_end] == "`":
                run_end += 1
            if run_end - found == k:
                self.out.append(text[start:run_end])
                return run_end
            pos = run_end

    def _comment(self, start: int) -> int:
        text = self.text
        body = start + 4
        if text.startswith(">", body):  # "<!-->": an empty comment
            end = body + 1
        elif text.startswith("->", body):  # "<!--->"
            end = body + 2
        else:
            close = text.find("-->", body)
            end = len(text) if close < 0 else close + 3
        self.removed[COMMENT] += 1
        return end

    def _tag(self, start: int) -> int | None:
        m = _TAG_RE.match(self.text, start)
        if m is None:
            return None
        closing, name, attrs = m.group(1), m.group(2).lower(), m.group(3)
        if name not in _ELEMENTS:
            return None
        if name == "img" or (name == "input" and not closing and _hidden_by_attributes(attrs)):
            self.removed[IMAGE_ALT if name == "img" else HIDDEN] += 1
            return m.end()
        if closing or name in _VOID or attrs.rstrip().endswith("/"):
            if name in _LINE_BREAKING:
                self.out.append("\n" if name == "br" else " ")
            return m.end()
        if name in _CONTENT_HIDDEN or _hidden_by_attributes(attrs):
            self.removed[HIDDEN] += 1
            return _element_end(self.text, name, m.end())
        if name in _LINE_BREAKING:
            self.out.append(" ")
        return m.end()


def visible_text(text: str) -> Visible:
    """The page as a reader sees it (see the module docstring).

    >>> visible_text("Scored on RMSE.<!-- Scored on accuracy. -->").text
    'Scored on RMSE.'
    >>> v = visible_text('<div style="display: none">id,accuracy</div>Use `<!-- -->` here.')
    >>> v.text, v.summary()
    ('Use `<!-- -->` here.', '1 hidden element')
    >>> visible_text("train/<image_id>.png ![scored on AUC](x.png)").text
    'train/<image_id>.png '
    """
    return _Scanner(text).run()
