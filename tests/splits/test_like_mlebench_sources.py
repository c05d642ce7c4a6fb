"""``prepare --like mle-bench`` beyond a CSV table's rows: one test per split kind on
generated downloads (JSON records, listings of files, NumPy arrays, rows assigned or swapped,
ids and files renamed, answers built from two tables or from pixels), each compared with
files built here from scikit-learn's ``train_test_split``, pandas and NumPy, independently of
the recipes' code."""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.errors import SplitError
from tests.splits.test_like_mlebench import CATALOGUE, _csv, _generated, _made, _text


def test_json_records_split_written_back_with_the_test_fields_and_int_answers(
        tmp_path: Path) -> None:
    raw = _generated("random-acts-of-pizza", tmp_path)
    task = _made("random-acts-of-pizza", raw, tmp_path)
    records = json.loads((raw / "train.json").read_text())
    official = json.loads((raw / "test.json").read_text())
    kept, held = train_test_split(records, test_size=len(official) / (
        len(records) + len(official)), random_state=0)
    assert _text(task / "public" / "train.json") == json.dumps(kept, indent=4)
    fields = list(official[0])
    public_test = [{f: r[f] for f in fields} for r in held]
    assert _text(task / "public" / "test.json") == json.dumps(public_test, indent=4)
    with zipfile.ZipFile(task / "public" / "test.zip") as zf:
        assert zf.namelist() == ["test.json"]
        assert zf.read("test.json").decode() == json.dumps(public_test, indent=4)
    answers = pd.DataFrame({"request_id": [r["request_id"] for r in held],
                            "requester_received_pizza": [int(r["requester_received_pizza"])
                                                         for r in held]})
    assert _text(task / "private" / "test.csv") == _csv(answers)
    assert set(answers["requester_received_pizza"]) == {0, 1}
    sample = answers.assign(requester_received_pizza=0)
    assert _text(task / "public" / "sampleSubmission.csv") == _csv(sample)
    (raw / "test.json").write_text("{}")
    with pytest.raises(SplitError, match="non-empty JSON list of records"):
        _made("random-acts-of-pizza", raw, tmp_path)


def test_json_records_only_in_7z_archives_as_mle_bench_writes_them(tmp_path: Path) -> None:
    py7zr = pytest.importorskip("py7zr")
    raw = _generated("statoil-iceberg-classifier-challenge", tmp_path)
    task = _made("statoil-iceberg-classifier-challenge", raw, tmp_path)
    processed = raw / "train.json" / "data" / "processed"
    records = json.loads((processed / "train.json").read_text())
    kept, held = train_test_split(records, test_size=0.2, random_state=0)
    fields = list(json.loads((raw / "test.json" / "data" / "processed" / "test.json"
                              ).read_text())[0])
    answers = pd.DataFrame({"id": [r["id"] for r in held],
                            "is_iceberg": [int(r["is_iceberg"]) for r in held]})
    assert _text(task / "private" / "test.csv") == _csv(answers)
    expected = {"train.json": json.dumps(kept),
                "test.json": json.dumps([{f: r[f] for f in fields} for r in held]),
                "sample_submission.csv": _csv(answers.assign(is_iceberg=0.5))}
    for name, text in expected.items():
        assert not (task / "public" / name).exists()
        with py7zr.SevenZipFile(task / "public" / f"{name}.7z") as archive:
            archive.extractall(tmp_path / "out")
        assert _text(tmp_path / "out" / name) == text, name


def test_a_sorted_file_listing_split_with_files_renamed_and_answers_from_names(
        tmp_path: Path) -> None:
    raw = _generated("dogs-vs-cats-redux-kernels-edition", tmp_path)
    task = _made("dogs-vs-cats-redux-kernels-edition", raw, tmp_path)
    images = sorted((raw / "train").glob("*.jpg"))
    kept, held = train_test_split(images, test_size=0.1, random_state=0)
    counts = {"cat": 0, "dog": 0}
    for img in kept:  # cat.0, cat.1... and dog.0... in the split's order
        animal = "cat" if "cat" in img.name else "dog"
        copy = task / "public" / "train" / f"{animal}.{counts[animal]}.jpg"
        assert copy.read_bytes() == img.read_bytes()
        counts[animal] += 1
    assert len(os.listdir(task / "public" / "train")) == len(kept) and min(counts.values())
    for i, img in enumerate(held, start=1):
        assert (task / "public" / "test" / f"{i}.jpg").read_bytes() == img.read_bytes()
    ids = list(range(1, len(held) + 1))
    answers = pd.DataFrame({"id": ids, "label": [int("dog" in p.name) for p in held]})
    assert _text(task / "private" / "answers.csv") == _csv(answers)
    sample = pd.DataFrame({"id": ids, "label": [0.5] * len(held)})
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    with zipfile.ZipFile(task / "public" / "test.zip") as zf:
        assert sorted(zf.namelist()) == sorted(f"{i}.jpg" for i in ids)
    assert not (task / "public" / "files_manifest.csv").exists()  # MLE-bench's names only
    for img in images:
        img.unlink()
    with pytest.raises(SplitError, match="the raw folder has none"):
        _made("dogs-vs-cats-redux-kernels-edition", raw, tmp_path)


