"""Split strategies: one registry (``"split strategy"``), one entry per strategy of the spec.

A one-table strategy (:class:`RowStrategy`) names the key columns its first pass must code and
turns that pass into a test mask; a two-table strategy (:class:`TableStrategy`) names the raw
files that hold its test rows and their answers. What a strategy's spec may say (its fields,
their documentation and validation) is the task contract, in
:mod:`tambench.schema.splitspec`; a test checks that both name the same strategies.

Adding a strategy is one module: its spec model (a subclass of
:class:`~tambench.schema.splitspec.OneTableSplit` or ``SplitSpec`` with
``strategy: Literal[name]``) and its :class:`RowStrategy` or :class:`TableStrategy`, registered
together by :func:`register_strategy`; a task.json naming the strategy then loads and prepares
like a built-in one (docs/extending.md has a worked example). The built-in spec models live in
the schema layer, which cannot import this module, and are registered there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import polars as pl

from tambench.core.registry import Registry
from tambench.errors import SplitError
from tambench.schema.splitspec import (
    DEFAULT_TEST_SIZE,
    SPLIT_MODELS,
    GroupSplit,
    HoldoutFileSplit,
    HoldoutValueSplit,
    OfficialSplit,
    OneTableSplit,
    RandomSplit,
    SplitSpec,
    StratifiedSplit,
    TimeSplit,
    strategy_name,
)
from tambench.splits.assign import assign_groups, assign_random, assign_stratified, assign_time
from tambench.splits.hashing import stable_hash
from tambench.splits.keys import CodedColumn, KeyPass
from tambench.splits.layout import SplitPlan
from tambench.splits.periods import cutoff_code, parse_periods
from tambench.splits.report import GroupCounts, TimeRanges

#: Stands for a missing value in a stratum key.
MISSING = "\x00<missing>"


@dataclass(frozen=True)
class Assignment:
    """The outcome of a one-table strategy."""

    mask: np.ndarray
    """True for test rows, in the table's row order."""
    strata: int | None = None
    groups: GroupCounts | None = None
    time: TimeRanges | None = None


@dataclass(frozen=True)
class RowStrategy:
    """Assigns the rows of one table to train or test."""

    key_columns: Callable[[SplitPlan], list[str]]
    """Columns (besides the id) the first pass must code for :attr:`assign`."""
    assign: Callable[[KeyPass, SplitPlan], Assignment]
    """The test mask from the first pass."""


@dataclass(frozen=True)
class TableStrategy:
    """Takes its test rows from a raw file of their own."""

    files: Callable[[SplitSpec], tuple[str, str]]
    """(file of the test rows, file of their answers) inside the raw data; may be the same."""


Strategy = RowStrategy | TableStrategy

STRATEGIES: Registry[Strategy] = Registry(
    "split strategy", error=SplitError,
    hint="register_strategy adds one with its spec model")

S = TypeVar("S", bound=SplitSpec)


def register_strategy(name: str, spec_model: type[SplitSpec], strategy: Strategy) -> None:
    """Register a split strategy: its spec model (what a task.json may say) and how it splits.

    ``spec_model`` declares ``strategy: Literal[name] = name``; a one-table model
    (:class:`OneTableSplit`) goes with a :class:`RowStrategy`, any other with a
    :class:`TableStrategy`. Both halves are registered, or neither.
    """
    declared = strategy_name(spec_model)
    if declared != name:
        raise ValueError(f"{spec_model.__name__} declares strategy {declared!r}, not {name!r}")
    one_table = issubclass(spec_model, OneTableSplit)
    if one_table != isinstance(strategy, RowStrategy) or not isinstance(strategy, Strategy):
        raise ValueError(f"{spec_model.__name__} {'assigns' if one_table else 'does not assign'} "
                         f"the rows of one table: register it with a "
                         f"{'RowStrategy' if one_table else 'TableStrategy'}")
    for registry in (SPLIT_MODELS, STRATEGIES):
        if name in registry:
            raise ValueError(f"split strategy {name!r} registered twice")
    SPLIT_MODELS.register(name, spec_model)
    STRATEGIES.register(name, strategy)


