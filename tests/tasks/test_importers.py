"""Importers on trees in the real layouts (built at test time: MLE-bench's file names and
formats, the TAM-Bench release's folders and its flat copy in ../shared/data): complete tasks
where the material allows, disagreements reported, one bad folder never aborts an import, and
no code from a tree ever runs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core.leaderboard import read_leaderboard
from tambench.errors import ImportLayoutError
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.tasks.catalogue import Catalogue, validate_catalogue
from tambench.tasks.importers import read_tree, write_imported
from tests.difficulty.conftest import LITE_FACTS, lite_task_id

#: Input file names of the paper's public release where they differ from the folder slug.
RELEASE_FILE_NAMES = {
    "cornell-birdcall-identification": "Cornell Birdcall Identification.json",
    "ind": "IND.json",
    "pst": "PST.json",
    "aqa": "AQA.json",
    "image-matching-challenge-2024-hexathlon": "Image Matching Challenge 2024 - Hexathlon.json",
    "nextproductprediction": "NextProductPrediction.json",
    "binary-prediction-of-poisonous-mushrooms": "Binary Prediction of Poisonous Mushrooms.json",
    "planttraits2024": "planttraits2024.txt",
    "tensorflow-speech-recognition-challenge": "tensorflow-speech-recognition-challenge.txt",
}

CANARY_CODE = """
import pathlib
pathlib.Path(__file__).with_name("CANARY_RAN").write_text("code from the imported tree ran")
raise SystemExit("this file must never be executed")
"""


def flat(text: str) -> str:
    """CLI error text without the box drawn around it, on one line."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def no_canary(root: Path) -> bool:
    return not any(root.rglob("CANARY_RAN"))


def build_release(root: Path, tam_lite_dir: Path) -> Path:
    """The paper's release layout: <Modality>/<difficulty>/{input,evaluation}/."""
    for slug, (_, _, modality, tier) in LITE_FACTS.items():
        cell = root / modality / tier
        (cell / "input").mkdir(parents=True)
        (cell / "evaluation").mkdir()
        name = RELEASE_FILE_NAMES.get(slug, f"{slug}.json")
        shutil.copy(tam_lite_dir / slug / "schema.json", cell / "input" / name)
        shutil.copy(tam_lite_dir / slug / "leaderboard.csv", cell / "evaluation" / "leaderboard.csv")
        for script in ("grade.py", "ScoreRank.py"):
            (cell / "evaluation" / script).write_text(CANARY_CODE, encoding="utf-8")
    (root / "picture").mkdir()
    (root / "README.md").write_text("# release\n", encoding="utf-8")
    (root / "DataProcess.py").write_text(CANARY_CODE, encoding="utf-8")
    return root


# --- TAM-Bench release --------------------------------------------------------------------


def test_tam_lite_release_import_reads_all_18_cells_with_their_tiers_and_graders_metrics(
    tmp_path: Path, tam_lite_dir: Path
) -> None:
    release = build_release(tmp_path / "release", tam_lite_dir)
    read = read_tree("tam-lite", release)
    assert read.failures == []
    by_id = {t.spec.id: t for t in read.tasks}
    assert sorted(by_id) == sorted(lite_task_id(s) for s in LITE_FACTS)
    covid = by_id["kaggle/stanford-covid-vaccine"].spec
    assert covid.reference_tiers == {"tam-bench": "hard"}
    assert covid.modality is not None and covid.modality.value == "Tabular"
    assert covid.grading is not None and covid.grading.metric == "mcrmse"
    assert covid.provenance.mapper == "importer:tam-lite"
    assert any("not run: ScoreRank.py, grade.py" in n for n in covid.provenance.notes)
    lmsys = by_id["kaggle/lmsys-chatbot-arena"].spec
    assert lmsys.status == "complete" and lmsys.grading is not None
    assert (lmsys.grading.metric, lmsys.grading.submission_header) == (
        "multiclass_log_loss", ["id", "winner_model_a", "winner_model_b", "winner_tie"])
    assert lmsys.split is not None and lmsys.split.id_column == "id"
    ind = by_id["biendata/ind"].spec
    assert ind.status == "complete" and ind.grading is not None
    assert (ind.grading.metric, ind.grading.submission_format.value) == ("weighted_author_auc",
                                                                       "json")
    board = by_id["kaggle/mlsp-2013-birds"].spec.leaderboard
    assert board is not None and board.rows == 81 and board.metric == "roc_auc"
    assert board.path == "Audio/easy/evaluation/leaderboard.csv"
    assert no_canary(release)


