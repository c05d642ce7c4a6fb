"""Families with several registered variants: the text settles which one, or the metric stays
empty with the reason. Never a wrong member picked silently.

The pages are written for the tests in the layouts real competition pages use (an Evaluation
section, a Submission File section with an example, a data section listing columns).
"""

from __future__ import annotations

from typing import Any

import pytest

from tambench.core.metrics import METRICS
from tambench.schema.mapping import MappingResult, map_pages


def _page(evaluation: str, header: str = "id,target", rows: str = "1,0\n2,1", *,
          data: str = "", submission: str = "") -> str:
    data_part = f"## Data\n\n{data}\n\n" if data else ""
    return (f"## Overview\n\nA competition.\n\n## Evaluation\n\n{evaluation}\n\n"
            f"## Submission File\n\n{submission}The file should have the following format:\n\n"
            f"```\n{header}\n{rows}\n```\n\n{data_part}")


def _map(text: str) -> MappingResult:
    return map_pages({"all": text}, task_id="kaggle/families")


def _metric(result: MappingResult) -> tuple[str, dict[str, Any]]:
    g = result.spec.grading
    if g is None:
        return "", {}
    return g.metric, METRICS[g.metric].resolve_params(g.metric_params)


def _is(result: MappingResult, metric_id: str, **params: Any) -> None:
    assert _metric(result) == (metric_id, METRICS[metric_id].resolve_params(params))


def _empty(result: MappingResult, words: str) -> None:
    assert result.spec.grading is None
    pending = result.spec.provenance.pending_grading
    assert pending is not None and words in pending.reason, pending


# --- pixel F-beta written as a modified Dice ------------------------------------------------------


def test_a_dice_that_uses_f05_over_run_length_masks_is_rle_f_beta() -> None:
    page = _page("We compare your mask with ours using a variant of the Sorensen-Dice "
                 "coefficient in which the F0.5 score takes the place of the F1 score. Masks are "
                 "submitted run-length encoded.", "Id,Predicted", "a,1 5 9 2")
    _is(_map(page), "rle_f_beta", beta=0.5)


def test_an_f2_of_mask_objects_over_iou_thresholds_is_mask_object_fbeta() -> None:
    page = _page("Scoring uses the F2 score at IoU thresholds that range from 0.5 to 0.95 with "
                 "a step size of 0.05; ship masks are run-length encoded.", "ImageId,EncodedPixels",
                 "a.jpg,1 3")
    _is(_map(page), "mask_object_fbeta", beta=2.0,
        thresholds=[0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95])


# --- micro F1 over sets, single labels, spans -------------------------------------------------


def test_micro_f1_over_label_sets_is_the_multilabel_id() -> None:
    _is(_map(_page("Submissions are scored on their micro averaged F1 score.", "id,attribute_ids",
                   "ab12,0 1 2\ncd34,7 13 51")), "f1_micro_multilabel")


def test_micro_f1_over_one_label_per_row_is_f1_micro() -> None:
    _is(_map(_page("Submissions are scored on their micro averaged F1 score.", "id,species",
                   "1,maize\n2,wheat")), "f1_micro")


def test_micro_f1_over_answer_spans_is_span_micro_f1() -> None:
    page = _page("Submissions are evaluated using micro F1 between predicted and expected "
                 "answers: a long or short answer must equal the token indices of a true answer, "
                 "start:end, or YES / NO.", "example_id,PredictionString", "-7_long,6:18")
    _is(_map(page), "span_micro_f1")


def test_micro_f1_over_character_indices_is_char_span_micro_f1() -> None:
    page = _page("Scoring uses a micro-averaged F1 score. Each character index inside a true and "
                 "a predicted span counts as a true positive.", "id,location", "1,0 3;5 9")
    _is(_map(page), "char_span_micro_f1")


def test_f1_over_spans_matched_some_other_way_is_left_empty() -> None:
    page = _page("Submissions are scored on the F1 score of predicted spans that overlap a true "
                 "span by half.", "id,predictionstring", "1,4 5 6")
    _empty(_map(page), "spans whose matching")


# --- the mean absolute error and its weighted and transformed forms ----------------------------

_STEPS = "- delta: the number of steps between the start board and the stop board"


def test_mae_of_boards_stepped_forward_is_game_of_life_mae() -> None:
    page = _page("You are scored on the mean absolute error of your start boards, stepped "
                 "forward by the given number of steps and compared with the stop boards of "
                 "the Game of Life.", "id,start_0,start_1", "1,0,1", data=_STEPS)
    _is(_map(page), "game_of_life_mae", delta_column="delta")


