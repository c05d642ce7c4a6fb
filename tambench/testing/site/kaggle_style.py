"""The site's Kaggle style, built from the structure of real kaggle.com pages (2021-2024).

What the real site does, and this style does too:

* the server answers every page with an empty application shell (``<div id="root">``, as a
  raw response of kaggle.com is) and sets an ``XSRF-TOKEN`` cookie;
* the application then builds everything inside one ``<main>``: the navigation as plain
  ``div``/``ul.km-list`` elements with hashed ``sc-*`` classes and icon-font ligatures
  (``<i class="google-symbols">emoji_events</i>``), closed menus in ``#rmwcPortal``, and
  ``#site-content`` holding ``[data-testid="competition-detail-render-tid"]``;
* the competition and each tab's content are loaded by JSON POSTs to the site's own API with
  the ``X-XSRF-TOKEN`` header copied from the cookie; a request without them is refused;
* the overview holds its sections as ``#abstract``, ``#description``, ``#evaluation`` and its
  tags as a chip group ``#combo-tags-menu-chipset`` (``role=group``, one link per tag); the data
  tab starts with "Dataset Description" and carries a data-explorer widget; a closed
  (CSS-hidden) "I Understand and Accept" rules dialog sits in the DOM, and a cookie banner
  with hashed classes ("OK, Got it.") inside ``<main>``;
* the leaderboard is a list (``ul.km-list``, one ``<li>`` per row, ``<span>`` cells) that loads
  50 more rows each time it is scrolled to its end.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tambench.testing.site._markup import e, markdown_to_html, starts_with_heading
from tambench.testing.site.competitions import LeaderboardEntry, SiteCompetition

API_PREFIX = "/kaggle/api/i/"
XSRF_COOKIE = "XSRF-TOKEN"
XSRF_HEADER = "X-XSRF-TOKEN"
ROWS_PER_CALL = 50

CSS = """
body{font-family:sans-serif;margin:0}
.mdc-dialog,.mdc-menu-surface{display:none}
.mdc-dialog--open,.mdc-menu-surface--open{display:block}
.__react_component_tooltip{display:none}
.visually-gone{display:none}
ul.km-list>li{min-height:40px}
#site-content{padding:1em}
"""

APP_JS = r"""
(function () {
  var boot = window.__BOOT__;
  function esc(s) { var d = document.createElement('div'); d.textContent = String(s); return d.innerHTML; }
  function cookie(name) {
    var m = document.cookie.match(new RegExp('(?:^|; )' + name + '=([^;]*)'));
    return m ? decodeURIComponent(m[1]) : '';
  }
  function api(method, body) {
    return fetch(boot.api + method, {
      method: 'POST', credentials: 'same-origin',
      headers: {'Content-Type': 'application/json', 'X-XSRF-TOKEN': cookie('XSRF-TOKEN')},
      body: JSON.stringify(body)
    }).then(function (r) { if (!r.ok) { throw new Error('HTTP ' + r.status); } return r.json(); });
  }
  function icon(name) {
    return '<i class="rmwc-icon rmwc-icon--ligature google-symbols sc-iBdnpw dhvkU notranslate">' + name + '</i>';
  }
  function chrome() {
    var nav = [['explore', 'Home', '/'], ['emoji_events', 'Competitions', '/competitions'],
               ['table_chart', 'Datasets', '/datasets'], ['code', 'Code', '/code'],
               ['comment', 'Discussions', '/discussions'], ['school', 'Learn', '/learn'],
               ['expand_more', 'More', '#']];
    var items = nav.map(function (n) {
      return '<li class="MuiListItem-root MuiListItem-gutters sc-guhxjM kLylVR"><div class="sc-bYpRZF fWjoqh km-listitem--small">' +
        '<a class="sc-bqOYya camFgS" role="link" href="' + boot.base + n[2] + '">' + icon(n[0]) +
        '<p class="sc-dJGMql eoPuqG">' + n[1] + '</p></a></div></li>';
    }).join('');
    return '<div class="sc-bSywJw sc-hPMVTF hdltdl hEbpHs"><div class="sc-fSurle lhYBXR">' + icon('menu') +
      '<a class="sc-eAKtBH gfxjtA" href="#site-content">Skip to content</a></div>' +
      '<div class="sc-AngWr dCzuwS"><button class="sc-gKbtt dKTegn"><span>Create</span></button></div>' +
      '<div class="sc-jtMbrs kfpuGG">' + icon('search') + '<input class="sc-search" placeholder="Search"></div>' +
      '<ul class="MuiList-root km-list css-1uzmcsd" role="list">' + items + '</ul>' +
      '<div class="sc-kRecent">' + icon('note_alt') + '<span>Your Work</span><div>' + icon('arrow_drop_down') +
      'Recently Viewed</div><ul class="km-list km-list--dense"><li><a href="' + boot.base +
      '/code/someone/notebook1234">notebook1234</a></li><li><a href="' + boot.base +
      '/datasets/someone/fifa">FIFA 19 complete player dataset</a></li></ul></div></div>';
  }
  var CONSENT = '<div class="sc-jdHILj fWvUzq"><div class="sc-cTJmaU kTpNxA">This site uses cookies ' +
    'from Google to deliver and improve its services and to analyze traffic.</div><div class="sc-dTvVRJ ' +
    'gPqSoW"><a class="sc-hmdomO lbmOHq" href="/privacy">Learn more</a><div class="sc-bxFwkO ' +
    'eMaKnd" tabindex="0">OK, Got it.</div></div></div>';
  var PORTAL = '<div class="mdc-menu sc-YltrM dLlSPu mdc-menu-surface"><ul class="mdc-list" role="menu">' +
    '<li class="mdc-list-item" role="menuitem">' + icon('code') + '<p>New Notebook</p></li>' +
    '<li class="mdc-list-item" role="menuitem">' + icon('emoji_events') + '<p>New Competition</p></li></ul></div>';
  var RULES_DIALOG = '<div class="sc-cvdZrU dpthPX mdc-dialog"><div class="mdc-dialog__container">' +
    '<div class="mdc-dialog__surface"><div class="sc-bTJQgd">By clicking on the "I Understand and Accept" ' +
    'button below, you agree to be bound to the competition rules.</div><div class="sc-hQYpqk">' +
    '<button class="sc-eEVmNe">I Do Not Accept</button><button class="sc-eEVmNe"><span>I Understand and Accept</span>' +
    '</button></div></div></div></div>';
  function header(c) {
    var names = ['Overview', 'Data', 'Code', 'Models', 'Discussion', 'Leaderboard', 'Rules'];
    var tabs = names.map(function (n) {
      return '<a class="MuiButtonBase-root MuiTab-root sc-tab" role="tab" href="' + boot.comp + '/' +
        n.toLowerCase() + '"><span class="sc-dmXWDj eBtuey">' + n + '</span></a>';
    }).join('');
    return '<div class="sc-puDtp VUYTB"><div class="sc-cwcFVX eqXNmJ"><div class="sc-cwutml jRWwLQ">' +
      '<span><span class="sc-lnsjTu">' + esc(c.host) + '</span><span class="sc-lnsjTu"> · ' + esc(c.category) +
      ' Prediction Competition · ' + esc(c.state) + '</span></span><div><button class="sc-jMbVJB" role="button">' +
      '<span>Submit Prediction</span></button><div class="mdc-menu-surface--anchor"><button ' +
      'class="sc-hhyKGa gHKTEt google-symbols notranslate" aria-label="Competition Options">more_horiz</button>' +
      '</div></div></div><div class="sc-kpdYNm bUTszs"><h1 class="sc-eTNRI jyFyaF">' + esc(c.title) + '</h1>' +
      '<span class="sc-dmXWDj sc-hbGPBs"><p class="sc-ifyrAs dQVyPc">' + esc(c.subtitle) + '</p></span></div>' +
      '<div class="sc-teams"><span>' + c.teamCount + ' teams</span></div></div>' +
      '<div class="sc-gSSfEe dXcBCN"><div class="sc-hrOxDu iWZPtZ"><h2 class="sc-hABBmJ sc-imjflA dQgwYV">' +
      esc(c.title) + '</h2></div><div class="MuiTabs-root sc-dNmBJe"><div class="MuiTabs-flexContainer" role="tablist">' +
      tabs + '</div></div></div></div>';
  }
  function row(r) {
    return '<div class="sc-laZMeE jaMIyn sc-kJrGqu fVAHCq"><span class="sc-kLojOw sc-iklJeh sc-xoZJL">' + r.rank +
      '</span><span class="sc-kLojOw sc-iklJeh sc-fpPwup"><span class="sc-kLojOw sc-kSyTMx">' + esc(r.team) +
      '</span></span><span class="sc-kLojOw sc-iklJeh sc-jwtsuN"><div class="sc-eGEtOM jBsTgx"></div></span>' +
      '<span class="sc-kLojOw sc-iklJeh sc-eemifY"><div class="sc-hKfvfE EnRhI"><div style="height: 18px; width: 18px;">' +
      '</div>' + esc(r.score) + '</div></span><span class="sc-kLojOw sc-iklJeh sc-cgTEYn">' + r.entries + '</span>' +
      '<span class="sc-kLojOw sc-iklJeh sc-ieieiu"><div class="sc-TtZnY kkpQHT" data-tip="true">' + esc(r.ago) +
      '<div class="__react_component_tooltip place-top type-dark" data-id="tooltip"><div class="sc-jHNicF">' +
      'Last Submission: ' + esc(r.last) + '</div></div></div></span><span class="sc-kLojOw sc-iklJeh sc-bMQVVx"></span></div>';
  }
  function leaderboard(body) {
    var ul = null, offset = 0, total = null, busy = false;
    var head = '<li class="sc-gSYDnn jcqGXt"><div class="sc-laZMeE jaMIyn sc-fArJxI">' +
      ['#', 'Team', 'Members', 'Score', 'Entries', 'Last', 'Code'].map(function (h) {
        return '<span class="sc-kLojOw sc-iklJeh" style="font-weight: 700;">' + h + '</span>';
      }).join('') + '</div></li>';
    function check() {
      if (window.innerHeight + window.scrollY + 200 >= document.body.scrollHeight) { more(); }
    }
    function more() {
      if (busy || (total !== null && offset >= total)) { return; }
      busy = true;
      api('competitions.LeaderboardService/GetLeaderboard',
          {competitionName: boot.slug, offset: offset, limit: 50}).then(function (d) {
        total = d.total;
        if (ul === null) {
          ul = document.createElement('ul');
          ul.className = 'km-list km-list--one-line';
          ul.innerHTML = head;
          body.appendChild(ul);
        }
        d.rows.forEach(function (r) {
          var li = document.createElement('li');
          li.className = 'sc-gSYDnn jcqGXt';
          li.innerHTML = row(r);
          ul.appendChild(li);
        });
        offset += d.rows.length;
        busy = false;
      }).catch(function () { busy = false; });
    }
    window.addEventListener('scroll', check);
    more();
  }
  function main() {
    var root = document.getElementById('root');
    root.innerHTML = '<main>' + CONSENT + '<div id="site-container"><div class="sc-aXZVg dKubqp">' + chrome() +
      '<div id="site-content" class="sc-cmSatC fiVGm"><div class="sc-loading">Loading…</div></div></div>' +
      '<div id="rmwcPortal">' + PORTAL + '</div></div></main>';
    var site = document.getElementById('site-content');
    api('competitions.CompetitionService/GetCompetition', {competitionName: boot.slug}).then(function (c) {
      document.title = c.title + ' | Kaggle-like';
      site.innerHTML = '<div class="sc-hbaYEB cUWHzx competition" data-testid="competition-detail-render-tid">' +
        header(c) + '<div class="sc-tabbody" data-testid="' + boot.tab + '-page"></div>' + RULES_DIALOG + '</div>';
      var body = site.querySelector('[data-testid="' + boot.tab + '-page"]');
      if (boot.tab === 'leaderboard') {
        body.innerHTML = '<h2 class="sc-hABBmJ dQgwYV">Leaderboard</h2>';
        leaderboard(body);
        return null;
      }
      return api('competitions.PageService/GetCompetitionPage',
                 {competitionName: boot.slug, pageName: boot.tab}).then(function (p) { body.innerHTML = p.html; });
    }).catch(function (err) {
      site.innerHTML = '<div class="sc-error">Something went wrong (' + esc(err.message) + ')</div>';
    });
  }
  main();
})();
"""


def shell_page(title: str, boot: dict[str, str]) -> str:
    """What the server answers for any page: an empty application shell."""
    data = json.dumps(boot).replace("</", "<\\/")
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{e(title)} | '
            'Kaggle-like</title><link rel="stylesheet" href="/static/kaggle.css">'
            f'<script>window.__BOOT__ = {data};</script>'
            '<script src="/static/kaggle-app.js" defer></script></head>'
            '<body><div id="root"></div></body></html>')


def _section(md: str, heading: str, pattern: str) -> str:
    body = markdown_to_html(md)
    return body if starts_with_heading(md, pattern) else f"<h2>{e(heading)}</h2>{body}"


def _tags(comp: SiteCompetition) -> str:
    """The overview's tags: a chip group whose id holds the word "menu", one link per tag."""
    if not comp.tags:
        return ""
    chips = "".join(f'<a class="sc-kFWlue fNcHqE" href="/competitions?tagIds={i}"><span '
                    f'class="sc-hLBbgP gKuWjL">{e(t)}</span></a>' for i, t in enumerate(comp.tags))
    return ('<div class="sc-gcJTYu dzLgHf"><div class="sc-hrOxDu iWZPtZ"><h2 class="sc-hABBmJ '
            'dQgwYV">Tags</h2></div><div id="combo-tags-menu-chipset" role="group" '
            f'class="sc-fmzyuX bPOdQC mdc-chip-set">{chips}</div></div>')


