"""Offline: a host whose name does not resolve fails at once with "cannot reach HOST (no
network?)", printed once, never retried and never called an off-domain refusal; back-off is
kept for answers a server may change its mind about (429, 5xx). No test touches the network:
name resolution of ``x.invalid`` is made to fail as it does without a network."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tambench.acquisition.browser import browser_error
from tambench.acquisition.retry import Verdict, is_unreachable
from tambench.acquisition.urls import UrlPolicy
from tambench.cli.main import main
from tambench.errors import OffDomainError, UnreachableHostError

_real_getaddrinfo = socket.getaddrinfo


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Names under .invalid do not resolve (as every name does not, without a network); the
    hosts looked up are recorded."""
    asked: list[str] = []

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        asked.append(name)
        if name.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return _real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield asked


@pytest.fixture
def kaggle_offline(offline: list[str], tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    pytest.importorskip("kagglesdk")
    monkeypatch.setenv("KAGGLE_USERNAME", "tester")
    monkeypatch.setenv("KAGGLE_KEY", "not-a-real-key-7e1d")
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("KAGGLE_API_TOKEN", raising=False)
    monkeypatch.setenv("TAMBENCH_KAGGLE_API_URL", "http://api.x.invalid")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    yield offline


def test_the_kaggle_client_does_not_retry_a_name_that_does_not_resolve(
    kaggle_offline: list[str],
) -> None:
    from tambench.acquisition.kaggle_client import KaggleClient

    slept: list[float] = []
    client = KaggleClient(sleep=slept.append)
    with pytest.raises(UnreachableHostError) as info:
        client.leaderboard("some-competition")
    assert str(info.value).startswith("cannot reach api.x.invalid (no network?): ")
    assert client.attempts == 1 and slept == []
    assert kaggle_offline.count("api.x.invalid") == 1


@pytest.mark.parametrize("argv", [
    ["discover", "kaggle"],
    ["prepare", "kaggle/binary-prediction-of-poisonous-mushrooms", "--download"],
])
def test_commands_fail_at_once_with_one_message(
    argv: list[str], kaggle_offline: list[str], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc = main([*argv, *(["--data-dir", str(tmp_path / "data")] if "prepare" in argv else [])])
    out, err = capsys.readouterr()
    assert rc == 1
    assert err.count("cannot reach api.x.invalid (no network?)") == 1, err
    assert "cannot reach" not in out and "attempt" not in err
    assert kaggle_offline.count("api.x.invalid") == 1  # one try, no back-off


def test_a_page_on_an_unresolvable_host_is_not_an_off_domain_refusal(
    offline: list[str],
) -> None:
    policy = UrlPolicy.from_base_urls("https://www.x.invalid/competitions")
    with pytest.raises(UnreachableHostError, match=r"^cannot reach www.x.invalid \(no network"):
        policy.check("https://www.x.invalid/competitions/a")
    assert not issubclass(UnreachableHostError, OffDomainError)


def test_the_page_fetcher_gives_up_on_an_unresolvable_host_after_one_attempt(
    offline: list[str],
) -> None:
    from tambench.acquisition.fetch import FetchSettings, PageFetcher

    policy = UrlPolicy(origins=frozenset({"http://files.x.invalid:80"}), resolve=False)

    async def fetch() -> None:
        async with PageFetcher(FetchSettings(renderer="http", retries=4, backoff_base=5.0,
                                             respect_robots=False)) as fetcher:
            await fetcher.fetch_raw("http://files.x.invalid/train.csv", policy)

    with pytest.raises(UnreachableHostError, match="cannot reach files.x.invalid"):
        asyncio.run(fetch())
    assert offline.count("files.x.invalid") == 1


def test_chromium_s_name_errors_are_unreachable_hosts() -> None:
    err = browser_error("https://www.x.invalid/c/a",
                        RuntimeError("Page.goto: net::ERR_NAME_NOT_RESOLVED at https://..."))
    assert isinstance(err, UnreachableHostError)
    assert str(err).startswith("cannot reach www.x.invalid (no network?)")


def test_back_off_is_kept_for_answers_a_server_may_change() -> None:
    from tambench.acquisition.fetch import classify_fetch_error
    from tambench.errors import FetchError, HttpStatusError

    assert classify_fetch_error(HttpStatusError("busy", status=503)) == Verdict(retry=True)
    assert classify_fetch_error(HttpStatusError("slow down", status=429, retry_after=2.0)) \
        == Verdict(retry=True, retry_after=2.0)
    assert classify_fetch_error(UnreachableHostError("cannot reach x")) == Verdict(retry=False)
    assert classify_fetch_error(FetchError("connection reset")) == Verdict(retry=True)
    assert not is_unreachable(ConnectionRefusedError(111, "Connection refused"))
    assert is_unreachable(OSError(101, "Network is unreachable"))


def test_acquire_reports_an_unreachable_site_once_and_by_its_name(
    offline: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    rc = main(["acquire", "kaggle:some-comp", "--catalogue", str(tmp_path), "--renderer",
               "http", "--base-url", "kaggle=https://www.x.invalid/kaggle", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 3
    (result,) = report["results"]
    assert result["errors"][0].startswith("UnreachableHostError: cannot reach www.x.invalid")
    assert "OffDomainError" not in json.dumps(report)
