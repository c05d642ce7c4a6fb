"""The site's Biendata style and a layout no adapter knows (for the browser agent).

No real Biendata page was available: this style is a plain server-rendered site (a header
with navigation, a cookie banner, the content in ``div.competition-content``, a paginated
``table.rank-table`` leaderboard with "Page N of M").

The *novel* style (``/novel/contest/<slug>/...``) uses words and markup none of the adapters
expect: tabs named Task, Dataset, Scoring, Standings and Terms, content in ``section.panel``,
the leaderboard a ``table.standings`` (Pos. / Team / Result / Submissions) on one page, and a
cookie banner with hashed classes inside the content. Only the browser agent can acquire it.
"""

from __future__ import annotations

from tambench.testing.site._markup import e, markdown_to_html
from tambench.testing.site.competitions import SiteCompetition

PER_PAGE = 50
NOVEL_TABS = (("Task", "task", "overview"), ("Dataset", "dataset", "data"),
              ("Scoring", "scoring", "evaluation"), ("Terms", "terms", "rules"),
              ("Standings", "standings", "leaderboard"))


def _biendata_layout(title: str, base: str, inner: str) -> str:
    tabs = "".join(f'<a href="{e(base)}{p}">{n}</a> ' for n, p in (
        ("Overview", "/"), ("Data", "/data/"), ("Evaluation", "/evaluation/"),
        ("Rules", "/rules/"), ("Final Leaderboard", "/final-leaderboard/")))
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{e(title)} | Biendata-like'
            '</title></head><body><header class="site-header"><a class="logo" href="/">biendata'
            '</a><nav class="main-menu"><a href="/competitions">Competitions</a> <a '
            'href="/login">Sign In</a></nav></header><div id="cookie-consent" '
            'class="cookie-banner">We use cookies to improve your experience.</div>'
            f'<main><h1 class="competition-title">{e(title)}</h1><nav class="competition-tabs">'
            f'{tabs}</nav>{inner}</main><footer class="site-footer">Terms &middot; Privacy'
            '</footer></body></html>')


def biendata_page(comp: SiteCompetition, base: str, kind: str, extra_html: str = "") -> str:
    """A content page (overview, data, evaluation or rules)."""
    body = markdown_to_html(comp.page(kind, base))
    return _biendata_layout(comp.title, base,
                            f'<div class="competition-content">{body}{extra_html}</div>')


def biendata_leaderboard(comp: SiteCompetition, base: str, page: int) -> str:
    """One page of the final leaderboard."""
    rows = comp.leaderboard()
    total = max(1, -(-len(rows) // PER_PAGE))
    page = min(max(1, page), total)
    start = (page - 1) * PER_PAGE
    body = "".join(f"<tr><td>{i}</td><td>{e(r.team)}</td><td>{r.score!r}</td><td>{r.entries}"
                   "</td></tr>" for i, r in enumerate(rows[start:start + PER_PAGE], start + 1))
    pager = "".join(f'<a href="?page={p}"{" class=current" if p == page else ""}>{p}</a> '
                    for p in range(1, total + 1))
    table = ('<table class="rank-table" data-loaded="true" data-total-pages="'
             f'{total}" data-page="{page}"><thead><tr><th>Rank</th><th>Team Name</th><th>Score'
             f'</th><th>Submissions</th></tr></thead><tbody>{body}</tbody></table><div '
             f'class="pagination">{pager}<span>Page {page} of {total}</span></div>')
    return _biendata_layout(comp.title, base, table)


#: A consent banner inside the content, its classes hashed (a rendered single-page app).
NOVEL_CONSENT = ('<div class="x9Kq2"><p class="t3Lm8">We use cookies to measure traffic and to '
                 'remember your settings.</p><button class="b7Qw1">Accept all</button></div>')


def novel_page(comp: SiteCompetition, base: str, tab: str) -> str:
    """A page of the layout no adapter knows."""
    links = "".join(f'<li><a class="tab-link" href="{e(base)}/{p}">{n}</a></li>'
                    for n, p, _ in NOVEL_TABS)
    kind = {p: k for _, p, k in NOVEL_TABS}.get(tab, "overview")
    if kind == "leaderboard":
        rows = "".join(f"<tr><td>{i}.</td><td>{e(r.team)}</td><td>{r.score!r}</td>"
                       f"<td>{r.entries}</td></tr>" for i, r in enumerate(comp.leaderboard(), 1))
        content = ('<table class="standings"><tr><th>Pos.</th><th>Team</th><th>Result</th>'
                   f"<th>Submissions</th></tr>{rows}</table>")
    else:
        content = markdown_to_html(comp.page(kind, base))
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{e(comp.title)}</title>'
            '</head><body><div class="page-wrap"><div class="topbar"><span class="brand">'
            f'Contest Hub</span><ul class="tabs">{links}</ul></div><section class="panel">'
            f'{NOVEL_CONSENT}<h1>{e(comp.title)}</h1>{content}</section><div class="bottom">'
            'Contest Hub 2024</div></div></body></html>')
