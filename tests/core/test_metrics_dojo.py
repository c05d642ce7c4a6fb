"""The metrics MLE-Dojo's competitions needed, against values computed by hand.

Each vector's arithmetic is written beside it. Edge cases: constant predictions, ties, empty
groups or cells, NaN/inf, out-of-domain parameters, and messages that never quote answers.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from tambench.core.metrics import get_metric
from tambench.errors import (
    InvalidSubmissionError,
    MetricInputError,
    MetricParameterError,
    TaskDataError,
)
from tests.core.life_reference import life_step_by_cells


def score(metric_id: str, y_true, y_pred, **kw) -> float:  # type: ignore[no-untyped-def]
    return get_metric(metric_id)(y_true, y_pred, **kw)


# --- normalized_gini ----------------------------------------------------------------------------


def test_gini_of_a_continuous_target_by_hand() -> None:
    # truths 3 0 1 (total 4). Perfect order 3,1,0: cumulative shares 3/4, 1, 1 -> 2.75;
    # Gini = (2.75 - (3 + 1) / 2) / 3 = 0.25. Predicted order rows 1, 3, 2 (0.8, 0.5 > 0.1 is
    # rows 0, 2, 1 by index): here p = [0.1, 0.8, 0.5] sorts to truths 0, 1, 3: shares
    # 0, 1/4, 1 -> 1.25; Gini = (1.25 - 2) / 3 = -0.25 -> normalised -1.
    assert score("normalized_gini", [3.0, 0.0, 1.0], [0.1, 0.8, 0.5]) == pytest.approx(-1.0)
    # order 3, 0, 1: shares 3/4, 3/4, 1 -> 2.5; (2.5 - 2) / 3 = 1/6 -> normalised (1/6)/(1/4)
    assert score("normalized_gini", [3.0, 0.0, 1.0], [0.9, 0.5, 0.1]) == pytest.approx(2 / 3)


def test_gini_of_binary_truths_is_twice_the_auc_minus_one_with_ties_halved() -> None:
    rng = np.random.default_rng(3)
    t = rng.integers(0, 2, 200).astype(float)
    p = np.round(rng.random(200), 1)  # many ties
    assert score("normalized_gini", t, p) == pytest.approx(2 * score("roc_auc", t, p) - 1)


def test_gini_of_a_constant_prediction_is_zero_whatever_the_row_order() -> None:
    # every order of a tie is equally likely: expected cumulative shares are the null line
    assert score("normalized_gini", [1.0, 0.0, 0.0, 2.0], [0.5] * 4) == pytest.approx(0.0)
    assert score("normalized_gini", [2.0, 0.0, 1.0, 0.0], [0.5] * 4) == pytest.approx(0.0)


@pytest.mark.parametrize("truth", [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, -2.0, 3.0]])
def test_gini_refuses_answers_without_a_better_order(truth) -> None:
    with pytest.raises(TaskDataError):
        score("normalized_gini", truth, [0.1, 0.2, 0.3])


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_gini_refuses_nan_and_inf_predictions(bad) -> None:
    with pytest.raises(MetricInputError):
        score("normalized_gini", [1.0, 0.0, 1.0], [0.5, bad, 0.1])


# --- weighted_mae ----------------------------------------------------------------------------------


def test_weighted_mae_divides_by_the_weights_or_by_n() -> None:
    # errors 1, 0, 3 with weights 1, 1, 2: (1 + 0 + 6) / 4 = 1.75; by n: 7 / 3
    t, p, w = [1.0, 2.0, 4.0], [2.0, 2.0, 1.0], [1.0, 1.0, 2.0]
    assert score("weighted_mae", t, p, weights=w) == pytest.approx(1.75)
    assert score("weighted_mae", t, p, weights=w, divide_by="n") == pytest.approx(7 / 3)


def test_weighted_mae_with_holiday_weeks_weighted_five() -> None:
    # Walmart: errors 10 (holiday), 2, 4: (5 * 10 + 2 + 4) / (5 + 1 + 1) = 56 / 7 = 8
    flags = np.array([True, False, False], dtype=object)
    got = score("weighted_mae", [100.0, 50.0, 20.0], [90.0, 52.0, 24.0], weights=flags,
                weight_map={"True": 5, "False": 1})
    assert got == pytest.approx(8.0)
    # the same flags read as text or as 1.0/0.0 numbers map alike
    assert score("weighted_mae", [100.0, 50.0, 20.0], [90.0, 52.0, 24.0],
                 weights=np.array([1.0, 0.0, 0.0]), weight_map={"1": 5, "0": 1}) == pytest.approx(8.0)


def test_weighted_mae_several_columns_share_their_row_weight() -> None:
    # row errors (1, 3) weight 3 and (0, 2) weight 1: (3 * 4 + 2) / (2 * 3 + 2 * 1) = 14 / 8
    got = score("weighted_mae", [[0.0, 0.0], [1.0, 1.0]], [[1.0, 3.0], [1.0, 3.0]], weights=[3.0, 1.0])
    assert got == pytest.approx(14 / 8)


def test_weighted_mae_declares_its_answers_column() -> None:
    metric = get_metric("weighted_mae")
    assert metric.answers_columns() == ["weight"]
    assert metric.answers_columns({"weights_column": "IsHoliday"}) == ["IsHoliday"]


def test_weighted_mae_refuses_unmapped_labels_without_quoting_them() -> None:
    with pytest.raises(TaskDataError) as err:
        score("weighted_mae", [1.0, 2.0], [1.0, 2.0], weights=["True", "secret-label"],
              weight_map={"True": 5, "False": 1})
    assert "secret-label" not in str(err.value)
    assert "1 answers row" in str(err.value)


@pytest.mark.parametrize("weights", [[-1.0, 1.0], [0.0, 0.0], [math.nan, 1.0]])
def test_weighted_mae_refuses_negative_zero_total_or_nan_weights(weights) -> None:
    with pytest.raises(TaskDataError):
        score("weighted_mae", [1.0, 2.0], [1.0, 2.0], weights=weights)


@pytest.mark.parametrize("params", [{"divide_by": "rows"}, {"weight_map": {"a": -1}},
                                    {"weight_map": {}}, {"weight_map": ["a"]}])
def test_weighted_mae_refuses_out_of_domain_parameters(params) -> None:
    with pytest.raises(MetricParameterError):
        score("weighted_mae", [1.0], [1.0], weights=[1.0], **params)


# --- median_absolute_error and rmspe -----------------------------------------------------------------


def test_median_absolute_error_by_hand() -> None:
    # errors 0.5, 0, 2, 10: the middle two 0.5 and 2 -> 1.25
    assert score("median_absolute_error", [1.0, 2.0, 3.0, 10.0], [1.5, 2.0, 5.0, 0.0]) == 1.25
    # columns: medians 1 (errors 0, 1, 5) and 2 (errors 2, 2, 3) -> 1.5
    t = [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    assert score("median_absolute_error", t, [[0.0, 2.0], [1.0, -2.0], [5.0, 3.0]]) == 1.5


def test_median_absolute_error_of_a_constant_prediction_and_nan() -> None:
    # constant 2 against 1, 2, 3, 10: errors 1, 0, 1, 8 -> median 1
    assert score("median_absolute_error", [1.0, 2.0, 3.0, 10.0], [2.0] * 4) == 1.0
    with pytest.raises(MetricInputError):
        score("median_absolute_error", [1.0, 2.0], [math.nan, 1.0])


def test_rmspe_skips_rows_whose_truth_is_zero() -> None:
    # scored rows: (100 - 90) / 100 = 0.1 and (50 - 60) / 50 = -0.2; sqrt((0.01 + 0.04) / 2)
    got = score("rmspe", [100.0, 0.0, 50.0], [90.0, 7.0, 60.0])
    assert got == pytest.approx(math.sqrt(0.025))


def test_rmspe_refuses_answers_that_are_all_zero_and_infinite_predictions() -> None:
    with pytest.raises(TaskDataError):
        score("rmspe", [0.0, 0.0], [1.0, 2.0])
    with pytest.raises(MetricInputError):
        score("rmspe", [1.0, 2.0], [math.inf, 2.0])


# --- game_of_life_mae ---------------------------------------------------------------------------


BLINKER = np.zeros((5, 5))
BLINKER[1:4, 2] = 1  # vertical bar, period 2


def test_life_blinker_turns_each_step_and_wraps_around_the_edges() -> None:
    turned = np.zeros((5, 5))
    turned[2, 1:4] = 1
    assert score("game_of_life_mae", [turned.ravel()], [BLINKER.ravel()], delta=[1],
                 board_rows=5, board_cols=5) == 0.0
    # two steps bring the bar back; against the turned board 4 cells differ of 25
    assert score("game_of_life_mae", [turned.ravel()], [BLINKER.ravel()], delta=[2],
                 board_rows=5, board_cols=5) == pytest.approx(4 / 25)
    # a bar across the top-left corner keeps turning through the wrapped edge
    corner = np.zeros((5, 5))
    corner[[4, 0, 1], 0] = 1
    wrapped = np.zeros((5, 5))
    wrapped[0, [4, 0, 1]] = 1
    assert score("game_of_life_mae", [wrapped.ravel()], [corner.ravel()], delta=[1],
                 board_rows=5, board_cols=5) == 0.0


def test_life_matches_a_cell_by_cell_implementation_for_each_game_s_delta() -> None:
    rng = np.random.default_rng(5)
    starts = (rng.random((6, 4, 7)) < 0.45).astype(float)
    delta = np.array([0, 1, 2, 3, 1, 4])
    stops = []
    for board, d in zip(starts, delta, strict=True):
        for _ in range(int(d)):
            board = life_step_by_cells(board)
        stops.append(board.ravel())
    assert score("game_of_life_mae", stops, starts.reshape(6, -1), delta=delta.astype(float),
                 board_rows=4, board_cols=7) == 0.0
    # delta 0 compares the start itself: an empty start against each stop scores its live share
    empty = np.zeros((6, 28))
    got = score("game_of_life_mae", stops, empty, delta=np.zeros(6), board_rows=4, board_cols=7)
    assert got == pytest.approx(np.mean(stops))


def test_life_refuses_cells_other_than_zero_and_one_and_bad_deltas() -> None:
    board = BLINKER.ravel()
    with pytest.raises(InvalidSubmissionError):
        score("game_of_life_mae", [board], [board * 0.5], delta=[1], board_rows=5, board_cols=5)
    for delta in ([1.5], [-1.0], [1000.0]):
        with pytest.raises(TaskDataError):
            score("game_of_life_mae", [board], [board], delta=delta, board_rows=5, board_cols=5)
    with pytest.raises(MetricInputError):  # 25 cells are not a 4 x 4 board
        score("game_of_life_mae", [board], [board], delta=[1], board_rows=4, board_cols=4)
    with pytest.raises(MetricParameterError):
        score("game_of_life_mae", [board], [board], delta=[1], board_rows=0, board_cols=5)


def test_life_declares_the_delta_column() -> None:
    assert get_metric("game_of_life_mae").answers_columns() == ["delta"]


# --- balanced_log_loss ----------------------------------------------------------------------------


def test_balanced_log_loss_weighs_each_class_alike() -> None:
    # class 0 rows: -ln 0.5 and -ln(1 - 1e-15) ~ 0 -> mean 0.34657; class 1: -ln 0.8 = 0.22314
    got = score("balanced_log_loss", [[1, 0], [1, 0], [0, 1]], [[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
    assert got == pytest.approx((math.log(2) / 2 + -math.log(0.8)) / 2, rel=1e-9)
    # 1-D form: truths 0/1 and the positive class's probability give the same
    assert score("balanced_log_loss", [0, 0, 1], [0.5, 0.0, 0.8]) == pytest.approx(got)


def test_balanced_log_loss_rescales_rows_and_clips_zeros() -> None:
    # row (2, 2) rescales to (0.5, 0.5): each class -ln 0.5; mean ln 2
    assert score("balanced_log_loss", [[1, 0], [0, 1]], [[2.0, 2.0], [1.0, 1.0]]) == pytest.approx(math.log(2))
    # a zero on the true class is clipped to 1e-15: -ln(1e-15) for class 0, 0 for class 1
    got = score("balanced_log_loss", [[1, 0], [0, 1]], [[0.0, 1.0], [0.0, 1.0]])
    assert got == pytest.approx(-math.log(1e-15) / 2, rel=1e-6)


def test_balanced_log_loss_refuses_answers_that_are_not_one_hot_and_bad_eps() -> None:
    with pytest.raises(TaskDataError):
        score("balanced_log_loss", [[0.5, 0.5]], [[0.5, 0.5]])
    with pytest.raises(MetricParameterError):
        score("balanced_log_loss", [[1, 0]], [[0.5, 0.5]], eps=0.7)
    with pytest.raises(MetricInputError):
        score("balanced_log_loss", [[1, 0]], [[math.nan, 0.5]])


# --- ndcg_at_k and spearman_orders ----------------------------------------------------------------


def test_ndcg_at_k_with_one_relevant_item() -> None:
    # FR first: 1; FR second: 1 / log2(3) = 0.63093; FR sixth with k = 5: 0
    t = ["FR", "FR", "FR"]
    p = ["FR US", "US FR", "US IT GB DE NL FR"]
    assert score("ndcg_at_k", t, p, k=5) == pytest.approx((1 + 1 / math.log2(3)) / 3)
    # a repeated wrong item still takes a position; an empty ranking scores 0
    assert score("ndcg_at_k", ["FR", "FR"], ["US US FR", ""], k=5) == pytest.approx(0.5 / 2)


def test_ndcg_at_k_refuses_answers_with_several_items_and_a_bad_k() -> None:
    with pytest.raises(TaskDataError) as err:
        score("ndcg_at_k", ["FR US"], ["FR"])
    assert "FR" not in str(err.value)
    with pytest.raises(MetricParameterError):
        score("ndcg_at_k", ["FR"], ["FR"], k=0)


def test_spearman_orders_by_hand_with_ties_and_constant_rows() -> None:
    # row 1 exact: 1; row 2 reversed: -1; row 3 ties 1 1 3 -> ranks 1.5 1.5 3 against 1 2 3:
    # centred (-0.5 -0.5 1) . (-1 0 1) = 1.5, norms sqrt(1.5) sqrt(2) -> 0.866025
    got = score("spearman_orders", ["1 2 3 4 5", "1 2 3", "1 2 3"], ["1 2 3 4 5", "3 2 1", "1 1 3"])
    assert got == pytest.approx((1 - 1 + 1.5 / math.sqrt(3)) / 3)
    # a constant prediction correlates 0
    assert score("spearman_orders", ["1 2 3"], ["2 2 2"]) == 0.0


def test_spearman_orders_refuses_other_counts_and_non_numbers() -> None:
    for bad in ("1 2", "1 2 x", "1 2 nan"):
        with pytest.raises(InvalidSubmissionError):
            score("spearman_orders", ["1 2 3"], [bad])


# --- char_span_micro_f1 ---------------------------------------------------------------------------


def test_char_span_f1_is_nbme_s_worked_example() -> None:
    # truth 0 3; 3 5 -> {0..4}; prediction 2 5; 7 9; 2 3 -> {2, 3, 4, 7, 8}: TP 3, FN 2, FP 2
    assert score("char_span_micro_f1", ["0 3; 3 5"], ["2 5; 7 9; 2 3"]) == pytest.approx(6 / 10)


def test_char_span_f1_pools_rows_and_reads_list_spelling() -> None:
    # row 1: truth {0..9}, prediction {5..14}: TP 5, FN 5, FP 5; row 2: no truth, FP 2
    got = score("char_span_micro_f1", ["['0 10']", ""], ["5 15", "['1 2', '4 5']"])
    assert got == pytest.approx(2 * 5 / (2 * 5 + 7 + 5))
    assert score("char_span_micro_f1", ["", ""], ["", ""]) == 1.0


def test_char_span_f1_counts_huge_spans_without_expanding_them() -> None:
    # 10**12 characters each side, half shared: F1 = 0.5, in interval arithmetic
    got = score("char_span_micro_f1", ["0 1000000000000"], ["500000000000 1500000000000"])
    assert got == pytest.approx(0.5)


def test_char_span_f1_refuses_malformed_predictions_and_quotes_no_answer() -> None:
    for bad in ("3 1", "a b", "1 2 3", "-1 4"):
        with pytest.raises(InvalidSubmissionError):
            score("char_span_micro_f1", ["0 3"], [bad])
    with pytest.raises(TaskDataError) as err:
        score("char_span_micro_f1", ["secret 12"], ["0 3"])
    assert "secret" not in str(err.value)


# --- mask_object_fbeta -----------------------------------------------------------------------------


def test_mask_object_f2_by_hand() -> None:
    # truth objects A = pixels 0-3, B = 10-13; prediction A exactly and C = 20-21.
    # every threshold: TP 1, FN 1, FP 1 -> F2 = 5 / (5 + 4 + 1) = 0.5
    assert score("mask_object_fbeta", ["1 4|11 4"], ["1 4|21 2"]) == pytest.approx(0.5)
    # A predicted as pixels 0-2: IoU 3/4, a hit at 0.50 ... 0.70 (5 of 10 thresholds; 0.75 is
    # not above 0.75): F2 (TP 1, FN 1, FP 0) = 5 / (5 + 4) at five, 0 at five -> 5/10 * 5/9
    assert score("mask_object_fbeta", ["1 4|11 4"], ["1 3"]) == pytest.approx(0.5 * 5 / 9)


def test_mask_object_fbeta_empty_images_and_lists() -> None:
    # no ship and nothing predicted: 1; a ship missed: 0; something predicted on water: 0
    assert score("mask_object_fbeta", ["", "1 4", ""], ["", "", "5 2"]) == pytest.approx(1 / 3)
    assert score("mask_object_fbeta", [["1 4", "11 4"]], [["11 4", "1 4"]]) == 1.0


def test_mask_object_fbeta_refuses_overlapping_predicted_objects() -> None:
    with pytest.raises(InvalidSubmissionError):
        score("mask_object_fbeta", ["1 4"], ["1 4|3 4"])
    with pytest.raises(TaskDataError):
        score("mask_object_fbeta", ["1 4|3 4"], ["1 4"])


@pytest.mark.parametrize("params", [{"beta": 0}, {"beta": math.inf}, {"thresholds": [0.3]},
                                    {"thresholds": []}, {"separator": " "}, {"separator": "1"}])
def test_mask_object_fbeta_refuses_out_of_domain_parameters(params) -> None:
    with pytest.raises(MetricParameterError):
        score("mask_object_fbeta", ["1 4"], ["1 4"], **params)


# --- box_map with unlabelled wheat boxes ------------------------------------------------------------


def test_wheat_image_precision_by_hand() -> None:
    # true boxes (0,0,10,10) and (20,0,10,10); predictions in confidence order: (0,0,10,10) hit,
    # (21,0,10,10) IoU 90/110 = 0.818 a hit at every threshold to 0.75, (50,50,5,5) a miss:
    # TP 2, FP 1, FN 0 -> 2/3 at all six thresholds
    params = {"iou_thresholds": [0.5, 0.55, 0.6, 0.65, 0.7, 0.75], "form": "image_precision",
              "layout": "conf_xywh"}
    truth = ["1.0 0 0 10 10 1.0 20 0 10 10"]
    pred = ["0.9 0 0 10 10 0.8 21 0 10 10 0.3 50 50 5 5"]
    assert score("box_map", truth, pred, **params) == pytest.approx(2 / 3)
    # shifted by 4: IoU 60/140 = 0.43, a miss at every threshold -> TP 1, FP 2, FN 1: 1/4
    assert score("box_map", truth, ["0.9 0 0 10 10 0.8 24 0 10 10 0.3 50 50 5 5"], **params) == 0.25


def test_wheat_boxes_refuse_negative_sizes_and_too_many_objects() -> None:
    kw = {"form": "image_precision", "layout": "conf_xywh"}
    with pytest.raises(InvalidSubmissionError):
        score("box_map", ["1 0 0 10 10"], ["0.9 0 0 -10 10"], **kw)
    with pytest.raises(InvalidSubmissionError):
        score("box_map", ["1 0 0 10 10"], [" ".join(["0.5 0 0 10 10"] * 10_001)], **kw)
    with pytest.raises(MetricParameterError):
        score("box_map", ["1 0 0 10 10"], ["1 0 0 10 10"], layout="xywh")


def test_wheat_matching_of_many_duplicates_stays_linear() -> None:
    # 5,000 copies of the one true box: one hit, 4,999 false positives -> 1 / 5000
    pred = " ".join(["0.9 0 0 10 10"] * 5000)
    got = score("box_map", ["1 0 0 10 10"], [pred], form="image_precision", layout="conf_xywh")
    assert got == pytest.approx(1 / 5000)


# --- weighted_auc_tpr on a filtered subset (Flavours of Physics) -------------------------------------


FLAVOURS = {"tpr_thresholds": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], "weights": [2.0, 1.5, 1.0, 0.5, 0.0]}


def test_flavours_weights_and_filter_by_hand() -> None:
    # kept rows (muon > 0.4): truths 1, 0, 1, 0 with scores 0.9, 0.8, 0.3, 0.1. ROC: TPR 0.5 at
    # FPR 0, TPR 0.5 at FPR 0.5, TPR 1 at FPR 0.5, then FPR 1. Band areas (width of FPR where
    # TPR passes each band): bands below 0.5 are covered from FPR 0 -> 0.2 each for [0, 0.2]
    # and [0.2, 0.4]; [0.4, 0.6]: 0.1 over FPR 0-0.5 plus 0.2 * 0.5 -> 0.15; [0.6, 0.8]: 0.2 *
    # 0.5 = 0.1. Weighted: 2 * 0.2 + 1.5 * 0.2 + 1 * 0.15 + 0.5 * 0.1 = 0.9; perfect 0.2 * (2 +
    # 1.5 + 1 + 0.5) = 1.0
    t = [1, 0, 1, 0, 1, 0]
    p = [0.9, 0.8, 0.3, 0.1, 0.0, 1.0]
    muon = [0.5, 0.9, 0.41, 0.6, 0.4, 0.1]  # the last two are not above 0.4
    got = score("weighted_auc_tpr", t, p, filter=muon, filter_above=0.4, **FLAVOURS)
    assert got == pytest.approx(0.9)


def test_flavours_filter_declares_its_column_and_refuses_half_a_filter() -> None:
    metric = get_metric("weighted_auc_tpr")
    assert metric.answers_columns({"filter_column": "min_ANNmuon", "filter_above": 0.4}) == ["min_ANNmuon"]
    with pytest.raises(MetricParameterError):
        score("weighted_auc_tpr", [0, 1], [0.1, 0.9], filter=[1, 1])
    with pytest.raises(MetricParameterError):
        score("weighted_auc_tpr", [0, 1], [0.1, 0.9], filter_above=0.4)
    with pytest.raises(TaskDataError):  # nothing passes
        score("weighted_auc_tpr", [0, 1], [0.1, 0.9], filter=[0.1, 0.2], filter_above=0.4)


# --- balanced_accuracy with groups (Bengali.AI) --------------------------------------------------------


def test_bengali_hierarchical_macro_recall_by_hand() -> None:
    # grapheme_root rows: truths 1 1 2, predictions 1 3 2 -> union classes 1, 2, 3: recalls
    # 1/2, 1, 0 -> 0.5; vowel: truths 0 1 predicted 0 1 -> 1; consonant: truths 0 0 predicted
    # 1 0 -> union 0, 1: recalls 1/2, 0 -> 0.25. Weighted 2:1:1 -> (2 * 0.5 + 1 + 0.25) / 4
    groups = ["grapheme_root"] * 3 + ["vowel_diacritic"] * 2 + ["consonant_diacritic"] * 2
    t = ["1", "1", "2", "0", "1", "0", "0"]
    p = ["1", "3", "2", "0", "1", "1", "0"]
    weights = {"grapheme_root": 2, "vowel_diacritic": 1, "consonant_diacritic": 1}
    got = score("balanced_accuracy", t, p, groups=groups, group_weights=weights, classes="union")
    assert got == pytest.approx((2 * 0.5 + 1 + 0.25) / 4)


def test_balanced_accuracy_union_is_scikit_learn_s_macro_recall() -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(11)
    t = rng.choice(["a", "b", "c"], 60)
    p = rng.choice(["a", "b", "c", "d"], 60)
    with warnings.catch_warnings():  # scikit-learn notes the predicted-only class "d"
        warnings.simplefilter("ignore", UserWarning)
        expected_union = sklearn_metrics.recall_score(t, p, average="macro", zero_division=0)
        expected_true = sklearn_metrics.balanced_accuracy_score(t, p)
    assert score("balanced_accuracy", t, p, classes="union") == pytest.approx(expected_union)
    assert score("balanced_accuracy", t, p) == pytest.approx(expected_true)


def test_balanced_accuracy_groups_refuse_unlisted_groups_without_naming_them() -> None:
    with pytest.raises(TaskDataError) as err:
        score("balanced_accuracy", ["a", "b"], ["a", "b"], groups=["g", "private-group"],
              group_weights={"g": 1})
    assert "private-group" not in str(err.value)
    with pytest.raises(MetricParameterError):
        score("balanced_accuracy", ["a"], ["a"], classes="all")
    with pytest.raises(MetricParameterError):
        score("balanced_accuracy", ["a"], ["a"], groups=["g"], group_weights={"g": -1})
    assert get_metric("balanced_accuracy").answers_columns({"groups_column": "component"}) == ["component"]
