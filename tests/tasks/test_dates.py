"""Dates: read from timelines and boards, cross-checked; filters on them name what they cannot
decide; subsets by date name the cells they cannot fill."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core.leaderboard import read_leaderboard
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import FactSource, GradingSpec, Modality, TaskSpec
from tambench.tasks.catalogue import bundled_catalogue_dir
from tambench.tasks.dates import (
    TIMELINE_FACT,
    DatedSource,
    DateStatement,
    dated_text,
    decide_dates,
    ended_within,
    is_rolling,
    last_submission,
    rolling_statements,
    timeline_statements,
)
from tambench.tasks.manifests import render_manifest

DESC = FactSource(source="github:example/descriptions", commit="a" * 40, path="x/description.md")
DESC2 = FactSource(source="github:example/other", commit="b" * 40, path="y/description.txt")
BOARD = FactSource(source="github:example/boards", commit="c" * 40, path="x/leaderboard.csv")


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(s.kind, s.day.isoformat()) for s in timeline_statements(text)]


# --- reading ---------------------------------------------------------------------------------


def test_a_real_timeline_gives_start_end_and_ignores_entry_and_merger_deadlines(
    shared_dir: Path,
) -> None:
    text = (shared_dir / "data" / "competition-descriptions" / "bms-molecular-translation.md"
            ).read_text(encoding="utf-8")
    got = _kinds(text)
    assert ("start", "2021-03-02") in got and ("end", "2021-06-03") in got
    assert ("other", "2021-05-26") in got  # entry and team-merger deadlines: neither
    decision = decide_dates([DatedSource(DESC, statements=tuple(timeline_statements(text)))])
    assert (decision.start, decision.end) == (date(2021, 3, 2), date(2021, 6, 3))


def test_timeline_phrasings_and_lines_that_are_not_the_end() -> None:
    assert _kinds("The competition will conclude **July 8, 2019** at 11:59 PM UTC.") == [
        ("end", "2019-07-08")]
    assert _kinds("- **May 10, 2023** - Start Date.\n- August 9, 2023 - Final Submission "
                  "Deadline.") == [("start", "2023-05-10"), ("end", "2023-08-09")]
    assert _kinds("Final submission deadline - 12 November 2019") == [("end", "2019-11-12")]
    # A post-competition update naming a date is not a deadline; a date without a year is no
    # date at all; a line with two dates and no extension says nothing.
    assert _kinds("UPDATE (Nov 18, 2019): files added post-competition close.") == [
        ("other", "2019-11-18")]
    assert _kinds("Tuesday, August 7th: Competition launches") == []
    assert _kinds("Prize as of May 1, 2023 among notebooks published by May 3, 2023") == []


def test_an_extension_wins_over_the_deadline_it_replaces() -> None:
    text = ("- June 2, 2021 - Final submission deadline.\n"
            "Update May 28, 2021. The competition deadline has been extended 24 hours from "
            "June 2, 2021 at 11:59 pm UTC to June 3, 2021 at 11:59pm UTC.")
    decision = decide_dates([DatedSource(DESC, statements=tuple(timeline_statements(text)))])
    assert decision.end == date(2021, 6, 3) and not decision.problems


def test_a_real_board_gives_its_last_submission_and_agrees_with_the_timeline(
    shared_dir: Path,
) -> None:
    data = shared_dir / "data"
    lb = read_leaderboard(data / "leaderboards" / "aerial-cactus-identification"
                          / "leaderboard.csv")
    assert last_submission(lb) == date(2019, 7, 8)
    text = (data / "competition-descriptions" / "aerial-cactus-identification.md").read_text(
        encoding="utf-8")
    decision = decide_dates([DatedSource(DESC, statements=tuple(timeline_statements(text))),
                             DatedSource(BOARD, board_last=last_submission(lb))])
    assert decision.end == date(2019, 7, 8) and not decision.problems
    assert [(f.source, f.value) for f in decision.facts["end_date"]] == [
        (DESC.source, "2019-07-08"), (BOARD.source, "2019-07-08")]
    assert "timeline" in decision.facts["end_date"][0].detail
    # A board without dates (rank,score) gives none.
    compact = read_leaderboard(bundled_catalogue_dir() / "kaggle"
                               / "aerial-cactus-identification" / "leaderboard.csv")
    assert last_submission(compact) is None


# --- cross-checking --------------------------------------------------------------------------


def _stated(kind: str, day: date) -> tuple[DateStatement, ...]:
    return (DateStatement(kind, day, f"{day} - {kind}"),)  # type: ignore[arg-type]


def test_a_board_that_contradicts_the_deadline_leaves_the_end_unset_and_records_both() -> None:
    later = decide_dates([DatedSource(DESC, statements=_stated("end", date(2021, 11, 3))),
                          DatedSource(BOARD, board_last=date(2021, 11, 20))])
    assert later.end is None
    assert "after the description's final deadline (2021-11-03)" in later.problems[0]
    assert {f.value for f in later.facts["end_date"]} == {"2021-11-03", "2021-11-20"}
    early = decide_dates([DatedSource(DESC, statements=_stated("end", date(2021, 11, 3))),
                          DatedSource(BOARD, board_last=date(2021, 4, 5))])
    assert early.end is None and "more than 14 days before" in early.problems[0]
    # Within the last days (or the day after, deadlines being 11:59 PM UTC) they agree.
    ok = decide_dates([DatedSource(DESC, statements=_stated("end", date(2021, 11, 3))),
                       DatedSource(BOARD, board_last=date(2021, 11, 4))])
    assert ok.end == date(2021, 11, 3) and not ok.problems


def test_descriptions_that_disagree_leave_the_date_unset() -> None:
    d = decide_dates([DatedSource(DESC, statements=_stated("end", date(2019, 6, 26))),
                      DatedSource(DESC2, statements=_stated("end", date(2019, 11, 18)))])
    assert d.end is None and "disagree: 2019-06-26, 2019-11-18" in d.problems[0]
    assert [f.path for f in d.facts["end_date"]] == [DESC.path, DESC2.path]
    one_text = DatedSource(DESC, statements=(*_stated("start", date(2020, 1, 1)),
                                             *_stated("start", date(2020, 2, 1))))
    d = decide_dates([one_text])
    assert d.start is None and "states 2 start dates" in d.problems[0]


def test_a_board_alone_gives_the_end_and_a_start_after_the_end_is_refused() -> None:
    d = decide_dates([DatedSource(BOARD, board_last=date(2024, 6, 14))])
    assert d.end == date(2024, 6, 14)
    assert d.facts["end_date"][0].detail == "last submission on the final leaderboard"
    d = decide_dates([DatedSource(DESC, statements=_stated("start", date(2024, 7, 1))),
                      DatedSource(BOARD, board_last=date(2024, 6, 14))])
    assert (d.start, d.end) == (None, None) and "after end_date" in d.problems[-1]


def test_ended_within_decides_from_the_end_or_says_it_cannot() -> None:
    since = date(2023, 1, 1)
    assert ended_within(None, date(2022, 12, 31), since, None)[0] is False
    assert ended_within(date(2023, 3, 1), None, since, None)[0] is True
    assert ended_within(date(2022, 3, 1), None, since, None) == (
        None, "no end date recorded (started 2022-03-01)")
    assert ended_within(date(2024, 3, 1), None, None, date(2023, 12, 31))[0] is False
    assert ended_within(None, None, None, date(2023, 12, 31))[0] is None


# --- the commands ----------------------------------------------------------------------------


def _entry(root: Path, tid: str, modality: Modality, **fields: object) -> None:
    platform, _ = tid.split("/")
    spec = TaskSpec(id=tid, platform=platform, modality=modality, grading=GradingSpec(
        metric="rmse", id_columns=["id"], target_columns=["y"], submission_header=["id", "y"]),
        **fields)  # type: ignore[arg-type]
    save_taskspec(spec, root / tid / "task.json")


@pytest.fixture
def dated_catalogue(tmp_path: Path) -> Path:
    root = tmp_path / "cat"
    _entry(root, "kaggle/old", Modality.TABULAR, end_date=date(2019, 5, 1),
           reference_tiers={"tam-bench": "easy"})
    _entry(root, "kaggle/new", Modality.TABULAR, start_date=date(2023, 2, 1),
           end_date=date(2023, 5, 1), reference_tiers={"tam-bench": "easy"})
    _entry(root, "kaggle/started", Modality.TEXT, start_date=date(2024, 1, 1),
           reference_tiers={"tam-bench": "hard"})
    _entry(root, "kaggle/undated", Modality.TEXT, reference_tiers={"tam-bench": "hard"})
    (root / "_collections").mkdir()
    (root / "_collections" / "paper.txt").write_text(render_manifest(
        "paper", {}, {"kaggle/new": "", "kaggle/old": "", "kaggle/started": "",
                      "kaggle/undated": ""}, kind="collection"), encoding="utf-8")
    (root / "_collections" / "small.txt").write_text(render_manifest(
        "small", {}, {"kaggle/new": ""}, kind="collection"), encoding="utf-8")
    return root


def test_list_since_keeps_what_ended_after_and_names_what_it_cannot_tell(
    capsys: pytest.CaptureFixture[str], dated_catalogue: Path
) -> None:
    args = ["tasks", "list", "--catalogue", str(dated_catalogue), "--json"]
    assert main([*args, "--since", "2023-01-01"]) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    assert [r["id"] for r in rows] == ["kaggle/new", "kaggle/started"]
    assert rows[0]["end_date"] == "2023-05-01" and rows[1]["start_date"] == "2024-01-01"
    assert "1 task(s) not listed" in err and "kaggle/undated: no end date recorded" in err
    assert main([*args, "--until", "2020-01-01"]) == 0
    out, err = capsys.readouterr()
    assert [r["id"] for r in json.loads(out)] == ["kaggle/old"]
    assert "kaggle/started" not in err and "kaggle/undated: no end date recorded" in err


def test_list_shows_each_tier_with_its_source_and_selects_a_collection(
    capsys: pytest.CaptureFixture[str], dated_catalogue: Path
) -> None:
    args = ["tasks", "list", "--catalogue", str(dated_catalogue)]
    assert main([*args, "--json", "--collection", "small"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["id"], row["tier"], row["tier_source"]) == ("kaggle/new", "easy",
                                                            "reference:tam-bench")
    assert main([*args, "--json", "--tiers", "difficulty:calibrated"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["tier"] for r in rows} == {""}
    assert all("no leaderboard.csv" in r["tier_reason"] for r in rows)
    assert main([*args, "--collection", "nope"]) == 2
    assert "this catalogue has: all, paper, small" in capsys.readouterr().err
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "tier_source" in table and "reference:tam-bench" in table and "2023-05-01" in table


def test_subsets_since_builds_from_what_ended_after_and_names_the_rest(
    capsys: pytest.CaptureFixture[str], dated_catalogue: Path, tmp_path: Path
) -> None:
    out_dir = tmp_path / "out"
    rc = main(["subsets", "build", "--catalogue", str(dated_catalogue), "--since",
               "2023-01-01", "--out", str(out_dir), "--json", "--all-complete"])
    assert rc == 3  # cells are short
    data = json.loads(capsys.readouterr().out)
    assert data["since"] == "2023-01-01" and data["collection"] == "paper"
    assert data["subsets"]["lite"] == {"kaggle/new": "Tabular/easy",
                                       "kaggle/started": "Text/hard"}
    unplaced = {u["id"]: u["reason"] for u in data["unplaced"]}
    assert unplaced["kaggle/undated"] == "dates unknown: no end date recorded"
    assert unplaced["kaggle/old"].startswith("outside the date window: ended 2019-05-01")
    gaps = {(g["subset"], g["cell"]): g["reason"] for g in data["gaps"]}
    assert "1 with unknown dates" in gaps[("medium", "Text/hard")]
    assert "1 outside the date window" in gaps[("lite", "Tabular/hard")] or \
        "1 outside the date window" in gaps[("medium", "Tabular/easy")]
    header = (out_dir / "lite.txt").read_text(encoding="utf-8")
    assert "# since: 2023-01-01" in header and "# collection: paper" in header
    rc = main(["subsets", "build", "--catalogue", str(dated_catalogue), "--since",
               "2023-01-01", "--allow-gaps", "--out", str(out_dir), "--all-complete"])
    text = capsys.readouterr().out
    assert rc == 0 and "not placed: kaggle/undated: dates unknown" in text
    assert "collection paper, ended since 2023-01-01" in text


def test_an_entry_starting_after_it_ended_is_never_listed_by_a_date_window_silently(
    capsys: pytest.CaptureFixture[str], dated_catalogue: Path, tmp_path: Path
) -> None:
    """A hand-edited entry whose start date is after its end date: the dates contradict each
    other, so no window can place it; it is named, with both dates, wherever one is asked."""
    _entry(dated_catalogue, "kaggle/backwards", Modality.TABULAR, start_date=date(2023, 6, 1),
           end_date=date(2023, 5, 1), reference_tiers={"tam-bench": "easy"})
    why = "start date 2023-06-01 is after end date 2023-05-01"
    for window in (["--until", "2024-01-01"], ["--since", "2023-01-01"]):
        assert main(["tasks", "list", "--catalogue", str(dated_catalogue), "--json",
                     *window]) == 0
        out, err = capsys.readouterr()
        assert "kaggle/backwards" not in [r["id"] for r in json.loads(out)]
        assert f"kaggle/backwards: {why}" in err
    main(["subsets", "build", "--catalogue", str(dated_catalogue), "--collection", "all",
          "--until", "2024-01-01", "--out", str(tmp_path / "out"), "--json", "--all-complete"])
    unplaced = {u["id"]: u["reason"] for u in json.loads(capsys.readouterr().out)["unplaced"]}
    assert unplaced["kaggle/backwards"] == f"dates unknown: {why}"


def test_the_final_submission_deadline_counts_beside_a_later_end_date() -> None:
    text = ("- August 11, 2022 - Final submission deadline.\n"
            "- November 10, 2022 - Competition End Date - Winner's announcement")
    decision = decide_dates([DatedSource(DESC, statements=tuple(timeline_statements(text)))])
    assert decision.end == date(2022, 8, 11) and not decision.problems


def test_a_board_dated_by_a_stated_rerun_stage_agrees_with_the_deadline() -> None:
    """A code competition rerun on new data after its deadline: its final board's last
    submission is the rerun's day, which the description states as the competition's end."""
    text = ("- August 11, 2022 - Final submission deadline.\n"
            "- November 10, 2022 - Competition End Date - Winner's announcement")
    desc = DatedSource(DESC, statements=tuple(timeline_statements(text)))
    board = DatedSource(DESC.model_copy(update={"path": "leaderboard.csv"}),
                        board_last=date(2022, 11, 10))
    decision = decide_dates([desc, board])
    assert decision.end == date(2022, 8, 11) and not decision.problems
    # a board later than every stated date still contradicts the description
    late = DatedSource(DESC.model_copy(update={"path": "leaderboard.csv"}),
                       board_last=date(2023, 1, 20))
    decision = decide_dates([desc, late])
    assert decision.end is None
    assert "is after the description's final deadline (2022-08-11)" in decision.problems[0]


def test_validation_names_a_collection_member_without_an_entry(dated_catalogue: Path) -> None:
    from tambench.tasks.catalogue import validate_catalogue

    def errors() -> list[tuple[str, str]]:
        return [(p.where, p.message) for p in validate_catalogue(dated_catalogue)
                if p.severity == "error"]

    assert errors() == []
    (dated_catalogue / "_collections" / "broken.txt").write_text(render_manifest(
        "broken", {}, {"kaggle/gone": "", "kaggle/new": ""}, kind="collection"),
        encoding="utf-8")
    assert errors() == [("_collections/broken.txt", "lists kaggle/gone, which has no entry")]


# --- rolling competitions --------------------------------------------------------------------


def test_a_real_getting_started_page_is_rolling_and_its_board_gives_no_end(
    shared_dir: Path,
) -> None:
    text = (shared_dir / "data" / "competition-descriptions" / "spaceship-titanic.md"
            ).read_text(encoding="utf-8")
    said = rolling_statements(text)
    assert said == ["They have no cash prize and are on a rolling timeline."]  # not the
    # "two month rolling window on submissions", nor the "rolling leaderboard"
    decision = decide_dates([dated_text(DESC, text),
                             DatedSource(BOARD, board_last=date(2024, 5, 1))])
    assert decision.rolling and decision.end is None and not decision.problems
    assert is_rolling(decision.facts)
    fact = decision.facts[TIMELINE_FACT][0]
    assert (fact.path, fact.value) == (DESC.path, "rolling") and "rolling timeline" in fact.detail
    assert "end_date" not in decision.facts


def test_a_rolling_line_beside_a_stated_end_is_a_conflict_not_a_rolling_timeline() -> None:
    decision = decide_dates([
        dated_text(DESC, "This competition runs indefinitely with a rolling leaderboard."),
        dated_text(DESC2, "- June 3, 2021 - Final submission deadline.")])
    assert not decision.rolling and not is_rolling(decision.facts)
    assert decision.end == date(2021, 6, 3)
    assert any("runs indefinitely" in p for p in decision.problems)


def test_ended_within_decides_a_rolling_competition_by_its_launch() -> None:
    since, until = date(2023, 1, 1), date(2024, 12, 31)
    assert ended_within(date(2012, 9, 28), None, since, None, rolling=True) == (
        False, "rolling, no end date; launched 2012-09-28, before 2023-01-01")
    assert ended_within(date(2023, 5, 1), None, since, None, rolling=True)[0] is True
    assert ended_within(None, None, since, None, rolling=True) == (
        None, "rolling, no end date; launch date unknown")
    assert ended_within(date(2023, 5, 1), None, since, until, rolling=True)[0] is False
    # a recorded end date wins over a stale rolling flag
    assert ended_within(None, date(2023, 5, 1), since, None, rolling=True)[0] is True


def test_a_subset_window_keeps_a_rolling_task_by_its_launch_and_says_why() -> None:
    from tambench.schema.taskspec import Provenance
    from tambench.tasks.subsets import Selection

    facts = {TIMELINE_FACT: [DESC.model_copy(update={"value": "rolling", "detail": "rolling"})]}
    old = TaskSpec(id="kaggle/old-rolling", platform="kaggle", start_date=date(2012, 9, 28),
                   provenance=Provenance(facts=facts))
    new = old.model_copy(update={"start_date": date(2024, 2, 1)})
    window = Selection(since=date(2023, 1, 1))
    assert window.excludes(old) == ("outside the date window: rolling, no end date; launched "
                                    "2012-09-28, before 2023-01-01, not on or after 2023-01-01")
    assert window.excludes(new) == ""
    assert Selection(until=date(2030, 1, 1)).excludes(new).endswith("has not ended, not on or "
                                                                     "before 2030-01-01")
