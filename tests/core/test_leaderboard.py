"""Leaderboards: five real formats and the kaggle client's rows load into one normalised form;
the compact form the catalogue ships round-trips."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

from tambench.core.leaderboard import (
    DEFAULT_EXCLUDE,
    check_order,
    leaderboard_from_client_rows,
    leaderboard_to_compact_csv,
    leaderboard_to_csv,
    read_leaderboard,
    read_leaderboard_text,
    write_compact_leaderboard,
    write_leaderboard,
)
from tambench.errors import LeaderboardError, LeaderboardOrderWarning

EXPECTED = {  # slug: (format, rows) from peer-benchmarks.md
    "mlsp-2013-birds": ("kaggle-api", 81),
    "tensorflow-speech-recognition-challenge": ("kaggle-api", 1314),
    "cornell-birdcall-identification": ("kaggle-web", 1391),
    "ind": ("biendata", 115),
    "pst": ("biendata", 42),
    "aqa": ("biendata", 59),
    "denoising-dirty-documents": ("kaggle-api", 162),
    "statoil-iceberg-classifier-challenge": ("kaggle-api", 3330),
    "image-matching-challenge-2024-hexathlon": ("kaggle-web", 930),
    "multi-modal-gesture-recognition": ("kaggle-api", 19),
    "nextproductprediction": ("aicrowd", 174),
    "planttraits2024": ("kaggle-web", 398),
    "new-york-city-taxi-fare-prediction": ("kaggle-web", 1485),
    "binary-prediction-of-poisonous-mushrooms": ("kaggle-web", 2424),
    "stanford-covid-vaccine": ("kaggle-api", 1636),
    "text-normalization-challenge-english-language": ("kaggle-api", 261),
    "lmsys-chatbot-arena": ("kaggle-api", 1688),
    "eedi-mining-misconceptions-in-mathematics": ("kaggle-web", 1449),
}


def test_all_18_real_leaderboards_load_with_their_format_and_row_count(tam_lite_dir: Path) -> None:
    assert sorted(p.name for p in tam_lite_dir.iterdir() if p.is_dir()) == sorted(EXPECTED)
    for slug, (fmt, n) in EXPECTED.items():
        lb = read_leaderboard(tam_lite_dir / slug / "leaderboard.csv")
        assert lb.format == fmt, slug
        assert len(lb) == n, slug
        assert lb.finite_scores().size == n, slug
        assert all(r.team for r in lb.rows), slug


def test_junk_rows_of_the_real_boards_are_reported_with_row_numbers(tam_lite_dir: Path) -> None:
    taxi = read_leaderboard(tam_lite_dir / "new-york-city-taxi-fare-prediction" / "leaderboard.csv")
    outliers = [j for j in taxi.detect_junk() if j.rule == "outlier"]
    assert [j.row for j in outliers] == [1485]
    assert taxi.rows[1484].score == pytest.approx(24987861.69584)

    plant = read_leaderboard(tam_lite_dir / "planttraits2024" / "leaderboard.csv")
    rows = {j.row for j in plant.detect_junk() if j.rule == "outlier"}
    worst = min(plant.rows, key=lambda r: r.score)
    assert worst.score < -1e40 and worst.row in rows
    assert all(plant.rows[r - 1].score < -100 for r in rows)

    pst = read_leaderboard(tam_lite_dir / "pst" / "leaderboard.csv")
    placeholders = [j for j in pst.detect_junk() if j.rule == "placeholder"]
    assert [pst.rows[j.row - 1].team for j in placeholders] == ["llava99999b"]

    cornell = read_leaderboard(tam_lite_dir / "cornell-birdcall-identification" / "leaderboard.csv")
    zeros = [j for j in cornell.detect_junk() if j.rule == "zero"]
    assert len(zeros) == 22
    assert "zero" not in DEFAULT_EXCLUDE
    assert len(cornell.clean()) == 1391  # zeros are reported, not excluded by default
    assert len(cornell.clean(exclude=DEFAULT_EXCLUDE | {"zero"})) == 1391 - 22


def test_clean_drops_only_rows_of_the_named_rules(tam_lite_dir: Path) -> None:
    taxi = read_leaderboard(tam_lite_dir / "new-york-city-taxi-fare-prediction" / "leaderboard.csv")
    assert len(taxi.clean()) == 1484
    assert len(taxi.clean(exclude=[])) == 1485
    with pytest.raises(LeaderboardError, match="unknown junk rule"):
        taxi.clean(exclude=["nonsense"])


def test_kaggle_web_export_with_bom_and_quoted_commas_is_read(tmp_path: Path) -> None:
    text = (
        "\ufeffRank,TeamId,TeamName,LastSubmissionDate,Score,SubmissionCount,TeamMemberUserNames\n"
        '1,11,"Smith, Jones & Co","2024-08-31 23:52:03","0.98514",124,"a,b"\n'
        "2,12,Solo,2024-08-30 10:00:00,0.9,3,c\n"
    )
    p = tmp_path / "lb.csv"
    p.write_bytes(text.encode("utf-8"))
    lb = read_leaderboard(p)
    assert lb.format == "kaggle-web"
    first = lb.rows[0]
    assert (first.rank, first.team, first.score, first.entries) == (1, "Smith, Jones & Co", 0.98514, 124)
    assert first.submitted_at == "2024-08-31T23:52:03"
    assert first.source["TeamMemberUserNames"] == "a,b"


def test_kaggle_api_dump_marks_rows_without_score_as_missing() -> None:
    text = (
        "scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore\n"
        "0.5,1,True,2020-01-01 00:00:00,0.5,True\n"
        ",2,True,2020-01-01 00:00:00,,False\n"
        "abc,3,True,2020-01-01 00:00:00,abc,True\n"
        "inf,4,True,2020-01-01 00:00:00,inf,True\n"
    )
    lb = read_leaderboard_text(text)
    rules = {(j.row, j.rule) for j in lb.detect_junk()}
    assert (2, "missing") in rules and (3, "unparseable") in rules and (4, "non_finite") in rules
    assert lb.finite_scores().tolist() == [0.5]
    assert len(lb.clean(exclude=[])) == 1  # non-numbers can never be used
    assert lb.rows[0].rank == 1 and lb.rows[3].rank == 4  # position when the file has no rank


def test_aicrowd_dates_and_biendata_boards_normalise() -> None:
    lb = read_leaderboard_text(
        'Rank,TeamName,Score,Entries,LastSubmission\n1,"MGTV-REC",0.41208,96,"Fri, 23 Jun 2023 08:04"\n'
    )
    assert lb.rows[0].submitted_at == "2023-06-23T08:04:00"
    assert lb.rows[0].entries == 96
    bd = read_leaderboard_text(
        "Rank,TeamName,Score,Parameters,GPUMemoryGb,SubmissionCount\n1,BlackPearl,0.3,170,640,134\n"
    )
    assert bd.format == "biendata" and bd.rows[0].entries == 134


def test_out_of_range_and_duplicate_rows_are_flagged() -> None:
    lb = read_leaderboard_text(
        "Rank,TeamId,TeamName,LastSubmissionDate,Score,SubmissionCount,TeamMemberUserNames\n"
        "1,1,a,2020-01-01,1.5,1,a\n2,2,b,2020-01-01,0.9,1,b\n3,2,b,2020-01-01,0.9,1,b\n"
        "4,4,c,2020-01-01,0.8,1,c\n5,5,d,2020-01-01,0.7,1,d\n"
    )
    rules = {(j.row, j.rule) for j in lb.detect_junk(value_range=(0.0, 1.0))}
    assert (1, "out_of_range") in rules
    assert (3, "duplicate") in rules
    assert len(lb.clean(value_range=(0.0, 1.0))) == 3


def test_normalised_csv_round_trips_exactly(tam_lite_dir: Path, tmp_path: Path) -> None:
    for slug in ("planttraits2024", "aqa", "nextproductprediction", "lmsys-chatbot-arena"):
        lb = read_leaderboard(tam_lite_dir / slug / "leaderboard.csv")
        out = tmp_path / f"{slug}.csv"
        write_leaderboard(lb, out)
        again = read_leaderboard(out)
        assert again.format == "normalised"
        assert [(r.rank, r.team, r.score, r.entries, r.submitted_at) for r in again.rows] == [
            (r.rank, r.team, r.score, r.entries, r.submitted_at) for r in lb.rows
        ]
        assert again.source_columns == lb.source_columns
        assert leaderboard_to_csv(again) == leaderboard_to_csv(lb)
        header = out.read_text(encoding="utf-8").splitlines()[0]
        assert header.startswith("rank,team,score,entries,submitted_at")


def test_kaggle_client_rows_normalise_with_string_scores() -> None:
    class Row:
        def __init__(self, tid: int, name: str, date: str, score: str) -> None:
            self.team_id, self.team_name, self.submission_date, self.score = tid, name, date, score

    lb = leaderboard_from_client_rows(
        [Row(7, "A", "2024-01-02T03:04:05", "0.91"), {"teamId": 8, "teamName": "B",
                                                       "submissionDate": "", "score": "0.85"}]
    )
    assert lb.format == "kaggle-client"
    assert [(r.rank, r.team, r.team_id, r.score) for r in lb.rows] == [
        (1, "A", "7", 0.91), (2, "B", "8", 0.85)]
    with pytest.raises(LeaderboardError, match="no leaderboard rows"):
        leaderboard_from_client_rows([])


def test_unknown_format_and_empty_files_raise_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(LeaderboardError, match="unknown leaderboard format"):
        read_leaderboard_text("a,b\n1,2\n")
    with pytest.raises(LeaderboardError, match="empty"):
        read_leaderboard_text("")
    with pytest.raises(LeaderboardError, match="no rows"):
        read_leaderboard_text("Rank,TeamName,Score,Entries,LastSubmission\n")
    with pytest.raises(LeaderboardError, match="line 2: 2 fields"):
        read_leaderboard_text("Rank,TeamName,Score,Entries,LastSubmission\n1,a\n")
    with pytest.raises(LeaderboardError, match="not found"):
        read_leaderboard(tmp_path / "nope.csv")


def test_order_contradicting_the_declared_direction_warns(tam_lite_dir: Path) -> None:
    lb = read_leaderboard(tam_lite_dir / "denoising-dirty-documents" / "leaderboard.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_order(lb, higher_is_better=False) == 0  # RMSE board, ascending: consistent
    with pytest.warns(LeaderboardOrderWarning, match="against the declared direction"):
        assert check_order(lb, higher_is_better=True) > 100


def test_scores_parse_exactly_from_strings() -> None:
    lb = read_leaderboard_text(
        'Rank,TeamName,Score,Entries,LastSubmission\n1,a," 0.1 ",1,\n2,b,1e-3,1,\n'
    )
    assert lb.scores.tolist() == [0.1, 0.001]
    assert not any(math.isnan(s) for s in lb.scores)


def test_rank_score_boards_of_the_shared_data_load_as_their_own_format(shared_dir: Path) -> None:
    lb = read_leaderboard(shared_dir / "data" / "leaderboards" / "ventilator-pressure-prediction"
                          / "leaderboard.csv")
    assert lb.format == "rank-score"
    assert len(lb) == 2605
    assert (lb.rows[0].rank, lb.rows[0].score) == (1, 0.0575)
    assert lb.rows[0].team == "" and lb.rows[0].team_id is None


def test_ties_on_a_board_without_teams_are_not_duplicates() -> None:
    lb = read_leaderboard_text("rank,score\n1,0.9\n2,0.9\n2,0.9\n4,0.8\n")
    assert [j.rule for j in lb.detect_junk()] == []
    assert len(lb.clean()) == 4


def test_a_header_with_rank_score_and_other_columns_is_not_the_rank_score_format() -> None:
    with pytest.raises(LeaderboardError, match="unknown leaderboard format"):
        read_leaderboard_text("rank,score,teamname\n1,0.9,a\n")


def test_compact_form_keeps_order_raw_scores_and_placeholder_flags(tam_lite_dir: Path,
                                                                    tmp_path: Path) -> None:
    for slug in ("pst", "new-york-city-taxi-fare-prediction", "mlsp-2013-birds"):
        lb = read_leaderboard(tam_lite_dir / slug / "leaderboard.csv")
        out = tmp_path / f"{slug}.csv"
        write_compact_leaderboard(lb, out)
        again = read_leaderboard(out)
        assert again.format == "rank-score"
        assert [r.score_raw for r in again.rows] == [r.score_raw.strip().strip('"')
                                                     for r in lb.rows]
        assert [r.rank for r in again.rows] == [r.row if r.rank is None else r.rank for r in lb.rows]
        before = {(j.row, j.rule) for j in lb.detect_junk() if j.rule != "duplicate"}
        after = {(j.row, j.rule) for j in again.detect_junk()}
        assert after == before, slug
    pst = (tmp_path / "pst.csv").read_text().splitlines()
    assert pst[0] == "rank,score,flag"
    assert sum(line.endswith(",placeholder") for line in pst) == 1


def test_compact_form_keeps_rows_without_a_score_as_participants() -> None:
    lb = read_leaderboard_text(
        "scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore\n"
        "0.5,1,True,2020-01-01 00:00:00,0.5,True\n"
        ",2,True,2020-01-01 00:00:00,,False\n"
    )
    text = leaderboard_to_compact_csv(lb)
    assert text == "rank,score\n1,0.5\n2,\n"
    again = read_leaderboard_text(text)
    assert len(again) == 2 and again.finite_scores().tolist() == [0.5]


@pytest.mark.parametrize(("cell", "read"), [
    ("2020-01-31 23:59:59", "2020-01-31T23:59:59"),
    (" 2016-02-29 00:00:00 ", "2016-02-29T00:00:00"),
    ("2017-02-29 00:00:00", "2017-02-29 00:00:00"),  # no such day: kept as written
    ("2017-01-01 24:00:00", "2017-01-01 24:00:00"),
    ("2017-01-01 23:59:60", "2017-01-01 23:59:60"),
    ("2017-01-01 23:59", "2017-01-01T23:59:00"),  # ISO without seconds
    ("2017-1-5 3:04:05", "2017-01-05T03:04:05"),  # unpadded fields
])
def test_submission_dates_read_the_same_on_the_fast_path_and_the_full_one(cell: str,
                                                                          read: str) -> None:
    from tambench.core.leaderboard.read import parse_timestamp

    assert parse_timestamp(cell) == read


def test_sorted_scores_are_computed_once_and_cannot_be_changed() -> None:
    lb = read_leaderboard_text("rank,score\n1,0.9\n2,nan\n3,0.5\n4,0.7\n")
    ranked = lb.sorted_finite_scores()
    assert ranked.tolist() == [0.5, 0.7, 0.9] and lb.sorted_finite_scores() is ranked
    with pytest.raises(ValueError, match="read-only"):
        ranked[0] = 1.0
    mine = lb.finite_scores()
    mine[0] = 0.0  # the caller's own copy, file order
    assert lb.finite_scores().tolist() == [0.9, 0.5, 0.7]


def test_one_cleaning_of_a_board_is_done_once() -> None:
    """Every difficulty method of a task cleans its board the same way: the second asks get
    the first's result; another range or rule set is another cleaning."""
    lb = read_leaderboard_text("rank,score\n1,0.9\n2,1.5\n3,0.5\n4,0\n")
    first = lb.clean(value_range=(0.0, 1.0))
    assert lb.clean(value_range=(0.0, 1.0), exclude=sorted(DEFAULT_EXCLUDE)) is first
    assert first.finite_scores().tolist() == [0.9, 0.5, 0.0]
    assert lb.clean(value_range=(0.0, 2.0)).finite_scores().tolist() == [0.9, 1.5, 0.5, 0.0]
    assert lb.clean(value_range=(0.0, 1.0), exclude=[*DEFAULT_EXCLUDE, "zero"]
                    ).finite_scores().tolist() == [0.9, 0.5]
    with pytest.raises(LeaderboardError, match="unknown junk rule"):
        lb.clean(exclude=["no-such-rule"])
