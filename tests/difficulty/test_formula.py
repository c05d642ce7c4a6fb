"""The paper's formula against hand-computed values, both directions, and the robust variant."""

from __future__ import annotations

import math

import pytest

from tambench.difficulty.formula import (
    EPS,
    DifficultyParams,
    explain_lines,
    formula_terms,
    paper_difficulty,
    robust_difficulty,
    tier_for,
)
from tambench.difficulty.methods import compute_all
from tambench.errors import DifficultyError
from tambench.schema.taskspec import Difficulty, Tier
from tests.difficulty.conftest import MakeMetric, board


def test_higher_is_better_bounded_metric_matches_hand_computation(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_acc", higher_is_better=True, value_range=(0.0, 1.0))
    r = paper_difficulty(board([0.9, 0.8, 0.7, 0.6]), m)
    # Min/Max = the declared range [0, 1]; mean 0.75; best 0.9; P = 4.
    norm_mean = 0.75 / (1.0 + 1e-8)
    norm_best = 0.9 / (1.0 + 1e-8)
    expected = 0.4 * norm_mean + 0.1 * math.log10(5) + 0.5 * (1 - norm_best)
    assert r.score == pytest.approx(expected, abs=1e-12)
    assert r.score == pytest.approx(0.3 + 0.0698970004 + 0.05, abs=1e-8)
    assert r.tier is Tier.EASY
    assert (r.inputs["min_score"], r.inputs["max_score"]) == (0.0, 1.0)
    assert r.inputs["participants"] == 4.0


def test_lower_is_better_unbounded_metric_uses_observed_min_and_max(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_rmse", higher_is_better=False, value_range=(0.0, math.inf))
    r = paper_difficulty(board([2.0, 3.0, 4.0, 11.0]), m)
    # Min 2, Max 11, mean 5, best (lowest) 2: NormMean 3/9, NormBest 0.
    expected = 0.4 * (3.0 / (9.0 + 1e-8)) + 0.1 * math.log10(5) + 0.5 * 0.0
    assert r.score == pytest.approx(expected, abs=1e-12)
    assert r.score == pytest.approx(0.1333333333 + 0.0698970004, abs=1e-8)
    assert r.inputs["norm_best"] == 0.0
    assert r.inputs["best_term"] == 0.0
    assert (r.inputs["min_score"], r.inputs["max_score"]) == (2.0, 11.0)


def test_lower_is_better_bounded_metric_adds_norm_best(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_err", higher_is_better=False, value_range=(0.0, 1.0))
    r = paper_difficulty(board([0.1, 0.2, 0.3]), m)
    # NormMean 0.2, NormBest 0.1 (the best term itself, not 1 - it), P = 3.
    expected = 0.4 * 0.2 / (1 + EPS) + 0.1 * math.log10(4) + 0.5 * 0.1 / (1 + EPS)
    assert r.score == pytest.approx(expected, abs=1e-12)
    assert r.score == pytest.approx(0.08 + 0.0602059991 + 0.05, abs=1e-8)
    assert r.inputs["best_term"] == pytest.approx(0.1, abs=1e-9)


def test_same_board_scores_differently_in_the_two_directions(temp_metric: MakeMetric) -> None:
    up = temp_metric("test_tmp_up", higher_is_better=True, value_range=(0.0, 1.0))
    down = temp_metric("test_tmp_down", higher_is_better=False, value_range=(0.0, 1.0))
    scores = [0.2, 0.4, 0.6]
    r_up = paper_difficulty(board(scores), up)
    r_down = paper_difficulty(board(scores[::-1]), down)
    common = 0.4 * 0.4 / (1 + EPS) + 0.1 * math.log10(4)
    assert r_up.score == pytest.approx(common + 0.5 * (1 - 0.6 / (1 + EPS)), abs=1e-12)
    assert r_down.score == pytest.approx(common + 0.5 * 0.2 / (1 + EPS), abs=1e-12)


def test_tier_thresholds_are_inclusive_upper_bounds() -> None:
    assert tier_for(0.6) is Tier.EASY
    assert tier_for(0.6000001) is Tier.MEDIUM
    assert tier_for(0.85) is Tier.MEDIUM
    assert tier_for(0.8500001) is Tier.HARD
    with pytest.raises(DifficultyError, match="finite"):
        tier_for(math.nan)


def test_formula_terms_reach_hard_with_many_participants_and_a_weak_winner() -> None:
    t = formula_terms(mean_score=0.02, best_score=0.05, min_score=0.0, max_score=1.0,
                      participants=9999, higher_is_better=True)
    # 0.4*0.02 + 0.1*4 + 0.5*0.95
    assert t["difficulty"] == pytest.approx(0.008 + 0.4 + 0.475, abs=1e-7)
    assert tier_for(t["difficulty"]) is Tier.HARD


def test_equal_scores_do_not_divide_by_zero(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_flat", higher_is_better=False, value_range=(0.0, math.inf))
    r = paper_difficulty(board([3.0, 3.0, 3.0]), m)
    assert r.inputs["norm_mean"] == 0.0 and r.inputs["norm_best"] == 0.0
    assert r.score == pytest.approx(0.1 * math.log10(4))


def test_paper_method_counts_unscored_rows_as_participants_but_not_in_statistics(
    temp_metric: MakeMetric,
) -> None:
    m = temp_metric("test_tmp_acc2", higher_is_better=True, value_range=(0.0, 1.0))
    r = paper_difficulty(board([0.9, 0.5, "", "n/a"]), m)
    assert r.inputs["participants"] == 4.0
    assert r.inputs["scored_rows"] == 2.0
    assert r.inputs["mean_score"] == pytest.approx(0.7)
    assert any("without a finite score" in n for n in r.notes)


def test_paper_method_is_fragile_to_a_junk_row_and_robust_method_is_not(
    temp_metric: MakeMetric,
) -> None:
    m = temp_metric("test_tmp_rmse2", higher_is_better=False, value_range=(0.0, math.inf))
    scores = [float(s) for s in range(1, 21)] + [2.5e7]
    lb = board(scores)
    paper = paper_difficulty(lb, m)
    mean = (210.0 + 2.5e7) / 21
    assert paper.inputs["norm_mean"] == pytest.approx((mean - 1) / (2.5e7 - 1 + EPS), rel=1e-12)
    assert paper.score == pytest.approx(0.4 * (mean - 1) / (2.5e7 - 1) + 0.1 * math.log10(22),
                                        abs=1e-9)
    robust = robust_difficulty(lb, m)
    # 2.5e7 is an outlier (median 11, IQR 10); 20 rows remain. Linear 5%/95% quantiles of
    # 1..20 are 1.95 and 19.05; clipping 1 -> 1.95 and 20 -> 19.05 keeps the sum, mean 10.5.
    assert robust.inputs["participants"] == 20.0
    assert robust.inputs["min_score"] == pytest.approx(1.95)
    assert robust.inputs["max_score"] == pytest.approx(19.05)
    assert robust.inputs["mean_score"] == pytest.approx(10.5)
    assert robust.inputs["norm_mean"] == pytest.approx(0.5, abs=1e-8)
    assert robust.score == pytest.approx(0.4 * 0.5 + 0.1 * math.log10(21), abs=1e-8)
    assert robust.inputs["clipped_rows"] == 2.0


def test_robust_method_equals_paper_on_a_clean_bounded_board(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_auc", higher_is_better=True, value_range=(0.0, 1.0))
    lb = board([0.95, 0.9, 0.85, 0.8, 0.7])
    assert robust_difficulty(lb, m).score == pytest.approx(paper_difficulty(lb, m).score)


def test_robust_method_drops_out_of_range_rows_of_a_bounded_metric(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_acc3", higher_is_better=True, value_range=(0.0, 1.0))
    lb = board([0.9, 0.8, 1.7])
    robust = robust_difficulty(lb, m)
    assert robust.inputs["participants"] == 2.0
    assert robust.inputs["best_score"] == 0.9
    assert paper_difficulty(lb, m).inputs["best_score"] == 1.7


def test_compute_all_returns_primary_first_and_every_other_method_beside(
    temp_metric: MakeMetric,
) -> None:
    m = temp_metric("test_tmp_acc4", higher_is_better=True, value_range=(0.0, 1.0))
    first, others = compute_all(board([0.9, 0.8, 0.7, 0.6]), m, "robust")
    assert first.method == "robust" and [o.method for o in others] == ["calibrated", "paper"]
    model = first.to_model(others)
    assert isinstance(model, Difficulty)
    assert [o.method for o in model.other] == ["calibrated", "paper"]
    assert model.inputs["participants"] == 4.0
    with pytest.raises(DifficultyError, match="unknown difficulty method 'median'"):
        compute_all(board([0.9]), m, "median")


def test_explain_lines_show_every_term(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_acc5", higher_is_better=True, value_range=(0.0, 1.0))
    text = "\n".join(explain_lines(paper_difficulty(board([0.9, 0.8, 0.7, 0.6]), m)))
    for needle in ("MinScore = 0.0", "MaxScore = 1.0", "MeanScore = 0.75", "BestScore = 0.9",
                   "NormMean", "NormBest", "P = 4", "log10(P + 1)", "1 - NormBest",
                   "tier: easy"):
        assert needle in text


def test_no_finite_score_is_a_difficulty_error(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_acc6", higher_is_better=True, value_range=(0.0, 1.0))
    with pytest.raises(DifficultyError, match="no finite score"):
        paper_difficulty(board(["", "x"]), m)


def test_params_refuse_inverted_thresholds() -> None:
    with pytest.raises(DifficultyError, match="easy_max <= medium_max"):
        DifficultyParams(easy_max=0.9, medium_max=0.5)
