"""The catalogue: bundled stubs, validation, index, list/show, names and filter rules."""

from __future__ import annotations

import csv
import json
from datetime import date
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tambench.cli.main import main
from tambench.core.leaderboard import read_leaderboard, write_leaderboard
from tambench.core.metrics.base import Metric
from tambench.schema.complete import is_complete
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.schema.taskspec import (
    DataInformation,
    DataLocation,
    Difficulty,
    GradingSpec,
    Modality,
    RandomSplit,
    TaskSpec,
    Tier,
)
from tambench.tasks.catalogue import (
    INDEX_COLUMNS,
    Catalogue,
    build_index,
    bundled_catalogue_dir,
    index_hash,
    validate_catalogue,
    write_index,
)
from tambench.tasks.filters import evaluate_rules, passes_filters
from tambench.tasks.names import resolve_name, slugify, task_id_for_name
from tambench.tasks.subsets import render_manifest

LITE_RELEASE_IDS = {
    "Binary Prediction of Poisonous Mushrooms": "kaggle/binary-prediction-of-poisonous-mushrooms",
    "WhoIsWho-IND": "biendata/ind",
    "PST": "biendata/pst",
    "AQA": "biendata/aqa",
    "NextProductPrediction": "aicrowd/nextproductprediction",
    "Cornell Birdcall Identification": "kaggle/cornell-birdcall-identification",
}


def paper_rows(shared_dir: Path) -> list[dict[str, str]]:
    with (shared_dir / "data" / "tam-catalogue.csv").open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# --- names -----------------------------------------------------------------------------------


def test_printed_names_map_to_the_release_slugs_and_platforms() -> None:
    for name, tid in LITE_RELEASE_IDS.items():
        assert task_id_for_name(name) == tid
    assert task_id_for_name("chahi-hindi-and-tamil-question-answering") == \
        "kaggle/chaii-hindi-and-tamil-question-answering"
    assert task_id_for_name("leash-BELKA") == "kaggle/leash-belka"
    assert resolve_name("OGB-LSC-MAG240M").platform == "ogb"
    assert resolve_name("Graph based Recommendation").note.startswith("platform not confirmed")


def test_every_paper_name_maps_to_a_distinct_id_and_release_folders_are_covered(
    shared_dir: Path, tam_lite_dir: Path
) -> None:
    ids = [task_id_for_name(r["competition"]) for r in paper_rows(shared_dir)]
    assert len(ids) == 150 and len(set(ids)) == 150
    lite_ids = {task_id_for_name(r["competition"]) for r in paper_rows(shared_dir)
                if r["in_lite"] == "1"}
    release = {p.name for p in tam_lite_dir.iterdir() if p.is_dir()}
    # 17 of the 18 release folders are in the paper's Lite list; the 18th is the known swap.
    assert {t.split("/")[1] for t in lite_ids} ^ release == {
        "3d-object-detection-for-autonomous-vehicles", "image-matching-challenge-2024-hexathlon"}


def test_slugify_refuses_a_name_without_letters() -> None:
    assert slugify("AI4Code") == "ai4code"
    with pytest.raises(ValueError, match="no letters"):
        slugify("--")


# --- the bundled catalogue -------------------------------------------------------------------


def test_bundled_catalogue_holds_an_entry_for_every_non_release_paper_competition(
    shared_dir: Path, tam_lite_dir: Path
) -> None:
    release = {p.name for p in tam_lite_dir.iterdir() if p.is_dir()}
    root = bundled_catalogue_dir()
    n = 0
    for row in paper_rows(shared_dir):
        named = resolve_name(row["competition"])
        if named.slug in release:
            continue
        spec = load_taskspec(root / named.platform / named.slug / "task.json")
        # The paper's name stays the title unless it only repeats the slug (then a peer's
        # title fills it); the modality is the paper's, cited.
        assert spec.title == row["competition"] or row["competition"].lower() == named.slug
        assert spec.modality is not None and spec.modality.value == row["modality"]
        assert [f.value for f in spec.provenance.facts["modality"]] == [row["modality"]]
        assert spec.status == ("complete" if is_complete(spec) else "incomplete")
        n += 1
    assert n == 133


def test_bundled_catalogue_validates() -> None:
    problems = validate_catalogue(bundled_catalogue_dir())
    assert [f"{p.where}: {p.message}" for p in problems if p.severity == "error"] == []


def test_release_lite_entries_present_in_the_bundled_catalogue_are_complete(
    tam_lite_dir: Path,
) -> None:
    cat = Catalogue(bundled_catalogue_dir())
    ids = set(cat.ids())
    for folder in sorted(p.name for p in tam_lite_dir.iterdir() if p.is_dir()):
        tid = task_id_for_name({"ind": "IND", "pst": "PST", "aqa": "AQA",
                                "nextproductprediction": "NextProductPrediction"}
                               .get(folder, folder))
        if tid in ids:
            assert cat.get(tid).spec.status == "complete", tid


