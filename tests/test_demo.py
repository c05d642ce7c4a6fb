"""The demo runs the whole pipeline on the local site with a real Chromium."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from tambench.demo import AGENT_RUNS, run_demo

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None and not Path("/usr/bin/chromium").exists(),
    reason="needs a Chromium binary",
)


def test_demo_acquires_splits_and_grades_end_to_end(tmp_path: Path) -> None:
    out = io.StringIO()
    result = run_demo(tmp_path / "demo", console=Console(file=out, width=120), executor="serial")
    text = out.getvalue()
    grades = json.loads(result.report_json.read_text(encoding="utf-8"))
    rows = grades["rows"]
    assert len(rows) == 3 * sum(AGENT_RUNS.values())
    # every task was acquired, split and audited
    for task in ("breast-cancer-diagnosis", "wine-cultivar-classification", "diabetes-progression"):
        assert len(list(result.data_dir.glob(f"*/{task}/private/answers.csv"))) == 1
        assert len(list(result.catalogue.glob(f"*/{task}/task.json"))) == 1
        # the agent's statement is the acquired page, then the benchmark's own section
        desc = next(result.data_dir.glob(f"*/{task}/public/description.md")).read_text()
        assert "original page was not available" not in desc
        assert "## This benchmark's version of the task" in desc
        assert len(desc) > 1500
        assert next(result.data_dir.glob(f"*/{task}/public/instructions.txt")).is_file()
    assert text.count("passed") == 3 and "FAILED" not in text
    by_agent = {a["agent"]: a for a in grades["agents"]}
    careless = by_agent["careless-agent"]
    assert careless["total_valid_submissions"] == 0 and careless["total_runs_with_submissions"] == 2
    assert by_agent["linear-model"]["total_valid_submissions"] == 6
    # trained models beat the constant baseline on every task
    assert (by_agent["linear-model"]["modality_weighted_rank_pct"]["value"]
            < by_agent["constant-baseline"]["modality_weighted_rank_pct"]["value"])
    statuses = {r["status"] for r in rows if r["agent"] == "careless-agent"}
    assert statuses == {"missing_submission", "invalid_submission"}
    html = result.report_html.read_text(encoding="utf-8")
    assert html.count("data:image/svg+xml;base64,") >= 3 and "careless-agent" in html
    assert "report:" in text
