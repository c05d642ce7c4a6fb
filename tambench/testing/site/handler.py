"""The local site's request handler: one small method per kind of request (see server.py)."""

from __future__ import annotations

import json
import secrets
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import tambench.testing.site.aicrowd_style as aicrowd_style
import tambench.testing.site.kaggle_style as kaggle_style
import tambench.testing.site.other_styles as other_styles
from tambench.core.bounded import parse_json
from tambench.errors import MalformedInputError
from tambench.testing.site._markup import block_page, injection_html
from tambench.testing.site.competitions import SiteCompetition
from tambench.testing.site.restyle import (
    RESTYLED_PREFIX,
    STATIC_PREFIX,
    restyle_html,
    restyle_static,
)
from tambench.testing.site.server import (
    FAULT_SLUGS,
    LAB_PAGE,
    STATIC,
    Route,
    SiteState,
    comp_base,
    parse_route,
)

HTML = "text/html; charset=utf-8"
JSON = "application/json"
KAGGLE_TABS = {"": "overview", "overview": "overview", "overview/evaluation": "overview",
               "data": "data", "rules": "rules", "leaderboard": "leaderboard"}
AICROWD_TABS = {"": "overview", "dataset_files": "data", "challenge_rules": "rules",
                "leaderboards": "leaderboard"}
BIENDATA_TABS = {"": "overview", "data": "data", "evaluation": "evaluation", "rules": "rules",
                 "final-leaderboard": "leaderboard"}


