"""The audit judges contents, not names: answers named test.csv pass; label-bearing columns,
label files, labelled file paths and labels inside files are caught on small test sets too,
each with the fix in the quarantine message (the leaks of MLE-bench issues #77, #108 and its
label files among them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from tambench.splits.audit import AuditReport, audit_task
from tambench.splits.audit.labels import marking_value
from tambench.splits.prepare import PrepareResult, prepare_task
from tests.splits.helpers import make_spec, read


def _small(tmp_path: Path, n: int = 40, extra: dict[str, list[str]] | None = None,
           split: dict[str, object] | None = None,
           grading: dict[str, object] | None = None) -> tuple[object, PrepareResult]:
    rng = np.random.default_rng(5)
    labels = rng.choice(["0", "1"], n).tolist()
    cols = {"id": [f"r{i:03d}" for i in range(n)], "x": [f"{v:.3f}" for v in rng.normal(size=n)],
            "label": labels, **(extra or {})}
    raw = tmp_path / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    pl.DataFrame(cols).write_csv(raw / "train.csv")
    spec = make_spec("small", {"strategy": "random", "test_size": 0.2, **(split or {})},
                     grading=grading)
    res = prepare_task(spec, raw, tmp_path / "data", run_audit=False)
    return spec, res


def _failed(report: AuditReport, name: str) -> list[str]:
    (check,) = [c for c in report.checks if c.name == name]
    assert check.status == "fail", check
    return check.findings


def test_answers_named_test_csv_are_not_a_finding(tmp_path: Path) -> None:
    spec, res = _small(tmp_path, grading={"answers_file": "test.csv"})
    assert (res.task_dir / "private/test.csv").is_file()
    report = audit_task(spec, res.task_dir)  # type: ignore[arg-type]
    assert report.passed, report.findings


def test_a_copy_of_the_label_is_caught_on_eight_test_rows(tmp_path: Path) -> None:
    spec, res = _small(tmp_path)
    pub = res.task_dir / "public"
    answers = read(res.task_dir / "private/answers.csv")
    assert answers.height == 8
    test = read(pub / "test.csv").join(answers.rename({"label": "outcome"}), on="id",
                                       maintain_order="left")
    test.write_csv(pub / "test.csv")
    report = audit_task(spec, res.task_dir)  # type: ignore[arg-type]
    assert _failed(report, "labels_in_public") == [
        "public/test.csv column 'outcome' equals target 'label' on every one of the 8 test rows"]
    assert "fix: hide the column with split.hidden_columns" in report.render_findings()


def test_giver_username_if_known_is_caught_with_the_train_rows(tmp_path: Path) -> None:
    n = 40
    rng = np.random.default_rng(5)
    labels = rng.choice(["0", "1"], n).tolist()  # the same draw as _small's labels
    giver = [f"user{i}" if lab == "1" else "N/A" for i, lab in enumerate(labels)]
    spec, res = _small(tmp_path, extra={"giver_username_if_known": giver})
    report = audit_task(spec, res.task_dir)  # type: ignore[arg-type]
    (finding,) = _failed(report, "labels_in_public")
    assert finding.startswith("public/test.csv column 'giver_username_if_known' is 'N/A' "
                              "exactly on the rows whose target 'label' is '0'")
    # the recipe's way out: the column stays in train and leaves public/test.csv
    spec2, res2 = _small(tmp_path / "hidden", extra={"giver_username_if_known": giver},
                         split={"hidden_columns": {"giver_username_if_known": "test"}})
    assert audit_task(spec2, res2.task_dir).passed  # type: ignore[arg-type]


def test_a_label_file_keyed_under_another_name_is_caught(tmp_path: Path) -> None:
    spec, res = _small(tmp_path)
    answers = read(res.task_dir / "private/answers.csv")
    answers.rename({"id": "image", "label": "y"}).write_csv(
        res.task_dir / "public/test_labels.csv")
    findings = _failed(audit_task(spec, res.task_dir), "labels_in_public")  # type: ignore[arg-type]
    assert findings == ["public/test_labels.csv column 'y' equals target 'label' on every one "
                        "of the 8 test rows"]


def test_labels_in_test_file_paths_and_inside_test_files_are_caught(tmp_path: Path) -> None:
    spec, res = _small(tmp_path, n=60)
    pub = res.task_dir / "public"
    answers = read(res.task_dir / "private/answers.csv").with_columns(
        pl.col("label").replace({"0": "cat", "1": "dog"}))
    answers.write_csv(res.task_dir / "private/answers.csv")
    rows = [("id", "split", "path")]
    for rid, lab in answers.iter_rows():
        rel = f"test/{lab}/{rid}.mat"
        (pub / rel).parent.mkdir(parents=True, exist_ok=True)
        (pub / rel).write_bytes(b"MATLAB 5.0 Video.Labels Name " + lab.encode())
        rows.append((rid, "test", rel))
    pl.DataFrame(rows[1:], schema=list(rows[0]), orient="row").write_csv(
        pub / "files_manifest.csv")
    findings = _failed(audit_task(spec, res.task_dir), "labels_in_public")  # type: ignore[arg-type]
    assert findings[0].startswith("the public paths of 100% of the test files name their "
                                  "row's target 'label'")
    assert findings[1].startswith("100% of the test files hold their row's target 'label' in "
                                  "their bytes")


def test_a_sample_submission_equal_to_the_answers_is_caught(tmp_path: Path) -> None:
    spec, res = _small(tmp_path)
    answers = read(res.task_dir / "private/answers.csv")
    answers.select(["id", "label"]).reverse().write_csv(
        res.task_dir / "public/sample_submission.csv")
    findings = _failed(audit_task(spec, res.task_dir), "sample_submission")  # type: ignore[arg-type]
    assert findings == ["its column 'label' equals the answers on every row: the sample "
                        "submission holds the test labels"]


def test_marking_value_needs_rows_on_both_sides() -> None:
    col = np.array(["N/A"] * 2 + [f"u{i}" for i in range(10)])
    lab = np.array(["0"] * 2 + ["1"] * 10)
    assert marking_value(col, lab) is None  # two rows are too few to call it a marker
    assert marking_value(np.array(["a", "b"] * 6), np.array(["0", "1"] * 6)) == ("a", "0")
    assert marking_value(np.array(["a", "b"] * 6), np.array(["0", "1", "1", "0"] * 3)) is None


def test_a_side_table_naming_the_target_column_is_judged_by_its_rows(tmp_path: Path) -> None:
    spec, res = _small(tmp_path)
    pub = res.task_dir / "public"
    pl.DataFrame({"label": ["0", "1"], "name": ["no", "yes"]}).write_csv(pub / "classes.csv")
    assert audit_task(spec, res.task_dir).check("no_target_in_public").status == "pass"  # type: ignore[arg-type]
    answers = read(res.task_dir / "private/answers.csv")
    answers.with_columns(pl.lit("0").alias("label")).write_csv(pub / "extra_rows.csv")
    findings = _failed(audit_task(spec, res.task_dir), "no_target_in_public")  # type: ignore[arg-type]
    assert findings == ["public/extra_rows.csv has target column(s) ['label']"]


def test_paths_holding_every_digit_label_name_none(tmp_path: Path) -> None:
    spec, res = _small(tmp_path, n=60)
    pub = res.task_dir / "public"
    answers = read(res.task_dir / "private/answers.csv")
    rows = []
    for k, (rid, _) in enumerate(answers.iter_rows()):
        rel = f"test/1.2.826.0.1.3680043.{k}.jpg"  # a DICOM uid: both "0" and "1" in it
        (pub / rel).parent.mkdir(parents=True, exist_ok=True)
        (pub / rel).write_bytes(b"\xff\xd8")
        rows.append((rid, "test", rel))
    pl.DataFrame(rows, schema=["id", "split", "path"], orient="row").write_csv(
        pub / "files_manifest.csv")
    report = audit_task(spec, res.task_dir)  # type: ignore[arg-type]
    assert report.check("labels_in_public").status == "pass", report.findings


def test_a_log_of_test_ids_with_their_answer_spans_is_caught(tmp_path: Path) -> None:
    spec, res = _small(tmp_path)
    answers = read(res.task_dir / "private/answers.csv").with_columns(
        pl.col("label").replace({"0": "no pizza", "1": "a large pizza"}))
    answers.write_csv(res.task_dir / "private/answers.csv")
    log = "".join(f"INFO span of {rid}: {lab!r}\n" for rid, lab in answers.iter_rows())
    (res.task_dir / "public/annotator.log").write_text(log)
    findings = _failed(audit_task(spec, res.task_dir), "labels_in_public")  # type: ignore[arg-type]
    assert findings == ["public/annotator.log holds 100% of the test ids together with their "
                        "target 'label'"]
