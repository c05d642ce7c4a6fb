"""What in a page's content region is chrome: roles and structure first, names last.

Rules keyed on class words break on every redesign, so a class or id is the last thing read:

1. **Consent and overlays, by text and shape** (:func:`remove_overlays`): a short block (at
   most :data:`OVERLAY_MAX_CHARS` characters) holding a dismiss control ("OK, Got it.",
   "Accept all", "×"...) whose other text is mostly sentences about cookies or consent,
   wherever it sits and whatever its classes; and any short block that the browser found fixed
   to the viewport (``data-tambench-fixed``) and that holds a dismiss control (a newsletter or
   sign-up popup). A paragraph that mentions cookies among other things is not a banner.
2. **Roles**: ``role=group``, ``listbox`` and ``list`` (chip sets, tag lists) are never dropped,
   nor anything inside them on account of its tag or name; ``navigation``, ``banner``,
   ``contentinfo``, ``complementary``, ``dialog``, ``tablist``, ``menu``, ``toolbar``,
   ``search``... are chrome whatever their classes.
3. **Tags and shapes**: ``nav``, ``header``, ``footer``, ``aside`` (structure), ``form``,
   ``button``, ``dialog`` (controls), and a bar of three or more short links with no other
   text outside every heading's section (tabs, sub-navigation, breadcrumbs: :func:`_link_bars`).
4. **Names, last** (:func:`names_chrome`): a class or id token counts only when it *names* the
   element: its head word (the last word, after dropping position and container words such as
   ``right``, ``wrapper``, ``links``) is a chrome word (``sidebar``, ``menu``, ``nav``,
   ``banner``...). ``site-sidebar`` and ``sidebar-right`` name a sidebar; ``with-sidebar``,
   ``content-with-sidebar`` (a layout that *has* one) and ``combo-tags-menu-chipset`` (a chip
   set) do not.
5. **Structure overrides 2-4**: an element holding most of the region's text, ``main`` and
   ``article`` (and their ancestors), and an element holding the title (``h1``) are never
   pruned; and a kept heading never loses the only content under it (:func:`_rescue`): when
   every element of a heading's section was picked by its tag or name, they stay. When that
   content was controls (a form, buttons, a dialog) or chrome roles, the heading goes with
   them.

Without an adapter's region, :func:`generic_region` narrows the page to the smallest element
around its title that holds most of its prose, which leaves site menus, notices and footers out
whatever their markup. :func:`separate_chips` keeps inline chips and tags as separate items.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

STRUCTURE_TAGS = frozenset({"nav", "header", "footer", "aside"})
CONTROL_TAGS = frozenset({"form", "button", "dialog"})
CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "dialog",
                          "alertdialog", "tablist", "tab", "menu", "menubar", "menuitem",
                          "toolbar", "search"})
#: Roles whose element (and everything inside) is content whatever its tag or name.
KEEP_ROLES = frozenset({"group", "listbox", "list"})
CHROME_WORDS = frozenset({
    "ad", "ads", "advert", "adverts", "advertisement", "adsbygoogle", "banner", "cookie",
    "cookies", "consent", "gdpr", "promo", "promotion", "sponsor", "sponsored", "share",
    "sharing", "social", "newsletter", "sidebar", "menu", "menubar", "related", "widget",
    "widgets", "footer", "navbar", "nav", "navigation", "breadcrumb", "breadcrumbs", "toolbar",
    "explorer", "dataexplorer", "tooltip", "topbar", "tabs", "tabbar", "skiplink",
})
#: Words that name a part or a position, not a kind: ``sidebar-right`` is still a sidebar.
_TRANSPARENT_WORDS = frozenset({
    "container", "wrapper", "wrap", "inner", "outer", "box", "area", "block", "panel",
    "section", "holder", "content", "contents", "links", "buttons", "icons", "items", "list",
    "posts", "articles", "stories", "entries", "popup", "left", "right", "top", "bottom",
    "main", "primary", "secondary", "sticky", "fixed", "mobile", "desktop", "bar",
})
#: A token holding one of these describes a state or a layout that *has* something.
_STATE_WORDS = frozenset({"with", "without", "has", "have", "no", "is", "show", "hide"})
_WORD_SPLIT = re.compile(r"[-_\s]+|(?<=[a-z])(?=[A-Z])")
_VERSION = re.compile(r"^v?\d+$")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: Most text: an element holding more than this share of the region is never pruned.
MOST_TEXT = 0.5
OVERLAY_MAX_CHARS = 600
_CONSENT = re.compile(r"\bcookies?\b|\bconsent\b|\bgdpr\b|\btracking technologies\b|"
                      r"\bprivacy (?:settings|preferences|choices)\b", re.I)
_DISMISS = re.compile(
    r"^(?:ok(?:ay)?|ok,? got it|got it|understood|i understand|accept(?: all)?(?: cookies)?|"
    r"i accept|allow(?: all)?(?: cookies)?|(?:i )?agree(?: and (?:close|continue))?|continue|"
    r"dismiss|close|no,? thanks|not now|maybe later|reject(?: all)?|decline|deny|[×✕✖xX])"
    r"\s*[.!]?$", re.I)


def gone(el: Any) -> bool:
    """Whether ``el`` was decomposed (bs4's ``decomposed`` looks the name up as a child tag
    first, a search of the whole subtree, when the element was not)."""
    return bool(el.__dict__.get("_decomposed", False))


def text_of(el: Any) -> str:
    """An element's text, whitespace collapsed."""
    return " ".join(el.get_text(" ").split())


