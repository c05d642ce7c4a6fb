"""The site's AIcrowd style, built from AIcrowd's Rails views (challenges, dataset_files,
challenge_rules and leaderboards templates): server-rendered Bootstrap pages.

* every challenge page has the masthead (``.masthead h1`` = the title) and the sub-navigation
  tabs Overview, Leaderboard, Notebooks, Discussion, Insights, Resources, Submissions, Winners,
  Rules: there is no evaluation page, the overview describes the evaluation;
* the overview's text is ``#description-wrapper .md-content[data-controller=challenge-overview]``
  beside a side column of top teams; the Resources tab (``/dataset_files``) lists the files;
* the leaderboard is a ``<table class="table">`` whose header is ``Δ``, ``#``,
  ``Participants``, the score column (class ``score-title``, "Primary Score" unless renamed),
  ``Successful Entries``, ``Last Submission``, ``Submission Trend`` and an unnamed column of
  buttons; ranks print as
  ``01``; a baseline row has no rank and leaves three columns to one ``colspan="3"`` cell; the
  body (``tbody#leaderboards-div``) holds 50 rows and loads the next 50 (``?page=N``) when the
  page is scrolled to its footer.
"""

from __future__ import annotations

from datetime import date

from tambench.testing.site._markup import e, markdown_to_html, starts_with_heading
from tambench.testing.site.competitions import LeaderboardEntry, SiteCompetition

PER_PAGE = 50
TABS = (("Overview", ""), ("Leaderboard", "/leaderboards"), ("Notebooks", "/notebooks"),
        ("Discussion", "/discussion"), ("Insights", "/insights"), ("Resources", "/dataset_files"),
        ("Submissions", "/submissions"), ("Winners", "/winners"), ("Rules", "/challenge_rules"))

CSS = ".app-footer{margin-top:2em}td,th{padding:4px 8px}.d-none{display:none}"

LOAD_MORE_JS = r"""
(function () {
  var body = document.getElementById('leaderboards-div');
  if (!body) { return; }
  function more() {
    if (body.getAttribute('data-request-completed') === 'false') { return; }
    var footer = document.querySelector('.app-footer');
    if (window.scrollY + window.innerHeight + 50 < footer.offsetTop) { return; }
    var next = parseInt(body.getAttribute('data-page'), 10) + 1;
    body.setAttribute('data-request-completed', 'false');
    var url = window.location.pathname + '?page=' + next + '&rows_only=1';
    fetch(url, {headers: {'X-Requested-With': 'XMLHttpRequest'}}).then(function (r) { return r.text(); })
      .then(function (html) {
        body.setAttribute('data-page', String(next));
        var t = document.createElement('tbody');
        t.innerHTML = html;
        var n = t.children.length;
        while (t.firstChild) { body.appendChild(t.firstChild); }
        body.setAttribute('data-request-completed', n < 50 ? 'false' : 'true');
      });
  }
  window.addEventListener('scroll', more);
})();
"""


def _layout(title: str, inner: str, *, main: bool = False) -> str:
    content = f"<main>{inner}</main>" if main else f"<div class='content'>{inner}</div>"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>AIcrowd-like | '
            f'{e(title)}</title><link rel="stylesheet" href="/static/aicrowd.css"></head>'
            '<body data-controller="mixpanel"><div class="alert alert-flash alert-fixed" '
            'role="alert"><div class="container-fluid"><a href="/jobs">We are hiring!</a></div>'
            '</div><header class="app-header"><div class="container-fluid"><div '
            'class="app-header-section"><div class="app-brand"><a class="logo-aicrowd" href="/">'
            '<span>AIcrowd</span></a></div><form action="/search" method="get"><input '
            'class="form-control search-input" name="q"></form><ul class="nav"><li><a '
            'href="/challenges">Challenges</a></li><li><a href="/research">Research</a></li><li>'
            '<a href="/blogs">Blog</a></li></ul></div></div></header>'
            f'{content}<footer class="app-footer"><div class="container-fluid">AIcrowd-like &middot; '
            'Terms &middot; Privacy</div></footer><script src="/static/aicrowd.js"></script>'
            "</body></html>")


