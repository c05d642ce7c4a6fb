"""``prepare --like mle-bench`` writes MLE-bench's files: one test per split kind on generated
downloads.

Two kinds of expectation. The digests below are of the id column of MLE-bench's own files, in
their order: they were obtained by running MLE-bench's ``prepare.py`` of each competition
(openai/mle-bench at 783b15a, in a separate environment) on the same generated downloads
(:mod:`tests.grading.mlebench_case`). The other tests build the expected files here, from
scikit-learn's ``train_test_split`` and pandas, independently of the recipes' code, and compare
bytes."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.cli.main import main
from tambench.core.layout import MLE_FIXTURE_FILE
from tambench.errors import SplitError
from tambench.splits.fixture import FIXTURE_FILE, RawFixture, make_download
from tambench.splits.like_mlebench import prepare_like_mle_bench
from tambench.splits.mlebench_recipe import load_recipes
from tambench.splits.unpack import unpack_nested
from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir
from tests.grading.mlebench_case import CACTUS, SPACESHIP, write_cactus_raw, write_raw

CATALOGUE = Catalogue(bundled_catalogue_dir())
#: sha256 of "\n".join(ids) of MLE-bench's private/test.csv and public/train.csv.
SPACESHIP_TEST = "f33ebe72bff08e4032f0e89413306f3db17cf9ad900520ffc945f100a378a64e"
SPACESHIP_TRAIN = "37038fdc67e999bfc320a0175552f709a9b3b0e69705c421e183bbfc0dde24ad"
CACTUS_TEST = "919ba7a24bf651ce5271882b09dd1b94e632acec757eba08ddc5a87a662eaacd"
CACTUS_TRAIN = "f6e1712d59ec2d0f967e891e6f7816b05d59fc2901f6790252357f3e77751dc6"
#: sha256 of "\n".join(has_cactus) of MLE-bench's private/test.csv.
CACTUS_ANSWERS = "e0b0626e0542cbaf865f5e9cd1f5e856a517182ac2895576c1b7f18f19573796"


def _column(path: Path, name: str) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [row[name] for row in csv.DictReader(fh)]


def _digest(values: list[str]) -> str:
    return hashlib.sha256("\n".join(values).encode()).hexdigest()


def _prepare(task: str, raw: Path, data: Path, *extra: str) -> int:
    return main(["prepare", task, "--raw", str(raw), "--data-dir", str(data),
                 "--like", "mle-bench", *extra])


def _generated(slug: str, tmp_path: Path) -> Path:
    """The task's generated download (its raw_fixture.json, else the one that checks only
    MLE-bench's split), unpacked: the raw folder."""
    entry = bundled_catalogue_dir() / "kaggle" / slug
    path = entry / FIXTURE_FILE if (entry / FIXTURE_FILE).is_file() else entry / MLE_FIXTURE_FILE
    fixture = RawFixture.model_validate_json(path.read_text())
    download = make_download(fixture, tmp_path / "download.zip")
    raw = tmp_path / "raw"
    with zipfile.ZipFile(download) as zf:
        zf.extractall(raw)
    return unpack_nested(raw, tmp_path)


def _made(slug: str, raw: Path, tmp_path: Path) -> Path:
    spec = CATALOGUE.get(f"kaggle/{slug}").spec
    return prepare_like_mle_bench(spec, raw, tmp_path / "data")


