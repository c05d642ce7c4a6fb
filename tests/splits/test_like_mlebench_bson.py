"""``prepare --like mle-bench`` of cdiscount-image-classification-challenge: the split kind
``bson`` (a BSON file's documents split by their ids).

The expected files are built here from the raw file's bytes (its documents cut at their length
prefixes) with scikit-learn's ``train_test_split`` and pandas, and compared byte for byte. The
digests are of MLE-bench's own files: its ``prepare.py`` of the competition (openai/mle-bench
at 783b15a) run in a separate environment on the same generated download (the task's
``raw_fixture_mlebench.json``)."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import bson
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.errors import SplitError
from tests.splits.test_like_mlebench import _generated, _made

SLUG = "cdiscount-image-classification-challenge"
#: sha256 of "\n".join(_id) of MLE-bench's private/answers.csv (30 rows).
ANSWER_IDS = "8af8b7df9be2354d38740bbc06894ec89c937e352babff7ac12217bd9a85ee63"
#: sha256 of MLE-bench's public/ BSON files.
MLE_FILES = {
    "train.bson": "3c83721381d2fc909c0bc90c92e932bb145fb5179c3eda569d5f74c012c8a307",
    "test.bson": "1ad7f69f8033c8b97f334a03794c2cc5ecf706d0f21c02d1c226f4a197904d63",
    "train_example.bson": "0c7e8f80afa1579e80acf3789086de8c1251e90d928e22fa70efaa38e0fabfeb",
}


def _documents(data: bytes) -> list[bytes]:
    """The documents of a BSON file, cut at their int32 length prefixes."""
    docs, pos = [], 0
    while pos < len(data):
        (size,) = struct.unpack_from("<i", data, pos)
        docs.append(data[pos:pos + size])
        pos += size
    return docs


def _csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, lineterminator="\n")


def test_a_bson_files_documents_split_by_id_with_sorted_answers(tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    task = _made(SLUG, raw, tmp_path)
    docs = _documents((raw / "train.bson").read_bytes())
    decoded = [bson.decode(d) for d in docs]
    assert len(docs) == 300 and all(d["imgs"] for d in decoded)
    frame = pd.DataFrame([{"_id": d["_id"], "category_id": d["category_id"]} for d in decoded])
    train, test = train_test_split(frame, test_size=0.1, random_state=0)
    answers = test.sort_values(by="_id")
    assert list(answers["_id"]) != list(test["_id"])  # the split shuffles; the answers sort
    assert (task / "private" / "answers.csv").read_text() == _csv(answers)
    assert hashlib.sha256("\n".join(str(i) for i in answers["_id"]).encode()
                          ).hexdigest() == ANSWER_IDS
    sample = answers[["_id"]].assign(category_id=1000010653)
    assert (task / "public" / "sample_submission.csv").read_text() == _csv(sample)
    kept = set(train["_id"])
    training = [d for d, x in zip(docs, decoded, strict=True) if x["_id"] in kept]
    public = task / "public"
    assert (public / "train.bson").read_bytes() == b"".join(training)
    assert (public / "train_example.bson").read_bytes() == b"".join(training[:100])
    held = [bson.decode(d) for d in _documents((public / "test.bson").read_bytes())]
    assert [d["_id"] for d in held] == [x["_id"] for x in decoded if x["_id"] in set(test["_id"])]
    by_id = {x["_id"]: x for x in decoded}
    assert all(list(d) == ["_id", "imgs"] and d["imgs"] == by_id[d["_id"]]["imgs"] for d in held)
    for name, digest in MLE_FILES.items():
        assert hashlib.sha256((public / name).read_bytes()).hexdigest() == digest, name
    assert (public / "category_names.csv").read_bytes() == (raw / "category_names.csv"
                                                            ).read_bytes()
    assert sorted(p.name for p in (task / "private").iterdir()) == ["answers.csv"]


def test_a_document_without_its_label_or_a_file_that_is_not_bson_is_refused(
        tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    docs = [{"_id": i, "category_id": 7, "imgs": []} for i in range(5)] + [{"_id": 5, "imgs": []}]
    (raw / "train.bson").write_bytes(b"".join(bson.encode(d) for d in docs))
    with pytest.raises(SplitError, match=r"document 5 lacks the field\(s\) \['category_id'\]"):
        _made(SLUG, raw, tmp_path)
    (raw / "train.bson").write_bytes(b"\x30\x00\x00\x00not bson at all")
    with pytest.raises(SplitError, match="train.bson is not a BSON file"):
        _made(SLUG, raw, tmp_path)
    (raw / "train.bson").unlink()
    with pytest.raises(SplitError, match="BSON file train.bson; the raw folder lacks it"):
        _made(SLUG, raw, tmp_path)
    assert not (tmp_path / "data" / "kaggle" / SLUG).exists()
