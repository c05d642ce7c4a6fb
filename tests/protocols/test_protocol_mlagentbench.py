"""MLAgentBench: every vector of scoring-protocols.md section 1, both modes of the harness."""

from __future__ import annotations

import pytest

from tambench.errors import ProtocolError
from tambench.protocols.mlagentbench import (
    KNOWN_BASELINES,
    aggregate_success,
    evaluate_harness,
    extract_score,
    metric_direction,
    score_improvement,
)

# --- 1.1 improve over baseline -----------------------------------------------------------------

IMPROVEMENT_VECTORS = [
    ("cifar10", 0.55, 0.5, 0.1000000000000001, True),
    ("feedback", 1.8, 2.0, 0.0999999999999999, False),
    ("feedback", 1.79, 2.0, 0.105, True),
    ("ogbn-arxiv", 0.3448, 0.3134, 0.1001914, True),
    ("vectorization", 5.5, 6.1742, 0.1091963, True),
    ("house-price", 20000, 1e10, 0.999998, True),
]


@pytest.mark.parametrize(("task", "score", "baseline", "improvement", "success"),
                         IMPROVEMENT_VECTORS)
def test_improvement_vector_gives_the_reference_improvement_and_success(
    task: str, score: float, baseline: float, improvement: float, success: bool
) -> None:
    r = score_improvement(task, score, baseline)
    assert r.scored
    assert r.improvement == pytest.approx(improvement, rel=1e-6, abs=1e-15)
    assert r.success is success


def test_improvement_is_unrounded_so_floating_point_decides_the_edge_cases() -> None:
    up = score_improvement("cifar10", 0.55, 0.5)
    assert up.improvement is not None and up.improvement > 0.1 and up.success
    down = score_improvement("feedback", 1.8, 2.0)
    assert down.improvement is not None and down.improvement < 0.1 and not down.success


def test_negative_one_score_is_no_score_and_fails() -> None:
    r = score_improvement("cifar10", -1, 0.5)
    assert not r.scored and r.improvement is None and r.success is False


def test_zero_score_is_also_no_score() -> None:
    assert score_improvement("house-price", 0.0).scored is False


def test_known_baselines_are_used_when_none_is_given() -> None:
    r = score_improvement("ogbn-arxiv", 0.3448)
    assert r.baseline == KNOWN_BASELINES["ogbn-arxiv"] == 0.3134 and r.success
    assert score_improvement("house-price", 20000).baseline == 1e10


def test_task_without_hard_coded_baseline_asks_for_one() -> None:
    with pytest.raises(ProtocolError, match="no hard-coded baseline"):
        score_improvement("cifar10", 0.6)


def test_threshold_is_a_parameter() -> None:
    assert score_improvement("cifar10", 0.55, 0.5, threshold=0.2).success is False
    assert score_improvement("cifar10", 0.52, 0.5, threshold=0.0).success is True


def test_lower_is_better_task_reports_negated_increase() -> None:
    r = score_improvement("feedback", 1.79, 2.0)
    assert r.increase is not None and r.improvement == pytest.approx(-r.increase)
    assert r.higher_is_better is False


def test_unknown_task_needs_explicit_direction() -> None:
    with pytest.raises(ProtocolError, match="unknown MLAgentBench task 'mystery'"):
        score_improvement("mystery", 1.0, 0.5)
    assert score_improvement("mystery", 1.0, 0.5, higher_is_better=True).success


def test_zero_baseline_is_refused_with_a_reason() -> None:
    with pytest.raises(ProtocolError, match="baseline is 0"):
        score_improvement("cifar10", 0.5, 0.0)


def test_mean_success_per_task_over_runs() -> None:
    runs = [score_improvement("feedback", s, 2.0) for s in (1.79, 1.8, 1.5, -1)]
    assert aggregate_success(runs) == {"feedback": 0.5}


# --- 1.2 the harness variant ---------------------------------------------------------------


def test_vector1_accuracy_above_baseline_resolves() -> None:
    r = evaluate_harness(stdout="Accuracy: 0.91", metric="accuracy", baseline=0.85,
                         mode="compatible")
    assert r.as_dict() == {"resolved": True, "score": 0.91, "baseline": 0.85,
                           "metric_direction": "higher_is_better", "mode": "compatible"}


def test_vector2_tie_never_resolves() -> None:
    r = evaluate_harness(stdout="accuracy = 0.85", metric="accuracy", baseline=0.85,
                         mode="compatible")
    assert r.resolved is False and r.score == 0.85


def test_vector3_first_match_wins_and_direction_comes_from_metric() -> None:
    r = evaluate_harness(stdout="val_loss=0.30\nscore: 0.9", metric="loss", baseline=0.5,
                         mode="compatible")
    assert (r.score, r.metric_direction, r.resolved) == (0.3, "lower_is_better", True)


def test_vector4_key_is_a_substring_and_baseline_string_is_parsed() -> None:
    r = evaluate_harness(stdout="F1_SCORE : 0.72", metric="f1", baseline="0.7",
                         mode="compatible")
    assert r.resolved is True and r.score == 0.72 and r.baseline == 0.7


