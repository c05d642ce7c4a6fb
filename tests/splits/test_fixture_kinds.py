"""Column kinds of the raw fixtures that generate small downloads in a real layout."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl
import pytest

from tambench.splits.fixture import RawFixture, generate
from tambench.splits.tfrecord import decode_example, read_records


def test_ints_columns_are_seeded_comma_joined_integer_sequences() -> None:
    fixture = RawFixture.model_validate({
        "sources": [{"source": "https://www.kaggle.com/competitions/x/data"}], "rows": 30,
        "tables": [{"path": "train.csv", "columns": {"Id": "seq:{i}",
                                                     "Sequence": "ints:-5:900:6"}}]})
    text = generate(fixture, seed=3)[""]["train.csv"].decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 30
    terms = [[int(v) for v in r["Sequence"].split(",")] for r in rows]
    assert all(len(t) == 6 and all(-5 <= v <= 900 for v in t) for t in terms)
    assert len({tuple(t) for t in terms}) == 30
    assert generate(fixture, seed=3)[""]["train.csv"].decode() == text
    assert generate(fixture, seed=4)[""]["train.csv"].decode() != text


def test_tfrecord_files_hold_each_row_once_as_an_example_named_by_their_count(
        tmp_path: Path) -> None:
    fixture = RawFixture.model_validate({
        "sources": [{"source": "https://www.kaggle.com/competitions/x/data"}], "rows": 10,
        "tables": [{"path": "train.csv", "columns": {"id": "seq:{i}.jpg", "y": "int:0:4"}}],
        "files": [{"pattern": "img/{id}", "table": "train.csv"}],
        "records": [{"pattern": "rec/part{shard:02d}-{count}.tfrec", "table": "train.csv",
                     "shards": 3, "features": {"name": "bytes:id", "label": "int:y",
                                               "image": "file:img/{id}"}}]})
    made = generate(fixture, seed=1)
    assert sorted(p for p in made[""] if p.startswith("rec/")) == [
        "rec/part00-4.tfrec", "rec/part01-3.tfrec", "rec/part02-3.tfrec"]
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(made[""]["train.csv"].decode()))}
    seen = []
    for name in ("part00-4", "part01-3", "part02-3"):
        path = tmp_path / name
        path.write_bytes(made[""][f"rec/{name}.tfrec"])
        for record in read_records(path):
            example = decode_example(record)
            (image_id,) = example["name"]
            assert isinstance(image_id, bytes)
            seen.append(image_id.decode())
            assert example["label"] == [int(rows[seen[-1]]["y"])]
            assert example["image"] == [made[""][f"img/{seen[-1]}"]]
    assert sorted(seen) == sorted(rows) and seen != list(rows)  # each row once, shuffled
    fixture.records[0].features["name"] = "text:id"
    with pytest.raises(ValueError, match="unknown TFRecord feature source 'text:id'"):
        generate(fixture, seed=1)


def test_a_parquet_table_of_numbers_has_int_and_float_columns_text_otherwise() -> None:
    fixture = RawFixture.model_validate({
        "sources": [{"source": "https://www.kaggle.com/competitions/x/data"}], "rows": 12,
        "tables": [{"path": "meta.parquet", "numbers": True, "columns": {
            "batch": "group:4:{g}", "x": "float:0:1", "name": "seq:e{i}"}},
            {"path": "text.parquet", "columns": {"batch": "group:4:{g}"}}]})
    made = generate(fixture, seed=0)[""]
    meta = pl.read_parquet(io.BytesIO(made["meta.parquet"]))
    assert meta.schema == {"batch": pl.Int64, "x": pl.Float64, "name": pl.String}
    assert meta["batch"].to_list() == [i // 4 for i in range(12)]
    assert pl.read_parquet(io.BytesIO(made["text.parquet"])).schema == {"batch": pl.String}
