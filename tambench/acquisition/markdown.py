"""HTML -> clean Markdown for people and models: content kept, chrome and hidden text dropped.

:func:`extract_markdown` is the primary converter (rule-based pruning, then markdownify of the
main content), with trafilatura as a second opinion when the primary output is empty or tiny.
What is removed, in order:

1. comments, ``script``/``style``/``template``/``noscript``/``iframe``/``svg`` and friends;
2. hidden elements: the ``hidden`` attribute, ``aria-hidden="true"``, inline
   ``display:none`` / ``visibility:hidden`` / ``opacity:0``, ``<input type="hidden">``,
   elements the browser marked ``data-tambench-hidden`` (hidden by a stylesheet; see
   :data:`MARK_HIDDEN_JS`), and closed components whose library hides them by class (a
   Material dialog or menu without its ``--open`` class, a modal without ``show``, a tooltip).
   Hidden text is where injected instructions hide, so it never reaches a model;
3. icon-font ligatures: ``<i class="google-symbols">emoji_events</i>`` draws an icon from the
   word, which would otherwise reach the Markdown as text;
4. the content region: the first of the adapter's ``region`` selectors that matches (Kaggle:
   ``[data-testid="competition-detail-render-tid"]``), else ``#site-content``, a ``main``
   role, ``main`` or ``article``. On Kaggle ``<main>`` wraps the whole application, navigation
   included, so the region, not ``main``, decides;
5. boilerplate inside the region: ``nav``, ``header``, ``footer``, ``aside``, ``form``,
   ``button``, ``dialog``, tab bars, menus and toolbars (by role), and elements whose class or
   id contains a word such as ad, banner, cookie, consent, promo, sponsor, share, social,
   newsletter, sidebar, menu, related, widget, explorer, nav, topbar, tabs (whole words of the
   class/id, so ``download`` or ``shadow`` do not match "ad"). An element holding most of the
   region's text, or the region itself, is never pruned.

When the region lacks the page's title, the ``title`` selector's text comes first as ``# ``
heading; a heading that only repeats the title (a sticky header's copy) is dropped.

Tables become GitHub-flavoured Markdown with a header row always (the first row when the
table has none), cells with ``|`` escaped; ``<pre>`` becomes a fenced code block (language
from a ``language-*`` class); underscores and asterisks are not escaped, so ``has_cactus``
stays ``has_cactus``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tambench._optional import require

#: Browser-side script that marks elements hidden by stylesheets before the HTML is taken.
MARK_HIDDEN_JS = """
() => {
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    if (el.closest('details:not([open])')) continue;
    const s = window.getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') {
      el.setAttribute('data-tambench-hidden', '1');
    }
  }
}
"""

_DROP_TAGS = ("script", "style", "template", "noscript", "iframe", "svg", "canvas", "link",
              "meta", "object", "embed", "head")
_BOILERPLATE_TAGS = ("nav", "header", "footer", "aside", "form", "button", "dialog")
_BOILERPLATE_WORDS = frozenset({
    "ad", "ads", "advert", "adverts", "advertisement", "adsbygoogle", "banner", "cookie",
    "cookies", "consent", "promo", "promotion", "sponsor", "sponsored", "share", "sharing",
    "social", "newsletter", "sidebar", "menu", "related", "widget", "widgets", "footer",
    "navbar", "breadcrumb", "breadcrumbs", "toolbar", "explorer", "dataexplorer", "tooltip",
    "nav", "topbar", "tabs", "tabbar",
})
_BOILERPLATE_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "dialog",
                                "tablist", "tab", "menu", "menubar", "toolbar", "search"})
#: Classes of icon-font elements: their text is a ligature name, not content.
_ICON_CLASSES = frozenset({"material-icons", "material-icons-outlined", "material-icons-round",
                           "material-symbols-outlined", "material-symbols-rounded",
                           "google-material-icons", "google-symbols", "rmwc-icon",
                           "rmwc-icon--ligature"})
#: Component classes that a library's stylesheet hides unless an "open" class is present.
_CLOSED_UNLESS: dict[str, tuple[str, ...]] = {
    "mdc-dialog": ("mdc-dialog--open", "mdc-dialog--opening"),
    "mdc-menu-surface": ("mdc-menu-surface--open", "mdc-menu-surface--animating-open"),
    "modal": ("show", "in", "open", "is-open", "modal--open"),
    "__react_component_tooltip": ("show",),
    "collapse": ("show", "in"),
}
#: Where the content is when no region selector is given, in order of preference.
DEFAULT_REGIONS = ("#site-content", "[role=main]", "main", "article")
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(?:\.0+)?\s*(?:;|$)", re.I
)
_WORD_SPLIT = re.compile(r"[-_\s]+|(?<=[a-z])(?=[A-Z])")
#: Below this many characters the primary output is considered a failure.
MIN_CHARS = 80


def _attr_words(value: Any) -> set[str]:
    tokens = value if isinstance(value, list) else str(value or "").split()
    words: set[str] = set()
    for tok in tokens:
        words.update(w.lower() for w in _WORD_SPLIT.split(str(tok)) if w)
    return words


def _classes(el: Any) -> set[str]:
    value = (el.attrs or {}).get("class") or []
    return {str(c) for c in (value if isinstance(value, list) else str(value).split())}


def _is_closed_component(classes: set[str]) -> bool:
    for base, open_classes in _CLOSED_UNLESS.items():
        if base in classes and not classes.intersection(open_classes):
            return True
    return False


def _is_icon(el: Any, classes: set[str]) -> bool:
    return bool(classes & _ICON_CLASSES) or (
        el.name in ("i", "span") and any(c.startswith("material-symbols") for c in classes))


def _is_hidden(el: Any) -> bool:
    attrs = el.attrs or {}
    if "hidden" in attrs or "data-tambench-hidden" in attrs:
        return True
    classes = _classes(el)
    if _is_closed_component(classes) or _is_icon(el, classes):
        return True
    if str(attrs.get("aria-hidden", "")).lower() == "true":
        return True
    if el.name == "input" and str(attrs.get("type", "")).lower() == "hidden":
        return True
    return bool(_HIDDEN_STYLE.search(str(attrs.get("style", ""))))


def _is_boilerplate(el: Any) -> bool:
    if el.name in _BOILERPLATE_TAGS:
        return True
    attrs = el.attrs or {}
    words = _attr_words(attrs.get("class")) | _attr_words(attrs.get("id"))
    role = str(attrs.get("role", "")).lower()
    return bool(words & _BOILERPLATE_WORDS) or role in _BOILERPLATE_ROLES


def _text_len(el: Any) -> int:
    return len(el.get_text(" ", strip=True))


def clean_soup(html: str) -> Any:
    """Parse HTML and remove comments, non-content tags and hidden elements (steps 1-2)."""
    bs4 = require("bs4", extra="browser", feature="Markdown extraction")
    require("lxml", extra="browser", feature="Markdown extraction")
    soup = bs4.BeautifulSoup(html, "lxml")
    for comment in soup.find_all(string=lambda s: isinstance(s, bs4.Comment)):
        comment.extract()
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    for el in soup.find_all(True):
        if el.decomposed:
            continue
        if _is_hidden(el):
            el.decompose()
    return soup


def visible_text(html: str) -> str:
    """The text a reader sees: hidden elements, scripts and icon ligatures removed."""
    soup = clean_soup(html)
    return " ".join((soup.body or soup).get_text(" ").split())


def _content_root(soup: Any, region: Sequence[str]) -> Any:
    for selector in region:
        found = soup.select_one(selector)
        if found is not None and _text_len(found) > 0:
            return found
    for selector in DEFAULT_REGIONS:
        found = soup.select(selector)
        if found:
            return max(found, key=_text_len)
    return soup.body or soup


def _title_text(soup: Any, title: Sequence[str]) -> str:
    for selector in title:
        el = soup.select_one(selector)
        if el is not None:
            text = " ".join(el.get_text(" ").split())
            if text:
                return text
    return ""


def _drop_repeated_title(root: Any, title: str) -> None:
    first = root.find("h1")
    keep = id(first) if first is not None else None
    for h in root.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        if id(h) != keep and " ".join(h.get_text(" ").split()) == title:
            h.decompose()


def _prune(root: Any) -> None:
    total = max(1, _text_len(root))
    protected = {id(root), *(id(p) for p in root.parents)}
    for el in list(root.find_all(True)):
        if el.decomposed or id(el) in protected:
            continue
        if el.name in ("main", "article") or el.find(["main", "article"]) is not None:
            continue
        if not _is_boilerplate(el):
            continue
        if el.name in ("header", "nav") and el.find("h1") is not None:
            # A header holding the page's title inside the content is content.
            continue
        if _text_len(el) > 0.6 * total:
            continue
        el.decompose()


def _converter_class() -> Any:
    markdownify = require("markdownify", extra="browser", feature="Markdown extraction")

    class _Converter(markdownify.MarkdownConverter):  # type: ignore[name-defined]
        def convert_table(self, el: Any, text: str, parent_tags: Any) -> str:
            return "\n\n" + _table_to_gfm(self, el) + "\n\n"

        def convert_pre(self, el: Any, text: str, parent_tags: Any) -> str:
            code = el.get_text()
            code = code.strip("\n")
            if not code.strip():
                return ""
            lang = ""
            for node in [el, *el.find_all("code")]:
                for cls in node.get("class") or []:
                    if str(cls).startswith(("language-", "lang-")):
                        lang = str(cls).split("-", 1)[1]
                        break
            fence = "````" if "```" in code else "```"
            return f"\n\n{fence}{lang}\n{code}\n{fence}\n\n"

    return _Converter


def _cell_text(conv: Any, cell: Any) -> str:
    text = "".join(str(conv.process_element(c, parent_tags={"_inline"})) for c in cell.children)
    text = re.sub(r"\s+", " ", str(text)).strip()
    return text.replace("|", "\\|")


def _table_to_gfm(conv: Any, table: Any) -> str:
    rows: list[list[str]] = []
    head_rows = 0
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:
            continue
        cells: list[str] = []
        for cell in tr.find_all(["td", "th"], recursive=False):
            span = str(cell.get("colspan", "1"))
            n = max(1, min(50, int(span))) if span.isdigit() else 1
            cells.append(_cell_text(conv, cell))
            cells.extend([""] * (n - 1))
        if not cells:
            continue
        is_head = tr.find_parent("thead") is not None or all(
            c.name == "th" for c in tr.find_all(["td", "th"], recursive=False)
        )
        if is_head and len(rows) == head_rows:
            head_rows += 1
        rows.append(cells)
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    if head_rows > 1:  # several header rows: merge them column by column
        merged = [" ".join(x for x in col if x) for col in zip(*rows[:head_rows], strict=True)]
        rows = [merged, *rows[head_rows:]]
    header, body = rows[0], rows[1:]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(["---"] * width) + " |"]
    lines.extend("| " + " | ".join(r) + " |" for r in body)
    return "\n".join(lines)


def _tidy(md: str) -> str:
    lines = [ln.rstrip() for ln in md.replace("\r\n", "\n").split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip() + "\n" if text.strip() else ""


def html_to_markdown_primary(html: str, *, region: Sequence[str] = (),
                             title: Sequence[str] = ()) -> str:
    """The rule-based converter alone (no fallback); ``region`` and ``title`` as for
    :func:`extract_markdown`."""
    soup = clean_soup(html)
    root = _content_root(soup, region)
    title_text = _title_text(soup, title)
    _prune(root)
    heading = ""
    if title_text:
        _drop_repeated_title(root, title_text)
        h1 = root.find("h1")
        if h1 is None or " ".join(h1.get_text(" ").split()) != title_text:
            heading = f"# {title_text}\n\n"
    conv = _converter_class()(
        heading_style="ATX",
        bullets="-",
        escape_underscores=False,
        escape_asterisks=False,
        strip=["img"],
        bs4_options="lxml",
    )
    return _tidy(heading + conv.convert_soup(root))


def html_to_markdown_trafilatura(html: str) -> str:
    """trafilatura's Markdown of the page (tables and formatting kept), or "" if none."""
    trafilatura = require("trafilatura", extra="browser", feature="Markdown extraction")
    # Hidden text is removed first: trafilatura does not look at styles.
    cleaned = str(clean_soup(html))
    out = trafilatura.extract(
        cleaned, output_format="markdown", include_tables=True, include_formatting=True,
        include_links=True, include_comments=False, favor_recall=True,
    )
    # trafilatura escapes underscores; identifiers must read as written.
    return _tidy((out or "").replace("\\_", "_"))


