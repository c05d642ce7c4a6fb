"""The leakage audit: a clean split passes; each planted leak is caught with a precise message."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tambench.errors import LeakageError
from tambench.grading.grade import grade_submission
from tambench.schema.taskspec import TaskSpec
from tambench.splits.audit import AuditReport, audit_task, auroc, spearman
from tambench.splits.grader import Grader
from tambench.splits.prepare import PrepareResult, prepare_task
from tests.splits.helpers import grouped, make_spec, read, tabular


def _clean(tmp_path: Path, n: int = 1000,
           grader: Grader | None = None) -> tuple[TaskSpec, PrepareResult]:
    tabular(tmp_path / "raw", n=n, n_classes=2)
    spec = make_spec("leak", {"strategy": "random", "test_size": 0.2})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", grader=grader)
    assert res.audit.passed
    return spec, res


def _check(report: AuditReport, name: str) -> list[str]:
    (check,) = [c for c in report.checks if c.name == name]
    assert check.status == "fail", (name, check)
    return check.findings


def _rewrite(path: Path, df: pl.DataFrame) -> None:
    df.write_csv(path)


def test_a_clean_split_passes_every_check(tmp_path: Path) -> None:
    spec, res = _clean(tmp_path)
    statuses = {c.name: c.status for c in audit_task(spec, res.task_dir).checks}
    assert statuses["feature_leakage"] == "pass" and statuses["row_order"] == "pass"
    assert statuses["sample_submission"] == "pass" and statuses["checksums"] == "pass"


def test_test_ids_present_in_train_are_reported(tmp_path: Path) -> None:
    spec, res = _clean(tmp_path)
    pub = res.task_dir / "public"
    train, test = read(pub / "train.csv"), read(pub / "test.csv")
    leaked = test.head(3).with_columns(pl.lit("c0").alias("label"))
    _rewrite(pub / "train.csv", pl.concat([train, leaked.select(train.columns)]))
    findings = _check(audit_task(spec, res.task_dir), "ids_disjoint")
    assert findings[0].startswith("3 test id(s) also appear in train.csv")


def test_shared_groups_are_reported(tmp_path: Path) -> None:
    grouped(tmp_path / "raw")
    spec = make_spec("grp", {"strategy": "group", "group_column": "patient"})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    pub = res.task_dir / "public"
    test = read(pub / "test.csv")
    train = read(pub / "train.csv")
    moved = train.head(1).with_columns(pl.lit(test["patient"][0]).alias("patient"))
    _rewrite(pub / "train.csv", pl.concat([moved, train.tail(-1)]))
    findings = _check(audit_task(spec, res.task_dir), "groups_disjoint")
    assert "group column 'patient' occur in both train and test" in findings[0]


def test_target_column_in_public_test_is_reported(tmp_path: Path) -> None:
    spec, res = _clean(tmp_path)
    pub = res.task_dir / "public"
    test = read(pub / "test.csv").join(read(res.task_dir / "private/answers.csv"), on="id")
    _rewrite(pub / "test.csv", test)
    report = audit_task(spec, res.task_dir)
    assert _check(report, "no_target_in_public") == [
        "public/test.csv has target column(s) ['label']"]
    with pytest.raises(LeakageError, match="public/test.csv has target column"):
        report.raise_for_findings()


def test_private_file_copied_into_public_is_reported_by_content_not_by_name(
        tmp_path: Path) -> None:
    spec, res = _clean(tmp_path)
    pub = res.task_dir / "public"
    shutil.copy(res.task_dir / "private/answers.csv", pub / "answers.csv")
    (pub / "extra").mkdir()
    shutil.copy(res.task_dir / "private/answers.csv", pub / "extra" / "labels_backup.csv")
    report = audit_task(spec, res.task_dir)
    findings = _check(report, "no_private_file_in_public")
    assert findings == [
        "public/answers.csv is a byte-identical copy of private/answers.csv",
        "public/extra/labels_backup.csv is a byte-identical copy of private/answers.csv"]
    message = report.render_findings()
    assert "fix: remove the file from split.extra_public_files" in message


def test_a_feature_that_tracks_the_label_is_reported_with_its_auroc(tmp_path: Path) -> None:
    spec, res = _clean(tmp_path)
    pub = res.task_dir / "public"
    ans = read(res.task_dir / "private/answers.csv")
    test = read(pub / "test.csv").join(ans, on="id", maintain_order="left")
    rng = np.random.default_rng(0)
    leak = (test["label"] == "c1").cast(pl.Float64) * 10 + rng.normal(size=test.height)
    test = test.with_columns(leak.round(3).cast(pl.String).alias("score")).drop("label")
    _rewrite(pub / "test.csv", test)
    findings = _check(audit_task(spec, res.task_dir), "feature_leakage")
    assert any("public/test.csv column 'score' reaches AUROC" in f and "target 'label'" in f
               for f in findings)


def test_a_copied_or_determining_string_column_is_reported(tmp_path: Path) -> None:
    spec, res = _clean(tmp_path)
    pub = res.task_dir / "public"
    ans = read(res.task_dir / "private/answers.csv")
    test = read(pub / "test.csv").join(ans, on="id", maintain_order="left")
    test = test.with_columns(pl.col("label").alias("copy"),
                             pl.col("label").replace({"c0": "blue", "c1": "red"}).alias("colour"))
    _rewrite(pub / "test.csv", test.drop("label"))
    findings = _check(audit_task(spec, res.task_dir), "feature_leakage")
    assert any("column 'copy' equals target 'label' on 100.0% of test rows" in f for f in findings)
    assert any("column 'colour' determines target 'label'" in f for f in findings)


def test_multiclass_label_encoded_as_integers_is_reported(tmp_path: Path) -> None:
    tabular(tmp_path / "raw", n=1500, n_classes=4)
    spec = make_spec("mc", {"strategy": "random", "test_size": 0.2})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    pub = res.task_dir / "public"
    ans = read(res.task_dir / "private/answers.csv")
    test = read(pub / "test.csv").join(ans, on="id", maintain_order="left")
    rng = np.random.default_rng(1)
    code = test["label"].str.slice(1).cast(pl.Float64) * 10 + rng.uniform(0, 1, test.height)
    _rewrite(pub / "test.csv", test.with_columns(code.cast(pl.String).alias("code")).drop("label"))
    findings = _check(audit_task(spec, res.task_dir), "feature_leakage")
    assert any("column 'code' reaches AUROC (one-vs-rest" in f for f in findings)


def test_a_numeric_feature_tracking_a_regression_target_is_reported(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rng = np.random.default_rng(0)
    y = rng.normal(size=800)
    pl.DataFrame({"id": [f"r{i}" for i in range(800)], "x": rng.normal(size=800).astype(str),
                  "leaky": (np.exp(y) + 1e-6 * rng.normal(size=800)).astype(str),
                  "y": y.astype(str)}).write_csv(raw / "train.csv")
    spec = make_spec("reg", {"strategy": "random", "test_size": 0.25}, metric="rmse",
                     targets=("y",))
    with pytest.raises(LeakageError, match=r"column 'leaky' reaches \|Spearman\| 1.0000"):
        prepare_task(spec, raw, tmp_path / "data")


def test_rows_sorted_by_label_are_reported_when_the_original_order_is_kept(
        tmp_path: Path) -> None:
    df = tabular(tmp_path / "raw", n=1000, n_classes=2)
    df.sort("label").write_csv(tmp_path / "raw/train.csv")
    spec = make_spec("ord", {"strategy": "random", "test_order": "original", "test_size": 0.2})
    with pytest.raises(LeakageError, match=r"row_order: row position in public/test.csv reaches "
                                           r"AUROC 1.0000"):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    shuffled = make_spec("ord2", {"strategy": "random", "test_size": 0.2})
    assert prepare_task(shuffled, tmp_path / "raw", tmp_path / "data").audit.passed


def test_sample_submission_with_wrong_header_or_true_labels_is_reported(tmp_path: Path) -> None:
    spec, res = _clean(tmp_path, grader=grade_submission)
    sample_path = res.task_dir / "public/sample_submission.csv"
    sample = read(sample_path)
    _rewrite(sample_path, sample.rename({"label": "prediction"}))
    findings = _check(audit_task(spec, res.task_dir), "sample_submission")
    assert findings == ["header is ['id', 'prediction'], expected ['id', 'label']"]
    ans = read(res.task_dir / "private/answers.csv")
    _rewrite(sample_path, sample.drop("label").join(ans, on="id", maintain_order="left"))
    report = audit_task(spec, res.task_dir, grader=grade_submission)
    assert any("sample_submission.csv column 'label' equals target" in f
               for f in _check(report, "feature_leakage"))
    assert _check(report, "sample_submission") == [
        "its column 'label' equals the answers on every row: the sample submission holds the "
        "test labels"]


def test_the_sample_submission_is_scored_by_the_grader_it_is_given_and_only_checked_without(
        tmp_path: Path) -> None:
    spec, res = _clean(tmp_path / "with", grader=grade_submission)
    assert res.report.sample_submission.score is not None
    (check,) = [c for c in res.audit.checks if c.name == "sample_submission"]
    assert check.detail == f"score {res.report.sample_submission.score}"
    spec, res = _clean(tmp_path / "without")
    assert res.report.sample_submission.score is None
    (check,) = [c for c in res.audit.checks if c.name == "sample_submission"]
    assert check.status == "pass" and "no grader given, so not scored" in check.detail
    sample_path = res.task_dir / "public/sample_submission.csv"
    _rewrite(sample_path, read(sample_path).head(10))
    assert "holds 10 rows" in _check(audit_task(spec, res.task_dir), "sample_submission")[0]


def test_tampered_files_fail_the_checksum_check(tmp_path: Path) -> None:
    spec, res = _clean(tmp_path)
    (res.task_dir / "public" / "notes.txt").write_text("hello")
    findings = _check(audit_task(spec, res.task_dir), "checksums")
    assert "unexpected: public/notes.txt" in findings[0]


def test_statistics_helpers_match_hand_computed_values() -> None:
    assert auroc(np.array([1.0, 2.0, 3.0, 4.0]), np.array([False, False, True, True])) == 1.0
    assert auroc(np.array([1.0, 1.0]), np.array([False, True])) == 0.5
    assert spearman(np.arange(5.0), -np.arange(5.0)) == pytest.approx(-1.0)