def text_len(el: Any) -> int:
    """Length of an element's text, whitespace stripped."""
    return len(el.get_text(" ", strip=True))


def words_of(token: str) -> list[str]:
    """The lower-case words of a class or id token (``sub-navBar2`` -> sub, nav, bar)."""
    words = []
    for w in _WORD_SPLIT.split(token):
        w = w.lower()
        if not w or _VERSION.match(w):
            continue
        words.append(w.rstrip("0123456789") or w)
    return words


def _part_names_chrome(part: str) -> bool:
    words = words_of(part)
    if any(w in _STATE_WORDS for w in words):
        # "content-with-sidebar": the name is what comes before the state word.
        words = words[:next(i for i, w in enumerate(words) if w in _STATE_WORDS)]
    while words and words[-1] in _TRANSPARENT_WORDS:
        if len(words) >= 2 and words[-2] + words[-1] in CHROME_WORDS:  # nav-bar, side-bar
            return True
        words = words[:-1]
    if not words:
        return False
    return words[-1] in CHROME_WORDS or (len(words) >= 2 and words[-2] + words[-1] in CHROME_WORDS)


@lru_cache(maxsize=4096)
def names_chrome(token: str) -> bool:
    """Whether a class or id token names a chrome element (see the module's rule 4).

    >>> [names_chrome(t) for t in ("sidebar", "with-sidebar", "combo-tags-menu-chipset")]
    [True, False, False]
    >>> [names_chrome(t) for t in ("sub-nav-bar", "sidebar-right", "dataexplorer-v2__overview")]
    [True, True, True]
    """
    block, _, element = token.split("--", 1)[0].partition("__")
    return _part_names_chrome(block) or (bool(element) and _part_names_chrome(element))


def _tokens(value: Any) -> list[str]:
    return [str(t) for t in (value if isinstance(value, list) else str(value or "").split())]


def role_of(el: Any) -> str:
    """The element's ARIA role (first token), lower-case."""
    roles = str((el.attrs or {}).get("role", "")).lower().split()
    return roles[0] if roles else ""


def chrome_reason(el: Any) -> str:
    """Why ``el`` looks like chrome by itself: "role", "structure", "control", "name", or ""
    (a bar of links is found by :func:`_link_bars`, which needs the page around it)."""
    role = role_of(el)
    if role in KEEP_ROLES:
        return ""
    if role in CHROME_ROLES:
        return "role"
    if el.name in STRUCTURE_TAGS:
        return "structure"
    if el.name in CONTROL_TAGS:
        return "control"
    attrs = el.attrs or {}
    tokens = _tokens(attrs.get("class")) + _tokens(attrs.get("id"))
    return "name" if any(names_chrome(t) for t in tokens) else ""


# -- consent and overlays ---------------------------------------------------------------------


def _control_text(el: Any) -> str:
    if el.name == "input":
        return str((el.attrs or {}).get("value", ""))
    return text_of(el)


def _dismiss_controls(root: Any) -> Iterator[Any]:
    for el in root.find_all(True):
        if el.name in HEADINGS or el.name in ("p", "li", "td", "section", "article"):
            continue
        text = _control_text(el).strip()
        if text and len(text) <= 30 and _DISMISS.match(text):
            yield el