def test_mae_of_transformed_predictions_without_a_steps_column_is_left_empty() -> None:
    page = _page("Scores are the mean absolute error of your predictions stepped forward by "
                 "the specified steps.", "id,start_0", "1,0")
    _empty(_map(page), "transformed before the comparison")
    _empty(_map(page.replace("specified steps.", "specified steps of the Game of Life.")),
           "no listed column holds")


def test_mae_weighted_by_a_named_column_is_weighted_mae() -> None:
    page = _page("Submissions are scored on mean absolute error. Every row will be weighted as "
                 "given by the weight column.", "id,price", "1,10.5",
                 data="- weight: the row's weight in the score")
    _is(_map(page), "weighted_mae", weights_column="weight", divide_by="weights")


def test_a_weight_rule_on_a_boolean_column_becomes_a_weight_map() -> None:
    page = _page("Submissions are evaluated on the weighted mean absolute error: WMAE = "
                 "\\frac{1}{\\sum w_i} \\sum w_i |y_i - p_i|, with w = 5 if the week is a "
                 "holiday week, 1 otherwise.", "Id,Weekly_Sales", "1_1,0",
                 data="train.csv holds the fields Store, Dept, Date and IsHoliday.")
    _is(_map(page), "weighted_mae", weights_column="IsHoliday",
        weight_map={"True": 5.0, "False": 1.0}, divide_by="weights")


def test_weights_spread_over_several_columns_leave_the_metric_empty() -> None:
    page = _page("Submissions are evaluated using the Weighted Mean Absolute Error, WMAE = "
                 "\\frac{1}{n} \\sum w_i |y_i - p_i|, where w_i is Weight_A or Weight_B by the "
                 "kind of return.", "Id,Predicted", "1_1,0")
    _empty(_map(page), "weighted mean absolute error whose weights")


# --- detections: the form and the layout of boxes --------------------------------------------------

_PRECISION = ("This competition is evaluated on the mean average precision at IoU thresholds "
              "that range from 0.5 to 0.75 with a step size of 0.05. At each threshold the "
              "precision of an image is TP(t) / (TP(t) + FP(t) + FN(t)).")


def test_box_image_precision_over_unlabelled_boxes_is_not_the_class_ap_default() -> None:
    page = _page(_PRECISION + " Each bounding box is a confidence, then x and y, then a width "
                 "and height.", "image_id,PredictionString", "a1,0.5 0 0 50 50\nb2,")
    _is(_map(page), "box_map", form="image_precision", layout="conf_xywh",
        iou_thresholds=[0.5, 0.55, 0.6, 0.65, 0.7, 0.75])


def test_pascal_voc_map_of_labelled_corners_is_class_ap() -> None:
    page = _page("We use the PASCAL VOC 2010 mean average precision at IoU > 0.4. Each bounding "
                 "box is a class id, a confidence and xmin ymin xmax ymax.", "ID,TARGET",
                 "a1,3 0.5 10 10 20 20")
    _is(_map(page), "box_map", form="class_ap", layout="label_conf_xyxy", iou_thresholds=[0.4])


def test_box_map_without_a_stated_form_is_left_empty() -> None:
    page = _page("Submissions are scored on the mean average precision at IoU > 0.5 of the "
                 "bounding boxes.", "ID,TARGET", "a1,3 0.5 10 10 20 20")
    _empty(_map(page), "whose form")


def test_box_map_without_a_stated_layout_is_left_empty() -> None:
    _empty(_map(_page(_PRECISION + " Predict bounding boxes.", "image_id,PredictionString",
                      "a1,0.5 0 0 50 50 0.2")), "layout")


# --- the grouping column -----------------------------------------------------------------------

_PERCENTILES = ("Submissions are scored on the mean of the 50th and 95th percentile distance "
                "errors between predicted and true latitude and longitude.")


def test_the_grouping_column_is_the_id_column_the_text_pairs_with_the_unit() -> None:
    page = _page(_PERCENTILES + " The errors are averaged for every phone.",
                 "tripId,UnixTimeMillis,LatitudeDegrees,LongitudeDegrees",
                 "t1,1,37.1,-122.1\nt1,2,37.1,-122.1",
                 submission="For each phone and UnixTimeMillis in the sample file, predict the "
                            "position. ")
    _is(_map(page), "haversine_p50_p95", groups_column="tripId")


def test_a_unit_no_column_holds_leaves_the_metric_empty() -> None:
    page = _page(_PERCENTILES + " The errors are averaged for every phone.",
                 "tripId,UnixTimeMillis,LatitudeDegrees,LongitudeDegrees",
                 "t1,1,37.1,-122.1\nt1,2,37.1,-122.1")
    _empty(_map(page), "computed per phone")


