"""HTML -> clean Markdown for people and models: content kept, chrome and hidden text dropped.

Two paths share one converter. The **adapter path** (:func:`extract_markdown` with a
``region``) converts the region a platform adapter names; the **generic path** (no region: the
browser agent on a site no adapter knows) finds the region itself and checks the rules against
trafilatura (:mod:`~tambench.acquisition.second_opinion`). What is removed, in order:

1. comments, ``script``/``style``/``template``/``noscript``/``iframe``/``svg`` and friends;
2. hidden elements: the ``hidden`` attribute, ``aria-hidden="true"``, inline
   ``display:none`` / ``visibility:hidden`` / ``opacity:0``, ``<input type="hidden">``,
   elements the browser marked ``data-tambench-hidden`` (hidden by a stylesheet; see
   :data:`MARK_HIDDEN_JS`), and closed components whose library hides them by class (a
   Material dialog or menu without its ``--open`` class, a modal without ``show``, a tooltip).
   Hidden text is where injected instructions hide, so it never reaches a model;
3. icon-font ligatures: ``<i class="google-symbols">emoji_events</i>`` draws an icon from the
   word, which would otherwise reach the Markdown as text (an ``i``/``span`` of one word whose
   class names an icon or symbol font, or that is marked ``notranslate``);
4. the content region: the first of the adapter's ``region`` selectors that matches (Kaggle:
   ``[data-testid="competition-detail-render-tid"]``); without one, ``#site-content``, a
   ``main`` role, ``main`` or ``article``, narrowed to the smallest element around the title
   holding most of the text (:func:`~tambench.acquisition.pruning.generic_region`);
5. chrome inside the region, read from roles and structure before names
   (:mod:`~tambench.acquisition.pruning`): consent banners and overlays by their text and
   shape, ``role=group``/``list``/``listbox`` kept, chrome roles and tags dropped, a class or
   id word only when it names the element itself, and never the text most of the region holds
   nor the only content under a kept heading;
6. structure a browser shows that the markup leaves implicit is made explicit
   (:mod:`~tambench.acquisition.layout`): a short line in a large font is a heading, list items
   and text the parser left outside their list go back into it, ``<br>`` in ``<pre>`` is a
   newline, and no-break spaces outside code are spaces.

When the region lacks the page's title, the ``title`` selector's text comes first as ``# ``
heading (the generic path uses the page's ``h1``, else its ``<title>``); a heading that only
repeats the title (a sticky header's copy) is dropped.

Tables become GitHub-flavoured Markdown with a header row always (the first row when the
table has none), cells with ``|`` escaped; ``<pre>`` becomes a fenced code block whose language
is kept only when the page states it (a ``language-*``/``lang-*`` class the author set: one
that highlight.js added after its ``hljs`` class is its guess, and is dropped); chips and tags
stay separate items; underscores and asterisks are not escaped, so ``has_cactus`` stays
``has_cactus``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from typing import Any

from tambench._optional import require
from tambench.acquisition.layout import infer_structure
from tambench.acquisition.pruning import (
    generic_region,
    gone,
    prune,
    remove_overlays,
    separate_chips,
    text_len,
    text_of,
    words_of,
)
from tambench.acquisition.second_opinion import Verdict, judge, normalize, page_signals

#: Browser-side script run before the HTML is taken: marks elements hidden by stylesheets
#: (``data-tambench-hidden``) and elements fixed to the viewport (``data-tambench-fixed``,
#: where overlays sit).
MARK_HIDDEN_JS = """
() => {
  for (const el of document.body ? document.body.querySelectorAll('*') : []) {
    if (el.closest('details:not([open])')) continue;
    const s = window.getComputedStyle(el);
    if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') {
      el.setAttribute('data-tambench-hidden', '1');
    } else if (s.position === 'fixed') {
      el.setAttribute('data-tambench-fixed', '1');
    }
  }
}
"""

_DROP_TAGS = ("script", "style", "template", "noscript", "iframe", "svg", "canvas", "link",
              "meta", "object", "embed", "head")
#: Classes of icon-font elements: their text is a ligature name, not content.
_ICON_CLASSES = frozenset({"material-icons", "material-icons-outlined", "material-icons-round",
                           "material-symbols-outlined", "material-symbols-rounded",
                           "google-material-icons", "google-symbols", "rmwc-icon",
                           "rmwc-icon--ligature"})
_ICON_WORDS = frozenset({"icon", "icons", "symbol", "symbols", "ligature", "notranslate"})
_LIGATURE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
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
_TITLE_PARTS = re.compile(r"\s+[|·–—]\s+")


def _classes(el: Any) -> set[str]:
    value = (el.attrs or {}).get("class") or []
    return {str(c) for c in (value if isinstance(value, list) else str(value).split())}


def _is_closed_component(classes: set[str]) -> bool:
    for base, open_classes in _CLOSED_UNLESS.items():
        if base in classes and not classes.intersection(open_classes):
            return True
    return False


def _is_icon(el: Any, classes: set[str]) -> bool:
    if classes & _ICON_CLASSES:
        return True
    if el.name not in ("i", "span"):
        return False
    words = {w for c in classes for w in words_of(c)}
    marked = bool(words & _ICON_WORDS) or str(el.attrs.get("translate", "")).lower() == "no"
    return marked and bool(_LIGATURE.match(el.get_text().strip()))


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


def clean_soup(html: str) -> Any:
    """Parse HTML and remove comments, non-content tags and hidden elements (steps 1-3)."""
    bs4 = require("bs4", extra="browser", feature="Markdown extraction")
    require("lxml", extra="browser", feature="Markdown extraction")
    soup = bs4.BeautifulSoup(html, "lxml")
    for comment in soup.find_all(string=lambda s: isinstance(s, bs4.Comment)):
        comment.extract()
    page_title = soup.title.get_text() if soup.title is not None else ""
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    for el in soup.find_all(True):
        if gone(el):
            continue
        if _is_hidden(el):
            el.decompose()
    soup.page_title = " ".join(page_title.split())  # the <title>, kept for the generic path
    return soup


def visible_text(html: str) -> str:
    """The text a reader sees: hidden elements, scripts and icon ligatures removed."""
    soup = clean_soup(html)
    return " ".join((soup.body or soup).get_text(" ").split())


def _content_root(soup: Any, region: Sequence[str]) -> Any:
    for selector in region:
        found = soup.select_one(selector)
        if found is not None and text_len(found) > 0:
            return found
    narrow = (lambda el: el) if region else generic_region
    for selector in DEFAULT_REGIONS:
        found = soup.select(selector)
        if found:
            return narrow(max(found, key=text_len))
    return narrow(soup.body or soup)


def _title_text(soup: Any, title: Sequence[str]) -> str:
    for selector in title:
        el = soup.select_one(selector)
        if el is not None:
            text = text_of(el)
            if text:
                return text
    return ""


def _generic_title(soup: Any) -> str:
    h1 = soup.find("h1")
    if h1 is not None and text_of(h1):
        return text_of(h1)
    # "Challenge | Site", "Site | Challenge | Leaderboards": the longest part names the page
    parts = _TITLE_PARTS.split(getattr(soup, "page_title", "") or "")
    return max(parts, key=len).strip()


def _drop_repeated_title(root: Any, title: str) -> None:
    first = root.find("h1")
    keep = id(first) if first is not None else None
    for h in root.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        if id(h) != keep and text_of(h) == title:
            h.decompose()


def _code_language(pre: Any) -> str:
    """The language a page states for a code block: a ``language-*``/``lang-*`` class listed
    before highlight.js's ``hljs`` (one after it is highlight.js's guess)."""
    for node in [pre, *pre.find_all("code")]:
        classes = [str(c) for c in node.get("class") or []]
        cut = classes.index("hljs") if "hljs" in classes else len(classes)
        for cls in classes[:cut]:
            if cls.startswith(("language-", "lang-")) and len(cls.split("-", 1)[1]) > 0:
                return cls.split("-", 1)[1]
    return ""


def _text_follows(el: Any) -> bool:
    return any(str(s).strip() for s in el.find_next_siblings(string=True)) or any(
        text_of(s) for s in el.find_next_siblings())


def _converter_class() -> Any:
    markdownify = require("markdownify", extra="browser", feature="Markdown extraction")

    class _Converter(markdownify.MarkdownConverter):  # type: ignore[name-defined]
        def convert_ul(self, el: Any, text: str, parent_tags: Any) -> str:
            out = str(super().convert_ul(el, text, parent_tags))
            # a nested list is a block: text after it starts a new paragraph of its item
            return out + "\n\n" if "li" in parent_tags and _text_follows(el) else out

        convert_ol = convert_ul

        def convert_table(self, el: Any, text: str, parent_tags: Any) -> str:
            return "\n\n" + _table_to_gfm(self, el) + "\n\n"

        def convert_pre(self, el: Any, text: str, parent_tags: Any) -> str:
            code = el.get_text()
            code = code.strip("\n")
            if not code.strip():
                return ""
            lang = _code_language(el)
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


def _converter() -> Any:
    return _converter_class()(
        heading_style="ATX",
        bullets="-",
        escape_underscores=False,
        escape_asterisks=False,
        strip=["img"],
        bs4_options="lxml",
    )


def _rules_markdown(soup: Any, region: Sequence[str], title_text: str) -> str:
    """The rule-based converter on a cleaned page (the soup is changed)."""
    root = _content_root(soup, region)
    prune(root, title_text)
    separate_chips(root, type(soup.new_string("")))
    infer_structure(root, soup)
    heading = ""
    if title_text:
        _drop_repeated_title(root, title_text)
        h1 = root.find("h1")
        if h1 is None or text_of(h1) != title_text:
            heading = f"# {title_text}\n\n"
    body = _converter().convert_soup(root)
    return _tidy(heading + body) if body.strip() else ""


def html_to_markdown_primary(html: str, *, region: Sequence[str] = (),
                             title: Sequence[str] = ()) -> str:
    """The rule-based converter alone (no second opinion); ``region`` and ``title`` as for
    :func:`extract_markdown`, the generic title when both are empty."""
    soup = clean_soup(html)
    title_text = _title_text(soup, title) if (title or region) else _generic_title(soup)
    return _rules_markdown(soup, region, title_text)


def _trafilatura(cleaned_html: str) -> str:
    trafilatura = require("trafilatura", extra="browser", feature="Markdown extraction")
    out = trafilatura.extract(
        cleaned_html, output_format="markdown", include_tables=True, include_formatting=True,
        include_links=True, include_comments=False, favor_recall=True,
    )
    # trafilatura escapes underscores; identifiers must read as written.
    return _tidy((out or "").replace("\\_", "_"))


def html_to_markdown_trafilatura(html: str) -> str:
    """trafilatura's Markdown of the page (tables and formatting kept), or "" if none."""
    # Hidden text is removed first: trafilatura does not look at styles.
    return _trafilatura(str(clean_soup(html)))


