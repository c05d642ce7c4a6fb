"""The bundled catalogue's end dates: most complete entries have one, each cited by its source,
and ``tasks list --since`` tells for every dated one; Meta Kaggle's record as a source."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir
from tambench.tasks.dates import decide_dates

REPO = Path(__file__).resolve().parents[2]
#: Share of the catalogue's complete entries that must carry an end date (209 of 215 today; five
#: are rolling competitions that never end, one has no held source stating its end, see
#: docs/catalogue.md "Dates").
MIN_DATED = 0.97
#: The rolling competitions: their sources say they run indefinitely.
ROLLING = {"kaggle/titanic", "kaggle/spaceship-titanic", "kaggle/nlp-getting-started",
           "kaggle/home-data-for-ml-course", "kaggle/llm-classification-finetuning"}


def _complete() -> list:  # type: ignore[type-arg]
    return [e for e in Catalogue(bundled_catalogue_dir()) if e.spec.status == "complete"]


def test_most_complete_entries_are_dated_and_each_date_names_its_source() -> None:
    complete = _complete()
    dated = [e for e in complete if e.spec.end_date is not None]
    assert len(complete) >= 200
    assert len(dated) >= MIN_DATED * len(complete), (len(dated), len(complete))
    for e in dated:
        day = e.spec.end_date.isoformat()  # type: ignore[union-attr]
        backing = [f for f in e.spec.provenance.facts.get("end_date", []) if f.value == day]
        assert backing, e.id
        for f in backing:
            if f.source.startswith("github:"):
                assert len(f.commit) == 40 and f.path, (e.id, f)
            else:  # the shared data folder's boards, or a page's address
                assert f.source == "shared-data" and f.path or \
                    f.source.startswith("https://"), (e.id, f)
            assert f.detail, (e.id, f)


def test_tasks_list_since_tells_for_every_dated_complete_entry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    complete = _complete()
    dated = {e.id for e in complete if e.spec.end_date is not None}
    undated = {e.id for e in complete} - dated
    assert main(["tasks", "list", "--status", "complete", "--since", "1990-01-01",
                 "--json"]) == 0
    out, err = capsys.readouterr()
    listed = {r["id"] for r in json.loads(out)}
    assert dated <= listed
    untold = {i for i in undated if f"{i}:" in err}
    assert untold == undated - listed, err[-2000:]
    assert not any(f"{i}:" in err for i in dated), err[-2000:]
    assert main(["tasks", "list", "--status", "complete", "--since", "2023-03-07",
                 "--until", "2023-03-31", "--json"]) == 0
    ids = {r["id"] for r in json.loads(capsys.readouterr().out)}
    assert "kaggle/playground-series-s3e10" in ids  # Meta Kaggle: closed 2023-03-20
    assert "kaggle/playground-series-s3e8" not in ids  # closed 2023-03-06


# --- Meta Kaggle's record, on a small copy of its table ---------------------------------------

HEADER = '"Id","Slug","Title","EnabledDate","DeadlineDate"\n'


def _scripts() -> None:
    if str(REPO / "scripts") not in sys.path:
        sys.path.insert(0, str(REPO / "scripts"))


def _sources(tmp_path: Path, rows: str) -> object:
    _scripts()
    from fill_sources import Sources
    from peer_trees import SOURCES, PeerTree

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "Competitions.csv").write_text(HEADER + rows, encoding="utf-8")
    tree = PeerTree(SOURCES["meta-kaggle"], "4" * 40, tmp_path)
    return Sources(trees={"meta-kaggle": tree}, shared=tmp_path)  # type: ignore[arg-type]


def test_meta_kaggle_gives_a_closed_competition_s_deadline_and_cites_its_row(
    tmp_path: Path,
) -> None:
    sources = _sources(tmp_path, '"1","Old-One","Old","01/02/2020 10:00:00",'
                                 '"03/31/2020 23:59:00"\n'
                                 '"2","running","Running","05/01/2020 00:00:00",'
                                 '"09/30/2020 23:59:00"\n'
                                 '"3","broken","Broken","01/01/2020 00:00:00","soon"\n')
    from fill_metakaggle import meta_kaggle_dated

    got = meta_kaggle_dated(sources, "old-one")  # type: ignore[arg-type]
    assert got is not None
    assert got.source.source == "github:Romathonat/KaggleMateAI"
    assert (got.source.commit, got.source.path) == ("4" * 40, "data/Competitions.csv")
    decision = decide_dates([got])
    assert decision.end == date(2020, 3, 31) and decision.start is None
    assert "DeadlineDate 03/31/2020" in decision.facts["end_date"][0].detail
    # a deadline after the newest launch the table holds: maybe still moving when exported
    assert meta_kaggle_dated(sources, "running") is None  # type: ignore[arg-type]
    assert meta_kaggle_dated(sources, "broken") is None  # type: ignore[arg-type]
    assert meta_kaggle_dated(sources, "absent") is None  # type: ignore[arg-type]


def test_a_slug_twice_in_meta_kaggle_is_an_error(tmp_path: Path) -> None:
    row = '"1","twice","T","01/02/2020 10:00:00","03/31/2020 23:59:00"\n'
    sources = _sources(tmp_path, row + row)
    from fill_metakaggle import meta_kaggle_dated

    with pytest.raises(SystemExit, match="twice"):
        meta_kaggle_dated(sources, "twice")  # type: ignore[arg-type]


# --- rolling competitions and the KDD Cup 2024 timeline -------------------------------------


def test_the_rolling_entries_are_cited_and_tasks_list_says_they_never_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tambench.tasks.dates import TIMELINE_FACT, is_rolling

    rolling = {e.id for e in _complete() if is_rolling(e.spec.provenance.facts)}
    assert rolling == ROLLING
    for e in _complete():
        if e.id in ROLLING:
            assert e.spec.end_date is None
            facts = e.spec.provenance.facts[TIMELINE_FACT]
            assert all(f.detail.startswith("rolling: ") and f.source for f in facts), e.id
    assert main(["tasks", "list", "--status", "complete", "--since", "2023-01-01",
                 "--json"]) == 0
    out, err = capsys.readouterr()
    listed = {r["id"] for r in json.loads(out)}
    assert not listed & ROLLING
    for tid in ROLLING:  # launch dates unknown: named, with the reason
        assert f"{tid}: rolling, no end date; launch date unknown" in err
    assert main(["tasks", "list", "--status", "complete", "--until", "2030-01-01",
                 "--json"]) == 0
    out, err = capsys.readouterr()
    assert not {r["id"] for r in json.loads(out)} & ROLLING  # never ended
    assert "titanic" not in err  # decided (not ended), not unknown
    assert main(["tasks", "show", "kaggle/titanic"]) == 0
    assert "dates: rolling, no end date; launch date unknown" in capsys.readouterr().out


def test_the_kddcup_2024_copy_dates_its_three_tracks_and_only_them(tmp_path: Path) -> None:
    _scripts()
    from fill_sources import Sources
    from fill_timelines import kddcup2024_dates
    from peer_trees import SOURCES, PeerTree

    (tmp_path / "project_proposal.md").write_text(
        "# Tentative schedule\n\n## Timeline from KDD Cup website\n\n"
        "- March 20th, 2024: Start of KDD Cup 2024\n- May 31st, 2024: Team Merge Deadline\n"
        "- May 31st, 2024: Release test data. All participants have 7 days to submit their "
        "results.\n- June 7th, 2024: All tracks end.\n- June 14th, 2024: Announcement of "
        "the KDD Cup winner.\n\n# Tentative approach\n- July 1st, 2024: All tracks end.\n",
        encoding="utf-8")
    tree = PeerTree(SOURCES["kddcup2024"], "5" * 40, tmp_path)
    sources = Sources(trees={"kddcup2024": tree}, shared=tmp_path)  # type: ignore[arg-type]
    got = kddcup2024_dates(sources, "pst")
    assert got is not None and got.source.path == "project_proposal.md"
    decision = decide_dates([got])
    assert (decision.start, decision.end) == (date(2024, 3, 20), date(2024, 6, 7))
    assert decision.facts["end_date"][0].commit == "5" * 40
    assert kddcup2024_dates(sources, "titanic") is None
    (tmp_path / "project_proposal.md").write_text("# Schedule\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="Timeline from KDD Cup website"):
        kddcup2024_dates(sources, "ind")


def test_a_page_s_stated_line_is_read_like_a_description_and_bad_rows_are_refused(
    tmp_path: Path,
) -> None:
    _scripts()
    from fill_timelines import read_page_dates

    good = tmp_path / "good.csv"
    good.write_text("slug,url,statement\nx,https://example.org/x,"
                    '"This competition runs indefinitely."\n', encoding="utf-8")
    assert read_page_dates(good) == {"x": [("https://example.org/x",
                                            "This competition runs indefinitely.")]}
    bad = tmp_path / "bad.csv"
    bad.write_text("slug,url,statement\nx,http://example.org/x,a line\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"bad.csv:2"):
        read_page_dates(bad)
    bad.write_text("slug,url\nx,https://example.org/x\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="columns"):
        read_page_dates(bad)
    assert read_page_dates()["llm-classification-finetuning"]  # the shipped table reads


def _mlcontests(tmp_path: Path, name: str, items: list[dict[str, str]]) -> object:
    _scripts()
    from fill_sources import Sources
    from peer_trees import SOURCES, PeerTree

    folder = tmp_path / name
    folder.mkdir()
    (folder / "competitions.json").write_text(json.dumps({"data": items}), encoding="utf-8")
    tree = PeerTree(SOURCES[name], "6" * 40, folder)
    return Sources(trees={name: tree}, shared=tmp_path)  # type: ignore[arg-type]


def test_ml_contests_gives_a_listed_competition_s_launch_and_deadline_and_cites_its_item(
    tmp_path: Path,
) -> None:
    _scripts()
    from fill_mlcontests import mlcontests_dated

    items = [
        {"url": "https://www.kaggle.com/competitions/old-one/?ref=mlcontests",
         "launched": "2 Oct 2023", "deadline": "9 Jan 2024"},
        {"url": "https://www.aicrowd.com/challenges/x/problems/task-1-next-product-"
                "recommendation?source=mlcontests", "launched": "15 Mar 2023",
         "deadline": "14 Jun 2023"},
        {"url": "https://www.kaggle.com/competitions/running", "launched": "1 Feb 2024",
         "deadline": "1 Jun 2024"},  # after the newest launch: may still have moved
        {"url": "https://www.kaggle.com/competitions/twice", "launched": "1 Jan 2023",
         "deadline": "1 Mar 2023"},
        {"url": "https://www.kaggle.com/competitions/twice/overview", "launched": "1 Jan 2023",
         "deadline": "5 Mar 2023"},  # the same address with other dates: read from neither
    ]
    sources = _mlcontests(tmp_path, "mlcontests", items)
    got = mlcontests_dated(sources, "old-one", "kaggle")  # type: ignore[arg-type]
    assert len(got) == 1 and got[0].source.source == "github:mlcontests/mlcontests.github.io"
    assert (got[0].source.commit, got[0].source.path) == ("6" * 40, "competitions.json")
    decision = decide_dates(got)
    assert (decision.start, decision.end) == (date(2023, 10, 2), date(2024, 1, 9))
    assert "deadline 9 Jan 2024" in decision.facts["end_date"][0].detail
    aicrowd = decide_dates(mlcontests_dated(sources, "nextproductprediction", "aicrowd"))  # type: ignore[arg-type]
    assert aicrowd.end == date(2023, 6, 14)
    assert mlcontests_dated(sources, "old-one", "aicrowd") == []  # type: ignore[arg-type]
    assert mlcontests_dated(sources, "running", "kaggle") == []  # type: ignore[arg-type]
    assert mlcontests_dated(sources, "twice", "kaggle") == []  # type: ignore[arg-type]
    assert mlcontests_dated(sources, "old-one", "biendata") == []  # type: ignore[arg-type]


def test_the_newly_dated_entries_cite_ml_contests_or_the_kddcup_copy() -> None:
    by_id = {e.id: e for e in _complete()}
    for tid, source, end in (
            ("kaggle/kaggle-llm-science-exam", "github:mlcontests/mlcontests.github.io",
             "2023-10-10"),
            ("kaggle/wsdm-cup-multilingual-chatbot-arena",
             "github:mlcontests/mlcontests.github.io", "2025-02-03"),
            ("aicrowd/nextproductprediction", "github:mlcontests/mlcontests.github.io",
             "2023-06-14"),
            ("biendata/pst", "github:matthewliu0324/CS145_project", "2024-06-07")):
        spec = by_id[tid].spec
        assert spec.end_date is not None and spec.end_date.isoformat() == end, tid
        assert {f.source for f in spec.provenance.facts["end_date"]} == {source}, tid
