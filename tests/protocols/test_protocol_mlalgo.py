"""MLAlgo-Bench: every vector of scoring-protocols.md section 2, and the results table."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tambench.errors import ProtocolError
from tambench.protocols.mlalgo import (
    METRIC_FUNCTIONS,
    TaskResult,
    accuracy,
    aggregate_results,
    log_loss_unnormalized,
    log_time_ratio,
    mae,
    mcrmse,
    normalized_score,
    pass_rate,
    passes_tolerance,
    read_results,
    rmse,
    rmsle,
    smape,
)

# --- setting 1 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "score", "ref", "expected"), [
    ("classification", 0.8, 1.0, True),
    ("classification", 0.79, 1.0, False),
    ("clustering", 0.4, 0.5, True),
    ("clustering", 0.39, 0.5, False),
    ("dimensionality_reduction", 0.8, 1.0, True),
    ("regression", 80.0, 20.0, True),
    ("regression", 80.0001, 20.0, False),
])
def test_tolerance_vectors_are_inclusive(kind: str, score: float, ref: float,
                                         expected: bool) -> None:
    assert passes_tolerance(kind, score, ref) is expected  # type: ignore[arg-type]


def test_exception_and_timeout_fail_the_task() -> None:
    assert passes_tolerance("classification", 1.0, 1.0, failed=True) is False
    assert passes_tolerance("classification", 1.0, 1.0, timed_out=True) is False
    assert passes_tolerance("classification", None, 1.0) is False


def test_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(ProtocolError, match="expected one of"):
        passes_tolerance("ranking", 1.0, 1.0)  # type: ignore[arg-type]


def test_pass_rate_is_passed_over_all() -> None:
    assert pass_rate([True, False, False, True]) == 0.5
    with pytest.raises(ProtocolError):
        pass_rate([])


# --- metric functions ----------------------------------------------------------------------


def test_metric_vectors() -> None:
    assert accuracy([1, 0, 1, 1], [1, 1, 1, 0]) == 0.5
    assert mae([1, 2, 3], [2, 2, 5]) == 1.0
    assert rmse([1, 2, 3], [2, 2, 5]) == pytest.approx(1.2909944487358056, rel=1e-15)
    assert mcrmse([[1, 0], [3, 0]], [[2, 0], [3, 2]]) == pytest.approx(1.0606601717798214,
                                                                        rel=1e-15)
    assert rmsle([0, 1, 3], [0, 2, 3]) == pytest.approx(0.23409538931324927, rel=1e-15)
    assert smape([0, 1, 0, 2], [0, 3, 5, 2]) == 75.0


def test_log_loss_is_not_renormalised() -> None:
    assert log_loss_unnormalized([0, 1], [[0.5, 0.5], [0.0, 1.0]]) == pytest.approx(
        0.34657359027997314, rel=1e-15)
    # Rows that do not sum to 1 keep their mass: renormalising would give ln 2 / 2 here.
    raw = log_loss_unnormalized([0], [[0.25, 0.25]])
    assert raw == pytest.approx(-math.log(0.25))


def test_smape_counts_zero_where_both_are_zero() -> None:
    assert smape([0, 0], [0, 0]) == 0.0


def test_metric_shape_mismatch_reports_expected_and_got() -> None:
    with pytest.raises(ProtocolError, match=r"expected y_pred of shape \(3,\), got \(2,\)"):
        mae([1, 2, 3], [1, 2])


def test_every_metric_function_is_listed_by_name() -> None:
    assert set(METRIC_FUNCTIONS) == {"accuracy", "mae", "rmse", "mcrmse", "rmsle", "smape",
                                     "log_loss_unnormalized"}


# --- aggregates ----------------------------------------------------------------------------


def test_nscore_vectors() -> None:
    agent = normalized_score(0.55, min=0.1, max=1.0)
    ref = normalized_score(0.91, min=0.1, max=1.0)
    assert agent == pytest.approx(0.5) and ref == pytest.approx(0.9)
    assert agent is not None and ref is not None
    assert round(agent / ref, 4) == 0.5556
    loss = normalized_score(1.10, min=1.20, max=1.08, lower_is_better=True)
    assert loss is not None and round(loss, 4) == 0.8333


def test_dtime_vector() -> None:
    d = log_time_ratio(2.0, 1.0)
    assert d is not None and round(d, 6) == 0.693147


def test_nscore_is_not_clipped_and_equal_bounds_are_undefined() -> None:
    assert normalized_score(1.2, min=0.0, max=1.0) == pytest.approx(1.2)
    assert normalized_score(-0.1, min=0.0, max=1.0) == pytest.approx(-0.1)
    assert normalized_score(0.5, min=0.3, max=0.3) is None


def test_bounds_in_the_wrong_order_for_the_direction_are_refused() -> None:
    with pytest.raises(ProtocolError, match="`max` is the best value"):
        normalized_score(1.10, min=1.08, max=1.20, lower_is_better=True)


def test_aggregates_with_undefined_cases_counted_in_excluded() -> None:
    rows = [
        TaskResult("a", True, 0.55, 0.91, 0.1, 1.0, time_agent=2.0, time_ref=1.0),
        TaskResult("b", True, 1.10, 1.10, 1.20, 1.08, lower_is_better=True,
                   time_agent=1.0, time_ref=1.0),
        TaskResult("ref-at-min", True, 0.5, 0.1, 0.1, 1.0, time_agent=0.0, time_ref=1.0),
        TaskResult("flat", True, 0.5, 0.5, 0.3, 0.3),
        TaskResult("failed", False),
    ]
    agg = aggregate_results(rows)
    assert agg.n_tasks == 5 and agg.n_passed == 4 and agg.pass_rate == 0.8
    assert agg.n_included == 2 and agg.excluded == 2
    assert agg.d_score == pytest.approx((0.5 / 0.9 + 1.0) / 2)
    assert agg.e_score == pytest.approx(agg.d_score * 0.8)  # type: ignore[operator]
    assert agg.n_timed == 2 and agg.time_excluded == 2
    assert agg.d_time == pytest.approx(math.log(2.0) / 2)
    reasons = {r["task"]: r["excluded_reason"] for r in agg.per_task}
    assert reasons["ref-at-min"] == "reference nScore is 0" and reasons["flat"] == "max == min"


def test_no_includable_task_leaves_dscore_and_escore_undefined() -> None:
    agg = aggregate_results([TaskResult("x", False), TaskResult("y", False)])
    assert agg.d_score is None and agg.e_score is None and agg.d_time is None
    assert agg.pass_rate == 0.0


def test_passed_task_without_score_is_an_error_not_dropped() -> None:
    with pytest.raises(ProtocolError, match=r"'t' passed but lacks \['score'\]"):
        aggregate_results([TaskResult("t", True, None, 0.9, 0.1, 1.0)])


def test_results_csv_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "results.csv"
    f.write_text(
        "task,passed,score,reference_score,min,max,lower_is_better,time_agent,time_ref\n"
        "digits,true,0.55,0.91,0.1,1.0,false,2,1\n"
        "loss-task,1,1.10,1.10,1.20,1.08,true,,\n"
        "broken,false,,,,,,,\n"
    )
    rows = read_results(f)
    assert [r.task for r in rows] == ["digits", "loss-task", "broken"]
    assert rows[1].lower_is_better and rows[1].time_agent is None and not rows[2].passed
    agg = aggregate_results(rows)
    assert agg.n_passed == 2 and agg.time_excluded == 1


def test_results_csv_bad_cells_report_line_column_and_value(tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("task,passed,score\nx,maybe,0.5\n")
    with pytest.raises(ProtocolError, match=r"line 2: column `passed` expected true/false"):
        read_results(f)
    f.write_text("task,passed,score\nx,true,abc\n")
    with pytest.raises(ProtocolError, match=r"column `score` expected a number, got 'abc'"):
        read_results(f)
    f.write_text("task,passed,speed\nx,true,1\n")
    with pytest.raises(ProtocolError, match=r"unknown \['speed'\]"):
        read_results(f)


def test_unnormalised_log_loss_matches_the_registry_metric_without_renormalisation() -> None:
    from tambench.core.metrics import get_metric

    registry = get_metric("multiclass_log_loss")
    y, p = [0, 2, 1], [[0.5, 0.2, 0.1], [0.0, 0.3, 0.3], [0.2, 0.9, 0.4]]
    one_hot = [[1.0 if j == k else 0.0 for j in range(3)] for k in y]
    ours = log_loss_unnormalized(y, p)
    assert ours == pytest.approx(registry(one_hot, p, renormalize=False), rel=1e-12)
    assert ours != pytest.approx(registry(one_hot, p))  # Kaggle's renormalised value differs
