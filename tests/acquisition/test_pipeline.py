"""End to end: references in, task folders out (one acquisition run shared by the tests)."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tambench.acquisition.pipeline import AcquireReport, acquire_competitions_async, write_report
from tambench.acquisition.snapshots import SnapshotStore, sha256_hex
from tambench.core.leaderboard import read_leaderboard
from tambench.schema.io import load_taskspec
from tambench.testing.site import RunningSite

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


def test_aicrowd_evaluation_comes_from_the_overview_and_its_baseline_row_is_reported(
        run: dict[str, Any]) -> None:
    r = run["by_ref"]["aicrowd:wine-cultivar-classification"]
    folder = Path(r.folder)
    evaluation = (folder / "pages" / "evaluation.md").read_text()
    assert evaluation.startswith("## Evaluation") and "classification accuracy" in evaluation
    assert "## Timeline" not in evaluation  # only the overview's evaluation sections
    assert not any("/evaluation" in p for p in run["hits"] if "/aicrowd/" in p)
    assert r.leaderboard_source == "pages"
    assert any("no rank" in n and "Baseline" in n for n in r.notes)


def test_every_page_is_waited_for_by_its_content_hooks_and_has_no_site_chrome(
        run: dict[str, Any]) -> None:
    for ref in REFS[:5]:
        folder = Path(run["by_ref"][ref].folder)
        for page in (folder / "pages").glob("*.md"):
            text = page.read_text()
            assert len(text) > 100, page
            for noise in ("emoji_events", "Skip to content", "Recently Viewed", "We use cookies",
                          "We are hiring", "Sign In", "AIcrowd-like", "Terms"):
                assert noise not in text, (page, noise)


def test_kaggle_and_aicrowd_style_competitions_acquire_complete_with_the_kaggle_api_board(
        harness: BrowserHarness, site: RunningSite, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Done-when: both styles end complete through the browser, the kaggle client (against the
    local fake of its API) supplying the full leaderboard, page by page."""
    monkeypatch.setenv("KAGGLE_USERNAME", "canary-user")
    monkeypatch.setenv("KAGGLE_KEY", KAGGLE_CANARY)
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path / "kaggle-config"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    refs = ["kaggle:breast-cancer-diagnosis", "aicrowd:wine-cultivar-classification"]
    with site.kaggle_api(max_page_size=5) as fake:
        monkeypatch.setenv("TAMBENCH_KAGGLE_API_URL", fake.url)
        board_hits = site.hits_for("/kaggle/competitions/breast-cancer-diagnosis/leaderboard")
        report = harness.run(acquire_competitions_async(
            refs, tmp_path / "catalogue", base_urls=site.base_urls, concurrency=2,
            settings=harness.settings, state_dir=tmp_path / "state", browser=harness.browser))
        lb_calls = fake.count("GetLeaderboard")
    by_ref = {r.ref: r for r in report.results}
    assert report.counts() == {"complete": 2}, [r.errors for r in report.results]
    kaggle = by_ref["kaggle:breast-cancer-diagnosis"]
    expected = site.state.competitions["breast-cancer-diagnosis"].leaderboard()
    assert kaggle.leaderboard_source == "api" and kaggle.leaderboard_rows == len(expected)
    assert lb_calls == -(-len(expected) // 5)  # every page of 5 rows
    assert site.hits_for("/kaggle/competitions/breast-cancer-diagnosis/leaderboard") == board_hits
    folder = Path(kaggle.folder)
    lb = read_leaderboard(folder / "leaderboard.csv")
    assert [r.team for r in lb.rows] == [e.team for e in expected]
    spec = load_taskspec(folder / "task.json")
    assert spec.title == "Breast Cancer Diagnosis" and spec.end_date is not None
    assert spec.metric.metric_name  # from the mapper, or the API's metric name
    assert any(n.startswith("kaggle API: category Playground") for n in spec.provenance.notes)
    api = json.loads((folder / "api.json").read_text())
    assert api["evaluation_metric"] == "Area Under Receiver Operating Characteristic Curve"
    assert sorted(f["name"] for f in api["files"]) == ["sample_submission.csv", "train.csv"]
    assert {p.kind for p in spec.provenance.pages} >= {"overview", "data", "evaluation", "rules",
                                                       "leaderboard", "api"}
    for path in (tmp_path / "catalogue").rglob("*"):
        if path.is_file():
            assert KAGGLE_CANARY.encode() not in path.read_bytes(), path
    aicrowd = by_ref["aicrowd:wine-cultivar-classification"]
    assert aicrowd.leaderboard_source == "pages" and aicrowd.leaderboard_rows > 0
