"""MLE-bench split kind ``tfrecords`` (cassava) and the TFRecord / Example reader under it."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.errors import SplitError
from tambench.splits.tfrecord import (
    decode_example,
    encode_example,
    frame_records,
    masked_crc,
    read_records,
)
from tests.splits.test_like_mlebench import _csv, _generated, _made, _text

CASSAVA = "cassava-leaf-disease-classification"
#: sha256 of the sorted lines "<sha256 of the file, 16 hex digits> <path>" of every file of
#: public/ and private/ that MLE-bench's prepare.py (openai/mle-bench at 783b15a, tensorflow
#: 2.21 reading the records) wrote from the same generated download.
CASSAVA_TREE = "0c5f3aa1dfd833b2b0d2b9d913b72b9e864b2f1e54062d9e361c05ae48927e37"
#: A TFRecord file that tensorflow 2.21's TFRecordWriter wrote: one Example with
#: image_name=[b"a1.jpg"], target=[3, -2] (int64) and score=[0.25] (float).
TF_WRITTEN = bytes.fromhex(
    "4a00000000000000af77dbb00a480a190a06746172676574120f1a0d0a0b03feffffffffffffffff010a11"
    "0a0573636f7265120812060a040000803e0a180a0a696d6167655f6e616d65120a0a080a0661312e6a7067"
    "387d65de")


def tree_digest(root: Path, skip: frozenset[str] = frozenset()) -> str:
    """sha256 of the sorted lines "<sha256 of the file, 16 hex digits> <path>" of the files
    of ``root``'s public/ and private/ (but the paths in ``skip``)."""
    lines = sorted(f"{hashlib.sha256(p.read_bytes()).hexdigest()[:16]} "
                   f"{p.relative_to(root).as_posix()}"
                   for side in ("public", "private") for p in (root / side).rglob("*")
                   if p.is_file() and p.relative_to(root).as_posix() not in skip)
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()


def test_cassava_split_by_its_tfrecord_files_is_mle_benchs_file_for_file(
        tmp_path: Path) -> None:
    raw = _generated(CASSAVA, tmp_path)
    task = _made(CASSAVA, raw, tmp_path)
    assert tree_digest(task) == CASSAVA_TREE
    # the same built here: the sorted files split, the test rows those of the test files' ids
    files = sorted(p.name for p in (raw / "train_tfrecords").glob("*.tfrec"))
    assert len(files) == 16
    kept, held = train_test_split(files, test_size=0.1, random_state=0)
    ids = {decode_example(r)["image_name"][0].decode()  # type: ignore[union-attr]
           for name in held for r in read_records(raw / "train_tfrecords" / name)}
    frame = pd.read_csv(raw / "train.csv")
    test = frame[frame["image_id"].isin(ids)]
    assert 0 < len(test) < len(frame)
    assert _text(task / "private" / "test.csv") == _csv(test)
    assert _text(task / "public" / "train.csv") == _csv(frame[~frame["image_id"].isin(ids)])
    assert _text(task / "public" / "sample_submission.csv") == _csv(test.assign(label=4))
    for i, name in enumerate(held):
        count = name.split("-")[1].removesuffix(".tfrec")
        copied = task / "public" / "test_tfrecords" / f"ld_test{i:02d}-{count}.tfrec"
        assert copied.read_bytes() == (raw / "train_tfrecords" / name).read_bytes()
    assert sorted(p.name for p in (task / "public" / "test_images").iterdir()) == sorted(ids)


def test_a_corrupt_or_cut_tfrecord_file_is_refused_naming_it(tmp_path: Path) -> None:
    raw = _generated(CASSAVA, tmp_path)
    path = raw / "train_tfrecords" / "ld_train01-4.tfrec"  # a test file of the split
    good = path.read_bytes()
    path.write_bytes(good[:40] + bytes([good[40] ^ 1]) + good[41:])
    with pytest.raises(SplitError, match=r"ld_train01-4.tfrec, record 0 .*do not match its CRC"):
        _made(CASSAVA, raw, tmp_path)
    path.write_bytes(good[:-3])
    with pytest.raises(SplitError, match="ends inside the record's"):
        _made(CASSAVA, raw, tmp_path)
    path.write_bytes(good + b"\x01\x02")
    with pytest.raises(SplitError, match="ends inside a record's header"):
        _made(CASSAVA, raw, tmp_path)
    path.write_bytes(good[:3] + b"\x7f" + good[4:])
    with pytest.raises(SplitError, match="its length does not match its CRC"):
        _made(CASSAVA, raw, tmp_path)
    path.write_bytes(frame_records([encode_example({"target": 1})]))
    with pytest.raises(SplitError, match="no bytes feature 'image_name'"):
        _made(CASSAVA, raw, tmp_path)
    path.write_bytes(frame_records([b"\x0a\x05ab"]))  # a field longer than its message
    with pytest.raises(SplitError, match="record 0: not an Example"):
        _made(CASSAVA, raw, tmp_path)
    path.unlink()
    for other in (raw / "train_tfrecords").iterdir():
        other.rename(other.with_name(other.name.replace("-", "_")))
    with pytest.raises(SplitError, match="by the count after its '-'"):
        _made(CASSAVA, raw, tmp_path)
    assert not (tmp_path / "data" / "kaggle" / CASSAVA).exists()


def test_examples_written_by_tensorflow_are_read_and_ours_read_back(tmp_path: Path) -> None:
    path = tmp_path / "tf.tfrec"
    path.write_bytes(TF_WRITTEN)
    (record,) = list(read_records(path))
    assert decode_example(record) == {"image_name": [b"a1.jpg"], "target": [3, -2],
                                      "score": [0.25]}
    # TFRecord's masked CRC-32C of the 8 length bytes, as TensorFlow wrote it
    assert struct.unpack("<I", TF_WRITTEN[8:12])[0] == masked_crc(TF_WRITTEN[:8])
    ours = encode_example({"image": b"\x00\xff" * 300, "image_name": b"x.jpg", "target": -7})
    assert decode_example(ours) == {"image": [b"\x00\xff" * 300], "image_name": [b"x.jpg"],
                                    "target": [-7]}
    assert frame_records([record]) == TF_WRITTEN
