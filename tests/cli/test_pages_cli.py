"""``tambench tasks pages`` and ``tambench tasks show``'s statement, on a shipped entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import main

SLUG = "denoising-dirty-documents"
PATH = f"mlebench/competitions/{SLUG}/description.md"


def test_tasks_pages_obtains_checks_and_keeps_the_page(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, shared_dir: Path) -> None:
    checkout = tmp_path / "mle-bench"
    (checkout / PATH).parent.mkdir(parents=True)
    (checkout / PATH).write_bytes(
        (shared_dir / "data/competition-descriptions" / f"{SLUG}.md").read_bytes())
    rc = main(["tasks", "pages", f"kaggle/{SLUG}", "--data-dir", str(tmp_path / "data"),
               "--pages-from", f"mle-bench={checkout}", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out[0]["obtained"] and PATH in out[0]["origin"]
    kept = tmp_path / "data/kaggle" / SLUG / "pages"
    assert "## Evaluation" in (kept / "description.md").read_text()
    assert json.loads((kept / "source.json").read_text())["source"]["path"] == PATH
    (checkout / PATH).write_text("another version")
    rc = main(["tasks", "pages", f"kaggle/{SLUG}", "--data-dir", str(tmp_path / "d2"),
               "--pages-from", f"mle-bench={checkout}"])
    out = capsys.readouterr().out
    assert rc == 3 and "NOT obtained" in out and "not the pinned" in out


def test_tasks_show_prints_the_statement_and_page_sources(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["tasks", "show", "biendata/ind"])
    out = capsys.readouterr().out
    assert rc == 0 and "statement:" in out and "goal: Develop a model" in out
    assert "rules: 1. Participants are not allowed" in out
    assert "page source: github:JiaHangyi828/TAM-Bench@" in out
    rc = main(["tasks", "show", "biendata/ind", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["statement"]["target_col"] == "outliers" and data["page_sources"]
