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
#: Share of the catalogue's complete entries that must carry an end date (201 of 215 today; the
#: others have no held source stating their end, see docs/catalogue.md "Dates").
MIN_DATED = 0.93


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