def _is_fixed(el: Any) -> bool:
    attrs = el.attrs or {}
    return "data-tambench-fixed" in attrs or bool(
        re.search(r"position\s*:\s*fixed", str(attrs.get("style", "")), re.I))


_SENTENCES = re.compile(r"(?<=[.!?])\s+")


def _about_consent(block: Any, control: Any) -> bool:
    """Whether the block's text, its links and its dismiss control set aside, is mostly
    sentences about cookies or consent (a paragraph that mentions cookies among others is
    not)."""
    skip = {id(control), *(id(a) for a in block.find_all("a"))}
    rest = " ".join(str(t).strip() for t in block.find_all(string=True)
                    if not any(id(p) in skip for p in t.parents)).strip()
    if not rest:
        return False
    about = sum(len(x) for x in _SENTENCES.split(rest) if _CONSENT.search(x))
    return about >= 0.5 * len(rest)


def _overlay_around(control: Any, root: Any) -> Any | None:
    """The short consent block or fixed overlay holding ``control``, or None."""
    for block in control.parents:
        if block is root or block.name in ("body", "html", "[document]"):
            return None
        text = text_of(block)
        if len(text) > OVERLAY_MAX_CHARS:
            return None
        if _is_fixed(block) or _about_consent(block, control):
            while (block.parent is not None and block.parent is not root
                   and block.parent.name not in ("body", "html") and text_of(block.parent) == text):
                block = block.parent
            return block
    return None


def remove_overlays(root: Any) -> int:
    """Remove consent banners and dismissable overlays inside ``root``; return how many."""
    removed = 0
    for control in list(_dismiss_controls(root)):
        if gone(control):
            continue
        block = _overlay_around(control, root)
        if block is not None and not gone(block):
            block.decompose()
            removed += 1
    return removed


# -- the generic region ------------------------------------------------------------------------


PROSE_TAGS = ("p", "li", "dd", "dt", "td", "th", "pre", "blockquote", "figcaption")


def chrome_tags(root: Any, *, titled_headers: bool = False) -> set[int]:
    """ids of the elements under ``root`` that are chrome by role or tag (navigation, header,
    footer, aside, form, button, dialog...); with ``titled_headers``, a structure element
    holding an ``h1`` is left out (a header holding the title is content)."""
    out = set()
    for el in root.find_all(True):
        reason = chrome_reason(el)
        if reason in ("role", "control") or (reason == "structure" and not (
                titled_headers and el.find("h1") is not None)):
            out.add(id(el))
    return out


def _in(el: Any, ids: set[int], root: Any) -> bool:
    return id(el) in ids or any(id(p) in ids for p in _parents_until(el, root))


def prose_weights(root: Any) -> dict[int, int]:
    """id(element) -> characters of prose (paragraphs, list items, cells, code) it holds,
    prose inside chrome roles and tags (navigation, header, footer, form...) left out."""
    weights: dict[int, int] = {}
    chrome = chrome_tags(root)
    for el in root.find_all(PROSE_TAGS):
        if any(p.name in PROSE_TAGS for p in _parents_until(el, root)):
            continue  # counted with the outer prose block
        if _in(el, chrome, root):
            continue
        n = text_len(el)
        for p in [el, *el.parents]:
            weights[id(p)] = weights.get(id(p), 0) + n
            if p is root:
                break
    return weights


def generic_region(root: Any) -> Any:
    """The smallest element around the page's title (``h1``) holding most of ``root``'s prose
    (its text when it has no prose).

    Site menus, notices and footers sit beside that element, so they fall outside whatever
    their markup; a header that holds the title, tab links and buttons holds little prose, so
    a short content does not lose to it. Without a visible ``h1`` the root stays.
    """
    title = root.find("h1")
    if title is None:
        return root
    weights = prose_weights(root)
    total = weights.get(id(root), 0)

    def weight(el: Any) -> int:
        return weights.get(id(el), 0) if total else text_len(el)

    total = total or text_len(root)
    if total == 0:
        return root
    for el in title.parents:
        if el is root or el.name in ("body", "html", "[document]"):
            return root
        if weight(el) >= MOST_TEXT * total:
            return el
    return root


# -- pruning -----------------------------------------------------------------------------------


def _heading_level(el: Any) -> int:
    if el.name in HEADINGS:
        return int(el.name[1])
    if role_of(el) == "heading":
        level = str((el.attrs or {}).get("aria-level", "2"))
        return int(level) if level.isdigit() and 1 <= int(level) <= 6 else 2
    return 0


