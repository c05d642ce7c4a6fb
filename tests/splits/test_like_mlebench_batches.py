"""MLE-bench split kind ``batches`` (IceCube): a Parquet table's batches split."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.errors import SplitError
from tests.splits.test_like_mlebench import _csv, _generated, _made, _text
from tests.splits.test_like_mlebench_tfrecords import tree_digest

ICECUBE = "icecube-neutrinos-in-deep-ice"
#: tree_digest of the files of public/ and private/ but the two Parquet tables that MLE-bench's
#: prepare.py (openai/mle-bench at 783b15a) wrote from the same generated download. Its
#: Parquet tables were the same bytes too with fastparquet 2026.9.0; fastparquet writes its
#: version into them, so they are compared by content below.
ICECUBE_FILES = "c7946024e318f87011c1b154d4f89abe3c540947ea43e3eaf08c71fd2a0d2305"


def test_icecube_split_by_its_batches_is_mle_benchs(tmp_path: Path) -> None:
    pytest.importorskip("fastparquet")
    raw = _generated(ICECUBE, tmp_path)
    task = _made(ICECUBE, raw, tmp_path)
    tables = frozenset({"public/train_meta.parquet", "public/test_meta.parquet"})
    assert tree_digest(task, tables) == ICECUBE_FILES
    # the same built here: the batches' values split, rows kept in order per side
    frame = pd.read_parquet(raw / "train_meta.parquet")
    kept, held = train_test_split(frame["batch_id"].unique(), test_size=0.1, random_state=0)
    assert len(held) == 2
    train = frame[frame["batch_id"].isin(kept)].reset_index(drop=True)
    test = frame[frame["batch_id"].isin(held)].reset_index(drop=True)
    pd.testing.assert_frame_equal(pd.read_parquet(task / "public" / "train_meta.parquet"), train)
    pd.testing.assert_frame_equal(pd.read_parquet(task / "public" / "test_meta.parquet"),
                                  test.drop(columns=["azimuth", "zenith"]))
    answers = test[["event_id", "azimuth", "zenith"]]
    assert _text(task / "private" / "test.csv") == _csv(answers)
    assert _text(task / "public" / "sample_submission.csv") == _csv(
        answers.assign(azimuth=1, zenith=1))
    assert sorted(p.name for p in (task / "public" / "test").iterdir()) == sorted(
        f"batch_{b}.parquet" for b in held)
    for b in kept:
        name = f"batch_{b}.parquet"
        assert (task / "public" / "train" / name).read_bytes() == (
            raw / "train" / name).read_bytes()


def test_a_batch_without_its_file_or_a_file_without_a_number_is_refused(
        tmp_path: Path) -> None:
    raw = _generated(ICECUBE, tmp_path)
    (raw / "train" / "batch_3.parquet").unlink()
    with pytest.raises(SplitError, match=r"into public/train: 17 file\(s\) for 18 batches"):
        _made(ICECUBE, raw, tmp_path)
    (raw / "train" / "batch_last.parquet").write_bytes(b"x")
    with pytest.raises(SplitError, match="batch number after the last '_' of batch_last"):
        _made(ICECUBE, raw, tmp_path)
    frame = pd.read_parquet(raw / "train_meta.parquet").drop(columns=["zenith"])
    frame.to_parquet(raw / "train_meta.parquet", index=False)
    with pytest.raises(SplitError, match=r"lacks column\(s\) \['zenith'\]"):
        _made(ICECUBE, raw, tmp_path)
    assert not (tmp_path / "data" / "kaggle" / ICECUBE).exists()
