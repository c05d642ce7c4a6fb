"""Raw fixture kinds of numbers and records: JSON-lines tables of Natural Questions records and
BSON tables of products with their pictures, and a table holding another's first rows."""

from __future__ import annotations

import json
from typing import Any

import bson
import pytest

from tambench.splits.fixture import RawFixture, generate

SOURCES = [{"source": "https://www.kaggle.com/competitions/x/data"}]


def _fixture(tables: list[dict[str, Any]], rows: int = 40) -> RawFixture:
    return RawFixture.model_validate({"sources": SOURCES, "rows": rows, "tables": tables})


def test_json_lines_of_numbers_spans_and_one_annotation_per_record() -> None:
    fixture = _fixture([{"path": "train.jsonl", "lines": True, "columns": {
        "long_answer_candidates": "candidates:3", "annotations": "nq_annotation",
        "example_id": "num:-9000000000000000000:9000000000000000000", "n": "count:3"}}])
    text = generate(fixture, seed=1)[""]["train.jsonl"].decode()
    records = [json.loads(line) for line in text.splitlines()]
    assert len(records) == 40 and [r["n"] for r in records] == [3 * i for i in range(40)]
    ids = [r["example_id"] for r in records]
    assert all(isinstance(i, int) for i in ids) and min(ids) < 0 < max(ids)
    assert len(set(ids)) == 40 and max(abs(i) for i in ids) > 2**53  # int64, not doubles
    for r in records:
        spans = r["long_answer_candidates"]
        assert len(spans) == 3 and all(s["start_token"] < s["end_token"] for s in spans)
        assert [s["start_token"] for s in spans] == sorted(s["start_token"] for s in spans)
    anns = [r["annotations"] for r in records]
    assert all(len(a) == 1 for a in anns)
    kinds = [(a[0]["yes_no_answer"], a[0]["long_answer"]["start_token"] == -1,
              len(a[0]["short_answers"])) for a in anns]
    assert kinds[:5] == [("NONE", True, 0), ("YES", False, 0), ("NONE", False, 2),
                         ("NONE", False, 1), ("NONE", False, 0)]
    assert generate(fixture, seed=2)[""]["train.jsonl"].decode() != text


def test_a_bson_table_and_its_first_rows_in_another() -> None:
    columns = {"_id": "count:2", "category_id": "num:10:12", "imgs": "pictures:4"}
    fixture = _fixture([{"path": "train.bson", "columns": columns},
                        {"path": "train_example.bson", "rows": 10, "head_of": "train.bson",
                         "columns": columns}])
    files = generate(fixture)[""]
    docs = list(bson.decode_all(files["train.bson"]))
    assert len(docs) == 40 and [d["_id"] for d in docs] == [2 * i for i in range(40)]
    assert all(list(d) == ["_id", "category_id", "imgs"] for d in docs)
    assert {d["category_id"] for d in docs} <= {10, 11, 12}
    pictures = [p["picture"] for d in docs for p in d["imgs"]]
    assert all(1 <= len(d["imgs"]) <= 4 for d in docs) and len(pictures) > 40
    assert all(p.startswith(b"\xff\xd8") and p.endswith(b"\xff\xd9") for p in pictures)
    assert bson.decode_all(files["train_example.bson"]) == docs[:10]


def test_a_table_can_only_hold_the_first_rows_of_one_listed_before_it() -> None:
    fixture = _fixture([{"path": "head.bson", "rows": 10, "head_of": "train.bson",
                         "columns": {"_id": "count:1"}},
                        {"path": "train.bson", "columns": {"_id": "count:1"}}])
    with pytest.raises(ValueError, match="head.bson holds the first rows of 'train.bson'"):
        generate(fixture)
