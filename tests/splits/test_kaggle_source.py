"""KaggleSource against a local fake server speaking the kaggle client's protocol.

The real client (kaggle + kagglesdk) posts to ``{base}/v1/competitions.CompetitionApiService/
DownloadDataFiles``; the answer is followed (redirect) to the zip. The production endpoint is
pointed at 127.0.0.1 by patching kagglesdk's endpoint table; no test touches the network.
"""

from __future__ import annotations

import io
import json
import random
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tambench.errors import RulesNotAcceptedError, SourceError
from tambench.splits.prepare import prepare_task
from tambench.splits.sources import KaggleSource
from tests.splits.helpers import make_spec

pytest.importorskip("kagglesdk")

DOWNLOAD = "/v1/competitions.CompetitionApiService/DownloadDataFiles"
RULES_MESSAGE = "You must accept this competition's rules before you'll be able to download files."


class FakeKaggle:
    """Scripted answers to DownloadDataFiles: "ok", "503", "rules", "404"."""

    def __init__(self, script: list[str], zip_bytes: bytes) -> None:
        self.script = list(script)
        self.zip_bytes = zip_bytes
        self.hits: list[tuple[str, str]] = []
        self.bodies: list[Any] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                fake.hits.append(("POST", self.path))
                n = int(self.headers.get("Content-Length") or 0)
                fake.bodies.append(json.loads(self.rfile.read(n) or b"{}"))
                if self.path != DOWNLOAD:
                    self._json(404, {"code": 404, "message": "unknown method"})
                    return
                step = fake.script.pop(0) if fake.script else "ok"
                if step == "503":
                    self._json(503, {"code": 503, "message": "Service Unavailable"})
                elif step == "rules":
                    self._json(403, {"code": 403, "message": RULES_MESSAGE})
                elif step == "404":
                    self._json(404, {"code": 404, "message": "Competition not found"})
                else:
                    slug = fake.bodies[-1].get("competitionName", "x")
                    self.send_response(302)
                    self.send_header("Location", f"http://127.0.0.1:{fake.port}/files/{slug}.zip")
                    self.send_header("Content-Length", "0")
                    self.end_headers()

            def do_GET(self) -> None:  # noqa: N802
                fake.hits.append(("GET", self.path))
                self.send_response(200)
                self.send_header("Content-Type", "application/zip")
                self.send_header("Content-Length", str(len(fake.zip_bytes)))
                self.end_headers()
                self.wfile.write(fake.zip_bytes)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def download_hits(self) -> int:
        return sum(1 for m, p in self.hits if m == "POST" and p == DOWNLOAD)

    def __enter__(self) -> FakeKaggle:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _competition_zip() -> bytes:
    buf = io.BytesIO()
    labels = random.Random(0).choices("yn", k=300)  # not a function of the id: no id leak
    body = "id,x,label\n" + "".join(f"{i},{i % 9},{labels[i]}\n" for i in range(300))
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("train.csv", body)
        zf.writestr("test.csv", "id,x\n")
    return buf.getvalue()


@pytest.fixture
def fake_kaggle(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    from kagglesdk import kaggle_env

    home = tmp_path / "home"
    (home / ".kaggle").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("KAGGLE_USERNAME", "tester")
    monkeypatch.setenv("KAGGLE_KEY", "not-a-real-key")
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(home / ".kaggle"))
    monkeypatch.delenv("KAGGLE_API_TOKEN", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)

    def start(script: list[str]) -> FakeKaggle:
        fake = FakeKaggle(script, _competition_zip())
        fake.__enter__()
        monkeypatch.setitem(kaggle_env._env_to_endpoint, kaggle_env.KaggleEnv.PROD,
                            f"http://127.0.0.1:{fake.port}")
        started.append(fake)
        return fake

    started: list[FakeKaggle] = []
    yield start
    for f in started:
        f.__exit__()


def _source(slug: str, delays: list[float]) -> KaggleSource:
    return KaggleSource(slug, retries=3, backoff_s=0.01, sleep=delays.append)


def test_download_writes_the_zip_into_its_own_folder_and_extracts_it(
        fake_kaggle: Any, tmp_path: Path) -> None:
    fake = fake_kaggle(["ok"])
    delays: list[float] = []
    raw = _source("demo-comp", delays).fetch(tmp_path / "work")
    assert (raw / "train.csv").is_file()
    assert (tmp_path / "work/download/demo-comp.zip").is_file()
    assert fake.download_hits == 1 and delays == []
    assert fake.bodies[0] == {"competitionName": "demo-comp"}


def test_rules_not_accepted_is_reported_with_the_url_and_never_retried(
        fake_kaggle: Any, tmp_path: Path) -> None:
    fake = fake_kaggle(["rules", "ok"])
    delays: list[float] = []
    src = _source("closed-comp", delays)
    with pytest.raises(RulesNotAcceptedError,
                       match=r"https://www.kaggle.com/competitions/closed-comp/rules"):
        src.fetch(tmp_path / "work")
    assert fake.download_hits == 1 and delays == [] and src.attempts == 1


def test_transient_503_is_retried_with_backoff_then_succeeds(
        fake_kaggle: Any, tmp_path: Path) -> None:
    fake = fake_kaggle(["503", "503", "ok"])
    delays: list[float] = []
    raw = _source("flaky", delays).fetch(tmp_path / "work")
    assert (raw / "train.csv").is_file()
    assert fake.download_hits == 3 and len(delays) == 2 and delays[1] > delays[0]


def test_persistent_503_gives_up_after_the_retry_budget(fake_kaggle: Any, tmp_path: Path) -> None:
    fake = fake_kaggle(["503"] * 10)
    delays: list[float] = []
    with pytest.raises(SourceError, match="failed after 4 attempt"):
        _source("down", delays).fetch(tmp_path / "work")
    assert fake.download_hits == 4 and len(delays) == 3


def test_not_found_is_not_retried(fake_kaggle: Any, tmp_path: Path) -> None:
    fake = fake_kaggle(["404"])
    with pytest.raises(SourceError, match="HTTP 404"):
        _source("nope", []).fetch(tmp_path / "work")
    assert fake.download_hits == 1


def test_prepare_downloads_splits_and_audits_a_kaggle_task(
        fake_kaggle: Any, tmp_path: Path) -> None:
    fake_kaggle(["503", "ok"])
    spec = make_spec("demo-comp", {"strategy": "random", "train_file": "train.csv"})
    res = prepare_task(spec, _source("demo-comp", []), tmp_path / "data")
    assert res.report.rows.test == 30 and res.audit.passed
