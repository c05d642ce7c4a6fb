"""The metric alias table: every spelling the importers' sources use resolves, to a registered
metric with parameters it takes; entries for metrics being added wait in a marked section."""

from __future__ import annotations

import pytest

from tambench.core.metrics import METRICS
from tambench.core.metrics.aliases import (
    ALIASES,
    PENDING_ALIASES,
    REFINEMENTS,
    compare_metrics,
    normalise_spelling,
    params_conflicts,
    resolve_alias,
)

#: Every grader name of MLE-bench's 82 competition configs (config.yaml grader.name), as
#: written there, with the competition(s) using it and the metric its grade.py computes.
MLE_BENCH_GRADER_NAMES: dict[str, str] = {
    "auc-roc": "roc_auc",
    "accuracy": "accuracy",
    "multi-class-log-loss": "multiclass_log_loss",
    "micro-f1-score": "f1_micro",
    "macro-f1-score": "f1_macro",
    "root-mean-squared-error": "rmse",
    "root_mean_squared_error": "rmse",
    "quadratic-weighted-kappa": "qwk",
    "mean-average-precision": "box_map",
    "log-loss": "log_loss",
    "levenshtein-distance": "levenshtein_mean",
    "levenhstein-distance": "levenshtein_per_true",
    "dice-hausdorff-combo": "dice_hausdorff_3d",
    "word-level-jaccard-score": "jaccard_words",
    "weighted-multi-label-log-loss": "weighted_multilabel_log_loss",
    "weighted-auroc": "weighted_auc_tpr",
    "top-1-classification-error": "top1_error",
    "probabilistic-f1-score": "probabilistic_f1",
    "pearson-correlation-coefficient": "pearson",
    "multi-class-classification-accuracy": "accuracy",
    "modified-laplace-log-likelihood": "laplace_log_likelihood",
    "mean-precision-intersection-over-union-at-different-thresholds": "iou_thresholds_map",
    "mean-column-wise-roc-auc": "roc_auc_columnwise",
    "mean-column-wise-rmsle": "rmsle_columnwise",
    "mean-angular-error": "mean_angular_error",
    "mean-absolute-error": "mae",
    "matthews-correlation-coefficient": "mcc",
    "map-at-5": "map_at_k",
    "mAP-at-IoU>0.4": "box_map",
    "log-mean-absolute-error": "mean_log_mae",
    "label-ranking-average-precision": "lwlrap",
    "kendall-tau": "kendall_tau_orders",
    "jigsaw-unintended-bias-in-toxicity-classification-score": "jigsaw_bias_auc",
    "jaccard-similarity": "jaccard_words",
    "global-dice": "global_dice",
    "f1-score": "point_in_box_f1",
    "f0.5-score": "rle_f_beta",
    "dice-coefficient": "dice",
    "column-wise-spearman": "spearman_columnwise",
    "column-wise ROC AUC": "roc_auc_columnwise",
    "average-haversine-distance": "haversine_p50_p95",
    "auroc-multi-label": "roc_auc_columnwise",
    "MAP@5": "map_at_k",
    "MAP@12": "map_at_k",
    "KL-divergence": "kl_divergence",
}

#: The metric names of the TAM-Bench release's 18 schema.json files and their graders' metric.
TAM_RELEASE_NAMES: dict[str, str] = {
    "Mean Average Precision (MAP) and top-k MAP": "map_at_k_lines",
    "Matthews correlation coefficient (MCC)": "mcc",
    "micro averaged F1": "rowwise_set_f1",
    "Root Mean Squared Error": "rmse",
    "Mean Average Precision @ 25 (MAP@25)": "map_at_k",
    "mean Average Accuracy (mAA) of the registered camera centers": "pose_maa",
    "WeightedAUC": "weighted_author_auc",
    "Log loss with 'eps=auto'": "multiclass_log_loss",
    "Area under the ROC curve": "roc_auc",
    "Levenshtein distance normalized by total number of gestures": "levenshtein_per_true",
    "Root mean-squared error": "rmse",
    "Mean Reciprocal Rank (MRR)": "mrr_at_k",
    "Mean R^2": "r2_mean_columnwise",
    "MAP (Mean Average Precision)": "mean_ap_per_paper",
    "Mean columnwise root mean squared error (MCRMSE)": "mcrmse",
    "Log loss": "log_loss",
    "Multiclass Accuracy": "accuracy",
    "Prediction accuracy": "exact_match",
}


@pytest.mark.parametrize("name", sorted(MLE_BENCH_GRADER_NAMES))
def test_every_mle_bench_grader_name_resolves_to_the_metric_its_grader_computes(name: str) -> None:
    match = resolve_alias(name, "mle-bench")
    assert match is not None, f"MLE-bench grader name {name!r} is not in the alias table"
    assert match.metric == MLE_BENCH_GRADER_NAMES[name]


