"""Each metric against scikit-learn / scipy where they have it, else hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

from tambench.core.metrics import classification as C
from tambench.core.metrics import get_metric
from tambench.core.metrics import masks as M
from tambench.core.metrics import ranking as K
from tambench.core.metrics import regression as R
from tambench.errors import (
    InvalidSubmissionError,
    MetricInputError,
    MetricParameterError,
    TaskDataError,
)
from tests.core.metric_examples import rle_of

RTOL = 1e-9


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240601)


def labels(rng: np.random.Generator, n: int, classes: list[str]) -> np.ndarray:
    return np.array(rng.choice(classes, size=n), dtype=object)


# --- classification -------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")
def test_accuracy_and_balanced_accuracy_match_sklearn(rng) -> None:
    t, p = labels(rng, 500, list("abcd")), labels(rng, 500, list("abcde"))
    assert C.accuracy(t, p) == pytest.approx(skm.accuracy_score(t, p), rel=RTOL)
    t3 = labels(rng, 500, list("abc"))
    assert C.balanced_accuracy(t3, p) == pytest.approx(
        skm.balanced_accuracy_score(t3.astype(str), p.astype(str)), rel=RTOL
    )


def test_accuracy_compares_labels_as_exact_strings() -> None:
    assert C.accuracy(["0001", "1.0", "NA"], ["1", "1", "NA"]) == pytest.approx(1 / 3)


def test_roc_auc_matches_sklearn_with_heavy_ties(rng) -> None:
    t = rng.integers(0, 2, 5000).astype(float)
    p = np.round(rng.random(5000), 1)  # 11 distinct scores: most rows tie
    assert C.roc_auc(t, p) == pytest.approx(skm.roc_auc_score(t, p), rel=RTOL)


def test_roc_auc_with_one_class_in_the_answers_is_a_task_data_error() -> None:
    with pytest.raises(TaskDataError, match="both classes"):
        C.roc_auc([1, 1, 1], [0.1, 0.2, 0.3])


def test_roc_auc_rejects_non_binary_truths() -> None:
    with pytest.raises(TaskDataError, match="0/1"):
        C.roc_auc([0, 2, 1], [0.1, 0.2, 0.3])


def test_columnwise_auc_matches_sklearn_macro_average(rng) -> None:
    t = rng.integers(0, 2, (400, 5)).astype(float)
    p = np.round(rng.random((400, 5)), 2)
    expected = skm.roc_auc_score(t, p, average="macro")
    assert C.roc_auc_columnwise(t, p) == pytest.approx(expected, rel=RTOL)


def test_macro_multilabel_auc_skips_single_class_columns(rng) -> None:
    t = rng.integers(0, 2, (300, 4)).astype(float)
    t[:, 2] = 0  # a label absent from the test set
    p = rng.random((300, 4))
    expected = skm.roc_auc_score(t[:, [0, 1, 3]], p[:, [0, 1, 3]], average="macro")
    assert C.roc_auc_macro_multilabel(t, p) == pytest.approx(expected, rel=RTOL)
    with pytest.raises(TaskDataError, match="both classes"):
        C.roc_auc_columnwise(t, p)


def test_binary_log_loss_matches_sklearn(rng) -> None:
    t = rng.integers(0, 2, 1000).astype(float)
    p = rng.uniform(0.01, 0.99, 1000)
    assert C.log_loss(t, p) == pytest.approx(skm.log_loss(t, p), rel=RTOL)


def test_binary_log_loss_clips_certain_wrong_predictions_at_1e15() -> None:
    got = C.log_loss([1.0, 0.0], [0.0, 1.0])
    # 1 - 1e-15 is not exact in binary: the second row's clipped loss is -log(1.11e-15).
    expected = (-math.log(1e-15) - math.log1p(-(1.0 - 1e-15))) / 2
    assert got == pytest.approx(expected, rel=RTOL)
    assert 34.5 < got < 34.6


def test_multiclass_log_loss_matches_sklearn_on_normalised_rows(rng) -> None:
    y = rng.integers(0, 5, 2000)
    p = rng.random((2000, 5)) + 0.01
    p /= p.sum(axis=1, keepdims=True)
    onehot = np.eye(5)[y]
    expected = skm.log_loss(y, p, labels=range(5))
    assert C.multiclass_log_loss(onehot, p) == pytest.approx(expected, rel=RTOL)


def test_multiclass_log_loss_renormalises_rows_unless_told_not_to() -> None:
    t = [[1.0, 0.0], [0.0, 1.0]]
    p = [[2.0, 2.0], [0.2, 0.2]]
    assert C.multiclass_log_loss(t, p) == pytest.approx(math.log(2), rel=RTOL)
    raw = C.multiclass_log_loss(t, p, renormalize=False)
    # Row 1 clipped to [1 - 1e-15, 1 - 1e-15], row 2 left at 0.2.
    assert raw == pytest.approx((-math.log(1 - 1e-15) - math.log(0.2)) / 2, rel=RTOL)


def test_multiclass_log_loss_of_a_zero_row_is_defined_after_clipping() -> None:
    got = C.multiclass_log_loss([[1.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]])
    assert got == pytest.approx(math.log(3), rel=RTOL)


def test_weighted_multilabel_log_loss_is_the_weighted_mean_of_column_log_losses(rng) -> None:
    t = rng.integers(0, 2, (500, 3)).astype(float)
    p = rng.uniform(0.02, 0.98, (500, 3))
    cols = [skm.log_loss(t[:, j], p[:, j]) for j in range(3)]
    w = [1.0, 2.0, 5.0]
    assert C.weighted_multilabel_log_loss(t, p) == pytest.approx(np.mean(cols), rel=RTOL)
    assert C.weighted_multilabel_log_loss(t, p, weights=w) == pytest.approx(
        np.average(cols, weights=w), rel=RTOL
    )
    with pytest.raises(MetricParameterError, match="weights"):
        C.weighted_multilabel_log_loss(t, p, weights=[1.0])


def test_kl_divergence_matches_scipy_entropy(rng) -> None:
    t = rng.random((300, 6))
    t[:, 0] = 0.0  # zero true mass contributes nothing
    t /= t.sum(axis=1, keepdims=True)
    p = rng.random((300, 6)) + 0.01
    p /= p.sum(axis=1, keepdims=True)
    expected = np.mean([stats.entropy(t[i], p[i]) for i in range(300)])
    assert C.kl_divergence(t, p) == pytest.approx(expected, rel=RTOL)


def test_f1_family_and_fbeta_match_sklearn(rng) -> None:
    t, p = labels(rng, 700, ["0", "1"]), labels(rng, 700, ["0", "1"])
    ts, ps = t.astype(str), p.astype(str)
    assert C.f1(t, p) == pytest.approx(skm.f1_score(ts, ps, pos_label="1"), rel=RTOL)
    assert C.fbeta(t, p, beta=0.5) == pytest.approx(
        skm.fbeta_score(ts, ps, beta=0.5, pos_label="1"), rel=RTOL
    )
    tm, pm = labels(rng, 700, list("abcd")), labels(rng, 700, list("abcde"))
    tms, pms = tm.astype(str), pm.astype(str)
    for fn, avg in [(C.f1_micro, "micro"), (C.f1_macro, "macro"), (C.f1_weighted, "weighted")]:
        assert fn(tm, pm) == pytest.approx(skm.f1_score(tms, pms, average=avg), rel=RTOL), avg


def test_f1_without_any_positive_on_either_side_is_perfect() -> None:
    assert C.f1(["0", "0"], ["0", "0"]) == 1.0
    assert skm.f1_score([0, 0], [0, 0], zero_division=1.0) == 1.0


def test_mcc_matches_sklearn_binary_and_multiclass(rng) -> None:
    t, p = labels(rng, 900, ["e", "p"]), labels(rng, 900, ["e", "p"])
    assert C.mcc(t, p) == pytest.approx(skm.matthews_corrcoef(t.astype(str), p.astype(str)), rel=RTOL)
    tm, pm = labels(rng, 900, list("abc")), labels(rng, 900, list("abcd"))
    assert C.mcc(tm, pm) == pytest.approx(
        skm.matthews_corrcoef(tm.astype(str), pm.astype(str)), rel=RTOL
    )


def test_mcc_of_a_constant_prediction_is_zero_not_nan() -> None:
    assert C.mcc(["e", "p", "p"], ["p", "p", "p"]) == 0.0
    assert C.mcc(["p", "p"], ["p", "p"]) == 1.0


def test_qwk_matches_sklearn_over_the_full_rating_range(rng) -> None:
    t = rng.integers(0, 6, 800)
    p = np.clip(t + rng.integers(-2, 3, 800), 0, 5)
    p[p == 3] = 4  # a rating absent from the predictions still sets the scale
    expected = skm.cohen_kappa_score(t, p, weights="quadratic", labels=np.arange(6))
    got = C.qwk(t.astype(str).astype(object), p.astype(str).astype(object))
    assert got == pytest.approx(expected, rel=RTOL)


def test_qwk_is_defined_when_every_rating_is_the_same() -> None:
    assert C.qwk(["2", "2"], ["2", "2"]) == 1.0


def test_qwk_rejects_non_integer_predicted_ratings() -> None:
    with pytest.raises(InvalidSubmissionError, match="integer ratings"):
        C.qwk(["1", "2"], ["1", "two"])
    with pytest.raises(InvalidSubmissionError, match="1.5"):
        C.qwk(["1", "2"], ["1", "1.5"])


def test_top1_error_counts_only_the_first_predicted_label() -> None:
    assert C.top1_error(["a", "b", "c"], ["a x", "x b", "c"]) == pytest.approx(1 / 3)


# --- regression -----------------------------------------------------------------------------


def test_error_metrics_match_sklearn(rng) -> None:
    t, p = rng.normal(3, 2, 1000), rng.normal(3, 2, 1000)
    assert R.mse(t, p) == pytest.approx(skm.mean_squared_error(t, p), rel=RTOL)
    assert R.rmse(t, p) == pytest.approx(skm.root_mean_squared_error(t, p), rel=RTOL)
    assert R.mae(t, p) == pytest.approx(skm.mean_absolute_error(t, p), rel=RTOL)
    assert R.mape(t, p) == pytest.approx(skm.mean_absolute_percentage_error(t, p), rel=RTOL)
    assert R.r2(t, p) == pytest.approx(skm.r2_score(t, p), rel=RTOL)
    tp, pp = np.abs(t), np.abs(p)
    assert R.rmsle(tp, pp) == pytest.approx(skm.root_mean_squared_log_error(tp, pp), rel=RTOL)


def test_rmsle_rejects_predictions_at_or_below_minus_one() -> None:
    with pytest.raises(InvalidSubmissionError, match="predictions > -1"):
        R.rmsle([1.0, 2.0], [1.0, -1.0])


def test_mcrmse_is_the_mean_of_column_rmses_over_scored_rows(rng) -> None:
    t, p = rng.normal(size=(200, 3)), rng.normal(size=(200, 3))
    scored = np.array(["1", "0"] * 100, dtype=object)
    keep = scored == "1"
    expected = np.mean([skm.root_mean_squared_error(t[keep, j], p[keep, j]) for j in range(3)])
    assert R.mcrmse(t, p, scored=scored) == pytest.approx(expected, rel=RTOL)
    all_rows = np.mean([skm.root_mean_squared_error(t[:, j], p[:, j]) for j in range(3)])
    assert R.mcrmse(t, p) == pytest.approx(all_rows, rel=RTOL)


def test_mcrmse_through_the_registry_takes_the_scored_mask_and_drops_the_column_name() -> None:
    metric = get_metric("mcrmse")
    assert metric.aux_columns() == {}
    assert metric.aux_columns({"scored_column": "scored"}) == {"scored": "scored"}
    got = metric([[1.0], [5.0]], [[1.0], [0.0]], scored_column="scored", scored=[1, 0])
    assert got == 0.0


def test_mcrmse_refuses_a_mask_that_is_not_zero_or_one() -> None:
    with pytest.raises(TaskDataError, match="0/1"):
        R.mcrmse([[1.0], [2.0]], [[1.0], [2.0]], scored=[1, 2])


def test_mean_log_mae_groups_rows_and_floors_each_group_mae(rng) -> None:
    t, p = rng.normal(size=300), rng.normal(size=300)
    g = np.array([f"t{i % 4}" for i in range(300)], dtype=object)
    expected = np.mean([
        math.log(max(np.mean(np.abs(t[g == k] - p[g == k])), 1e-9)) for k in sorted(set(g))
    ])
    metric = get_metric("mean_log_mae")
    assert metric.aux_columns() == {"groups": "type"}
    assert metric(t, p, groups=g) == pytest.approx(expected, rel=RTOL)
    with pytest.raises(MetricInputError, match="groups"):
        R.mean_log_mae(t, p)


def test_smape_matches_its_formula_with_zero_over_zero_as_zero() -> None:
    t = np.array([100.0, 0.0, -5.0])
    p = np.array([110.0, 0.0, 5.0])
    expected = 100 / 3 * (20 / 210 + 0 + 20 / 10)
    assert R.smape(t, p) == pytest.approx(expected, rel=RTOL)


def test_r2_mean_columnwise_matches_sklearn_and_clips_when_asked(rng) -> None:
    t = rng.normal(size=(300, 6))
    p = t + rng.normal(scale=[0.1, 0.5, 1, 2, 3, 0.2], size=(300, 6))
    raw = skm.r2_score(t, p, multioutput="raw_values")
    assert (raw < 0).any()
    assert R.r2_mean_columnwise(t, p) == pytest.approx(raw.mean(), rel=RTOL)
    assert R.r2_mean_columnwise(t, p, clip_at_zero=True) == pytest.approx(
        np.maximum(raw, 0).mean(), rel=RTOL
    )


def test_r2_of_a_constant_truth_is_finite() -> None:
    assert R.r2([3.0, 3.0], [3.0, 3.0]) == 1.0
    assert R.r2([3.0, 3.0], [3.0, 4.0]) == 0.0


def test_correlations_match_scipy(rng) -> None:
    t = np.round(rng.normal(size=500), 1)  # ties for the rank correlations
    p = np.round(t + rng.normal(size=500), 1)
    assert R.pearson(t, p) == pytest.approx(stats.pearsonr(t, p).statistic, rel=RTOL)
    assert R.spearman(t, p) == pytest.approx(stats.spearmanr(t, p).statistic, rel=RTOL)
    assert R.kendall_tau(t, p) == pytest.approx(stats.kendalltau(t, p).statistic, rel=RTOL)


@pytest.mark.parametrize("fn", [R.pearson, R.spearman, R.kendall_tau], ids=lambda f: f.__name__)
def test_correlation_of_a_constant_prediction_is_zero_not_nan(fn) -> None:
    assert fn([1.0, 2.0, 3.0], [7.0, 7.0, 7.0]) == 0.0
    assert fn([7.0, 7.0, 7.0], [1.0, 2.0, 3.0]) == 0.0


def test_haversine_mean_matches_sklearn_pairwise_haversine(rng) -> None:
    a = np.stack([rng.uniform(-80, 80, 50), rng.uniform(-180, 180, 50)], axis=1)
    b = np.stack([rng.uniform(-80, 80, 50), rng.uniform(-180, 180, 50)], axis=1)
    d = [skm.pairwise.haversine_distances(np.radians([a[i]]), np.radians([b[i]]))[0, 0]
         for i in range(50)]
    assert R.haversine_mean(a, b) == pytest.approx(6371.0 * np.mean(d), rel=1e-9)


def test_mean_angular_error_agrees_between_angles_and_vectors() -> None:
    az = np.array([0.0, np.pi / 2])
    zen = np.array([np.pi / 2, np.pi / 2])
    truth = np.stack([az, zen], axis=1)
    pred = np.stack([az + np.array([0.0, np.pi / 2]), zen], axis=1)
    # Row 1 exact, row 2 rotated by 90 degrees in the horizontal plane.
    assert R.mean_angular_error(truth, pred) == pytest.approx(np.pi / 4, rel=RTOL)
    assert R.mean_angular_error([[1, 0, 0]], [[0, 0, 5.0]]) == pytest.approx(np.pi / 2, rel=RTOL)
    with pytest.raises(InvalidSubmissionError, match="zero-length"):
        R.mean_angular_error([[1, 0, 0]], [[0, 0, 0.0]])


def test_laplace_log_likelihood_clips_sigma_at_70_and_delta_at_1000() -> None:
    root2 = math.sqrt(2)
    got = R.laplace_log_likelihood([3000.0, 3000.0], [[3010.0, 10.0], [5000.0, 200.0]])
    row1 = -root2 * 10 / 70 - math.log(root2 * 70)
    row2 = -root2 * 1000 / 200 - math.log(root2 * 200)
    assert got == pytest.approx((row1 + row2) / 2, rel=RTOL)
    assert get_metric("laplace_log_likelihood").best_value == pytest.approx(-math.log(root2 * 70))


# --- ranking, sets, text --------------------------------------------------------------------


def reference_apk(actual: list[str], predicted: list[str], k: int) -> float:
    """Textbook AP@k written independently of the metric under test."""
    predicted = predicted[:k]
    score, hits = 0.0, 0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1
            score += hits / (i + 1.0)
    return score / min(len(actual), k)


def test_map_at_k_multiple_form_matches_a_reference_apk(rng) -> None:
    items = [str(i) for i in range(40)]
    t = [" ".join(rng.choice(items, size=rng.integers(1, 6), replace=False)) for _ in range(200)]
    p = [" ".join(rng.choice(items, size=15)) for _ in range(200)]  # with repeats
    expected = np.mean([reference_apk(a.split(), b.split(), 12) for a, b in zip(t, p, strict=True)])
    assert K.map_at_k(t, p, k=12, relevant="multiple") == pytest.approx(expected, rel=RTOL)


def test_map_at_k_single_form_scores_one_over_the_rank_of_the_true_label() -> None:
    t = ["5", "9", "1"]
    p = ["1 5 9", "9", " ".join(str(i) for i in range(2, 40)) + " 1"]
    assert K.map_at_k(t, p, k=25, relevant="single") == pytest.approx((0.5 + 1.0 + 0.0) / 3)


def test_map_at_k_rejects_unknown_form_and_bad_k() -> None:
    with pytest.raises(MetricParameterError, match="relevant"):
        K.map_at_k(["a"], ["a"], relevant="some")
    with pytest.raises(MetricParameterError, match="k must be"):
        K.map_at_k(["a"], ["a"], k=0)


def test_mrr_at_k_uses_the_first_relevant_item_within_k() -> None:
    t = ["b", "z", "q"]
    p = ["a b c", "x y", " ".join(["w"] * 100 + ["q"])]
    assert K.mrr_at_k(t, p, k=100) == pytest.approx(0.5 / 3)


def test_label_ranking_average_precision_matches_sklearn_with_ties(rng) -> None:
    t = rng.integers(0, 2, (300, 8))
    t[0] = 0
    t[1] = 1
    s = np.round(rng.random((300, 8)), 1)
    expected = skm.label_ranking_average_precision_score(t, s)
    assert K.label_ranking_average_precision(t.astype(float), s) == pytest.approx(expected, rel=RTOL)


def test_lwlrap_is_lrap_weighted_by_the_number_of_true_labels(rng) -> None:
    t = rng.integers(0, 2, (300, 8))
    t[t.sum(axis=1) == 0, 0] = 1
    s = rng.random((300, 8))
    expected = skm.label_ranking_average_precision_score(t, s, sample_weight=t.sum(axis=1))
    assert K.lwlrap(t.astype(float), s) == pytest.approx(expected, rel=RTOL)


def test_rowwise_set_f1_matches_sklearn_samples_f1_with_nocall_as_empty(rng) -> None:
    birds = ["amecro", "amerob", "bkcchi", "norcar", "rewbla"]

    def cell() -> str:
        k = int(rng.integers(0, 4))
        return " ".join(rng.choice(birds, size=k, replace=False)) if k else "nocall"

    t = [cell() for _ in range(400)]
    p = [cell() for _ in range(400)]

    def binarise(cells: list[str]) -> np.ndarray:
        return np.array([[b in c.split() for b in birds] for c in cells], dtype=int)

    expected = skm.f1_score(binarise(t), binarise(p), average="samples", zero_division=1.0)
    assert K.rowwise_set_f1(t, p, empty_token="nocall") == pytest.approx(expected, rel=RTOL)


def test_jaccard_words_lowercases_and_scores_two_empty_texts_as_identical() -> None:
    assert K.jaccard_words(["The Cat", ""], ["the cat sat", ""]) == pytest.approx((2 / 3 + 1) / 2)
    assert K.jaccard_words(["The"], ["the"], lowercase=False) == 0.0


def test_levenshtein_normalized_by_characters_and_tokens() -> None:
    assert K.levenshtein_normalized(["kitten"], ["sitting"]) == pytest.approx(3 / 7)
    assert K.levenshtein_normalized(["a b c"], ["a c"], unit="token") == pytest.approx(1 / 3)
    assert K.levenshtein_normalized([""], [""]) == 0.0


# --- masks ----------------------------------------------------------------------------------


def test_dice_of_run_length_masks_equals_dice_of_the_arrays(rng) -> None:
    arrays_t = rng.random((30, 80)) < 0.3
    arrays_p = rng.random((30, 80)) < 0.3
    arrays_t[0] = False
    arrays_p[0] = False  # both empty: 1.0
    per_row = [
        1.0 if not (a.any() or b.any()) else 2 * np.sum(a & b) / (a.sum() + b.sum())
        for a, b in zip(arrays_t, arrays_p, strict=True)
    ]
    rle_t = [rle_of(a) for a in arrays_t]
    rle_p = [rle_of(b) for b in arrays_p]
    assert M.dice(rle_t, rle_p) == pytest.approx(np.mean(per_row), rel=RTOL)
    assert M.dice(arrays_t, arrays_p) == pytest.approx(np.mean(per_row), rel=RTOL)
    pooled = 2 * np.sum(arrays_t & arrays_p) / (arrays_t.sum() + arrays_p.sum())
    assert M.global_dice(rle_t, rle_p) == pytest.approx(pooled, rel=RTOL)


def test_iou_thresholds_map_counts_thresholds_strictly_below_the_iou() -> None:
    # IoU 0.75: above 0.50 .. 0.70 (5 of 10 thresholds), not above 0.75.
    assert M.iou_thresholds_map(["1 4"], ["1 3"]) == pytest.approx(0.5)
    assert M.iou_thresholds_map([""], ["1 3"]) == 0.0


def test_malformed_predicted_run_length_is_an_invalid_submission_naming_the_row() -> None:
    with pytest.raises(InvalidSubmissionError, match=r"row 2: .*overlap"):
        M.dice(["1 2", "1 2"], ["1 2", "5 3 6 1"])
    with pytest.raises(InvalidSubmissionError, match="pairs"):
        M.dice(["1 2"], ["1 2 3"])


@pytest.mark.parametrize(
    ("metric_id", "y_true", "y_pred"),
    [
        ("rmse", [1.0, 2.0], [1.0, math.nan]),
        ("mae", [1.0, 2.0], [math.inf, 2.0]),
        ("log_loss", [1.0, 0.0], [math.nan, 0.2]),
        ("multiclass_log_loss", [[1.0, 0.0]], [[math.nan, 0.5]]),
        ("roc_auc", [1.0, 0.0], [math.nan, 0.2]),
        ("pearson", [1.0, 2.0], [math.nan, 0.2]),
    ],
)
def test_nan_input_reaching_a_metric_is_a_caller_error_not_a_score(metric_id, y_true, y_pred) -> None:
    with pytest.raises(MetricInputError, match="NaN"):
        get_metric(metric_id)(y_true, y_pred)


def test_multiclass_log_loss_is_the_same_for_row_and_column_major_inputs(rng) -> None:
    # The grader passes column-major matrices; callers may pass row-major ones.
    y = rng.integers(0, 7, 3000)
    onehot = np.eye(7)[y]
    p = rng.dirichlet(np.ones(7), 3000)
    c_order = C.multiclass_log_loss(onehot, p)
    f_order = C.multiclass_log_loss(np.asfortranarray(onehot), np.asfortranarray(p))
    assert f_order == pytest.approx(c_order, rel=1e-12)
    assert c_order == pytest.approx(skm.log_loss(y, p, labels=range(7)), rel=RTOL)


def test_multiclass_log_loss_clips_only_when_a_value_is_out_of_range(rng) -> None:
    t = np.eye(3)[[0, 1, 2, 0]]
    inside = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.5, 0.25, 0.25]])
    edge = inside.copy()
    edge[0] = [1.0, 0.0, 0.0]  # needs clipping: 0 -> 1e-15 and 1 -> 1 - 1e-15
    before = edge.copy()
    got = C.multiclass_log_loss(t, edge)
    assert np.array_equal(edge, before)  # the caller's array is never clipped in place
    clipped = np.clip(edge, 1e-15, 1 - 1e-15)
    expected = -np.mean(np.log((clipped / clipped.sum(axis=1, keepdims=True))[t == 1]))
    assert got == pytest.approx(expected, rel=RTOL)
    assert C.multiclass_log_loss(t, inside) == pytest.approx(
        -np.mean(np.log(inside[t == 1])), rel=RTOL)


def test_multiclass_log_loss_reads_a_read_only_view_without_copying_it(rng) -> None:
    # What the grader hands over: read-only column-major views of a packed buffer.
    t = np.asfortranarray(np.eye(4)[rng.integers(0, 4, 500)])
    p = np.asfortranarray(rng.dirichlet(np.ones(4), 500))
    expected = C.multiclass_log_loss(t, p)
    t.flags.writeable = False
    p.flags.writeable = False
    assert C.multiclass_log_loss(t, p) == expected


def test_rmse_of_finite_values_whose_squares_overflow_is_exact_or_infinite_never_an_error() -> None:
    from tambench.core.metrics.regression import rmse

    # sqrt(((1e300 + 2)^2 + 0) / 2) = (1e300 + 2) / sqrt(2), in float64
    assert rmse([1e300, 0.0], [-2.0, 0.0]) == pytest.approx(1e300 / math.sqrt(2), rel=1e-15)
    assert rmse([3e200, -3e200], [-1e200, 1e200]) == pytest.approx(4e200, rel=1e-15)
    # A true value beyond float64 comes back infinite; the grader never ranks it.
    assert rmse([1.7e308], [-1.7e308]) == math.inf