def test_tam_lite_flat_copy_imports_with_its_ids_and_no_tier(tam_lite_dir: Path) -> None:
    read = read_tree("tam-lite", tam_lite_dir)
    ids = sorted(t.spec.id for t in read.tasks)
    assert ids == sorted(lite_task_id(s) for s in LITE_FACTS)  # "aqa" is biendata/aqa
    assert all(t.spec.reference_tiers == {} for t in read.tasks)
    assert all(any("gives no tier" in w for w in t.warnings) for t in read.tasks)
    complete = {t.spec.id for t in read.tasks if t.spec.status == "complete"}
    assert {"kaggle/lmsys-chatbot-arena", "kaggle/denoising-dirty-documents",
            "biendata/ind"} <= complete


def test_tam_lite_import_never_marks_complete_with_a_metric_it_could_not_confirm(
    tam_lite_dir: Path,
) -> None:
    facts = {lite_task_id(s): s for s in LITE_FACTS}
    from tambench.schema.io import load_taskspec as load
    from tambench.tasks.catalogue import bundled_catalogue_dir

    for task in read_tree("tam-lite", tam_lite_dir).tasks:
        if task.spec.status == "complete":
            curated = load(bundled_catalogue_dir() / task.spec.id / "task.json")
            assert curated.grading is not None and task.spec.grading is not None
            assert task.spec.grading.metric == curated.grading.metric, facts[task.spec.id]


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        ("no_input", "has no input/ folder"),
        ("two_inputs", "expected exactly one .json or .txt task file"),
        ("not_json", "is not valid JSON"),
        ("bad_tier", "expected a difficulty folder"),
        ("unnamed", "not named after its competition"),
        ("unknown_field", "unknown field"),
    ],
)
def test_a_broken_release_cell_is_one_named_failure_and_the_others_import(
    tmp_path: Path, tam_lite_dir: Path, breakage: str, message: str
) -> None:
    for slug, modality, tier in (("lmsys-chatbot-arena", "Text", "easy"),
                                 ("mlsp-2013-birds", "Audio", "easy")):
        cell = tmp_path / "r" / modality / tier
        (cell / "input").mkdir(parents=True)
        shutil.copy(tam_lite_dir / slug / "schema.json", cell / "input" / f"{slug}.json")
    cell = tmp_path / "r" / "Text" / "easy"
    target = cell / "input" / "lmsys-chatbot-arena.json"
    schema = target.read_text(encoding="utf-8")
    if breakage == "no_input":
        shutil.rmtree(cell / "input")
    elif breakage == "two_inputs":
        (cell / "input" / "other.json").write_text(schema, encoding="utf-8")
    elif breakage == "not_json":
        target.write_text("{not json", encoding="utf-8")
    elif breakage == "bad_tier":
        cell.rename(cell.with_name("trivial"))
    elif breakage == "unnamed":
        target.rename(target.with_name("input.json"))
    elif breakage == "unknown_field":
        target.write_text(json.dumps({**json.loads(schema), "bonus": 1}), encoding="utf-8")
    read = read_tree("tam-lite", tmp_path / "r")
    assert [t.spec.id for t in read.tasks] == ["kaggle/mlsp-2013-birds"]
    assert len(read.failures) == 1 and message in read.failures[0].message


def test_tam_lite_import_of_a_tree_without_cells_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "picture").mkdir()
    with pytest.raises(ImportLayoutError, match="release layout"):
        read_tree("tam-lite", tmp_path)


# --- MLE-bench ----------------------------------------------------------------------------

