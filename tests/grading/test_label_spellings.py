"""Labels written in another spelling of the answers' classes never score a silent 0.

One case per kind of respelling the validators know (booleans as digits or in another case,
numbers as integer-like floats, letter case, surrounding spaces, Unicode form). For a task with
a declared label set the submission is refused, naming the declared spelling (read from the
task, never from the answers); where the task declares the spellings equivalent it is graded
as the same classes; a task without a label set says that labels are not checked; ad hoc
grading says when the predicted labels do not occur among the answers' values. Every grading
path is covered: one grade (``--task`` and ``--answers``), ``grade-runs``, MLE-bench's
``submissions.jsonl`` and the Python API.
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import tambench
from tambench.cli.main import main
from tambench.grading.batch import grade_runs
from tambench.grading.grade import grade_submission
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import GradingSpec, TaskSpec


@dataclass(frozen=True)
class Spelling:
    """One kind of respelling: the declared labels, the answers' truths, the submission's
    labels for them, what the message names, and the declaration that grades them alike."""

    name: str
    metric: str
    labels: list[str]
    truths: list[str]
    submitted: list[str]
    named: str
    """A fragment of the refusal: the declared spelling the first label respells."""
    grading: dict[str, Any]
    """GradingSpec fields declaring the spellings equivalent ({}: none can)."""


SPELLINGS = [
    Spelling("boolean-digits", "accuracy", ["False", "True"], ["True", "False", "True", "True"],
             ["1", "0", "1", "1"], "'1' respells 'True' (a boolean written another way)",
             {"label_equivalence": ["boolean"]}),
    Spelling("boolean-words-for-digit-classes", "accuracy", ["0", "1"], ["1", "0", "0", "1"],
             ["True", "False", "False", "True"],
             "'True' respells '1' (a boolean written another way)",
             {"label_equivalence": ["boolean"]}),
    Spelling("boolean-case", "f1", ["False", "True"], ["True", "False", "True", "False"],
             ["true", "false", "true", "false"], "'true' respells 'True' (case)",
             {"label_equivalence": ["case"]}),
    Spelling("integer-like-float", "qwk", ["0", "1", "2", "3", "4"], ["3", "0", "4", "1"],
             ["3.0", "0.0", "4.0", "1.0"], "'3.0' respells '3' (a number written another way)",
             {"label_equivalence": ["number"]}),
    Spelling("letter-case", "f1_macro", ["cat", "dog"], ["cat", "dog", "dog", "cat"],
             ["Cat", "DOG", "DOG", "Cat"], "'Cat' respells 'cat' (case)",
             {"label_equivalence": ["case"]}),
    Spelling("surrounding-spaces", "accuracy", ["cat", "dog"], ["cat", "dog", "dog", "cat"],
             [" cat", "dog ", "dog ", " cat"], "' cat' respells 'cat' (surrounding spaces)",
             {"value_policy": {"strip_spaces": True}}),
    Spelling("unicode-form", "accuracy", ["cat", "dog"], ["cat", "dog", "dog", "cat"],
             ["\uff43\uff41\uff54", "\uff44\uff4f\uff47", "\uff44\uff4f\uff47",
              "\uff43\uff41\uff54"],
             "respells 'cat' (Unicode form)", {}),
]
IDS = ["a", "b", "c", "d"]


def _csv(values: list[str]) -> str:
    return "id,y\n" + "".join(f"{i},{v}\n" for i, v in zip(IDS, values, strict=True))


def _spec(s: Spelling, *, declared: bool = True, equivalent: bool = False) -> TaskSpec:
    fields: dict[str, Any] = {"metric": s.metric, "id_columns": ["id"], "target_columns": ["y"]}
    if s.metric == "f1":
        fields["metric_params"] = {"pos_label": s.labels[-1]}
    if declared:
        fields["labels"] = s.labels
    if equivalent:
        fields.update(s.grading)
    return TaskSpec(id="kaggle/spelling", platform="kaggle", grading=GradingSpec(**fields))


def _files(tmp_path: Path, s: Spelling, truths: list[str] | None = None) -> tuple[Path, Path]:
    (tmp_path / "private").mkdir(parents=True, exist_ok=True)
    answers = tmp_path / "private" / "answers.csv"
    answers.write_text(_csv(truths or s.truths))
    sub = tmp_path / "submission.csv"
    sub.write_text(_csv(s.submitted))
    return sub, answers


@pytest.mark.parametrize("s", SPELLINGS, ids=lambda s: s.name)
def test_a_task_with_a_label_set_refuses_a_respelling_naming_the_declared_spelling(
    s: Spelling, tmp_path: Path
) -> None:
    sub, answers = _files(tmp_path, s)
    report = grade_submission(sub, _spec(s), answers)
    assert not report.valid_submission and report.score is None
    assert len(report.errors) == 1 and "unknown label(s)" in report.errors[0]
    assert s.named in report.errors[0], report.errors[0]
    assert f"allowed labels: {sorted(s.labels)}" in report.errors[0]
    # the message reads the declared labels only: other answers, the same words
    other, answers2 = _files(tmp_path / "other", s, truths=list(reversed(s.truths)))
    assert grade_submission(other, _spec(s), answers2).errors == report.errors


@pytest.mark.parametrize("s", [s for s in SPELLINGS if s.grading], ids=lambda s: s.name)
def test_declared_equivalent_spellings_grade_as_the_same_classes(
    s: Spelling, tmp_path: Path
) -> None:
    sub, answers = _files(tmp_path, s)
    report = grade_submission(sub, _spec(s, equivalent=True), answers)
    assert report.valid_submission and report.score == 1.0, report.errors
    # an unrelated label is still refused, and a wrong class is still wrong
    wrong = list(s.submitted)
    wrong[1] = s.submitted[0]
    sub.write_text(_csv(wrong))
    assert grade_submission(sub, _spec(s, equivalent=True), answers).score != 1.0
    sub.write_text(_csv(["bird", *s.submitted[1:]]))
    refused = grade_submission(sub, _spec(s, equivalent=True), answers)
    assert not refused.valid_submission and "'bird'" in refused.errors[0]


def test_an_equivalence_matching_two_declared_labels_matches_neither(tmp_path: Path) -> None:
    s = SPELLINGS[4]
    spec = _spec(s, equivalent=True)
    spec = spec.model_copy(update={"grading": spec.grading.model_copy(  # type: ignore[union-attr]
        update={"labels": ["cat", "CAT", "dog"]})})
    sub, answers = _files(tmp_path, s)
    sub.write_text(_csv(["Cat", "dog", "dog", "cat"]))
    report = grade_submission(sub, spec, answers)
    assert not report.valid_submission and "'Cat'" in report.errors[0]


def test_an_equivalence_needs_a_declared_label_set(tmp_path: Path) -> None:
    from tambench.errors import TaskSpecError

    s = SPELLINGS[0]
    sub, answers = _files(tmp_path, s)
    with pytest.raises(TaskSpecError, match="label_equivalence: needs the task's label set"):
        grade_submission(sub, _spec(s, declared=False, equivalent=True), answers)


@pytest.mark.parametrize("s", SPELLINGS, ids=lambda s: s.name)
def test_a_task_without_a_label_set_says_labels_are_not_checked(
    s: Spelling, tmp_path: Path
) -> None:
    sub, answers = _files(tmp_path, s)
    report = grade_submission(sub, _spec(s, declared=False), answers)
    assert any("declares no label set" in w for w in report.warnings), report.warnings
    # the words never depend on the answers
    other, answers2 = _files(tmp_path / "other", s, truths=list(reversed(s.truths)))
    assert grade_submission(other, _spec(s, declared=False), answers2).warnings == \
        report.warnings


def _cli(argv: list[str]) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(argv)
    return rc, json.loads(out.getvalue())


@pytest.mark.parametrize("s", SPELLINGS, ids=lambda s: s.name)
def test_ad_hoc_grading_says_the_predictions_are_not_among_the_answers_values(
    s: Spelling, tmp_path: Path
) -> None:
    sub, answers = _files(tmp_path, s)
    extra = ["--metric-param", f"pos_label={s.labels[-1]}"] if s.metric == "f1" else []
    rc, doc = _cli(["grade", str(sub), "--answers", str(answers), "--metric", s.metric,
                    "--id-column", "id", *extra, "--json"])
    assert rc == 0
    said = [w for w in doc["warnings"] if "of the predicted labels occur" in w]
    assert said and said[0].startswith("none of the predicted labels"), doc["warnings"]
    assert "respells" in said[0]
    rc, doc = _cli(["grade", str(sub), "--answers", str(answers), "--metric", s.metric,
                    "--id-column", "id", *extra, "--json",
                    *[f"--label={x}" for x in s.labels], *_flags(s.grading)])
    if s.grading:
        assert doc["valid_submission"] and doc["score"] == 1.0, doc["errors"]
    else:
        assert not doc["valid_submission"] and s.named in doc["errors"][0]


def _flags(grading: dict[str, Any]) -> list[str]:
    out = [f"--label-equivalence={r}" for r in grading.get("label_equivalence", [])]
    return out + [f"--value-policy={k}={str(v).lower()}"
                  for k, v in grading.get("value_policy", {}).items()]


def test_ad_hoc_grading_says_nothing_when_most_predictions_are_answers_values(
    tmp_path: Path,
) -> None:
    s = SPELLINGS[4]
    sub, answers = _files(tmp_path, s)
    sub.write_text(_csv(["cat", "cat", "Dog", "cat"]))  # 3 of 4 among the answers' values
    rc, doc = _cli(["grade", str(sub), "--answers", str(answers), "--metric", "accuracy",
                    "--id-column", "id", "--json"])
    assert rc == 0 and not [w for w in doc["warnings"] if "predicted labels" in w]
    sub.write_text(_csv(["cat", "Cat", "Dog", "Cat"]))  # 1 of 4: few
    rc, doc = _cli(["grade", str(sub), "--answers", str(answers), "--metric", "accuracy",
                    "--id-column", "id", "--json"])
    assert any(w.startswith("1 of 4 of the predicted labels") for w in doc["warnings"])


# --- every grading path -------------------------------------------------------------------------


def _catalogue(tmp_path: Path, spec: TaskSpec, s: Spelling) -> tuple[Path, Path]:
    cat, data = tmp_path / "cat", tmp_path / "data"
    (cat / "kaggle" / "spelling").mkdir(parents=True)
    save_taskspec(spec, cat / "kaggle" / "spelling" / "task.json")
    private = data / "kaggle" / "spelling" / "private"
    private.mkdir(parents=True)
    (private / "answers.csv").write_text(_csv(s.truths))
    return cat, data


def _by_path(path: str, tmp_path: Path, spec: TaskSpec, s: Spelling) -> dict[str, Any]:
    """Grade the respelt submission through one path; (valid, score, errors)."""
    cat, data = _catalogue(tmp_path, spec, s)
    sub = tmp_path / "submission.csv"
    sub.write_text(_csv(s.submitted))
    if path == "grade --task":
        _, doc = _cli(["grade", str(sub), "--task", "kaggle/spelling", "--catalogue", str(cat),
                       "--data-dir", str(data), "--json"])
        return doc
    if path == "python api":
        return tambench.grade(sub, "kaggle/spelling", catalogue=cat, data_dir=data).model_dump()
    if path == "grade-runs":
        run = tmp_path / "runs" / "agent" / "spelling" / "run1"
        run.mkdir(parents=True)
        (run / "submission.csv").write_text(_csv(s.submitted))
        row = grade_runs(tmp_path / "runs", catalogue=cat, data_dir=data).rows[0]
    else:  # MLE-bench's submissions.jsonl
        jsonl = tmp_path / "submissions.jsonl"
        jsonl.write_text(json.dumps({"competition_id": "spelling",
                                     "submission_path": str(sub)}) + "\n")
        row = grade_runs(jsonl, catalogue=cat, data_dir=data).rows[0]
    return {"valid_submission": row.valid_submission, "score": row.score,
            "errors": row.errors, "status": row.status.value}


PATHS = ["grade --task", "python api", "grade-runs", "submissions.jsonl"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("s", [SPELLINGS[0], SPELLINGS[3]], ids=lambda s: s.name)
def test_every_grading_path_refuses_or_grades_a_respelling_as_declared(
    path: str, s: Spelling, tmp_path: Path
) -> None:
    refused = _by_path(path, tmp_path / "strict", _spec(s), s)
    assert refused["valid_submission"] is False and refused["score"] is None
    assert any(s.named in e for e in refused["errors"]), refused
    graded = _by_path(path, tmp_path / "equivalent", _spec(s, equivalent=True), s)
    assert graded["valid_submission"] is True and graded["score"] == 1.0


def test_the_python_api_ad_hoc_says_the_predictions_are_not_among_the_answers_values(
    tmp_path: Path,
) -> None:
    s = SPELLINGS[0]
    sub, answers = _files(tmp_path, s)
    report = tambench.grade(sub, answers=answers, metric="accuracy", id_columns=["id"])
    assert report.score == 0.0
    assert any(w.startswith("none of the predicted labels") for w in report.warnings)