def _masthead(comp: SiteCompetition) -> str:
    return ('<div class="masthead masthead-challenge"><div class="container-fluid"><div class="row">'
            f'<div class="col-sm-12 col-md-8 col-lg-9"><h1>{e(comp.title)}</h1><p>'
            f'{e(comp.subtitle)}</p></div></div></div></div>')


def _subnav(base: str, active: str) -> str:
    items = "".join(
        f'<li class="nav-item"><a class="nav-link{" active" if name == active else ""}" '
        f'href="{e(base + path)}">{name}</a></li>' for name, path in TABS)
    return ('<div class="sub-nav-bar sticky-top"><div class="container-fluid priority-nav" '
            f'data-controller="prioritynav"><ul class="nav">{items}</ul><a class="btn btn-primary '
            f'btn-sm pull-right" href="{e(base)}/challenge_rules">Participate</a></div></div>')


def _overview_md(comp: SiteCompetition, base: str) -> str:
    parts = [comp.page("overview", base)]
    data = comp.page("data", base)
    parts.append(data if starts_with_heading(data, r"data") else "## Dataset\n\n" + data)
    ev = comp.page("evaluation", base)
    parts.append(ev if starts_with_heading(ev, r"evaluat") else "## Evaluation\n\n" + ev)
    return "\n\n".join(parts)


def overview_page(comp: SiteCompetition, base: str, extra_html: str = "") -> str:
    """The challenge's overview: its description, data and evaluation sections."""
    top = "".join(f"<li>{e(r.team)} <strong>{r.score:g}</strong></li>"
                  for r in comp.leaderboard()[:5])
    inner = (f"{_masthead(comp)}{_subnav(base, 'Overview')}<section class='section-p-md'>"
             "<div class='container-fluid'><div class='row'><div class='col-lg-2 "
             "sub-nav-vertical-container'><ul class='nav flex-column sticky-top-sub-nav' "
             "id='table-of-contents'></ul></div><div class='col-md-8 col-lg-7' "
             "id='description-wrapper'><div class='markdown-wrap'><div class='md-content "
             "ck-content' data-controller='challenge-overview'>"
             f"{markdown_to_html(_overview_md(comp, base))}{extra_html}</div></div></div>"
             "<div class='top-contributors-container col-sm-12 col-md-4 col-lg-3'><div "
             f"class='card'><h4>Leaderboard</h4><ol>{top}</ol></div></div></div></div></section>")
    return _layout(comp.title, inner)


def dataset_page(comp: SiteCompetition, base: str) -> str:
    """The Resources tab: one list item per file, with its size and description."""
    items = "".join(
        '<li class="list-group-item"><div class="dataset-file__info"><div><a class="text-link" '
        f'href="{e(base)}/download/{e(name)}" target="_blank">{e(name)} ({len(make()) / 1024:.1f} '
        f'KB)</a> <span class="description">{e(comp.file_notes.get(name, ""))}</span></div></div>'
        f'<div style="display:flex"><a class="btn btn-secondary" href="{e(base)}/download/'
        f'{e(name)}">Download</a></div></li>' for name, make in sorted(comp.files.items()))
    inner = (f"{_masthead(comp)}{_subnav(base, 'Resources')}<section class='section-p-sm "
             "dataset-files-list'><div class='container-fluid'><div class='row'><div "
             "class='col-12'><header class='section-header'><div><h4>Resources</h4></div></header>"
             f"<ul class='list-group list-group-flush-px-0 list-group-dataset'><hr/>{items}</ul>"
             "</div></div></div></section>")
    return _layout(comp.title, inner)