# --- validation ------------------------------------------------------------------------------


def write_entry(root: Path, spec: TaskSpec, leaderboard: Path | None = None) -> Path:
    folder = root / spec.id
    save_taskspec(spec, folder / "task.json")
    if leaderboard is not None:
        write_leaderboard(read_leaderboard(leaderboard), folder / "leaderboard.csv")
    return folder


def test_validation_names_every_problem_of_every_entry(tmp_path: Path, tam_lite_dir: Path) -> None:
    root = tmp_path / "cat"
    ok = TaskSpec(id="kaggle/ok", platform="kaggle", status="incomplete")
    write_entry(root, ok)
    wrong = root / "kaggle" / "wrong-folder"
    save_taskspec(TaskSpec(id="kaggle/other", platform="kaggle", status="incomplete"),
                  wrong / "task.json")
    write_entry(root, TaskSpec(id="kaggle/bare", platform="kaggle", status="complete"))
    write_entry(root, TaskSpec(id="kaggle/unknown-metric", platform="kaggle",
                               status="incomplete", grading=GradingSpec(metric="nope")))
    raw = write_entry(root, TaskSpec(id="kaggle/raw-lb", platform="kaggle", status="incomplete"))
    (raw / "leaderboard.csv").write_bytes((tam_lite_dir / "aqa" / "leaderboard.csv").read_bytes())
    write_entry(root, TaskSpec(id="kaggle/bad-tier", platform="kaggle", status="incomplete",
                               difficulty=Difficulty(score=0.9, tier=Tier.EASY)))
    broken = root / "kaggle" / "broken"
    broken.mkdir(parents=True)
    (broken / "task.json").write_text("{", encoding="utf-8")
    (root / "kaggle" / "empty").mkdir()
    (root / "_subsets").mkdir()
    (root / "_subsets" / "bad.txt").write_text("kaggle/ok\n", encoding="utf-8")
    problems = {(p.where, p.message.split("\n")[0]) for p in validate_catalogue(root)}
    text = "\n".join(f"{w}: {m}" for w, m in sorted(problems))
    assert "kaggle/wrong-folder: id 'kaggle/other' does not match its folder" in text
    assert "kaggle/bare: status is complete but no grading is declared" in text
    assert "kaggle/bare: status is complete but no modality is set" in text
    assert "kaggle/bare: no leaderboard.csv: ranking and difficulty need one" in text
    assert "kaggle/unknown-metric: unknown metric 'nope'" in text
    assert ("kaggle/raw-lb: leaderboard.csv is in the biendata format; expected one of "
            "['normalised', 'rank-score']") in text
    assert "kaggle/raw-lb: leaderboard.csv has no provenance record" in text
    assert "kaggle/broken:" in text and "not valid JSON" in text
    assert "kaggle/empty: no task.json" in text
    assert "_subsets/bad.txt: " in text
    assert not any(w == "kaggle/ok" for w, _ in problems)


def test_cli_validate_exits_3_when_an_entry_is_invalid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tmp_path / "cat"
    write_entry(root, TaskSpec(id="kaggle/bare", platform="kaggle", status="complete"))
    write_entry(root, TaskSpec(id="kaggle/bad-tier", platform="kaggle", status="incomplete",
                               difficulty=Difficulty(score=0.9, tier=Tier.EASY)))
    write_entry(root, TaskSpec(id="kaggle/odd-method", platform="kaggle", status="incomplete",
                               difficulty=Difficulty(method="median", score=0.9,
                                                     tier=Tier.EASY)))
    assert main(["tasks", "validate", "--catalogue", str(root)]) == 3
    out = " ".join(capsys.readouterr().out.split())
    assert "kaggle/bare: status is complete but no grading is declared" in out
    assert "kaggle/bad-tier: difficulty score 0.9 is tier hard under the paper's" in out
    assert "kaggle/odd-method: unknown difficulty method 'median'" in out


