"""``aggregate`` with ``skip_empty`` (airbus' images without a ship) and the ``rle`` fixture
kind that lays such a table out."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from tambench.schema.transforms import Aggregate
from tambench.splits.transforms import TRANSFORMS


def _ships(skip: bool) -> dict[str, str]:
    table = pl.LazyFrame({"ImageId": ["a", "a", "b", "c"],
                          "EncodedPixels": ["1 5", "21 3", None, "7 2"]})
    step = Aggregate(key="ImageId", column="EncodedPixels", template="{EncodedPixels}",
                     separator="|", skip_empty=skip)
    out = TRANSFORMS["aggregate"](step, table, Path("."))[0].collect()
    return dict(zip(out["ImageId"], out["EncodedPixels"], strict=True))


def test_empty_items_are_left_out_only_when_asked() -> None:
    assert _ships(True) == {"a": "1 5|21 3", "b": "", "c": "7 2"}
    assert _ships(False)["a"] == "1 5|21 3"
    dumped = Aggregate(key="k", column="c", template="{v}").model_dump()
    assert "skip_empty" not in dumped  # recipes written before it keep their bytes
    assert Aggregate(key="k", column="c", template="{v}", skip_empty=True).model_dump()[
        "skip_empty"] is True


def test_the_rle_fixture_kind_gives_blocks_of_objects_and_empty_blocks() -> None:
    from tambench.splits.fixture import RawFixture, generate

    fixture = RawFixture.model_validate({
        "sources": [{"source": "https://example.org/data", "detail": "d"}], "rows": 12,
        "tables": [{"path": "ships.csv", "columns": {"ImageId": "group:2:img{g}",
                                                     "EncodedPixels": "rle:2:3"}}]})
    rows = generate(fixture)[""]["ships.csv"].decode().splitlines()[1:]
    cells = [r.split(",")[1] for r in rows]
    # blocks 0, 1 hold objects, block 2 (rows 4, 5) is empty, then again
    assert [c == "" for c in cells] == [False, False, False, False, True, True] * 2
    starts = [int(c.split()[0]) for c in cells if c]
    assert len(set(starts)) == len(starts) and all(s % 100 == 1 for s in starts)
