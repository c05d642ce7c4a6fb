"""The fill's own readers of sources no importer reads: DSGym's pages and Kaggle boards, the OGB
website's KDD Cup 2021 boards and timeline; on small trees in their real layouts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tambench.core.leaderboard import read_leaderboard

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
CACTUS = "aerial-cactus-identification"  # a competition ../shared/data ships a private board of
PAGE = ("# New comp\n\nEvaluation\nSubmissions are evaluated using area under the ROC curve "
        "using the predicted probabilities and the ground truth targets.\n\nSubmission File\n"
        "For each id row in the test set, you must predict target y. The file should contain "
        "a header and have the following format:\nid,y\n1,0.5\n2,0.5\netc.\n\nTimeline\n"
        "Start Date - July 1, 2024\nFinal Submission Deadline - July 31, 2024\n")
RULES = ("slug,published_rule,metric,metric_params,higher_is_better,target_columns,"
         "answers_target_columns,source,notes\n")


def _modules() -> dict[str, ModuleType]:
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    import fill_dsgym
    import fill_ogb
    import fill_sources
    import peer_trees

    return {"dsgym": fill_dsgym, "ogb": fill_ogb, "src": fill_sources, "trees": peer_trees}


def _sources(tmp_path: Path, shared_dir: Path, rules: str = "") -> Any:
    m = _modules()
    trees = {name: m["trees"].PeerTree(m["trees"].SOURCES[name], c * 40, tmp_path / name)
             for name, c in (("dsgym", "4"), ("ogb-web", "5"))}
    table = tmp_path / "paper_rules.csv"
    table.write_text(RULES + rules, encoding="utf-8")
    return m["src"].Sources(trees=trees, shared=shared_dir, more_rules_file=table,
                            workdir=tmp_path / "read")


def _dsgym(root: Path, pages: dict[str, str], private: dict[str, list[float]],
           public_only: tuple[str, ...] = ()) -> None:
    (root / "data/task/dspredict").mkdir(parents=True)
    (root / "data/task/dspredict/easy.json").write_text(json.dumps(
        [{"challenge_name": s, "description": t} for s, t in pages.items()]), encoding="utf-8")
    stats = {s: {"private_scores": v, "public_scores": v} for s, v in private.items()}
    stats |= {s: {"private_scores": [], "public_scores": [0.5] * 30} for s in public_only}
    (root / "data/DSPredict_Offline_Leaderboard").mkdir(parents=True)
    (root / "data/DSPredict_Offline_Leaderboard/easy_leaderboard_stats_2026-02-01.json"
     ).write_text(json.dumps(stats), encoding="utf-8")


def _cactus(shared_dir: Path) -> list[float]:
    path = shared_dir / "data" / "leaderboards" / CACTUS / "leaderboard.csv"
    return [float(s) for s in read_leaderboard(path).scores]


def test_a_dsgym_private_list_is_a_board_once_it_holds_every_score_of_another_sources_board(
    tmp_path: Path, shared_dir: Path
) -> None:
    dsgym = _modules()["dsgym"]
    ranked = [0.99 - i / 100 for i in range(40)]
    _dsgym(tmp_path / "dsgym", {"new-comp": PAGE, CACTUS: PAGE, "no-deadline": "# x\n",
                                "shuffled": PAGE},
           {"new-comp": ranked, CACTUS: _cactus(shared_dir), "no-deadline": ranked,
            "shuffled": [0.5, 0.9, 0.7] * 10}, public_only=("public-comp",))
    sources = _sources(tmp_path, shared_dir)
    board, why = dsgym.dsgym_board(sources, "new-comp")
    assert why == "" and board is not None and len(board.board) == 40
    assert [float(s) for s in board.board.scores] == ranked  # rank order kept
    rec = board.record
    assert (rec.source, rec.commit, rec.kind) == ("github:fannie1208/DSGym", "4" * 40, "private")
    assert rec.path == "data/DSPredict_Offline_Leaderboard/easy_leaderboard_stats_2026-02-01.json"
    assert any("1 of the 1 finished competitions" in n for n in rec.notes)
    for slug, said in (("public-comp", "only a public list"),
                       ("no-deadline", "states no final submission deadline"),
                       ("shuffled", "not a ranking")):
        none, why = dsgym.dsgym_board(sources, slug)
        assert none is None and said in why, slug


def test_a_failed_source_check_takes_no_dsgym_board_at_all(
    tmp_path: Path, shared_dir: Path
) -> None:
    dsgym = _modules()["dsgym"]
    cactus = _cactus(shared_dir)
    _dsgym(tmp_path / "dsgym", {"new-comp": PAGE, CACTUS: PAGE},
           {"new-comp": [0.9 - i / 100 for i in range(30)], CACTUS: cactus[:-5]})
    sources = _sources(tmp_path, shared_dir)
    board, why = dsgym.dsgym_board(sources, "new-comp")
    assert board is None and "not taken" in why and CACTUS in why
    assert any(CACTUS in n for n in sources.notes)


def test_dsgym_s_page_grades_only_where_the_published_rule_confirms_it(
    tmp_path: Path, shared_dir: Path
) -> None:
    dsgym = _modules()["dsgym"]
    _dsgym(tmp_path / "dsgym", {"agree": PAGE, "differ": PAGE, "unruled": PAGE}, {})
    sources = _sources(tmp_path, shared_dir, rules=(
        "agree,ROC-AUC of y,roc_auc,{},true,y,,x,\n"
        "differ,Log loss of y,log_loss,{},false,y,,x,\n"))
    task = dsgym.dsgym_task(sources, "agree")
    g = task.spec.grading
    assert g is not None and (g.metric, g.id_columns, g.submission_header) == (
        "roc_auc", ["id"], ["id", "y"])
    assert "agrees" in task.spec.provenance.notes[0]
    facts = dsgym.dsgym_grading_facts(sources, "agree", g)
    assert [f.source for f in facts["grading.metric"]] == ["github:fannie1208/DSGym", "tambench"]
    assert facts["grading.metric"][1].path == "bench/data/paper_rules.csv"
    for slug, said in (("differ", "they differ"), ("unruled", "no rule in the project's table")):
        task = dsgym.dsgym_task(sources, slug)
        assert task.spec.grading is None, slug
        assert "reads roc_auc on id,y" in task.warnings[0] and said in task.warnings[0]


def test_a_header_run_into_the_sample_rows_is_taken_from_the_rules_table_when_the_page_holds_it(
    tmp_path: Path, shared_dir: Path
) -> None:
    dsgym = _modules()["dsgym"]
    glued = ("# New comp\n\nEvaluation\nSubmissions are evaluated on area under the ROC curve "
             "between the predicted probability and the observed target.\n\nSubmission File\n"
             "For each id in the test set, you must predict a probability for the target y. The "
             "file should contain a header and have the following format: "
             "id,y2190,0.52191,0.1etc.\n")
    _dsgym(tmp_path / "dsgym", {"stated": glued, "absent": glued, "silent": glued}, {})
    sources = _sources(tmp_path, shared_dir)
    table = tmp_path / "paper_rules.csv"
    table.write_text(RULES.strip() + ",submission_header\n"
                     "stated,ROC-AUC of y,roc_auc,{},true,y,,x,,id|y\n"
                     "absent,ROC-AUC of y,roc_auc,{},true,y,,x,,key|y\n"
                     "silent,ROC-AUC of y,roc_auc,{},true,y,,x,,\n", encoding="utf-8")
    task = dsgym.dsgym_task(sources, "stated")
    g = task.spec.grading
    assert g is not None and (g.metric, g.id_columns, g.target_columns, g.submission_header) == (
        "roc_auc", ["id"], ["y"], ["id", "y"])
    assert "line breaks lost" in task.spec.provenance.notes[0]
    facts = dsgym.dsgym_grading_facts(sources, "stated", g)
    assert [f.source for f in facts["grading.submission_header"]] == [
        "github:fannie1208/DSGym", "tambench"]
    for slug in ("absent", "silent"):  # the page lacks the table's header / the table has none
        task = dsgym.dsgym_task(sources, slug)
        assert task.spec.grading is None, slug
        assert "on (no header)" in task.warnings[0], slug


RESULTS = """# results
<a name="final_mag240m"/>
#### **Final leaderboard for [MAG240M-LSC](/kddcup2021/mag240m/)**
##### Classification accuracy. The higher, the better.