def test_a_listing_of_label_folders_split_with_files_placed_by_label(tmp_path: Path) -> None:
    raw = _generated("plant-seedlings-classification", tmp_path)
    (raw / "train" / "notes.txt").write_text("not a label folder")
    task = _made("plant-seedlings-classification", raw, tmp_path)
    rows = [{"file": name, "species": label}
            for label in sorted(os.listdir(raw / "train")) if (raw / "train" / label).is_dir()
            for name in sorted(os.listdir(raw / "train" / label)) if name.endswith(".png")]
    train, test = train_test_split(pd.DataFrame(rows), test_size=0.14, random_state=0)
    assert _text(task / "private" / "answers.csv") == _csv(test)
    assert _text(task / "public" / "sample_submission.csv") == _csv(
        test.assign(species="Sugar beet"))
    for row in train.itertuples():
        copy = task / "public" / "train" / row.species / row.file
        assert copy.read_bytes() == (raw / "train" / row.species / row.file).read_bytes()
    assert sorted(os.listdir(task / "public" / "test")) == sorted(test["file"])
    assert not (task / "public" / "train.csv").exists()  # MLE-bench writes none


@pytest.mark.filterwarnings("ignore:.*float_precision")
def test_ids_renamed_after_the_split_with_their_files(tmp_path: Path) -> None:
    raw = _generated("plant-pathology-2020-fgvc7", tmp_path)
    task = _made("plant-pathology-2020-fgvc7", raw, tmp_path)
    frame = pd.read_csv(raw / "train.csv")
    train, test = train_test_split(frame, test_size=0.1, random_state=0)
    new = {**{old: f"Train_{i}" for i, old in enumerate(train["image_id"].unique())},
           **{old: f"Test_{i}" for i, old in enumerate(test["image_id"].unique())}}
    train = train.assign(image_id=train["image_id"].map(new))
    test_new = test.assign(image_id=test["image_id"].map(new))
    assert _text(task / "public" / "train.csv") == _csv(train)
    assert _text(task / "private" / "test.csv") == _csv(test_new)
    assert _text(task / "public" / "test.csv") == _csv(test_new[["image_id"]])
    sample = test_new[["image_id"]].assign(healthy=0.25, multiple_diseases=0.25, rust=0.25,
                                           scab=0.25)
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    for old, renamed in new.items():
        copy = task / "public" / "images" / f"{renamed}.jpg"
        assert copy.read_bytes() == (raw / "images" / f"{old}.jpg").read_bytes()
    assert len(os.listdir(task / "public" / "images")) == len(frame)
    # nomad2018: ids 1, 2... on each side, each row's geometry folder renamed with it
    raw = _generated("nomad2018-predict-transparent-conductors", tmp_path / "nomad")
    task = _made("nomad2018-predict-transparent-conductors", raw, tmp_path / "nomad")
    frame = pd.read_csv(raw / "train.csv", float_precision="round_trip")
    train, test = train_test_split(frame, test_size=0.1, random_state=0)
    olds = test["id"].tolist()
    test = test.assign(id=range(1, len(test) + 1))
    assert _text(task / "private" / "test.csv") == _csv(test)
    for new_id, old_id in enumerate(olds, start=1):
        geometry = (task / "public" / "test" / str(new_id) / "geometry.xyz").read_bytes()
        assert geometry == (raw / "train" / str(old_id) / "geometry.xyz").read_bytes()
    shutil.rmtree(raw / "train" / str(olds[0]))
    with pytest.raises(SplitError, match="lacks it"):
        _made("nomad2018-predict-transparent-conductors", raw, tmp_path / "nomad")


