"""The ``lines_table`` and ``remove_word`` transforms (billion-word-imputation's sentences)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tambench.errors import SplitError
from tambench.schema.transforms_tables import LinesTable, RemoveWord
from tambench.splits.transforms_text import lines_table, remove_word

_EMPTY = pl.LazyFrame()


def test_each_line_is_one_row_whatever_it_holds(tmp_path: Path) -> None:
    (tmp_path / "train_v2.txt").write_bytes(
        b'He said , " yes , sir " .\r\nA\tb c\nlast line without a break')
    table, note = lines_table(LinesTable(path="train_v2.txt", column="sentence"), _EMPTY,
                              tmp_path)
    # quotes, commas and tabs are text; the line breaks (\r\n too) are not kept
    assert table.collect()["sentence"].to_list() == [
        'He said , " yes , sir " .', "A\tb c", "last line without a break"]
    assert note == "lines_table: 3 line(s) of train_v2.txt"


@pytest.mark.parametrize(("data", "message"), [
    (b"one\n\nthree\n", r"train_v2.txt, line 2 is blank"),
    (b"", "has no line"),
    (b"ok\n\xff\xfe bad\n", "cannot be read as one text a line"),
])
def test_blank_lines_empty_files_and_bad_bytes_are_refused(
        tmp_path: Path, data: bytes, message: str) -> None:
    (tmp_path / "train_v2.txt").write_bytes(data)
    with pytest.raises(SplitError, match=message):
        lines_table(LinesTable(path="train_v2.txt"), _EMPTY, tmp_path)
    with pytest.raises(SplitError, match="'nope.txt' not found"):
        lines_table(LinesTable(path="nope.txt"), _EMPTY, tmp_path)


def test_one_inner_word_is_removed_by_the_id_and_short_texts_are_dropped() -> None:
    sentences = [f"w0 w1 w2 w3 w4 w5 {i}" for i in range(200)]
    table = pl.LazyFrame({"id": [str(i) for i in range(200)] + ["s1", "s2"],
                          "sentence": [*sentences, "two words", "one"]})
    step = RemoveWord(column="sentence", id_column="id", into="cut")
    out, note = remove_word(step, table, Path("."))
    frame = out.collect()
    assert frame.height == 200 and "2 row(s) with fewer than three words" in note
    removed = set()
    for full, cut in zip(frame["sentence"], frame["cut"], strict=True):
        words, kept = full.split(), cut.split()
        assert len(kept) == len(words) - 1 and kept[0] == words[0] and kept[-1] == words[-1]
        removed.add(next(w for w, k in zip(words, [*kept, None], strict=True) if w != k))
    assert removed == {"w1", "w2", "w3", "w4", "w5"}  # every inner word, never the ends
    # the choice follows the id, not the row's position
    again = remove_word(step, table.reverse(), Path("."))[0].collect()
    assert dict(zip(again["id"], again["cut"], strict=True)) == dict(
        zip(frame["id"], frame["cut"], strict=True))
    other = RemoveWord(column="sentence", id_column="id", into="cut", salt="x")
    assert remove_word(other, table, Path("."))[0].collect()["cut"].to_list() != \
        frame["cut"].to_list()
    with pytest.raises(ValueError, match="must be a new column"):
        RemoveWord(column="sentence", id_column="id", into="sentence")


def test_a_plain_fixture_table_is_one_value_a_line_without_header() -> None:
    from tambench.splits.fixture import RawFixture, generate

    fixture = RawFixture.model_validate({
        "sources": [{"source": "https://example.org/data", "detail": "d"}], "rows": 8,
        "tables": [{"path": "train_v2.txt", "plain": True, "columns": {"s": "seq:a b {i}"}}]})
    assert generate(fixture)[""]["train_v2.txt"] == b"".join(
        f"a b {i}\n".encode() for i in range(8))
