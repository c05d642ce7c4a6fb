"""``prepare --like mle-bench`` of the kind ``case_days`` (UW-Madison GI tract): the cases split
once, then each training case's days after the fourth moved to the test side.

The digests are of MLE-bench's own files, obtained by running its ``prepare.py`` of
uw-madison-gi-tract-image-segmentation (openai/mle-bench at 783b15a, in a separate environment,
pandas 3.1.1 and scikit-learn 1.9.1) on the same generated download. The tables are also
built here from scikit-learn's ``train_test_split`` and pandas, independently of the kind's
code."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.errors import SplitError
from tests.splits.test_like_mlebench import _generated, _made

SLUG = "uw-madison-gi-tract-image-segmentation"
#: sha256 of MLE-bench's files (bytes), and of the paths of every file it writes in public/.
MLE_FILES = {
    "public/sample_submission.csv":
        "2abf0c21a758f13730b25f9b38c92357bd53a90e4f07e590c8ad4037f96e2ed4",
    "public/test.csv": "5397549176ceac95c62ec521f117a285faa9039cc8fc56c0bd72376a372b1fb6",
    "public/train.csv": "fbcacb9f2716e6040d4580ad4f95fd126fdd28b2ae7c98b4c1f2a460e218ad81",
    "private/test.csv": "79eec7a29eccc6910d2e1649cac6cb1f7416506c1ec0c4c7b9c8b98cdcfce8d3",
}
MLE_PUBLIC = "7d60f680b260b941b71351fb0579a9a30855f30c028e72186d06a7592d2b8e34"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def made_as_mle_bench(slug: str, files: dict[str, str], public: str, tmp_path: Path
                      ) -> tuple[Path, Path]:
    """(the generated download's raw folder, our split of it), each of MLE-bench's files
    (``files``: path -> sha256) and the paths of all its public files (``public``) checked."""
    raw = _generated(slug, tmp_path)
    task = _made(slug, raw, tmp_path)
    for rel, digest in files.items():
        assert _sha((task / rel).read_bytes()) == digest, rel
    names = sorted(p.relative_to(task / "public").as_posix()
                   for p in (task / "public").rglob("*") if p.is_file())
    assert _sha("\n".join(names).encode()) == public
    return raw, task


def _expected(raw: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The training rows and the answers, as the script makes them (written here anew)."""
    table = pd.read_csv(raw / "train.csv")
    parts = [i.split("_") for i in table["id"]]
    case = pd.Series([p[0] for p in parts], index=table.index)
    day = pd.Series([p[1] for p in parts], index=table.index)
    _, test_cases = train_test_split(list(dict.fromkeys(case)), test_size=0.1,
                                     random_state=42)
    held = case.isin(list(test_cases))
    for c in case[~held].unique():
        days = sorted(set(day[case.eq(c) & ~held]), key=lambda d: int(d.removeprefix("day")))
        held |= case.eq(c) & day.isin(days[4:])
    test = table[held].rename(columns={"segmentation": "predicted"})
    sizes = []
    for i in test["id"]:
        c, d, s = i.split("_")[0], i.split("_")[1], i.split("_")[-1]
        (image,) = (raw / "train" / c / f"{c}_{d}" / "scans").glob(f"slice_{s}_*.png")
        sizes.append([float(v) for v in image.stem.split("_")[2:4]])
    test = test.assign(image_width=[w for w, _ in sizes], image_height=[h for _, h in sizes])
    return table[~held], test


def test_cases_split_once_then_late_days_moved_to_the_test_side(tmp_path: Path) -> None:
    raw, task = made_as_mle_bench(SLUG, MLE_FILES, MLE_PUBLIC, tmp_path)
    public = task / "public"
    train, answers = _expected(raw)
    text = (task / "private" / "test.csv").read_text()
    assert text == answers.to_csv(index=False, na_rep="", lineterminator="\n")
    assert (task / "public" / "train.csv").read_text() == train.to_csv(
        index=False, na_rep="", lineterminator="\n")
    # case1's days are day6..day11: by number its last two move (not day8 and day9, by text)
    assert (public / "test" / "case1" / "case1_day10").is_dir()
    assert (public / "train" / "case1" / "case1_day9").is_dir()
    assert not (public / "train" / "case1" / "case1_day10").exists()
    assert {p.name for p in (public / "test").iterdir()} == set(
        answers["id"].str.split("_").str[0])
    assert text.splitlines()[1].endswith(",266.0,266.0")


def test_a_test_row_without_its_one_image_or_a_day_without_number_is_refused(
        tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    scans = raw / "train" / "case8" / "case8_day50" / "scans"
    shutil.copyfile(next(scans.glob("*.png")), scans / "slice_0050_300_300_1.50_1.50.png")
    with pytest.raises(SplitError, match="one image train/case8/case8_day50/scans/slice_0050"):
        _made(SLUG, raw, tmp_path)
    shutil.rmtree(raw / "train" / "case8" / "case8_day50")
    with pytest.raises(SplitError, match="lacks it"):
        _made(SLUG, raw, tmp_path)
    table = raw / "train.csv"
    table.write_text(table.read_text().replace("case0_day1_", "case0_dayone_"))
    with pytest.raises(SplitError, match="'dayone' is not day<number>"):
        _made(SLUG, raw, tmp_path)
