"""A prepared task whose leakage audit failed is quarantined: kept, but not graded unless asked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from tambench.cli.main import main
from tambench.errors import LeakageError, QuarantinedTaskError
from tambench.grading.grade import resolve_task
from tambench.schema.io import save_taskspec
from tambench.splits.checksums import verify_checksums
from tambench.splits.prepare import PrepareJob, prepare_job, prepare_task
from tambench.splits.quarantine import ALLOW_ENV, check_gradable, read_quarantine
from tests.splits.helpers import make_spec, read, tabular


def _leaky(tmp_path: Path) -> tuple[Path, Path]:
    """A raw table whose rows are sorted by label, split with the original test order."""
    df = tabular(tmp_path / "raw", n=600, n_classes=2)
    df.sort("label").write_csv(tmp_path / "raw/train.csv")
    task = tmp_path / "task.json"
    save_taskspec(make_spec("leaky", {"strategy": "random", "test_order": "original",
                                      "test_size": 0.2}), task)
    return task, tmp_path / "data"


def test_a_failed_audit_keeps_the_task_quarantined_and_grading_refuses_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    task, data = _leaky(tmp_path)
    assert main(["prepare", str(task), "--raw", str(tmp_path / "raw"), "--data-dir",
                 str(data)]) == 1
    folder = data / "kaggle/leaky"
    marker = read_quarantine(folder)
    assert marker is not None and any("row_order" in f for f in marker.findings)
    assert verify_checksums(folder).ok  # the marker is not one of the task's files
    sample = folder / "public/sample_submission.csv"
    capsys.readouterr()
    args = ["grade", str(sample), "--task", str(task), "--data-dir", str(data)]
    assert main(args) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "task kaggle/leaky is quarantined" in err and "row_order" in err
    assert "--allow-quarantined" in err and f"{ALLOW_ENV}=1" in err
    assert main([*args, "--json", "--allow-quarantined"]) == 0  # the explicit flag
    assert json.loads(capsys.readouterr().out)["valid_submission"] is True
    monkeypatch.setenv(ALLOW_ENV, "1")  # the same for a whole command
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid_submission"] is True


def test_grade_runs_reports_every_run_of_a_quarantined_task_as_an_error_unless_allowed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task, data = _leaky(tmp_path)
    main(["prepare", str(task), "--raw", str(tmp_path / "raw"), "--data-dir", str(data)])
    catalogue = tmp_path / "catalogue"
    (catalogue / "kaggle/leaky").mkdir(parents=True)
    shutil.copy(task, catalogue / "kaggle/leaky/task.json")
    for run in ("r1", "r2"):
        (tmp_path / "runs/agent/leaky" / run).mkdir(parents=True)
        shutil.copy(data / "kaggle/leaky/public/sample_submission.csv",
                    tmp_path / "runs/agent/leaky" / run / "submission.csv")
    args = ["grade-runs", str(tmp_path / "runs"), "--catalogue", str(catalogue), "--data-dir",
            str(data), "--json"]
    capsys.readouterr()
    assert main(args) == 3
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["status"] for r in rows] == ["error", "error"]
    assert all("QuarantinedTaskError" in r["error"] and "row_order" in r["error"] for r in rows)
    assert main([*args, "--allow-quarantined"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["status"] for r in rows] == ["graded_valid", "graded_valid"]


def test_resolve_task_and_check_gradable_honour_the_explicit_flag(tmp_path: Path) -> None:
    task, data = _leaky(tmp_path)
    with pytest.raises(LeakageError, match="is quarantined: it is kept for inspection"):
        prepare_task(make_spec("leaky", {"strategy": "random", "test_order": "original",
                                         "test_size": 0.2}), tmp_path / "raw", data)
    with pytest.raises(QuarantinedTaskError, match="prepare --force"):
        resolve_task(task, data_dir=data)
    assert resolve_task(task, data_dir=data, allow_quarantined=True).answers.is_file()
    check_gradable(data / "kaggle/leaky", allow=True)


def test_prepare_job_reports_a_quarantined_outcome(tmp_path: Path) -> None:
    _leaky(tmp_path)
    spec = make_spec("leaky", {"strategy": "random", "test_order": "original", "test_size": 0.2})
    out = prepare_job(PrepareJob(spec, str(tmp_path / "raw"), str(tmp_path / "data")))
    assert (out.ok, out.status, out.error_type) == (False, "quarantined", "LeakageError")
    assert out.task_dir and Path(out.task_dir, "quarantine.json").is_file()


def _prepared_then_leaked(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A task prepared cleanly, then its answers copied into public/ (a leak planted after
    prepare): the task file, the data folder and the task's folder."""
    tabular(tmp_path / "raw", n=400, n_classes=2)
    task = tmp_path / "task.json"
    save_taskspec(make_spec("later", {"strategy": "random", "test_size": 0.25}), task)
    data = tmp_path / "data"
    assert main(["prepare", str(task), "--raw", str(tmp_path / "raw"), "--data-dir",
                 str(data)]) == 0
    folder = data / "kaggle/later"
    shutil.copy(folder / "private/answers.csv", folder / "public/answers.csv")
    return task, data, folder


def test_an_audit_that_passes_again_lifts_the_quarantine(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task, data, folder = _prepared_then_leaked(tmp_path)
    assert main(["audit", str(task), "--data-dir", str(data)]) == 1
    assert read_quarantine(folder) is not None
    (folder / "public/answers.csv").unlink()
    capsys.readouterr()
    assert main(["audit", str(task), "--data-dir", str(data), "--json"]) == 0
    assert read_quarantine(folder) is None
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is True and report["schema_version"] == 1


def test_a_failed_audit_prints_its_full_report_as_json_with_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task, data, folder = _prepared_then_leaked(tmp_path)
    capsys.readouterr()
    assert main(["audit", str(task), "--data-dir", str(data), "--json"]) == 1
    out, err = capsys.readouterr()
    report = json.loads(out)  # one document: the report, not an error object
    assert "error" not in report and report["passed"] is False
    assert report["task_id"] == "kaggle/later" and report["schema_version"] == 1
    statuses = {c["name"]: c["status"] for c in report["checks"]}
    assert len(statuses) == len(report["checks"]) >= 3 and "fail" in statuses.values()
    assert "pass" in statuses.values()  # every check is there, not only the failed ones
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    assert all(c["findings"] and set(c) >= {"name", "status", "detail", "findings"}
               for c in failed)
    assert "Traceback" not in err and err.startswith("error: leakage audit of kaggle/later "
                                                     "failed")
    assert read_quarantine(folder) is not None


def test_check_split_refuses_a_quarantined_task_row_by_row(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    task, data = _leaky(tmp_path)
    main(["prepare", str(task), "--raw", str(tmp_path / "raw"), "--data-dir", str(data)])
    sample = data / "kaggle/leaky/public/sample_submission.csv"
    answers = read(data / "kaggle/leaky/private/answers.csv")
    official = float((answers["label"] == pl.read_csv(sample)["label"][0]).mean())
    (tmp_path / "check.csv").write_text(f"task,submission,official_score\n{task},{sample},"
                                        f"{official}\n")
    capsys.readouterr()
    assert main(["check-split", str(tmp_path / "check.csv"), "--data-dir", str(data),
                 "--json"]) == 3
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert "quarantined" in row["error"] and row["local_score"] is None
