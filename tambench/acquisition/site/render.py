"""HTML of the local site: three platform styles around the same competition Markdown.

Each style wraps content in what real platforms put around it (navigation, a cookie banner,
ads, a sidebar, a footer), so extraction and pruning are exercised for real. Leaderboards are
rendered in the browser by ``site.js`` from a JSON API, with pagination.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_to_html(md: str) -> str:
    """Render page Markdown (raw HTML inside it is escaped, not passed through)."""
    return str(_MD.render(md))


@dataclass(frozen=True)
class Style:
    """One platform's page chrome and paths."""

    platform: str
    brand: str
    content_class: str
    """Element holding the content; carries ``data-content-ready``."""
    table_class: str
    """Attributes of the leaderboard table element."""
    lb_header: tuple[str, ...]


STYLES = {
    "kaggle": Style("kaggle", "Kaggle-like", 'class="markdown"',
                    'class="competition-leaderboard"',
                    ("#", "Team", "Members", "Score", "Entries", "Last")),
    "aicrowd": Style("aicrowd", "AIcrowd-like", 'class="challenge-body"',
                     'id="leaderboard-table"',
                     ("Rank", "Participants", "Score", "Entries", "Last Submission")),
    "biendata": Style("biendata", "Biendata-like", 'class="competition-content"',
                      'class="rank-table"', ("Rank", "Team Name", "Score", "Submissions")),
}


def _chrome_top(style: Style, title: str, tabs: list[tuple[str, str]], active: str) -> str:
    e = html.escape
    tab_html = "".join(
        f'<li class="tab{" active" if k == active else ""}"><a href="{e(u)}">{e(k.title())}</a>'
        "</li>" for k, u in tabs
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)} | {e(style.brand)}</title>
<link rel="stylesheet" href="/static/site.css"></head>
<body class="platform-{style.platform}">
<header class="site-header"><a class="logo" href="/{style.platform}/">{e(style.brand)}</a>
<nav class="main-menu"><a href="/{style.platform}/competitions">Competitions</a>
<a href="/{style.platform}/datasets">Datasets</a><a href="/{style.platform}/discussions">
Discussions</a><a href="/{style.platform}/login">Sign In</a></nav></header>
<div id="cookie-consent" class="cookie-banner">We use cookies to improve your experience.
<button>Accept all cookies</button></div>
<div class="layout">
<aside class="sidebar"><h3>Trending</h3><ul><li>Another competition</li><li>Top notebooks
</li></ul></aside>
<main id="site-content"><h1 class="competition-title">{e(title)}</h1>
<nav class="competition-tabs"><ul>{tab_html}</ul></nav>
<div class="ad-slot sponsor">Sponsored: rent GPUs by the minute, 50% off today.</div>
"""


def _chrome_bottom(style: Style) -> str:
    return f"""</main>
