"""Hostile leaderboards: every numeric cell is read strictly (``inf``, ``1e400``, ``nan`` in a
score, rank or entries column are per-row problems, never a crash; only the score decides
whether a row counts), a decimal comma is read by
its shape and never as a thousands separator, and every path that ranks warns about a board
sorted against the metric's direction, in its report too."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import tambench
from tambench.cli.main import main
from tambench.core.leaderboard import read_leaderboard_text
from tambench.core.leaderboard.numbers import read_score, read_whole
from tambench.grading.batch import grade_runs
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import FIXED, make_env, put

KAGGLE_WEB = "Rank,TeamId,TeamName,LastSubmissionDate,Score,SubmissionCount\n"
NUMBERS = ["inf", "-inf", "1e400", "nan", "NaN", "9" * 5000, "1_000", "\u0661\u0662", "3.5",
           "0x10", "1e3", ""]


@pytest.mark.parametrize("cell", NUMBERS)
def test_a_rank_or_entries_cell_is_a_whole_number_or_a_row_problem(cell: str) -> None:
    value, problem = read_whole(cell, "rank")
    if cell == "":
        assert (value, problem) == (None, None)
    else:
        assert value is None and problem is not None and problem.startswith("rank ")
    rows = "".join(f"{i},{10 + i},t{i},2024-01-01,{0.9 - i / 10},{cell if i == 2 else 3}\n"
                   for i in (1, 2, 3))
    board = read_leaderboard_text(KAGGLE_WEB + rows.replace("2,12,", f"{cell},12,"))
    junk = board.detect_junk()
    if cell:  # reported, but the row's score is fine: it counts
        assert {(j.row, j.rule) for j in junk} == {(2, "bad_cell")}
        assert all(cell[:10] in j.detail for j in junk)
        assert len(board.clean()) == 3
    else:
        assert junk == []


@pytest.mark.parametrize("column", ["SubmissionCount", "Rank"])
def test_a_kaggle_row_with_an_absurd_count_or_rank_still_counts(tmp_path: Path,
                                                                 column: str) -> None:
    """Round 2 left these rows set aside as junk: a board of 20 teams became 18, and every
    rank percentage moved."""
    cell = "inf" if column == "SubmissionCount" else "1e400"
    rows = [f"{i},{100 + i},t{i},2024-01-01 00:00:00,{i / 100},3" for i in range(1, 21)]
    for i in (4, 9):
        rank, team, name, date, score, count = rows[i].split(",")
        rows[i] = ",".join([cell if column == "Rank" else rank, team, name, date, score,
                            cell if column == "SubmissionCount" else count])
    board = _write(tmp_path / "lb.csv", KAGGLE_WEB + "\n".join(rows) + "\n")
    answers = _write(tmp_path / "answers.csv", "id,y\n1,1.0\n2,1.0\n")
    sub = _write(tmp_path / "sub.csv", "id,y\n1,1.105\n2,0.895\n")  # rmse 0.105
    report = tambench.grade(sub, answers=answers, metric="rmse", id_columns=["id"],
                            target_columns=["y"], leaderboard=board)
    assert report.n_teams == 20 and report.rank == 11  # ten teams scored below 0.105
    junk = read_leaderboard_text(board.read_text()).detect_junk()
    assert [(j.row, j.rule) for j in junk] == [(5, "bad_cell"), (10, "bad_cell")]
    assert junk[0].detail.startswith(f"{'entries' if column == 'SubmissionCount' else 'rank'} ")


@pytest.mark.parametrize(("cell", "rule"), [("inf", "non_finite"), ("1e400", "non_finite"),
                                             ("nan", "non_finite"), ("1_000", "unparseable"),
                                             ("\u0661\u0662", "unparseable"), ("", "missing")])
def test_a_score_cell_that_is_not_a_finite_ascii_number_is_junk(cell: str, rule: str) -> None:
    assert read_score(cell)[1] == rule
    board = read_leaderboard_text(f"rank,score\n1,0.9\n2,{cell}\n3,0.5\n")
    assert [(j.row, j.rule) for j in board.detect_junk()] == [(2, rule)]


@pytest.mark.parametrize(("cells", "values"), [
    (["0,5", "0,25"], [0.5, 0.25]),               # decimal commas, by their shape
    (["0,9", "1,234"], [0.9, 1.234]),             # ... and the ambiguous cell follows the board
    (["12,345,678", "1,234"], [12345678.0, 1234.0]),  # a thousands board
    (["1,234", "0.5"], [1234.0, 0.5]),            # no evidence: three digits are thousands
    (["1234,5", "0.75"], [1234.5, 0.75]),         # a comma before one digit is decimal
])
def test_a_comma_is_read_by_its_shape_and_the_boards_convention(cells: list[str],
                                                               values: list[float]) -> None:
    text = "rank,score\n" + "".join(f'{i},"{c}"\n' for i, c in enumerate(cells, 1))
    board = read_leaderboard_text(text)
    assert [r.score for r in board.rows] == values
    assert board.detect_junk() == []


def test_a_board_showing_both_comma_conventions_refuses_its_comma_cells() -> None:
    board = read_leaderboard_text('rank,score\n1,"1,234,567"\n2,"0,5"\n3,0.25\n')
    junk = board.detect_junk()
    assert [(j.row, j.rule) for j in junk] == [(1, "unparseable"), (2, "unparseable")]
    assert "both as a decimal mark and as a thousands separator" in junk[0].detail
    assert [r.score for r in board.clean().rows] == [0.25]


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("cell", ["inf", "1e400", "nan"])
def test_rank_show_and_grade_survive_a_hostile_rank_column(
    cell: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    board = _write(tmp_path / "lb.csv", KAGGLE_WEB + "".join(
        f"{cell if i == 2 else i},{i},t{i},2024-01-01,{i / 10},{cell if i == 3 else 1}\n"
        for i in range(1, 9)))
    answers = _write(tmp_path / "answers.csv", "id,y\n1,1.0\n2,1.0\n")
    sub = _write(tmp_path / "sub.csv", "id,y\n1,1.25\n2,0.75\n")  # rmse 0.25
    for argv in (["rank", "--leaderboard", str(board), "--score", "0.25", "--metric", "rmse"],
                 ["leaderboard", "show", str(board), "--metric", "rmse"],
                 ["grade", str(sub), "--answers", str(answers), "--metric", "rmse",
                  "--id-column", "id", "--target-column", "y", "--leaderboard", str(board)]):
        rc = main([*argv, "--json"])
        out, err = capsys.readouterr()
        assert rc == 0 and "Traceback" not in err, (argv, err)
        document = json.loads(out)
        if argv[0] == "leaderboard":
            assert {(j["row"], j["rule"]) for j in document["junk"]} == {
                (2, "bad_cell"), (3, "bad_cell")}
            assert document["excluded_by_default"] == []
        else:  # rows 2 and 3 have fine scores: all eight teams count; 0.1 and 0.2 beat 0.25
            assert (document["rank"], document["n_teams"]) == (3, 8)


def test_a_decimal_comma_score_is_not_read_as_thousands_when_grading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # "0,5" on an RMSE board was read as 5 and ranked as a real (bad) entry.
    board = _write(tmp_path / "lb.csv", 'rank,score\n1,0.1\n2,0.2\n3,"0,5"\n4,0.9\n')
    answers = _write(tmp_path / "answers.csv", "id,y\n1,0.0\n2,0.0\n")
    sub = _write(tmp_path / "sub.csv", "id,y\n1,0.6\n2,0.6\n")  # rmse 0.6
    rc = main(["grade", str(sub), "--answers", str(answers), "--metric", "rmse", "--id-column",
               "id", "--target-column", "y", "--leaderboard", str(board), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and math.isclose(report["score"], 0.6)
    assert (report["rank"], report["n_teams"]) == (4, 4)  # 0.1, 0.2 and 0.5 are better
    assert report["leaderboard_order_inversions"] == 0 and report["warnings"] == []


REVERSED = "rank,score\n" + "".join(f"{i},{i / 10}\n" for i in range(1, 11))  # ascending


def test_grade_warns_about_a_board_sorted_against_the_metric_and_records_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    board = _write(tmp_path / "lb.csv", REVERSED)  # ascending scores on an accuracy board
    answers = _write(tmp_path / "answers.csv", "id,y\n1,a\n2,b\n")
    sub = _write(tmp_path / "sub.csv", "id,y\n1,a\n2,a\n")
    argv = ["grade", str(sub), "--answers", str(answers), "--metric", "accuracy", "--id-column",
            "id", "--target-column", "y", "--leaderboard", str(board)]
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["leaderboard_order_inversions"] == 9
    (warning,) = report["warnings"]
    assert "9 of 9 adjacent pairs ordered against the declared direction (higher is better)" \
        in warning and f"warning: {warning}" in err
    api = tambench.grade(sub, answers=answers, metric="accuracy", id_columns=["id"],
                         target_columns=["y"], leaderboard=board)
    assert api.leaderboard_order_inversions == 9 and api.warnings == [warning]


def test_grade_runs_warns_once_per_task_about_a_reversed_board(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    (cat / "test" / "value" / "leaderboard.csv").write_text(
        "rank,score\n" + "".join(f"{i},{2 - i / 10}\n" for i in range(1, 11)))  # rmse, desc
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    put(runs, "a", "value", "r2", perfect_text(TASKS["value"]))
    put(runs, "a", "label", "r1", perfect_text(TASKS["label"]))
    report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    order = [w for w in report.warnings if "against the declared direction" in w]
    assert len(order) == 1 and order[0].startswith("task test/value: ")
    assert "(lower is better)" in order[0]
    assert all(r.warnings == [] for r in report.rows)  # said once, in the batch's warnings
