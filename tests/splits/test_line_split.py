"""The byte-level fast path of the second pass agrees with a plain line-by-line reference,
whether it finds the line ends itself or takes those of the first pass."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

import tambench.splits.keys as keys_mod
import tambench.splits.lines as lines_mod
from tambench.errors import SplitError
from tambench.splits.checksums import compute_checksums
from tambench.splits.keys import KeyPass, read_keys
from tambench.splits.rawcsv import RawTable, open_table


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
@pytest.mark.parametrize("ending", ["\n", "\r\n"])
@pytest.mark.parametrize("trailing", [True, False])
@pytest.mark.parametrize("bom", [True, False])
def test_fast_line_split_copies_train_lines_with_lf_ends_for_any_block_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, ending: str,
        trailing: bool, bom: bool) -> None:
    monkeypatch.setattr(lines_mod, "BLOCK_BYTES", block)
    rng = np.random.default_rng(0)
    rows = [f"id{i},{'x' * int(rng.integers(0, 40))},{i % 3}" for i in range(200)]
    text = "id,text,label" + ending + ending.join(rows) + (ending if trailing else "")
    table = tmp_path / "t.csv"
    table.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    mask = rng.random(200) < 0.3
    test = lines_mod.split_lines(open_table(table, "t.csv"), mask, tmp_path / "train.csv")
    # public/train.csv: no byte-order mark, LF line ends, every other byte as in the raw file
    want_train = "id,text,label\n" + "".join(r + "\n" for r, m in zip(rows, mask, strict=True)
                                             if not m)
    assert (tmp_path / "train.csv").read_bytes().decode() == want_train
    # the test lines keep their raw bytes (they are parsed, then written like every table)
    ends = [ending] * (len(rows) - 1) + [ending if trailing else "\n"]
    want_test = "id,text,label\n" + "".join(
        r + e for r, e, m in zip(rows, ends, mask, strict=True) if m)
    assert test.decode() == want_test


def test_a_table_that_changed_since_the_first_pass_is_refused(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("id,x\n1,a\n2,b\n3,c\n")
    with pytest.raises(SplitError, match="changed while it was being split"):
        lines_mod.split_lines(open_table(table, "t.csv"), np.array([True, False]),
                              tmp_path / "o.csv")


def test_arrow_int64_holds_a_copy_in_arrow_memory() -> None:
    values = np.arange(5, dtype=np.int64)
    arr = lines_mod.arrow_int64(values)
    values[:] = 0  # the arrow array does not see changes to the numpy array: it is a copy
    assert arr.to_pylist() == [0, 1, 2, 3, 4]
    assert arr.buffers()[1].address != values.ctypes.data


def _table_and_keys(tmp_path: Path, ending: str, trailing: bool) -> tuple[RawTable, KeyPass]:
    rng = np.random.default_rng(1)
    rows = [f"id{i},{'x' * int(rng.integers(0, 40))},{i % 3}" for i in range(200)]
    path = tmp_path / "t.csv"
    path.write_bytes(("id,text,label" + ending + ending.join(rows)
                      + (ending if trailing else "")).encode())
    table = open_table(path, "t.csv")
    return table, read_keys(table, "id", ["label"], 0)


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
@pytest.mark.parametrize("ending", ["\n", "\r\n"])
@pytest.mark.parametrize("trailing", [True, False])
def test_the_line_ends_of_the_first_pass_give_the_same_split_and_the_written_digest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, ending: str,
        trailing: bool) -> None:
    monkeypatch.setattr(lines_mod, "BLOCK_BYTES", block)
    monkeypatch.setattr(keys_mod, "KEY_BLOCK_BYTES", block)
    table, keys = _table_and_keys(tmp_path, ending, trailing)
    assert keys.line_ends is not None and keys.line_ends.size == 200
    mask = np.random.default_rng(2).random(200) < 0.3
    (tmp_path / "known").mkdir()
    (tmp_path / "scanned").mkdir()
    _, known = lines_mod.split_line_parts(table, mask, tmp_path / "known/train.csv",
                                          keys.line_ends)
    _, scanned = lines_mod.split_line_parts(table, mask, tmp_path / "scanned/train.csv")
    written = (tmp_path / "known/train.csv").read_bytes()
    assert written == (tmp_path / "scanned/train.csv").read_bytes()
    assert known.to_pylist() == scanned.to_pylist()
    # checksums.json takes the digest made while writing: the digest of the bytes written
    assert compute_checksums(tmp_path / "known", written=True) == {
        "train.csv": hashlib.sha256(written).hexdigest()}


def test_a_digest_made_while_writing_is_not_used_once_the_file_changed(tmp_path: Path) -> None:
    table, keys = _table_and_keys(tmp_path, "\n", True)
    (tmp_path / "out").mkdir()
    train = tmp_path / "out/train.csv"
    lines_mod.split_line_parts(table, np.zeros(200, dtype=bool), train, keys.line_ends)
    train.write_bytes(train.read_bytes() + b"extra,row,0\n")
    assert compute_checksums(tmp_path / "out", written=True) == {
        "train.csv": hashlib.sha256(train.read_bytes()).hexdigest()}


def test_a_table_that_changed_after_its_line_ends_were_read_is_refused(tmp_path: Path) -> None:
    table, keys = _table_and_keys(tmp_path, "\n", True)
    table.path.write_bytes(table.path.read_bytes().replace(b"id5,", b"id5,,", 1))
    with pytest.raises(SplitError, match="changed while it was being split"):
        lines_mod.split_line_parts(table, np.zeros(200, dtype=bool), tmp_path / "o.csv",
                                   keys.line_ends)
