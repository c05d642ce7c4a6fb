"""Column kinds of the raw fixtures that generate small downloads in a real layout."""

from __future__ import annotations

import csv
import io

from tambench.splits.fixture import RawFixture, generate


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