def _first_heading_level(el: Any) -> int:
    levels = [_heading_level(h) for h in [el, *el.find_all(True)] if _heading_level(h)]
    return min(levels) if levels else 0


def section_of(heading: Any, root: Any) -> list[Any]:
    """What a heading heads: its following siblings (climbing out of wrappers that hold only
    the heading) up to the next heading of the same or a higher level."""
    level = _heading_level(heading)
    anchor = heading
    own = text_of(heading)
    while anchor.parent is not None and anchor.parent is not root and text_of(anchor.parent) == own:
        anchor = anchor.parent
    out = []
    for sib in anchor.next_siblings:
        if getattr(sib, "name", None) is None:
            out.append(sib)
            continue
        first = _first_heading_level(sib)
        if first and first <= level:
            break
        out.append(sib)
    return out


def _title_heading(root: Any, title: str) -> Any | None:
    if title:
        for h in root.find_all("h1"):
            if text_of(h) == title:
                return h
    return root.find("h1")


def _candidates(root: Any, heading: Any | None) -> dict[int, tuple[Any, str]]:
    """Every element that looks like chrome, nested ones included (a rescued sidebar still
    loses the tab bar inside it), with its reason; the structure rules already applied
    (``heading``: the title's)."""
    total = max(1, text_len(root))
    protected = {id(root), *(id(p) for p in root.parents)}
    holds_title = {id(p) for p in heading.parents} if heading is not None else set()
    picked: dict[int, tuple[Any, str]] = {}
    keep: set[int] = set()
    link_bars = _link_bars(root, heading)
    for el in root.find_all(True):
        if any(id(p) in keep for p in _parents_until(el, root)):
            continue
        if role_of(el) in KEEP_ROLES:
            keep.add(id(el))  # neither it nor anything inside is chrome by tag or name
            continue
        reason = chrome_reason(el) or ("links" if id(el) in link_bars else "")
        if not reason or id(el) in protected:
            continue
        if el.name in ("main", "article") or el.find(["main", "article"]) is not None:
            continue
        if reason != "role" and id(el) in holds_title:
            continue  # a header holding the title inside the content is content
        if text_len(el) > MOST_TEXT * total:
            continue
        picked[id(el)] = (el, reason)
    return picked


_LINK_SEPARATORS = re.compile(r"^[\s|·•/,»›-]*$")
#: A link bar: this many links or more, each this short, and no other text.
LINK_BAR_MIN, LINK_BAR_TEXT = 3, 40


def _link_bars(root: Any, title: Any | None) -> set[int]:
    """ids of elements made of short links only (tabs, menus, breadcrumbs), headless and
    outside every heading's section (a list of links under a heading is content; the title
    heads the whole page, so its section does not count)."""
    links: dict[int, int] = {}
    longest: dict[int, int] = {}
    other: set[int] = set()
    for a in root.find_all("a"):
        n = text_len(a)
        for p in _parents_until(a, root):
            links[id(p)] = links.get(id(p), 0) + 1
            longest[id(p)] = max(longest.get(id(p), 0), n)
    for string in root.find_all(string=True):
        if _LINK_SEPARATORS.match(str(string)):
            continue
        parents = list(_parents_until(string, root))
        if not any(p.name == "a" for p in parents):
            other.update(id(p) for p in parents)
    bars = {i for i, n in links.items()
            if n >= LINK_BAR_MIN and i not in other and longest[i] <= LINK_BAR_TEXT}
    if not bars:
        return bars
    sectioned: set[int] = set()
    for h in root.find_all(lambda t: _heading_level(t) > 0):
        if h is not title:
            sectioned.update(id(n) for n in section_of(h, root))
        sectioned.update(id(p) for p in h.parents)  # what holds a heading is no link bar
    return {id(el) for el in root.find_all(True) if id(el) in bars and not any(
        id(p) in sectioned for p in [el, *_parents_until(el, root)])}


def _parents_until(el: Any, root: Any) -> Iterator[Any]:
    for p in el.parents:
        if p is root:
            return
        yield p


def _outside_text(nodes: list[Any], picked: dict[int, tuple[Any, str]], root: Any) -> str:
    """The text of ``nodes`` that no picked element holds."""
    parts = []
    for node in nodes:
        strings = [node] if getattr(node, "name", None) is None else node.find_all(string=True)
        for s in strings:
            if id(s) in picked or any(id(p) in picked for p in _parents_until(s, root)):
                continue
            parts.append(str(s).strip())
    return "".join(parts)


