"""The acquire command's contract, and the local site's own content."""

from __future__ import annotations

import csv
import io
import json
import urllib.request
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.testing.site import DEMO_SLUGS, RunningSite, split_description
from tambench.testing.site.competitions import demo_competitions


def test_acquire_command_reports_each_competition_and_exits_3_when_one_is_incomplete(
        site: RunningSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The http renderer runs no JavaScript; a Kaggle-style page is an empty application shell:
    # the competition is incomplete, the reason says so, and the batch exits 3.
    rc = main(["acquire", "kaggle:wine-cultivar-classification", "kaggle:fault-captcha",
               "--catalogue", str(tmp_path), "--renderer", "http", "--json",
               "--base-url", f"kaggle={site.base_urls['kaggle']}"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 3
    statuses = [r["status"] for r in report["results"]]
    assert statuses == ["incomplete", "blocked"]
    assert report["results"][0]["errors"][0].startswith("JavaScriptRequiredError")
    assert "use --renderer browser" in report["results"][0]["errors"][0]
    assert list((tmp_path / ".acquire" / "reports").glob("acquire-*.json"))


def test_acquire_command_rejects_a_malformed_base_url(tmp_path: Path) -> None:
    assert main(["acquire", "kaggle:x", "--catalogue", str(tmp_path),
                 "--base-url", "kaggle"]) == 2


def test_every_shared_description_keeps_its_submission_header_in_some_page(
        shared_dir: Path) -> None:
    folder = shared_dir / "data" / "competition-descriptions"
    with (folder / "labels.csv").open() as fh:
        labels = {r["slug"]: r["submission_header_in_text"] for r in csv.DictReader(fh)}
    for slug, header in labels.items():
        text = (folder / f"{slug}.md").read_text()
        pages = split_description(text)
        assert set(pages) == {"overview", "data", "evaluation", "rules"}
        joined = "\n".join(pages.values())
        if header and header in text:
            assert header in joined, slug
        # nothing of the text is lost by the split (headings of "# Overview" aside)
        assert len(joined) >= len(text) - 40, slug


def test_demo_leaderboards_are_honest_deterministic_and_sorted_best_first() -> None:
    a = {c.slug: c for c in demo_competitions(seed=0)}
    b = {c.slug: c for c in demo_competitions(seed=0)}
    assert set(a) == set(DEMO_SLUGS)
    for slug, comp in a.items():
        rows = comp.leaderboard()
        assert rows == b[slug].leaderboard()
        scores = [r.score for r in rows]
        assert scores == sorted(scores, reverse=comp.higher_is_better)
        dummy = [r.score for r in rows if r.team.startswith("baseline-dummy")]
        assert dummy and rows[0].score != dummy[0]  # a trained model beats the dummies
    auc = a["breast-cancer-diagnosis"].leaderboard()
    assert 0.9 < auc[0].score <= 1.0 and any(r.score == 0.5 for r in auc)  # prior dummy


def test_demo_data_can_be_downloaded_with_id_and_target_columns(site: RunningSite) -> None:
    url = site.base_url + "/kaggle/competitions/diabetes-progression/download/train.csv"
    with urllib.request.urlopen(url, timeout=10) as resp:  # noqa: S310 - 127.0.0.1 only
        text = resp.read().decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][0] == "id" and rows[0][-1] == "progression"
    assert len(rows) == 443  # 442 patients + header


def test_ctrl_c_during_acquire_says_what_was_kept(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from tambench.acquisition import pipeline
    from tambench.acquisition.pipeline import CompetitionResult

    def interrupted(refs: list[str], catalogue: Path, **kw: object) -> None:
        on_result = kw["on_result"]
        on_result(CompetitionResult(ref=refs[0], task_id="kaggle/a", status="complete",  # type: ignore[operator]
                                    folder=str(tmp_path / "kaggle" / "a")))
        raise KeyboardInterrupt

    monkeypatch.setattr(pipeline, "acquire_competitions", interrupted)
    rc = main(["acquire", "kaggle:a", "kaggle:b", "--catalogue", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 130  # the usual exit status of an interrupted command
    assert "interrupted after competitions acquired: 1/2" in err
    assert "1 task folder(s) written" in err and "run the same command to resume" in err
    assert "no report written" in err


def test_site_serve_prints_where_it_serves_and_no_test_canary(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "tambench.cli.main", "site", "serve",
                             "--port", "0", "--no-demo"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        lines = [proc.stdout.readline() for _ in range(4)]  # type: ignore[union-attr]
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=20)
    text = "".join(lines)
    assert lines[0].startswith("serving 0 competitions at http://127.0.0.1:")
    assert "kaggle" in text and "aicrowd" in text and "biendata" in text
    assert "canary" not in text.lower()
