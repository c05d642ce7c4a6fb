"""The site re-styled: what a redesign does to class names and ids, nothing else.

``restyled-<slug>`` serves the pages of ``<slug>`` with every class token replaced by a hash
(``c3f9a1e``: no words left, as on a single-page application built with CSS modules or
styled-components) and ids holding the words ``menu``, ``nav`` and ``sidebar`` given to the
blocks that had none (``with-sidebar-3``, ``nav-4-body``, ``menu-5-chipset``); stylesheets and
scripts are served rewritten the same way (``/static/restyled/...``), so what is hidden stays
hidden. The text is unchanged: extraction that reads roles and structure gives the same
Markdown for both.
"""

from __future__ import annotations

import hashlib
import itertools
import re

RESTYLED_PREFIX = "restyled-"
STATIC_PREFIX = "/static/restyled/"
_CLASS_ATTR = re.compile(r"""\bclass=(["'])(.*?)\1""", re.S)
_CSS_CLASS = re.compile(r"\.(-?[A-Za-z_][\w-]*)")
_BLOCK_OPEN = re.compile(r"<(div|section|p|ul|ol|table|pre|blockquote)(\s[^<>]*)?>")
_ID_PATTERNS = ("with-sidebar-{n}", "nav-{n}-body", "menu-{n}-chipset")


def hashed(token: str) -> str:
    """The redesign's name for a class: a hash with no words in it."""
    return "c" + hashlib.sha1(token.encode()).hexdigest()[:6]


def _classes(m: re.Match[str]) -> str:
    quote = m.group(1)
    return f"class={quote}{' '.join(hashed(t) for t in m.group(2).split())}{quote}"


def restyle_html(html: str) -> str:
    """Hash every class, give id-less blocks ids holding menu/nav/sidebar, point static files
    at their re-styled copies."""
    html = _CLASS_ATTR.sub(_classes, html)
    counter = itertools.count(1)

    def add_id(m: re.Match[str]) -> str:
        attrs = m.group(2) or ""
        if re.search(r"\bid=", attrs):
            return m.group(0)
        n = next(counter)
        new_id = _ID_PATTERNS[n % len(_ID_PATTERNS)].format(n=n)
        return f'<{m.group(1)} id="{new_id}"{attrs}>'

    html = _BLOCK_OPEN.sub(add_id, html)
    return html.replace('"/static/', f'"{STATIC_PREFIX}')


def restyle_static(text: str, content_type: str) -> str:
    """A stylesheet's selectors or a script's ``class="..."`` strings, hashed alike."""
    if "css" in content_type:
        return _CSS_CLASS.sub(lambda m: "." + hashed(m.group(1)), text)
    return _CLASS_ATTR.sub(_classes, text)