def _csv(frame: pd.DataFrame, sep: str = ",") -> str:
    return frame.to_csv(index=False, sep=sep, lineterminator="\n")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_a_table_split_by_a_share_is_mle_benchs(tmp_path: Path) -> None:
    write_raw(tmp_path / "downloads")
    data = tmp_path / "data"
    raw = tmp_path / "downloads" / SPACESHIP / "raw"
    assert _prepare(f"kaggle/{SPACESHIP}", raw, data) == 0
    task = data / "kaggle" / SPACESHIP
    test_ids = _column(task / "private" / "test.csv", "PassengerId")
    assert len(test_ids) == 40 and _digest(test_ids) == SPACESHIP_TEST
    assert _digest(_column(task / "public" / "train.csv", "PassengerId")) == SPACESHIP_TRAIN
    # byte for byte what train_test_split and pandas give
    frame = pd.read_csv(raw / "train.csv")
    train, test = train_test_split(frame, test_size=0.1, random_state=0)
    assert _text(task / "public" / "train.csv") == _csv(train)
    assert _text(task / "private" / "test.csv") == _csv(test)
    assert _text(task / "public" / "test.csv") == _csv(test.drop(columns=["Transported"]))
    sample = test[["PassengerId", "Transported"]].assign(Transported=False)
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    report = json.loads((task / "split_report.json").read_text())
    assert report["like"] == "mle-bench" and report["test_size"] == 0.1
    assert oct(os.stat(task / "private").st_mode & 0o777) == "0o700"
    # graded from there: the answers' own rows are a perfect submission
    sub = tmp_path / "submission.csv"
    sub.write_text("PassengerId,Transported\n" + "".join(
        f"{i},{t}\n" for i, t in zip(test_ids, _column(task / "private" / "test.csv",
                                                       "Transported"), strict=True)))
    assert main(["grade", str(sub), "--task", SPACESHIP, "--data-dir", str(data)]) == 0


