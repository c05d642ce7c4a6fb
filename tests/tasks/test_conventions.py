"""Imported competitions carry their grading conventions: the table keyed by Kaggle slug, the
function importers call, and `grade --task` on an imported MLE-bench spec with no flag."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core.metrics import get_metric
from tambench.schema.taskspec import GradingSpec
from tambench.tasks.importers import read_tree
from tambench.tasks.importers.conventions import CONVENTIONS, Convention, apply_conventions
from tambench.validation.policies import check_applicable
from tests.tasks.test_importers import build_mle_bench

IMPORTED = GradingSpec(metric="accuracy", id_columns=["id"], target_columns=["y"],
                       submission_header=["id", "y"])


@pytest.mark.parametrize("slug", sorted(CONVENTIONS))
def test_every_entry_has_a_source_and_makes_a_grading_its_metric_accepts(slug: str) -> None:
    entry = CONVENTIONS[slug]
    assert slug == slug.lower() and len(entry.source) > 30
    full = {"metric", "id_columns", "target_columns"} <= set(entry.fields)
    grading, notes = apply_conventions(slug, None if full else IMPORTED)
    assert grading is not None, notes
    assert not any("not applied" in n for n in notes), notes
    assert entry.source in notes[0]
    check_applicable(grading, get_metric(grading.metric))  # nothing declared in vain
    assert set(grading.submission_header) >= {*grading.id_columns, *grading.target_columns}


def test_the_table_replaces_guessed_fields_and_names_each_change() -> None:
    guessed = GradingSpec(metric="dice", id_columns=["ID"], target_columns=["TARGET"],
                          submission_header=["ID", "TARGET"])
    grading, notes = apply_conventions("vinbigdata-chest-xray-abnormalities-detection", guessed)
    assert grading is not None and grading.metric == "box_map"
    assert grading.metric_params == {"iou_thresholds": [0.4]}
    assert grading.submission_header == ["image_id", "PredictionString"]
    assert "id_columns" in notes[0] and "metric" in notes[0]
    assert any("one row per box" in n for n in notes)  # what the task still cannot do


def test_an_unknown_slug_and_an_unset_grading_without_columns_are_left_alone() -> None:
    assert apply_conventions("no-such-competition", IMPORTED) == (IMPORTED, [])
    grading, notes = apply_conventions("Spaceship-Titanic", None)  # labels only: no metric
    assert grading is None and "does not name its metric and columns" in notes[0]


def test_an_entry_that_does_not_fit_is_reported_and_the_import_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(CONVENTIONS, "broken", Convention({"normalize_truths": "sideways"}, "x"))
    grading, notes = apply_conventions("broken", IMPORTED)
    assert grading == IMPORTED and "not applied" in notes[0]


@pytest.fixture
def mle_tree(tmp_path: Path, shared_dir: Path, tam_lite_dir: Path) -> Path:
    return build_mle_bench(tmp_path / "mle-bench", shared_dir, tam_lite_dir)


def test_the_mle_bench_importer_applies_the_table_and_reads_mle_benchs_answers_file(
    mle_tree: Path,
) -> None:
    tasks = {t.spec.id: t.spec for t in read_tree("mle-bench", mle_tree).tasks}
    titanic = tasks["kaggle/spaceship-titanic"].grading
    assert titanic is not None and titanic.answers_file == "test.csv"
    assert titanic.labels == ["False", "True"] and titanic.label_equivalence == ["boolean"]
    covid = tasks["kaggle/stanford-covid-vaccine"].grading
    assert covid is not None and covid.scored_rows is not None
    assert covid.scored_rows.rule == "where"
    notes = tasks["kaggle/stanford-covid-vaccine"].provenance.notes
    assert any("conventions of stanford-covid-vaccine applied" in n and "source:" in n
               for n in notes)


def _run(argv: list[str]) -> tuple[int, dict[str, object]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(argv)
    return rc, json.loads(out.getvalue())


def test_grade_task_on_an_imported_spec_needs_no_flag(mle_tree: Path, tmp_path: Path) -> None:
    cat, data = tmp_path / "cat", tmp_path / "data"
    rc, _ = _run(["tasks", "import", "mle-bench", str(mle_tree), "--catalogue", str(cat),
                  "--json"])
    assert rc in (0, 3)
    private = data / "kaggle" / "spaceship-titanic" / "private"
    private.mkdir(parents=True)
    (private / "test.csv").write_text("PassengerId,Transported\n0001_01,True\n0002_01,False\n"
                                      "0003_01,True\n")
    sub = tmp_path / "submission.csv"
    argv = ["grade", str(sub), "--task", "kaggle/spaceship-titanic", "--catalogue", str(cat),
            "--data-dir", str(data), "--json"]
    sub.write_text("PassengerId,Transported\n0001_01,1\n0002_01,0\n0003_01,0\n")
    rc, doc = _run(argv)
    assert rc == 0 and doc["valid_submission"] and doc["score"] == pytest.approx(2 / 3)
    sub.write_text("PassengerId,Transported\n0001_01,yes\n0002_01,no\n0003_01,no\n")
    rc, doc = _run(argv)
    assert rc == 0 and not doc["valid_submission"]
    assert "allowed labels: ['False', 'True']" in doc["errors"][0]  # type: ignore[index]
