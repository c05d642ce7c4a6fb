"""``prepare --like mle-bench`` of the kind ``mask_records`` (contrails): JSON metadata records
split, the answers the run-length encodings of the test records' NumPy masks.

The digests are of MLE-bench's own files, obtained by running its ``prepare.py`` of
google-research-identify-contrails-reduce-global-warming (openai/mle-bench at 783b15a, in a
separate environment, pandas 3.1.1 and scikit-learn 1.9.1) on the same generated download. The
files are also built here from scikit-learn's ``train_test_split``, NumPy, pandas and Python's
``random``, independently of the kind's code."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.errors import SplitError
from tests.splits.test_like_mlebench import _generated, _made
from tests.splits.test_like_mlebench_case_days import made_as_mle_bench

SLUG = "google-research-identify-contrails-reduce-global-warming"
#: sha256 of MLE-bench's files (bytes), and of the paths of every file it writes in public/.
MLE_FILES = {
    "public/sample_submission.csv":
        "4cfb7f259b8525008b5e644b3d689cdb26bfe74507b6e2657486173c388bddbd",
    "public/train_metadata.json":
        "e74cf59ba6140b96126639c04d317dd872f18535465f2193fb6dd8453c3eb871",
    "private/answers.csv": "c27f66e676357e73196969b4f3aa51c3499ec600bf479921294a20b19dfde41c",
}
MLE_PUBLIC = "4340439686ffd13ecfec549ee661994f22f0fd6f413b9cada019a1eedb39f84d"
BANDS = [f"band_{b:02d}.npy" for b in range(8, 17)]


def _runs(mask: np.ndarray) -> str:
    """``start length`` of the pixels equal to 1, numbered from 1 down each column."""
    flat = [int(v == 1) for v in mask[:, :, 0].flatten(order="F")]
    runs: list[list[int]] = []
    for i, on in enumerate(flat):
        if on and (not runs or runs[-1][0] + runs[-1][1] != i + 1):
            runs.append([i + 1, 0])
        if on:
            runs[-1][1] += 1
    return " ".join(f"{s} {n}" for s, n in runs) or "-"


def test_records_split_with_answers_encoded_from_the_test_masks(tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    for i, path in enumerate(sorted((raw / "train").glob("*/human_pixel_masks.npy"))[:12]):
        mask = np.load(path)
        mask[:] = 0 if i % 2 else 2  # empty, or no pixel equal to the foreground value 1
        np.save(path, mask)
    expected = tmp_path / "made"
    expected.mkdir()
    records = json.loads((raw / "train_metadata.json").read_text())
    kept, held = train_test_split(records, test_size=len(json.loads(
        (raw / "validation_metadata.json").read_text())), random_state=0)
    answers = pd.DataFrame([{
        "record_id": r["record_id"],
        "encoded_pixels": _runs(np.load(raw / "train" / r["record_id"] / "human_pixel_masks.npy")),
        "height": np.load(raw / "train" / r["record_id"] / "band_08.npy").shape[0],
        "width": np.load(raw / "train" / r["record_id"] / "band_08.npy").shape[1]}
        for r in held])
    assert "-" in set(answers["encoded_pixels"]) and len(set(answers["encoded_pixels"])) > 2
    task = _made(SLUG, raw, tmp_path)
    text = (task / "private" / "answers.csv").read_text()
    assert text == answers.to_csv(index=False, lineterminator="\n")
    draw = random.Random(0)
    sample = answers.assign(encoded_pixels=[draw.choice(["1 3 10 5", "-"]) for _ in held])
    assert (task / "public" / "sample_submission.csv").read_text() == sample.to_csv(
        index=False, lineterminator="\n")
    assert (task / "public" / "train_metadata.json").read_text() == json.dumps(kept)
    for side, chosen, names in (("train", kept, [*BANDS, "human_individual_masks.npy",
                                                 "human_pixel_masks.npy"]), ("test", held, BANDS)):
        assert sorted(p.name for p in (task / "public" / side).iterdir()) == sorted(
            r["record_id"] for r in chosen)
        for r in chosen:
            folder = task / "public" / side / r["record_id"]
            assert sorted(p.name for p in folder.iterdir()) == names
            assert all((folder / n).read_bytes() == (raw / "train" / r["record_id"] / n
                                                     ).read_bytes() for n in names)


def test_the_generated_download_split_as_mle_bench_splits_it(tmp_path: Path) -> None:
    raw, task = made_as_mle_bench(SLUG, MLE_FILES, MLE_PUBLIC, tmp_path)
    assert (task / "public" / "validation_metadata.json").read_bytes() == (
        raw / "validation_metadata.json").read_bytes()


def test_a_test_record_missing_a_band_or_a_mask_not_an_array_is_refused(tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    for record in json.loads((raw / "train_metadata.json").read_text())[:4]:
        (raw / "train" / record["record_id"] / "band_16.npy").unlink()
    with pytest.raises(SplitError, match=r"band_16.npy; the raw folder lacks it"):
        _made(SLUG, raw, tmp_path)
    for path in (raw / "train").glob("*/human_pixel_masks.npy"):
        path.write_text("not an array")
    with pytest.raises(SplitError, match="human_pixel_masks.npy as a NumPy array"):
        _made(SLUG, raw, tmp_path)
    assert not (tmp_path / "data" / "kaggle" / SLUG).exists()