def test_a_unit_named_as_a_column_is_that_column() -> None:
    page = _page(_PERCENTILES + " The errors are averaged for every phone.",
                 "phone,UnixTimeMillis,LatitudeDegrees,LongitudeDegrees",
                 "p1,1,37.1,-122.1\np1,2,37.1,-122.1")
    _is(_map(page), "haversine_p50_p95", groups_column="phone")


def test_a_unit_of_a_row_keyed_submission_names_the_answers_column() -> None:
    page = _page("Submissions are evaluated on the Log of the Mean Absolute Error, computed for "
                 "each coupling type, then averaged over the types.", "id,constant", "1,0.5")
    _is(_map(page), "mean_log_mae", groups_column="type")


def test_macro_recall_per_weighted_group_names_groups_and_weights() -> None:
    page = _page("Submissions are scored with a hierarchical macro-averaged recall, calculated "
                 "for each component (root, vowel). The final score is the weighted average:\n\n"
                 "```\nfor part in ['root', 'vowel']:\n    s.append(recall_score(t, p, "
                 "average='macro'))\nfinal = np.average(s, weights=[2,1])\n```",
                 "row_id,target", "Test_0_root,3")
    _is(_map(page), "balanced_accuracy", groups_column="component", classes="union",
        group_weights={"root": 2.0, "vowel": 1.0})


# --- rankings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("extra", "relevant"), [
    ("If the correct label is A for a row, the prediction A B C scores 1.", "single"),
    ("MAP@3 = \\frac{1}{U} \\sum_u \\frac{1}{min(m, 3)} \\sum_k P(k) rel(k), m being the number "
     "of ground truth values per row.", "multiple"),
    ("", None),
])
def test_map_at_k_takes_the_relevance_the_page_states(extra: str, relevant: str | None) -> None:
    result = _map(_page(f"Submissions are evaluated on MAP@3. {extra}", "id,labels", "1,A B C"))
    params = {"k": 3} | ({"relevant": relevant} if relevant else {})
    assert result.spec.grading is not None and result.spec.grading.metric_params == params


def test_ndcg_at_k_with_one_relevant_item() -> None:
    page = _page("The evaluation metric is NDCG @k where k=5. The true country is marked with "
                 "relevance = 1, while the rest have relevance = 0.", "id,country", "a,FR")
    _is(_map(page), "ndcg_at_k", k=5)


def test_ndcg_with_graded_relevance_is_left_empty() -> None:
    page = _page("The evaluation metric is NDCG @k where k=10, with graded relevance from 0 to "
                 "3.", "id,items", "a,x y")
    _empty(_map(page), "relevance")


def test_spearman_per_row_of_orders_is_spearman_orders() -> None:
    page = _page("Submissions are evaluated on the mean Spearman correlation, computed for each "
                 "set of five images.", "setId,day", "1,1 2 3 4 5\n2,5 4 3 2 1")
    _is(_map(page), "spearman_orders")


# --- probabilities, accuracy, Gini ---------------------------------------------------------------


def test_log_loss_with_eps_auto_clips_at_machine_epsilon() -> None:
    page = _page('Submissions are evaluated on the log loss (with "eps=auto") over the three '
                 "classes.", "id,a,b,c", "1,0.3,0.3,0.4")
    _is(_map(page), "multiclass_log_loss", eps=2.220446049250313e-16)


def test_accuracy_of_free_text_is_exact_match() -> None:
    page = _page("Submissions are evaluated on accuracy: the predicted and true strings must "
                 "match exactly.", "id,after", "0_0,the")
    _is(_map(page), "exact_match")
    _is(_map(_page("Submissions are evaluated on classification accuracy.", "id,label",
                   "1,cat")), "accuracy")


def test_only_a_normalised_gini_is_normalized_gini() -> None:
    _is(_map(_page("Submissions are evaluated on the normalized Gini coefficient.")),
        "normalized_gini")
    _empty(_map(_page("Submissions are evaluated on the Gini index.")), "not say is normalised")


def test_weighted_auc_in_prose_with_a_row_filter_and_extra_checks() -> None:
    page = _page("The evaluation metric is the Weighted Area Under the ROC Curve: the area with "
                 "TPR in [0., 0.5] by weight 2.0, the area with TPR [0.5, 0.8] with weight 1.0. "
                 "Anything above a TPR of 0.8 has weight 0. The score is calculated only for "
                 "events with quality > 0.4. Predictions must also pass two checks: an agreement "
                 "test and a correlation test.", "id,prediction", "1,0.3")
    result = _map(page)
    _is(result, "weighted_auc_tpr", tpr_thresholds=[0.0, 0.5, 0.8, 1.0],
        weights=[2.0, 1.0, 0.0], filter_column="quality", filter_above=0.4)
    assert any("checks the metric does not run" in n for n in result.spec.provenance.notes)
