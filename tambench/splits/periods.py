"""Time values of a time split: numbers, or ISO dates and times (time zones converted to UTC).

Shared by the time strategy (which orders periods) and the audit (which checks that every test
row comes at or after every train row).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from tambench.errors import SplitError


def parse_periods(values: pl.Series, column: str,
                  head: list[str] | None = None) -> tuple[pl.Series, str]:
    """Sortable period values: numbers if every value is one, else datetimes.

    ``head`` (the column's first values in table order, when ``values`` are its distinct
    values) decides the date format polars infers and is quoted in errors.

    >>> parse_periods(pl.Series(["3", "1.5"]), "day")[0].to_list()
    [3.0, 1.5]
    """
    if values.null_count():
        raise SplitError(f"time column {column!r} has {values.null_count()} missing value(s)")
    as_num = values.cast(pl.Float64, strict=False)
    if as_num.null_count() == 0:
        return as_num, "number"
    first = pl.Series(head[:1] if head else [], dtype=pl.String)
    try:
        # polars infers the format from the first value: put the table's first value first.
        dt = pl.concat([first, values]).str.to_datetime(strict=True, time_unit="us")
    except pl.exceptions.PolarsError as exc:
        bad = head if head else values.head(3).to_list()
        raise SplitError(
            f"time column {column!r}: values such as {bad} are neither numbers nor ISO dates "
            f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
        ) from exc
    dt = dt.slice(first.len())
    if isinstance(dt.dtype, pl.Datetime) and dt.dtype.time_zone is not None:
        dt = dt.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
    return dt, "datetime"


def cutoff_code(periods_sorted: pl.Series, kind: str, cutoff: str) -> int:
    """Index of the first period at or after ``cutoff`` among the sorted distinct periods."""
    if kind == "number":
        try:
            value: Any = float(cutoff)
        except ValueError:
            raise SplitError(f"time_cutoff {cutoff!r} is not a number, but the time column is"
                             ) from None
    else:
        parsed = pl.Series([cutoff]).str.to_datetime(strict=False, time_unit="us")
        if parsed.null_count():
            raise SplitError(f"time_cutoff {cutoff!r} is not an ISO date/time")
        value = parsed[0]
    return int(periods_sorted.search_sorted(value, side="left"))