<div class="share-bar social"><a href="#">Share on X</a> <a href="#">Share on LinkedIn</a></div>
</div>
<div class="newsletter-signup"><form action="/{style.platform}/newsletter"><input name="email">
<button>Subscribe</button></form></div>
<footer class="site-footer">Terms &middot; Privacy &middot; Contact &copy; 2024</footer>
<script src="/static/site.js"></script>
</body></html>
"""


def render_content_page(style: Style, title: str, body_md: str, tabs: list[tuple[str, str]],
                        active: str, *, extra_html: str = "", content_delay_ms: int = 0) -> str:
    """A competition page whose content is ``body_md``.

    With ``content_delay_ms`` the content is inserted by a script after that delay (a
    JavaScript-rendered page: only a selector wait finds it).
    """
    body = markdown_to_html(body_md)
    content_attrs = f'{style.content_class} data-content-ready="1"'
    if content_delay_ms:
        payload = html.escape(body, quote=True)
        content = (
            f'<div id="late-content" data-html="{payload}" data-delay="{content_delay_ms}" '
            f'data-attrs="{html.escape(content_attrs, quote=True)}">Loading...</div>'
        )
    else:
        content = f"<div {content_attrs}>{body}{extra_html}</div>"
    return _chrome_top(style, title, tabs, active) + content + _chrome_bottom(style)


def render_leaderboard_page(style: Style, title: str, tabs: list[tuple[str, str]],
                            api_url: str, page: int) -> str:
    """A leaderboard page: an empty table the script fills from ``api_url``."""
    e = html.escape
    table = (
        f'<div class="leaderboard-wrap"><table {style.table_class} data-api="{e(api_url)}" '
        f'data-page="{page}"><thead></thead><tbody><tr><td>Loading...</td></tr></tbody></table>'
        '<nav class="pagination"></nav></div>'
    )
    return _chrome_top(style, title, tabs, "leaderboard") + table + _chrome_bottom(style)


def render_block_page(reason: str, platform: str) -> str:
    """A CAPTCHA, login wall or rules gate, as platforms show them."""
    if reason == "captcha":
        inner = ('<h2>Please verify you are a human</h2><div class="g-recaptcha" '
                 'data-sitekey="local-test"></div>')
    elif reason == "login":
        inner = ('<h2>Sign in to continue</h2><form id="login-form" action="/login" '
                 'method="post"><input name="user"><input name="password" type="password">'
                 "<button>Sign in</button></form>")
    else:
        inner = ("<h2>You must accept this competition's rules before you can see this page."
                 '</h2><button id="accept-rules">I Understand and Accept</button>')
    return (f"<!doctype html><html><head><title>Blocked</title></head><body class="
            f'"platform-{platform}"><div class="gate">{inner}</div></body></html>')


SITE_CSS = """
body{font-family:sans-serif;margin:0}.layout{display:flex}.sidebar{width:200px}
main{flex:1;padding:1em}.cookie-banner{position:fixed;bottom:0;background:#eee;width:100%}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}
.visually-gone{display:none}
"""

SITE_JS = r"""
(function () {
  var late = document.getElementById('late-content');
  if (late) {
    setTimeout(function () {
      var div = document.createElement('div');
      var attrs = late.getAttribute('data-attrs');
      div.innerHTML = late.getAttribute('data-html');
      var m, re = /([a-z-]+)="([^"]*)"/g;
      while ((m = re.exec(attrs)) !== null) { div.setAttribute(m[1], m[2]); }
      late.replaceWith(div);
    }, parseInt(late.getAttribute('data-delay'), 10));
  }
  var table = document.querySelector('table[data-api]');
  if (!table) { return; }
  fetch(table.getAttribute('data-api')).then(function (r) {
    if (!r.ok) { throw new Error('HTTP ' + r.status); }
    return r.json();
  }).then(function (data) {
    var thead = table.querySelector('thead'), tbody = table.querySelector('tbody');
    var tr = document.createElement('tr');
    data.header.forEach(function (h) {
      var th = document.createElement('th'); th.textContent = h; tr.appendChild(th);
    });
    thead.appendChild(tr);
    tbody.innerHTML = '';
    data.rows.forEach(function (row) {
      var r = document.createElement('tr');
      row.forEach(function (v) {
        var td = document.createElement('td'); td.textContent = v; r.appendChild(td);
      });
      tbody.appendChild(r);
    });
    var nav = document.querySelector('nav.pagination');
    for (var p = 1; p <= data.total_pages; p++) {
      var a = document.createElement('a');
      a.href = '?page=' + p + (data.tab ? '&tab=' + data.tab : '');
      a.textContent = String(p);
      if (p === data.page) { a.className = 'current'; }
      nav.appendChild(a);
    }
    var info = document.createElement('span');
    info.textContent = 'Page ' + data.page + ' of ' + data.total_pages;
    nav.appendChild(info);
    table.setAttribute('data-total-pages', String(data.total_pages));
    table.setAttribute('data-loaded', 'true');
  });
})();
"""