def test_a_table_whose_rows_carry_files_is_mle_benchs(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    write_cactus_raw(raw)
    task = _made(CACTUS, raw, tmp_path)
    test_ids = _column(task / "private" / "test.csv", "id")
    train_ids = _column(task / "public" / "train.csv", "id")
    assert (len(train_ids), len(test_ids)) == (202, 48)  # test_size 0.19 of 250
    assert _digest(test_ids) == CACTUS_TEST and _digest(train_ids) == CACTUS_TRAIN
    assert _digest(_column(task / "private" / "test.csv", "has_cactus")) == CACTUS_ANSWERS
    assert _column(task / "public" / "sample_submission.csv", "has_cactus") == ["0.5"] * 48
    # the images follow their rows (MLE-bench zips the two folders; the files are the same)
    assert sorted(os.listdir(task / "public" / "test" / "train")) == sorted(test_ids)
    assert sorted(os.listdir(task / "public" / "train" / "train")) == sorted(train_ids)
    manifest = _column(task / "public" / "files_manifest.csv", "id")
    # training files in the table's order, then the test files in the public test order
    assert sorted(manifest[:202]) == sorted(train_ids) and manifest[202:] == test_ids


def test_a_train_share_and_a_sample_of_chosen_columns(tmp_path: Path) -> None:
    raw = _generated("paddy-disease-classification", tmp_path)
    task = _made("paddy-disease-classification", raw, tmp_path)
    frame = pd.read_csv(raw / "train.csv")
    train, test = train_test_split(frame, train_size=0.75, random_state=0)
    assert _text(task / "public" / "train.csv") == _csv(train)
    assert _text(task / "private" / "test.csv") == _csv(test)
    sample = test[["image_id", "label"]].assign(label="")
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    assert not (task / "public" / "test.csv").exists()  # MLE-bench writes none for paddy


def test_a_share_counted_from_the_raw_files_keeps_the_tables_order(tmp_path: Path) -> None:
    raw = _generated("histopathologic-cancer-detection", tmp_path)
    (raw / "test").mkdir()
    for i in range(20):  # the competition's own test images size the share
        (raw / "test" / f"t{i}.tif").write_bytes(b"tif")
    task = _made("histopathologic-cancer-detection", raw, tmp_path)
    frame = pd.read_csv(raw / "train_labels.csv")
    _, test_ids = train_test_split(frame["id"], test_size=20 / (len(frame) + 20), random_state=0)
    test = frame[frame["id"].isin(test_ids)]
    assert len(test) == 15  # ceil(60 * 0.25)
    assert _text(task / "private" / "answers.csv") == _csv(test)
    assert _text(task / "public" / "train_labels.csv") == _csv(frame[~frame.index.isin(test.index)])
    assert _text(task / "public" / "sample_submission.csv") == _csv(test.assign(label=0))
    for name in os.listdir(raw / "test"):
        os.unlink(raw / "test" / name)
    with pytest.raises(SplitError, match="the raw folder has none"):
        _made("histopathologic-cancer-detection", raw, tmp_path)


def test_one_hot_answers_with_seeded_and_constant_samples(tmp_path: Path) -> None:
    raw = _generated("spooky-author-identification", tmp_path)
    task = _made("spooky-author-identification", raw, tmp_path)
    frame = pd.read_csv(raw / "train.csv")
    _, test = train_test_split(frame, test_size=0.1, random_state=0)
    answers = pd.DataFrame({"id": test["id"]})
    for author in ("EAP", "HPL", "MWS"):
        answers[author] = (test["author"] == author).astype(int)
    assert _text(task / "private" / "test.csv") == _csv(answers)
    assert _text(task / "public" / "test.csv") == _csv(test.drop(columns=["author"]))
    sample = _column(task / "public" / "sample_submission.csv", "HPL")
    assert sample == ["0.287808366106543"] * len(test)
    # seeded values: petfinder's sample draws its scores from NumPy's generator seeded 0
    raw = _generated("petfinder-pawpularity-score", tmp_path / "pet")
    task = _made("petfinder-pawpularity-score", raw, tmp_path / "pet")
    _, test = train_test_split(pd.read_csv(raw / "train.csv"), test_size=0.1, random_state=0)
    scores = np.random.default_rng(0).uniform(1, 100, len(test)).round(2)
    expected = test[["Id"]].assign(Pawpularity=scores)
    assert _text(task / "public" / "sample_submission.csv") == _csv(expected)


def test_a_fixed_test_count_with_renumbered_ids(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rng = np.random.default_rng(5)
    n = 100_040  # MLE-bench holds out exactly 100,000 rows
    frame = pd.DataFrame({"id": np.arange(n), "f_00": rng.normal(size=n).round(6),
                          "target": rng.integers(0, 2, n)})
    frame.to_csv(raw / "train.csv", index=False)
    task = _made("tabular-playground-series-may-2022", raw, tmp_path)
    train, test = train_test_split(frame, test_size=100_000, random_state=0)
    train = train.assign(id=np.arange(40))
    test = test.assign(id=np.arange(40, n))
    assert _text(task / "public" / "train.csv") == _csv(train)
    assert _text(task / "private" / "test.csv") == _csv(test)
    assert _text(task / "private" / "gold_submission.csv") == _csv(test[["id", "target"]])
    with pytest.raises(SplitError, match="should be either positive and smaller"):
        _made("tabular-playground-series-may-2022", _generated(
            "tabular-playground-series-may-2022", tmp_path / "small"), tmp_path / "small")


def test_sorted_files_and_a_table_filtered_by_the_training_ids(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    (raw / "competition_data").mkdir(parents=True)
    ids = [f"{i * 7919 % 1000:03d}ab" for i in range(40)]
    masks = ["" if i % 3 else f"{i} 5" for i in range(40)]
    pd.DataFrame({"id": ids, "rle_mask": masks}).to_csv(
        raw / "competition_data" / "train.csv", index=False)
    pd.DataFrame({"id": ids[::-1] + ["zz"], "z": range(41)}).to_csv(raw / "depths.csv",
                                                                     index=False)
    images = raw / "competition_data" / "train" / "images"  # the rows' images follow them
    images.mkdir(parents=True)
    for i in ids:
        (images / f"{i}.png").write_bytes(b"\x89PNG " + i.encode())
    task = _made("tgs-salt-identification-challenge", raw, tmp_path)
    frame = pd.read_csv(raw / "competition_data" / "train.csv").fillna("")
    train, test = train_test_split(frame, test_size=0.25, random_state=0)
    assert _text(task / "public" / "train.csv") == _csv(train.sort_values(by="id"))
    assert _text(task / "private" / "test.csv") == _csv(test.sort_values(by="id"))
    sample = test.drop(columns=["rle_mask"]).assign(rle_mask="1 1").sort_values(by="id")
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    depths = pd.read_csv(raw / "depths.csv")
    kept = depths[depths["id"].isin(train["id"])].sort_values(by="id")
    assert _text(task / "public" / "depths.csv") == _csv(kept) and len(kept) == 30


def test_tab_separated_files_zipped_as_mle_bench_zips_them(tmp_path: Path) -> None:
    raw = _generated("movie-review-sentiment-analysis-kernels-only", tmp_path)
    task = _made("movie-review-sentiment-analysis-kernels-only", raw, tmp_path)
    frame = pd.read_csv(raw / "train.tsv", sep="\t")
    train, test = train_test_split(frame, test_size=0.3, random_state=0)
    with zipfile.ZipFile(task / "public" / "train.tsv.zip") as zf:
        assert zf.namelist() == ["train.tsv"]
        assert zf.read("train.tsv").decode() == _csv(train, sep="\t")
    with zipfile.ZipFile(task / "public" / "test.tsv.zip") as zf:
        public_test = pd.read_csv(io.BytesIO(zf.read("test.tsv")), sep="\t")
    assert list(public_test.columns) == ["PhraseId", "SentenceId", "Phrase"]
    assert _text(task / "private" / "answers.csv") == _csv(test)
    assert not (task / "public" / "train.tsv").exists()


@pytest.mark.filterwarnings("ignore:.*float_precision")
def test_groups_split_once_each_side_keeping_its_groups_rows(tmp_path: Path) -> None:
    raw = _generated("hms-harmful-brain-activity-classification", tmp_path / "hms")
    shuffled = pd.read_csv(raw / "train.csv").sample(frac=1, random_state=5)
    shuffled.to_csv(raw / "train.csv", index=False)  # unique() order is not sorted order
    task = _made("hms-harmful-brain-activity-classification", raw, tmp_path / "hms")
    frame = pd.read_csv(raw / "train.csv")
    kept, held = train_test_split(frame["spectrogram_id"].unique(), test_size=0.1,
                                  random_state=0)
    train = frame[frame["spectrogram_id"].isin(kept)]
    test = frame[frame["spectrogram_id"].isin(held)]
    assert _text(task / "public" / "train.csv") == _csv(train)
    assert _text(task / "private" / "test.csv") == _csv(test)
    votes = [c for c in frame.columns if c.endswith("_vote")]
    sample = test[["eeg_id", *votes]].assign(**{c: 1 / 6 for c in votes})
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)

    raw = _generated("ventilator-pressure-prediction", tmp_path / "vent")
    pd.read_csv(raw / "train.csv").sample(frac=1, random_state=5).to_csv(
        raw / "train.csv", index=False)
    task = _made("ventilator-pressure-prediction", raw, tmp_path / "vent")
    frame = pd.read_csv(raw / "train.csv", float_precision="round_trip")
    groups = [g for _, g in frame.groupby("breath_id")]  # sorted by breath_id
    kept, held = train_test_split(groups, test_size=0.1, random_state=0)
    train, test = pd.concat(kept), pd.concat(held)
    train["id"], test["id"] = range(1, len(train) + 1), range(1, len(test) + 1)
    assert _text(task / "public" / "train.csv") == train.to_csv(
        index=False, float_format="%.10g")
    assert _text(task / "private" / "test.csv") == test.to_csv(
        index=False, float_format="%.10g")
    assert set(train["breath_id"]).isdisjoint(test["breath_id"]) and len(held) >= 1


def test_groups_renumbered_per_side_with_joined_ids_quoted(tmp_path: Path) -> None:
    raw = _generated("text-normalization-challenge-english-language", tmp_path)
    pd.read_csv(raw / "en_train.csv").sample(frac=1, random_state=5).to_csv(
        raw / "en_train.csv", index=False)
    task = _made("text-normalization-challenge-english-language", raw, tmp_path)
    frame = pd.read_csv(raw / "en_train.csv")
    kept, held = train_test_split(frame["sentence_id"].unique(), test_size=0.1, random_state=0)
    sides = []
    for ids in (kept, held):
        side = frame[frame["sentence_id"].isin(ids)].copy()
        order = {old: new for new, old in enumerate(side["sentence_id"].unique())}
        side["sentence_id"] = side["sentence_id"].map(order)
        sides.append(side)
    train, test = sides
    test["id"] = test["sentence_id"].astype(str) + "_" + test["token_id"].astype(str)
    quoted = {"index": False, "lineterminator": "\n", "quoting": csv.QUOTE_NONNUMERIC}
    assert _text(task / "private" / "answers.csv") == test[["id", "after"]].to_csv(**quoted)
    sample = test.assign(after=test["before"])[["id", "after"]].to_csv(**quoted)
    assert _text(task / "private" / "sample_submission.csv") == sample
    with zipfile.ZipFile(task / "public" / "en_train.csv.zip") as zf:
        assert zf.read("en_train.csv").decode() == train.to_csv(**quoted)
    assert set(test["sentence_id"]) == set(range(len(held)))

    raw = _generated("iwildcam-2019-fgvc6", tmp_path / "cam")
    task = _made("iwildcam-2019-fgvc6", raw, tmp_path / "cam")
    frame = pd.read_csv(raw / "train.csv")
    kept, held = train_test_split(frame["location"].unique(), test_size=0.1, random_state=8)
    test = frame[frame["location"].isin(held)]
    sample = test[["id"]].rename(columns={"id": "Id"}).assign(Category=0)
    assert _text(task / "public" / "sample_submission.csv") == sample.to_csv(
        lineterminator="\n")  # with the raw rows' labels, as MLE-bench writes it


def test_answers_one_row_per_joined_id_and_a_sample_of_the_training_mean(
        tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame({
        "site_id": 1, "patient_id": rng.integers(100, 140, n), "image_id": np.arange(n) * 7,
        "laterality": rng.choice(["L", "R"], n), "view": "CC", "age": 50.0,
        "cancer": rng.choice([0, 1], n), "implant": 0, "machine_id": 29})
    frame.to_csv(raw / "train.csv", index=False)
    for patient, image in zip(frame["patient_id"], frame["image_id"], strict=True):
        folder = raw / "train_images" / str(patient)  # a patient's images follow its rows
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{image}.dcm").write_bytes(b"DICM" + str(image).encode())
    task = _made("rsna-breast-cancer-detection", raw, tmp_path)
    kept, held = train_test_split(frame["patient_id"].unique(), test_size=0.1, random_state=42)
    train = frame[frame["patient_id"].isin(kept)]
    test = frame[frame["patient_id"].isin(held)].copy()
    test["prediction_id"] = test["patient_id"].astype(str) + "_" + test["laterality"]
    answers = test[["prediction_id", "cancer"]].groupby("prediction_id").first().reset_index()
    assert _text(task / "private" / "answers.csv") == _csv(answers)
    assert len(answers) < len(test)  # several images per breast, one answer
    sample = answers.assign(cancer=train["cancer"].mean())
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)


def test_the_recipes_cover_mle_benchs_competitions_once_each() -> None:
    recipes = load_recipes()
    kinds = (recipes.recipes, recipes.per_category, recipes.by_location, recipes.special,
             recipes.out)
    assert sum(len(k) for k in kinds) == 82  # MLE-bench's competitions at 783b15a
    for slug, located in recipes.by_location.items():
        assert CATALOGUE.get(f"kaggle/{slug}").spec.slug == slug
        assert located.answers.startswith("private/") and located.test_to.startswith("public/")
    for slug, categories in recipes.per_category.items():
        assert CATALOGUE.get(f"kaggle/{slug}").spec.slug == slug
        outs = [categories.train.to, categories.test.to, categories.answers, categories.sample]
        assert categories.answers.startswith("private/") and len(set(outs)) == 4, slug
        assert all(p.startswith("public/") for p in (*outs[:2], outs[3])), slug
    for slug, recipe in recipes.recipes.items():
        assert CATALOGUE.get(f"kaggle/{slug}").spec.slug == slug
        outs = [f.to for f in recipe.files] + [f.to for f in recipe.filters if f.to] + list(
            recipe.copies) + [f.to for f in recipe.json_files] + list(recipe.zip_folders) + [
            p for f in recipe.pixels for p in (f.to, f.sample_to) if p]
        assert all(p.split("/")[0] in {"public", "private"} for p in outs), slug
        assert len(set(outs)) == len(outs), slug
        assert any(p.startswith("private/") for p in outs), slug
        assert all(p.to.startswith("public/") for p in recipe.place), slug


@pytest.mark.parametrize(("task", "why"), [
    ("kaggle/billion-word-imputation", "makes no train_test_split"),
    ("kaggle/jigsaw-toxic-comment-classification-challenge", "makes no train_test_split"),
    ("kaggle/titanic", "MLE-bench does not hold this competition"),
    ("kaggle/spaceship-titanic", "a raw folder"),
])
def test_what_is_not_mle_benchs_table_split_is_refused_naming_why(
    tmp_path: Path, task: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "raw"
    if task != "kaggle/spaceship-titanic":
        raw.mkdir()
    else:
        raw.write_text("not a folder")
    assert _prepare(task, raw, tmp_path / "data") == 1
    err = capsys.readouterr().err
    assert why in err
    assert not (tmp_path / "data" / task).exists()