def _with_title(md: str, title_text: str) -> str:
    if not title_text or not md.strip():
        return md
    wanted = normalize(title_text)
    for line in md.splitlines():
        if line.startswith("#") and normalize(line.lstrip("#")) == wanted:
            return md
    return _tidy(f"# {title_text}\n\n{md}")


def generic_markdown(html: str) -> Verdict:
    """The generic path: the rules and trafilatura on one cleaned page, the better kept.

    See :mod:`~tambench.acquisition.second_opinion` for the comparison; the page's title
    (``h1``, else ``<title>``) is a heading in the output either way.
    """
    soup = clean_soup(html)
    title_text = _generic_title(soup)
    remove_overlays(soup.body or soup)  # trafilatura does not know consent banners either
    cleaned = str(soup)
    signals = page_signals(soup)
    rules = _rules_markdown(soup, (), title_text)
    verdict = judge(rules, _trafilatura(cleaned), signals)
    return dataclasses.replace(verdict, markdown=_with_title(verdict.markdown, title_text))


def extract_markdown(html: str, *, region: Sequence[str] = (), title: Sequence[str] = ()
                     ) -> str:
    """Clean Markdown of a page's content region.

    Args:
        html: the page.
        region: CSS selectors of the content region, tried in order (the adapter's).
        title: CSS selectors of the page title, put first when the region lacks it.

    With a ``region`` (the adapter path) the rule-based converter alone runs on it:
    trafilatura reads the whole page, navigation included. Without one (the generic path,
    :func:`generic_markdown`), the rules and trafilatura are compared and the output that
    keeps the page's headings and content phrases is returned.

    >>> extract_markdown('<nav>Home</nav><main><h1>Title</h1><p>has_cactus is 1</p></main>')
    '# Title\\n\\nhas_cactus is 1\\n'
    """
    if region or title:
        return html_to_markdown_primary(html, region=region, title=title)
    return generic_markdown(html).markdown


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
    for line, m in heading_lines(md):
        if m:
            level = len(m.group(1))
            if keep_level and level <= keep_level:
                keep_level = 0
            if not keep_level and rx.search(m.group(2)):
                keep_level = level
        if keep_level:
            out.append(line)
    return _tidy("\n".join(out))


def heading_lines(md: str) -> Iterator[tuple[str, re.Match[str] | None]]:
    """Each line of ``md`` with its heading match (None for text and inside fenced code)."""
    fence = False
    for line in md.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
        yield line, None if fence else _MD_HEADING.match(line)
