"""grade_submission end to end: scoring, ranking, medals, metric results that are not numbers,
task resolution (and path traversal), and the ``tambench grade`` command."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tambench.cli.main import main
from tambench.core.layout import safe_join
from tambench.core.metrics.base import METRICS, register
from tambench.errors import UnsafePathError
from tambench.grading.grade import grade_submission, resolve_task
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import Difficulty, GradingSpec, Modality, TaskSpec
from tests.grading.corpus import TASKS, build_perfect, perfect_text

LB_HEADER = "Rank,TeamId,TeamName,LastSubmissionDate,Score,SubmissionCount,TeamMemberUserNames\n"


def write_leaderboard(path: Path, scores: list[float]) -> Path:
    rows = "".join(
        f"{i + 1},{100 + i},team{i},2024-01-01 00:00:00,{s},1,u{i}\n" for i, s in enumerate(scores)
    )
    path.write_text(LB_HEADER + rows)
    return path


def test_perfect_submission_ranks_first_and_earns_gold(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    lb = write_leaderboard(tmp_path / "lb.csv", [0.5 + 0.1 * i for i in range(20)])
    report = grade_submission(sub, spec, answers, lb)
    assert report.valid_submission and report.score == 0.0
    assert (report.rank, report.n_teams, report.rank_pct) == (1, 20, 5.0)
    assert report.gold_medal and report.any_medal and report.above_median
    assert report.is_lower_better
    # N = 20: gold at position max(1, floor(0.1 N)) = 2 of the board sorted best first
    assert report.gold_threshold == 0.6 and report.median_threshold == pytest.approx(1.45)


def test_poor_submission_gets_rank_and_no_medal(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    sub.write_text("id,y\n" + "".join(f"{r[0]},100\n" for r in TASKS["value"].perfect_rows))
    lb = write_leaderboard(tmp_path / "lb.csv", [0.5 + 0.1 * i for i in range(20)])
    report = grade_submission(sub, spec, answers, lb)
    assert report.valid_submission and report.rank == 20 and report.rank_pct == 100.0
    assert not report.any_medal and not report.above_median


def test_report_carries_task_modality_and_tier(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    spec = spec.model_copy(update={
        "modality": Modality.TABULAR, "difficulty": Difficulty(score=0.9, tier="hard"),
    })
    report = grade_submission(sub, spec, answers, now=None)
    assert (report.task_id, report.competition_id) == ("test/value", "value")
    assert (report.modality, report.tier, report.metric) == ("Tabular", "hard", "rmse")


# --- case 40: a metric returning NaN, inf or a non-number --------------------------------------


@pytest.fixture
def odd_metrics() -> Iterator[dict[str, Any]]:
    results: dict[str, Any] = {
        "test_returns_nan": float("nan"),
        "test_returns_inf": float("inf"),
        "test_returns_text": "0.5",
        "test_returns_none": None,
    }
    for mid, value in results.items():
        register(mid, higher_is_better=True, value_range=(0.0, 1.0), kind="value")(
            lambda y_true, y_pred, _v=value: _v
        )
    try:
        yield results
    finally:
        for mid in results:
            METRICS.unregister(mid)


@pytest.mark.parametrize(
    ("metric_id", "message"),
    [
        ("test_returns_nan", r"metric `test_returns_nan` returned nan .*never ranked"),
        ("test_returns_inf", r"metric `test_returns_inf` returned inf .*never ranked"),
        ("test_returns_text", r"metric `test_returns_text` returned str, not a number"),
        ("test_returns_none", r"metric `test_returns_none` returned NoneType, not a number"),
    ],
)
def test_metric_result_that_is_not_a_finite_number_is_invalid_and_never_ranked(
    odd_metrics: dict[str, Any], metric_id: str, message: str, tmp_path: Path
) -> None:
    import re

    spec, answers, sub = build_perfect("value", tmp_path)
    grading = spec.grading.model_copy(update={"metric": metric_id})  # type: ignore[union-attr]
    spec = spec.model_copy(update={"grading": grading})
    lb = write_leaderboard(tmp_path / "lb.csv", [0.1, 0.2, 0.3])
    report = grade_submission(sub, spec, answers, lb)
    assert not report.valid_submission and report.submission_exists
    assert report.score is None and report.rank is None and report.rank_pct is None
    assert report.any_medal is False  # a leaderboard is known: no medal, not unknown
    assert len(report.errors) == 1 and re.search(message, report.errors[0])
    json.loads(report.to_json())  # strict JSON still


def test_constant_prediction_on_a_correlation_metric_is_never_a_nan_score(tmp_path: Path) -> None:
    spec, answers, sub = build_perfect("value", tmp_path)
    grading = spec.grading.model_copy(update={"metric": "pearson"})  # type: ignore[union-attr]
    spec = spec.model_copy(update={"grading": grading})
    sub.write_text("id,y\n" + "".join(f"{r[0]},1.0\n" for r in TASKS["value"].perfect_rows))
    report = grade_submission(sub, spec, answers)
    assert report.score is None or math.isfinite(report.score)
    if not report.valid_submission:
        assert report.errors


# --- resolving tasks; case 38: traversal -------------------------------------------------------


def _catalogue(tmp_path: Path) -> tuple[Path, Path]:
    cat = tmp_path / "catalogue"
    data = tmp_path / "data"
    spec = TaskSpec(id="test/value", platform="test", modality=Modality.TABULAR,
                    grading=TASKS["value"].grading)
    (cat / "test" / "value").mkdir(parents=True)
    save_taskspec(spec, cat / "test" / "value" / "task.json")
    write_leaderboard(cat / "test" / "value" / "leaderboard.csv", [0.5, 1.0, 2.0])
    (data / "test" / "value" / "private").mkdir(parents=True)
    (data / "test" / "value" / "private" / "answers.csv").write_text(TASKS["value"].answers)
    return cat, data


def test_task_id_resolves_to_catalogue_answers_and_leaderboard(tmp_path: Path) -> None:
    cat, data = _catalogue(tmp_path)
    r = resolve_task("test/value", catalogue=cat, data_dir=data)
    assert r.spec.id == "test/value"
    assert r.answers == (data / "test" / "value" / "private" / "answers.csv").resolve()
    assert r.leaderboard == (cat / "test" / "value" / "leaderboard.csv").resolve()
    folder = resolve_task(str(cat / "test" / "value"), data_dir=data)
    assert folder.spec.id == "test/value" and folder.leaderboard is not None


@pytest.mark.parametrize(
    "task", ["test/../../etc", "../test/value", "/etc/passwd", "test/..", "test/val/../../x"]
)
def test_task_ids_with_traversal_are_refused(task: str, tmp_path: Path) -> None:
    cat, data = _catalogue(tmp_path)
    with pytest.raises(UnsafePathError):
        resolve_task(task, catalogue=cat, data_dir=data)


def test_safe_join_refuses_parent_parts_absolute_parts_and_escaping_links(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "out").symlink_to(tmp_path)
    for parts in (("..", "x"), ("a/../../x",), ("/etc",), ("out", "x")):
        with pytest.raises(UnsafePathError):
            safe_join(root, *parts)
    assert safe_join(root, "a", "b") == root / "a" / "b"


# --- the command ---------------------------------------------------------------------------------


def test_grade_command_with_task_id_prints_strict_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data = _catalogue(tmp_path)
    sub = tmp_path / "submission.csv"
    sub.write_text(perfect_text(TASKS["value"]))
    rc = main(["grade", str(sub), "--task", "test/value", "--catalogue", str(cat),
               "--data-dir", str(data), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["valid_submission"] and out["score"] == 0.0 and out["rank"] == 1
    assert out["n_teams"] == 3 and out["gold_medal"]


def test_grade_command_reports_an_invalid_submission_with_exit_code_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.csv"
    answers.write_text(TASKS["value"].answers)
    sub = tmp_path / "submission.csv"
    sub.write_text("id,y\n0001,nan\n")
    rc = main(["grade", str(sub), "--answers", str(answers), "--metric", "rmse",
               "--id-column", "id", "--target-column", "y", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["valid_submission"] is False
    assert "1 rows; expected 10 (one per answer id)" in out["errors"]


def test_grade_command_adhoc_infers_targets_and_takes_metric_params(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.csv"
    answers.write_text(TASKS["multi"].answers)
    sub = tmp_path / "submission.csv"
    sub.write_text(perfect_text(TASKS["multi"]))
    rc = main(["grade", str(sub), "--answers", str(answers), "--metric", "multiclass_log_loss",
               "--metric-param", "renormalize=false", "--id-column", "id"])
    out = capsys.readouterr().out
    assert rc == 0 and "multiclass_log_loss =" in out


def test_grade_command_refuses_traversal_in_task_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data = _catalogue(tmp_path)
    sub = tmp_path / "submission.csv"
    sub.write_text(perfect_text(TASKS["value"]))
    rc = main(["grade", str(sub), "--task", "test/../../x", "--catalogue", str(cat)])
    assert rc == 1
    assert "'..'" in capsys.readouterr().err


def test_grading_spec_without_ids_matches_rows_by_position(tmp_path: Path) -> None:
    answers = tmp_path / "answers.csv"
    answers.write_text("y\n1\n2\n3\n")
    spec = TaskSpec(id="test/pos", platform="test",
                    grading=GradingSpec(metric="rmse", target_columns=["y"]))
    sub = tmp_path / "submission.csv"
    sub.write_text("y\n1\n2\n3\n")
    assert grade_submission(sub, spec, answers).score == 0.0
    sub.write_text("y\n1\n2\n")
    report = grade_submission(sub, spec, answers)
    assert report.errors == ["2 rows; expected 3 (one per answer id)"]


def test_grading_a_valid_submission_imports_neither_pandas_nor_scikit_learn(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tests.grading.corpus import build_perfect\n"
        "from tambench.grading.grade import grade_submission\n"
        "for t in ('value', 'label', 'multi', 'prob'):\n"
        f"    s, a, sub = build_perfect(t, Path({str(tmp_path)!r}) / t)\n"
        "    assert grade_submission(sub, s, a).valid_submission\n"
        "print(sorted(m for m in ('pandas', 'sklearn') if m in sys.modules))\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                         check=True)
    assert out.stdout.strip() == "[]"
