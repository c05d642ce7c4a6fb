"""Properties every registered metric must have, checked over the whole registry."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tambench.core.metrics import METRICS, get_metric, list_metrics
from tests.core.metric_examples import EXTRA_CASES, FACTORIES, Example, permute

SEEDS = [0, 1, 2]
N_ROWS = 40
CASES = [(mid, FACTORIES[mid]) for mid in sorted(FACTORIES)] + EXTRA_CASES
CASE_IDS = [f"{mid}-{i}" for i, (mid, _) in enumerate(CASES)]


def score(metric_id: str, ex: Example, y_pred: object) -> float:
    return get_metric(metric_id)(ex.y_true, y_pred, **ex.aux, **ex.params)


def test_every_registered_metric_has_an_example_factory() -> None:
    missing = sorted(set(METRICS) - set(FACTORIES))
    assert not missing, f"metrics without example inputs in metric_examples.FACTORIES: {missing}"


def test_every_example_factory_names_a_registered_metric() -> None:
    assert sorted(set(FACTORIES) - set(METRICS)) == []


def test_issue_metric_ids_are_all_registered() -> None:
    wanted = """accuracy balanced_accuracy roc_auc roc_auc_columnwise roc_auc_macro_multilabel
    log_loss multiclass_log_loss weighted_multilabel_log_loss kl_divergence f1 f1_micro f1_macro
    f1_weighted fbeta mcc qwk top1_error rmse mse mae rmsle mcrmse mean_log_mae smape mape r2
    r2_mean_columnwise pearson spearman kendall_tau haversine_mean mean_angular_error
    laplace_log_likelihood map_at_k mrr_at_k lwlrap label_ranking_average_precision
    rowwise_set_f1 jaccard_words levenshtein_normalized dice global_dice iou_thresholds_map
    weighted_author_auc mean_ap_per_paper map_at_k_lines pose_maa levenshtein_per_true""".split()
    assert sorted(set(wanted) - set(METRICS)) == []


@pytest.mark.parametrize("metric", list_metrics(), ids=lambda m: m.id)
def test_metric_declares_direction_range_kind_and_documents_them(metric) -> None:
    assert isinstance(metric.higher_is_better, bool)
    assert metric.lower_bound < metric.upper_bound
    doc = metric.fn.__doc__ or ""
    wording = "Higher is better" if metric.higher_is_better else "Lower is better"
    assert wording in doc, f"{metric.id}: docstring must say {wording!r}"
    assert re.search(r"\bbest\b", doc), f"{metric.id}: docstring must state the best value"
    assert "Input" in doc, f"{metric.id}: docstring must state the input shape"
    assert ">>> " in doc, f"{metric.id}: docstring needs a doctest"
    assert math.isfinite(metric.best_value), f"{metric.id}: best value must be finite"
    for name, value in metric.defaults.items():
        assert value is None or isinstance(value, bool | int | float | str | list), (
            f"{metric.id}: default {name}={value!r} must be JSON-serialisable"
        )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("metric_id", "factory"), CASES, ids=CASE_IDS)
def test_perfect_prediction_scores_the_declared_best_value(metric_id, factory, seed) -> None:
    ex = factory(np.random.default_rng(seed), N_ROWS)
    metric = get_metric(metric_id)
    got = score(metric_id, ex, ex.y_perfect)
    assert isinstance(got, float)
    assert got == pytest.approx(metric.best_value, abs=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("metric_id", "factory"), CASES, ids=CASE_IDS)
def test_score_is_finite_and_within_the_declared_range(metric_id, factory, seed) -> None:
    ex = factory(np.random.default_rng(seed), N_ROWS)
    metric = get_metric(metric_id)
    got = score(metric_id, ex, ex.y_other)
    assert math.isfinite(got)
    assert metric.lower_bound - 1e-12 <= got <= metric.upper_bound + 1e-12


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("metric_id", "factory"), CASES, ids=CASE_IDS)
def test_score_does_not_depend_on_row_order(metric_id, factory, seed) -> None:
    rng = np.random.default_rng(seed)
    ex = factory(rng, N_ROWS)
    shuffled = permute(ex, rng)
    assert score(metric_id, shuffled, shuffled.y_other) == pytest.approx(
        score(metric_id, ex, ex.y_other), rel=1e-9, abs=1e-12
    )


@pytest.mark.parametrize(("metric_id", "factory"), CASES, ids=CASE_IDS)
def test_arbitrary_prediction_is_not_better_than_the_best_value(metric_id, factory) -> None:
    ex = factory(np.random.default_rng(7), N_ROWS)
    metric = get_metric(metric_id)
    got = score(metric_id, ex, ex.y_other)
    best = score(metric_id, ex, ex.y_perfect)
    assert (got <= best + 1e-12) if metric.higher_is_better else (got >= best - 1e-12)
