"""The offline mapper knows what it does not know: pages written for the tests, one per class of
miss seen on texts the rules were not written against.

Each page states its metric the way real pages do. The expected id is the one that computes the
page's metric exactly; when that id is not registered in this installation the metric must stay
empty, naming the id and saying it is not registered; when no id computes it, the metric stays
empty with the reason. A registered neighbour is never an acceptable answer.
"""

from __future__ import annotations

import pytest

from tambench.core.metrics import METRICS
from tambench.schema.mapping import MappingResult, map_pages, submission_header_of


def _map(text: str) -> MappingResult:
    return map_pages({"all": text}, task_id="kaggle/probe")


def _page(evaluation: str, header: str = "id,target", rows: str = "1,0\n2,1") -> str:
    return (f"## Overview\n\nA competition.\n\n## Evaluation\n\n{evaluation}\n\n"
            f"## Submission File\n\nThe file should have the following format:\n\n```\n{header}\n"
            f"{rows}\n```\n")


def assert_exact(result: MappingResult, metric_id: str, params: dict[str, object] | None = None
                 ) -> None:
    """The page's metric is ``metric_id``: filled when registered, else empty and named."""
    g = result.spec.grading
    pending = result.spec.provenance.pending_grading
    if metric_id in METRICS:
        assert g is not None and g.metric == metric_id
        if params is not None:
            assert g.metric_params == params
        return
    assert g is None, f"a registered id {g.metric if g else ''} replaced {metric_id}"
    assert pending is not None and pending.metric_id == metric_id
    assert pending.reason == f"metric {metric_id} is not registered"
    assert result.spec.status == "incomplete"
    assert any(f"metric {metric_id} is not registered" in n
               for n in result.spec.provenance.notes)


def assert_none(result: MappingResult, words: str) -> None:
    """No metric id computes the page's metric: empty, with the reason naming it."""
    assert result.spec.grading is None
    pending = result.spec.provenance.pending_grading
    assert pending is not None and pending.metric_id == ""
    assert words in pending.reason and "no metric id computes it" in pending.reason
    assert result.spec.metric.metric_name  # the page's own name for it is kept
    assert "grading.metric" in result.unfilled


# --- metrics the registry lacks are never replaced by a neighbour -----------------------------


@pytest.mark.parametrize(("evaluation", "header", "rows", "metric_id"), [
    ("Submissions are evaluated on the Kendall tau correlation between predicted cell orders "
     "and ground truth cell orders.", "id,cell_order", "a1,c3 c1 c2", "kendall_tau_orders"),
    ("This competition is evaluated by a micro-averaged F1 score over character spans: for each "
     "instance we predict a set of character spans.", "id,location", "00016_000,0 10;20 25",
     "char_span_micro_f1"),
    ("The metric combines the overall AUC with three per-identity Bias AUCs (subgroup AUC, BPSN "
     "and BNSP), averaged with a generalized mean.", "id,prediction", "7000000,0.5",
     "jigsaw_bias_auc"),
    ("Submissions are scored on the mean column-wise root mean squared logarithmic error.",
     "ForecastId,ConfirmedCases,Fatalities", "1,10,0", "rmsle_columnwise"),
    ("The challenge uses the standard PASCAL VOC 2010 mean Average Precision (mAP) at IoU > "
     "0.5. For each object predict a bounding box xmin ymin xmax ymax.", "Id,PredictionString",
     "a_image,opacity 0.5 0 0 1 1", "box_map"),
    ("Submissions are evaluated on the mean column-wise Spearman's correlation coefficient.",
     "qa_id,q1,q2", "6,0.1,0.2", "spearman_columnwise"),
    ("Submissions are evaluated using the probabilistic F1 score (pF1).", "prediction_id,cancer",
     "0-L,0.5", "probabilistic_f1"),
    ("Submissions are scored on the mean of the 50th and 95th percentile distance errors "
     "between predicted and true latitude/longitude, computed for every phone.",
     "phone,ts,lat,lng", "p,1,1.0,2.0", "haversine_p50_p95"),
    ("Submissions are evaluated on the mean Levenshtein distance between predicted and true "
     "strings.", "image_id,InChI", "1,InChI=1S", "levenshtein_mean"),
])
def test_a_metric_the_registry_may_lack_is_named_never_replaced(
        evaluation: str, header: str, rows: str, metric_id: str) -> None:
    assert_exact(_map(_page(evaluation, header, rows)), metric_id)


@pytest.mark.parametrize(("evaluation", "header", "rows", "words"), [
    ("Submissions are evaluated on the weighted mean absolute error (WMAE).", "Id,Weekly_Sales",
     "1_1,0", "weighted mean absolute error"),
    ("Submissions are evaluated using the Gini score.", "id,target", "0,0.1",
     "Gini coefficient the page does not say is normalised"),
    ("Submissions will be evaluated based on their mean F2 score over the space-delimited tags.",
     "image_name,tags", "f1,clear primary", "F-beta"),
    ("Submissions are scored on the mean Pearson correlation coefficient across all target "
     "columns.", "id,a,b", "1,0,0", "Pearson"),
    ("The evaluation metric is the Continuous Ranked Probability Score (CRPS).", "id,p", "1,0",
     "continuous ranked probability score"),
    ("The evaluation metric is the weighted area under the ROC curve; events are scored only "
     "for events with min_ANNmuon > 0.4.", "id,prediction", "1,0.3", "weighted area"),
    ("Submissions are evaluated on the F1 score.", "id,breed", "1,beagle",
     "averaging over classes"),
    ("Submissions are evaluated using the micro averaged F1 score.", "", "",
     "one label or a set of labels per row"),
    ("Submissions are scored on the root mean squared error, with rows weighted by the "
     "exposure column.", "id,claims", "1,0.2", "weighted root mean squared error"),
])
def test_a_metric_no_id_computes_is_left_empty_with_the_reason(
        evaluation: str, header: str, rows: str, words: str) -> None:
    assert_none(_map(_page(evaluation, header, rows)), words)


