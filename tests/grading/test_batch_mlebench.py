"""MLE-bench users' files as they are: submissions.jsonl, run groups, bare competition ids, and
every report carrying MLE-bench's field names."""

from __future__ import annotations

import csv
import io
import json
import re
import uuid
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.grading.batch import grade_runs
from tambench.grading.report import MLE_BENCH_FIELDS
from tambench.schema.io import load_taskspec, save_taskspec
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import FIXED, make_env

RUN_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _run_group(root: Path, group: str, runs: dict[str, str | None]) -> list[Path]:
    """MLE-bench's layout: <group>/<competition>_<uuid>/submission/submission.csv."""
    made = []
    for i, (competition, text) in enumerate(runs.items()):
        run = root / group / f"{competition.split('#')[0]}_{uuid.UUID(int=i + 1)}"
        (run / "submission").mkdir(parents=True)
        (run / "logs").mkdir()
        if text is not None:
            (run / "submission" / "submission.csv").write_text(text)
        made.append(run)
    return made


def test_a_run_group_folder_grades_without_conversion(tmp_path: Path) -> None:
    cat, data, _ = make_env(tmp_path)
    _run_group(tmp_path / "runs", "2024-07-01T00-00-00-GMT_run-group_aide",
               {"value": perfect_text(TASKS["value"]), "label#2": "id,y\n1,cat\n",
                "txt#3": None, "unknown-comp": perfect_text(TASKS["value"])})
    group = tmp_path / "runs" / "2024-07-01T00-00-00-GMT_run-group_aide"
    for source in (group, tmp_path / "runs"):  # one group, or a folder of groups
        report = grade_runs(source, catalogue=cat, data_dir=data, now=FIXED)
        by_task = {r.task: r for r in report.rows}
        assert {r.agent for r in report.rows} == {group.name}
        assert all(RUN_ID.match(r.run) for r in report.rows)
        assert by_task["value"].status == "graded_valid" and by_task["value"].gold_medal
        assert by_task["value"].submission_path is not None
        assert by_task["value"].submission_path.endswith("submission/submission.csv")
        assert by_task["label"].status == "invalid_submission"
        assert by_task["txt"].status == "missing_submission"
        assert by_task["unknown-comp"].status == "task_unknown"


def test_submissions_jsonl_grades_without_conversion(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat, data, _ = make_env(tmp_path)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "v.csv").write_text(perfect_text(TASKS["value"]))
    (subs / "l.csv").write_text(perfect_text(TASKS["label"]))
    monkeypatch.chdir(subs)  # relative paths are read from here first, as mlebench grade does
    lines = [
        {"competition_id": "value", "submission_path": str(subs / "v.csv")},
        "",
        "# a comment line",
        {"competition_id": "label", "submission_path": "../subs/l.csv", "agent_id": "other"},
        {"competition_id": "value", "submission_path": "v.csv"},
        "{not json",
        {"competition_id": "value"},
        {"competition_id": "value", "submission_path": "gone.csv"},
    ]
    jsonl = tmp_path / "group" / "submissions.jsonl"
    jsonl.parent.mkdir()
    jsonl.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    report = grade_runs(jsonl, catalogue=cat, data_dir=data, now=FIXED)
    got = [(r.agent, r.task, r.run, r.status.value) for r in report.rows]
    assert got == [
        ("group", "*", "line6", "unreadable"),
        ("group", "value", "line1", "graded_valid"),
        ("group", "value", "line5", "graded_valid"),
        ("group", "value", "line7", "unreadable"),
        ("group", "value", "line8", "missing_submission"),
        ("other", "label", "line4", "graded_valid"),
    ]
    unreadable = [r.error for r in report.rows if r.status == "unreadable"]
    assert "line 6 is not valid JSON" in (unreadable[0] or "")
    assert "needs a string competition_id and a string (or null) submission_path" in (
        unreadable[1] or "")
    missing = next(r for r in report.rows if r.run == "line8")
    assert missing.submission_exists is False and missing.submission_path == "gone.csv"
    assert missing.errors == ["submission file gone.csv not found"]
    # the same file from both folders, or only from here: nothing to warn about
    assert not [w for w in report.warnings if "submissions.jsonl line" in w]


def _ambiguous_catalogue(cat: Path) -> None:
    """The value task also on a second platform: its bare slug names two tasks."""
    spec = load_taskspec(cat / "test" / "value" / "task.json")
    (cat / "other" / "value").mkdir(parents=True)
    save_taskspec(spec.model_copy(update={"id": "other/value", "platform": "other"}),
                  cat / "other" / "value" / "task.json")


