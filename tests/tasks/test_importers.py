"""Importers on realistic layouts built from ../shared/data; no code from the tree ever runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core.leaderboard import read_leaderboard
from tambench.errors import ImportLayoutError
from tambench.schema.io import load_taskspec
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


def no_canary(root: Path) -> bool:
    return not any(root.rglob("CANARY_RAN"))


def test_tam_lite_import_reads_all_18_cells_with_release_tiers(
    tmp_path: Path, tam_lite_dir: Path
) -> None:
    release = build_release(tmp_path / "release", tam_lite_dir)
    tasks = read_tree("tam-lite", release)
    assert sorted(t.spec.id for t in tasks) == sorted(lite_task_id(s) for s in LITE_FACTS)
    by_id = {t.spec.id: t for t in tasks}
    covid = by_id["kaggle/stanford-covid-vaccine"].spec
    assert covid.reference_tiers == {"tam-bench": "hard"}
    assert covid.modality is not None and covid.modality.value == "Tabular"
    assert covid.status == "incomplete" and covid.provenance.mapper == "importer:tam-lite"
    plant = by_id["kaggle/planttraits2024"].spec
    assert plant.modality is not None and plant.modality.value == "Multimodal"
    assert plant.metric.metric_name  # the .txt file's JSON was read
    ind = by_id["biendata/ind"].spec
    assert ind.title == "IND" and ind.reference_tiers == {"tam-bench": "easy"}
    assert by_id["kaggle/binary-prediction-of-poisonous-mushrooms"].leaderboard is not None
    assert any("not run: ScoreRank.py, grade.py" in n for n in covid.provenance.notes)
    assert no_canary(release)


def test_tam_lite_import_writes_a_valid_catalogue_with_normalised_leaderboards(
    tmp_path: Path, tam_lite_dir: Path
) -> None:
    release = build_release(tmp_path / "release", tam_lite_dir)
    cat_root = tmp_path / "cat"
    report = write_imported(read_tree("tam-lite", release), cat_root)
    assert len(report.written) == 18 and not report.skipped
    assert validate_catalogue(cat_root) == []
    lb = read_leaderboard(cat_root / "kaggle" / "mlsp-2013-birds" / "leaderboard.csv")
    assert lb.format == "normalised" and len(lb) == 81
    spec = load_taskspec(cat_root / "kaggle" / "mlsp-2013-birds" / "task.json")
    assert spec.n_teams == 81
    assert no_canary(release)


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        ("no_input", "has no input/ folder"),
        ("two_inputs", "expected exactly one .json or .txt task file"),
        ("not_json", "is not JSON"),
        ("bad_tier", "expected a difficulty folder"),
        ("unnamed", "not named after its competition"),
        ("unknown_field", "unknown field"),
    ],
)
def test_tam_lite_layout_problems_name_the_file(
    tmp_path: Path, tam_lite_dir: Path, breakage: str, message: str
) -> None:
    cell = tmp_path / "r" / "Text" / "easy"
    (cell / "input").mkdir(parents=True)
    schema = (tam_lite_dir / "lmsys-chatbot-arena" / "schema.json").read_text(encoding="utf-8")
    target = cell / "input" / "lmsys-chatbot-arena.json"
    target.write_text(schema, encoding="utf-8")
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
    with pytest.raises(ImportLayoutError, match=message):
        read_tree("tam-lite", tmp_path / "r")


def test_tam_lite_import_of_a_tree_without_cells_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "picture").mkdir()
    with pytest.raises(ImportLayoutError, match="release layout"):
        read_tree("tam-lite", tmp_path)


MLE_COMPETITIONS = {
    # id: (grader name, complexity, leaderboard source)
    "denoising-dirty-documents": ("root_mean_squared_error", "low", "tam-lite"),
    "spaceship-titanic": ("accuracy", "low", "lfs"),
    "stanford-covid-vaccine": ("mcrmse-special", "high", "tam-lite"),
    "tensorflow-speech-recognition-challenge": ("accuracy", "medium", "tam-lite"),
    "leaf-classification": ("multi-class-log-loss", "low", "none"),
}


def build_mle_bench(root: Path, shared_dir: Path, tam_lite_dir: Path) -> Path:
    """MLE-bench's layout with real descriptions and leaderboards, and canary code files."""
    comps = root / "mlebench" / "competitions"
    for cid, (grader, _, lb_source) in MLE_COMPETITIONS.items():
        folder = comps / cid
        folder.mkdir(parents=True)
        (folder / "config.yaml").write_text(
            f"id: {cid}\nname: {cid.replace('-', ' ').title()}\ncompetition_type: simple\n"
            f"awards_medals: false\nprizes: null\n"
            f"description: mlebench/competitions/{cid}/description.md\n\n"
            f"dataset:\n  answers: {cid}/prepared/private/test.csv\n"
            f"  sample_submission: {cid}/prepared/public/sample_submission.csv\n\n"
            f"grader:\n  name: {grader}\n  grade_fn: mlebench.competitions.{cid}.grade:grade\n\n"
            f"preparer: mlebench.competitions.{cid}.prepare:prepare\n",
            encoding="utf-8",
        )
        shutil.copy(shared_dir / "data" / "competition-descriptions" / f"{cid}.md",
                    folder / "description.md")
        if lb_source == "tam-lite":
            shutil.copy(tam_lite_dir / cid / "leaderboard.csv", folder / "leaderboard.csv")
        elif lb_source == "lfs":
            (folder / "leaderboard.csv").write_text(
                "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64
                + "\nsize 125841\n", encoding="utf-8")
        for script in ("grade.py", "prepare.py", "__init__.py"):
            (folder / script).write_text(CANARY_CODE, encoding="utf-8")
    splits = root / "experiments" / "splits"
    splits.mkdir(parents=True)
    for label in ("low", "medium", "high"):
        ids = [c for c, (_, lab, _) in MLE_COMPETITIONS.items() if lab == label]
        if label == "high":
            ids.append("vesuvius-challenge-ink-detection")  # labelled but no folder
        (splits / f"{label}.txt").write_text("\n".join(sorted(ids)) + "\n", encoding="utf-8")
    return root


