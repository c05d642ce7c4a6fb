"""The numpy reader of quote-free blocks gives what a CSV parser gives, and refuses what it must."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from tambench.splits.plainblock import block_fields

VALUES = ["a", "", " b ", "é", "12.50", "007", "x y", "NaN", "\u00a0", "日本"]


def _block(rng: np.random.Generator, n_fields: int, rows: int, crlf: bool,
           final_end: bool) -> bytes:
    lines = [",".join(VALUES[int(i)] for i in rng.integers(0, len(VALUES), n_fields))
             for _ in range(rows)]
    lines = [line if line else "z" for line in lines]  # a one-field blank line is another case
    end = "\r\n" if crlf else "\n"
    return (end.join(lines) + (end if final_end else "")).encode()


@pytest.mark.parametrize("n_fields", [1, 2, 5])
@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("final_end", [False, True])
def test_the_fields_and_line_ends_are_what_a_csv_parser_reads(
        n_fields: int, crlf: bool, final_end: bool) -> None:
    rng = np.random.default_rng(n_fields * 4 + crlf * 2 + final_end)
    data = _block(rng, n_fields, 300, crlf, final_end)
    header = ",".join(f"c{j}" for j in range(n_fields)).encode() + b"\n"
    want = pl.read_csv(header + data, infer_schema=False)
    found = block_fields(data, n_fields, list(range(n_fields))[::-1])
    assert found is not None
    for j, values in zip(range(n_fields - 1, -1, -1), found.fields, strict=True):
        assert values.to_pylist() == want[f"c{j}"].to_list()
    lf = [i for i, b in enumerate(data) if b == 10]
    assert found.ends.tolist() == (lf if final_end else [*lf, len(data)])


def test_a_header_only_block_has_empty_columns() -> None:
    found = block_fields(b"", 3, [0, 2])
    assert found is not None
    assert found.ends.size == 0 and [len(a) for a in found.fields] == [0, 0]


@pytest.mark.parametrize(("data", "n_fields"), [
    (b"1,a\n2,b,c\n3,d\n", 2),          # one line with a field more
    (b"1,a\n2\n3,d\n", 2),              # one line with a field less
    (b"1,a,b\n2\n3,d\n", 2),            # a field more and one less: the total is right
    (b"1\n2,a,b\n", 2),                 # the same, the other way round
    (b"1,a\n\n3,d\n", 2),               # a blank line
    (b"1,a\r\n\r\n3,d\r\n", 2),         # a blank CRLF line
    (b"1\n\n3\n", 1),                   # a blank line in a one-column table
    (b"1\n\r\n3\n", 1),
    (b"1,a\n2,\xff\n", 2),              # not UTF-8
])
def test_a_block_that_is_not_rows_of_the_header_gives_none(data: bytes, n_fields: int) -> None:
    assert block_fields(data, n_fields, [0]) is None
    assert block_fields(bytearray(data), n_fields, []) is None