def rules_page(comp: SiteCompetition, base: str, extra_html: str = "") -> str:
    """The rules (the page has its own ``<main>``, as the real template does)."""
    inner = ("<div class='masthead masthead-open'><div class='container-fluid'><div class='row'>"
             f"<div class='col-12'><h4><a class='red-link' href='{e(base)}'>{e(comp.title)}</a>"
             "</h4><h1>Challenge Rules</h1></div></div></div></div><div class='section-p-sm "
             "pb-0'><div class='container-fluid'><div data-controller='linkify-content' "
             f"class='md-content'>{markdown_to_html(comp.page('rules', base))}{extra_html}</div></div>"
             "</div>")
    return _layout(comp.title, inner, main=True)


def _when(entry: LeaderboardEntry) -> str:
    d = date.fromisoformat(entry.last)
    return f"{d:%a}, {d.day:2d} {d:%b %Y} 12:00"


def _row(rank: int, entry: LeaderboardEntry, base: str) -> str:
    name = e(entry.team)
    return (f'<tr class=""><td class="leaderboard-change "><span>—</span></td><td class=""><strong>'
            f"{rank:02d}</strong></td><td class=\"\"><div class='d-flex'><img class='avatar' "
            f"src='/assets/img/user.png'><a class='text-link' href='/participants/{name}'>{name}"
            f'</a></div></td><td class="text-right "><strong>{entry.score:.3f}</strong></td>'
            f'<td class="text-right ">{entry.entries}</td><td class="text-right ">{_when(entry)}'
            '</td><td class=""><div class="graph"></div></td><td class="text-right "><a class="btn btn-secondary btn-sm mr-1" href="'
            f'{e(base)}/submissions/{rank}">View</a></td></tr>')


def _baseline(score: float, base: str) -> str:
    return ('<tr class=""><td><span class="fa fa-thumb-tack" title="Baseline"></span></td><td></td>'
            '<td class="participant"><div>Baseline <mark>random guess</mark></div></td>'
            f'<td class="text-right "><strong>{score:.3f}</strong></td><td class="" colspan="3">'
            f'</td><td class="text-right "><a class="btn btn-secondary btn-sm mr-1" '
            f'href="{e(base)}/submissions/0">View</a></td></tr>')


def board_rows(comp: SiteCompetition, base: str, page: int) -> str:
    """The rows of one page (50 teams), with the baseline where its score places it."""
    rows = comp.leaderboard()
    if not rows:
        return ""
    baseline = sorted(r.score for r in rows)[len(rows) // 3]
    ahead = sum(1 for r in rows
                if (r.score > baseline if comp.higher_is_better else r.score < baseline))
    start = (page - 1) * PER_PAGE
    html = []
    for i, entry in enumerate(rows[start:start + PER_PAGE], start=start):
        if i == ahead:
            html.append(_baseline(baseline, base))
        html.append(_row(i + 1, entry, base))
    return "".join(html)


def leaderboard_page(comp: SiteCompetition, base: str, page: int, score_title: str) -> str:
    """One page of the leaderboard, as the server renders it."""
    head = ("<tr><th scope='col' class='leaderboard-change'>Δ</th><th scope='col'>#</th>"
            "<th scope='col'>Participants</th><th scope='col' class='text-right score-title'>"
            f"{e(score_title)}</th><th scope='col' class='text-right'>Successful Entries</th>"
            "<th scope='col' class='text-right'>Last Submission</th><th scope='col' "
            "class='text-center'>Submission Trend</th><th scope='col' class='text-right'></th>"
            "</tr>")
    inner = (f"{_masthead(comp)}{_subnav(base, 'Leaderboard')}<section class='section-p-sm' "
             "data-controller='leaderboards'><div class='container-fluid'><div class='row'><div "
             "class='col-12'><div class='table-responsive-md'><table class='table'><thead>"
             f"{head}</thead><tbody class='table-leaderboard' id='leaderboards-div' "
             f"data-page='{page}' data-request-completed='true' data-controller='load-more' "
             "data-action='scroll@window->load-more#load_more_data'>"
             f"{board_rows(comp, base, page)}</tbody></table></div></div></div></div></section>")
    return _layout(comp.title, inner)
