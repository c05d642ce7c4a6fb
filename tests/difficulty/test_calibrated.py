"""The calibrated difficulty model: its shipped parameters (a golden file), what they were
fitted on, the statistics it reads, and the three tiers it can give."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from tambench.core.leaderboard import read_leaderboard
from tambench.core.metrics import METRICS
from tambench.difficulty.calibrated import (
    PARAMS_FILE,
    calibrated_difficulty,
    load_params,
    shipped_params,
)
from tambench.difficulty.features import board_stats
from tambench.difficulty.fit import (
    LabelledBoard,
    agreement_of,
    cross_validate,
    fit_model,
    hold_out,
    predict,
)
from tambench.difficulty.methods import METHODS, compute_all
from tambench.errors import DifficultyError, ReportVersionError
from tambench.schema.taskspec import Tier
from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir
from tambench.tasks.leaderboards import scale_of
from tests.conftest import TESTS_DATA
from tests.difficulty.conftest import MakeMetric, board

GOLDEN = TESTS_DATA / "golden" / "calibrated_params.json"
LABEL_TIERS = {"low": 0, "medium": 1, "high": 2}


def test_shipped_parameters_equal_the_reviewed_golden_file(update_golden: bool) -> None:
    shipped = PARAMS_FILE.read_text(encoding="utf-8")
    if update_golden:
        GOLDEN.write_text(shipped, encoding="utf-8")
    assert json.loads(shipped) == json.loads(GOLDEN.read_text(encoding="utf-8")), (
        "calibrated_params.json changed: review the diff, then rerun with --update-golden")


def _labelled() -> list[LabelledBoard]:
    out = []
    for e in sorted(Catalogue(bundled_catalogue_dir()), key=lambda e: e.id):
        label, scale = e.spec.reference_tiers.get("mle-bench"), scale_of(e.spec)
        if label and scale is not None and e.has_leaderboard:
            stats = board_stats(read_leaderboard(e.leaderboard_path), scale).as_dict()
            out.append(LabelledBoard(e.id, stats, LABEL_TIERS[label]))
    return out


def test_parameters_are_what_the_shipped_labelled_boards_give_and_nothing_else() -> None:
    p = shipped_params()
    boards = _labelled()
    assert len(boards) == 55
    assert sorted([*p.fitted_on, *p.held_out]) == sorted(b.task for b in boards)
    assert not set(p.fitted_on) & set(p.held_out)
    fitted, held = hold_out(boards, 0.2, 0)
    assert [b.task for b in held] == p.held_out
    refit = fit_model(fitted, p.features, p.fill, p.l2)
    for ours, theirs in ((refit.weights, p.weights), (refit.means, p.means),
                         ([refit.cut_easy, refit.cut_medium], [p.cut_easy, p.cut_medium])):
        assert ours == pytest.approx(theirs, abs=1e-6)


def test_held_out_boards_agree_as_docs_difficulty_reports() -> None:
    p = shipped_params()
    held = [b for b in _labelled() if b.task in set(p.held_out)]
    check = agreement_of([b.tier for b in held], predict(p, held))
    report = json.loads((Path(__file__).resolve().parents[2] / "docs" / "difficulty-fit.json")
                        .read_text(encoding="utf-8"))
    assert check.model_dump() == report["held_out_check"]
    assert check.agreement >= 0.7 and check.two_step_jumps == 0


def test_cross_validation_never_predicts_a_board_with_a_model_fitted_on_it() -> None:
    boards = _labelled()[:20]
    tagged = [LabelledBoard(b.task, {**b.stats, "log_podium_gap": float(i)}, b.tier)
              for i, b in enumerate(boards)]
    cv = cross_validate(tagged, ["log_podium_gap", "unbounded"], {}, 0.1, folds=4, repeats=2)
    assert cv.pooled.n == 40 and sum(map(sum, cv.pooled.confusion)) == 40
    assert 0.0 <= cv.min_agreement <= cv.mean_agreement <= cv.max_agreement <= 1.0


def test_the_model_gives_all_three_tiers(temp_metric: MakeMetric) -> None:
    auc = temp_metric("test_tmp_cal_auc", higher_is_better=True, value_range=(0.0, 1.0))
    rmse = temp_metric("test_tmp_cal_rmse", higher_is_better=False, value_range=(0.0, math.inf))
    saturated = calibrated_difficulty(board([1.0, 1.0, 0.999, 0.99, 0.98, 0.9]), auc)
    far = calibrated_difficulty(board([0.2, 0.19, 0.18, 0.1, 0.05, 0.01]), auc)
    unbounded = calibrated_difficulty(board([1.0, 1.5, 2.0, 2.5, 3.0]), rmse)
    assert (saturated.tier, far.tier, unbounded.tier) == (Tier.EASY, Tier.HARD, Tier.MEDIUM)
    assert saturated.score < unbounded.score < far.score
    assert far.inputs["podium_gap"] == pytest.approx(1 - (0.2 + 0.19 + 0.18) / 3)
    assert "winner_gap" not in unbounded.inputs  # undefined: left out, inputs stay strict JSON
    assert any("no finite range" in n for n in unbounded.notes)
    probs = (far.inputs["p_easy"], far.inputs["p_medium"], far.inputs["p_hard"])
    assert sum(probs) == pytest.approx(1.0)


def test_board_statistics_match_hand_computation(temp_metric: MakeMetric) -> None:
    err = temp_metric("test_tmp_cal_err", higher_is_better=False, value_range=(0.0, 1.0))
    stats = board_stats(board([0.1, 0.2, 0.3, 0.4, 0.5]), err)
    assert stats.best == 0.1 and stats.median == 0.3
    assert stats.winner_gap == pytest.approx(0.1)
    assert stats.podium_gap == pytest.approx(0.2)
    assert stats.log_podium_gap == pytest.approx(math.log10(0.21))
    assert stats.top_median_gap == pytest.approx(0.2 / 0.3)
    assert stats.participants == 5 and stats.unbounded == 0.0


def test_a_board_with_no_usable_score_is_an_error(temp_metric: MakeMetric) -> None:
    m = temp_metric("test_tmp_cal_acc", higher_is_better=True, value_range=(0.0, 1.0))
    with pytest.raises(DifficultyError, match="no score left"):
        calibrated_difficulty(board(["", "nan"]), m)


def test_parameters_of_a_newer_version_are_refused(tmp_path: Path) -> None:
    data = json.loads(PARAMS_FILE.read_text(encoding="utf-8"))
    path = tmp_path / "params.json"
    path.write_text(json.dumps({**data, "schema_version": 99}), encoding="utf-8")
    with pytest.raises(ReportVersionError, match="newer"):
        load_params(path)
    path.write_text(json.dumps({**data, "features": ["no_such_statistic", "unbounded"]}),
                    encoding="utf-8")
    with pytest.raises(ValueError, match="unknown statistics"):
        load_params(path)


def test_every_registered_method_tiers_a_real_board(tam_lite_dir: Path) -> None:
    lb = read_leaderboard(tam_lite_dir / "mlsp-2013-birds" / "leaderboard.csv")
    first, others = compute_all(lb, METRICS["roc_auc"], "calibrated")
    results = {r.method: r for r in (first, *others)}
    assert set(results) == set(METHODS.names()) == {"calibrated", "paper", "robust"}
    for r in results.values():
        assert r.tier in (Tier.EASY, Tier.MEDIUM, Tier.HARD)
        assert json.dumps(r.inputs, allow_nan=False)


def test_an_unknown_method_names_the_valid_ones() -> None:
    with pytest.raises(DifficultyError, match="valid: calibrated, paper, robust"):
        METHODS["median"]


def test_the_fit_script_check_mode_agrees_with_the_shipped_parameters(tmp_path: Path) -> None:
    """The stored parameters are what ``scripts/fit_difficulty.py`` writes (same code path)."""
    import importlib.util

    script = Path(__file__).resolve().parents[2] / "scripts" / "fit_difficulty.py"
    spec = importlib.util.spec_from_file_location("fit_difficulty", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cat = tmp_path / "cat"
    shutil.copytree(bundled_catalogue_dir(), cat)
    boards, _ = module.labelled_boards(cat)
    assert [b.task for b in boards] == [b.task for b in _labelled()]
