"""docs/metrics.md is generated from the registry and must match it (CI runs this)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core.metrics import METRICS, get_metric
from tambench.core.metrics.reference import METRIC_USAGE, definition, render_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def test_committed_metric_reference_matches_the_registry() -> None:
    assert DOC.read_text(encoding="utf-8") == render_markdown(), (
        "docs/metrics.md is out of date: run `tambench metrics --markdown > docs/metrics.md`"
    )


def test_usage_table_names_only_registered_metrics() -> None:
    assert sorted(set(METRIC_USAGE) - set(METRICS)) == []


def test_reference_entry_states_direction_range_columns_and_definition_without_examples() -> None:
    text = render_markdown([get_metric("mean_log_mae"), get_metric("jigsaw_bias_auc")])
    section = text.split("## `jigsaw_bias_auc`")[1]
    assert "| direction | higher is better |" in section
    assert "| range | [0, 1], best 1 |" in section
    assert "| answers-column parameters | `identities_columns` |" in section
    assert "jigsaw-unintended-bias-in-toxicity-classification" in section
    assert ">>>" not in text and "power mean" in definition(get_metric("jigsaw_bias_auc"))
    assert "| answers-column parameters | `groups_column` |" in text


def test_metrics_command_prints_the_reference_and_json_names_column_parameters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["metrics", "--markdown"]) == 0
    assert capsys.readouterr().out == render_markdown()
    assert main(["metrics", "--json"]) == 0
    import json

    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["haversine_p50_p95"]["answers_column_parameters"] == ["groups_column"]
    assert rows["rmse"]["answers_column_parameters"] == []
