"""The 18 Lite tasks end to end: catalogue entries, synthetic answers, best score, rank 1."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from tambench.core.leaderboard import read_leaderboard
from tambench.core.metrics import get_metric
from tambench.core.rank import rank_score
from tambench.schema.io import load_taskspec, to_paper
from tambench.schema.taskspec import SubmissionFormat, TaskSpec
from tests.grading.lite_synth import (
    LITE_TASK_IDS,
    make_answers,
    make_submission_from_answers,
    read_answers,
)

CATALOGUE = Path(__file__).resolve().parents[2] / "tambench" / "tasks" / "catalogue"


def load_spec(task_id: str) -> TaskSpec:
    return load_taskspec(CATALOGUE / task_id / "task.json")


def leaderboard_of(tam_lite_dir: Path, spec: TaskSpec) -> Path:
    return tam_lite_dir / spec.slug / "leaderboard.csv"


def test_there_are_eighteen_lite_tasks_over_six_modalities() -> None:
    assert len(LITE_TASK_IDS) == 18
    specs = [load_spec(t) for t in LITE_TASK_IDS]
    counts: dict[str, int] = {}
    for s in specs:
        assert s.modality is not None
        counts[s.modality.value] = counts.get(s.modality.value, 0) + 1
    assert counts == {m: 3 for m in ["Tabular", "Text", "Image", "Audio", "Graph", "Multimodal"]}


@pytest.mark.parametrize("task_id", LITE_TASK_IDS)
def test_catalogue_entry_is_gradable_with_a_registered_metric(task_id: str) -> None:
    spec = load_spec(task_id)
    assert spec.id == task_id and spec.status == "complete"
    assert spec.title and spec.url.startswith("https://") and spec.field
    assert spec.provenance.mapper == "paper-release" and spec.provenance.notes
    g = spec.grading
    assert g is not None
    metric = get_metric(g.metric)
    metric.resolve_params(g.metric_params)
    if g.submission_format == SubmissionFormat.CSV:
        assert g.id_columns and g.target_columns
        assert g.submission_header[: len(g.id_columns)] == g.id_columns
        assert g.answers_file == "answers.csv"
    else:
        assert g.answers_file == f"answers.{g.submission_format.value}"


def _numbered_items(text: str) -> list[str]:
    """The items of a "1. ... 2. ..." list, without their numbers."""
    return [i.strip() for i in re.split(r"(?:^|\s)\d+\.\s", text) if i.strip()]


@pytest.mark.parametrize("task_id", LITE_TASK_IDS)
def test_catalogue_entry_keeps_the_paper_schema_but_for_noted_departures(
        task_id: str, tam_lite_dir: Path) -> None:
    """The paper's schema verbatim, except fields the statement fill changed, each named by a
    note: advice items dropped from special_instructions (the kept items are the paper's own,
    in its order), and target_col or output_format rewritten to agree with grading."""
    spec = load_spec(task_id)
    paper = json.loads((tam_lite_dir / spec.slug / "schema.json").read_text(encoding="utf-8"))
    ours = to_paper(spec)
    notes = [n for n in spec.provenance.notes if n.startswith("statement: ")]
    for field, value in paper.items():
        if ours[field] != value:
            assert any(field in n for n in notes), (field, notes)
    kept = _numbered_items(ours["special_instructions"])
    theirs = _numbered_items(paper["special_instructions"])
    assert kept == [i for i in theirs if i in kept], "kept items are the paper's, in order"
    dropped = len(theirs) - len(kept)
    assert (dropped == 0) == (not any("removed as advice" in n for n in notes))
    if dropped:
        assert any(n.startswith(f"statement: {dropped} item(s)") for n in notes), notes


@pytest.mark.parametrize("task_id", LITE_TASK_IDS)
def test_catalogue_team_count_is_the_leaderboard_row_count(task_id: str, tam_lite_dir: Path) -> None:
    spec = load_spec(task_id)
    assert spec.n_teams == len(read_leaderboard(leaderboard_of(tam_lite_dir, spec)))


@pytest.mark.parametrize("task_id", LITE_TASK_IDS)
def test_answers_scored_against_themselves_reach_the_best_value_and_rank_first(
    task_id: str, tmp_path: Path, tam_lite_dir: Path
) -> None:
    spec = load_spec(task_id)
    assert spec.grading is not None
    metric = get_metric(spec.grading.metric)
    answers = make_answers(spec, tmp_path, n_rows=60, seed=3)
    y_true, aux = read_answers(spec, answers)
    score = metric(y_true, y_true, **aux, **spec.grading.metric_params)
    assert score == pytest.approx(metric.best_value, abs=1e-9)
    board = read_leaderboard(leaderboard_of(tam_lite_dir, spec)).clean(
        value_range=(metric.lower_bound, metric.upper_bound)
    )
    assert rank_score(score, board, metric.higher_is_better).rank == 1


@pytest.mark.parametrize("task_id", LITE_TASK_IDS)
def test_answers_submitted_as_the_submission_grade_best_and_rank_first(
    task_id: str, tmp_path: Path, tam_lite_dir: Path
) -> None:
    from tambench.grading.grade import grade_submission

    spec = load_spec(task_id)
    assert spec.grading is not None
    metric = get_metric(spec.grading.metric)
    answers = make_answers(spec, tmp_path, n_rows=60, seed=5)
    ext = spec.grading.submission_format.value
    sub = make_submission_from_answers(
        spec, answers, tmp_path / f"submission.{ext}", shuffle_rows=True
    )
    report = grade_submission(sub, spec, answers, leaderboard=leaderboard_of(tam_lite_dir, spec))
    assert report.valid_submission, report.errors
    assert report.score == pytest.approx(metric.best_value, abs=1e-9)
    assert report.rank == 1


@pytest.mark.parametrize("task_id", LITE_TASK_IDS)
def test_a_shuffled_id_copy_of_the_answers_is_rejected(
    task_id: str, tmp_path: Path, tam_lite_dir: Path
) -> None:
    from tambench.grading.grade import grade_submission

    spec = load_spec(task_id)
    assert spec.grading is not None
    metric = get_metric(spec.grading.metric)
    answers = make_answers(spec, tmp_path, n_rows=60, seed=7)
    ext = spec.grading.submission_format.value
    sub = make_submission_from_answers(
        spec, answers, tmp_path / f"submission.{ext}", shuffle_ids=True
    )
    report = grade_submission(sub, spec, answers, leaderboard=leaderboard_of(tam_lite_dir, spec))
    if spec.grading.submission_format == SubmissionFormat.TXT:
        # Line-keyed files carry no ids: moving every line to another question is a valid
        # file that scores worse than the answers, never best.
        assert report.valid_submission, report.errors
        assert report.score is not None and np.isfinite(report.score)
        worse = report.score < metric.best_value if metric.higher_is_better else report.score > metric.best_value
        assert worse
    else:
        assert not report.valid_submission
        assert report.errors
        assert report.score is None
