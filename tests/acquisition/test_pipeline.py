"""End to end: references in, task folders out (one acquisition run shared by the tests)."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest
from tambench.testing.site import RunningSite

from tambench.acquisition.pipeline import AcquireReport, acquire_competitions_async, write_report
from tambench.acquisition.snapshots import SnapshotStore, sha256_hex
from tambench.core.leaderboard import read_leaderboard
from tambench.schema.io import load_taskspec

from .conftest import BrowserHarness

OPENAI_CANARY = "canary-openai-key-5f1c9e2b7d"
KAGGLE_CANARY = "kaggle-canary-key-93ab17e0c4"

REFS = [
    "kaggle:breast-cancer-diagnosis",
    "aicrowd:wine-cultivar-classification",
    "biendata:diabetes-progression",
    "kaggle:injected-diabetes-progression",
    "kaggle:spaceship-titanic",
    "kaggle:fault-captcha",
    "aicrowd:fault-500",
]


@pytest.fixture(scope="module")
def run(harness: BrowserHarness, site: RunningSite,
        tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("acquire")
    hits_before = dict(site.state.hits)
    saved = {k: os.environ.get(k) for k in ("OPENAI_API_KEY", "KAGGLE_KEY", "KAGGLE_USERNAME")}
    os.environ.update(OPENAI_API_KEY=OPENAI_CANARY, KAGGLE_KEY=KAGGLE_CANARY,
                      KAGGLE_USERNAME="canary-user")
    try:
        settings = dataclasses.replace(harness.settings, read_timeout=2.0, total_timeout=10.0,
                                       retries=1, backoff_base=0.05, backoff_max=0.1)
        report = harness.run(acquire_competitions_async(
            REFS, root / "catalogue", base_urls=site.base_urls, concurrency=3,
            settings=settings, state_dir=root / "state", browser=harness.browser,
        ))
        write_report(report, root / "state" / "report.json")
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    hits = {p: n - hits_before.get(p, 0) for p, n in site.state.hits.items()}
    return {"root": root, "report": report, "by_ref": {r.ref: r for r in report.results},
            "hits": {p: n for p, n in hits.items() if n}}


def test_demo_competitions_become_complete_task_folders(run: dict[str, Any]) -> None:
    for ref in REFS[:3]:
        r = run["by_ref"][ref]
        assert r.status == "complete", (ref, r.errors)
        folder = Path(r.folder)
        assert sorted(p.name for p in (folder / "pages").iterdir()) == [
            "data.md", "evaluation.md", "overview.md", "rules.md"]
        spec = load_taskspec(folder / "task.json")
        assert spec.status == "complete" and spec.grading is not None
        assert spec.n_teams == len(read_leaderboard(folder / "leaderboard.csv"))
    metrics = {ref: load_taskspec(Path(run["by_ref"][ref].folder) / "task.json").grading
               for ref in REFS[:3]}
    assert metrics["aicrowd:wine-cultivar-classification"].metric == "accuracy"  # type: ignore[union-attr]
    assert metrics["biendata:diabetes-progression"].metric == "rmse"  # type: ignore[union-attr]


def test_provenance_names_each_source_page_with_its_hash_and_time(run: dict[str, Any]) -> None:
    store = SnapshotStore(run["root"] / "state")
    folder = Path(run["by_ref"]["kaggle:breast-cancer-diagnosis"].folder)
    spec = load_taskspec(folder / "task.json")
    kinds = [p.kind for p in spec.provenance.pages]
    assert kinds[:4] == ["overview", "data", "evaluation", "rules"] and "leaderboard" in kinds
    for page in spec.provenance.pages:
        assert sha256_hex(store.read_object(page.sha256)) == page.sha256
        assert page.fetched_at.tzinfo is not None
    assert store.verify() == []


def test_leaderboard_is_read_from_every_page_of_the_pagination(run: dict[str, Any],
                                                                site: RunningSite) -> None:
    r = run["by_ref"]["kaggle:spaceship-titanic"]
    lb = read_leaderboard(Path(r.folder) / "leaderboard.csv")
    expected = site.state.competitions["spaceship-titanic"].leaderboard()
    assert len(lb) == len(expected) == 120  # three pages of 50, 50 and 20
    assert [row.team for row in lb.rows] == [e.team for e in expected]
    assert [row.rank for row in lb.rows] == list(range(1, 121))


def test_blocked_competition_is_reported_once_and_gets_no_schema(run: dict[str, Any],
                                                                 site: RunningSite) -> None:
    r = run["by_ref"]["kaggle:fault-captcha"]
    assert r.status == "blocked" and "captcha" in r.errors[0]
    captcha_hits = {p: n for p, n in run["hits"].items() if "/fault-captcha/" in p}
    assert captcha_hits == {"/kaggle/competitions/fault-captcha/overview": 1}
    folder = run["root"] / "catalogue" / "kaggle" / "fault-captcha"
    assert not (folder / "task.json").exists()
    assert json.loads((folder / "acquisition.json").read_text())["status"] == "blocked"


def test_server_errors_mark_the_competition_incomplete_without_inventing_a_schema(
        run: dict[str, Any], site: RunningSite) -> None:
    r = run["by_ref"]["aicrowd:fault-500"]
    assert r.status == "incomplete" and "HTTP 500" in r.errors[0]
    failed_hits = {p: n for p, n in run["hits"].items() if "/fault-500" in p}
    assert failed_hits == {"/aicrowd/challenges/fault-500": 2}  # retries=1, then stop
    assert not (run["root"] / "catalogue" / "aicrowd" / "fault-500" / "task.json").exists()


def test_prompt_injected_pages_map_to_the_same_schema_and_never_reach_the_canary(
        run: dict[str, Any], site: RunningSite) -> None:
    clean = Path(run["by_ref"]["biendata:diabetes-progression"].folder)
    injected = Path(run["by_ref"]["kaggle:injected-diabetes-progression"].folder)
    a, b = load_taskspec(clean / "task.json"), load_taskspec(injected / "task.json")
    assert b.grading == a.grading and b.metric == a.metric and b.target_col == a.target_col
    overview = (injected / "pages" / "overview.md").read_text()
    assert "IGNORE" not in overview and "metric=accuracy" not in overview
    assert site.canary_hits == []


def test_no_secret_reaches_any_file_the_acquisition_wrote(run: dict[str, Any]) -> None:
    files = [p for p in run["root"].rglob("*") if p.is_file()]
    assert len(files) > 20
    for path in files:
        data = path.read_bytes()
        assert OPENAI_CANARY.encode() not in data, path
        assert KAGGLE_CANARY.encode() not in data, path


def test_report_is_strict_json_with_a_status_per_reference(run: dict[str, Any]) -> None:
    text = (run["root"] / "state" / "report.json").read_text()
    report = AcquireReport.model_validate_json(text)
    assert [r.ref for r in report.results] == REFS
    assert report.counts() == {"complete": 5, "blocked": 1, "incomplete": 1}
