"""``prepare --like mle-bench`` of smartphone-decimeter-2022 (kind ``drives``): its drive
folders split by date, on the generated download, against files built here with
scikit-learn's ``train_test_split`` and pandas as MLE-bench's ``prepare.py`` does, and against
the digests of MLE-bench's own output."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.errors import SplitError, UnsafePathError
from tambench.splits.mlebench_kinds import special_recipe
from tambench.splits.mlebench_recipe import load_recipes
from tests.splits.test_like_mlebench import _csv, _generated, _made, _text

SLUG = "smartphone-decimeter-2022"
#: sha256 of MLE-bench's private/test.csv and public/sample_submission.csv, from its
#: prepare.py (openai/mle-bench at 783b15a) run on the same generated download.
MLE_BENCH_DIGESTS = {
    "private/test.csv": "4b70000bd59b67811ae6ba1e52ebcade97e7cc23290c0534b2185ea3607d021e",
    "public/sample_submission.csv":
        "a4bbec39d6959b66beacb05b7e4d15934873cafbe75231e8ea4e1e73588f96e9",
}


def _date(name: str) -> str:
    year, month, day = name.split("-")[:3]
    return f"{year}-{int(month):02d}-{int(day):02d}"


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in root.rglob("*") if p.is_file()}


def test_mle_benchs_own_answers_and_sample_on_the_generated_download(tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    task = _made(SLUG, raw, tmp_path)
    for rel, digest in MLE_BENCH_DIGESTS.items():
        assert hashlib.sha256((task / rel).read_bytes()).hexdigest() == digest, rel
    assert _files(task / "public" / "metadata") == _files(raw / "metadata")


def test_drives_split_by_date_answers_in_path_order_and_trips_without_truth(
        tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    drives_root = raw / "train"
    # A drive of the same date whose name extends another's ('<drive>-1' sorts before
    # '<drive>/' as text, after it as a path), and a second phone in every drive.
    for drive in sorted(p.name for p in drives_root.iterdir()):
        phone = drives_root / drive / "GooglePixel4"
        truth = pd.read_csv(phone / "ground_truth.csv")
        shutil.copytree(phone, drives_root / f"{drive}-1" / "Mi8")
        shutil.copytree(phone, drives_root / drive / "GooglePixel5")
        for i, path in enumerate([drives_root / f"{drive}-1" / "Mi8" / "ground_truth.csv",
                                  drives_root / drive / "GooglePixel5" / "ground_truth.csv"]):
            path.write_text(_csv(truth.assign(LatitudeDegrees=truth["LatitudeDegrees"] + i + 1)))
    task = _made(SLUG, raw, tmp_path)
    drives = sorted(p.name for p in drives_root.iterdir())
    kept, held = train_test_split(sorted({_date(d) for d in drives}), test_size=0.1,
                                  random_state=0)
    test = [d for d in drives if _date(d) in held]
    assert sorted(p.name for p in (task / "public" / "test").iterdir()) == test
    assert sorted(p.name for p in (task / "public" / "train").iterdir()) == [
        d for d in drives if _date(d) in kept]
    truths = sorted((p for d in test for p in (drives_root / d).rglob("ground_truth.csv")),
                    key=lambda p: p.relative_to(drives_root).parts)
    assert [p.parent.parent.name for p in truths][:3] == [test[0], test[0], f"{test[0]}-1"]
    answers = pd.concat([pd.read_csv(p).assign(tripId=f"{p.parent.parent.name}-{p.parent.name}")[
        ["tripId", "UnixTimeMillis", "LatitudeDegrees", "LongitudeDegrees"]] for p in truths],
        ignore_index=True)
    assert _text(task / "private" / "test.csv") == _csv(answers)
    sample = answers.assign(LatitudeDegrees=37.904611315634504,
                            LongitudeDegrees=-86.48107806249548)
    assert _text(task / "public" / "sample_submission.csv") == _csv(sample)
    for side, names in (("test", test), ("train", [d for d in drives if d not in test])):
        for drive in names:
            expected = _files(drives_root / drive)
            if side == "test":
                expected = {k: v for k, v in expected.items()
                            if not k.endswith("ground_truth.csv")}
            assert _files(task / "public" / side / drive) == expected, drive


def test_a_drive_folder_without_a_date_or_a_test_drive_without_truth_is_refused(
        tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    (raw / "train" / "US-MTV-2021").mkdir()
    with pytest.raises(SplitError, match="'US-MTV-2021' holds none"):
        _made(SLUG, raw, tmp_path)
    (raw / "train" / "US-MTV-2021").rmdir()
    for truth in (raw / "train").rglob("ground_truth.csv"):
        truth.unlink()
    with pytest.raises(SplitError, match="hold no ground_truth.csv"):
        _made(SLUG, raw, tmp_path)
    assert not (tmp_path / "data" / "kaggle" / SLUG).exists()


def test_a_drives_entry_with_an_unknown_or_missing_setting_is_refused() -> None:
    entry = dict(load_recipes().special[SLUG])
    assert special_recipe(SLUG, entry).name == "drives"
    with pytest.raises(SplitError, match="(?s)invalid.*test_share"):
        special_recipe(SLUG, {**entry, "test_share": 0.1})
    with pytest.raises(SplitError, match="(?s)invalid.*truth"):
        special_recipe(SLUG, {k: v for k, v in entry.items() if k != "truth"})


def test_a_link_in_a_drive_folder_to_a_file_outside_the_raw_folder_is_refused(
        tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    (tmp_path / "secret.txt").write_text("not the competition's")
    phone = next((raw / "train").iterdir()) / "GooglePixel4"
    (phone / "supplemental" / "notes.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(UnsafePathError, match="notes.txt' resolves outside"):
        _made(SLUG, raw, tmp_path)
    (phone / "supplemental" / "notes.txt").unlink()
    (phone / "supplemental" / "notes.txt").symlink_to(phone / "device_gnss.csv")
    task = _made(SLUG, raw, tmp_path)
    side = "test" if (task / "public" / "test" / phone.parent.name).exists() else "train"
    assert (task / "public" / side / phone.parent.name / "GooglePixel4" / "supplemental" /
            "notes.txt").read_bytes() == (phone / "device_gnss.csv").read_bytes()