def test_a_recursive_listing_sorted_by_label_and_name_with_numbered_test_clips(
        tmp_path: Path) -> None:
    raw = _generated("tensorflow-speech-recognition-challenge", tmp_path)
    audio = raw / "train" / "audio"
    for label in ("yes", "yes_no"):  # "yes_no_a" sorts before "yes_z": not folder by folder
        (audio / label).mkdir(exist_ok=True)
        for name in ("a", "z"):
            (audio / label / f"{name}.wav").write_bytes(f"RIFF {label} {name}".encode())
    task = _made("tensorflow-speech-recognition-challenge", raw, tmp_path)
    found = sorted(audio.rglob("*.wav"), key=lambda p: f"{p.parent.name}_{p.name}")
    kept, held = train_test_split(found, test_size=0.1, random_state=0)
    names = [f"clip_{i:08d}.wav" for i in range(len(held))]
    answers = pd.DataFrame({"fname": names, "label": [p.parent.name for p in held]})
    assert _text(task / "private" / "test.csv") == _csv(answers)
    assert _text(task / "public" / "sample_submission.csv") == _csv(
        answers.assign(label="silence"))
    for name, path in zip(names, held, strict=True):
        assert (task / "public" / "test" / "audio" / name).read_bytes() == path.read_bytes()
    for path in kept:
        copy = task / "public" / "train" / "audio" / path.parent.name / path.name
        assert copy.read_bytes() == path.read_bytes()