def unregister_strategy(name: str) -> None:
    """Remove both halves of a strategy (for tests and examples that register their own)."""
    STRATEGIES.unregister(name)
    SPLIT_MODELS.unregister(name)


def _spec(plan: SplitPlan, kind: type[S]) -> S:
    if not isinstance(plan.split, kind):
        raise SplitError(f"internal: a {kind.__name__} strategy got a {plan.split.strategy} spec")
    return plan.split


def _no_missing(col: CodedColumn, column: str, what: str) -> CodedColumn:
    if col.nulls:
        raise SplitError(f"{what} column {column!r} has {col.nulls} missing value(s)")
    return col


# --- random ----------------------------------------------------------------------------------


def _assign_random(keys: KeyPass, plan: SplitPlan) -> Assignment:
    return Assignment(assign_random(keys.id_hashes, _spec(plan, RandomSplit).test_size))


STRATEGIES.register("random", RowStrategy(lambda plan: [], _assign_random))


# --- stratified ------------------------------------------------------------------------------


def _normalised(values: pl.Series) -> pl.Series:
    """A label set's key: its whitespace-separated tokens, sorted, joined by one space."""
    return values.str.extract_all(r"\S+").list.sort().list.join(" ")


def strata_codes(keys: KeyPass, columns: list[str]) -> tuple[np.ndarray, int]:
    """One stratum code per row and the number of strata.

    A stratum is the label set of each column (tokens sorted; a missing value is its own
    label), joined over the columns; codes follow the sorted order of those keys.
    """
    per_row: list[np.ndarray] = []
    names: list[pl.Series] = []
    for c in columns:
        col = keys.column(c)
        norm = pl.concat([_normalised(col.values), pl.Series([MISSING], dtype=pl.String)])
        uniq = norm.unique().sort()
        to_uniq = uniq.search_sorted(norm).to_numpy().astype(np.int64)
        codes = np.where(col.codes < 0, col.values.len(), col.codes)
        per_row.append(to_uniq[codes])
        names.append(uniq)
    if len(columns) == 1:
        used, inverse = np.unique(per_row[0], return_inverse=True)
        return inverse.astype(np.int64), int(used.size)
    combined = np.zeros(keys.rows, dtype=np.int64)
    for codes, uniq in zip(per_row, names, strict=True):
        combined = combined * uniq.len() + codes
    combos, inverse = np.unique(combined, return_inverse=True)
    keys_text = []
    for combo in combos.tolist():
        parts = []
        for uniq in reversed(names):
            combo, part = divmod(combo, uniq.len())
            parts.append(str(uniq[part]))
        keys_text.append("\x1f".join(reversed(parts)))
    order = pl.Series(keys_text, dtype=pl.String).rank("ordinal").cast(pl.Int64).to_numpy() - 1
    return order[inverse], int(combos.size)


