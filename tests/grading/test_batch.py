"""Batch grading: a status for every row, aggregates, deterministic outputs, escaping."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.executors import get_executor
from tambench.grading.batch import (
    Aggregation,
    BatchReport,
    batch_to_csv,
    batch_to_json,
    grade_runs,
    modality_weighted_mean,
    write_batch_outputs,
)
from tambench.grading.batch import worker as batch_worker
from tambench.grading.batch.html import batch_to_html
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import Difficulty, Modality, TaskSpec
from tests.grading.corpus import CASES, TASKS, build_case, perfect_text
from tests.grading.test_grade import write_leaderboard

FIXED = __import__("datetime").datetime(2025, 1, 1, tzinfo=__import__("datetime").UTC)


def make_env(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A catalogue of three tasks (value: Tabular/easy, label: Image/hard, txt: Text/medium)
    with leaderboards, their answers, and an empty runs folder."""
    cat, data, runs = tmp_path / "catalogue", tmp_path / "data", tmp_path / "runs"
    meta = {
        "value": (Modality.TABULAR, "easy", [0.5 + 0.1 * i for i in range(20)]),
        "label": (Modality.IMAGE, "hard", [1.0, 0.9, 0.8, 0.5, 0.2]),
        "txt": (Modality.TEXT, "medium", [0.9, 0.8, 0.3]),
    }
    for name, (mod, tier, scores) in meta.items():
        task = TASKS[name]
        spec = TaskSpec(id=f"test/{name}", platform="test", modality=mod,
                        difficulty=Difficulty(score=0.5, tier=tier), grading=task.grading)
        folder = cat / "test" / name
        folder.mkdir(parents=True)
        save_taskspec(spec, folder / "task.json")
        write_leaderboard(folder / "leaderboard.csv", scores)
        private = data / "test" / name / "private"
        private.mkdir(parents=True)
        (private / task.grading.answers_file).write_text(task.answers)
    runs.mkdir()
    return cat, data, runs


def put(runs: Path, agent: str, task: str, run: str, text: str | None,
        name: str = "submission.csv") -> Path:
    folder = runs / agent / task / run
    folder.mkdir(parents=True, exist_ok=True)
    if text is not None:
        (folder / name).write_text(text)
    return folder


def _grade(runs: Path, cat: Path, data: Path, **kw: object) -> BatchReport:
    return grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED, **kw)  # type: ignore[arg-type]