def test_answers_one_row_a_pixel_of_the_test_images_cleaned_versions(tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    raw = _generated("denoising-dirty-documents", tmp_path)
    task = _made("denoising-dirty-documents", raw, tmp_path)
    images = sorted((raw / "train").glob("*.png"))
    kept, held = train_test_split(images, test_size=0.2, random_state=0)
    ids, values = [], []
    for path in sorted(held, key=lambda p: p.name):  # by name, not in the split's order
        gray = np.array(image.open(raw / "train_cleaned" / path.name).convert("L")) / 255.0
        for r in range(gray.shape[0]):
            for c in range(gray.shape[1]):
                ids.append(f"{path.stem}_{r + 1}_{c + 1}")
                values.append(gray[r, c])
    answers = pd.DataFrame({"id": ids, "value": values})
    assert _text(task / "private" / "answers.csv") == _csv(answers)
    assert _text(task / "public" / "sampleSubmission.csv") == _csv(answers.assign(value=1))
    assert sorted(os.listdir(task / "public" / "test")) == sorted(p.name for p in held)
    assert sorted(os.listdir(task / "public" / "train_cleaned")) == sorted(p.name for p in kept)
    (raw / "train_cleaned" / held[0].name).unlink()
    with pytest.raises(SplitError, match="the raw folder lacks it"):
        _made("denoising-dirty-documents", raw, tmp_path)


@pytest.mark.filterwarnings("ignore:.*float_precision")
def test_a_row_swapped_between_the_sides_and_a_sample_evenly_spaced(tmp_path: Path) -> None:
    classes = CATALOGUE.get("kaggle/google-quest-challenge").spec.split.target_columns
    rng = np.random.default_rng(1)
    n = 120
    frame = pd.DataFrame({"qa_id": np.arange(n) * 3 + 7, "question_title": "t", "host": "h"})
    for c in classes:
        frame[c] = rng.choice([0.0, 1 / 3, 0.5, 1.0], n)
    frame["question_type_spelling"] = 0.0
    frame.loc[[5, 90, 100], "question_type_spelling"] = 1 / 3  # none of them in the test rows
    (tmp_path / "raw").mkdir()
    frame.to_csv(tmp_path / "raw" / "train.csv", index=False)
    task = _made("google-quest-challenge", tmp_path / "raw", tmp_path)
    frame = pd.read_csv(tmp_path / "raw" / "train.csv", float_precision="round_trip")
    train, test = train_test_split(frame, test_size=0.1, random_state=0)
    assert test["question_type_spelling"].nunique() == 1
    other = train[train["question_type_spelling"] != 0].index[0]
    held = test.iloc[0].copy()
    test.iloc[0] = train.loc[other].copy()
    train.loc[other] = held
    assert _text(task / "public" / "train.csv") == _csv(train)
    assert _text(task / "private" / "test.csv") == _csv(test[["qa_id", *classes]])
    assert _text(task / "public" / "test.csv") == _csv(test.drop(columns=classes))
    sample = test[["qa_id", *classes]].copy()
    sample[classes] = np.tile(np.linspace(0, 1, len(test))[:, None], (1, len(classes)))
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    assert test["question_type_spelling"].nunique() == 2


def test_test_files_shuffled_and_drawn_from_seeded_sources(tmp_path: Path) -> None:
    folders = ["Cover", "JMiPOD", "JUNIWARD", "UERD"]
    names = [f"{i * 7 % 9973:05d}.jpg" for i in range(5012)]  # MLE-bench holds out 5,000
    for folder in folders:
        (tmp_path / "raw" / folder).mkdir(parents=True)
        for name in names:
            (tmp_path / "raw" / folder / name).write_bytes(f"{folder} {name}".encode())
    task = _made("alaska2-image-steganalysis", tmp_path / "raw", tmp_path)
    kept, held = train_test_split(sorted(names), test_size=5000, random_state=42)
    for i, name in enumerate(kept, start=1):
        for folder in folders:
            copy = task / "public" / folder / f"{i:05d}.jpg"
            assert copy.read_bytes() == f"{folder} {name}".encode()
    rng = random.Random(0)
    rng.shuffle(held)
    ids, labels = [], []
    for i, name in enumerate(held, start=1):
        folder = "Cover" if rng.choice([True, False]) else rng.choice(folders[1:])
        ids.append(f"{i:04d}.jpg")
        labels.append(int(folder != "Cover"))
        assert (task / "public" / "Test" / ids[-1]).read_bytes() == f"{folder} {name}".encode()
    answers = pd.DataFrame({"Id": ids, "Label": labels})
    assert _text(task / "private" / "test.csv") == _csv(answers)
    assert _text(task / "public" / "sample_submission.csv") == _csv(answers.assign(Label=0))
    assert 2000 < sum(labels) < 3000


def test_numpy_arrays_split_by_their_row_indices(tmp_path: Path) -> None:
    folder = tmp_path / "raw" / "timit_11" / "timit_11"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(2)
    features = rng.normal(size=(300, 11)).astype(np.float32)
    labels = rng.integers(0, 39, 300).astype(str)  # the competition's labels are text
    np.save(folder / "train_11.npy", features)
    np.save(folder / "train_label_11.npy", labels)
    np.save(folder / "test_11.npy", np.zeros((100, 11), dtype=np.float32))
    task = _made("ml2021spring-hw2", tmp_path / "raw", tmp_path)
    kept, held = train_test_split(range(300), test_size=100 / 400, random_state=0)
    public = task / "public" / "timit_11" / "timit_11"
    for name, expected in (("train_11.npy", features[kept]),
                           ("train_label_11.npy", labels[kept]), ("test_11.npy", features[held])):
        buffer = io.BytesIO()
        np.save(buffer, expected)
        assert (public / name).read_bytes() == buffer.getvalue(), name
    answers = pd.DataFrame({"Id": range(len(held)), "ClassId": labels[held]})
    assert _text(task / "private" / "answers.csv") == _csv(answers)
    assert _text(task / "public" / "sampleSubmission.csv") == _csv(answers.assign(ClassId=0))
    np.save(folder / "train_label_11.npy", labels[:-1])
    with pytest.raises(SplitError, match="pairs it with the 300 rows"):
        _made("ml2021spring-hw2", tmp_path / "raw", tmp_path)


def test_rows_assigned_per_value_before_the_split_and_unseen_values_relabelled(
        tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    ids = [f"w_{w:07x}" for w in range(150) for _ in range(int(rng.choice([1, 1, 2, 3, 5])))]
    ids = list(rng.permutation(ids + ["new_whale"] * 30))
    frame = pd.DataFrame({"Image": [f"{i:08x}.jpg" for i in range(len(ids))], "Id": ids})
    (tmp_path / "raw" / "train").mkdir(parents=True)
    frame.to_csv(tmp_path / "raw" / "train.csv", index=False)
    for image in frame["Image"]:
        (tmp_path / "raw" / "train" / image).write_bytes(image.encode())
    task = _made("whale-categorization-playground", tmp_path / "raw", tmp_path)
    side = pd.Series("undecided", index=frame.index)
    draws = np.random.default_rng(0)
    for whale in frame["Id"].unique():
        rows = frame[frame["Id"] == whale]
        if len(rows) >= 2:
            chosen = rows.sample(2, random_state=0).index
            side[chosen[0]], side[chosen[1]] = "train", "test"
        else:
            side[rows.index[0]] = draws.choice(["train", "test"], replace=False, p=[0.9, 0.1])
    kept, held = train_test_split(frame[side == "undecided"], test_size=0.1, random_state=0)
    side[kept.index], side[held.index] = "train", "test"
    train, test = frame[side == "train"], frame[side == "test"].copy()
    unseen = test["Id"].isin(set(test["Id"]) - set(train["Id"]))
    test.loc[unseen, "Id"] = "new_whale"
    assert unseen.sum() > 0 and (side == "test").sum() > 20
    assert _text(task / "public" / "train.csv") == _csv(train)
    assert _text(task / "private" / "test.csv") == _csv(test)
    assert sorted(os.listdir(task / "public" / "test")) == sorted(test["Image"])


def test_answers_first_of_each_image_and_class_and_a_sample_of_the_test_groups(
        tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    rows = []
    for i in range(60):
        image = f"{i * 7919 % 100003:032x}"
        if i % 3 == 0:  # "No finding": no box, three readers
            rows += [{"image_id": image, "class_id": 14, "rad_id": f"R{r}", "x_min": np.nan,
                      "x_max": np.nan, "y_max": np.nan} for r in range(3)]
            continue
        for r in range(int(rng.integers(1, 5))):
            rows.append({"image_id": image, "class_id": int(rng.integers(0, 3)),
                         "rad_id": f"R{r}", "x_min": float(rng.integers(0, 500)),
                         "x_max": round(float(rng.uniform(500, 900)), 2),
                         "y_max": float(rng.integers(500, 900))})
    (tmp_path / "raw" / "train").mkdir(parents=True)
    frame = pd.DataFrame(rows).sample(frac=1, random_state=3)
    frame.to_csv(tmp_path / "raw" / "train.csv", index=False)
    for image in frame["image_id"].unique():
        (tmp_path / "raw" / "train" / f"{image}.dicom").write_bytes(image.encode())
    task = _made("vinbigdata-chest-xray-abnormalities-detection", tmp_path / "raw", tmp_path)
    frame = pd.read_csv(tmp_path / "raw" / "train.csv")
    kept, held = train_test_split(list(frame["image_id"].unique()), test_size=0.1,
                                  random_state=0)
    assert _text(task / "public" / "train.csv") == _csv(frame[frame["image_id"].isin(kept)])
    sample = pd.DataFrame({"image_id": held, "PredictionString": "14 1 0 0 1 1"})
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)  # split's order
    test = frame[frame["image_id"].isin(held)]
    answers = test.groupby(by=["image_id", "class_id"]).first().reset_index().fillna(0)
    answers.loc[answers["class_id"] == 14, ["x_max", "y_max"]] = 1.0
    assert _text(task / "private" / "answers.csv") == _csv(answers)
    assert len(answers) < len(test) and (answers["class_id"] == 14).any()
    assert sorted(os.listdir(task / "public" / "test")) == sorted(f"{i}.dicom" for i in held)


def test_answers_of_two_tables_one_after_the_other_with_labels_of_the_largest_column(
        tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    raw = tmp_path / "raw"
    classes = ["Negative for Pneumonia", "Typical Appearance", "Indeterminate Appearance",
               "Atypical Appearance"]
    studies = [f"{i * 104729 % 999983:012x}" for i in range(60)]
    study = pd.DataFrame({"id": [f"{s}_study" for s in studies]})
    labels = rng.integers(0, 4, len(studies))
    for k, c in enumerate(classes):
        study[c] = (labels == k).astype(int)
    images = []
    for s in studies:
        for j in range(int(rng.integers(1, 3))):
            image = f"{rng.integers(0, 2**40):010x}"
            images.append({"id": f"{image}_image", "label": f"opacity 1 {j} 2 3 4",
                           "StudyInstanceUID": s})
            (raw / "train" / s / f"series{j}").mkdir(parents=True, exist_ok=True)
            (raw / "train" / s / f"series{j}" / f"{image}.dcm").write_bytes(image.encode())
    study.sample(frac=1, random_state=1).to_csv(raw / "train_study_level.csv", index=False)
    pd.DataFrame(images).sample(frac=1, random_state=2).to_csv(
        raw / "train_image_level.csv", index=False)
    task = _made("siim-covid19-detection", raw, tmp_path)
    study = pd.read_csv(raw / "train_study_level.csv")
    image = pd.read_csv(raw / "train_image_level.csv")
    train, test = train_test_split(study, test_size=0.1, random_state=0)
    train, test = train.sort_values(by="id"), test.sort_values(by="id")
    assert _text(task / "public" / "train_study_level.csv") == _csv(train)
    key = image["StudyInstanceUID"] + "_study"
    assert _text(task / "public" / "train_image_level.csv") == _csv(
        image[key.isin(train["id"])].sort_values(by="id"))
    test_images = image[key.isin(test["id"])].sort_values(by="id")
    names = ["negative", "typical", "indeterminate", "atypical"]
    answers = pd.DataFrame(
        [{"id": row["id"], "PredictionString": f"{names[row[1:].argmax()]} 1 0 0 1 1"}
         for _, row in test.iterrows()]
        + [{"id": row["id"], "PredictionString": row["label"]}
           for _, row in test_images.iterrows()])
    assert _text(task / "private" / "test.csv") == _csv(answers)
    assert len(answers) > len(test) and len(set(answers["PredictionString"])) > 2
    sample = pd.DataFrame([{"id": i, "PredictionString": "negative 1 0 0 1 1"}
                           for i in test["id"]] + [{"id": i, "PredictionString":
                                                    "none 1 0 0 1 1"} for i in test_images["id"]])
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    for sid in test["id"].str.replace("_study", ""):  # each test study's folder, whole
        for path in (raw / "train" / sid).rglob("*.dcm"):
            copy = task / "public" / "test" / sid / path.relative_to(raw / "train" / sid)
            assert copy.read_bytes() == path.read_bytes()


def test_answers_a_grid_of_every_test_group_and_step_with_the_earliest_row_public(
        tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    rows = []
    for p in range(40):
        patient = f"ID{p * 7919 % 100003:08d}"
        weeks = sorted(rng.choice(np.arange(-5, 60), int(rng.integers(3, 8)), replace=False))
        rows += [{"Patient": patient, "Weeks": int(w), "FVC": int(rng.integers(1500, 4000)),
                  "Age": 60, "Sex": "Male"} for w in weeks]
        (tmp_path / "raw" / "train" / patient).mkdir(parents=True)
        (tmp_path / "raw" / "train" / patient / "1.dcm").write_bytes(patient.encode())
    pd.DataFrame(rows).sample(frac=1, random_state=4).to_csv(tmp_path / "raw" / "train.csv",
                                                             index=False)
    task = _made("osic-pulmonary-fibrosis-progression", tmp_path / "raw", tmp_path)
    frame = pd.read_csv(tmp_path / "raw" / "train.csv")
    kept, held = train_test_split(list(frame.groupby("Patient")), test_size=0.1,
                                  random_state=0)
    train = pd.concat([g for _, g in kept])
    test = pd.concat([g for _, g in held])
    assert _text(task / "public" / "train.csv") == _csv(train)
    earliest = test.sort_values(by="Weeks").groupby("Patient").first().reset_index()
    assert _text(task / "public" / "test.csv") == _csv(earliest)
    grid = pd.DataFrame([(p, w) for p in test["Patient"].unique()
                         for w in range(test["Weeks"].min(), test["Weeks"].max() + 1)],
                        columns=["Patient", "Weeks"])
    answers = grid.merge(test, on=["Patient", "Weeks"], how="left")
    answers["Patient_Week"] = answers["Patient"] + "_" + answers["Weeks"].astype(str)
    answers["Confidence"] = 100
    assert _text(task / "private" / "test.csv") == _csv(answers)
    assert answers["FVC"].isna().any() and len(answers) > len(test)
    sample = answers[["Patient_Week"]].assign(FVC=2000, Confidence=100)
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    assert sorted(os.listdir(task / "public" / "test")) == sorted(test["Patient"].unique())


def test_answers_merged_with_a_table_matched_by_a_derived_key(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    raw = tmp_path / "raw"
    (raw / "train").mkdir(parents=True)
    ids = [f"{i * 2654435761 % 2**32:08x}" for i in range(15)]
    pd.DataFrame({"id": ids, "encoding": [f"{i} 5" for i in range(15)]}).to_csv(
        raw / "train.csv", index=False)
    every = [*ids, "unlisted1", "unlisted2"]  # the official test images: not in train.csv
    pd.DataFrame({"image_file": [f"{i}.tiff" for i in every],
                  "width_pixels": rng.integers(1000, 40000, len(every)),
                  "patient_number": rng.integers(60000, 70000, len(every)),
                  "height_pixels": rng.integers(1000, 40000, len(every))}).sample(
        frac=1, random_state=2).to_csv(raw / "HuBMAP-20-dataset_information.csv", index=False)
    for i in ids:
        for ext in (".tiff", ".json", "-anatomical-structure.json"):
            (raw / "train" / f"{i}{ext}").write_bytes(f"{i}{ext}".encode())
    task = _made("hubmap-kidney-segmentation", raw, tmp_path)
    frame = pd.read_csv(raw / "train.csv")
    train, test = train_test_split(frame, train_size=12, test_size=3, random_state=0)
    info = pd.read_csv(raw / "HuBMAP-20-dataset_information.csv")
    info["id"] = info["image_file"].str.replace(".tiff", "")
    info = info[info["id"].isin(frame["id"])]
    assert _text(task / "public" / "HuBMAP-20-dataset_information.csv") == _csv(
        info.drop(columns=["id"]))
    answers = test.merge(info[["id", "width_pixels", "height_pixels"]], on="id")
    assert _text(task / "private" / "test.csv") == _csv(answers)
    sample = _csv(answers[["id"]].assign(predicted=""))
    assert _text(task / "public" / "sample_submission.csv") == sample
    assert _text(task / "public" / "test" / "sample_submission.csv") == sample
    assert sorted(os.listdir(task / "public" / "test")) == sorted(
        [f"{i}{ext}" for i in test["id"] for ext in (".tiff", ".json",
                                                      "-anatomical-structure.json")]
        + ["sample_submission.csv"])


def _pairs_by_category(meta: dict, keep: dict[int, int]) -> dict[int, list]:
    by: dict[int, list] = {}
    for annotation, image in zip(meta["annotations"], meta["images"], strict=True):
        by.setdefault(annotation["category_id"], []).append((annotation, image))
    return {c: p[:keep.get(c, len(p))] for c, p in by.items()}


def test_one_split_per_category_of_json_metadata_with_the_test_images_renamed(
        tmp_path: Path) -> None:
    raw = _generated("herbarium-2020-fgvc7", tmp_path)
    rel = raw / "nybg2020" / "train" / "metadata.json"
    meta = json.loads(rel.read_text(encoding="latin-1"))
    # categories of one image (all training), of two and four (the last to test), of five
    by = _pairs_by_category(meta, {0: 1, 1: 4, 2: 2, 3: 5})
    meta["annotations"] = [a for pairs in by.values() for a, _ in pairs]
    meta["images"] = [i for pairs in by.values() for _, i in pairs]
    meta["regions"] = [{"id": 0, "name": "région"}]
    rel.write_text(json.dumps(meta, ensure_ascii=False), encoding="latin-1")
    task = _made("herbarium-2020-fgvc7", raw, tmp_path)
    kept, held = [], []
    for pairs in by.values():
        if len(pairs) == 1:
            kept += pairs
        elif len(pairs) < 5:
            kept += pairs[:-1]
            held += pairs[-1:]
        else:
            train, test = train_test_split(pairs, test_size=0.2, random_state=0)
            kept += train
            held += test
    random.Random(0).shuffle(held)
    public = task / "public" / "nybg2020"
    train_meta = {**meta, "annotations": [a for a, _ in kept], "images": [i for _, i in kept]}
    assert _text(public / "train" / "metadata.json") == json.dumps(train_meta, indent=4,
                                                                   sort_keys=True)
    images = [{**i, "id": str(n), "file_name": f"images/{n // 1000:03d}/{n}.jpg"}
              for n, (_, i) in enumerate(held)]
    test_meta = {"images": images, "info": meta["info"], "licenses": meta["licenses"]}
    assert _text(public / "test" / "metadata.json") == json.dumps(test_meta, indent=4,
                                                                  sort_keys=True)
    for (_, image), new in zip(held, images, strict=True):
        assert (public / "test" / new["file_name"]).read_bytes() == (
            raw / "nybg2020" / "train" / image["file_name"]).read_bytes()
    assert sorted(p.name for p in (public / "train" / "images").rglob("*.jpg")) == sorted(
        i["file_name"].rsplit("/", 1)[1] for _, i in kept)
    answers = pd.DataFrame({"Id": [str(n) for n in range(len(held))],
                            "Predicted": [a["category_id"] for a, _ in held]})
    assert _text(task / "private" / "answers.csv") == _csv(answers)
    assert _text(task / "public" / "sample_submission.csv") == _csv(answers.assign(Predicted=0))
    assert {a["category_id"] for a, _ in held} >= {1, 2} and 0 not in set(answers["Predicted"])


def test_per_category_training_images_renamed_within_their_category(tmp_path: Path) -> None:
    raw = _generated("herbarium-2022-fgvc9", tmp_path)
    meta = json.loads((raw / "train_metadata.json").read_text())
    task = _made("herbarium-2022-fgvc9", raw, tmp_path)
    kept, held = [], []
    for category, pairs in _pairs_by_category(meta, {}).items():
        train, test = train_test_split(pairs, test_size=0.2, random_state=0)
        held += test
        for n, (annotation, image) in enumerate(train, start=1):
            new_id = f"{category:05d}__{n:03d}"
            name = f"{category // 100:03d}/{category % 100:02d}/{new_id}.jpg"
            kept.append(({**annotation, "image_id": new_id},
                         {**image, "image_id": new_id, "file_name": name}))
            assert (task / "public" / "train_images" / name).read_bytes() == (
                raw / "train_images" / image["file_name"]).read_bytes()
    random.Random(0).shuffle(held)
    train_meta = {**meta, "annotations": [a for a, _ in kept], "images": [i for _, i in kept]}
    assert _text(task / "public" / "train_metadata.json") == json.dumps(
        train_meta, indent=4, sort_keys=True)
    images = [{**i, "image_id": str(n), "file_name": f"{n // 1000:03d}/test-{n:06d}.jpg"}
              for n, (_, i) in enumerate(held)]
    assert _text(task / "public" / "test_metadata.json") == json.dumps(images, indent=4,
                                                                       sort_keys=True)
    sample = pd.DataFrame({"Id": [str(n) for n in range(len(held))], "Predicted": 42})
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    for bad, why in (('[{"image_id": 1}], "images": []', "1 annotations"),
                     ('[{"image_id": 1, "category_id": 0}], "images": [{"image_id": 2}]',
                      "names another image")):
        (raw / "train_metadata.json").write_text('{"annotations": ' + bad + "}")
        with pytest.raises(SplitError, match=why):
            _made("herbarium-2022-fgvc9", raw, tmp_path)


def test_per_category_split_with_its_images_in_tar_archives(tmp_path: Path) -> None:
    raw = _generated("inaturalist-2019-fgvc6", tmp_path)
    meta = json.loads((raw / "train2019.json").read_text())
    task = _made("inaturalist-2019-fgvc6", raw, tmp_path)
    kept, held = [], []
    for pairs in _pairs_by_category(meta, {}).values():
        train, test = train_test_split(pairs, test_size=0.12, random_state=0)
        kept += train
        held += test
    random.Random(0).shuffle(held)
    public = task / "public"
    images = [{**i, "file_name": "test2019/" + i["file_name"].rsplit("/", 1)[1]}
              for _, i in held]
    test_meta = {"images": images, "info": meta["info"], "licenses": meta["licenses"]}
    assert _text(public / "test2019.json") == json.dumps(test_meta, indent=4, sort_keys=True)
    train_meta = {**meta, "annotations": [a for a, _ in kept], "images": [i for _, i in kept]}
    assert _text(public / "train2019.json") == json.dumps(train_meta, indent=4, sort_keys=True)
    assert (public / "val2019.json").read_bytes() == (raw / "val2019.json").read_bytes()
    for archive, prefix, side in (("test2019.tar.gz", "test2019/", images),
                                  ("train_val2019.tar.gz", "train_val2019/",
                                   [i for _, i in kept])):
        with tarfile.open(public / archive) as tar:  # uncompressed, as MLE-bench writes it
            members = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
        assert sorted(members) == sorted(i["file_name"].removeprefix(prefix) for i in side)
        assert not (public / prefix).exists()
    with tarfile.open(public / "test2019.tar.gz") as tar:
        for member in tar.getmembers():
            original = next(i for _, i in held if i["file_name"].endswith(member.name))
            assert tar.extractfile(member).read() == (raw / original["file_name"]).read_bytes()
    answers = pd.DataFrame({"id": [i["id"] for _, i in held],
                            "predicted": [a["category_id"] for a, _ in held]})
    assert _text(task / "private" / "answers.csv") == _csv(answers)
    drawn = random.Random(42).randint(0, 1009)
    assert _text(public / "kaggle_sample_submission.csv") == _csv(answers.assign(predicted=drawn))


def test_locations_moved_between_the_sides_until_the_test_share(tmp_path: Path) -> None:
    raw = _generated("iwildcam-2020-fgvc7", tmp_path)
    meta = json.loads((raw / "iwildcam2020_train_annotations.json").read_text())
    info = json.loads((raw / "iwildcam2020_test_information.json").read_text())
    images = pd.DataFrame(meta["images"])  # two locations cut to two images: a net move
    images = images[~images["location"].isin([6, 11]) | (images.groupby("location").cumcount()
                                                         < 2)]
    meta["images"] = images.to_dict("records")
    meta["annotations"] = [a for a in meta["annotations"] if a["image_id"] in set(images["id"])]
    (raw / "iwildcam2020_train_annotations.json").write_text(json.dumps(meta))
    task = _made("iwildcam-2020-fgvc7", raw, tmp_path)
    kept, held = train_test_split(images["location"].unique(), test_size=0.22, random_state=0)
    first = list(held)
    kept, held = list(kept), list(held)

    def share() -> float:
        n = int(images["location"].isin(held).sum())
        return n / (len(images) + n)

    while share() < 0.22:
        held.append(kept.pop())
    while share() > 0.22:
        kept.append(held.pop())
    assert held != first  # the loop moved locations
    train, test = images[images["location"].isin(kept)], images[images["location"].isin(held)]
    ann = pd.DataFrame(meta["annotations"])
    train_json = {"annotations": ann[ann["image_id"].isin(train["id"])].to_dict("records"),
                  "images": train.to_dict("records"), "categories": meta["categories"],
                  "info": meta["info"]}
    assert _text(task / "public" / "iwildcam2020_train_annotations.json") == json.dumps(
        train_json)
    test_json = {"images": test.to_dict("records"), "categories": info["categories"],
                 "info": info["info"]}
    assert _text(task / "public" / "iwildcam2020_test_information.json") == json.dumps(
        test_json)
    answers = ann[ann["image_id"].isin(test["id"])][["image_id", "category_id"]].rename(
        columns={"image_id": "Id", "category_id": "Category"})
    assert _text(task / "private" / "answers.csv") == _csv(answers)
    sample = answers.assign(Category=np.random.RandomState(0).randint(0, 676, len(answers)))
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    assert sorted(os.listdir(task / "public" / "test")) == sorted(f"{i}.jpg" for i in test["id"])
    assert not set(train["location"]) & set(test["location"])
