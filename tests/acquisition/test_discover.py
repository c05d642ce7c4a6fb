"""Discovery: the method's filters over a competition listing; one contract test with the
real kaggle client pointed at a local fake server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tambench.acquisition.discover import discover_competitions, metric_id_for
from tambench.acquisition.kaggle_client import CompetitionInfo
from tambench.cli.main import main
from tambench.testing.servers import serving, url_of


def info(slug: str, **kw: Any) -> CompetitionInfo:
    base: dict[str, Any] = dict(title=slug, url=f"https://www.kaggle.com/competitions/{slug}",
                                category="Featured", enabled=date(2023, 5, 1),
                                deadline=date(2023, 9, 1), metric="RootMeanSquaredError",
                                teams=900, kernels_only=False, submissions_disabled=False)
    base.update(kw)
    return CompetitionInfo(slug=slug, **base)


class FakeSource:
    """Two pages of listings."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def list_page(self, *, category: str, search: str, page_token: str
                  ) -> tuple[list[CompetitionInfo], str]:
        self.calls.append(page_token)
        if page_token == "":
            return [info("keep-me"), info("too-old", enabled=date(2019, 1, 1),
                                          deadline=date(2019, 6, 1))], "p2"
        return [info("odd-metric", metric="Some Custom Score"),
                info("still-running", deadline=date(2999, 1, 1)),
                info("no-teams", teams=0)], ""


def test_filters_keep_recent_finished_scorable_competitions_and_say_why_others_drop() -> None:
    src = FakeSource()
    got = {c.info.slug: c for c in discover_competitions(src, since=date(2023, 1, 1),
                                                         today=date(2024, 1, 1))}
    assert src.calls == ["", "p2"]  # every page read
    assert got["keep-me"].kept and got["keep-me"].metric_id == "rmse"
    assert got["too-old"].dropped == ["since: opened 2019-01-01, before 2023-01-01"]
    assert got["odd-metric"].dropped[0].startswith("metric: 'Some Custom Score'")
    assert got["still-running"].dropped == ["finished: no final private leaderboard yet"]
    assert got["no-teams"].dropped == ["teams: 0 < 1"]


def test_category_filter_compares_without_case() -> None:
    got = discover_competitions(FakeSource(), since=date(2023, 1, 1), category="research",
                                today=date(2024, 1, 1))
    assert all("category: Featured, not research" in c.dropped for c in got)


def test_metric_names_map_to_registered_ids() -> None:
    assert metric_id_for("accuracy") == "accuracy"
    assert metric_id_for("Root Mean Squared Error") == "rmse"
    assert metric_id_for("") == ""


class _KaggleFake(BaseHTTPRequestHandler):
    paths: list[str] = []

    def log_message(self, *args: Any) -> None:
        return

    def do_POST(self) -> None:  # noqa: N802
        type(self).paths.append(self.path)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"competitions": [
            {"ref": "https://www.kaggle.com/competitions/playground-s3e1", "title": "S3E1",
             "category": "Playground", "deadline": "2023-01-17T23:59:00Z",
             "enabledDate": "2023-01-03T00:00:00Z", "evaluationMetric": "RootMeanSquaredError",
             "teamCount": 689},
            {"ref": "https://www.kaggle.com/competitions/titanic", "title": "Titanic",
             "category": "Getting Started", "deadline": "2030-01-01T00:00:00Z",
             "enabledDate": "2012-09-28T00:00:00Z", "evaluationMetric": "Categorization Accuracy",
             "teamCount": 15000},
        ], "nextPageToken": ""}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def kaggle_fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    kaggle_env = pytest.importorskip("kagglesdk.kaggle_env")
    with serving(_KaggleFake) as server:
        url = url_of(server)
        monkeypatch.setitem(kaggle_env._env_to_endpoint, kaggle_env.KaggleEnv.PROD, url)
        monkeypatch.setenv("KAGGLE_USERNAME", "tester")
        monkeypatch.setenv("KAGGLE_KEY", "0123456789abcdef0123456789abcdef")
        monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path))
        monkeypatch.delenv("TAMBENCH_KAGGLE_API_URL", raising=False)
        _KaggleFake.paths = []
        yield url


def test_discover_command_lists_through_the_kaggle_client(
        kaggle_fake: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["discover", "kaggle", "--since", "2023-01-01", "--all", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert _KaggleFake.paths == ["/v1/competitions.CompetitionApiService/ListCompetitions"]
    rows = {r["slug"]: r for r in out}
    assert rows["playground-s3e1"]["kept"] is True and rows["playground-s3e1"]["metric_id"] == "rmse"
    assert rows["titanic"]["kept"] is False
    assert any(d.startswith("since") for d in rows["titanic"]["dropped"])


def test_kaggle_adapter_uses_the_api_on_the_real_site_or_with_an_api_url_given_credentials(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tambench.acquisition.platforms import get_adapter

    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("TAMBENCH_KAGGLE_API_URL", raising=False)
    for var in ("KAGGLE_API_TOKEN", "KAGGLE_USERNAME", "KAGGLE_KEY"):
        monkeypatch.delenv(var, raising=False)
    real = get_adapter("kaggle")
    mirror = get_adapter("kaggle", base_url="http://127.0.0.1:8000/kaggle")
    assert real.api_client() is None  # type: ignore[attr-defined]
    monkeypatch.setenv("KAGGLE_USERNAME", "u")
    monkeypatch.setenv("KAGGLE_KEY", "k")
    assert real.api_client() is not None  # type: ignore[attr-defined]
    assert mirror.api_client() is None  # type: ignore[attr-defined]
    monkeypatch.setenv("TAMBENCH_KAGGLE_API_URL", "http://127.0.0.1:9999")
    client = mirror.api_client()  # type: ignore[attr-defined]
    assert client is not None and client.api_url == "http://127.0.0.1:9999"