#: id: (grader name as MLE-bench's config writes it, complexity label, description, board)
MLE_COMPETITIONS: dict[str, tuple[str, str | None, str, str]] = {
    "denoising-dirty-documents": ("root_mean_squared_error", "low", "shared", "tam-lite"),
    "spaceship-titanic": ("accuracy", None, "shared", "lfs"),
    "stanford-covid-vaccine": ("multi-class-log-loss", "high", "shared", "tam-lite"),
    "text-normalization-challenge-english-language": ("accuracy", "low", "shared", "none"),
    "plant-seedlings-classification": ("micro-f1-score", None, "shared", "none"),
    "ventilator-pressure-prediction": ("dice-hausdorff-combo", "medium", "shared", "rank-score"),
    "AI4Code": ("kendall-tau", "medium", "own", "garbage"),
    "aptos2019-blindness-detection": ("quadratic-weighted-kappa", "low", "rewritten", "none"),
    "alaska2-image-steganalysis": ("weighted-auroc", "medium", "shared", "none"),
    "3d-object-detection-for-autonomous-vehicles": ("mean-average-precision", "high", "shared",
                                                    "none"),
    "odd-metric-challenge": ("accuracy", None, "odd", "none"),
}

AI4CODE_DESCRIPTION = """# Overview

Predict the order of the cells of Python notebooks.

## Evaluation

Predictions are evaluated by the Kendall tau correlation between predicted cell orders and
the true ones.

## Submission File

The file should contain a header and have the following format:

```
id,cell_order
0009d135ece78d,ddfd239c c6cd22db 1372ae9b
```
"""
APTOS_DESCRIPTION = """# Overview

Detect diabetic retinopathy in retina images.

## Evaluation

Submissions are scored on the quadratic weighted kappa.

## Data

- **train.csv** - the training labels
- **sample_submission.csv** - a sample submission file in the correct format
"""
ODD_DESCRIPTION = """# Overview

Predict the harmony class of each clip.

## Evaluation

Submissions are scored on the Spectral Harmony Index of the predicted classes.

## Submission File

The file should contain a header and have the following format:

```
clip_id,harmony
c001,3
```
"""
APTOS_REWRITTEN = """# Task

Grade diabetic retinopathy in retina images, 0 to 4.

# Metric

Quadratic weighted kappa.

# Submission Format

```
id_code,diagnosis
0005cfc8afb6,0
003f0afdcd15,0
```
"""


def _config(cid: str, grader: str) -> str:
    return (f"id: {cid}\nname: {cid.replace('-', ' ').title()}\ncompetition_type: simple\n"
            f"awards_medals: false\nprizes: null\n"
            f"description: mlebench/competitions/{cid}/description.md\n\n"
            f"dataset:\n  answers: {cid}/prepared/private/test.csv\n"
            f"  sample_submission: {cid}/prepared/public/sample_submission.csv\n\n"
            f"grader:\n  name: {grader}\n  grade_fn: mlebench.competitions.{cid}.grade:grade\n\n"
            f"preparer: mlebench.competitions.{cid}.prepare:prepare\n")


def _board(folder: Path, cid: str, kind: str, shared_dir: Path, tam_lite_dir: Path) -> None:
    target = folder / "leaderboard.csv"
    if kind == "tam-lite":
        shutil.copy(tam_lite_dir / cid / "leaderboard.csv", target)
    elif kind == "rank-score":
        shutil.copy(shared_dir / "data" / "leaderboards" / cid / "leaderboard.csv", target)
    elif kind == "lfs":
        target.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64
                          + "\nsize 125841\n", encoding="utf-8")
    elif kind == "garbage":
        target.write_text("who,what\nx,y\n", encoding="utf-8")


def _descriptions(folder: Path, cid: str, kind: str, shared_dir: Path) -> None:
    if kind == "shared":
        shutil.copy(shared_dir / "data" / "competition-descriptions" / f"{cid}.md",
                    folder / "description.md")
    elif kind == "own":
        (folder / "description.md").write_text(AI4CODE_DESCRIPTION, encoding="utf-8")
    elif kind == "odd":
        (folder / "description.md").write_text(ODD_DESCRIPTION, encoding="utf-8")
    else:
        (folder / "description.md").write_text(APTOS_DESCRIPTION, encoding="utf-8")
        (folder / "description_obfuscated.md").write_text(APTOS_REWRITTEN, encoding="utf-8")