def _rescue(root: Any, picked: dict[int, tuple[Any, str]], title: Any | None) -> list[Any]:
    """Keep the only content under each kept heading; return the headings (never the title)
    whose only content was controls or chrome roles, which go with it."""
    bare: list[Any] = []
    for h in root.find_all(lambda t: _heading_level(t) > 0):
        if any(id(p) in picked for p in [h, *_parents_until(h, root)]):
            continue
        section = section_of(h, root)
        if _outside_text(section, picked, root):
            continue
        inside = [c for c in picked.values() if text_len(c[0]) and any(
            c[0] is n or any(p is n for p in c[0].parents) for n in section
            if getattr(n, "name", None))]
        if not inside:
            continue
        for el, reason in inside:
            if reason in ("name", "structure"):
                picked.pop(id(el), None)
        if h is not title and not _outside_text(section, picked, root):
            bare.append(h)
    return bare


def prune(root: Any, title: str = "") -> None:
    """Remove chrome inside ``root`` (the module's rules 1-5); ``title`` is the page title's
    text (the first ``h1`` stands for it when it is empty or not found)."""
    remove_overlays(root)
    title_heading = _title_heading(root, title)
    picked = _candidates(root, title_heading)
    for bare in _rescue(root, picked, title_heading):
        bare.decompose()
    for el, _ in picked.values():
        if not gone(el):  # an outer candidate may have taken it already
            el.decompose()


# -- chips ---------------------------------------------------------------------------------------

_CHIP_TAGS = frozenset({"a", "button", "span", "label"})
_SEPARATORS = re.compile(r"^[\s,·•|/]*$")
_BLOCKS = ("p", "div", "ul", "ol", "table", "pre", "blockquote", *HEADINGS)


def _inline_items(el: Any) -> list[Any] | None:
    """``el``'s children when they are two or more chip-like elements and nothing else."""
    items = [c for c in el.children if getattr(c, "name", None)]
    if len(items) < 2 or any(c.name not in _CHIP_TAGS for c in items):
        return None
    for c in el.children:
        if getattr(c, "name", None) is None and not _SEPARATORS.match(str(c)):
            return None
    return items


def _short_labels(items: list[Any]) -> bool:
    return all(0 < len(text_of(c)) <= 60 and c.find(_BLOCKS) is None for c in items)


def _glued(items: list[Any]) -> bool:
    return any(getattr(c.next_sibling, "name", None) is not None for c in items[:-1])


def _styled_cells(items: list[Any]) -> bool:
    """Three or more spans sharing a class: cells laid out by a stylesheet (a list-shaped
    leaderboard's row), not words of one sentence."""
    if len(items) < 3 or any(c.name != "span" for c in items):
        return False
    shared = set(_tokens((items[0].attrs or {}).get("class")))
    for c in items[1:]:
        shared &= set(_tokens((c.attrs or {}).get("class")))
    return bool(shared) and all(len(text_of(c)) <= 60 for c in items)


def separate_chips(root: Any, new_string: Any) -> None:
    """Keep inline chips and tags as separate items (never ``[A](…)[B](…)``).

    A ``role=group``/``list``/``listbox`` of short inline items (a chip set) becomes the labels
    joined by ", " (a tag link leads to a site search, not to content). Other runs of short
    links or buttons, or of styled cells (:func:`_styled_cells`), with nothing between them
    get ", " between them, links kept. Nothing inside ``pre`` or ``code`` is touched.
    """
    for el in list(root.find_all(True)):
        if gone(el):
            continue
        items = _inline_items(el)
        if items is None or not _glued(items) and role_of(el) not in KEEP_ROLES:
            continue
        if el.find_parent(["pre", "code"]) is not None:
            continue
        if role_of(el) in KEEP_ROLES and _short_labels(items):
            labels = [text_of(c) for c in items]
            el.clear()
            el.append(new_string(", ".join(labels)))
        elif (all(c.name in ("a", "button") for c in items) and _short_labels(items)) or (
                _styled_cells(items)):
            filled = [c for c in items if text_of(c)]
            for c, nxt in zip(filled, filled[1:], strict=False):
                if c.find(_BLOCKS) is None and nxt.find(_BLOCKS) is None:  # blocks break lines
                    c.insert_after(new_string(", "))