def _assign_stratified(keys: KeyPass, plan: SplitPlan) -> Assignment:
    split = _spec(plan, StratifiedSplit)
    codes, k = strata_codes(keys, plan.stratify_columns)
    if k > max(2, keys.rows // 2):
        raise SplitError(
            f"stratify column(s) {plan.stratify_columns} have {k} distinct values over "
            f"{keys.rows} rows; stratified splits need repeated classes (use random, or set "
            "split.stratify_column to a class column)")
    return Assignment(assign_stratified(keys.id_hashes, codes, split.test_size), strata=k)


STRATEGIES.register("stratified", RowStrategy(lambda plan: plan.stratify_columns,
                                              _assign_stratified))


# --- group -----------------------------------------------------------------------------------


def _assign_group(keys: KeyPass, plan: SplitPlan) -> Assignment:
    split = _spec(plan, GroupSplit)
    groups = _no_missing(keys.column(split.group_column), split.group_column, "group")
    ghash = stable_hash(groups.values.to_arrow(), f"{split.seed}:group")
    mask = assign_groups(groups.codes, ghash, split.test_size)
    n_test = int(np.unique(groups.codes[mask]).size)
    return Assignment(mask, groups=GroupCounts(
        column=split.group_column, train=int(groups.values.len()) - n_test, test=n_test,
        shared=0))


STRATEGIES.register("group", RowStrategy(
    lambda plan: [_spec(plan, GroupSplit).group_column], _assign_group))


# --- time ------------------------------------------------------------------------------------


def _time_range(raw: CodedColumn, periods: np.ndarray, rows: np.ndarray) -> list[str]:
    """Earliest and latest value among ``rows``, spelled as in the table (first row on ties)."""
    idx = np.flatnonzero(rows)
    p = periods[idx]
    first, last = idx[int(np.argmin(p))], idx[int(np.argmax(p))]
    return [str(raw.values[int(raw.codes[first])]), str(raw.values[int(raw.codes[last])])]


def _assign_time(keys: KeyPass, plan: SplitPlan) -> Assignment:
    split = _spec(plan, TimeSplit)
    col = split.time_column
    raw = _no_missing(keys.column(col), col, "time")
    head = [str(raw.values[int(c)]) for c in raw.codes[:3].tolist()]
    periods, kind = parse_periods(raw.values, col, head)
    uniq = periods.unique().sort()
    # Dense ranks of the distinct spellings, then one period code per row.
    rank = (periods.rank("dense").cast(pl.Int64) - 1).to_numpy().astype(raw.codes.dtype)
    codes = rank[raw.codes]
    cutoff = cutoff_code(uniq, kind, split.time_cutoff) if split.time_cutoff else None
    size = split.test_size if split.test_size is not None else DEFAULT_TEST_SIZE
    mask = assign_time(codes, uniq.len(), cutoff_code=cutoff, last_k=split.last_k_periods,
                       test_size=size)
    return Assignment(mask, time=TimeRanges(column=col, train=_time_range(raw, codes, ~mask),
                                            test=_time_range(raw, codes, mask)))


STRATEGIES.register("time", RowStrategy(
    lambda plan: [_spec(plan, TimeSplit).time_column], _assign_time))


# --- holdout_value ---------------------------------------------------------------------------


def _assign_holdout_value(keys: KeyPass, plan: SplitPlan) -> Assignment:
    split = _spec(plan, HoldoutValueSplit)
    col, value = split.holdout_column, split.holdout_value
    coded = keys.column(col)
    mask = np.isin(coded.codes, np.flatnonzero((coded.values == value).to_numpy()))
    if not mask.any():
        raise SplitError(f"no row has {col} == {value!r}: the holdout would be empty")
    if mask.all():
        raise SplitError(f"every row has {col} == {value!r}: no training rows would remain")
    return Assignment(mask)


STRATEGIES.register("holdout_value", RowStrategy(
    lambda plan: [_spec(plan, HoldoutValueSplit).holdout_column], _assign_holdout_value))


# --- two tables ------------------------------------------------------------------------------


def _holdout_file(split: SplitSpec) -> tuple[str, str]:
    if not isinstance(split, HoldoutFileSplit):
        raise SplitError(f"internal: holdout_file strategy got a {split.strategy} spec")
    return split.holdout_file, split.holdout_file


def _official(split: SplitSpec) -> tuple[str, str]:
    if not isinstance(split, OfficialSplit):
        raise SplitError(f"internal: official strategy got a {split.strategy} spec")
    return split.official_test_file, split.official_answers_file


STRATEGIES.register("holdout_file", TableStrategy(_holdout_file))
STRATEGIES.register("official", TableStrategy(_official))