def build_mle_bench(root: Path, shared_dir: Path, tam_lite_dir: Path) -> Path:
    """MLE-bench's repository layout, with canary code files and two broken folders."""
    comps = root / "mlebench" / "competitions"
    for cid, (grader, _, desc, board) in MLE_COMPETITIONS.items():
        folder = comps / cid
        folder.mkdir(parents=True)
        (folder / "config.yaml").write_text(_config(cid, grader), encoding="utf-8")
        _descriptions(folder, cid, desc, shared_dir)
        _board(folder, cid, board, shared_dir, tam_lite_dir)
        for script in ("grade.py", "prepare.py", "__init__.py"):
            (folder / script).write_text(CANARY_CODE, encoding="utf-8")
    (comps / "broken-yaml").mkdir()
    (comps / "broken-yaml" / "config.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    (comps / "latin1-text").mkdir()
    (comps / "latin1-text" / "config.yaml").write_text(_config("latin1-text", "accuracy"),
                                                       encoding="utf-8")
    (comps / "latin1-text" / "description.md").write_bytes("Caf\xe9 scores".encode("latin-1"))
    (comps / "__init__.py").write_text(CANARY_CODE, encoding="utf-8")
    splits = root / "experiments" / "splits"
    splits.mkdir(parents=True)
    for label in ("low", "medium", "high"):
        ids = [c for c, (_, lab, _, _) in MLE_COMPETITIONS.items() if lab == label]
        if label == "high":
            ids.append("vesuvius-challenge-ink-detection")  # labelled but no folder
        (splits / f"{label}.txt").write_text("\n".join(sorted(ids)) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def mle_tree(tmp_path: Path, shared_dir: Path, tam_lite_dir: Path) -> Path:
    return build_mle_bench(tmp_path / "mle-bench", shared_dir, tam_lite_dir)


def test_mle_bench_import_accepts_the_repository_its_package_and_its_competitions_folder(
    mle_tree: Path,
) -> None:
    reads = [read_tree("mle-bench", p) for p in
             (mle_tree, mle_tree / "mlebench", mle_tree / "mlebench" / "competitions")]
    ids = [sorted(t.spec.id for t in r.tasks) for r in reads]
    assert ids[0] == ids[1] == ids[2] and len(ids[0]) == len(MLE_COMPETITIONS)
    for r in reads:  # the complexity labels are found from every entry point
        tiers = {t.spec.id: t.spec.reference_tiers for t in r.tasks}
        assert tiers["kaggle/stanford-covid-vaccine"] == {"mle-bench": "high"}


def test_a_competitions_folder_without_its_repository_says_the_labels_are_missing(
    mle_tree: Path, tmp_path: Path
) -> None:
    alone = tmp_path / "alone"
    shutil.copytree(mle_tree / "mlebench" / "competitions", alone / "competitions")
    read = read_tree("mle-bench", alone / "competitions")
    assert any("no complexity labels" in n for n in read.notes)
    assert all(t.spec.reference_tiers == {} for t in read.tasks)


def test_mle_bench_tasks_come_out_complete_with_the_graders_metric_where_the_text_allows(
    mle_tree: Path,
) -> None:
    tasks = {t.spec.id: t for t in read_tree("mle-bench", mle_tree).tasks}
    dd = tasks["kaggle/denoising-dirty-documents"].spec
    assert dd.status == "complete" and dd.grading is not None
    assert (dd.grading.metric, dd.grading.id_columns, dd.grading.target_columns) == (
        "rmse", ["id"], ["value"])
    assert dd.modality is not None and dd.split is not None and dd.split.target_columns == ["value"]
    assert dd.leaderboard is not None and dd.leaderboard.rows == 162
    assert dd.leaderboard.metric == "rmse" and dd.leaderboard.higher_is_better is False
    titanic = tasks["kaggle/spaceship-titanic"]
    assert titanic.spec.status == "complete" and titanic.leaderboard is None
    assert any("Git LFS pointer" in w for w in titanic.warnings)
    aptos = tasks["kaggle/aptos2019-blindness-detection"].spec
    assert aptos.status == "complete" and aptos.grading is not None
    assert aptos.grading.submission_header == ["id_code", "diagnosis"]
    # the grader is named 'accuracy'; the description says the strings must match exactly
    text = tasks["kaggle/text-normalization-challenge-english-language"].spec
    assert text.grading is not None and text.grading.metric == "exact_match"
    assert any("means accuracy; the description reads as exact_match, which computes the "
               "same number" in n for n in text.provenance.notes)
    assert any("columns read from description_obfuscated.md" in n
               for n in aptos.provenance.notes)


def test_a_refinement_or_a_pick_among_an_ambiguous_names_metrics_confirms_the_metric(
    mle_tree: Path,
) -> None:
    tasks = {t.spec.id: t for t in read_tree("mle-bench", mle_tree).tasks}
    ai4code = tasks["kaggle/ai4code"].spec
    assert ai4code.grading is not None and ai4code.grading.metric == "kendall_tau_orders"
    assert any("confirmed by the description" in n for n in ai4code.provenance.notes)
    # Lyft's description shows the per-image TP / (TP + FP + FN) template in a garbled formula:
    # it does not settle box3d_map's form, so the import does not default it; the conventions
    # table (the page's rule, with its source) settles it, the import's doubt still named
    lyft = tasks["kaggle/3d-object-detection-for-autonomous-vehicles"]
    assert any("names a metric no registered id computes exactly" in w and
               "settled by tambench's conventions table" in w for w in lyft.warnings)
    g = lyft.spec.grading
    assert g is not None and (g.metric, g.metric_params) == ("box3d_map",
                                                             {"form": "image_precision"})
    alaska = tasks["kaggle/alaska2-image-steganalysis"].spec
    assert alaska.grading is not None and alaska.grading.metric == "weighted_auc_tpr"


def test_a_description_naming_a_metric_no_registered_id_computes_is_left_for_review(
    mle_tree: Path,
) -> None:
    task = next(t for t in read_tree("mle-bench", mle_tree).tasks
                if t.spec.id == "kaggle/odd-metric-challenge")
    assert task.spec.grading is None and task.spec.status == "incomplete"
    assert any("no registered id computes exactly" in w for w in task.warnings)


def test_a_grader_name_contradicted_by_the_description_is_reported_not_resolved(
    mle_tree: Path,
) -> None:
    tasks = {t.spec.id: t for t in read_tree("mle-bench", mle_tree).tasks}
    covid = tasks["kaggle/stanford-covid-vaccine"]
    said = [w for w in covid.warnings if "metric disagreement" in w]
    assert said and "multiclass_log_loss" in said[0] and "mcrmse" in said[0]
    # the conventions table (curated, with its source) settles it: the evaluation page's MCRMSE
    assert covid.spec.grading is not None and covid.spec.grading.metric == "mcrmse"
    assert "settled by tambench's conventions table" in said[0]
    seedlings = tasks["kaggle/plant-seedlings-classification"]
    assert seedlings.spec.status == "incomplete" and seedlings.spec.grading is None
    assert any("used for different metrics" in w for w in seedlings.warnings)
    ventilator = tasks["kaggle/ventilator-pressure-prediction"]
    assert ventilator.spec.grading is not None  # its config names dice-hausdorff-combo
    assert ventilator.spec.grading.metric == "mae"  # the table: MAE over u_out = 0
    assert any("dice_hausdorff_3d" in w and "mae" in w for w in ventilator.warnings)
    assert ventilator.leaderboard is not None and ventilator.leaderboard.format == "rank-score"


def test_ids_are_lower_case_slugs_and_bad_folders_are_failures_not_aborts(
    mle_tree: Path,
) -> None:
    read = read_tree("mle-bench", mle_tree)
    ids = {t.spec.id for t in read.tasks}
    assert "kaggle/ai4code" in ids and "kaggle/AI4Code" not in ids
    ai4code = next(t for t in read.tasks if t.spec.id == "kaggle/ai4code")
    assert any("lower-cased from MLE-bench's 'AI4Code'" in n for n in ai4code.spec.provenance.notes)
    assert any("could not be read" in w for w in ai4code.warnings)  # its board, not the task
    failed = {Path(f.where).name: f.message for f in read.failures}
    assert set(failed) == {"broken-yaml", "latin1-text"}
    assert "not valid YAML" in failed["broken-yaml"] and "not UTF-8" in failed["latin1-text"]
    assert any("vesuvius-challenge-ink-detection" in n for n in read.notes)
    assert no_canary(mle_tree)


def test_cli_import_writes_the_readable_tasks_and_exits_3_naming_the_failed_folders(
    capsys: pytest.CaptureFixture[str], mle_tree: Path, tmp_path: Path
) -> None:
    cat = tmp_path / "cat"
    rc = main(["tasks", "import", "mle-bench", str(mle_tree), "--catalogue", str(cat)])
    out, err = capsys.readouterr()
    assert rc == 3
    assert f"{len(MLE_COMPETITIONS)} new" in out and "2 failed" in out
    assert "failed:" in err and "broken-yaml" in err and "latin1-text" in err
    assert len(Catalogue(cat).ids()) == len(MLE_COMPETITIONS)
    assert [p for p in validate_catalogue(cat) if p.severity == "error"] == []
    board = read_leaderboard(cat / "kaggle" / "denoising-dirty-documents" / "leaderboard.csv")
    assert board.format == "rank-score" and len(board) == 162
    spec = load_taskspec(cat / "kaggle" / "denoising-dirty-documents" / "task.json")
    page = spec.provenance.pages[0]
    text = (cat / "kaggle" / "denoising-dirty-documents" / page.path).read_text(encoding="utf-8")
    assert text.startswith("---\nkind: overview\n") and f"sha256: {page.sha256}" in text
    assert no_canary(mle_tree)


def test_mle_bench_yaml_with_python_tags_fails_that_folder_without_running_anything(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "competitions" / "evil"
    folder.mkdir(parents=True)
    canary = tmp_path / "CANARY_RAN"
    (folder / "config.yaml").write_text(
        f"id: evil\nname: !!python/object/apply:os.system ['touch {canary}']\n",
        encoding="utf-8")
    read = read_tree("mle-bench", tmp_path / "competitions")
    assert "not valid YAML" in read.failures[0].message and not canary.exists()


def test_mle_bench_config_id_must_match_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "competitions" / "a"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text("id: b\nname: B\n", encoding="utf-8")
    read = read_tree("mle-bench", tmp_path / "competitions")
    assert "differs from its folder" in read.failures[0].message


def test_mle_bench_label_listed_twice_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "mlebench" / "competitions" / "a"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text("id: a\nname: A\n", encoding="utf-8")
    splits = tmp_path / "experiments" / "splits"
    splits.mkdir(parents=True)
    (splits / "low.txt").write_text("a\n", encoding="utf-8")
    (splits / "high.txt").write_text("a\n", encoding="utf-8")
    with pytest.raises(ImportLayoutError, match="already labelled 'low'"):
        read_tree("mle-bench", tmp_path)


# --- merging into an existing catalogue ---------------------------------------------------


@pytest.fixture
def bundled_copy(tmp_path: Path) -> Path:
    from tambench.tasks.catalogue import bundled_catalogue_dir

    target = tmp_path / "bundled"
    shutil.copytree(bundled_catalogue_dir(), target)
    return target


def test_merge_fills_stubs_keeps_curated_values_and_lists_conflicts(
    mle_tree: Path, bundled_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # exact_match comes from the description, not from the conventions table
    from tambench.tasks.importers.conventions import CONVENTIONS

    monkeypatch.delitem(CONVENTIONS, "text-normalization-challenge-english-language")
    stub = bundled_copy / "kaggle" / "aptos2019-blindness-detection" / "task.json"
    save_taskspec(load_taskspec(stub).model_copy(  # as the catalogue's stubs were
        update={"grading": None, "split": None, "status": "incomplete"}), stub)
    before = {e.id: e.spec for e in Catalogue(bundled_copy)}
    report = write_imported(read_tree("mle-bench", mle_tree), bundled_copy)
    after = {e.id: e.spec for e in Catalogue(bundled_copy)}
    # AI4Code merged into kaggle/ai4code, no duplicate; the one competition the paper lacks is new
    assert set(after) - set(before) == {"kaggle/odd-metric-challenge"}
    assert report.written == ["kaggle/odd-metric-challenge"]
    for tid, spec in before.items():
        if spec.status == "complete":
            assert after[tid].status == "complete", tid
            assert after[tid].grading == spec.grading, tid
    # MLE-bench's grader name says accuracy, the description says the strings must match
    # exactly: the import reads exact_match, as the curated entry has it (no conflict)
    text_norm = "kaggle/text-normalization-challenge-english-language"
    assert not [c for c in report.conflicts if c.task == text_norm and c.field == "grading"]
    stanford = next(c for c in report.conflicts if c.task == "kaggle/stanford-covid-vaccine")
    assert stanford.field == "title" and stanford.imported == "Stanford Covid Vaccine"
    aptos = after["kaggle/aptos2019-blindness-detection"]
    assert before["kaggle/aptos2019-blindness-detection"].grading is None
    assert aptos.status == "complete" and aptos.grading is not None
    assert "grading" in report.merged["kaggle/aptos2019-blindness-detection"]
    assert aptos.modality == before["kaggle/aptos2019-blindness-detection"].modality
    assert after["kaggle/ai4code"].reference_tiers.get("mle-bench") == "medium"


def test_replace_applies_conflicting_values_and_lists_each_change(
    mle_tree: Path, bundled_copy: Path
) -> None:
    report = write_imported(read_tree("mle-bench", mle_tree), bundled_copy,
                            on_existing="replace")
    aptos = "kaggle/aptos2019-blindness-detection"
    spec = load_taskspec(bundled_copy / aptos / "task.json")
    assert spec.modality is not None and spec.modality.value == "Tabular"  # the import's
    change = next(c for c in report.replaced if c.task == aptos and c.field == "modality")
    assert change.existing == "Image"
    text_norm = "kaggle/text-normalization-challenge-english-language"
    spec = load_taskspec(bundled_copy / text_norm / "task.json")
    assert spec.grading is not None and spec.grading.metric == "exact_match"
    assert spec.status == "complete"


def test_replace_never_makes_a_complete_entry_incomplete(tmp_path: Path) -> None:
    from tambench.schema.taskspec import GradingSpec, Modality, TaskSpec
    from tambench.tasks.merge import merge_specs

    curated = TaskSpec(id="kaggle/x", platform="kaggle", modality=Modality.TEXT,
                       grading=GradingSpec(metric="rmse", id_columns=["id"],
                                           target_columns=["y"], submission_header=["id", "y"]))
    worse = TaskSpec(id="kaggle/x", platform="kaggle", status="incomplete",
                     modality=Modality.IMAGE, grading=GradingSpec(metric="mae"))
    result = merge_specs(curated, worse, replace=True)
    assert result.spec == curated.model_copy(update={"status": "complete"})
    assert result.replaced == []
    fields = {c.field for c in result.conflicts}
    assert {"grading", "modality", "status"} <= fields


def test_merge_fills_only_empty_fields_and_treats_a_slug_title_as_empty() -> None:
    from tambench.schema.taskspec import Modality, TaskSpec
    from tambench.tasks.merge import merge_specs

    stub = TaskSpec(id="kaggle/some-comp", platform="kaggle", status="incomplete",
                    title="some-comp", modality=Modality.TEXT, field="finance",
                    reference_tiers={"tam-bench": "easy"})
    imported = TaskSpec(id="kaggle/some-comp", platform="kaggle", status="incomplete",
                        title="Some Competition", modality=Modality.TEXT, field="retail",
                        url="https://www.kaggle.com/competitions/some-comp",
                        reference_tiers={"tam-bench": "hard", "mle-bench": "low"})
    result = merge_specs(stub, imported)
    assert result.spec.title == "Some Competition" and result.spec.field == "finance"
    assert result.spec.url == imported.url
    assert result.spec.reference_tiers == {"tam-bench": "easy", "mle-bench": "low"}
    assert sorted(result.filled) == ["reference_tiers.mle-bench", "title", "url"]
    assert sorted(c.field for c in result.conflicts) == ["field", "reference_tiers.tam-bench"]


def test_skip_leaves_existing_entries_untouched(mle_tree: Path, bundled_copy: Path) -> None:
    task_file = bundled_copy / "kaggle" / "stanford-covid-vaccine" / "task.json"
    before = task_file.read_bytes()
    report = write_imported(read_tree("mle-bench", mle_tree), bundled_copy, on_existing="skip")
    assert "kaggle/stanford-covid-vaccine" in report.skipped
    assert task_file.read_bytes() == before


def test_cli_import_refuses_to_write_into_the_installed_catalogue_by_default(
    capsys: pytest.CaptureFixture[str], mle_tree: Path, monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.delenv("TAMBENCH_CATALOGUE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["tasks", "import", "mle-bench", str(mle_tree)]) == 2
    assert "never writes into the installed package's catalogue" in flat(capsys.readouterr().err)
    monkeypatch.setenv("TAMBENCH_CATALOGUE", str(tmp_path / "configured"))
    assert main(["tasks", "import", "mle-bench", str(mle_tree)]) == 3  # two broken folders
    assert len(Catalogue(tmp_path / "configured").ids()) == len(MLE_COMPETITIONS)


def test_cli_import_rejects_unknown_importers_and_merge_modes(
    capsys: pytest.CaptureFixture[str], mle_tree: Path, tmp_path: Path
) -> None:
    cat = str(tmp_path / "cat")
    assert main(["tasks", "import", "nope", str(mle_tree), "--catalogue", cat]) == 2
    assert "valid: mle-bench, mle-dojo, tam-lite" in flat(capsys.readouterr().err)
    assert main(["tasks", "import", "mle-bench", str(mle_tree), "--catalogue", cat,
                 "--on-existing", "overwrite"]) == 2


BREEDS = ["affenpinscher", "afghan_hound", "airedale", "basenji", "yorkshire_terrier"]
BREED_DESCRIPTION = """# Dog Breed Identification

## Evaluation

Submissions are evaluated on Multi Class Log Loss between the predicted probability and the
observed target.

### Submission File

For each image in the test set, you must predict a probability for each of the different
breeds. The file should contain a header and have the following format:
```
id,affenpinscher,afghan_hound,..,yorkshire_terrier
000621fb3cbb32d8935728e48679680e,0.0083,0.0,...,0.0083
etc.
```
"""


def _breed_folder(root: Path, class_file: str) -> Path:
    folder = root / "competitions" / "dog-breed-identification"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(_config("dog-breed-identification",
                                                "multi-class-log-loss"), encoding="utf-8")
    (folder / "description.md").write_text(BREED_DESCRIPTION, encoding="utf-8")
    (folder / "dogs.py").write_text(CANARY_CODE + class_file, encoding="utf-8")
    (folder / "grade.py").write_text(CANARY_CODE, encoding="utf-8")
    return folder


def test_an_elided_header_is_completed_from_the_class_list_in_the_folder_read_as_data(
    tmp_path: Path,
) -> None:
    lines = "\n".join(BREEDS)
    folder = _breed_folder(tmp_path, f'\n_dogs_str = """\n{lines}\n"""\nDOGS_LIST = _dogs_str.split()\n')
    read = read_tree("mle-bench", tmp_path / "competitions")
    (task,) = read.tasks
    g = task.spec.grading
    assert g is not None and g.metric == "multiclass_log_loss"
    assert g.id_columns == ["id"] and g.target_columns == BREEDS
    assert g.submission_header == ["id", *BREEDS]
    assert any("dogs.py" in n for n in task.spec.provenance.notes)
    assert not (folder / "CANARY_RAN").exists()


@pytest.mark.parametrize("class_file", [
    # the visible names are not the list's first names
    "CLASSES = ['afghan_hound', 'affenpinscher', 'airedale', 'yorkshire_terrier']\n",
    # the last visible name is not the list's last
    "CLASSES = ['affenpinscher', 'afghan_hound', 'airedale', 'basenji']\n",
    # two different lists both fit: nothing is chosen
    "A = ['affenpinscher', 'afghan_hound', 'x', 'yorkshire_terrier']\n"
    "B = ['affenpinscher', 'afghan_hound', 'y', 'yorkshire_terrier']\n",
    # names built by code are not read (nothing runs)
    "CLASSES = sorted(['affenpinscher', 'afghan_hound', 'yorkshire_terrier'])\n",
], ids=["order", "last-name", "two-lists", "computed"])
def test_a_class_list_that_does_not_agree_with_the_visible_columns_completes_nothing(
    tmp_path: Path, class_file: str,
) -> None:
    _breed_folder(tmp_path, "\n" + class_file)
    (task,) = read_tree("mle-bench", tmp_path / "competitions").tasks
    g = task.spec.grading
    assert g is not None and g.submission_header == [] and task.spec.status == "incomplete"
