"""The byte-level fast path of the second pass agrees with a plain line-by-line reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tambench.splits.prepare as prep


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
@pytest.mark.parametrize("ending", ["\n", "\r\n"])
@pytest.mark.parametrize("trailing", [True, False])
def test_fast_line_split_copies_train_lines_exactly_for_any_block_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int, ending: str,
        trailing: bool) -> None:
    monkeypatch.setattr(prep, "_BLOCK", block)
    rng = np.random.default_rng(0)
    rows = [f"id{i},{'x' * int(rng.integers(0, 40))},{i % 3}" for i in range(200)]
    text = "id,text,label" + ending + ending.join(rows) + (ending if trailing else "")
    table = tmp_path / "t.csv"
    table.write_bytes(text.encode())
    mask = rng.random(200) < 0.3
    test = prep.split_lines(table, mask, tmp_path / "train.csv")
    assert test is not None
    header = "id,text,label" + ending
    # A last line without a terminator is given "\n" when it is copied.
    ends = [ending] * (len(rows) - 1) + [ending if trailing else "\n"]
    want_train = header + "".join(r + e for r, e, m in zip(rows, ends, mask, strict=True)
                                  if not m)
    want_test = header + "".join(r + e for r, e, m in zip(rows, ends, mask, strict=True) if m)
    assert (tmp_path / "train.csv").read_bytes().decode() == want_train
    assert test.decode() == want_test


def test_fast_path_declines_quoted_files_and_row_count_mismatches(tmp_path: Path) -> None:
    quoted = tmp_path / "q.csv"
    quoted.write_text('id,text\n1,"a\nb"\n2,c\n')
    assert prep.split_lines(quoted, np.array([True, False]), tmp_path / "o.csv") is None
    blank = tmp_path / "b.csv"
    blank.write_text("id,x\n1,a\n\n2,b\n")
    assert prep.split_lines(blank, np.array([True, False]), tmp_path / "o2.csv") is None
