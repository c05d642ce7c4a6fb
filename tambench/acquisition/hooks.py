"""Signs that a page has rendered its content: stable attributes and headings, not guesses.

A :class:`Hook` is a CSS selector plus, optionally, a pattern its element's text must match
(``Hook("#site-content h2", r"^Dataset Description$")``): a heading is a hook even where the
site's class names are hashed. A page is ready when any of its hooks matches; the same hooks
are checked in the browser (:data:`HOOKS_JS`) and in served HTML (:func:`first_match`).

:func:`app_shell_reason` recognises a page that needs JavaScript: a near-empty body holding
only a script mount point (``<div id="root"></div>``), which plain HTTP can never read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Mount points of single-page applications.
_APP_ROOTS = ("#root", "#app", "#__next", "#__nuxt", "[data-reactroot]", "#main-app")
#: Below this many characters of visible body text, a page with a script mount point is a shell.
_SHELL_MAX_TEXT = 200


@dataclass(frozen=True)
class Hook:
    """An element matching ``css`` whose text matches ``text`` (a case-insensitive regex)."""

    css: str
    text: str = ""

    def describe(self) -> str:
        """How the hook reads in a message: ``'#site-content h2' with text /^Rules$/``."""
        return repr(self.css) + (f" with text /{self.text}/" if self.text else "")

    def find(self, soup: Any) -> Any:
        """The first element of a parsed page the hook matches, or None."""
        pattern = re.compile(self.text, re.I) if self.text else None
        for el in soup.select(self.css):
            if pattern is None or pattern.search(" ".join(el.get_text(" ").split())):
                return el
        return None


def describe_hooks(hooks: Sequence[Hook]) -> str:
    """All hooks of a page, for a message naming what never matched."""
    return " or ".join(h.describe() for h in hooks) or "(none)"


def first_match(soup: Any, hooks: Sequence[Hook]) -> Hook | None:
    """The first hook that matches the parsed page, or None."""
    for hook in hooks:
        if hook.find(soup) is not None:
            return hook
    return None


def hooks_arg(hooks: Sequence[Hook]) -> list[list[str]]:
    """The hooks as the argument of :data:`HOOKS_JS`."""
    return [[h.css, h.text] for h in hooks]


#: Browser side: the index of the first hook that matches (text compared on whitespace-
#: collapsed textContent, as :meth:`Hook.find` does), or -1.
HOOKS_JS = """
(hooks) => {
  for (let i = 0; i < hooks.length; i++) {
    const [css, text] = hooks[i];
    let re = null;
    if (text) { re = new RegExp(text, 'i'); }
    let els = [];
    try { els = document.querySelectorAll(css); } catch (e) { continue; }
    for (const el of els) {
      const t = (el.textContent || '').split(/\\s+/).filter(Boolean).join(' ');
      if (re === null || re.test(t)) { return i; }
    }
  }
  return -1;
}
"""

#: Browser side: resolves once the text of the first element matching ``css`` (or of the body)
#: has kept the same length for ``quietMs`` (or after ``maxMs``); returns that length.
SETTLE_TEXT_JS = """
([css, quietMs, maxMs]) => new Promise((resolve) => {
  const start = Date.now();
  const measure = () => {
    let el = null;
    try { el = css ? document.querySelector(css) : null; } catch (e) { el = null; }
    return ((el || document.body || {}).innerText || '').length;
  };
  let last = measure(), since = Date.now();
  const tick = () => {
    const now = measure();
    if (now !== last) { last = now; since = Date.now(); }
    if (Date.now() - since >= quietMs || Date.now() - start >= maxMs) { resolve(last); return; }
    setTimeout(tick, 50);
  };
  setTimeout(tick, 50);
})
"""


def app_shell_reason(soup: Any) -> str | None:
    """Why a served page can only be read with JavaScript, or None when it has content.

    ``soup`` is the page with scripts and hidden elements already removed.
    """
    body = soup.body or soup
    text = " ".join(body.get_text(" ").split())
    if len(text) > _SHELL_MAX_TEXT:
        return None
    for css in _APP_ROOTS:
        el = soup.select_one(css)
        if el is not None and not " ".join(el.get_text(" ").split()):
            return (f"the served HTML is an empty JavaScript application shell ({css} with no "
                    f"content, {len(text)} characters of text in all)")
    return None
