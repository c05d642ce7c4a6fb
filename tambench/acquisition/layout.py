"""Structure a browser shows that the markup leaves implicit, made explicit before conversion.

Organisers write competition pages by hand or in a rich-text editor (CodaLab's pages are such
fragments), and the markup often says less than the page shows. Each rule reads what a reader
sees, never a class name:

1. **Visual headings**: a block whose whole text is one short line set in a large font
   (``font-size: xx-large``, ``2em``, ``32px``, ``<font size="6">``...) is a heading: level 2
   from twice the body size, level 3 from one and a half times. A long line, a line sharing
   its block with other text, and text in a list item, a table cell or a link stay as they are.
2. **Lists as a browser builds them**: the HTML parser (lxml) closes an open ``ul`` at a
   ``<pre>``, ``<form>``, ``<address>`` or ``<menu>``, which leaves the items after it outside
   any list; a browser keeps them in the list, so they go back into it, with the text between
   them. An item outside any list otherwise gets a list of its own. A list, text or block placed
   directly in a ``ul``/``ol`` after an item (``<li>Prizes:</li><ul>…</ul>``) is shown under
   that item, so it moves into it; a browser indents it the same way.
3. **Line breaks**: a ``<br>`` inside ``<pre>`` is a newline of the code; the whitespace that
   follows a ``<br>`` elsewhere is not shown (a line does not start with spaces) and would
   otherwise indent the Markdown line, which can turn it into a code block.
4. **Emphasis edges**: whitespace at the edge of bold or italic text (``<b>word&nbsp;</b>next``)
   separates words; it moves outside the emphasis so that ``**word** next`` keeps its space.
5. **No-break spaces** outside code are spaces: they only keep words on one line, and kept in
   the Markdown they hide a word boundary from a search (``OVERLAP,&nbsp;BEFORE`` does not
   contain "OVERLAP, BEFORE").
"""

from __future__ import annotations

import re
from typing import Any

from tambench.acquisition.pruning import text_of

_LIST_TAGS = ("ul", "ol")
#: Where lxml closes an open ``ul`` and a browser does not.
_LIST_BREAKERS = frozenset({"pre", "form", "address", "menu"})
#: Blocks that end a run of items put back into their list.
_RUN_STOPS = frozenset({"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "table", "blockquote",
                        "hr", "section", "article", "header", "footer", "nav", "aside", "main",
                        "dl", "figure", "details", "center"})
_EMPHASIS = ("strong", "b", "em", "i")
#: Where a large line is not a heading: inside these, or already a heading.
_NOT_HEADING_INSIDE = ["li", "td", "th", "a", "button", "pre", "h1", "h2", "h3", "h4", "h5",
                       "h6", "table", "caption", "figcaption", "label", "summary"]
#: The longest line that can be a visual heading.
HEADING_MAX_CHARS = 150
_KEYWORD_LEVELS = {"xxx-large": 2, "xx-large": 2, "x-large": 3}
_FONT_SIZE = re.compile(r"font-size\s*:\s*([^;]+)", re.I)
_LENGTH = re.compile(r"^([0-9]*\.?[0-9]+)\s*(em|rem|px|pt|%)$")
#: Per unit: the size at which a line is a level 2, and a level 3, heading.
_THRESHOLDS = {"em": (2.0, 1.5), "rem": (2.0, 1.5), "%": (200.0, 150.0), "px": (32.0, 24.0),
               "pt": (24.0, 18.0)}
#: ``<font size="N">``: 6 and 7 are xx-large and larger, 5 is x-large.
_FONT_TAG_LEVELS = {"7": 2, "6": 2, "5": 3}
def font_level(el: Any) -> int | None:
    """The heading level an element's font size shows (2 or 3), or None for body-sized text."""
    if el.name == "font":
        return _FONT_TAG_LEVELS.get(str(el.get("size", "")).strip())
    m = _FONT_SIZE.search(str((el.attrs or {}).get("style", "")))
    if m is None:
        return None
    value = m.group(1).replace("!important", "").strip().lower()
    if value in _KEYWORD_LEVELS:
        return _KEYWORD_LEVELS[value]
    size = _LENGTH.match(value)
    if size is None:
        return None
    number, (two, three) = float(size.group(1)), _THRESHOLDS[size.group(2)]
    return 2 if number >= two else 3 if number >= three else None