def _data_explorer(comp: SiteCompetition) -> str:
    files = "".join(f'<div class="sc-file"><span>{e(n)}</span></div>' for n in sorted(comp.files))
    preview = "".join(f"<tr><td>{i}</td><td>{i * 7 % 13}</td></tr>" for i in range(1, 30))
    return ('<div class="sc-dataexplorer dataexplorer-v2__overview"><div class="sc-head">Data '
            f'Explorer</div>{files or "<div>No files</div>"}<div class="sc-preview"><table '
            f'class="Table-gSqoht"><thead><tr><th>id</th><th>value</th></tr></thead><tbody>{preview}'
            '</tbody></table></div></div>')


def page_content(comp: SiteCompetition, kind: str, base: str, extra_html: str = "") -> str:
    """The HTML ``GetCompetitionPage`` returns for one tab."""
    if kind == "overview":
        overview = _section(comp.page("overview", base), "Description", r"description|overview")
        evaluation = _section(comp.page("evaluation", base), "Evaluation", r"evaluation")
        return ('<div class="sc-overview">'
                f'<div id="abstract"><p>{e(comp.subtitle or comp.title)}</p></div>'
                f'<div id="description">{overview}{extra_html}</div>'
                f'<div id="evaluation">{evaluation}</div>{_tags(comp)}</div>')
    if kind == "data":
        md = re.sub(r"^\s*#{1,6}\s*(dataset|data)\s+description\s*\n", "",
                    comp.page("data", base), flags=re.I)
        return (f'<div class="sc-data"><h2>Dataset Description</h2>{markdown_to_html(md)}'
                f"{extra_html}</div>{_data_explorer(comp)}")
    rules = _section(comp.page("rules", base), "Rules", r"rules")
    return f'<div class="sc-rules">{rules}{extra_html}</div>'


def _ago(entry: LeaderboardEntry) -> str:
    return "2mo"


def leaderboard_rows(rows: list[LeaderboardEntry], offset: int, limit: int) -> dict[str, Any]:
    """The JSON of one ``GetLeaderboard`` call."""
    chunk = rows[offset:offset + max(0, min(limit, ROWS_PER_CALL))]
    return {"total": len(rows), "rows": [
        {"rank": offset + i + 1, "team": r.team, "score": f"{r.score:.5f}", "entries": r.entries,
         "ago": _ago(r), "last": f"{r.last} 12:00:00"}
        for i, r in enumerate(chunk)]}
