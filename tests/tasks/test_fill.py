"""scripts/fill_catalogue.py: the shipped catalogue is what a fill of the peers' repositories
gives, every fact cited, real boards only, and disagreeing sources left unset."""

from __future__ import annotations

import hashlib
import sys
from datetime import date
from pathlib import Path
from types import ModuleType

import pytest

from tambench.core.leaderboard import read_leaderboard
from tambench.schema.taskspec import GradingSpec, LeaderboardSource, Modality, TaskSpec
from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir
from tambench.tasks.collections import collection_ids
from tambench.tasks.importers import ImportedTask

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"


def _scripts() -> tuple[ModuleType, ModuleType, ModuleType]:
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    import fill_catalogue
    import fill_entries
    import fill_sources

    return fill_catalogue, fill_entries, fill_sources


@pytest.fixture(scope="module")
def mirrors() -> Path:
    _scripts()
    from peer_trees import PEERS, SOURCES, find_mirrors

    found = find_mirrors(REPO)
    missing = [p.repository for p in (*PEERS.values(), *SOURCES.values())
               if found is None or not (found / p.mirror / "repo").exists()]
    if missing:
        pytest.skip(f"no snapshot of {', '.join(missing)} (.mirror) above the repository")
    assert found is not None
    return found


@pytest.mark.long  # a fill of every peer's repository: about 20 s
def test_the_shipped_catalogue_is_what_a_fill_gives(
    mirrors: Path, shared_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill, _, _ = _scripts()
    rc = fill.main(["--check", "--shared", str(shared_dir), "--mirrors", str(mirrors)])
    out = capsys.readouterr().out
    assert rc == 0, out[-3000:]
    assert "0 file(s) would change" in out


def test_every_filled_fact_is_cited_and_every_date_has_its_sources() -> None:
    entries = list(Catalogue(bundled_catalogue_dir()))
    paper = collection_ids(bundled_catalogue_dir(), "paper")
    assert paper is not None and len(paper) == 151
    complete = [e for e in entries if e.id in paper and e.spec.status == "complete"]
    assert len(complete) >= 106
    for e in complete:
        facts = e.spec.provenance.facts
        if e.spec.provenance.mapper == "paper-release":
            continue  # curated from the release's graders
        for key in ("grading.metric", "grading.columns", "grading.submission_header"):
            assert facts.get(key), (e.id, key)
            for src in facts[key]:
                if src.source == "tambench-catalogue":  # the release's entry of the same
                    assert (bundled_catalogue_dir() / src.path).is_file()  # competition
                    continue
                if src.source == "tambench":  # the hand-checked rules table, beside a page
                    assert src.path in ("bench/data/mledojo_rules.csv",
                                        "bench/data/paper_rules.csv"), (e.id, src.path)
                    assert f"\n{e.spec.slug}," in (REPO / src.path).read_text(
                        encoding="utf-8").lower()
                    assert any(s.source.startswith("github:") for s in facts[key]), e.id
                    continue
                assert src.source.startswith("github:") and len(src.commit) == 40, (e.id, key)
        assert facts["grading.metric"][0].value.startswith(e.spec.grading.metric)  # type: ignore[union-attr]
    dated = [e for e in entries if e.spec.end_date is not None]
    assert len([e for e in dated if e.id in paper]) >= 100
    for e in dated:
        values = {f.value for f in e.spec.provenance.facts["end_date"]}
        assert e.spec.end_date.isoformat() in values, e.id  # type: ignore[union-attr]
    for e in entries:
        if e.spec.difficulty is not None:
            tier = e.spec.provenance.facts["tier"][0]
            assert tier.value == e.spec.difficulty.tier.value and tier.path, e.id


# --- boards and gradings, on small trees in the peers' layouts --------------------------------


def _tree(root: Path, name: str, commit: str, sub: str) -> object:
    from peer_trees import PEERS, PeerTree

    (root / sub).mkdir(parents=True, exist_ok=True)
    return PeerTree(PEERS[name], commit, root)


def _sources(tmp_path: Path, shared_dir: Path) -> object:
    _, _, src = _scripts()
    trees = {"mle-bench": _tree(tmp_path / "mb", "mle-bench", "1" * 40, "mlebench/competitions"),
             "dslighting": _tree(tmp_path / "ds", "dslighting", "2" * 40, "dslighting/registry"),
             "mle-dojo": _tree(tmp_path / "dj", "mle-dojo", "3" * 40, "mledojo/competitions")}
    return src.Sources(trees=trees, shared=shared_dir)  # type: ignore[arg-type]


def test_only_mle_bench_s_own_board_is_taken_from_dslighting(
    tmp_path: Path, shared_dir: Path
) -> None:
    _, _, src = _scripts()
    sources = _sources(tmp_path, shared_dir)
    board = (shared_dir / "data" / "leaderboards" / "aerial-cactus-identification"
             / "leaderboard.csv").read_bytes()
    for slug, data in (("real", board), ("placeholder", b"scoreNullable,teamId,hasTeamName,"
                       b"submissionDate,score,hasScore\n0.5,1,True,2024-01-01 00:00:00,0.5,True\n")):
        ds = tmp_path / "ds" / "dslighting" / "registry" / slug
        ds.mkdir(parents=True)
        (ds / "leaderboard.csv").write_bytes(data)
        mb = tmp_path / "mb" / "mlebench" / "competitions" / slug
        mb.mkdir(parents=True)
        (mb / "leaderboard.csv").write_text(
            "version https://git-lfs.github.com/spec/v1\noid sha256:"
            f"{hashlib.sha256(board).hexdigest()}\nsize {len(board)}\n", encoding="utf-8")
    got, why = src.dslighting_board(sources, "real")
    assert why == "" and got is not None and len(got.board) == 1221
    assert got.record.source == "github:openai/mle-bench" and got.record.commit == "1" * 40
    assert got.record.path == "mlebench/competitions/real/leaderboard.csv"
    assert got.record.sha256 == hashlib.sha256(board).hexdigest()
    none, why = src.dslighting_board(sources, "placeholder")
    assert none is None and "not MLE-bench's file" in why


def _imported(tid: str, metric: str, header: list[str]) -> ImportedTask:
    return ImportedTask(spec=TaskSpec(
        id=tid, platform="kaggle", status="complete", modality=Modality.TABULAR,
        grading=GradingSpec(metric=metric, id_columns=[header[0]], target_columns=header[1:],
                            submission_header=header)))


def test_gradings_the_peers_read_differently_are_left_unset_with_both_named(
    tmp_path: Path, shared_dir: Path
) -> None:
    _, entries, _ = _scripts()
    sources = _sources(tmp_path, shared_dir)
    for sub in ("mb/mlebench/competitions/c", "dj/mledojo/competitions/c"):
        (tmp_path / sub).mkdir(parents=True)
    agree = {"mle-bench": _imported("kaggle/c", "rmse", ["id", "y"]),
             "mle-dojo": _imported("kaggle/c", "rmse", ["id", "y"])}
    chosen, facts, notes = entries.decide_grading("c", agree, sources)
    assert chosen is agree["mle-bench"] and notes == []
    assert [(f.source, f.path) for f in facts["grading.metric"]] == [
        ("github:openai/mle-bench", "mlebench/competitions/c/config.yaml"),
        ("github:MLE-Dojo/MLE-Dojo", "mledojo/competitions/c/utils/metric.py")]
    disagree = {"mle-bench": _imported("kaggle/c", "rmse", ["id", "y"]),
                "mle-dojo": _imported("kaggle/c", "mae", ["id", "y"])}
    chosen, facts, notes = entries.decide_grading("c", disagree, sources)
    assert chosen is None and facts == {}
    assert "the sources disagree: mle-bench reads rmse" in notes[0]
    assert "mle-dojo reads mae" in notes[0]


def test_a_fill_is_stable_and_keeps_the_dates_it_read(shared_dir: Path) -> None:
    cactus = Catalogue(bundled_catalogue_dir()).get("kaggle/aerial-cactus-identification").spec
    assert cactus.end_date == date(2019, 7, 8)
    paths = {f.path for f in cactus.provenance.facts["end_date"]}
    assert any(p.endswith("description.md") for p in paths)
    assert any(p.endswith("leaderboard.csv") for p in paths)
    board = read_leaderboard(bundled_catalogue_dir() / cactus.id / "leaderboard.csv")
    assert cactus.leaderboard is not None and cactus.leaderboard.rows == len(board)


def test_a_board_that_contradicts_the_timeline_leaves_the_end_unset_with_both_cited(
    tmp_path: Path, shared_dir: Path
) -> None:
    _, entries, src = _scripts()
    sources = _sources(tmp_path, shared_dir)
    folder = tmp_path / "mb" / "mlebench" / "competitions" / "c"
    folder.mkdir(parents=True)
    (folder / "description.md").write_text(
        "## Timeline\n- March 1, 2019 - Start Date.\n- June 1, 2019 - Final submission "
        "deadline.\n", encoding="utf-8")
    raw = shared_dir / "data" / "leaderboards" / "aerial-cactus-identification" / \
        "leaderboard.csv"
    lb = read_leaderboard(raw)  # last submission 2019-07-08
    record = LeaderboardSource(source="github:example/boards", commit="4" * 40,
                               path="c/leaderboard.csv", rows=len(lb), kind="private")
    spec = TaskSpec(id="kaggle/c", platform="kaggle", status="incomplete")
    got = entries._dates(spec, "c", sources, src.Board(lb, record, raw))
    assert got.start_date == date(2019, 3, 1) and got.end_date is None
    assert {(f.path, f.value) for f in got.provenance.facts["end_date"]} == {
        ("mlebench/competitions/c/description.md", "2019-06-01"),
        ("c/leaderboard.csv", "2019-07-08")}
    assert any(n.startswith("dates: end_date left unset: the final leaderboard's last "
                            "submission (2019-07-08) is after") for n in got.provenance.notes)


def test_load_task_gives_the_difficulty_tasks_show_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    from tambench.cli.main import main
    from tambench.tasks.locate import load_task

    boarded = [e.id for e in Catalogue(bundled_catalogue_dir()) if e.has_leaderboard]
    assert len(boarded) >= 108
    for tid in boarded:
        assert main(["tasks", "show", tid, "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        loaded = load_task(tid, bundled_catalogue_dir()).difficulty
        if shown["difficulty"] is None:  # a board whose metric is not known yet
            assert loaded is None and "no score scale" in shown["difficulty_origin"], tid
            continue
        assert shown["difficulty_origin"] == "stored", tid
        assert loaded is not None and loaded.model_dump(mode="json") == shown["difficulty"], tid


def test_no_entry_says_its_shipped_board_is_not_shipped() -> None:
    for e in Catalogue(bundled_catalogue_dir()):
        if e.has_leaderboard:
            assert not [n for n in e.spec.provenance.notes if "not shipped" in n], e.id


def test_a_board_dated_by_a_stated_rerun_agrees_with_the_final_deadline() -> None:
    # AI4Code's board holds the rerun on new notebooks, on the Competition End Date its
    # timeline states after the final submission deadline: both recorded, the deadline kept.
    spec = Catalogue(bundled_catalogue_dir()).get("kaggle/ai4code").spec
    assert spec.end_date is not None and spec.end_date.isoformat() == "2022-08-11"
    values = {f.value for f in spec.provenance.facts["end_date"]}
    assert {"2022-08-11", "2022-11-10"} <= values
    assert not any(n.startswith("dates: end_date left unset") for n in spec.provenance.notes)


PREPARER = """
import shutil
from sklearn.model_selection import train_test_split

def prepare(raw, public, private):
    old_train = read_csv(raw / "train.csv")
    new_train, new_test = train_test_split(old_train, test_size=0.2, random_state=0,
                                           stratify=old_train["label"])
    for image_id in tqdm(new_test["image"], desc="copy"):
        shutil.copy(raw / "images" / image_id, public / "test" / image_id)
"""


def test_a_preparer_is_read_as_data_for_its_raw_table_split_and_files() -> None:
    _scripts()
    import fill_recipes

    facts = fill_recipes.read_preparer(PREPARER)
    assert facts.tables == {"old_train": "train.csv"} and facts.split_of == "old_train"
    assert (facts.test_size, facts.stratify, facts.files) == (0.2, "label", "images/{image}")
    folders = fill_recipes.read_preparer(PREPARER.replace("shutil.copy(", "shutil.copytree("))
    assert folders.files == ""  # a folder copied whole is not a per-row file
    grouped = fill_recipes.read_preparer(PREPARER + "\nGroupKFold(n_splits=5)\n")
    fields, said = fill_recipes._recipe(None, grouped)
    assert fields == {} and "GroupKFold" in said
    fields, _ = fill_recipes._recipe(None, facts)
    assert fields == {"train_file": "train.csv", "test_size": 0.2, "strategy": "stratified",
                      "stratify_column": "label", "files": {"pattern": "images/{image}"}}


def test_metric_py_and_the_published_rule_settle_what_the_import_left_pending(
    tmp_path: Path, shared_dir: Path
) -> None:
    from tambench.schema.taskspec import PendingGrading, Provenance

    _, entries, _ = _scripts()
    sources = _sources(tmp_path, shared_dir)
    rules = tmp_path / "rules.csv"
    rules.write_text(
        "slug,published_rule,metric,metric_params,higher_is_better,target_columns,"
        "answers_target_columns,metric_py,departure,kaggle_metric_name,pending_metric,notes\n"
        'c,Mean absolute error,mae,{},false,y,,"mean(|a-b|)",,,,\n'
        'd,Weighted MAE,weighted_mae,"{""weights_column"": ""w""}",false,y,,,,,,\n',
        encoding="utf-8")
    sources.rules_file = rules  # type: ignore[attr-defined]
    for sub in ("c", "d"):
        (tmp_path / "dj" / "mledojo" / "competitions" / sub).mkdir(parents=True)

    def pending(tid: str, warning: str) -> ImportedTask:
        return ImportedTask(spec=TaskSpec(
            id=tid, platform="kaggle", status="incomplete", modality=Modality.TABULAR,
            provenance=Provenance(pending_grading=PendingGrading(
                submission_header=["id", "y"], id_columns=["id"], target_columns=["y"]))),
            warnings=(f"metric not settled: a single witness is not enough: {warning}",))

    chosen, facts, notes = entries.decide_grading(
        "c", {"mle-dojo": pending("kaggle/c", "metric.py reads mae [mean(|a - b|)]")}, sources)
    assert chosen is not None and chosen.spec.grading.metric == "mae"
    assert chosen.spec.grading.submission_header == ["id", "y"] and chosen.spec.split
    assert [f.path for f in facts["grading.metric"]] == [
        "mledojo/competitions/c/utils/metric.py", "bench/data/mledojo_rules.csv"]
    assert "published rule agree on mae" in notes[-1]
    # metric.py computing something else, or a rule naming answers columns: left unset
    for slug, warning in (("c", "metric.py reads rmse [sqrt(mean((a - b)^2))]"),
                          ("d", "metric.py reads weighted_mae [sum(w * |a - b|) / sum(w)]")):
        chosen, _, _ = entries.decide_grading(
            slug, {"mle-dojo": pending(f"kaggle/{slug}", warning)}, sources)
        assert chosen is None, slug


def test_a_public_board_s_last_submission_is_no_end_date(tmp_path: Path, shared_dir: Path) -> None:
    # spaceship-titanic runs on: its board is a snapshot, and its description has no timeline
    spec = Catalogue(bundled_catalogue_dir()).get("kaggle/spaceship-titanic").spec
    assert spec.leaderboard is not None and spec.leaderboard.kind == "public"
    assert spec.end_date is None and "end_date" not in spec.provenance.facts


def test_the_catalogue_grades_more_distinct_competitions_than_mle_dojo_holds() -> None:
    entries = list(Catalogue(bundled_catalogue_dir()))
    complete = {e.id for e in entries if e.spec.status == "complete"}
    assert len({e.id.lower() for e in entries}) == len(entries)  # one entry a competition
    assert len(complete) > 202  # MLE-Dojo's 202
    dojo = collection_ids(bundled_catalogue_dir(), "mle-dojo")
    assert dojo is not None and len(dojo) == 202 and len(dojo & complete) >= 182
