"""What an MLE-bench user already has, graded as it is: data prepared by ``mlebench prepare``
(``<competition>/prepared/public`` and ``prepared/private``), the ``submissions.jsonl`` of
MLE-bench's ``experiments/make_submission.py`` (null paths, paths relative to the current
folder), and reports that MLE-bench's own ``CompetitionReport.from_dict`` loads."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.grading.batch import grade_runs
from tambench.grading.batch.writers import mle_bench_report_data
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import FIXED, make_env


def mle_bench_layout(data: Path) -> Path:
    """Move make_env's prepared tasks (``<data>/test/<slug>/``) to MLE-bench's layout
    (``<data>/<slug>/prepared/``), as ``mlebench prepare`` leaves them; public folders get the
    answers' ids as a sample submission."""
    for task in sorted((data / "test").iterdir()):
        prepared = data / task.name / "prepared"
        prepared.parent.mkdir()
        shutil.move(task, prepared)
        (prepared / "public").mkdir()
        if task.name in ("value", "label"):
            (prepared / "public" / "sample_submission.csv").write_text(
                perfect_text(TASKS[task.name]))
    (data / "test").rmdir()
    return data


def test_grading_and_validation_read_mle_bench_prepared_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, runs = make_env(tmp_path)
    mle_bench_layout(data)
    sub = tmp_path / "submission.csv"
    sub.write_text(perfect_text(TASKS["value"]))
    rc = main(["grade", str(sub), "--task", "value", "--catalogue", str(cat), "--data-dir",
               str(data), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and report["valid_submission"] and report["score"] == 0.0
    rc = main(["validate", str(sub), "--task", "value", "--catalogue", str(cat), "--data-dir",
               str(data), "--json"])
    verdict = json.loads(capsys.readouterr().out)
    assert rc == 0 and verdict["valid_submission"] is True
    (runs / "a" / "label" / "r1").mkdir(parents=True)
    (runs / "a" / "label" / "r1" / "submission.csv").write_text(perfect_text(TASKS["label"]))
    batch = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    assert [(r.task, r.status.value, r.score) for r in batch.rows] == [
        ("label", "graded_valid", 1.0)]
    # the Python API, given the spec itself, finds the public folder there too
    import tambench
    from tambench.schema.io import load_taskspec

    spec = load_taskspec(cat / "test" / "value" / "task.json")
    assert tambench.validate(sub, spec, data_dir=data).valid_submission is True


def test_a_task_in_neither_layout_names_both(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    cat, data, _ = make_env(tmp_path)
    shutil.rmtree(data / "test" / "value")
    sub = tmp_path / "submission.csv"
    sub.write_text(perfect_text(TASKS["value"]))
    rc = main(["grade", str(sub), "--task", "value", "--catalogue", str(cat), "--data-dir",
               str(data), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert rc == 1 and error["type"] == "TaskDataError"
    assert "no test/value/ there, nor MLE-bench's value/prepared/" in error["message"]


def _jsonl(path: Path, lines: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_a_null_submission_path_is_a_missing_submission_with_thresholds(
    tmp_path: Path
) -> None:
    cat, data, _ = make_env(tmp_path)
    jsonl = _jsonl(tmp_path / "g" / "submissions.jsonl", [
        {"competition_id": "value", "submission_path": None, "logs_path": None,
         "code_path": None}])
    report = grade_runs(jsonl, catalogue=cat, data_dir=data, now=FIXED)
    (row,) = report.rows
    assert row.status == "missing_submission" and row.competition_id == "value"
    assert row.task_id == "test/value" and row.submission_exists is False
    assert row.errors == ["submissions.jsonl line 1 gives no submission_path (null)"]
    # the value task's board: 20 scores 0.5 .. 2.4, lower is better (rmse)
    assert row.gold_threshold is not None and row.median_threshold is not None
    assert row.any_medal is False and report.agents[0].total_failed == 0


def test_relative_paths_are_read_from_the_current_folder_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat, data, _ = make_env(tmp_path)
    here, beside = tmp_path / "here", tmp_path / "g"
    (here / "runs").mkdir(parents=True)
    (beside / "runs").mkdir(parents=True)
    (here / "runs" / "both.csv").write_text(perfect_text(TASKS["value"]))
    (beside / "runs" / "both.csv").write_text("id,y\n1,2\n")  # another file, same name
    (beside / "runs" / "only_beside.csv").write_text(perfect_text(TASKS["value"]))
    (here / "runs" / "only_here.csv").write_text(perfect_text(TASKS["value"]))
    jsonl = _jsonl(beside / "submissions.jsonl", [
        {"competition_id": "value", "submission_path": f"runs/{name}"}
        for name in ("both.csv", "only_beside.csv", "only_here.csv")])
    monkeypatch.chdir(here)
    report = grade_runs(jsonl, catalogue=cat, data_dir=data, now=FIXED)
    assert [(r.run, r.status.value) for r in report.rows] == [
        ("line1", "graded_valid"), ("line2", "graded_valid"), ("line3", "graded_valid")]
    warned = [w for w in report.warnings if w.startswith("submissions.jsonl line")]
    assert warned == [
        f"submissions.jsonl line 1: runs/both.csv read from the current folder ({here}), as "
        "mlebench grade reads it; the JSONL file's folder holds another file of that name",
        f"submissions.jsonl line 2: runs/only_beside.csv is not in the current folder ({here}), "
        "where mlebench grade reads it; read from the JSONL file's folder",
    ]


def test_mle_bench_report_rows_load_with_its_from_dict_and_have_their_own_times(
    tmp_path: Path
) -> None:
    cat, data, _ = make_env(tmp_path)
    (tmp_path / "v.csv").write_text(perfect_text(TASKS["value"]))
    jsonl = _jsonl(tmp_path / "g" / "submissions.jsonl", [
        {"competition_id": "value", "submission_path": str(tmp_path / "v.csv")},
        {"competition_id": "no-such-competition", "submission_path": "x.csv"},
        {"competition_id": 7, "submission_path": "x.csv"},
        {"competition_id": "value", "submission_path": None}])
    report = grade_runs(jsonl, catalogue=cat, data_dir=data)
    data_out = json.loads(json.dumps(mle_bench_report_data(report)))
    rows = data_out["competition_reports"]
    assert len(rows) == 4
    for cr in rows:  # every field MLE-bench's CompetitionReport.from_dict converts
        for key in ("gold_threshold", "silver_threshold", "bronze_threshold",
                    "median_threshold"):
            float(cr[key])  # a null raises TypeError there
        for key in ("any_medal", "gold_medal", "silver_medal", "bronze_medal",
                    "above_median", "submission_exists", "valid_submission",
                    "is_lower_better"):
            assert isinstance(cr[key], bool), (key, cr)
        datetime.fromisoformat(cr["created_at"])
        assert cr["score"] is None or isinstance(cr["score"], float)
    assert rows[0]["gold_medal"] is True and rows[3]["submission_exists"] is False
    assert [cr["gold_threshold"] == "NaN" for cr in rows] == [False, True, True, False]
    # each row's own grading time, not the batch's start (kept for every row when fixed)
    start = report.created_at.replace(tzinfo=None).isoformat()
    assert all(cr["created_at"] >= start for cr in rows)
    assert len({cr["created_at"] for cr in rows}) > 1
    fixed = mle_bench_report_data(grade_runs(jsonl, catalogue=cat, data_dir=data, now=FIXED))
    assert {cr["created_at"] for cr in fixed["competition_reports"]} == {"2025-01-01T00:00:00"}


def test_extra_columns_are_refused_by_default_and_ignored_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, runs = make_env(tmp_path)
    mle_bench_layout(data)
    rows = TASKS["value"].perfect_rows
    text = "id,y,notes\n" + "".join(f"{i},{y},n{i}\n" for i, y in rows)
    sub = tmp_path / "submission.csv"
    sub.write_text(text)
    base = ["--task", "value", "--catalogue", str(cat), "--data-dir", str(data), "--json"]
    for command, flag, valid in [("grade", [], False), ("grade", ["ignore"], True),
                                 ("validate", [], False), ("validate", ["ignore"], True),
                                 ("grade", ["reject"], False)]:
        extra = ["--extra-columns", *flag] if flag else []
        main([command, str(sub), *base, *extra])
        out = json.loads(capsys.readouterr().out)
        assert out["valid_submission"] is valid, (command, flag, out)
        if not valid:
            assert "unexpected column(s) (1 of 1): ['notes']" in out["errors"][0]
    (runs / "a" / "value" / "r1").mkdir(parents=True)
    shutil.copy(sub, runs / "a" / "value" / "r1" / "submission.csv")
    for policy, status in [(None, "invalid_submission"), ("ignore", "graded_valid")]:
        batch = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED, extra_columns=policy)
        assert [r.status.value for r in batch.rows] == [status]
    rc = main(["grade", str(sub), *base, "--extra-columns", "keep"])
    assert rc == 2  # a usage error names the choices
    assert "reject" in capsys.readouterr().err
