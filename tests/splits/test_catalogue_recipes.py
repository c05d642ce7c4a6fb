"""Every catalogue recipe with a raw fixture builds from a download in its real layout.

For each task whose folder has a ``raw_fixture.json``: a small download is generated in the
competition's layout (file names, nesting, columns), then prepared with the task's own recipe,
audited, its public sample submission validated without the answers, and a submission equal
to the answers graded (the metric's best value), in the answers' order and shuffled.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

from tambench.grading.grade import grade_submission
from tambench.grading.verdict import check_submission, public_task
from tambench.schema.taskspec import TaskSpec
from tambench.splits.fixture import FIXTURE_FILE, RawFixture, make_download
from tambench.splits.prepare import prepare_task
from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir

CATALOGUE = Catalogue(bundled_catalogue_dir())
FIXTURES = sorted(p.parent for p in bundled_catalogue_dir().glob(f"*/*/{FIXTURE_FILE}"))


def _task_id(folder: Path) -> str:
    return folder.relative_to(bundled_catalogue_dir()).as_posix()


def test_the_complete_lite_and_medium_tasks_have_fixtures() -> None:
    ids = {_task_id(f) for f in FIXTURES}
    assert {"kaggle/spaceship-titanic", "kaggle/new-york-city-taxi-fare-prediction",
            "kaggle/binary-prediction-of-poisonous-mushrooms",
            "kaggle/image-matching-challenge-2024-hexathlon", "aicrowd/nextproductprediction",
            "biendata/aqa", "biendata/ind"} <= ids


#: The README's example runs in every test run; the others (about 1 s each) are ``long``.
QUICK = {"kaggle/spaceship-titanic"}


@pytest.mark.parametrize("folder", [
    f if _task_id(f) in QUICK else pytest.param(f, marks=pytest.mark.long) for f in FIXTURES],
    ids=_task_id)
def test_the_recipe_prepares_its_real_layout_and_grades_the_answers_best(
        folder: Path, tmp_path: Path) -> None:
    spec = CATALOGUE.get(_task_id(folder)).spec
    assert spec.split is not None and spec.grading is not None
    fixture = RawFixture.read(folder / FIXTURE_FILE)
    assert fixture.sources and spec.split.sources, "a recipe names where its layout was read"
    download = make_download(fixture, tmp_path / "download.zip")
    res = prepare_task(spec, download, tmp_path / "data", grader=grade_submission)
    assert res.audit is not None and res.audit.passed, res.audit.findings
    pub = res.task_dir / "public"
    task = public_task(spec, public_dir=pub)
    fmt = spec.grading.submission_format.value
    verdict = check_submission(pub / f"sample_submission.{fmt}", task, task.reference(None))
    assert verdict.valid_submission, verdict.errors
    answers_path = res.task_dir / "private" / spec.grading.answers_file
    if fmt == "txt":
        _grade_line_answers(spec, answers_path, tmp_path)
        return
    if fmt == "json":
        _grade_json_answers(spec, answers_path, tmp_path)
        return
    answers = pl.read_csv(answers_path, infer_schema=False)
    if spec.grading.answers_target_columns:  # the answers name the targets their own way
        answers = answers.rename(dict(zip(spec.grading.answers_target_columns,
                                          spec.grading.target_columns, strict=True)))
    sample = pl.read_csv(pub / "sample_submission.csv", infer_schema=False)
    keys = [c for c in spec.grading.id_columns if c in sample.columns]  # uw-madison: id, class
    truth = sample.select(keys).join(
        answers.select([c for c in sample.columns if c in answers.columns]), on=keys,
        how="left", maintain_order="left")
    for c in sample.columns:
        if c not in truth.columns:
            truth = truth.with_columns(sample[c])
    truth = truth.select(sample.columns)
    if spec.grading.normalize_truths == "row_sum":  # answers hold counts, submissions shares
        targets = spec.grading.target_columns
        total = pl.sum_horizontal([pl.col(t).cast(pl.Float64) for t in targets])
        truth = truth.with_columns([(pl.col(t).cast(pl.Float64) / total).alias(t)
                                    for t in targets])
    from tambench.core.metrics import get_metric

    metric = get_metric(spec.grading.metric)
    if metric.perfect is not None:  # predictions written otherwise than truths (points)
        truth = truth.with_columns([pl.col(t).map_elements(metric.perfect, return_dtype=pl.String)
                                    for t in spec.grading.target_columns])
    best = metric.best_value
    for name, rows in (("ordered", truth), ("shuffled", truth.sample(fraction=1.0, seed=1,
                                                                        shuffle=True))):
        path = tmp_path / f"{name}.csv"
        rows.write_csv(path)
        report = grade_submission(path, spec, answers_path)
        assert report.valid_submission, (name, report.errors)
        assert report.score is not None and math.isclose(float(report.score), best,
                                                         abs_tol=1e-9), (name, report.score)


def _grade_json_answers(spec: TaskSpec, answers_path: Path, tmp_path: Path) -> None:
    """A JSON task: its answers submitted as they are score best, and so do the same
    entries in reverse order (JSON objects are matched by key)."""
    from tambench.core.metrics import get_metric

    assert spec.grading is not None
    best = get_metric(spec.grading.metric).best_value
    doc = json.loads(answers_path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict) and len(doc) >= 2
    reverse = {k: (dict(reversed(v.items())) if isinstance(v, dict) else v)
               for k, v in reversed(doc.items())}
    for name, value in (("ordered", doc), ("shuffled", reverse)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(value), encoding="utf-8")
        report = grade_submission(path, spec, answers_path)
        assert report.valid_submission, (name, report.errors)
        assert math.isclose(float(report.score), best, abs_tol=1e-9), (name, report.score)


def _grade_line_answers(spec: TaskSpec, answers_path: Path, tmp_path: Path) -> None:
    """A line-file task: its answers submitted as they are score best; the same lines
    shuffled are still valid but score less (lines are matched by position)."""
    from tambench.core.metrics import get_metric

    assert spec.grading is not None
    best = get_metric(spec.grading.metric).best_value
    lines = answers_path.read_text(encoding="utf-8").splitlines()
    assert len(set(lines)) >= 2, "the fixture's answers need two different lines"
    shuffled = lines[1:] + lines[:1]
    for name, rows in (("ordered", lines), ("shuffled", shuffled)):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"{r}\n" for r in rows), encoding="utf-8")
        report = grade_submission(path, spec, answers_path)
        assert report.valid_submission, (name, report.errors)
        score = float(report.score)
        assert math.isclose(score, best, abs_tol=1e-9) == (name == "ordered"), (name, score)