| Rank  | Team | Test Accuracy
|:----:|:-----:|:------:|
|  1  |  A  | 0.75  |
|  2  |  B team  | 0.70  |
|  3  |  C  | 0.02  |

-------

#### **Final leaderboard for [PCQM4M-LSC](/kddcup2021/pcqm4m/)**
##### Mean Absolute Error (MAE). The lower, the better.

| Rank  | Team | Test MAE
|:----:|:-----:|:------:|
|  1  |  A  | 0.12  |
|  3  |  B  | 0.13  |
"""
TIMELINE = """##### **March 15th, 2021: Start of KDD Cup 2021**
##### **May 10th, 2021: [Initial test submission](../participate/#initial) deadline**
##### **June 8th, 2021: [Final test submission](../participate/#final) deadline**
"""


def _ogb_tree(root: Path) -> None:
    (root / "_docs/kddcup2021").mkdir(parents=True)
    (root / "_docs/kddcup2021/results.md").write_text(RESULTS, encoding="utf-8")
    (root / "_docs/kddcup2021/timeline.md").write_text(TIMELINE, encoding="utf-8")


def test_the_ogb_final_table_is_a_board_checked_against_its_direction_and_ranks(
    tmp_path: Path, shared_dir: Path
) -> None:
    ogb = _modules()["ogb"]
    _ogb_tree(tmp_path / "ogb-web")
    sources = _sources(tmp_path, shared_dir, rules=(
        "ogb-lsc-mag240m,Accuracy,accuracy,{},true,,,x,\n"
        "ogb-lsc-pcqm4m,MAE,mae,{},false,,,x,\n"
        'ogb-lsc-wikikg90m,MRR,mrr_at_k,"{""k"": 10}",true,,,x,\n'))
    board, why = ogb.ogb_board(sources, "ogb-lsc-mag240m")
    assert why == "" and board is not None
    assert [float(s) for s in board.board.scores] == [0.75, 0.70, 0.02]
    assert (board.record.metric, board.record.higher_is_better) == ("accuracy", True)
    assert board.record.path == "_docs/kddcup2021/results.md"
    none, why = ogb.ogb_board(sources, "ogb-lsc-pcqm4m")
    assert none is None and "ranks are not 1..n" in why
    none, why = ogb.ogb_board(sources, "ogb-lsc-wikikg90m")
    assert none is None and "no final leaderboard table" in why
    dated = ogb.ogb_dates(sources, "ogb-lsc-mag240m")
    assert [(s.kind, s.day.isoformat()) for s in dated.statements] == [
        ("start", "2021-03-15"), ("end", "2021-06-08")]


def test_a_ranking_track_grades_as_a_line_file_and_an_indexed_one_as_a_keyed_table(
    tmp_path: Path, shared_dir: Path
) -> None:
    ogb = _modules()["ogb"]
    _ogb_tree(tmp_path / "ogb-web")
    sources = _sources(tmp_path, shared_dir, rules=(
        "ogb-lsc-mag240m,Accuracy,accuracy,{},true,label,,x,\n"
        'ogb-lsc-wikikg90m,MRR,mrr_at_k,"{""k"": 10}",true,,,x,\n'))
    g, said = ogb.ogb_grading(sources, "ogb-lsc-wikikg90m")
    assert g is not None and (g.metric, g.metric_params, g.submission_format.value) == (
        "mrr_at_k", {"k": 10}, "txt")
    assert "t_pred_wikikg90m.npz" in said and "matched by position" in said
    g, said = ogb.ogb_grading(sources, "ogb-lsc-mag240m")
    assert g is not None and (g.metric, g.submission_format.value, g.id_columns,
                              g.target_columns, g.submission_header) == (
        "accuracy", "csv", ["paper"], ["label"], ["paper", "label"])
    assert "y_pred_mag240m.npz" in said and "the local setup holds" in said
    facts = ogb.ogb_grading_facts(sources, "ogb-lsc-mag240m", g)
    assert facts["grading.columns"][0].path == "ogb/lsc/mag240m.py"
    assert facts["grading.submission_header"][0].value == "paper,label"
    none, said = ogb.ogb_grading(sources, "ogb-lsc-pcqm4m")
    assert none is None and "no published rule" in said


def test_a_slug_in_both_rules_tables_is_refused(tmp_path: Path, shared_dir: Path) -> None:
    sources = _sources(tmp_path, shared_dir, rules="c,x,mae,{},false,y,,x,\n")
    first = tmp_path / "first.csv"
    first.write_text("slug,published_rule,metric,metric_params\nc,x,mae,{}\n", encoding="utf-8")
    sources.rules_file = first
    with pytest.raises(SystemExit, match="already in another rules table"):
        sources.rules()
