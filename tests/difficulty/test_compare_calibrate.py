"""Labels files, tier comparison (confusion, agreement, weighted kappa) and calibration."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from tambench.difficulty.calibrate import (
    CalibrationReport,
    best_thresholds,
    calibrate,
    fit_params,
    predict_tiers,
    weight_grid,
)
from tambench.difficulty.compare import (
    compare_tiers,
    linear_weighted_kappa,
    parse_labels,
    read_labels,
    resolve_label_ids,
)
from tambench.difficulty.formula import DifficultyParams, DifficultyResult, formula_terms
from tambench.errors import DifficultyError, ReportVersionError
from tambench.schema.taskspec import Tier

E, M, H = Tier.EASY, Tier.MEDIUM, Tier.HARD


def test_labels_accept_mle_bench_low_medium_high_and_extra_columns(tmp_path: Path) -> None:
    p = tmp_path / "labels.csv"
    p.write_text("\ufefftask,tier,source\nkaggle/a,low,mle\nb, High ,mle\nkaggle/c,medium,x\n",
                 encoding="utf-8")
    assert read_labels(p) == {"kaggle/a": E, "b": H, "kaggle/c": M}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is empty"),
        ("task,level\na,easy\n", r"lacks column\(s\) \['tier'\]"),
        ("task,tier\na,trivial\n", "line 2: unknown tier 'trivial'"),
        ("task,tier\na,easy\na,hard\n", "line 3: task 'a' labelled twice"),
        ("task,tier\n", "no rows"),
        ("task,tier\na,easy,extra\n", "line 2: 3 fields, expected 2"),
    ],
)
def test_bad_labels_files_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(DifficultyError, match=message):
        parse_labels(text)


def _catalogue(root: Path, ids: list[str]) -> Path:
    from tambench.schema.io import save_taskspec
    from tambench.schema.taskspec import TaskSpec

    for tid in ids:
        platform = tid.split("/", 1)[0]
        save_taskspec(TaskSpec(id=tid, platform=platform, status="incomplete"),
                      root / tid / "task.json")
    return root


def test_bare_slugs_resolve_through_the_task_locator_and_unknown_names_are_listed(
    tmp_path: Path,
) -> None:
    cat = _catalogue(tmp_path / "cat", ["biendata/ind", "kaggle/x", "kaggle/y"])
    resolved, unknown = resolve_label_ids({"ind": E, "kaggle/X": H, "nowhere": M}, cat)
    assert resolved == {"biendata/ind": E, "kaggle/x": H}
    assert unknown == ["nowhere"]


def test_a_bare_slug_on_two_platforms_is_an_error_naming_both(tmp_path: Path) -> None:
    cat = _catalogue(tmp_path / "cat", ["kaggle/same", "aicrowd/same"])
    with pytest.raises(DifficultyError, match="aicrowd/same, kaggle/same"):
        resolve_label_ids({"same": E}, cat)


def test_comparison_counts_confusion_agreement_and_signed_steps() -> None:
    reference = {"a": E, "b": E, "c": M, "d": H, "e": H, "only-ref": E}
    predicted = {"a": E, "b": H, "c": M, "d": M, "e": H, "only-pred": M}
    cmp = compare_tiers(predicted, reference)
    assert cmp.tasks == ("a", "b", "c", "d", "e")
    assert cmp.confusion == ((1, 0, 1), (0, 1, 0), (0, 1, 1))
    assert cmp.agreement == pytest.approx(3 / 5)
    assert [(c.task, c.steps) for c in cmp.changed] == [("b", 2), ("d", -1)]
    assert cmp.only_reference == ("only-ref",) and cmp.only_predicted == ("only-pred",)
    d = cmp.to_dict()
    assert d["changed_by_steps"] == {"1": 1, "2": 1}


def test_linear_weighted_kappa_matches_hand_computation_and_sklearn() -> None:
    ref = [0, 0, 1, 2, 2]
    pred = [0, 2, 1, 1, 2]
    conf = np.zeros((3, 3))
    for r, p in zip(ref, pred, strict=True):
        conf[r, p] += 1
    # Observed weighted disagreement: (1 + 0.5) / 5 = 0.3. Marginals: ref (2,1,2), pred
    # (1,2,2); expected = sum_ij w_ij r_i p_j / 25 = (0.5*2*2 + 1*2*2 + 0.5*1*1 + 0.5*1*2
    # + 1*2*1 + 0.5*2*2) / 25 = 11.5 / 25 = 0.46; kappa = 1 - 0.3 / 0.46.
    assert linear_weighted_kappa(conf) == pytest.approx(1 - 0.3 / 0.46)
    assert linear_weighted_kappa(conf) == pytest.approx(
        cohen_kappa_score(ref, pred, weights="linear"))


def test_kappa_is_none_when_both_sides_use_one_tier() -> None:
    cmp = compare_tiers({"a": E, "b": E}, {"a": E, "b": E})
    assert cmp.agreement == 1.0 and cmp.kappa_linear is None


def test_comparison_without_common_tasks_is_an_error() -> None:
    with pytest.raises(DifficultyError, match="no task has both"):
        compare_tiers({"a": E}, {"b": E})


def test_weight_grid_covers_the_simplex() -> None:
    grid = weight_grid(0.05)
    assert grid.shape == (231, 3)
    assert np.allclose(grid.sum(axis=1), 1.0) and (grid >= 0).all()
    assert any(np.allclose(row, [0.4, 0.1, 0.5]) for row in grid)
    with pytest.raises(DifficultyError, match="divide 1"):
        weight_grid(0.3)


def _brute_force_agreement(d: np.ndarray, y: np.ndarray) -> int:
    cands = sorted(set(d.tolist()))
    cuts = [cands[0] - 1.0, *cands]
    best = 0
    for t1, t2 in itertools.product(cuts, cuts):
        if t1 > t2:
            continue
        pred = np.where(d <= t1, 0, np.where(d <= t2, 1, 2))
        best = max(best, int((pred == y).sum()))
    return best


def test_best_thresholds_are_optimal_against_brute_force() -> None:
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(3, 14))
        d = np.round(rng.random(n), 1)  # rounding makes ties, which must stay together
        y = rng.integers(0, 3, n)
        cut = best_thresholds(d, y)
        assert cut.easy_max <= cut.medium_max
        pred = np.where(d <= cut.easy_max, 0, np.where(d <= cut.medium_max, 1, 2))
        assert int((pred == y).sum()) == cut.agreement == _brute_force_agreement(d, y)


def _result(task_score: tuple[float, float, float]) -> DifficultyResult:
    norm_mean, log_p, best_term = task_score
    terms = formula_terms(mean_score=norm_mean, best_score=1 - best_term, min_score=0.0,
                          max_score=1.0, participants=int(round(10 ** log_p)) - 1,
                          higher_is_better=True)
    from tambench.difficulty.formula import tier_for

    return DifficultyResult("paper", terms["difficulty"], tier_for(terms["difficulty"]), terms)


def _synthetic(n: int, seed: int, true: DifficultyParams) -> tuple[dict[str, DifficultyResult],
                                                                    dict[str, Tier]]:
    rng = np.random.default_rng(seed)
    results, labels = {}, {}
    for i in range(n):
        nm, lp, bt = rng.random(), rng.uniform(1, 3.5), rng.random()
        r = _result((nm, lp, bt))
        x = np.array([[r.inputs["norm_mean"], r.inputs["log10_participants_plus_1"],
                       r.inputs["best_term"]]])
        results[f"t{i:03d}"] = r
        labels[f"t{i:03d}"] = predict_tiers(x, true)[0]
    return results, labels


def test_calibration_recovers_tiers_made_by_other_weights_and_beats_the_paper_held_out() -> None:
    true = DifficultyParams(w1=0.1, w2=0.3, w3=0.6, easy_max=0.55, medium_max=0.8)
    results, labels = _synthetic(90, 1, true)
    report = calibrate(results, labels, k=5, seed=0, step=0.05)
    assert report.n == 90 and report.k == 5 and len(report.fold_params) == 5
    assert report.fitted_agreement / report.n >= 0.95
    assert report.heldout.agreement >= 0.85
    assert report.heldout.agreement > report.paper.agreement
    assert "calibration helps" in report.verdict
    d = report.model_dump(mode="json")
    assert d["schema_version"] == 1
    assert d["paper_params"] == {"w1": 0.4, "w2": 0.1, "w3": 0.5, "easy_max": 0.6,
                                 "medium_max": 0.85}
    assert CalibrationReport.parse(d) == report


def test_a_calibration_report_of_a_newer_version_is_refused() -> None:
    results, labels = _synthetic(30, 4, DifficultyParams())
    d = calibrate(results, labels, k=3, seed=0).model_dump(mode="json")
    with pytest.raises(ReportVersionError, match="newer"):
        CalibrationReport.parse({**d, "schema_version": 99})


def test_calibration_when_labels_follow_the_paper_does_not_claim_a_gain() -> None:
    results, labels = _synthetic(60, 2, DifficultyParams())
    report = calibrate(results, labels, k=4, seed=3)
    assert report.paper.agreement == 1.0
    assert report.heldout.agreement <= 1.0
    assert "does not help" in report.verdict


def test_calibration_is_deterministic_for_a_seed() -> None:
    true = DifficultyParams(w1=0.2, w2=0.2, w3=0.6, easy_max=0.5, medium_max=0.75)
    results, labels = _synthetic(40, 5, true)
    a = calibrate(results, labels, seed=11).model_dump()
    b = calibrate(results, labels, seed=11).model_dump()
    assert a == b


def test_calibration_refuses_too_few_or_single_tier_labels() -> None:
    results, labels = _synthetic(10, 4, DifficultyParams())
    with pytest.raises(DifficultyError, match="at least 3"):
        calibrate(dict(list(results.items())[:2]), labels)
    with pytest.raises(DifficultyError, match="same tier"):
        calibrate(results, dict.fromkeys(results, E))


def test_fit_params_rejects_misshaped_features() -> None:
    with pytest.raises(DifficultyError, match="shape"):
        fit_params(np.zeros((4, 2)), np.zeros(4, dtype=int))
