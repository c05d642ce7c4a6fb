"""The row_number transform: an id for a training table that has none."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tambench.errors import SplitError
from tambench.splits.prepare import prepare_task
from tests.splits.helpers import make_spec, read


def _no_id_table(raw: Path, n: int = 40) -> None:
    raw.mkdir(parents=True)
    pl.DataFrame({"ACTION": [str(i % 2) for i in range(n)],
                  "RESOURCE": [str(1000 + 7 * i) for i in range(n)]}).write_csv(raw / "train.csv")


def test_rows_are_numbered_in_the_raw_order_and_keep_their_values(tmp_path: Path) -> None:
    _no_id_table(tmp_path / "raw")
    split = {"strategy": "random", "test_size": 0.25, "train_file": "train.csv",
             "transforms": [{"op": "row_number", "column": "id", "start": 1}]}
    res = prepare_task(make_spec("amazon", split, targets=("ACTION",), metric="roc_auc"),
                       tmp_path / "raw", tmp_path / "data")
    rows = pl.concat([read(res.task_dir / "public/train.csv").select("id", "RESOURCE"),
                      read(res.task_dir / "public/test.csv").select("id", "RESOURCE")])
    numbered = {int(i): int(r) for i, r in rows.iter_rows()}
    assert sorted(numbered) == list(range(1, 41))
    assert all(r == 1000 + 7 * (i - 1) for i, r in numbered.items())
    answers = read(res.task_dir / "private/answers.csv")
    assert answers.height == 10 and set(answers.columns) == {"id", "ACTION"}


def test_a_column_already_there_is_refused(tmp_path: Path) -> None:
    _no_id_table(tmp_path / "raw")
    split = {"strategy": "random", "train_file": "train.csv",
             "transforms": [{"op": "row_number", "column": "RESOURCE"}]}
    with pytest.raises(SplitError, match="row_number: the table already has a column "
                                         "'RESOURCE'"):
        prepare_task(make_spec("amazon", split, id_col="RESOURCE", targets=("ACTION",),
                               metric="roc_auc"), tmp_path / "raw", tmp_path / "data")
