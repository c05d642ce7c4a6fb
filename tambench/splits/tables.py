"""Two-table strategies: the training table is the train set, a raw file holds the test rows.

Every file (training table, test rows, answers) is checked row by row before it is parsed;
ids must be present and unique; every answer must hold a label; test rows and answers must
hold the same ids. public/train.csv is written back through the parser (the byte convention
of :mod:`tambench.splits.layout`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from tambench.errors import SplitError
from tambench.splits.layout import PUBLIC_DIR, TRAIN_FILE, SplitPlan
from tambench.splits.rawcsv import (
    EMPTY_LABEL,
    RawTable,
    describe_rows,
    polars_reason,
    scan_table,
)
from tambench.splits.report import ClassBalance, RowCounts, SampleReport
from tambench.splits.write import (
    class_balance,
    placeholder,
    require_columns,
    test_order,
    write_test_side,
)


@dataclass(frozen=True)
class TwoTableResult:
    """What the two-table split produced, for the split report."""

    rows: RowCounts
    sample: SampleReport
    class_balance: dict[str, ClassBalance]


@dataclass(frozen=True)
class _Checked:
    table: RawTable
    rows: int
    plain: bool


def _check(table: RawTable) -> _Checked:
    scan = scan_table(table)
    return _Checked(table, scan.rows, not scan.quoted)


def _read(t: _Checked, columns: list[str] | None = None) -> pl.DataFrame:
    lf = pl.scan_csv(t.table.path, infer_schema=False).head(t.rows)
    if columns is not None:
        lf = lf.select(columns)
    try:
        return lf.collect(engine="streaming")
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {t.table.label}: {polars_reason(exc)}") from exc


def _check_ids(t: _Checked, ids: pl.Series) -> None:
    missing = np.flatnonzero(ids.is_null().to_numpy())
    if missing.size:
        raise SplitError(f"{t.table.label}: {missing.size} row(s) have no value in id column "
                         f"{ids.name!r} ({describe_rows(t.table, missing, t.plain)})")
    dup = np.flatnonzero(ids.is_duplicated().to_numpy())
    if dup.size:
        values = ids.gather(dup).unique(maintain_order=True)
        raise SplitError(
            f"{t.table.label}: id column {ids.name!r} has {values.len()} duplicated value(s), "
            f"e.g. {values.head(5).to_list()} ({describe_rows(t.table, dup, t.plain)}); ids must "
            "be unique")


def _check_labels(t: _Checked, df: pl.DataFrame, targets: list[str]) -> None:
    for col in targets:
        values = df[col]
        bad = np.flatnonzero(
            (values.is_null() | values.str.contains(EMPTY_LABEL).fill_null(False)).to_numpy())
        if bad.size:
            raise SplitError(
                f"{t.table.label}: target column {col!r} has no label in {bad.size} row(s) "
                f"({describe_rows(t.table, bad, t.plain)}): empty cells and NaN cannot be "
                "scored; fill them in or remove those rows from the raw data")


def _test_rows(plan: SplitPlan, test: _Checked, answers: _Checked | None) -> pl.DataFrame:
    """The test rows joined with their answers, in the test file's order."""
    require_columns(test.table.columns, [plan.id_column], test.table.label)
    rows = _read(test)
    _check_ids(test, rows[plan.id_column])
    if answers is None:
        require_columns(rows.columns, plan.answer_columns, test.table.label)
        _check_labels(test, rows, plan.labelled_columns)
        return rows
    require_columns(answers.table.columns, [plan.id_column, *plan.hidden_columns],
                    answers.table.label)
    ans = _read(answers, [c for c in plan.answer_columns if c in answers.table.columns])
    _check_ids(answers, ans[plan.id_column])
    _check_labels(answers, ans, plan.labelled_columns)
    extra = ans.join(rows, on=plan.id_column, how="anti")[plan.id_column]
    lacking = rows.join(ans, on=plan.id_column, how="anti")[plan.id_column]
    if extra.len() or lacking.len():
        raise SplitError(
            f"{answers.table.label} and {test.table.label} hold different ids: "
            f"{lacking.len()} test id(s) without an answer (e.g. {lacking.head(3).to_list()}), "
            f"{extra.len()} answer(s) without a test row (e.g. {extra.head(3).to_list()})")
    keep = [c for c in rows.columns if c not in ans.columns or c == plan.id_column]
    return rows.select(keep).join(ans, on=plan.id_column, how="left", maintain_order="left")


def _write_train(plan: SplitPlan, train: _Checked, out: Path) -> pl.DataFrame:
    """Write public/train.csv; return the id and target columns of the train rows."""
    require_columns(train.table.columns, [plan.id_column, *plan.hidden_columns],
                    train.table.label)
    keep = [c for c in train.table.columns if c not in plan.dropped_columns]
    path = out / PUBLIC_DIR / TRAIN_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        pl.scan_csv(train.table.path, infer_schema=False).head(train.rows).select(
            keep).sink_csv(path)
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {train.table.label}: {polars_reason(exc)}") from exc
    keys = _read(train, list(dict.fromkeys([plan.id_column, *plan.hidden_columns])))
    _check_ids(train, keys[plan.id_column])
    _check_labels(train, keys, plan.labelled_columns)
    return keys


def split_two_tables(plan: SplitPlan, train_table: RawTable, test_table: RawTable,
                     answers_table: RawTable | None, out: Path) -> TwoTableResult:
    """Split with the test rows of ``test_table`` (answers in ``answers_table``, or in the
    test table itself when None)."""
    train = _check(train_table)
    test = _check(test_table)
    answers = _check(answers_table) if answers_table is not None else None
    train_keys = _write_train(plan, train, out)
    rows = _test_rows(plan, test, answers)
    columns = [*test.table.columns, *[c for c in rows.columns if c not in test.table.columns]]

    def train_values(col: str) -> pl.Series | None:
        return train_keys[col] if col in train_keys.columns else None

    def fill(col: str, kind: str | None) -> str | None:
        values = train_values(col)
        return placeholder(values, kind) if values is not None else None

    order = test_order(rows[plan.id_column], plan)
    sample = write_test_side([rows.select(pl.all().gather(pl.Series(order)))], fill, plan, out,
                             columns)
    balance = {}
    for col in plan.hidden_columns:
        values = train_values(col)
        if values is not None and col in rows.columns:
            bal = class_balance(values, rows[col])
            if bal is not None:
                balance[col] = bal
    return TwoTableResult(RowCounts.of(train_keys.height, rows.height), sample, balance)
