"""The versioned grade report: MLE-bench field names, strict JSON, unknown versions refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from tambench.errors import ReportVersionError
from tambench.grading.report import REPORT_VERSION, GradeReport, load_report, parse_report

REPORTS = Path(__file__).resolve().parents[1] / "data" / "reports"

MLE_BENCH_FIELDS = {
    "competition_id", "score", "gold_threshold", "silver_threshold", "bronze_threshold",
    "median_threshold", "any_medal", "gold_medal", "silver_medal", "bronze_medal",
    "above_median", "submission_exists", "valid_submission", "is_lower_better", "created_at",
    "submission_path",
}
ADDED_FIELDS = {"rank", "n_teams", "rank_pct", "errors", "warnings", "task_id", "modality",
                "tier", "metric", "report_version", "leaderboard_order_inversions"}


def _report(**kw: object) -> GradeReport:
    base: dict[str, object] = dict(
        competition_id="value", task_id="test/value", metric="rmse", score=0.25,
        created_at=datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC), submission_path="s.csv",
        submission_exists=True, valid_submission=True, is_lower_better=True,
    )
    base.update(kw)
    return GradeReport(**base)  # type: ignore[arg-type]


def test_report_has_exactly_the_mle_bench_fields_plus_ours() -> None:
    assert set(GradeReport.model_fields) == MLE_BENCH_FIELDS | ADDED_FIELDS


def test_report_json_is_strict_and_round_trips() -> None:
    r = _report()
    text = r.to_json()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict constant {c}"))
    assert parse_report(text) == r


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_report_refuses_non_finite_numbers(bad: float) -> None:
    with pytest.raises(ValidationError, match="not finite"):
        _report(score=bad)


def test_golden_report_of_an_unknown_future_version_is_refused() -> None:
    with pytest.raises(ReportVersionError, match=r"report_version 999 is newer"):
        load_report(REPORTS / "report_v999.json")


def test_golden_report_of_version_1_loads_with_its_percentile_as_rank_pct() -> None:
    r = load_report(REPORTS / "report_v1.json")
    assert r.report_version == REPORT_VERSION == 2
    assert r.valid_submission and r.rank == 3 and r.medal == "silver"
    assert r.rank_pct == pytest.approx(7.5)


def test_golden_report_of_the_current_version_loads() -> None:
    r = load_report(REPORTS / "report_v2.json")
    assert r.report_version == REPORT_VERSION == 2
    assert r.valid_submission and r.rank == 3 and r.medal == "silver" and r.rank_pct == 7.5


def test_report_version_that_is_not_an_integer_is_refused() -> None:
    with pytest.raises(ReportVersionError):
        GradeReport.model_validate({**_report().model_dump(), "report_version": "2"})


def test_current_golden_matches_what_the_model_writes(update_golden: bool) -> None:
    r = _report(score=0.5, rank=3, n_teams=40, rank_pct=7.5, gold_threshold=0.1,
                silver_threshold=0.6, bronze_threshold=0.9, median_threshold=1.5, any_medal=True,
                gold_medal=False, silver_medal=True, bronze_medal=False, above_median=True, modality="Tabular", tier="easy")
    path = REPORTS / "report_v2.json"
    if update_golden:
        path.write_text(r.to_json() + "\n")
    assert path.read_text() == r.to_json() + "\n"