class SiteHandler(BaseHTTPRequestHandler):
    """Serves :class:`SiteState` (set on the subclass :func:`make_handler` returns)."""

    state: ClassVar[SiteState]
    protocol_version = "HTTP/1.1"
    server_version = "tambench-site"
    sys_version = ""

    def log_message(self, *args: Any) -> None:
        return

    # -- answers -------------------------------------------------------------------------------

    restyle: bool = False
    """Whether this request's HTML is served re-styled (a ``restyled-`` competition)."""

    def _send(self, code: int, body: bytes | str, ctype: str = HTML,
              headers: dict[str, str] | None = None) -> None:
        if self.restyle and ctype == HTML and isinstance(body, str):
            body = restyle_html(body)
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, code: int, payload: Any) -> None:
        self._send(code, json.dumps(payload), JSON)

    # -- GET -------------------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        count = self.state.record(self.path)
        self.restyle = False  # a kept-alive connection serves requests of several pages
        try:
            self._get(parts.path, parse_qs(parts.query), count)
        except (BrokenPipeError, ConnectionResetError):
            return

    def _get(self, path: str, query: dict[str, list[str]], count: int) -> None:
        if path == "/robots.txt":
            self._send(200, "User-agent: *\nDisallow: /private/\n", "text/plain")
        elif path in STATIC:
            text, ctype = STATIC[path]
            self._send(200, text, ctype)
        elif path.startswith(STATIC_PREFIX) and f"/static/{path[len(STATIC_PREFIX):]}" in STATIC:
            text, ctype = STATIC[f"/static/{path[len(STATIC_PREFIX):]}"]
            self._send(200, restyle_static(text, ctype), ctype)
        elif path == "/lab/post":
            self._send(200, LAB_PAGE, headers={"Set-Cookie": "lab_session=s1; Path=/"})
        else:
            route = parse_route(path)
            if route is None:
                self._send(404, "<h1>Not found</h1>")
            elif route.slug in FAULT_SLUGS and route.tab != "download":
                self._fault(route, query, count)
            else:
                self._page(route, query)

    def _page(self, route: Route, query: dict[str, list[str]], *, fault: bool = False) -> None:
        comp, injected = self.state.competition(route.slug)
        self.restyle = route.slug.startswith(RESTYLED_PREFIX)
        if comp is None:
            self._send(404, "<h1>No such competition</h1>")
            return
        if route.tab == "download":
            self._download(comp, route.download)
            return
        extra = injection_html(self.state.canary_url) if injected else ""
        page = _int(query.get("page", ["1"])[0], 1)
        render = {"kaggle": self._kaggle, "aicrowd": self._aicrowd,
                  "biendata": self._biendata, "novel": self._novel}[route.platform]
        render(comp, route, extra, page, "rows_only" in query)

    def _kaggle(self, comp: SiteCompetition, route: Route, extra: str, page: int,
                rows_only: bool) -> None:
        tab = KAGGLE_TABS.get(route.tab, "other")
        base = comp_base("kaggle", route.slug)
        boot = {"slug": route.slug, "tab": tab, "api": kaggle_style.API_PREFIX,
                "base": "/kaggle", "comp": base}
        token = secrets.token_hex(8)
        self._send(200, kaggle_style.shell_page(comp.title, boot), headers={
            "Set-Cookie": f"{kaggle_style.XSRF_COOKIE}={token}; Path=/; SameSite=Lax"})

    def _aicrowd(self, comp: SiteCompetition, route: Route, extra: str, page: int,
                 rows_only: bool) -> None:
        tab = AICROWD_TABS.get(route.tab)
        base = comp_base("aicrowd", route.slug)
        if tab is None:
            self._send(404, "<h1>No such tab</h1>")
        elif tab == "leaderboard" and rows_only:
            self._send(200, aicrowd_style.board_rows(comp, base, page))
        elif tab == "leaderboard":
            title = self.state.score_titles.get(comp.slug, "Primary Score")
            self._send(200, aicrowd_style.leaderboard_page(comp, base, page, title))
        elif tab == "data":
            self._send(200, aicrowd_style.dataset_page(comp, base))
        elif tab == "rules":
            self._send(200, aicrowd_style.rules_page(comp, base, extra))
        else:
            self._send(200, aicrowd_style.overview_page(comp, base, extra))

    def _biendata(self, comp: SiteCompetition, route: Route, extra: str, page: int,
                  rows_only: bool) -> None:
        tab = BIENDATA_TABS.get(route.tab)
        base = comp_base("biendata", route.slug)
        if tab is None:
            self._send(404, "<h1>No such tab</h1>")
        elif tab == "leaderboard":
            self._send(200, other_styles.biendata_leaderboard(comp, base, page))
        else:
            self._send(200, other_styles.biendata_page(comp, base, tab, extra))

    def _novel(self, comp: SiteCompetition, route: Route, extra: str, page: int,
               rows_only: bool) -> None:
        base = comp_base("novel", route.slug)
        self._send(200, other_styles.novel_page(comp, base, route.tab or "task"))

    def _download(self, comp: SiteCompetition, filename: str) -> None:
        producer = comp.files.get(filename)
        if producer is None:
            self._send(404, "no such file", "text/plain")
            return
        self._send(200, producer(), "text/csv; charset=utf-8",
                   {"Content-Disposition": f'attachment; filename="{filename}"'})

    # -- faults ----------------------------------------------------------------------------------

    def _fault(self, route: Route, query: dict[str, list[str]], count: int) -> None:
        slug, state = route.slug, self.state
        if slug == "fault-slow":
            state.sleep(state.slow_seconds)
            self._send(200, "<html><body>too late</body></html>")
        elif slug == "fault-429" and count <= 2:
            self._send(429, "<h1>Too many requests</h1>", headers={"Retry-After": "1"})
        elif slug == "fault-500":
            self._send(500, "<h1>Internal server error</h1>")
        elif slug == "fault-truncated":
            self._truncated()
        elif slug in ("fault-captcha", "fault-login", "fault-rules"):
            self._send(200, block_page(slug.removeprefix("fault-"), route.platform))
        elif slug == "fault-redirect":
            self._send(302, "", headers={"Location": state.canary_url + "/redirected"})
        elif slug == "fault-refresh":
            self._send(200, '<html><head><meta http-equiv="refresh" content="0; url='
                       f'{state.canary_url}/refreshed"></head><body>Moved</body></html>')
        elif slug == "fault-huge":
            self._endless()
        else:  # fault-429 from the third request on, fault-js-slow
            self._page(route, query)

    def _truncated(self) -> None:
        body = b"<html><body><main>" + b"x" * 20000 + b"</main></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True

    def _endless(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.close_connection = True
        chunk = b"<p>" + b"y" * 65536 + b"</p>"
        sent = 0
        while sent < 2_000_000_000 and not self.state.stopping.is_set():
            self.wfile.write(chunk)
            sent += len(chunk)

    # -- POST ------------------------------------------------------------------------------------

    def do_POST(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        self.state.record(self.path)
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        with self.state.lock:
            self.state.requests.append({"path": path, "method": "POST", "body": raw,
                                        "headers": dict(self.headers.items())})
        try:
            if path == "/lab/echo":
                self._json(200, {"method": "POST", "length": len(raw)})
            elif path.startswith(kaggle_style.API_PREFIX):
                self._kaggle_api(path[len(kaggle_style.API_PREFIX):], raw)
            else:
                self._json(404, {"error": "not found"})
        except (BrokenPipeError, ConnectionResetError):
            return

    def _xsrf_ok(self) -> bool:
        cookies = dict(c.strip().partition("=")[::2]
                       for c in (self.headers.get("Cookie") or "").split(";") if "=" in c)
        token = cookies.get(kaggle_style.XSRF_COOKIE, "")
        return bool(token) and self.headers.get(kaggle_style.XSRF_HEADER) == token

    def _kaggle_api(self, method: str, raw: bytes) -> None:
        if not self._xsrf_ok() or "json" not in (self.headers.get("Content-Type") or ""):
            self._json(403, {"error": "missing or wrong XSRF token, or not a JSON request"})
            return
        try:
            body = parse_json(raw or b"{}", "the body")
        except MalformedInputError as exc:
            self._json(400, {"error": str(exc)})
            return
        slug = str(body.get("competitionName", ""))
        comp, injected = self.state.competition(slug)
        if comp is None:
            self._json(404, {"error": f"no competition {slug!r}"})
            return
        if slug == "fault-js-slow" and method.endswith("/GetCompetitionPage"):
            self.state.sleep(3.0)
        self._json(200, self._kaggle_answer(method, comp, body, injected))

    def _kaggle_answer(self, method: str, comp: SiteCompetition, body: dict[str, Any],
                       injected: bool) -> dict[str, Any]:
        if method.endswith("/GetCompetition"):
            return {"title": comp.title, "subtitle": comp.subtitle, "category": comp.category,
                    "host": "Kaggle", "state": "Completed", "teamCount": len(comp.leaderboard())}
        if method.endswith("/GetLeaderboard"):
            return kaggle_style.leaderboard_rows(comp.leaderboard(), _int(str(body.get("offset",
                                                 0)), 0), _int(str(body.get("limit", 50)), 50))
        kind = str(body.get("pageName", "overview"))
        if kind not in ("overview", "data", "rules"):
            return {"html": "<p>Nothing to show on this tab.</p>"}
        extra = injection_html(self.state.canary_url) if injected else ""
        slug = str(body.get("competitionName", ""))
        html = kaggle_style.page_content(comp, kind, comp_base("kaggle", slug), extra)
        return {"html": restyle_html(html) if slug.startswith(RESTYLED_PREFIX) else html}


def _int(text: str, default: int) -> int:
    return int(text) if text.isdigit() else default


def make_handler(state: SiteState) -> type[SiteHandler]:
    """The handler class bound to ``state``."""
    return type("BoundSiteHandler", (SiteHandler,), {"state": state})