@pytest.mark.parametrize("name", sorted(TAM_RELEASE_NAMES))
def test_every_tam_release_metric_name_resolves_to_its_graders_metric(name: str) -> None:
    match = resolve_alias(name, "tam-bench")
    assert match is not None and match.metric == TAM_RELEASE_NAMES[name]
    assert match.registered


def test_the_tam_release_names_of_the_shared_data_are_the_ones_listed(tam_lite_dir) -> None:  # type: ignore[no-untyped-def]
    import json

    names = {json.loads((d / "schema.json").read_text(encoding="utf-8"))["metric"]["metric_name"]
             for d in tam_lite_dir.iterdir() if d.is_dir()}
    assert names == set(TAM_RELEASE_NAMES)


@pytest.mark.parametrize("alias", ALIASES, ids=lambda a: f"{a.source or 'any'}:{a.spelling}")
def test_every_alias_target_is_registered_and_takes_the_aliases_parameters(alias) -> None:  # type: ignore[no-untyped-def]
    assert alias.metric in METRICS, (
        f"{alias.spelling!r} -> {alias.metric!r}, which is not a registered metric; move the "
        "entry to PENDING_ALIASES until it is")
    METRICS[alias.metric].resolve_params(alias.params)  # raises on a parameter it does not take


@pytest.mark.parametrize("alias", PENDING_ALIASES,
                         ids=lambda a: f"{a.source or 'any'}:{a.spelling}")
def test_pending_alias_targets_are_checked_once_their_metric_is_registered(alias) -> None:  # type: ignore[no-untyped-def]
    if alias.metric not in METRICS:
        pytest.skip(f"{alias.metric} is not registered yet (pending alias {alias.spelling!r})")
    METRICS[alias.metric].resolve_params(alias.params)
    match = resolve_alias(alias.spelling, alias.source)
    assert match is not None and match.registered


def test_a_pending_alias_resolves_as_not_registered_while_its_metric_is_missing() -> None:
    missing = [a for a in PENDING_ALIASES if a.metric not in METRICS]
    if not missing:
        pytest.skip("every pending metric is registered: move the entries to ALIASES")
    match = resolve_alias(missing[0].spelling, missing[0].source)
    assert match is not None and not match.registered


def test_spellings_compare_without_case_hyphens_or_underscores() -> None:
    assert normalise_spelling("Root_Mean-Squared  Error") == "root mean squared error"
    a = resolve_alias("root_mean_squared_error", "mle-bench")
    b = resolve_alias("ROOT-MEAN-SQUARED-ERROR", "mle-bench")
    assert a is not None and b is not None and a.metric == b.metric == "rmse"


def test_a_scoped_entry_wins_over_the_general_one_for_its_source_only() -> None:
    scoped = resolve_alias("accuracy", "mle-bench")
    general = resolve_alias("accuracy")
    assert scoped is not None and scoped.source == "mle-bench"
    assert general is not None and general.source == ""
    assert resolve_alias("f1-score") is None  # kuzushiji's meaning is MLE-bench's only


def test_names_one_source_uses_for_different_metrics_are_marked_ambiguous() -> None:
    micro = resolve_alias("micro-f1-score", "mle-bench")
    assert micro is not None and micro.ambiguous and micro.alternatives == ()
    assert "facebook" in micro.note
    boxes = resolve_alias("mean-average-precision", "mle-bench")
    assert boxes is not None and boxes.ambiguous
    assert set(boxes.alternatives) == {"box_map", "box3d_map"}
    auc = resolve_alias("auc-roc", "mle-bench")
    assert auc is not None and set(auc.alternatives) == {"roc_auc", "roc_auc_columnwise"}
    for alias in ALIASES:
        assert not alias.alternatives or alias.ambiguous, alias.spelling
        assert all(m in METRICS for m in alias.alternatives), alias.spelling


def test_an_unknown_source_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown alias source"):
        resolve_alias("rmse", "kaggle-web")  # type: ignore[arg-type]


def test_refinements_agree_and_the_reverse_does_not() -> None:
    assert compare_metrics("multiclass_log_loss", "log_loss") == "refines"
    assert compare_metrics("log_loss", "multiclass_log_loss") == "differs"
    assert compare_metrics("rmse", "rmse") == "same"
    assert compare_metrics("mcrmse", "multiclass_log_loss") == "differs"
    for specific, general in REFINEMENTS.items():
        assert specific != general


def test_parameter_conflicts_list_only_shared_keys_with_different_values() -> None:
    assert params_conflicts({"k": 12}, {"k": 12, "x": 1}) == []
    assert params_conflicts({"k": 12}, {"k": 5}) == ["k: 12 vs 5"]
