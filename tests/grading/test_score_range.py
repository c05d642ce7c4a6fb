"""No score outside its metric's declared range is ever ranked: it is a grader error, and a
batch keeps the run with that error as its status."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tambench.core.metrics.base import METRICS, get_metric, register
from tambench.errors import ScoreRangeError
from tambench.grading.batch import grade_runs
from tambench.grading.grade import check_score_range, grade_submission
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import TaskSpec
from tests.grading.corpus import TASKS, build_perfect, perfect_text
from tests.grading.test_grade import write_leaderboard

#: metric id -> (declared range, value it returns whatever the input)
RESULTS: dict[str, tuple[tuple[float, float], float]] = {
    "test_range_above": ((0.0, 1.0), 20.0),
    "test_range_below": ((0.0, float("inf")), -0.5),
    "test_range_just_above_upper": ((0.0, 1.0), 1.0 + 4e-16),
    "test_range_wrapped_negative": ((-1.0, 1.0), -1.0000001),
}


@pytest.fixture
def range_metrics() -> Iterator[None]:
    for mid, (value_range, value) in RESULTS.items():
        register(mid, higher_is_better=True, value_range=value_range, kind="value")(
            lambda y_true, y_pred, _v=value: _v
        )
    try:
        yield
    finally:
        for mid in RESULTS:
            METRICS.unregister(mid)


def _spec_with(metric_id: str, tmp_path: Path) -> tuple[TaskSpec, Path, Path]:
    spec, answers, sub = build_perfect("value", tmp_path)
    grading = spec.grading.model_copy(update={"metric": metric_id})  # type: ignore[union-attr]
    return spec.model_copy(update={"grading": grading}), answers, sub


@pytest.mark.parametrize(
    ("metric_id", "shown"),
    [("test_range_above", r"returned 20\.0, outside its declared range \[0, 1\]"),
     ("test_range_below", r"returned -0\.5, outside its declared range \[0, inf\]"),
     ("test_range_wrapped_negative", r"returned -1\.0000001, outside .*\[-1, 1\]")],
)
def test_a_score_outside_the_declared_range_is_a_grader_error_never_ranked(
    range_metrics: None, metric_id: str, shown: str, tmp_path: Path
) -> None:
    spec, answers, sub = _spec_with(metric_id, tmp_path)
    board = write_leaderboard(tmp_path / "lb.csv", [0.1, 0.2, 0.3])
    with pytest.raises(ScoreRangeError, match=rf"grader error: metric `{metric_id}` {shown}"):
        grade_submission(sub, spec, answers, board)


def test_rounding_just_beyond_a_bound_is_snapped_to_the_bound(
    range_metrics: None, tmp_path: Path
) -> None:
    spec, answers, sub = _spec_with("test_range_just_above_upper", tmp_path)
    report = grade_submission(sub, spec, answers)
    assert report.valid_submission and report.score == 1.0


def test_every_registered_bound_is_enforced_in_both_directions() -> None:
    for metric in (METRICS[name] for name in METRICS.names()):
        lo, hi = metric.lower_bound, metric.upper_bound
        inside = 0.0 if lo <= 0.0 <= hi else (lo if lo > -float("inf") else hi)
        assert check_score_range(inside, metric) == inside
        if hi < float("inf"):
            with pytest.raises(ScoreRangeError):
                check_score_range(hi + 1e-6 * max(1.0, abs(hi)), metric)
        if lo > -float("inf"):
            with pytest.raises(ScoreRangeError):
                check_score_range(lo - 1e-6 * max(1.0, abs(lo)), metric)


def test_a_batch_keeps_the_run_whose_score_left_its_range_with_an_error_status(
    range_metrics: None, tmp_path: Path
) -> None:
    cat, data, runs = tmp_path / "catalogue", tmp_path / "data", tmp_path / "runs"
    for name, metric in (("bogus", "test_range_above"), ("value", "rmse")):
        grading = TASKS["value"].grading.model_copy(update={"metric": metric})
        (cat / "test" / name).mkdir(parents=True)
        save_taskspec(TaskSpec(id=f"test/{name}", platform="test", grading=grading),
                      cat / "test" / name / "task.json")
        write_leaderboard(cat / "test" / name / "leaderboard.csv", [0.1, 0.5, 0.9])
        (data / "test" / name / "private").mkdir(parents=True)
        (data / "test" / name / "private" / "answers.csv").write_text(TASKS["value"].answers)
        (runs / "agent" / name / "r1").mkdir(parents=True)
        (runs / "agent" / name / "r1" / "submission.csv").write_text(
            perfect_text(TASKS["value"]))
    report = grade_runs(runs, catalogue=cat, data_dir=data, retries=0)
    rows = {r.task: r for r in report.rows}
    assert set(rows) == {"bogus", "value"}
    bogus = rows["bogus"]
    assert bogus.status == "error"
    assert (bogus.error or "").startswith("ScoreRangeError: grader error: metric "
                                          "`test_range_above` returned 20.0")
    assert bogus.score is None and bogus.rank is None and not bogus.gold_medal
    assert rows["value"].status == "graded_valid" and rows["value"].score == 0.0


def test_accuracy_range_is_the_one_declared_at_registration() -> None:
    metric = get_metric("accuracy")
    assert (metric.lower_bound, metric.upper_bound) == (0.0, 1.0)
    with pytest.raises(ScoreRangeError, match=r"accuracy` returned 1\.5"):
        check_score_range(1.5, metric)
