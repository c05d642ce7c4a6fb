"""The catalogue ships its leaderboards: what the shipping script writes, the one writer, the
score scale difficulty reads, and the kaggle refresh path."""

from __future__ import annotations

import csv
import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tambench.cli.main import main
from tambench.core.leaderboard import leaderboard_from_client_rows, read_leaderboard
from tambench.errors import CatalogueError
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.schema.taskspec import GradingSpec, LeaderboardSource, TaskSpec
from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir
from tambench.tasks.leaderboards import scale_of, scale_problems, store_leaderboard

REPO = Path(__file__).resolve().parents[2]


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses of the script look their module up
    spec.loader.exec_module(module)
    return module


def test_every_real_board_of_the_shared_data_ships_as_the_script_writes_it(
    shared_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ship = _script("ship_leaderboards")
    assert ship.main(["--shared", str(shared_dir), "--check"]) == 0
    out = capsys.readouterr().out
    assert "79 leaderboards; 0 would change" in out
    size = int(out.split(" bytes")[0].rsplit(" ", 1)[1].replace(",", ""))
    assert size <= 3_000_000


def test_shipped_boards_keep_rank_order_scores_and_provenance(shared_dir: Path) -> None:
    with (shared_dir / "data" / "leaderboards" / "index.csv").open(encoding="utf-8") as fh:
        index = {r["slug"]: r for r in csv.DictReader(fh)}
    by_slug = {e.spec.slug: e for e in Catalogue(bundled_catalogue_dir()) if e.has_leaderboard}
    assert set(index) <= set(by_slug)
    # Every other board is a peer's real board, shipped by scripts/fill_catalogue.py (or, for
    # the paper's name of the release's hexathlon task, that task's board): a peer's
    # leaderboard.csv, DSGym's copy of Kaggle's private board, the OGB website's final table.
    others = {"github:fannie1208/DSGym": "data/DSPredict_Offline_Leaderboard/",
              "github:snap-stanford/ogb-web": "_docs/kddcup2021/results.md"}
    for slug in set(by_slug) - set(index):
        rec = by_slug[slug].spec.leaderboard
        assert rec is not None and rec.source in {"github:openai/mle-bench",
                                                  "github:MLE-Dojo/MLE-Dojo", *others} or (
            slug == "image-matching-challenge-2024" and rec == by_slug[
                "image-matching-challenge-2024-hexathlon"].spec.leaderboard), slug
        assert len(rec.commit) == 40, slug
        assert rec.path.endswith("leaderboard.csv") or (
            rec.source in others and rec.path.startswith(others[rec.source])), slug
    for slug, row in index.items():
        entry = by_slug[slug]
        rec = entry.spec.leaderboard
        assert rec is not None and rec.rows == int(row["rows"]) or slug in {
            "vesuvius-challenge-ink-detection"}, slug
        shipped = read_leaderboard(entry.leaderboard_path)
        assert shipped.format == "rank-score"
        if slug != "vesuvius-challenge-ink-detection":
            source = read_leaderboard(shared_dir / "data" / "leaderboards" / slug
                                      / "leaderboard.csv")
            assert [r.score_raw.strip().strip('"') for r in source.rows] == [
                r.score_raw for r in shipped.rows], slug
            assert rec is not None and rec.commit == row["commit"] and rec.path == row["path"]
        label = row["mle_bench_complexity"]
        assert entry.spec.reference_tiers.get("mle-bench") == (label or None), slug
    vesuvius = by_slug["vesuvius-challenge-ink-detection"].spec.leaderboard
    assert vesuvius is not None and vesuvius.kind == "private"
    assert vesuvius.source == "github:MLE-Dojo/MLE-Dojo"


def test_every_lite_task_carries_the_release_tier() -> None:
    tiers = {e.id: e.spec.reference_tiers.get("tam-bench") for e in Catalogue(
        bundled_catalogue_dir()) if e.spec.provenance.mapper == "paper-release"}
    assert len(tiers) == 18 and all(tiers.values())
    assert sorted(tiers.values()).count("hard") == 6


def _entry(root: Path, spec: TaskSpec) -> Path:
    save_taskspec(spec, root / spec.id / "task.json")
    return root / spec.id


def test_the_writer_stores_the_compact_board_its_record_and_fills_n_teams(tmp_path: Path) -> None:
    folder = _entry(tmp_path, TaskSpec(id="kaggle/x", platform="kaggle", status="incomplete",
                                       provenance={"unfilled": ["leaderboard", "grading"]}))
    lb = read_leaderboard(bundled_catalogue_dir() / "kaggle" / "mlsp-2013-birds"
                          / "leaderboard.csv")
    record = LeaderboardSource(source="kaggle", kind="private", rows=len(lb))
    spec = store_leaderboard(folder, lb, record)
    assert spec.n_teams == 81 and spec.leaderboard == record
    assert spec.provenance.unfilled == ["grading"]
    assert load_taskspec(folder / "task.json") == spec
    assert read_leaderboard(folder / "leaderboard.csv").scores.tolist() == lb.scores.tolist()
    with pytest.raises(CatalogueError, match="says 3 rows, the board has 81"):
        store_leaderboard(folder, lb, record.model_copy(update={"rows": 3}))


def test_the_scale_comes_from_the_grading_metric_else_from_the_board_record() -> None:
    graded = TaskSpec(id="kaggle/a", platform="kaggle", grading=GradingSpec(metric="rmse"))
    scale = scale_of(graded)
    assert scale is not None and (scale.origin, scale.higher_is_better) == ("grading", False)
    stub = TaskSpec(id="kaggle/b", platform="kaggle", status="incomplete",
                    leaderboard=LeaderboardSource(source="s", rows=2, metric="box_map_pending",
                                                  higher_is_better=True, lower_bound=0.0,
                                                  upper_bound=1.0))
    scale = scale_of(stub)
    assert scale is not None and scale.origin == "leaderboard" and scale.bounded
    no_lb = TaskSpec(id="kaggle/c", platform="kaggle", status="incomplete")
    assert scale_of(no_lb) is None
    open_scale = stub.model_copy(update={"leaderboard": stub.leaderboard.model_copy(  # type: ignore[union-attr]
        update={"upper_bound": None})})
    s = scale_of(open_scale)
    assert s is not None and s.upper_bound == math.inf and not s.bounded


def test_a_board_recorded_on_another_scale_than_its_metric_is_a_problem() -> None:
    spec = TaskSpec(id="kaggle/a", platform="kaggle", grading=GradingSpec(metric="mae"),
                    leaderboard=LeaderboardSource(source="s", rows=2, metric="rmse",
                                                  higher_is_better=True, lower_bound=0.0))
    problems = scale_problems(spec)
    assert any("recorded as 'rmse' but the task is graded with 'mae'" in p for p in problems)
    assert any("higher is better True" in p for p in problems)


def test_refresh_fetches_through_the_kaggle_client_and_ships_the_board(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _entry(tmp_path, TaskSpec(
        id="kaggle/cornell-birdcall-identification", platform="kaggle", status="incomplete",
        url="https://www.kaggle.com/competitions/birdsong-recognition",
        grading=GradingSpec(metric="rowwise_set_f1")))
    asked: list[str] = []

    def fake_board(self: object, slug: str) -> object:
        asked.append(slug)
        return leaderboard_from_client_rows([{"teamId": 1, "teamName": "a", "score": "0.68"},
                                             {"teamId": 2, "teamName": "b", "score": "0.61"}])

    monkeypatch.setattr("tambench.acquisition.kaggle_client.KaggleClient.leaderboard",
                        fake_board)
    assert main(["leaderboard", "refresh", "cornell-birdcall-identification", "--catalogue",
                 str(tmp_path)]) == 0
    assert asked == ["birdsong-recognition"]  # the Kaggle slug, from the task's address
    spec = load_taskspec(folder / "task.json")
    assert spec.leaderboard is not None and spec.leaderboard.source == "kaggle"
    assert spec.leaderboard.retrieved_at is not None and spec.leaderboard.rows == 2
    assert spec.leaderboard.metric == "rowwise_set_f1"
    assert (folder / "leaderboard.csv").read_text() == "rank,score\n1,0.68\n2,0.61\n"
    assert "2 rows from Kaggle (birdsong-recognition)" in capsys.readouterr().out
