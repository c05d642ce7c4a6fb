"""The MLE-Dojo importer and dslighting's registry through the MLE-bench-layout importer, on
small trees in the real layouts (:mod:`tests.tasks.peer_trees`): metrics settled by witnesses
that agree, conflicts named with every reading, departures of a grader flagged, both boards
with their provenance, one failure per unreadable folder, and no code of a tree ever run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core.leaderboard import read_leaderboard
from tambench.errors import ImportLayoutError
from tambench.schema.io import load_taskspec
from tambench.tasks.catalogue import Catalogue, validate_catalogue
from tambench.tasks.importers import ImportedTask, read_tree, write_imported
from tests.tasks.peer_trees import DOJO, build_dojo, build_dslighting, no_canary


@pytest.fixture
def dojo(tmp_path: Path) -> Path:
    return build_dojo(tmp_path / "MLE-Dojo")


@pytest.fixture
def dojo_tasks(dojo: Path) -> dict[str, ImportedTask]:
    return {t.spec.id: t for t in read_tree("mle-dojo", dojo).tasks}


def test_mle_dojo_accepts_the_repository_its_package_and_its_competitions_folder(
    dojo: Path,
) -> None:
    reads = [read_tree("mle-dojo", p) for p in
             (dojo, dojo / "mledojo", dojo / "mledojo" / "competitions")]
    ids = [sorted(t.spec.id for t in r.tasks) for r in reads]
    assert ids[0] == ids[1] == ids[2] == sorted(f"kaggle/{s}" for s in DOJO)
    tagged = {t.spec.id: t.spec.title for t in reads[2].tasks}  # Kaggle titles found from each
    assert tagged["kaggle/spaceship-titanic"] == "Spaceship Titanic"
    with pytest.raises(ImportLayoutError, match="MLE-Dojo"):
        read_tree("mle-dojo", dojo / "prepare")


def test_three_agreeing_witnesses_make_a_complete_task_with_its_columns(
    dojo_tasks: dict[str, ImportedTask],
) -> None:
    titanic = dojo_tasks["kaggle/spaceship-titanic"]
    spec = titanic.spec
    assert spec.status == "complete" and spec.grading is not None
    assert (spec.grading.metric, spec.grading.id_columns, spec.grading.target_columns) == (
        "accuracy", ["PassengerId"], ["Transported"])
    assert spec.provenance.mapper == "importer:mle-dojo"
    settled = next(n for n in spec.provenance.notes if n.startswith("metric accuracy"))
    assert "the description reads accuracy" in settled
    assert "metric.py reads accuracy" in settled and "Kaggle's name reads accuracy" in settled
    assert any("default target ['Transported'] confirms" in n for n in spec.provenance.notes)
    assert not [w for w in titanic.warnings if "depart" in w]


def test_a_grader_departing_from_the_published_rule_is_flagged_and_the_rule_taken(
    dojo_tasks: dict[str, ImportedTask],
) -> None:
    taxi = dojo_tasks["kaggle/new-york-city-taxi-fare-prediction"]
    g = taxi.spec.grading
    assert taxi.spec.status == "complete" and g is not None and g.metric == "rmse"
    said = "the grader computes mse (mean_squared_error(...)) where the published rule is rmse"
    assert any(said in n and "published rule is followed" in n
               for n in taxi.spec.provenance.notes)
    assert any("metric.py departs from the published rule" in w and said in w
               for w in taxi.warnings)


def test_witnesses_that_disagree_leave_the_grading_unset_and_name_every_reading(
    dojo_tasks: dict[str, ImportedTask],
) -> None:
    # the two sources of the rule (description, metric.py) disagreeing with no third
    other = dojo_tasks["kaggle/tabular-fixture-conflict"]
    assert other.spec.grading is None and other.spec.status == "incomplete"
    (conflict,) = [w for w in other.warnings if w.startswith("metric not settled")]
    assert "the description reads mae" in conflict and "metric.py reads r2" in conflict
    assert "grading left unset" in conflict
    assert "left incomplete: no grading is declared" in other.warnings
    pending = other.spec.provenance.pending_grading
    assert pending is not None and "the witnesses disagree" in pending.reason  # nothing lost


def test_three_disagreeing_witnesses_are_settled_by_the_table_the_conflict_still_named(
    dojo_tasks: dict[str, ImportedTask],
) -> None:
    houses = dojo_tasks["kaggle/home-data-for-ml-course"]
    g = houses.spec.grading
    assert houses.spec.status == "complete" and g is not None
    assert (g.metric, g.id_columns, g.target_columns) == ("mae", ["Id"], ["SalePrice"])
    (conflict,) = [w for w in houses.warnings if w.startswith("metric not settled")]
    for reading in ("the description reads rmsle", "metric.py reads rmse",
                    "Kaggle's name reads mae"):
        assert reading in conflict
    assert "settled by tambench's conventions table" in conflict
    # the departure the witnesses cannot see is flagged from the table, once
    departed = [w for w in houses.warnings if "departs from the published rule" in w]
    assert departed == ["metric.py departs from the published rule: utils/metric.py computes "
                        "RMSE on raw prices where Kaggle scores MAE"]
    assert any("conventions table" in n and "published rule is followed" in n
               for n in houses.spec.provenance.notes)


def test_grader_and_kaggles_name_settle_a_metric_the_description_does_not_name(
    dojo_tasks: dict[str, ImportedTask],
) -> None:
    species = dojo_tasks["kaggle/inaturalist-2019-fgvc6"].spec
    assert species.status == "complete" and species.grading is not None
    assert species.grading.metric == "top1_error"
    # no header on the page: the sample submission prepare.py writes gives it
    assert species.grading.submission_header == ["id", "predicted"]
    assert any("the sample submission prepare.py writes" in n
               for n in species.provenance.notes)
    assert "MLE-Dojo's utils/prepare.py reads test.csv from the raw data" in \
        species.provenance.notes
    assert any("Kaggle's data-type tag says Image" in n for n in species.provenance.notes)


def test_the_private_board_is_the_tasks_and_the_public_one_ships_beside_it(
    dojo: Path, tmp_path: Path,
) -> None:
    cat = tmp_path / "cat"
    write_imported(read_tree("mle-dojo", dojo), cat)
    folder = cat / "kaggle" / "inaturalist-2019-fgvc6"
    spec = load_taskspec(folder / "task.json")
    board = spec.leaderboard
    assert board is not None and board.kind == "private" and board.rows == 5
    assert board.source == "github:MLE-Dojo/MLE-Dojo"
    assert board.path == "mledojo/competitions/inaturalist-2019-fgvc6/info/private_leaderboard.csv"
    assert board.metric == "top1_error" and board.higher_is_better is False
    assert any("leaderboard_public.csv" in n and "public_leaderboard.csv" in n
               for n in board.notes)
    private = read_leaderboard(folder / "leaderboard.csv")
    public = read_leaderboard(folder / "leaderboard_public.csv")
    assert list(private.scores)[:2] == [0.10342, 0.11298]
    assert list(public.scores)[:2] == [0.10267, 0.11315]


def test_board_provenance_names_the_commit_of_a_git_checkout(dojo: Path) -> None:
    for args in (["init", "-q"], ["add", "."],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "tree"]):
        subprocess.run(["git", *args], cwd=dojo, check=True, capture_output=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=dojo, check=True,
                          capture_output=True, text=True).stdout.strip()
    read = read_tree("mle-dojo", dojo / "mledojo" / "competitions")
    boards = [t.spec.leaderboard for t in read.tasks if t.spec.leaderboard]
    assert boards and all(b.commit == head for b in boards)
    assert not any("not a git checkout" in n for n in read.notes)


def test_an_unreadable_folder_is_one_named_failure_and_the_cli_exits_3(
    capsys: pytest.CaptureFixture[str], dojo: Path, tmp_path: Path,
) -> None:
    cat = tmp_path / "cat"
    rc = main(["tasks", "import", "mle-dojo", str(dojo), "--catalogue", str(cat), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 3
    assert list(report["failures"]) == [str(dojo / "mledojo" / "competitions" /
                                            "latin1-description")]
    assert "not UTF-8" in next(iter(report["failures"].values()))
    assert sorted(report["written"]) == sorted(f"kaggle/{s}" for s in DOJO)
    assert sorted(report["complete"]) == ["kaggle/home-data-for-ml-course",
                                          "kaggle/inaturalist-2019-fgvc6",
                                          "kaggle/new-york-city-taxi-fare-prediction",
                                          "kaggle/spaceship-titanic"]
    assert len(Catalogue(cat).ids()) == len(DOJO)
    assert [p for p in validate_catalogue(cat) if p.severity == "error"] == []
    assert no_canary(dojo)


def test_a_merge_of_mle_dojo_never_overwrites_curated_values(dojo: Path, tmp_path: Path) -> None:
    import shutil

    from tambench.tasks.catalogue import bundled_catalogue_dir

    cat = tmp_path / "bundled"
    shutil.copytree(bundled_catalogue_dir(), cat)
    before = {e.id: e.spec for e in Catalogue(cat)}
    report = write_imported(read_tree("mle-dojo", dojo), cat)
    after = {e.id: e.spec for e in Catalogue(cat)}
    for tid, spec in before.items():
        if spec.status == "complete":
            assert after[tid].grading == spec.grading, tid
            assert after[tid].status == "complete", tid
    titanic = after["kaggle/spaceship-titanic"]
    assert titanic.grading is not None and titanic.grading.metric == "accuracy"
    assert "kaggle/spaceship-titanic" in report.merged or \
        "kaggle/spaceship-titanic" in report.unchanged


# --- dslighting's registry through the MLE-bench-layout importer ---------------------------


@pytest.fixture
def dsl(tmp_path: Path) -> Path:
    return build_dslighting(tmp_path / "dslighting")


def test_dslighting_registry_is_read_from_the_repository_its_package_or_the_registry(
    dsl: Path,
) -> None:
    reads = [read_tree("mle-bench", p) for p in
             (dsl, dsl / "dslighting", dsl / "dslighting" / "registry")]
    ids = [sorted(t.spec.id for t in r.tasks) for r in reads]
    assert ids[0] == ids[1] == ids[2] == [
        "dabench/dabench-7-median-age", "dsagentbench/handwriting",
        "kaggle/aerial-cactus-identification", "kaggle/bike-sharing-demand"]
    read = reads[0]
    assert [Path(f.where).name for f in read.failures] == ["broken-config"]
    assert any("instant_gratification" in n and "skipped" in n for n in read.notes)
    assert not any("complexity" in n for n in read.notes)  # dslighting has no labels
    assert no_canary(dsl)


def test_dslighting_tasks_take_their_platforms_metrics_and_real_boards_only(dsl: Path) -> None:
    tasks = {t.spec.id: t for t in read_tree("mle-bench", dsl).tasks}
    cactus = tasks["kaggle/aerial-cactus-identification"].spec
    assert cactus.status == "complete" and cactus.grading is not None
    assert cactus.grading.metric == "roc_auc" and cactus.provenance.mapper == "importer:dslighting"
    board = cactus.leaderboard
    assert board is not None and board.rows == 2
    assert (board.source, board.path) == (
        "github:usail-hkust/dslighting",
        "dslighting/registry/aerial-cactus-identification/leaderboard.csv")
    bikes = tasks["kaggle/bike-sharing-demand"]
    assert bikes.spec.grading is not None and bikes.spec.grading.metric == "rmsle"
    assert bikes.spec.leaderboard is None and bikes.leaderboard is None
    assert any("dated at exactly midnight" in w for w in bikes.warnings)
    dabench = tasks["dabench/dabench-7-median-age"]
    assert dabench.spec.grading is None and dabench.spec.url == ""
    assert any("dabench_answer_match, which is not a registered metric" in w
               for w in dabench.warnings)
    handwriting = tasks["dsagentbench/handwriting"].spec
    assert any("registry README" in n for n in handwriting.provenance.notes)


def test_the_conventions_table_settles_what_the_witnesses_left_and_says_so() -> None:
    from tambench.tasks.importers.dojo_grading import DojoGrading, with_conventions

    unsettled = DojoGrading(warnings=["metric not settled: a single witness is not enough: "
                                      "...; grading left unset"], unfilled=["grading"])
    settled = with_conventions("siim-covid19-detection", unsettled)
    assert settled.grading is not None and settled.grading.metric == "box_map"
    assert settled.unfilled == [] and settled.pending is None
    assert "settled by tambench's conventions table" in settled.warnings[0]
    assert "a single witness is not enough" in settled.warnings[0]  # the conflict stays named
    assert any("conventions of siim-covid19-detection applied" in n for n in settled.notes)
    untouched = with_conventions("no-such-competition", DojoGrading(unfilled=["grading"]))
    assert untouched.grading is None and untouched.unfilled == ["grading"]