def test_schema_validate_and_tasks_validate_agree_on_what_complete_means(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tam_lite_dir: Path
) -> None:
    """`schema convert` of a paper schema is not complete; a file claiming to be is refused by
    both commands, for the same reasons."""
    root = tmp_path / "cat"
    out_file = tmp_path / "converted.json"
    assert main(["schema", "convert", str(tam_lite_dir / "lmsys-chatbot-arena" / "schema.json"),
                 "--id", "kaggle/lmsys-chatbot-arena", "--out", str(out_file)]) == 0
    converted = load_taskspec(out_file)
    assert converted.status == "incomplete"
    assert main(["schema", "validate", str(out_file)]) == 0
    claims = converted.model_copy(update={"status": "complete"})
    folder = write_entry(root, claims)
    capsys.readouterr()
    assert main(["schema", "validate", str(folder / "task.json")]) == 3
    schema_out = capsys.readouterr().out
    assert main(["tasks", "validate", "--catalogue", str(root)]) == 3
    tasks_out = capsys.readouterr().out
    for reason in ("no grading is declared", "no modality is set"):
        assert f"status is complete but {reason}" in schema_out
        assert f"status is complete but {reason}" in tasks_out


# --- filters ---------------------------------------------------------------------------------


def test_filter_rules_pass_fail_or_unknown_with_reasons(temp_metric: object) -> None:
    stub = TaskSpec(id="kaggle/s", platform="kaggle", status="incomplete")
    assert [r.verdict for r in evaluate_rules(stub)] == ["unknown"] * 4
    full = TaskSpec(
        id="kaggle/f", platform="kaggle", start_date=date(2023, 3, 1),
        data_information=DataInformation(train=DataLocation(data_location="train.csv")),
        split=RandomSplit(seed=1),
        grading=GradingSpec(metric="rmse", target_columns=["y"]),
    )
    rules = evaluate_rules(full)
    assert [r.verdict for r in rules] == ["pass"] * 4 and passes_filters(rules)
    assert "2023-03-01" in rules[0].reason and "seed 1" in rules[2].reason
    old = full.model_copy(update={"start_date": date(2013, 5, 1),
                                  "grading": GradingSpec(metric="nope")})
    verdicts = {r.rule: r.verdict for r in evaluate_rules(old)}
    assert verdicts == {"from_2023": "fail", "data_public": "pass", "labels_or_split": "pass",
                        "scoring_replicable": "fail"}
    na = full.model_copy(update={"data_information": DataInformation(
        train=DataLocation(data_location="N/A"))})
    assert evaluate_rules(na)[1].verdict == "unknown"


# --- index, list, show -----------------------------------------------------------------------


def small_catalogue(root: Path, tam_lite_dir: Path, metric: Metric) -> Path:
    write_entry(root, TaskSpec(
        id="kaggle/new-york-city-taxi-fare-prediction", platform="kaggle", status="incomplete",
        modality=Modality.TABULAR, field="transport", end_date=date(2018, 9, 25),
        grading=GradingSpec(metric=metric.id),
        difficulty=Difficulty(method="paper", score=0.3, tier=Tier.EASY),
    ), tam_lite_dir / "new-york-city-taxi-fare-prediction" / "leaderboard.csv")
    write_entry(root, TaskSpec(
        id="biendata/aqa", platform="biendata", status="incomplete", modality=Modality.GRAPH,
        field="academic search", start_date=date(2024, 3, 1), end_date=date(2024, 6, 1),
        difficulty=Difficulty(method="paper", score=0.9, tier=Tier.HARD),
        data_information=DataInformation(train=DataLocation(data_location="qa_train.txt")),
        split=RandomSplit(), grading=GradingSpec(metric="rmse", target_columns=["y"]),
        reference_tiers={"tam-bench": "hard"},
    ))
    write_entry(root, TaskSpec(id="kaggle/stub", platform="kaggle", status="incomplete",
                               modality=Modality.TEXT))
    (root / "_subsets").mkdir()
    (root / "_subsets" / "lite.txt").write_text(
        render_manifest("lite", {}, {"biendata/aqa": "Graph/hard"}), encoding="utf-8")
    return root


def test_index_has_one_row_per_task_in_csv_and_parquet(
    tmp_path: Path, tam_lite_dir: Path, temp_metric: object
) -> None:
    metric = temp_metric("test_tmp_rmse_idx", higher_is_better=False,  # type: ignore[operator]
                         value_range=(0.0, float("inf")))
    root = small_catalogue(tmp_path / "cat", tam_lite_dir, metric)
    csv_path, pq_path, digest = write_index(Catalogue(root))
    with csv_path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == INDEX_COLUMNS
    assert [r["id"] for r in rows] == ["biendata/aqa", "kaggle/new-york-city-taxi-fare-prediction",
                                        "kaggle/stub"]
    aqa, taxi, _ = rows
    assert aqa["subsets"] == "lite" and aqa["tier"] == "hard" and aqa["passes_filters"] == "True"
    assert aqa["filters_passed"] == "from_2023;data_public;labels_or_split;scoring_replicable"
    assert taxi["direction"] == "lower" and taxi["has_leaderboard"] == "True"
    assert json.loads(aqa["reference_tiers"]) == {"tam-bench": "hard"}
    table = pq.read_table(pq_path)
    assert table.num_rows == 3 and tuple(table.column_names) == INDEX_COLUMNS
    assert table.column("n_teams").to_pylist()[1] == 1485
    # The hash ignores subset membership (manifests record the hash) but sees task changes.
    (root / "_subsets" / "lite.txt").unlink()
    assert index_hash(build_index(Catalogue(root))) == digest
    spec = load_taskspec(root / "kaggle" / "stub" / "task.json")
    save_taskspec(spec.model_copy(update={"field": "nlp"}), root / "kaggle" / "stub" / "task.json")
    assert index_hash(build_index(Catalogue(root))) != digest