def _visual_headings(root: Any, soup: Any) -> None:
    for el in root.find_all(["span", "font", "p", "div", "strong", "b"]):
        level = font_level(el) if el.parent is not None else None
        if level is None or el.find_parent(_NOT_HEADING_INSIDE) is not None:
            continue
        block = el if el.name in ("p", "div") else el.find_parent(["p", "div"])
        text = text_of(el)
        if (block is None or not text or len(text) > HEADING_MAX_CHARS or text_of(block) != text
                or block.find(["p", "div", "ul", "ol", "table", "pre", "img"]) is not None):
            continue
        heading = soup.new_tag(f"h{level}")
        for child in list(el.children):
            if getattr(child, "name", None) != "br":
                heading.append(child.extract())
        block.replace_with(heading)


def _name(node: Any) -> str | None:
    return getattr(node, "name", None)


def _reopen_lists(root: Any, soup: Any) -> None:
    for li in root.find_all("li"):
        if li.parent is None or _name(li.parent) in (*_LIST_TAGS, "menu"):
            continue
        before: list[Any] = []
        target = None
        for sib in li.previous_siblings:
            if _name(sib) == "ul" or _name(sib) in _RUN_STOPS:
                target = sib if _name(sib) == "ul" else None
                break
            before.append(sib)
        if target is None or not any(_name(s) in _LIST_BREAKERS for s in before):
            target, before = soup.new_tag("ul"), []
            li.insert_before(target)
        after = []
        for sib in li.next_siblings:
            if _name(sib) in _RUN_STOPS:
                break
            after.append(sib)
        for node in [*reversed(before), li, *after]:
            target.append(node.extract())


def _adopt_stray_list_content(root: Any, soup: Any) -> None:
    blocks = _RUN_STOPS | {*_LIST_TAGS, "pre", "form", "address", "menu"}
    for lst in root.find_all(_LIST_TAGS):
        item, fresh = None, False
        for child in list(lst.children):
            if _name(child) == "li":
                item, fresh = child, True
                continue
            if item is None:
                continue
            if fresh and (_name(child) or str(child).strip()):
                fresh = False
                if _name(child) not in blocks:  # text after an item starts on a new line
                    item.append(soup.new_tag("br"))
            item.append(child.extract())


def _line_breaks(root: Any, soup: Any) -> None:
    for br in root.find_all("br"):
        if br.find_parent("pre") is not None:
            br.replace_with(soup.new_string("\n"))
            continue
        after = br.next_sibling
        if after is not None and getattr(after, "name", None) is None:
            rest = str(after).lstrip()
            if rest != str(after):
                after.replace_with(soup.new_string(rest))


def _spaced(node: Any, *, before: bool) -> bool:
    """Whether the text next to an element already has a space on that side."""
    if node is None or _name(node) is not None:
        return False
    text = str(node)
    return bool(text) and (text[-1] if before else text[0]).isspace()


def _emphasis_edges(root: Any, soup: Any) -> None:
    for el in root.find_all(_EMPHASIS):
        if el.find_parent(["pre", "code"]) is not None:
            continue
        strings = [s for s in el.find_all(string=True) if str(s)]
        if not strings:
            continue
        last = strings[-1]
        if str(last) != str(last).rstrip():
            last.replace_with(soup.new_string(str(last).rstrip()))
            if not _spaced(el.next_sibling, before=False):
                el.insert_after(soup.new_string(" "))
        first = el.find(string=True)
        if first is not None and str(first) != str(first).lstrip():
            first.replace_with(soup.new_string(str(first).lstrip()))
            if not _spaced(el.previous_sibling, before=True):
                el.insert_before(soup.new_string(" "))


def _plain_spaces(root: Any, soup: Any) -> None:
    for text in root.find_all(string=lambda s: "\xa0" in s):
        if text.find_parent(["pre", "code"]) is None:
            text.replace_with(soup.new_string(str(text).replace("\xa0", " ")))


def infer_structure(root: Any, soup: Any) -> None:
    """Apply the rules of this module to ``root`` (an element of ``soup``), in place."""
    _plain_spaces(root, soup)
    _visual_headings(root, soup)
    _reopen_lists(root, soup)
    _adopt_stray_list_content(root, soup)
    _line_breaks(root, soup)
    _emphasis_edges(root, soup)