def extract_markdown(html: str, *, region: Sequence[str] = (), title: Sequence[str] = ()
                     ) -> str:
    """Clean Markdown of a page's content region.

    Args:
        html: the page.
        region: CSS selectors of the content region, tried in order (the adapter's).
        title: CSS selectors of the page title, put first when the region lacks it.

    The rule-based converter runs first; without a ``region``, when its output has fewer than
    :data:`MIN_CHARS` characters, trafilatura's is used if it is clearly longer (half as long
    again and 40 characters more), since a tiny primary output usually means a layout the
    rules missed. With a ``region`` trafilatura is not consulted: it reads the whole page,
    navigation included.

    >>> extract_markdown('<nav>Home</nav><main><h1>Title</h1><p>has_cactus is 1</p></main>')
    '# Title\\n\\nhas_cactus is 1\\n'
    """
    primary = html_to_markdown_primary(html, region=region, title=title)
    if len(primary.strip()) >= MIN_CHARS or region:
        return primary
    second = html_to_markdown_trafilatura(html)
    n1, n2 = len(primary.strip()), len(second.strip())
    return second if n2 >= 1.5 * n1 + 40 else primary


_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def markdown_sections(md: str, pattern: str) -> str:
    r"""The sections of ``md`` whose heading matches ``pattern`` (with their subsections).

    Returns "" when no heading matches. Headings inside fenced code blocks are ignored.

    >>> text = "# T\n\nintro\n\n## Evaluation\n\nRMSE.\n\n### Submission File\n\nid,y\n\n## Prizes\n\n$1"
    >>> print(markdown_sections(text, r"evaluation"))
    ## Evaluation
    <BLANKLINE>
    RMSE.
    <BLANKLINE>
    ### Submission File
    <BLANKLINE>
    id,y
    <BLANKLINE>
    """
    rx = re.compile(pattern, re.I)
    out: list[str] = []
    keep_level = 0  # > 0 while inside a kept section of that level
    fence = False
    for line in md.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _MD_HEADING.match(line)
        if m:
            level = len(m.group(1))
            if keep_level and level <= keep_level:
                keep_level = 0
            if not keep_level and rx.search(m.group(2)):
                keep_level = level
        if keep_level:
            out.append(line)
    return _tidy("\n".join(out))