def test_mle_bench_import_keeps_complexity_labels_pages_and_metrics(
    tmp_path: Path, shared_dir: Path, tam_lite_dir: Path
) -> None:
    tree = build_mle_bench(tmp_path / "mle-bench", shared_dir, tam_lite_dir)
    tasks = {t.spec.id: t for t in read_tree("mle-bench", tree)}
    assert sorted(tasks) == sorted(f"kaggle/{c}" for c in MLE_COMPETITIONS)
    dd = tasks["kaggle/denoising-dirty-documents"]
    assert dd.spec.reference_tiers == {"mle-bench": "low"}
    assert dd.spec.grading is not None and dd.spec.grading.metric == "rmse"
    assert dd.leaderboard is not None and len(dd.leaderboard) == 162
    assert dd.pages[0].name == "description.md" and "Optical Character" in dd.pages[0].text
    covid = tasks["kaggle/stanford-covid-vaccine"]
    assert covid.spec.grading is None and "grading" in covid.spec.provenance.unfilled
    assert any("mcrmse-special" in w for w in covid.warnings)
    titanic = tasks["kaggle/spaceship-titanic"]
    assert titanic.leaderboard is None and any("Git LFS pointer" in w for w in titanic.warnings)
    assert titanic.spec.grading is not None and titanic.spec.grading.metric == "accuracy"
    all_warnings = [w for t in tasks.values() for w in t.warnings]
    assert any("vesuvius-challenge-ink-detection" in w for w in all_warnings)
    assert no_canary(tree)


