"""Answers regrouped per key (``split.answers_per``): a time split of events whose answers are
one row per key listing its items (h-and-m's purchases of the last week per customer)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tambench.errors import SplitError
from tambench.grading.grade import grade_submission
from tambench.schema.taskspec import TaskSpec
from tambench.splits.prepare import prepare_task
from tests.splits.helpers import make_spec

PER = {"key": "customer_id", "column": "article_id", "into": "prediction"}
GRADING = {"metric_params": {"k": 12}, "extra_ids": "ignore",
           "ids_from": {"file": "sample_submission.csv", "column": "customer_id"}}


def _spec(**split: object) -> TaskSpec:
    return make_spec("purchases", {
        "strategy": "time", "train_file": "transactions.csv", "id_column": "transaction_id",
        "target_columns": ["article_id"], "time_column": "day", "last_k_periods": 2,
        "hidden_columns": {"day": "test", "price": "test"},
        "extra_public_files": ["articles.csv", "images"], "answers_per": PER, **split},
        metric="map_at_k", targets=("prediction",), id_col="customer_id", grading=GRADING)


def _raw(raw: Path) -> None:
    # days 1-4; days 3 and 4 are the test: c1 buys a2, a1, a2 again; c3 buys a5
    rows = [("1", "c1", "a1", "0.1"), ("1", "c2", "a3", "0.2"), ("2", "c3", "a1", "0.1"),
            ("2", "c1", "a4", "0.3"), ("3", "c1", "a2", "0.4"), ("3", "c3", "a5", "0.5"),
            ("4", "c1", "a1", "0.1"), ("4", "c1", "a2", "0.4")]
    raw.mkdir(parents=True)
    pl.DataFrame([(str(i), *r) for i, r in enumerate(rows)],
                 schema=["transaction_id", "day", "customer_id", "article_id", "price"],
                 orient="row").write_csv(raw / "transactions.csv")
    (raw / "articles.csv").write_text("article_id,name\na1,vest\na2,sock\n")
    (raw / "images" / "a").mkdir(parents=True)
    (raw / "images" / "a" / "a1.jpg").write_bytes(b"\xff\xd8jpeg")


def test_the_test_period_is_regrouped_per_customer_and_its_answers_grade_best(
        tmp_path: Path) -> None:
    _raw(tmp_path / "raw")
    spec = _spec()
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", grader=grade_submission)
    assert res.audit is not None and res.audit.passed, res.audit.findings
    pub, private = res.task_dir / "public", res.task_dir / "private"
    answers = dict(pl.read_csv(private / "answers.csv", infer_schema=False).rows())
    # each item once, in the order bought (the public order is a seeded shuffle)
    assert {k: sorted(v.split()) for k, v in answers.items()} == {"c1": ["a1", "a2"],
                                                                 "c3": ["a5"]}
    test = pl.read_csv(pub / "test.csv", infer_schema=False)
    assert test.columns == ["customer_id"] and sorted(test["customer_id"]) == ["c1", "c3"]
    train = pl.read_csv(pub / "train.csv", infer_schema=False)
    assert sorted(train["day"].unique()) == ["1", "2"] and "a5" not in train["article_id"]
    sample = pl.read_csv(pub / "sample_submission.csv", infer_schema=False)
    assert sample.columns == ["customer_id", "prediction"]
    assert sample["customer_id"].to_list() == test["customer_id"].to_list()
    assert sample["prediction"].n_unique() == 1  # the training rows' most frequent article
    assert (pub / "images" / "a" / "a1.jpg").read_bytes() == b"\xff\xd8jpeg"
    assert (pub / "articles.csv").is_file()
    assert res.report.rows.test == 2 and res.report.sample_submission.rows == 2
    assert any("answers_per: 4 test row(s) regrouped into 2" in n
               for n in res.report.recipe_notes)
    best = pub.parent / "best.csv"
    pl.DataFrame({"customer_id": list(answers), "prediction": list(answers.values())}
                 ).write_csv(best)
    assert grade_submission(best, spec, private / "answers.csv").score == pytest.approx(1.0)


def test_answers_per_needs_the_grading_key_and_target(tmp_path: Path) -> None:
    _raw(tmp_path / "raw")
    spec = _spec(answers_per={**PER, "into": "articles"})
    with pytest.raises(SplitError, match=r"targets \['articles'\]"):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    with pytest.raises(ValueError, match="three columns"):
        _spec(answers_per={**PER, "into": "article_id"})
