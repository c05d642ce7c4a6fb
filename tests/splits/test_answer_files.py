"""Tasks graded on a line file or a JSON document: keyed split, then rendered answers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from tambench.errors import SplitError
from tambench.grading.grade import grade_submission
from tambench.schema.taskspec import TaskSpec
from tambench.splits.audit import audit_task
from tambench.splits.layout import plan_split
from tambench.splits.prepare import prepare_task


def _spec(slug: str, split: dict[str, object], fmt: str = "txt",
          metric: str = "map_at_k_lines") -> TaskSpec:
    return TaskSpec.model_validate({
        "id": f"biendata/{slug}", "platform": "biendata",
        "grading": {"metric": metric, "submission_format": fmt,
                    "answers_file": f"answers.{fmt}"},
        "split": {"strategy": "random", "test_size": 0.25, "id_column": "qid",
                  "target_columns": ["pids"], **split}})


def _questions(raw: Path, n: int = 40) -> None:
    raw.mkdir(parents=True, exist_ok=True)
    rows = [{"question": f"q {i}", "pids": [f"p{i}", f"p{i + 100}"]} for i in range(n)]
    (raw / "qa_train.txt").write_text("".join(json.dumps(r) + "\n" for r in rows))


SPLIT = {"train_file": "qa_train.txt",
         "transforms": [{"op": "row_number", "column": "qid"},
                        {"op": "join_list", "column": "pids", "separator": ","}]}


def test_the_answers_are_lines_in_public_test_order_and_grade_best(tmp_path: Path) -> None:
    _questions(tmp_path / "raw")
    spec = _spec("aqa", SPLIT)
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", grader=grade_submission)
    assert res.audit is not None and res.audit.passed, res.audit.findings
    pub, priv = res.task_dir / "public", res.task_dir / "private"
    assert not (pub / "sample_submission.csv").exists()
    test = pl.read_csv(pub / "test.csv", infer_schema=False)
    assert "pids" not in test.columns and test.height == 10
    lines = (priv / "answers.txt").read_text().splitlines()
    # the JSON lines of qa_train.txt: question i has pids p<i>,p<i+100>; qid is its row number
    assert lines == [f"p{q},p{int(q) + 100}" for q in test["qid"]]
    sample = (pub / "sample_submission.txt").read_text().splitlines()
    assert len(sample) == 10 and sample != lines
    assert res.report.sample_submission.score is not None
    assert res.report.sample_submission.score < 1.0
    submission = shutil.copyfile(priv / "answers.txt", tmp_path / "submission.txt")
    best = grade_submission(submission, spec, priv / "answers.txt")
    assert best.valid_submission and best.score == 1.0
    description = (pub / "description.md").read_text()
    assert "line i answers row i of `test.csv`" in description


def test_a_sample_equal_to_the_answers_fails_the_audit(tmp_path: Path) -> None:
    _questions(tmp_path / "raw")
    spec = _spec("aqa2", SPLIT)
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    shutil.copyfile(res.task_dir / "private/answers.txt",
                    res.task_dir / "public/sample_submission.txt")
    check = {c.name: c for c in audit_task(spec, res.task_dir).checks}["sample_submission"]
    assert check.status == "fail"
    assert "it equals the answers" in check.findings[0]


def test_line_tasks_need_one_target_and_an_id_and_json_answers_are_refused() -> None:
    with pytest.raises(SplitError, match="exactly one split.target_columns"):
        plan_split(_spec("x", {"target_columns": ["pids", "other"]}))
    with pytest.raises(SplitError, match="set split.id_column"):
        plan_split(_spec("x", {"id_column": ""}))
    with pytest.raises(SplitError, match="answers_keys names the two columns"):
        plan_split(_spec("x", {}, fmt="json", metric="mean_ap_per_paper"))
    plan = plan_split(_spec("x", {}))
    assert (plan.answers_file, plan.rendered_file, plan.sample_file) == (
        "answers.csv", "answers.txt", "sample_submission.txt")


def test_a_target_with_a_line_break_is_refused(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    pl.DataFrame({"question": [f"q{i}" for i in range(20)],
                  "pids": ["a\nb"] * 20}).write_csv(raw / "qa.csv")
    spec = _spec("aqa3", {"train_file": "qa.csv",
                          "transforms": [{"op": "row_number", "column": "qid"}]})
    with pytest.raises(SplitError, match="hold a line break"):
        prepare_task(spec, raw, tmp_path / "data")


IND_SPLIT = {
    "strategy": "group", "train_file": "train_author.json", "id_column": "id",
    "target_columns": ["label"], "group_column": "author_id", "test_size": 0.25,
    "answers_keys": ["author_id", "paper_id"], "hidden_columns": {"position": "public"},
    "transforms": [
        {"op": "rename", "columns": {"key": "author_id"}},
        {"op": "unpivot", "keys": ["normal_data", "outliers"], "key_column": "label",
         "columns": {"paper_id": "{key}"}},
        {"op": "explode", "columns": ["paper_id"], "position_column": "position"},
        {"op": "map_values", "column": "label",
         "mapping": {"normal_data": "1", "outliers": "0"}},
        {"op": "compose_id", "column": "id", "template": "{author_id}-{paper_id}"}]}


def _authors(raw: Path, n: int = 20) -> None:
    raw.mkdir(parents=True, exist_ok=True)
    doc = {f"a{i}": {"name": f"n {i}", "normal_data": [f"p{i}x{j}" for j in range(3)],
                     "outliers": [f"p{i}y"]} for i in range(n)}
    (raw / "train_author.json").write_text(json.dumps(doc))


def test_json_answers_nest_the_keyed_answers_with_numbers(tmp_path: Path) -> None:
    _authors(tmp_path / "raw")
    spec = _spec("ind", IND_SPLIT, fmt="json", metric="weighted_author_auc")
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", grader=grade_submission)
    assert res.audit is not None and res.audit.passed, res.audit.findings
    pub, priv = res.task_dir / "public", res.task_dir / "private"
    test = pl.read_csv(pub / "test.csv", infer_schema=False)
    assert {"label", "position"}.isdisjoint(test.columns) and test.height == 20
    answers = json.loads((priv / "answers.json").read_text())
    # an object of records was read one row per author; its papers labelled by their list
    expected: dict[str, dict[str, int]] = {}
    for author, paper in zip(test["author_id"], test["paper_id"], strict=True):
        expected.setdefault(author, {})[paper] = 0 if paper.endswith("y") else 1
    assert answers == expected and len(answers) == 5
    sample = json.loads((pub / "sample_submission.json").read_text())
    assert sample.keys() == answers.keys() and sample != answers
    submission = shutil.copyfile(priv / "answers.json", tmp_path / "submission.json")
    assert grade_submission(submission, spec, priv / "answers.json").score == 1.0


def test_json_answers_need_their_keys_once_per_row(tmp_path: Path) -> None:
    with pytest.raises(SplitError, match="answers_keys names the two columns"):
        plan_split(_spec("x", {"answers_keys": ["a", "b"]}))
    _authors(tmp_path / "raw")
    spec = _spec("ind2", {**IND_SPLIT, "answers_keys": ["author_id", "name"]}, fmt="json",
                 metric="weighted_author_auc")
    with pytest.raises(SplitError, match=r"\(author_id, name\) = .* is on two rows"):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data")


def test_the_keyed_and_ids_fixture_kinds_write_an_object_of_records() -> None:
    from tambench.splits.fixture import RawFixture, generate

    fixture = RawFixture.model_validate({
        "sources": [{"source": "https://example.org/data", "detail": "d"}], "rows": 8,
        "tables": [{"path": "authors.json", "keyed": "author",
                    "columns": {"author": "seq:a{i}", "papers": "ids:3"}}]})
    doc = json.loads(generate(fixture)[""]["authors.json"])
    assert list(doc) == [f"a{i}" for i in range(8)]
    papers = [p for rec in doc.values() for p in rec["papers"]]
    assert all(list(rec) == ["papers"] and len(rec["papers"]) == 3 for rec in doc.values())
    assert len(set(papers)) == 24 and all(len(p) == 24 for p in papers)
    int(papers[0], 16)
