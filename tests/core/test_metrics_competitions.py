"""The metrics of MLE-bench competitions that had none, against values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tambench.core.metrics import get_metric
from tambench.core.metrics.boxes import voc_average_precision
from tambench.core.metrics.geometry import convex_intersection_area, ground_corners, iou_3d
from tambench.core.metrics.probability import band_area, roc_points
from tambench.core.metrics.text import count_inversions
from tambench.errors import InvalidSubmissionError, MetricParameterError, TaskDataError


def score(metric_id: str, y_true, y_pred, **kw) -> float:  # type: ignore[no-untyped-def]
    return get_metric(metric_id)(y_true, y_pred, **kw)


# --- box_map ----------------------------------------------------------------------------------


def test_voc_ap_of_a_hit_a_miss_and_a_late_hit_is_the_area_under_the_precision_envelope() -> None:
    # precision 1, 1/2, 2/3 at recall 1/2, 1/2, 1: envelope 1 then 2/3 -> 0.5 + 0.5 * 2/3
    ap = voc_average_precision(np.array([0.9, 0.8, 0.7]), np.array([True, False, True]), 2)
    assert ap == pytest.approx(0.5 + 0.5 * 2 / 3)


def test_voc_ap_treats_equal_confidences_as_one_step() -> None:
    # tied hit and miss at the top: precision 1/2 at recall 1/2, then 2/3 at recall 1
    ap = voc_average_precision(np.array([0.9, 0.9, 0.5]), np.array([False, True, True]), 2)
    assert ap == pytest.approx(0.5 * 2 / 3 + 0.5 * 2 / 3)


def test_box_map_averages_ap_over_the_classes_of_the_answers_only() -> None:
    truth = ["cat 1 0 0 10 10", "dog 1 0 0 4 4"]
    pred = ["cat 0.9 1 1 10 10 bird 0.8 0 0 3 3", "dog 0.4 0 0 4 4"]
    assert score("box_map", truth, pred) == 1.0  # bird is not a class of the answers


def test_box_map_needs_iou_strictly_above_the_threshold() -> None:
    truth = ["a 1 0 0 2 1"]
    half = ["a 1 1 0 3 1"]  # overlap 1, union 3: IoU 1/3
    assert score("box_map", truth, half, iou_thresholds=[0.3]) == 1.0
    assert score("box_map", truth, half, iou_thresholds=[1 / 3]) == 0.0


def test_box_map_counts_a_second_detection_of_the_same_box_as_a_false_positive() -> None:
    truth = ["a 1 0 0 10 10"]
    pred = ["a 0.9 0 0 10 10 a 0.8 0 0 10 10"]
    assert score("box_map", truth, pred) == 1.0  # the duplicate comes after recall is complete
    pred = ["a 0.8 0 0 10 10 a 0.9 0 0 10 10"]
    assert score("box_map", truth, pred) == 1.0
    # a duplicate ranked above the hit of another image costs precision
    truth2 = ["a 1 0 0 10 10", "a 1 0 0 10 10"]
    pred2 = ["a 0.9 0 0 10 10 a 0.8 0 0 10 10", "a 0.7 0 0 10 10"]
    assert score("box_map", truth2, pred2) == pytest.approx(0.5 + 0.5 * 2 / 3)


def test_vinbigdata_no_finding_is_class_14_with_a_one_pixel_box() -> None:
    truth = ["14 1 0 0 1 1", "3 1 10 10 50 50"]
    pred = ["14 1 0 0 1 1", "3 0.6 12 12 50 50 14 0.2 0 0 1 1"]
    # class 14: hit at 1.0, false positive at 0.2 -> AP 1; class 3: IoU 1444/1600 > 0.4 -> AP 1
    assert score("box_map", truth, pred, iou_thresholds=[0.4]) == 1.0
    assert score("box_map", truth, ["", "3 0.6 12 12 50 50"], iou_thresholds=[0.4]) == 0.5


def test_box_map_image_precision_form_is_tp_over_tp_fp_fn_per_image() -> None:
    truth = ["a 1 0 0 10 10 a 1 20 20 30 30", ""]
    pred = ["a 0.9 0 0 10 10 a 0.5 50 50 60 60", ""]
    # image 1: TP 1, FP 1, FN 1 -> 1/3 at every threshold; image 2 (nothing) is not scored
    assert score("box_map", truth, pred, form="image_precision") == pytest.approx(1 / 3)
    assert score("box_map", ["", "a 1 0 0 1 1"], ["a 1 0 0 1 1", "a 1 0 0 1 1"],
                 form="image_precision") == 0.5


def test_box_map_refuses_malformed_cells_naming_row_and_token() -> None:
    with pytest.raises(InvalidSubmissionError, match=r"row 2: token 3 'x' is not a number"):
        score("box_map", ["a 1 0 0 1 1", "a 1 0 0 1 1"], ["", "a 1 x 0 1 1"])
    with pytest.raises(InvalidSubmissionError, match="not a finite number"):
        score("box_map", ["a 1 0 0 1 1"], ["a nan 0 0 1 1"])
    with pytest.raises(InvalidSubmissionError, match="below x_min"):
        score("box_map", ["a 1 0 0 1 1"], ["a 1 5 0 1 1"])
    with pytest.raises(InvalidSubmissionError, match="whole number of objects"):
        score("box_map", ["a 1 0 0 1 1"], ["a 1 0 0 1"])


def test_box_map_with_no_object_in_the_answers_is_a_task_data_error() -> None:
    with pytest.raises(TaskDataError, match="no object"):
        score("box_map", ["", ""], ["a 1 0 0 1 1", ""])


# --- box3d_map --------------------------------------------------------------------------------


def test_rotated_rectangles_share_the_clipped_area() -> None:
    square = ground_corners(np.array([0, 0, 0, 2.0, 2.0, 1, 0]))
    diamond = ground_corners(np.array([0, 0, 0, 2.0, 2.0, 1, math.pi / 4]))
    # a unit-half-side square and the same square turned 45 degrees share a regular octagon
    octagon = 8 * (math.sqrt(2) - 1)
    assert convex_intersection_area(square, diamond) == pytest.approx(octagon)


def test_iou_3d_multiplies_ground_overlap_by_height_overlap() -> None:
    a = np.array([[0, 0, 0, 2, 2, 2, 0.0]])
    b = np.array([[0, 0, 1, 2, 2, 2, 0.0]])  # half the height overlaps: 4 / (8 + 8 - 4)
    assert iou_3d(a, b)[0, 0] == pytest.approx(1 / 3)
    far = np.array([[10, 0, 0, 2, 2, 2, 0.0]])
    assert iou_3d(a, far)[0, 0] == 0.0
    # yaw by pi: the same box
    assert iou_3d(a, a + [0, 0, 0, 0, 0, 0, math.pi])[0, 0] == pytest.approx(1.0)


def test_box3d_map_averages_over_the_sweep_and_the_classes() -> None:
    car = "1 0 0 0 2 4 2 0 car"
    ped = "1 30 30 0 1 1 2 0 pedestrian"
    shifted = "0.9 0.5 0 0 2 4 2 0 car"  # IoU 14/18 = 0.778: hits at 0.50..0.75 (6 of 10)
    assert score("box3d_map", [f"{car} {ped}"], [f"{shifted} {ped}"]) == pytest.approx((0.6 + 1) / 2)
    assert score("box3d_map", [car], [""]) == 0.0


def test_box3d_map_refuses_a_non_positive_size() -> None:
    with pytest.raises(InvalidSubmissionError, match="must be > 0"):
        score("box3d_map", ["1 0 0 0 2 4 2 0 car"], ["1 0 0 0 2 0 2 0 car"])


# --- point_in_box_f1 --------------------------------------------------------------------------


def test_point_in_box_needs_the_label_and_a_point_strictly_inside() -> None:
    truth = ["U+003F 1 1 10 10"]
    assert score("point_in_box_f1", truth, ["U+003F 3 3"]) == 1.0
    assert score("point_in_box_f1", truth, ["U+003F 11 3"]) == 0.0  # on the edge: outside
    assert score("point_in_box_f1", truth, ["U+0041 3 3"]) == 0.0


def test_point_in_box_uses_each_prediction_once_and_pools_rows() -> None:
    truth = ["A 0 0 10 10 A 0 0 10 10", "B 0 0 5 5"]
    pred = ["A 5 5", "B 1 1 B 2 2"]
    # row 1: TP 1, FN 1; row 2: TP 1, FP 1 -> 2 * 2 / (4 + 1 + 1)
    assert score("point_in_box_f1", truth, pred) == pytest.approx(4 / 6)


def test_point_in_box_scores_the_centres_of_the_true_boxes_best() -> None:
    from tambench.core.metrics import get_metric

    perfect = get_metric("point_in_box_f1").perfect
    assert perfect is not None and get_metric("rmse").perfect is None
    truth = ["A 0 0 1 1 B 10 20 3 4", "C 5 5 2 2"]
    assert perfect(truth[0]) == "A 0.5 0.5 B 11.5 22"
    assert score("point_in_box_f1", truth, [perfect(t) for t in truth]) == 1.0


def test_point_in_box_refuses_more_predictions_than_the_page_limit() -> None:
    with pytest.raises(InvalidSubmissionError, match="more than the 2 allowed"):
        score("point_in_box_f1", ["A 0 0 1 1"], ["A 0.5 0.5 A 0.5 0.5 A 0.5 0.5"], max_per_row=2)


# --- orders, spans, text, sets ------------------------------------------------------------------


def test_inversions_count_adjacent_swaps() -> None:
    assert count_inversions([2, 0, 1]) == 2
    assert count_inversions(list(range(50))[::-1]) == 50 * 49 // 2


def test_kendall_tau_orders_sums_swaps_before_dividing() -> None:
    # 1 swap of 3 items and 0 of 2: 1 - 4 * 1 / (6 + 2)
    assert score("kendall_tau_orders", ["a b c", "x y"], ["b a c", "x y"]) == 0.5
    assert score("kendall_tau_orders", ["a b c d"], ["d c b a"]) == -1.0


def test_kendall_tau_orders_refuses_an_order_that_is_not_a_permutation() -> None:
    with pytest.raises(InvalidSubmissionError, match="misses 1 item"):
        score("kendall_tau_orders", ["a b c"], ["a b"])
    with pytest.raises(InvalidSubmissionError, match="repeats 'a'"):
        score("kendall_tau_orders", ["a b c"], ["a a b c"])
    with pytest.raises(InvalidSubmissionError, match="unknown item"):
        score("kendall_tau_orders", ["a b"], ["a z"])


def test_span_f1_counts_a_wrong_answer_as_a_false_positive_only() -> None:
    truth = ["6:18 7:9", "YES", "", "3:4"]
    pred = ["7:9", "3:4", "1:2", ""]
    # TP 1 (any acceptable span), FP 2 (wrong answer, answer where none exists), FN 1
    assert score("span_micro_f1", truth, pred) == pytest.approx(2 / 5)
    assert score("span_micro_f1", ["", ""], ["", ""]) == 1.0


def test_span_f1_refuses_malformed_answers() -> None:
    with pytest.raises(InvalidSubmissionError, match="is not start:end, YES or NO"):
        score("span_micro_f1", ["1:2"], ["yes"])
    with pytest.raises(InvalidSubmissionError, match="2 answers"):
        score("span_micro_f1", ["1:2"], ["1:2 3:4"])


def test_levenshtein_mean_is_the_raw_distance_per_row() -> None:
    assert score("levenshtein_mean", ["kitten", "abc", ""], ["sitting", "abc", "xy"]) == 5 / 3


def test_levenshtein_mean_refuses_a_cell_over_the_length_limit() -> None:
    with pytest.raises(InvalidSubmissionError, match="at most 5"):
        score("levenshtein_mean", ["abc"], ["abcdef"], max_length=5)
    with pytest.raises(MetricParameterError):
        score("levenshtein_mean", ["abc"], ["abc"], max_length=0)


def test_multilabel_micro_f1_counts_labels_absent_from_the_answers_as_false_positives() -> None:
    # TP 1, FP 2 (7 and 9 never occur in the answers), FN 1
    assert score("f1_micro_multilabel", ["1 2", ""], ["1 7", "9"]) == pytest.approx(2 / 5)


# --- columns, trips -----------------------------------------------------------------------------


def test_spearman_columnwise_leaves_out_constant_answer_columns() -> None:
    t = [[1, 5, 1], [2, 5, 2], [3, 5, 3]]
    p = [[1, 1, 3], [2, 2, 2], [3, 3, 1]]
    assert score("spearman_columnwise", t, p) == 0.0  # (1 + -1) / 2; column 2 left out
    with pytest.raises(TaskDataError, match="left out"):
        score("spearman_columnwise", [[1], [1]], [[1], [2]])


def test_rmsle_columnwise_is_the_mean_of_two_column_rmsles() -> None:
    t = [[0.0, math.e - 1], [0.0, math.e - 1]]
    p = [[0.0, 0.0], [0.0, 0.0]]
    assert score("rmsle_columnwise", t, p) == pytest.approx(0.5)
    with pytest.raises(InvalidSubmissionError, match="> -1"):
        score("rmsle_columnwise", t, [[0.0, -1.0], [0.0, 0.0]])


def test_haversine_p50_p95_averages_the_two_percentiles_per_trip_then_trips() -> None:
    one_mdeg = 6_371_000 * math.radians(0.001)
    t = [[0.0, 0.0]] * 5
    p = [[0.0, 0.0], [0.0, 0.001], [0.0, 0.002], [0.0, 0.003], [0.0, 0.0]]
    groups = ["a", "a", "a", "b", "b"]
    # trip a errors 0, 1, 2 (x one_mdeg): p50 1, p95 1.9; trip b errors 3, 0: p50 1.5, p95 2.85
    expected = ((1 + 1.9) / 2 + (1.5 + 2.85) / 2) / 2 * one_mdeg
    assert score("haversine_p50_p95", t, p, groups=groups) == pytest.approx(expected, rel=1e-6)


# --- weighted log loss ------------------------------------------------------------------------------


def test_rsna_cervical_weights_depend_on_label_and_truth() -> None:
    weights = {"C1": 1, "patient_overall": 7}
    positive = {"C1": 2, "patient_overall": 14}
    t = [1, 0, 0, 1]
    p = [0.5, 0.5, 0.5, 0.5]
    labels = ["C1", "patient_overall", "C1", "patient_overall"]
    # every cell loses ln 2: any weighting of equal losses gives ln 2
    got = score("weighted_multilabel_log_loss", t, p, weights=weights, positive_weights=positive,
                labels=labels)
    assert got == pytest.approx(math.log(2))
    p2 = [0.9, 0.5, 0.5, 0.5]
    expected = (2 * -math.log(0.9) + (7 + 1 + 14) * math.log(2)) / (2 + 7 + 1 + 14)
    assert score("weighted_multilabel_log_loss", t, p2, weights=weights,
                 positive_weights=positive, labels=labels) == pytest.approx(expected)
    # per exam, then the mean over exams
    per_exam = ((2 * -math.log(0.9) + 7 * math.log(2)) / 9 + math.log(2)) / 2
    assert score("weighted_multilabel_log_loss", t, p2, weights=weights,
                 positive_weights=positive, labels=labels,
                 groups=["e1", "e1", "e2", "e2"]) == pytest.approx(per_exam)


def test_weighted_log_loss_names_a_label_without_a_weight() -> None:
    with pytest.raises(MetricParameterError, match="'C9'"):
        score("weighted_multilabel_log_loss", [1], [0.5], weights={"C1": 1}, labels=["C9"])


# --- AUC variants, probabilistic F1 -------------------------------------------------------------


def test_band_areas_of_the_diagonal_roc_curve() -> None:
    fpr, tpr = np.array([0.0, 1.0]), np.array([0.0, 1.0])
    assert band_area(fpr, tpr, 0.0, 0.4) == pytest.approx(0.4**2 / 2 + 0.4 * 0.6)
    assert band_area(fpr, tpr, 0.4, 1.0) == pytest.approx(0.6**2 / 2)


def test_weighted_auc_of_a_chance_classifier_weights_the_low_band_double() -> None:
    y = np.array([0, 1] * 50)
    s = np.zeros(100)  # every score tied: the diagonal
    expected = (2 * 0.32 + 0.18) / (2 * 0.4 + 0.6)
    assert score("weighted_auc_tpr", y, s) == pytest.approx(expected)
    fpr, tpr = roc_points(y == 1, s)
    assert fpr.tolist() == [0.0, 1.0] and tpr.tolist() == [0.0, 1.0]


def test_weighted_auc_with_one_band_is_the_plain_auc() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    s = np.round(rng.random(200), 1)
    plain = score("roc_auc", y, s)
    assert score("weighted_auc_tpr", y, s, tpr_thresholds=[0, 1], weights=[1]) == pytest.approx(plain)


def test_jigsaw_score_combines_overall_and_power_means_with_quarter_weights() -> None:
    tox = [0.9, 0.1, 0.7, 0.0, 0.8, 0.2]
    scores = [0.9, 0.3, 0.2, 0.1, 0.8, 0.4]
    ids = [[1], [1], [1], [0], [0], [0]]
    # overall: pos {.9,.2,.8} vs neg {.3,.1,.4}: 7/9. subgroup rows 0-2: pos {.9,.2} neg {.3}: 1/2.
    # BPSN: neg in subgroup {.3}, pos outside {.8}: 1. BNSP: pos in subgroup {.9,.2}, neg outside
    # {.1,.4}: 3/4. One identity: each power mean is the value itself.
    expected = 0.25 * (7 / 9 + 1 / 2 + 1 + 3 / 4)
    assert score("jigsaw_bias_auc", tox, scores, identities=ids) == pytest.approx(expected)


def test_jigsaw_identities_left_empty_mean_not_mentioned() -> None:
    ids = np.array([["0.9"], [""], ["1.0"], ["nan"]], dtype=object)
    got = score("jigsaw_bias_auc", [1, 0, 0, 1], [0.9, 0.1, 0.2, 0.8], identities=ids)
    assert got == 1.0


def test_probabilistic_f1_uses_probability_mass() -> None:
    # pTP 0.5 + 0.5, pFP 1.0: precision 1/2, recall 1/2
    assert score("probabilistic_f1", [1, 1, 0], [0.5, 0.5, 1.0]) == pytest.approx(0.5)
    assert score("probabilistic_f1", [1, 0], [0.0, 0.0]) == 0.0
    with pytest.raises(TaskDataError, match="no positive"):
        score("probabilistic_f1", [0, 0], [0.1, 0.2])


# --- pixel F-beta, Dice + Hausdorff -------------------------------------------------------------


def test_rle_f_beta_weights_precision_over_recall() -> None:
    # truth 10 pixels, prediction 5 of them: p 1, r 0.5 -> 1.25 * 0.5 / (0.25 + 0.5)
    assert score("rle_f_beta", ["1 10"], ["1 5"]) == pytest.approx(1.25 * 0.5 / 0.75)
    # prediction 20 pixels holding the 10: p 0.5, r 1 -> 1.25 * 0.5 / (0.125 + 1)
    assert score("rle_f_beta", ["1 10"], ["1 20"]) == pytest.approx(1.25 * 0.5 / 1.125)
    assert score("rle_f_beta", ["", "1 10"], ["", "1 5"], average="pooled") == pytest.approx(1.25 * 0.5 / 0.75)


def test_dice_hausdorff_normalises_by_the_volume_diagonal() -> None:
    ids = ["c1_day1_slice_0001", "c1_day1_slice_0002"]
    classes = ["stomach", "stomach"]
    # 4x4 slices, column-major numbering: pixel 1 is (0, 0), pixel 4 is (3, 0)
    truth = ["1 1", ""]
    pred = ["4 1", ""]
    hd = 3 / math.sqrt(2**2 + 4**2 + 4**2)
    expected = 0.4 * 0.0 + 0.6 * (1 - hd)
    got = score("dice_hausdorff_3d", truth, pred, ids=ids, classes=classes, height=[4, 4],
                width=[4, 4])
    assert got == pytest.approx(expected)
    # row-major numbering puts pixel 4 at (0, 3): the same distance on a square image
    assert score("dice_hausdorff_3d", truth, pred, ids=ids, classes=classes, height=[4, 4],
                 width=[4, 4], order="C") == pytest.approx(expected)


def test_dice_hausdorff_scores_one_empty_side_as_the_largest_distance() -> None:
    ids = ["c1_day1_slice_0001", "c2_day1_slice_0001"]
    got = score("dice_hausdorff_3d", ["1 2", "1 2"], ["1 2", ""], ids=ids, classes=["a", "a"],
                height=[2, 2], width=[2, 2])
    # dice: rows 1 (exact) and 0; hausdorff: volume c1 at 0, volume c2 at 1
    assert got == pytest.approx(0.4 * 0.5 + 0.6 * (1 - 0.5))


def test_dice_hausdorff_refuses_an_id_without_a_slice_number() -> None:
    with pytest.raises(TaskDataError, match="slice number"):
        score("dice_hausdorff_3d", ["1 1"], ["1 1"], ids=["case1"], classes=["a"], height=[2],
              width=[2])


def test_every_mlebench_competition_without_a_metric_now_has_one() -> None:
    from tambench.core.metrics import METRICS
    from tambench.core.metrics.reference import METRIC_USAGE

    wanted = {
        "box_map": ["siim-covid19-detection", "vinbigdata-chest-xray-abnormalities-detection"],
        "box3d_map": ["3d-object-detection-for-autonomous-vehicles"],
        "kendall_tau_orders": ["AI4Code"],
        "weighted_auc_tpr": ["alaska2-image-steganalysis"],
        "levenshtein_mean": ["billion-word-imputation", "bms-molecular-translation"],
        "spearman_columnwise": ["google-quest-challenge"],
        "f1_micro_multilabel": ["imet-2020-fgvc7"],
        "jigsaw_bias_auc": ["jigsaw-unintended-bias-in-toxicity-classification"],
        "point_in_box_f1": ["kuzushiji-recognition"],
        "rmsle_columnwise": ["nomad2018-predict-transparent-conductors"],
        "weighted_multilabel_log_loss": ["rsna-2022-cervical-spine-fracture-detection"],
        "probabilistic_f1": ["rsna-breast-cancer-detection"],
        "haversine_p50_p95": ["smartphone-decimeter-2022"],
        "span_micro_f1": ["tensorflow2-question-answering"],
        "dice_hausdorff_3d": ["uw-madison-gi-tract-image-segmentation"],
        "rle_f_beta": ["vesuvius-challenge-ink-detection"],
    }
    assert sum(len(v) for v in wanted.values()) == 18
    for metric_id, competitions in wanted.items():
        assert metric_id in METRICS
        assert set(competitions) <= set(METRIC_USAGE[metric_id])