def test_cli_list_filters_by_modality_tier_platform_field_date_subset(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tam_lite_dir: Path, temp_metric: object
) -> None:
    metric = temp_metric("test_tmp_rmse_list", higher_is_better=False,  # type: ignore[operator]
                         value_range=(0.0, float("inf")))
    root = str(small_catalogue(tmp_path / "cat", tam_lite_dir, metric))

    def ids(*args: str) -> list[str]:
        assert main(["tasks", "list", "--catalogue", root, "--json", *args]) == 0
        return [r["id"] for r in json.loads(capsys.readouterr().out)]

    assert ids("--modality", "graph") == ["biendata/aqa"]
    assert ids("--tier", "easy", "--tiers", "difficulty:paper") == [
        "kaggle/new-york-city-taxi-fare-prediction"]
    assert ids("--tier", "HARD") == ["biendata/aqa"]  # the release's tier, by default
    assert ids("--platform", "kaggle") == ["kaggle/new-york-city-taxi-fare-prediction",
                                           "kaggle/stub"]
    assert ids("--field", "transport") == ["kaggle/new-york-city-taxi-fare-prediction"]
    assert ids("--since", "2023-01-01") == ["biendata/aqa"]
    assert ids("--until", "2020-01-01") == ["kaggle/new-york-city-taxi-fare-prediction"]
    assert ids("--subset", "lite") == ["biendata/aqa"]
    assert ids("--passes-filters") == ["biendata/aqa"]
    assert ids("--status", "complete") == []
    assert main(["tasks", "list", "--catalogue", root, "--since", "yesterday"]) == 2
    for bad in (["--tier", "bogus"], ["--modality", "Imag"], ["--tier", "easy", "--tiers",
                "reference:typo"], ["--subset", "nope"], ["--status", "done"]):
        assert main(["tasks", "list", "--catalogue", root, *bad]) == 2, bad
    capsys.readouterr()
    assert main(["tasks", "list", "--catalogue", root, "--explain", "--json",
                 "--modality", "Tabular"]) == 0
    rules = json.loads(capsys.readouterr().out)[0]["rules"]
    assert {r["rule"]: r["verdict"] for r in rules}["from_2023"] == "fail"


def test_cli_show_explains_each_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tam_lite_dir: Path, temp_metric: object
) -> None:
    metric = temp_metric("test_tmp_rmse_show", higher_is_better=False,  # type: ignore[operator]
                         value_range=(0.0, float("inf")))
    root = str(small_catalogue(tmp_path / "cat", tam_lite_dir, metric))
    assert main(["tasks", "show", "kaggle/new-york-city-taxi-fare-prediction",
                 "--catalogue", root]) == 0
    out = capsys.readouterr().out
    assert "fail    from_2023: end date 2018-09-25 is before 2023-01-01" in out
    assert "unknown labels_or_split: no split declared" in out
    assert main(["tasks", "show", "aqa", "--catalogue", root, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["passes_filters"] is True and data["subsets"] == ["lite"]
    assert main(["tasks", "show", "kaggle/missing", "--catalogue", root]) == 1


def test_cli_index_writes_both_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tam_lite_dir: Path, temp_metric: object
) -> None:
    metric = temp_metric("test_tmp_rmse_cli", higher_is_better=False,  # type: ignore[operator]
                         value_range=(0.0, float("inf")))
    root = small_catalogue(tmp_path / "cat", tam_lite_dir, metric)
    assert main(["tasks", "index", "--catalogue", str(root), "--out", str(tmp_path)]) == 0
    assert "3 tasks" in capsys.readouterr().out
    assert (tmp_path / "index.csv").is_file() and (tmp_path / "index.parquet").is_file()


def test_entry_path_refuses_traversal(tmp_path: Path) -> None:
    from tambench.errors import UnsafePathError

    cat = Catalogue(tmp_path)
    with pytest.raises(UnsafePathError):
        cat.entry_path("kaggle/../../etc")
