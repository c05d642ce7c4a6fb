"""The byte-level fast path of the second pass agrees with a plain line-by-line reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tambench.splits.lines as lines_mod
from tambench.errors import SplitError
from tambench.splits.rawcsv import open_table


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
