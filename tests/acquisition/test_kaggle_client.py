"""The one kaggle client module: the real client against a local fake of Kaggle's API.

The fake (tambench.testing.fake_kaggle) answers the requests the official client sends,
``POST /v1/competitions.CompetitionApiService/<Method>``; the client is pointed at it with
``api_url``. No test touches the network.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from tambench.acquisition.kaggle_client import (
    CompetitionMetadata,
    KaggleClient,
    rules_url,
)
from tambench.acquisition.retry import RetryPolicy
from tambench.errors import ReportVersionError, RulesNotAcceptedError, SourceError
from tambench.testing.fake_kaggle import FakeCompetition, FakeKaggleApi, FakeTeam

pytest.importorskip("kagglesdk")

N_TEAMS = 123


def _competition(slug: str = "sensor-fusion", n: int = N_TEAMS) -> FakeCompetition:
    teams = [FakeTeam(team_id=1000 + i, team_name=f"team {i:03d}", score=f"{0.99 - i / 1000:.5f}",
                      submitted=datetime(2024, 3, 1 + i % 28, 12, 0, 0)) for i in range(n)]
    return FakeCompetition(
        slug=slug, title="Sensor Fusion Challenge", category="Research",
        metric="Root Mean Squared Error", tags=["tabular", "regression"], teams=teams,
        files={"train.csv": b"id,y\n1,2\n", "test.csv": b"id\n3\n"},
        file_descriptions={"train.csv": "the training set"},
    )


@pytest.fixture
def kaggle_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Legacy-key credentials for the client, and no proxy between it and 127.0.0.1."""
    monkeypatch.setenv("KAGGLE_USERNAME", "tester")
    monkeypatch.setenv("KAGGLE_KEY", "not-a-real-key-7e1d")
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("KAGGLE_API_TOKEN", raising=False)
    monkeypatch.delenv("TAMBENCH_KAGGLE_API_URL", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    yield


def _client(fake: FakeKaggleApi, delays: list[float] | None = None) -> KaggleClient:
    sink = delays if delays is not None else []
    return KaggleClient(api_url=fake.url, policy=RetryPolicy(retries=2, backoff_base=0.01),
                        sleep=sink.append)


def test_the_full_leaderboard_is_read_page_by_page_and_nothing_reaches_stdout(
        kaggle_env: None, capfd: pytest.CaptureFixture[str]) -> None:
    with FakeKaggleApi({"sensor-fusion": _competition()}, max_page_size=50) as fake:
        lb = _client(fake).leaderboard("sensor-fusion")
        calls = [body for method, body in fake.calls if method == "GetLeaderboard"]
    assert len(lb) == N_TEAMS
    assert [r.team for r in lb.rows][:2] == ["team 000", "team 001"]
    assert lb.rows[-1].team == f"team {N_TEAMS - 1:03d}" and lb.rows[-1].rank == N_TEAMS
    assert [c.get("pageToken") for c in calls] == [None, "50", "100"]
    assert all(c["pageSize"] == 200 for c in calls)
    out = capfd.readouterr()
    assert out.out == ""  # no "Next Page Token = ..." on stdout


def test_metadata_gives_title_dates_teams_category_metric_tags_and_files(
        kaggle_env: None) -> None:
    with FakeKaggleApi({"sensor-fusion": _competition()}) as fake:
        meta = _client(fake).metadata("sensor-fusion")
        auth = set(fake.auth_headers)
    assert meta.title == "Sensor Fusion Challenge"
    assert meta.category == "Research" and meta.tags == ["tabular", "regression"]
    assert meta.evaluation_metric == "Root Mean Squared Error"
    assert meta.team_count == N_TEAMS
    assert meta.enabled == date(2024, 1, 8) and meta.deadline == date(2024, 4, 8)
    assert [(f.name, f.size, f.description) for f in meta.files] == [
        ("test.csv", 5, ""), ("train.csv", 9, "the training set")]
    assert all(a.startswith("Basic ") for a in auth)  # the user's key, sent by the client only
    again = CompetitionMetadata.from_json(meta.model_dump_json())
    assert again == meta


def test_a_newer_metadata_file_is_refused() -> None:
    text = json.dumps({"schema_version": 99, "slug": "x"})
    with pytest.raises(ReportVersionError, match="schema_version 99"):
        CompetitionMetadata.from_json(text)


def test_transient_503_is_retried_no_sooner_than_retry_after(kaggle_env: None) -> None:
    delays: list[float] = []
    with FakeKaggleApi({"sensor-fusion": _competition()},
                       script={"GetLeaderboard": ["503", "ok"]}, retry_after="2") as fake:
        client = _client(fake, delays)
        lb = client.leaderboard("sensor-fusion")
        assert fake.count("GetLeaderboard") == 4  # one refusal, then three pages
    assert len(lb) == N_TEAMS
    assert len(delays) == 1 and delays[0] >= 2.0  # backoff alone would be 0.01-0.015 s


def test_persistent_server_errors_give_up_after_the_retry_budget(kaggle_env: None) -> None:
    delays: list[float] = []
    with FakeKaggleApi({"sensor-fusion": _competition()},
                       script={"GetCompetition": ["500"] * 10}) as fake:
        with pytest.raises(SourceError, match=r"failed after 3 attempt\(s\): HTTP 500"):
            _client(fake, delays).competition("sensor-fusion")
        assert fake.count("GetCompetition") == 3
    assert len(delays) == 2 and delays[1] > delays[0]


def test_unaccepted_rules_name_the_page_to_accept_them_and_are_never_retried(
        kaggle_env: None) -> None:
    with FakeKaggleApi({"closed": _competition("closed")},
                       rules_slugs=frozenset({"closed"})) as fake:
        with pytest.raises(RulesNotAcceptedError, match=rules_url("closed")):
            _client(fake).leaderboard("closed")
        assert fake.count("GetLeaderboard") == 1


def test_unknown_competition_is_a_404_without_retries(kaggle_env: None) -> None:
    with FakeKaggleApi({}) as fake:
        with pytest.raises(SourceError, match="HTTP 404: competition or file not found"):
            _client(fake).leaderboard("nope")
        assert fake.count("GetLeaderboard") == 1


def test_download_writes_one_zip_into_its_own_folder(kaggle_env: None, tmp_path: Path) -> None:
    with FakeKaggleApi({"sensor-fusion": _competition()}) as fake:
        archive = _client(fake).download_files("sensor-fusion", tmp_path / "dl")
    assert archive == tmp_path / "dl" / "sensor-fusion.zip" and archive.stat().st_size > 0


def test_missing_credentials_are_a_clear_error(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capfd: pytest.CaptureFixture[str]) -> None:
    for var in ("KAGGLE_USERNAME", "KAGGLE_KEY", "KAGGLE_API_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(SourceError, match="no Kaggle credentials found"):
        KaggleClient().leaderboard("x")
    assert capfd.readouterr().out == ""  # the client's help text stays off stdout


class _ScriptedApi:
    """A stand-in object with the client's listing method (what KaggleClient(api=...) takes)."""

    def __init__(self) -> None:
        self.tokens: list[Any] = []

    def competitions_list(self, **kw: Any) -> Any:
        self.tokens.append(kw["page_token"])
        comp = type("C", (), {"ref": "https://www.kaggle.com/competitions/a-b", "title": "A B",
                              "category": "Featured", "evaluation_metric": "MAE",
                              "team_count": 5, "deadline": datetime(2024, 1, 1),
                              "enabled_date": datetime(2023, 6, 1), "tags": []})()
        return type("R", (), {"competitions": [comp], "next_page_token": "p2"})()


def test_listing_pages_carry_their_token_and_become_competition_infos() -> None:
    api = _ScriptedApi()
    infos, token = KaggleClient(api=api).list_page(category="", search="", page_token="")
    assert token == "p2" and api.tokens == [None]
    assert infos[0].slug == "a-b" and infos[0].teams == 5 and infos[0].metric == "MAE"
    assert infos[0].deadline == date(2024, 1, 1)