def test_task_folders_that_are_ambiguous_or_misspelt_are_errors_with_suggestions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, runs = make_env(tmp_path)
    _ambiguous_catalogue(cat)
    for task in ("value", "test__value", "lable"):
        (runs / "a" / task / "r1").mkdir(parents=True)
        (runs / "a" / task / "r1" / "submission.csv").write_text(perfect_text(TASKS["value"]))
    report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    by_task = {r.task: r for r in report.rows}
    assert by_task["value"].status == "task_ambiguous"
    assert "other/value, test/value" in (by_task["value"].error or "")
    assert "<platform>__<slug>" in (by_task["value"].error or "")
    assert by_task["test__value"].status == "graded_valid"
    assert by_task["lable"].status == "task_unknown"
    assert "did you mean test/label" in (by_task["lable"].error or "")
    assert report.agents[0].total_failed == 2
    rc = main(["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
               "--executor", "serial"])
    out, err = capsys.readouterr()
    assert rc == 3
    assert "1 run(s) task_ambiguous: task 'value' is ambiguous" in err
    assert "1 run(s) task_unknown: task 'lable' not found" in err


def test_grade_takes_a_bare_competition_id_and_lists_matches_when_ambiguous(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, _ = make_env(tmp_path)
    sub = tmp_path / "submission.csv"
    sub.write_text(perfect_text(TASKS["label"]))
    rc = main(["grade", str(sub), "--task", "label", "--catalogue", str(cat), "--data-dir",
               str(data), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and report["task_id"] == "test/label" and report["competition_id"] == "label"
    _ambiguous_catalogue(cat)
    rc = main(["grade", str(sub), "--task", "value", "--catalogue", str(cat), "--data-dir",
               str(data), "--json"])
    error = json.loads(capsys.readouterr().out)["error"]
    assert rc == 1 and error["type"] == "AmbiguousTaskError"
    assert "other/value, test/value" in error["message"]


def test_every_report_carries_mle_bench_fields_with_their_meanings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, runs = make_env(tmp_path)
    (runs / "a" / "value" / "r1").mkdir(parents=True)
    (runs / "a" / "value" / "r1" / "submission.csv").write_text(perfect_text(TASKS["value"]))
    sub = runs / "a" / "value" / "r1" / "submission.csv"
    rc = main(["grade", str(sub), "--task", "test/value", "--catalogue", str(cat), "--data-dir",
               str(data), "--json"])
    single = json.loads(capsys.readouterr().out)
    assert rc == 0 and set(MLE_BENCH_FIELDS) <= set(single)
    out_dir, mle_dir = tmp_path / "out", tmp_path / "mle"
    rc = main(["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
               "--executor", "serial", "--out", str(out_dir), "--output-dir", str(mle_dir)])
    assert rc == 0
    capsys.readouterr()
    row = json.loads((out_dir / "grades.json").read_text())["rows"][0]
    (csv_row,) = list(csv.DictReader(io.StringIO((out_dir / "grades.csv").read_text(),
                                                 newline="")))
    for field in MLE_BENCH_FIELDS:
        assert field in row and field in csv_row
    # the meanings: a perfect RMSE submission on a 20-team board
    assert (row["competition_id"], row["score"], row["is_lower_better"]) == ("value", 0.0, True)
    assert row["gold_medal"] and row["any_medal"] and row["above_median"]
    assert row["submission_exists"] and row["valid_submission"]
    assert row["gold_threshold"] == 0.6 == single["gold_threshold"]
    assert (csv_row["gold_medal"], csv_row["submission_exists"]) == ("true", "true")
    (mle_file,) = list(mle_dir.iterdir())
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-GMT_grading_report\.json", mle_file.name)
    mle = json.loads(mle_file.read_text())
    assert {k: mle[k] for k in ("total_runs", "total_runs_with_submissions",
                                "total_valid_submissions", "total_medals", "total_gold_medals",
                                "total_silver_medals", "total_bronze_medals",
                                "total_above_median")} == {
        "total_runs": 1, "total_runs_with_submissions": 1, "total_valid_submissions": 1,
        "total_medals": 1, "total_gold_medals": 1, "total_silver_medals": 0,
        "total_bronze_medals": 0, "total_above_median": 1}
    assert set(MLE_BENCH_FIELDS) <= set(mle["competition_reports"][0])


def _mle_bench_expected(created: str, value_score: float) -> list[dict[str, object]]:
    """The competition reports ``mlebench grade`` writes for the four lines of the JSONL below,
    by MLE-bench's rules: thresholds at positions int(n * 0.1 / 0.2 / 0.4) of the board and its
    median, filled whatever the submission; medal flags false without a score; the score rounded
    to 5 decimals; ``datetime.isoformat()`` without a zone; the lines' order."""
    value_board = {"gold_threshold": 0.6, "silver_threshold": 0.8,
                   "bronze_threshold": 0.5 + 0.1 * 7, "median_threshold": 1.45}
    label_board = {"gold_threshold": 1.0, "silver_threshold": 1.0, "bronze_threshold": 0.9,
                   "median_threshold": 0.8}
    none = dict.fromkeys(("any_medal", "gold_medal", "silver_medal", "bronze_medal",
                          "above_median"), False)
    return [
        {"competition_id": "value", "score": round(value_score, 5), **value_board,
         "any_medal": True, "gold_medal": False, "silver_medal": False, "bronze_medal": True,
         "above_median": True, "submission_exists": True, "valid_submission": True,
         "is_lower_better": True, "created_at": created, "submission_path": "v.csv"},
        {"competition_id": "label", "score": None, **label_board, **none,
         "submission_exists": False, "valid_submission": False, "is_lower_better": False,
         "created_at": created, "submission_path": "missing.csv"},
        {"competition_id": "value", "score": None, **value_board, **none,
         "submission_exists": True, "valid_submission": False, "is_lower_better": True,
         "created_at": created, "submission_path": "bad.csv"},
    ]


def test_the_mle_bench_report_differs_from_mle_bench_only_by_our_extra_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from datetime import UTC, datetime

    from tambench.grading.report import GradeFields

    cat, data, _ = make_env(tmp_path)
    rows = TASKS["value"].perfect_rows
    # one prediction off by 3.1: RMSE = 3.1 / sqrt(10) = 0.98031.. (bronze), over 5 decimals
    (tmp_path / "v.csv").write_text("id,y\n" + "".join(
        f"{r[0]},{float(r[1]) + (3.1 if i == 0 else 0.0)}\n" for i, r in enumerate(rows)))
    (tmp_path / "bad.csv").write_text("id,y\n1,2\n")
    lines = [("value", "v.csv"), ("label", "missing.csv"), ("value", "bad.csv")]
    jsonl = tmp_path / "submissions.jsonl"
    jsonl.write_text("".join(json.dumps({"competition_id": c, "submission_path": p}) + "\n"
                             for c, p in lines))
    when = datetime(2025, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
    from tambench.grading.batch.writers import mle_bench_report_data

    report = grade_runs(jsonl, catalogue=cat, data_dir=data, now=when)
    ours = mle_bench_report_data(report)
    value_score = 3.1 / len(rows) ** 0.5
    assert value_score != round(value_score, 5)
    want = _mle_bench_expected("2025-03-04T05:06:07.891011", value_score)
    extras = set(GradeFields.model_fields) - set(MLE_BENCH_FIELDS) | {"medal"} | {
        "agent", "task", "run", "status", "error", "solution_path", "constraints_passed",
        "constraints_total", "constraint_pass_rate", "judge_note"}
    assert len(ours["competition_reports"]) == len(want)
    for got, expected in zip(ours["competition_reports"], want, strict=True):
        assert list(got)[: len(MLE_BENCH_FIELDS)] == list(MLE_BENCH_FIELDS)  # MLE-bench's order
        assert set(got) - set(expected) <= extras
        assert {k: got[k] for k in expected} == pytest.approx(expected), got["run"]
    assert set(ours) - {"report_version"} == {
        "total_runs", "total_runs_with_submissions", "total_valid_submissions", "total_medals",
        "total_gold_medals", "total_silver_medals", "total_bronze_medals", "total_above_median",
        "competition_reports"}


def test_an_unknown_competition_is_named_and_the_command_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cat, data, _ = make_env(tmp_path)
    (tmp_path / "v.csv").write_text(perfect_text(TASKS["value"]))
    jsonl = tmp_path / "submissions.jsonl"
    jsonl.write_text(json.dumps({"competition_id": "no-such-comp", "submission_path": "v.csv"})
                     + "\n" + json.dumps({"competition_id": "value", "submission_path": "v.csv"})
                     + "\n")
    rc = main(["grade-runs", str(jsonl), "--catalogue", str(cat), "--data-dir", str(data),
               "--executor", "serial", "--output-dir", str(tmp_path / "mle")])
    err = capsys.readouterr().err
    assert rc != 0
    assert "task 'no-such-comp' not found" in err
    (written,) = list((tmp_path / "mle").iterdir())
    first = json.loads(written.read_text())["competition_reports"][0]
    assert first["competition_id"] == "no-such-comp" and first["status"] == "task_unknown"
