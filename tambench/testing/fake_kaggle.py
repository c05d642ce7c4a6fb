"""A local fake of Kaggle's API, for tests and the demo: the real kaggle client talks to it.

It answers what the official client sends, ``POST {url}/v1/competitions.CompetitionApiService/
<Method>`` with a JSON body in the API's camelCase, for the methods tambench uses:
``ListCompetitions``, ``GetCompetition``, ``ListDataFiles``, ``GetLeaderboard`` (paged by
``pageToken``, at most :attr:`FakeKaggleApi.max_page_size` rows a page whatever the client
asks, as the real service caps it) and ``DownloadDataFiles`` (a redirect to the zip).

Failures are scripted per method: ``FakeKaggleApi(comps, script={"GetLeaderboard": ["503",
"ok"]})`` answers the first call with 503 (``Retry-After: 1``) and the next normally. Script
words: ``ok``, ``429``, ``500``, ``503``, ``404``, ``rules`` (403 "You must accept this
competition's rules"). A competition whose slug is in ``rules_slugs`` always refuses.

    with FakeKaggleApi({"titanic": comp}) as fake:
        KaggleClient(api_url=fake.url).leaderboard("titanic")
"""

from __future__ import annotations

import io
import json
import threading
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar

from tambench.core.bounded import parse_json
from tambench.testing.servers import QuietServer, serving, url_of

SERVICE = "/v1/competitions.CompetitionApiService/"
RULES_MESSAGE = "You must accept this competition's rules before you'll be able to download files."


@dataclass
class FakeTeam:
    """One leaderboard row as the API returns it."""

    team_id: int
    team_name: str
    score: str
    submitted: datetime


@dataclass
class FakeCompetition:
    """One competition the fake API knows."""

    slug: str
    title: str
    category: str = "Featured"
    metric: str = "Area Under Receiver Operating Characteristic Curve"
    tags: list[str] = field(default_factory=list)
    enabled: date = date(2024, 1, 8)
    deadline: date = date(2024, 4, 8)
    teams: list[FakeTeam] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    file_descriptions: dict[str, str] = field(default_factory=dict)

    def as_api(self) -> dict[str, Any]:
        """The ``ApiCompetition`` JSON."""
        return {
            "id": abs(hash(self.slug)) % 100000, "ref": f"https://www.kaggle.com/competitions/"
            f"{self.slug}", "title": self.title, "url": f"https://www.kaggle.com/competitions/"
            f"{self.slug}", "category": self.category, "evaluationMetric": self.metric,
            "tags": [{"ref": t.lower(), "name": t} for t in self.tags],
            "enabledDate": f"{self.enabled.isoformat()}T00:00:00.000Z",
            "deadline": f"{self.deadline.isoformat()}T23:59:00.000Z",
            "teamCount": len(self.teams), "isKernelsSubmissionsOnly": False,
            "submissionsDisabled": False,
        }

    def archive(self) -> bytes:
        """The data files as the zip ``DownloadDataFiles`` leads to."""
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in sorted(self.files.items()):
                zf.writestr(name, data)
        return buf.getvalue()