# --- wrong picks among registered ids -------------------------------------------------------


@pytest.mark.parametrize(("evaluation", "header", "rows", "metric_id"), [
    ("Submissions are evaluated using F1 between the predicted and expected answers.",
     "id,target", "0,0\n2,1\n3,0", "f1"),
    ("The evaluation metric for this competition is Mean F1-Score. Tags should be a "
     "space-delimited list.", "Id,Tags", '1,"a b"', "rowwise_set_f1"),
    ("Submissions are evaluated using Multi Class Log Loss.", "id,a,b", "1,0.5,0.5",
     "multiclass_log_loss"),
    ("Submissions are evaluated on the Log of the Mean Absolute Error, calculated for each "
     "scalar coupling type, and then averaged across types.", "id,scalar_coupling_constant",
     "1,0", "mean_log_mae"),
    # a weight column that is a feature, not a scoring weight, changes nothing
    ("Submissions are evaluated on mean absolute error. The weight column holds each "
     "parcel's weight in kilograms.", "id,price", "1,100.5", "mae"),
    ("Submissions are evaluated on Root-Mean-Squared-Error (RMSE) between the logarithm of the "
     "predicted value and the logarithm of the observed sales price.", "Id,SalePrice",
     "1461,169000.1", "rmsle"),
    ("The primary competition metric will be label-weighted label-ranking average precision "
     "(lwlrap).", "fname,Accordion,Bark", "a.wav,0.1,0.2", "lwlrap"),
    ("Submissions are evaluated on the mean column-wise ROC AUC.", "id,toxic,...,identity_hate",
     "", "roc_auc_columnwise"),
    ("The score is the percentage of images that are incorrectly classified.", "id,label",
     "1,cat", "top1_error"),
    ("Submissions are evaluated using the Normalized Gini Coefficient.", "id,target", "0,0.1",
     "normalized_gini"),
    ("Submissions are evaluated on Root Mean Square Percentage Error (RMSPE).", "Id,Sales",
     "1,0", "rmspe"),
    ("Submissions are evaluated on the balanced logarithmic loss.", "Id,class_0,class_1",
     "0,0.5,0.5", "balanced_log_loss"),
    # the weights are stated in the next sentence, not beside the metric's name
    ("Performance evaluation will be conducted using mean absolute error. Each observation "
     "will be weighted as indicated by the weight column.", "id,price", "1,100.5",
     "weighted_mae"),
    ("Submissions are evaluated on MPA@3. Each submission can contain up to 3 predictions.",
     "id,prognosis", "707,Dengue Malaria", "map_at_k"),
    ("This competition is evaluated on the mean average precision at different intersection "
     "over union (IoU) thresholds, from 0.5 to 0.95 with a step size of 0.05, on run-length "
     "encoded masks.", "id,rle_mask", "3e06571ef3,1 1", "iou_thresholds_map"),
])
def test_the_registered_id_that_computes_the_page_metric_is_chosen(
        evaluation: str, header: str, rows: str, metric_id: str) -> None:
    assert_exact(_map(_page(evaluation, header, rows)), metric_id)


def test_map_at_3_written_mpa_carries_k() -> None:
    r = _map(_page("Submissions will be evaluated based on MPA@3.", "id,prognosis", "1,a b c"))
    assert r.spec.grading is not None and r.spec.grading.metric_params == {"k": 3}


# --- where a metric may be read from ------------------------------------------------------------


def test_a_sentence_defining_the_score_under_another_heading_is_read() -> None:
    text = ("## Overview\n\nPredict prices.\n\n## How we score\n\nSubmissions are scored on the "
            "mean absolute error between predicted and actual prices.\n\n## Submission File\n\n"
            "```\nid,price\n1,0\n```\n")
    r = _map(text)
    assert r.spec.grading is not None and r.spec.grading.metric == "mae"
    assert r.evidence["grading.metric"].startswith("Submissions are scored on the mean absolute")


def test_overview_prose_never_names_the_metric_and_the_header_is_kept() -> None:
    text = ("# Ship detection\n\nHelp us improve the accuracy of ship detection from satellite "
            "images. The file should have the following format:\n\nid,ships\n1,3\n")
    r = _map(text)
    assert r.spec.grading is None and r.spec.metric.metric_name == ""
    pending = r.spec.provenance.pending_grading
    assert pending is not None and pending.submission_header == ["id", "ships"]
    assert pending.id_columns == ["id"] and pending.target_columns == ["ships"]
    assert "no metric in an evaluation section" in pending.reason
    assert any(n.startswith("no grading section:") and "provenance.pending_grading" in n
               for n in r.spec.provenance.notes)
    assert submission_header_of(r.spec) == ["id", "ships"]


def test_an_unlisted_metric_in_a_defining_sentence_is_reported_by_its_name() -> None:
    r = _map(_page("Submissions are evaluated on the Sharpe-like utility of daily returns."))
    assert r.spec.grading is None
    pending = r.spec.provenance.pending_grading
    assert pending is not None and pending.metric_name.startswith("Sharpe-like utility")
    assert "not one the mapper knows" in pending.reason


def test_a_bare_metric_line_under_an_evaluation_heading_is_read() -> None:
    text = ("### Evaluation\n\nAUC\n\n### Submission File\n\nPlease check the format.\n\n"
            "Id,Probability\n59771,0.0\n21363,0.5\n")
    r = _map(text)
    assert r.spec.grading is not None and r.spec.grading.metric == "roc_auc"
    assert r.spec.grading.submission_header == ["Id", "Probability"]