def test_mle_bench_import_writes_pages_with_provenance_and_validates(
    tmp_path: Path, shared_dir: Path, tam_lite_dir: Path
) -> None:
    tree = build_mle_bench(tmp_path / "mle-bench", shared_dir, tam_lite_dir)
    cat_root = tmp_path / "cat"
    write_imported(read_tree("mle-bench", tree), cat_root)
    folder = cat_root / "kaggle" / "denoising-dirty-documents"
    spec = load_taskspec(folder / "task.json")
    page = spec.provenance.pages[0]
    assert page.path == "pages/description.md" and page.kind == "overview"
    text = (folder / page.path).read_text(encoding="utf-8")
    assert text.startswith("---\nkind: overview\n") and f"sha256: {page.sha256}" in text
    assert [p.message for p in validate_catalogue(cat_root) if p.severity == "error"] == []
    assert no_canary(tree)


def test_mle_bench_yaml_with_python_tags_is_refused_without_running_anything(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "competitions" / "evil"
    folder.mkdir(parents=True)
    canary = tmp_path / "CANARY_RAN"
    (folder / "config.yaml").write_text(
        f"id: evil\nname: !!python/object/apply:os.system ['touch {canary}']\n",
        encoding="utf-8")
    with pytest.raises(ImportLayoutError, match="not valid YAML"):
        read_tree("mle-bench", tmp_path)
    assert not canary.exists()


def test_mle_bench_config_id_must_match_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "competitions" / "a"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text("id: b\nname: B\n", encoding="utf-8")
    with pytest.raises(ImportLayoutError, match="differs from its folder"):
        read_tree("mle-bench", tmp_path)


def test_mle_bench_label_listed_twice_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "competitions" / "a"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text("id: a\nname: A\n", encoding="utf-8")
    splits = tmp_path / "experiments" / "splits"
    splits.mkdir(parents=True)
    (splits / "low.txt").write_text("a\n", encoding="utf-8")
    (splits / "high.txt").write_text("a\n", encoding="utf-8")
    with pytest.raises(ImportLayoutError, match="already labelled 'low'"):
        read_tree("mle-bench", tmp_path)


def test_existing_entries_are_skipped_merged_or_overwritten_as_asked(
    tmp_path: Path, shared_dir: Path, tam_lite_dir: Path
) -> None:
    release = build_release(tmp_path / "release", tam_lite_dir)
    tree = build_mle_bench(tmp_path / "mle-bench", shared_dir, tam_lite_dir)
    cat_root = tmp_path / "cat"
    write_imported(read_tree("tam-lite", release), cat_root)
    task_file = cat_root / "kaggle" / "stanford-covid-vaccine" / "task.json"
    before = task_file.read_text(encoding="utf-8")
    skipped = write_imported(read_tree("mle-bench", tree), cat_root)
    assert "kaggle/stanford-covid-vaccine" in skipped.skipped
    assert task_file.read_text(encoding="utf-8") == before
    merged = write_imported(read_tree("mle-bench", tree), cat_root, on_existing="merge")
    assert "kaggle/stanford-covid-vaccine" in merged.merged
    spec = load_taskspec(task_file)
    assert spec.reference_tiers == {"tam-bench": "hard", "mle-bench": "high"}
    assert spec.provenance.mapper == "importer:tam-lite"  # nothing else changed
    write_imported(read_tree("mle-bench", tree), cat_root, on_existing="overwrite")
    assert load_taskspec(task_file).provenance.mapper == "importer:mle-bench"


def test_cli_import_then_validate_and_show(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tam_lite_dir: Path
) -> None:
    release = build_release(tmp_path / "release", tam_lite_dir)
    cat_root = tmp_path / "cat"
    assert main(["tasks", "import", "tam-lite", str(release), "--catalogue", str(cat_root),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["written"]) == 18
    assert main(["tasks", "validate", "--catalogue", str(cat_root)]) == 0
    assert "18 entries, 0 error(s)" in capsys.readouterr().out
    assert len(Catalogue(cat_root).ids()) == 18
    assert main(["tasks", "import", "nope", str(release), "--catalogue", str(cat_root)]) == 2