class FakeKaggleApi:
    """The fake API server on 127.0.0.1 (a context manager); see the module docstring."""

    def __init__(self, competitions: dict[str, FakeCompetition], *,
                 script: dict[str, list[str]] | None = None, rules_slugs: frozenset[str] = frozenset(),
                 max_page_size: int = 50, retry_after: str = "1") -> None:
        self.competitions = competitions
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.rules_slugs = rules_slugs
        self.max_page_size = max_page_size
        self.retry_after = retry_after
        self.calls: list[tuple[str, dict[str, Any]]] = []
        """(method, request body) of every API call, in order."""
        self.auth_headers: list[str] = []
        self._lock = threading.Lock()
        self._cm: Any = None
        self.url = ""

    def __enter__(self) -> FakeKaggleApi:
        self._cm = serving(_handler(self))
        server: QuietServer = self._cm.__enter__()
        self.url = url_of(server)
        return self

    def __exit__(self, *exc: object) -> None:
        self._cm.__exit__(None, None, None)

    def count(self, method: str) -> int:
        """How many calls of ``method`` the fake received."""
        with self._lock:
            return sum(1 for m, _ in self.calls if m == method)

    # -- answers --------------------------------------------------------------------------------

    def next_step(self, method: str) -> str:
        with self._lock:
            steps = self.script.get(method)
            return steps.pop(0) if steps else "ok"

    def answer(self, method: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """(status, JSON) of one successful call."""
        slug = str(body.get("competitionName", ""))
        if method == "ListCompetitions":
            return 200, self._list(body)
        comp = self.competitions.get(slug)
        if comp is None:
            return 404, {"code": 404, "message": f"Competition {slug!r} not found"}
        if method == "GetCompetition":
            return 200, comp.as_api()
        if method == "ListDataFiles":
            files = [{"ref": n, "name": n, "totalBytes": len(d),
                      "description": comp.file_descriptions.get(n, "")}
                     for n, d in sorted(comp.files.items())]
            return 200, {"files": files, "nextPageToken": ""}
        if method == "GetLeaderboard":
            return 200, self._leaderboard(comp, body)
        return 404, {"code": 404, "message": f"unknown method {method}"}

    def _list(self, body: dict[str, Any]) -> dict[str, Any]:
        search = str(body.get("search") or "").lower()
        comps = [c.as_api() for s, c in sorted(self.competitions.items())
                 if not search or search in s or search in c.title.lower()]
        return {"competitions": comps, "nextPageToken": ""}

    def _leaderboard(self, comp: FakeCompetition, body: dict[str, Any]) -> dict[str, Any]:
        start = int(body.get("pageToken") or 0)
        size = min(int(body.get("pageSize") or 20), self.max_page_size)
        chunk = comp.teams[start:start + size]
        nxt = str(start + size) if start + size < len(comp.teams) else ""
        rows = [{"teamId": t.team_id, "teamName": t.team_name, "score": t.score,
                 "submissionDate": t.submitted.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
                for t in chunk]
        return {"submissions": rows, "nextPageToken": nxt}


class _Handler(BaseHTTPRequestHandler):
    """Answers for :attr:`fake` (set on the subclass :func:`_handler` returns)."""

    fake: ClassVar[FakeKaggleApi]
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        return

    def _json(self, status: int, payload: dict[str, Any],
              headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        body = parse_json(raw or b"{}", "request body")
        method = self.path.removeprefix(SERVICE) if self.path.startswith(SERVICE) else ""
        with self.fake._lock:
            self.fake.calls.append((method, body))
            self.fake.auth_headers.append(self.headers.get("Authorization", ""))
        if self._scripted_failure(method, str(body.get("competitionName", ""))):
            return
        if method == "DownloadDataFiles":
            self._redirect_to_zip(body)
            return
        status, payload = self.fake.answer(method, body)
        self._json(status, payload)

    def _scripted_failure(self, method: str, slug: str) -> bool:
        step = "rules" if slug in self.fake.rules_slugs else self.fake.next_step(method)
        if step == "ok":
            return False
        if step == "rules":
            self._json(403, {"code": 403, "message": RULES_MESSAGE})
        elif step in ("429", "503"):
            self._json(int(step), {"code": int(step), "message": "Service Unavailable"},
                       {"Retry-After": self.fake.retry_after})
        else:
            self._json(int(step), {"code": int(step), "message": f"HTTP {step}"})
        return True

    def _redirect_to_zip(self, body: dict[str, Any]) -> None:
        slug = str(body.get("competitionName", ""))
        if slug not in self.fake.competitions:
            self._json(404, {"code": 404, "message": "Competition not found"})
            return
        self.send_response(302)
        self.send_header("Location", f"{self.fake.url}/files/{slug}.zip")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802
        slug = self.path.removeprefix("/files/").removesuffix(".zip")
        comp = self.fake.competitions.get(slug)
        if comp is None:
            self._json(404, {"code": 404, "message": "no such file"})
            return
        data = comp.archive()
        self.send_response(200)
        self.send_header("Content-Type", "application/zip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)



def _handler(fake: FakeKaggleApi) -> type[BaseHTTPRequestHandler]:
    return type("BoundFakeKaggleHandler", (_Handler,), {"fake": fake})