def test_every_run_gets_a_status(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    put(runs, "a", "value", "r2", "id,y\n1,2\n")
    put(runs, "a", "label", "r1", None)
    put(runs, "a", "no-such-task", "r1", "id,y\n")
    put(runs, "a", "test__txt", "r1", perfect_text(TASKS["txt"]), name="submission.txt")
    (put(runs, "a", "label", "r2", None) / "best_solution.py").write_text("print(1)\n")
    report = _grade(runs, cat, data)
    status = {(r.task, r.run): r.status.value for r in report.rows}
    assert status == {
        ("label", "r1"): "missing_submission",
        ("label", "r2"): "missing_submission",
        ("no-such-task", "r1"): "task_unknown",
        ("test__txt", "r1"): "graded_valid",
        ("value", "r1"): "graded_valid",
        ("value", "r2"): "invalid_submission",
    }
    by = {(r.task, r.run): r for r in report.rows}
    assert by[("label", "r2")].solution_path == "a/label/r2/best_solution.py"
    assert by[("value", "r1")].submission_path == "a/value/r1/submission.csv"
    assert by[("value", "r1")].rank == 1 and by[("value", "r1")].gold_medal
    assert by[("value", "r2")].errors and by[("value", "r2")].score is None
    unknown = by[("no-such-task", "r1")]
    assert unknown.error is not None and "not found in catalogue" in unknown.error
    assert report.n_failed == 1 and report.agents[0].total_failed == 1


def test_corrupt_tenth_of_a_batch_finishes_with_a_status_for_every_row(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    corrupt = [c for c in CASES if c.want == "R" and c.task == "value"]
    n = 40
    for i in range(n):
        if i % 10 == 0:
            case = corrupt[(i // 10) % len(corrupt)]
            _, _, sub = build_case(case, tmp_path / "build" / str(i))
            folder = put(runs, f"agent{i % 3}", "value", f"run{i:03d}", None)
            if sub.is_symlink() or not sub.is_file():
                os.replace(sub, folder / "submission.csv")
            else:
                (folder / "submission.csv").write_bytes(sub.read_bytes())
        else:
            put(runs, f"agent{i % 3}", "value", f"run{i:03d}", perfect_text(TASKS["value"]))
    with get_executor("thread", 2) as pool:
        report = _grade(runs, cat, data, executor=pool)
    assert len(report.rows) == n
    counts = {s.value: sum(r.status == s for r in report.rows) for s in {r.status for r in report.rows}}
    assert counts == {"graded_valid": 36, "invalid_submission": 4}


def test_grading_error_becomes_an_error_row_and_the_command_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    put(runs, "a", "label", "r1", perfect_text(TASKS["label"]))
    (data / "test" / "label" / "private" / "answers.csv").unlink()  # broken task data
    report = _grade(runs, cat, data)
    by_status = {r.status.value: r for r in report.rows}
    assert set(by_status) == {"graded_valid", "error"}
    assert (by_status["error"].error or "").startswith(
        "TaskDataError: answers of task test/label not found")
    rc = main(["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
               "--executor", "serial", "--json"])
    assert rc == 3
    assert json.loads(capsys.readouterr().out)["agents"][0]["total_failed"] == 1


def test_answers_are_loaded_once_per_task_per_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat, data, runs = make_env(tmp_path)
    for i in range(6):
        put(runs, f"agent{i % 2}", "value", f"r{i}", perfect_text(TASKS["value"]))
        put(runs, f"agent{i % 2}", "label", f"r{i}", perfect_text(TASKS["label"]))
    calls: list[str] = []
    real = batch_worker.load_answers

    def counting(path, *a, **k):  # type: ignore[no-untyped-def]
        calls.append(str(path))
        return real(path, *a, **k)

    monkeypatch.setattr(batch_worker, "load_answers", counting)
    batch_worker._TASK_CACHE.clear()
    report = _grade(runs, cat, data)
    assert all(r.status == "graded_valid" for r in report.rows) and len(report.rows) == 12
    assert len(calls) == 2


def test_task_files_and_leaderboards_are_read_once_per_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discovery, grading and the batch's order warnings share one reading of each task file
    and each leaderboard, however many runs the task has; a changed file is read again."""
    from tambench.grading import board as grade_board

    cat, data, runs = make_env(tmp_path)
    for i in range(4):
        put(runs, "a", "value", f"r{i}", perfect_text(TASKS["value"]))
        put(runs, "a", "label", f"r{i}", perfect_text(TASKS["label"]))
    boards: list[str] = []
    specs: list[str] = []
    real_board, real_spec = grade_board.read_leaderboard, batch_worker.load_taskspec
    monkeypatch.setattr(grade_board, "read_leaderboard",
                        lambda p: boards.append(str(p)) or real_board(p))
    monkeypatch.setattr(batch_worker, "load_taskspec",
                        lambda p: specs.append(str(p)) or real_spec(p))
    first = _grade(runs, cat, data)
    assert sorted(boards) == sorted(str(cat / "test" / t / "leaderboard.csv")
                                    for t in ("label", "value"))
    assert sorted(specs) == sorted(str(cat / "test" / t / "task.json") for t in ("label", "value"))
    boards.clear()
    write_leaderboard(cat / "test" / "value" / "leaderboard.csv", [0.1, 0.2, 0.3])
    second = _grade(runs, cat, data)
    assert boards == [str(cat / "test" / "value" / "leaderboard.csv")]
    assert {r.n_teams for r in second.rows if r.task == "value"} == {3}
    assert {r.n_teams for r in first.rows if r.task == "value"} == {20}


def _mixed_runs(runs: Path) -> None:
    value_rows = TASKS["value"].perfect_rows
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))  # rmse 0 -> rank 1 of 20
    put(runs, "a", "value", "r2", "id,y\n" + "".join(f"{r[0]},{float(r[1]) + 0.55}\n"
                                                     for r in value_rows))  # rmse 0.55: rank 2
    put(runs, "a", "label", "r1", perfect_text(TASKS["label"]))  # accuracy 1 -> rank 1 of 5
    put(runs, "a", "txt", "r1", None)
    put(runs, "b", "label", "r1", "id,y\n" + "".join(f"{r[0]},cat\n"
                                                     for r in TASKS["label"].perfect_rows))


def test_aggregates_follow_the_paper_and_mle_bench_names(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    _mixed_runs(runs)
    report = _grade(runs, cat, data, aggregation=Aggregation(invalid_runs="exclude"))
    a, b = report.agents
    assert (a.agent, a.total_runs, a.total_runs_with_submissions, a.total_valid_submissions) == (
        "a", 4, 3, 3)
    assert a.made_submission_rate == 0.75 and a.valid_submission_rate.value == 0.75
    assert (a.total_medals, a.total_gold_medals, a.total_silver_medals) == (3, 3, 0)
    value = next(t for t in a.tasks if t.task == "value")
    assert value.n_runs == 2 and value.n_valid == 2
    assert value.rank_pct is not None and value.score is not None
    assert value.rank_pct.mean == pytest.approx((5 + 10) / 2)
    assert value.rank_pct.min == 5.0 and value.rank_pct.max == 10.0
    assert value.rank_pct.std == pytest.approx(math.sqrt(2 * 2.5**2))
    assert value.rank_pct.se == pytest.approx(value.rank_pct.std / math.sqrt(2))
    assert value.score.max == pytest.approx(0.55)
    # modality-weighted: one Tabular task (7.5), one Image task (20); txt has no valid run
    assert a.modality_weighted_rank_pct is not None
    assert a.modality_weighted_rank_pct.value == pytest.approx((7.5 + 20) / 2)
    assert a.rank_pct_by_tier == pytest.approx({"easy": 7.5, "hard": 20.0})
    assert a.rank_pct_by_modality == pytest.approx({"Image": 20.0, "Tabular": 7.5})
    assert a.n_tasks == 3 and a.n_tasks_ranked == 2
    assert a.constraints_passed is None and a.constraint_pass_rate is None
    assert b.total_valid_submissions == 1 and b.tasks[0].rank_pct is not None
    assert b.tasks[0].rank_pct.std is None  # one run: no spread
    assert "left out of rank averages" in report.aggregation_rule


def test_runs_without_a_valid_submission_count_as_last_place_by_default(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    _mixed_runs(runs)
    report = _grade(runs, cat, data)
    a, b = report.agents
    # a: value 7.5 (Tabular), label 20 (Image), txt: its one run is missing -> 100 (Text)
    assert a.n_tasks_ranked == 3
    assert a.modality_weighted_rank_pct is not None
    assert a.modality_weighted_rank_pct.value == pytest.approx((7.5 + 20 + 100) / 3)
    assert a.rank_pct_by_modality["Text"] == 100.0
    assert report.aggregation.invalid_runs == "last"
    assert "count as last place, rank_pct 100" in report.aggregation_rule
    assert a.any_medal_rate is not None and a.any_medal_rate.value == pytest.approx(3 / 4)


def test_modality_weighted_mean_weights_each_modality_equally() -> None:
    pairs = [("Text", 10.0), ("Text", 30.0), ("Text", 50.0), ("Image", 90.0)]
    assert modality_weighted_mean(pairs) == pytest.approx((30 + 90) / 2)
    assert modality_weighted_mean([]) is None


def test_executors_give_byte_identical_reports(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    for i in range(8):
        put(runs, f"agent{i % 2}", ["value", "label"][i % 2], f"r{i}",
            perfect_text(TASKS[["value", "label"][i % 2]]) if i % 3 else "id,y\nbad\n")
    outs = []
    for kind in ("serial", "thread", "local"):
        with get_executor(kind, 2) as pool:
            report = _grade(runs, cat, data, executor=pool)
        outs.append((batch_to_json(report), batch_to_csv(report), batch_to_html(report)))
    assert outs[0] == outs[1] == outs[2]


def test_csv_report_escapes_formula_injection(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "=cmd|' C calc'!A0", "value", "+run", "id,y\n-1,@SUM(A1)\n")
    put(runs, "@agent", "value", "-r", perfect_text(TASKS["value"]))
    report = _grade(runs, cat, data)
    rows = list(csv.DictReader(io.StringIO(batch_to_csv(report), newline="")))
    for row in rows:
        for col, cell in row.items():
            if col in {"score", "rank", "n_teams", "rank_pct", "gold_threshold",
                       "silver_threshold", "bronze_threshold", "median_threshold"}:
                continue
            assert not cell.startswith(("=", "+", "-", "@")), (col, cell)
    assert {r["agent"] for r in rows} == {"'=cmd|' C calc'!A0", "'@agent"}
    assert any(r["run"] == "'+run" for r in rows)
    assert any("'@SUM(A1)" in r["errors"] or "@SUM" in r["errors"] for r in rows)


def test_html_report_is_escaped_self_contained_and_has_figures(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "<script>alert(1)<\\script>", "value", "r1", perfect_text(TASKS["value"]))
    put(runs, "b", "label", "<img src=x>", "id,y\n<b>x</b>,1\n")
    paths = write_batch_outputs(_grade(runs, cat, data), tmp_path / "out")
    page = paths["html"].read_text()
    assert "<script>alert" not in page and "<img src=x>" not in page and "<b>x</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;\\script&gt;" in page  # the no-script summary table
    assert "\\u003cscript\\u003ealert(1)" in page  # the data block
    assert page.count("<script") == 2  # the data block and the report's own script
    assert page.count("data:image/svg+xml;base64,") == 4  # rank, medals, modality, tier
    assert "http://" not in page.replace("http://www.w3.org", "") and "src=\"http" not in page
    json.loads(paths["json"].read_text(), parse_constant=lambda c: pytest.fail(c))
    assert paths["csv"].read_text().startswith("agent,task,run,status,")


def test_symlinked_run_folders_are_refused_rows(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    elsewhere = put(tmp_path, "x", "y", "z", perfect_text(TASKS["value"]))
    (runs / "a" / "value").mkdir(parents=True)
    os.symlink(elsewhere, runs / "a" / "value" / "linked")
    report = _grade(runs, cat, data)
    (row,) = report.rows
    assert row.status == "invalid_submission" and row.submission_exists
    assert row.errors == ["a/value/linked is a symbolic link; run folders must be real folders"]


def test_grade_runs_command_writes_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    rc = main(["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
               "--out", str(tmp_path / "out"), "--executor", "thread", "--workers", "2"])
    assert rc == 0
    assert {p.name for p in (tmp_path / "out").iterdir()} == {
        "grades.json", "grades.csv", "report.html", "manifest.json"}
    assert "a" in capsys.readouterr().out


def test_report_files_are_readable_by_others_not_0600(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    old = os.umask(0o022)
    try:
        paths = write_batch_outputs(_grade(runs, cat, data), tmp_path / "out")
    finally:
        os.umask(old)
    assert {oct(p.stat().st_mode & 0o777) for p in paths.values()} == {"0o644"}


def test_batch_reports_of_another_version_are_refused_with_a_reason(tmp_path: Path) -> None:
    from tambench.errors import ReportVersionError
    from tambench.grading.batch import load_batch_report

    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    paths = write_batch_outputs(_grade(runs, cat, data), tmp_path / "out")
    assert load_batch_report(paths["json"]).rows[0].status == "graded_valid"
    data_json = json.loads(paths["json"].read_text())
    for version, message in ((99, "newer than this tambench reads"),
                             (1, "written by an older tambench; grade the runs again")):
        paths["json"].write_text(json.dumps({**data_json, "report_version": version}))
        with pytest.raises(ReportVersionError, match=message):
            load_batch_report(paths["json"])


@pytest.mark.parametrize("cell", [
    "=1+1", "+1", "-1", "@SUM(A1)", " =1+1", "\t=1", "\r=1", "\n=1", "\u3000=1", "＝1+1",
    "\x00=1", "  @x",
])
def test_no_spreadsheet_formula_survives_in_a_text_cell(cell: str) -> None:
    from tambench.grading.batch.writers import csv_cell
    from tambench.grading.sanitize import csv_line

    (parsed,) = list(csv.reader(io.StringIO(csv_line(["x", csv_cell(cell)]), newline="")))
    text = parsed[1]
    stripped = text.lstrip(" \t\r\n\u3000")
    assert text.startswith("'") or stripped[:1] not in {"=", "+", "-", "@", "＝"}, text
