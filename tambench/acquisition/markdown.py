"""HTML -> clean Markdown for people and models: content kept, chrome and hidden text dropped.

:func:`extract_markdown` is the primary converter (rule-based pruning, then markdownify of the
main content), with trafilatura as a second opinion when the primary output is empty or tiny.
What is removed, in order:

1. comments, ``script``/``style``/``template``/``noscript``/``iframe``/``svg`` and friends;
2. hidden elements: the ``hidden`` attribute, ``aria-hidden="true"``, inline
   ``display:none`` / ``visibility:hidden`` / ``opacity:0``, ``<input type="hidden">``, and
   elements the browser marked ``data-tambench-hidden`` (hidden by a stylesheet; see
   :data:`MARK_HIDDEN_JS`). Hidden text is where injected instructions hide, so it never
   reaches a model;
3. boilerplate: ``nav``, ``header``, ``footer``, ``aside``, ``form``, ``button``, ``dialog``
   and elements whose class or id contains a word such as ad, banner, cookie, consent, promo,
   sponsor, share, social, newsletter, sidebar, menu, related, widget (whole words of the
   class/id, so ``download`` or ``shadow`` do not match "ad"). An element holding most of the
   page's text, or the ``main``/``article`` element itself, is never pruned.

Tables become GitHub-flavoured Markdown with a header row always (the first row when the
table has none), cells with ``|`` escaped; ``<pre>`` becomes a fenced code block (language
from a ``language-*`` class); underscores and asterisks are not escaped, so ``has_cactus``
stays ``has_cactus``.
"""

from __future__ import annotations

import re
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
    "navbar", "breadcrumb", "breadcrumbs", "toolbar",
})
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


def _is_hidden(el: Any) -> bool:
    attrs = el.attrs or {}
    if "hidden" in attrs or "data-tambench-hidden" in attrs:
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
    return bool(words & _BOILERPLATE_WORDS) or role in {"navigation", "banner", "contentinfo",
                                                         "complementary", "dialog"}


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


def _content_root(soup: Any) -> Any:
    for selector in ("main", "[role=main]", "article"):
        found = soup.select(selector)
        if found:
            return max(found, key=_text_len)
    return soup.body or soup


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
        if el.name == "header" and el.find("h1") is not None:
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


def html_to_markdown_primary(html: str) -> str:
    """The rule-based converter alone (no fallback)."""
    soup = clean_soup(html)
    root = _content_root(soup)
    _prune(root)
    conv = _converter_class()(
        heading_style="ATX",
        bullets="-",
        escape_underscores=False,
        escape_asterisks=False,
        strip=["img"],
        bs4_options="lxml",
    )
    return _tidy(conv.convert_soup(root))


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


def extract_markdown(html: str) -> str:
    """Clean Markdown of a page's main content.

    The rule-based converter runs first; when its output has fewer than :data:`MIN_CHARS`
    characters, trafilatura's is used if it is clearly longer (half as long again and 40
    characters more), since a tiny primary output usually means a layout the rules missed.

    >>> extract_markdown('<nav>Home</nav><main><h1>Title</h1><p>has_cactus is 1</p></main>')
    '# Title\\n\\nhas_cactus is 1\\n'
    """
    primary = html_to_markdown_primary(html)
    if len(primary.strip()) >= MIN_CHARS:
        return primary
    second = html_to_markdown_trafilatura(html)
    n1, n2 = len(primary.strip()), len(second.strip())
    return second if n2 >= 1.5 * n1 + 40 else primary