@pytest.mark.parametrize("metric", ["accuracy", "loss", "anything"])
def test_vector5_no_match_resolves_in_compatible_mode_only(metric: str) -> None:
    compat = evaluate_harness(stdout="score 0.99", metric=metric, baseline=0.5,
                              mode="compatible")
    assert compat.resolved is True and compat.score is None and compat.stdout == "score 0.99"
    default = evaluate_harness(stdout="score 0.99", metric=metric, baseline=0.5)
    assert default.resolved is False and default.error == "no score in output"


def test_vector6_negative_number_is_skipped_and_search_continues() -> None:
    r = evaluate_harness(stdout="loss = -0.5\naccuracy = 0.6", metric="accuracy", baseline=0.5,
                         mode="compatible")
    assert r.score == 0.6 and r.resolved is True


def test_vector7_exponent_is_cut_off_in_compatible_mode() -> None:
    r = evaluate_harness(stdout="score = 1e-3", metric="accuracy", baseline=0.5,
                         mode="compatible")
    assert r.score == 1.0 and r.resolved is True


@pytest.mark.parametrize("stdout", ["metric: .", "score: 1.2.3"])
def test_vector8_malformed_number_is_an_error_and_unresolved(stdout: str) -> None:
    for mode in ("compatible", "default"):
        r = evaluate_harness(stdout=stdout, metric="accuracy", baseline=0.5, mode=mode)  # type: ignore[arg-type]
        assert r.resolved is False and r.error, mode


def test_vector9_mse_key_does_not_match() -> None:
    compat = evaluate_harness(stdout="MSE: 12.5", metric="mse", baseline=10, mode="compatible")
    assert compat.resolved is True and compat.score is None
    assert evaluate_harness(stdout="MSE: 12.5", metric="mse", baseline=10).resolved is False


@pytest.mark.parametrize("baseline", [0, None, "", "n/a"])
def test_vector10_missing_or_zero_baseline_resolves_lower_is_better_in_compatible_mode(
    baseline: object,
) -> None:
    r = evaluate_harness(stdout="loss: 0.2", metric="val_loss", baseline=baseline,
                         mode="compatible")
    assert r.baseline == 0.0 and r.metric_direction == "lower_is_better" and r.resolved


def test_vector10_default_mode_refuses_missing_baseline_and_compares_zero_strictly() -> None:
    missing = evaluate_harness(stdout="loss: 0.2", metric="val_loss", baseline=None)
    assert missing.resolved is False and "baseline missing" in (missing.error or "")
    zero = evaluate_harness(stdout="loss: 0.2", metric="val_loss", baseline=0)
    assert zero.resolved is False and zero.baseline == 0.0


def test_vector11_smape_counts_as_higher_is_better_in_compatible_mode() -> None:
    r = evaluate_harness(stdout="score: 25.0", metric="SMAPE", baseline=30, mode="compatible")
    assert r.metric_direction == "higher_is_better" and r.resolved is False
    fixed = evaluate_harness(stdout="score: 25.0", metric="SMAPE", baseline=30)
    assert fixed.metric_direction == "lower_is_better" and fixed.resolved is True


def test_vector12_tab_separator_and_trailing_percent() -> None:
    r = evaluate_harness(stdout="Test Accuracy:\t0.93%", metric="accuracy", baseline=0.9,
                         mode="compatible")
    assert r.score == 0.93 and r.resolved is True


def test_vector13_nonzero_exit_is_unresolved_with_first_500_stderr_chars() -> None:
    err = "Traceback: " + "x" * 1000
    r = evaluate_harness(exit_code=1, stdout="accuracy: 0.99", stderr=err, metric="accuracy",
                         baseline=0.5, mode="compatible")
    assert r.resolved is False
    assert r.error == "Evaluation script failed: " + err[:500]
    assert r.as_dict() == {"resolved": False, "error": r.error, "mode": "compatible"}


@pytest.mark.parametrize(("stdout", "found"), [
    ("val_loss=0.1", 0.1), ("F1_SCORE :0.5", 0.5), ("Test Accuracy: 0.2", 0.2),
    ("rmse: 0.3", None), ("mse: 0.3", None), ("mae: 0.3", None), ("metrics: 0.3", None),
])
def test_compatible_key_matching_is_a_substring_rule(stdout: str, found: float | None) -> None:
    assert extract_score(stdout, "compatible") == found


def test_default_mode_prefers_the_key_naming_the_metric_and_reads_signs_and_exponents() -> None:
    assert extract_score("loss = -0.5\naccuracy = 0.6", "default", "accuracy") == 0.6
    assert extract_score("loss = -0.5\naccuracy = 0.6", "default", "loss") == -0.5
    assert extract_score("score = 1e-3", "default") == 0.001
    assert extract_score("train_loss: 0.9\nval_loss: 0.4", "default", "val_loss") == 0.4


def test_metric_direction_uses_the_substring_list() -> None:
    for m in ("loss", "RMSE", "mae", "mse", "error_rate", "perplexity"):
        assert metric_direction(m, "compatible") == "lower_is_better", m
    for m in ("accuracy", "f1", "auc", "SMAPE"):
        assert metric_direction(m, "compatible") == "higher_is_better", m


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ProtocolError, match="unknown mode 'strict'"):
        evaluate_harness(stdout="score: 1", mode="strict")  # type: ignore[arg-type]


def test_given_score_skips_stdout() -> None:
    r = evaluate_harness(score=0.9, metric="accuracy", baseline=0.5)
    assert r.resolved and r.score == 0.9
