"""The second pass: public/train.csv, public/test.csv, the private answers and the sample
submission, plus the placeholders and class balances the split report records.

Only the test rows (a ``test_size`` share) are held, as raw line bytes for a quote-free table,
to be written in their public order; every value is read and written as text, so ids such as
``007`` and numbers such as ``1.50`` keep their exact spelling.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from tambench.core.layout import safe_relpath
from tambench.core.metrics import get_metric
from tambench.errors import SplitError
from tambench.splits.hashing import stable_hash
from tambench.splits.keys import CodedColumn, KeyPass
from tambench.splits.layout import (
    PRIVATE_DIR,
    PUBLIC_DIR,
    RESERVED_PUBLIC,
    SAMPLE_FILE,
    TEST_FILE,
    TRAIN_FILE,
    SplitPlan,
    resolve_inside,
)
from tambench.splits.lines import arrow_int64, line_bytes, split_line_parts
from tambench.splits.plainblock import block_fields
from tambench.splits.rawcsv import RawTable, polars_reason
from tambench.splits.report import ClassBalance, SampleReport
from tambench.splits.strategies import MISSING

#: Test rows parsed and written per step when the test side is written from raw lines.
TEST_CHUNK_ROWS = 100_000
#: Rows per batch when a quoted table is written through the parser.
BATCH_ROWS = 250_000
#: At most this many classes are listed in a report's class balance.
MAX_BALANCE_CLASSES = 50


def require_columns(have: list[str], need: list[str], where: str) -> None:
    """Raise naming the columns of ``need`` that ``have`` lacks."""
    missing = [c for c in dict.fromkeys(need) if c and c not in have]
    if missing:
        raise SplitError(f"{where} lacks column(s) {missing}; it has {list(have)}")


def test_order(ids: pl.Series, plan: SplitPlan) -> np.ndarray:
    """The public order of the test rows: the raw order, or a seeded shuffle by id."""
    if plan.split.test_order == "original":
        return np.arange(ids.len())
    return np.argsort(stable_hash(ids.to_arrow(), f"{plan.split.seed}:order"), kind="stable")


def _parse_lines(header: bytes, lines: pa.Array, name: str,
                 columns: list[str] | None = None) -> pl.DataFrame:
    try:
        return pl.read_csv(header + bytes(line_bytes(lines)), infer_schema=False,
                           columns=columns)
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read the test rows of {name}: {polars_reason(exc)}") from exc


def _line_ids(table: RawTable, lines: pa.Array, id_column: str) -> pl.Series:
    """The ids of some lines of a quote-free table."""
    found = block_fields(bytes(line_bytes(lines)), table.n_fields,
                         [table.columns.index(id_column)])
    if found is None:  # the first pass checked these lines: only a parser can say more
        return _parse_lines(table.header, lines, table.label, [id_column])[id_column]
    return pl.Series(id_column, found.fields[0], dtype=pl.String)


def _ordered_line_chunks(header: bytes, lines: pa.Array, order: np.ndarray,
                         name: str) -> Iterator[pl.DataFrame]:
    """The test lines parsed in public order, :data:`TEST_CHUNK_ROWS` rows at a time."""
    yield _parse_lines(header, lines.take(arrow_int64(order[:TEST_CHUNK_ROWS])), name)
    for i in range(TEST_CHUNK_ROWS, len(order), TEST_CHUNK_ROWS):
        yield _parse_lines(header, lines.take(arrow_int64(order[i : i + TEST_CHUNK_ROWS])),
                           name)


def stream_split(keys: KeyPass, mask: np.ndarray, plan: SplitPlan,
                 out: Path) -> tuple[Iterator[pl.DataFrame], np.ndarray]:
    """Write public/train.csv; return the test rows (all columns) in public order as frames,
    and that order (a permutation of the test rows in table order)."""
    table = keys.table
    train_path = out / PUBLIC_DIR / TRAIN_FILE
    train_path.parent.mkdir(parents=True, exist_ok=True)
    if keys.plain and not plan.dropped_columns:
        header, lines = split_line_parts(table, mask, train_path, keys.line_ends)
        ids = pl.concat([_line_ids(table, lines.slice(i, TEST_CHUNK_ROWS), plan.id_column)
                         for i in range(0, max(len(lines), 1), TEST_CHUNK_ROWS)])
        order = test_order(ids, plan)
        return _ordered_line_chunks(header, lines, order, table.label), order
    test = _parsed_split(table, keys.rows, mask, plan, train_path)
    order = test_order(test[plan.id_column], plan)
    return iter([test.select(pl.all().gather(pl.Series(order)))]), order


def _parsed_split(table: RawTable, rows: int, mask: np.ndarray, plan: SplitPlan,
                  train_path: Path) -> pl.DataFrame:
    """Train rows written through the parser (quoted tables, dropped columns); test rows
    returned in table order."""
    train_cols = [c for c in table.columns if c not in plan.dropped_columns]
    pos = 0
    test_parts: list[pl.DataFrame] = []
    lf = pl.scan_csv(table.path, infer_schema=False).head(rows)
    first = True
    with open(train_path, "wb") as ftrain:
        try:
            for df in lf.collect_batches(chunk_size=BATCH_ROWS):
                n = df.height
                if pos + n > len(mask):
                    raise SplitError(f"{table.label} grew while it was being split")
                m = pl.Series(mask[pos : pos + n])
                pos += n
                df.filter(~m).select(train_cols).write_csv(ftrain, include_header=first)
                test_parts.append(df.filter(m))
                first = False
        except pl.exceptions.PolarsError as exc:
            raise SplitError(f"cannot read {table.label}: {polars_reason(exc)}") from exc
        if first:  # no batch at all: still write the header
            pl.DataFrame(schema=dict.fromkeys(train_cols, pl.String)).write_csv(ftrain)
    if pos != len(mask):
        raise SplitError(f"{table.label} changed while it was being split ({pos} != "
                         f"{len(mask)})")
    if not test_parts:
        return pl.DataFrame(schema=dict.fromkeys(table.columns, pl.String))
    return pl.concat(test_parts)


# --- placeholders and balances ---------------------------------------------------------------


def _is_numeric(values: pl.Series) -> bool:
    nonnull = values.drop_nulls()
    return nonnull.len() > 0 and nonnull.cast(pl.Float64, strict=False).null_count() == 0


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def placeholder(values: pl.Series, kind: str | None) -> str:
    """A constant, label-free prediction for one column, from its training values.

    value -> the median; probability -> the mean when values are numbers in [0, 1], else 0.5;
    otherwise the most frequent value (ties: the smallest).

    >>> placeholder(pl.Series(["b", "a", "b"]), "label")
    'b'
    >>> placeholder(pl.Series(["1", "2", "10"]), "value")
    '2'
    """
    nonnull = values.drop_nulls()
    if kind == "value" and _is_numeric(nonnull):
        return _fmt(float(np.median(nonnull.cast(pl.Float64).to_numpy())))
    if kind == "probability":
        if _is_numeric(nonnull):
            num = nonnull.cast(pl.Float64).to_numpy()
            if num.min() >= 0.0 and num.max() <= 1.0:
                return _fmt(float(num.mean()))
        return "0.5"
    if nonnull.len() == 0:
        return ""
    counts = nonnull.value_counts(name="n").sort(["n", nonnull.name], descending=[True, False])
    return str(counts[nonnull.name][0])


def coded_placeholder(col: CodedColumn, rows: np.ndarray, kind: str | None) -> str:
    """:func:`placeholder` of the values of the rows selected by ``rows``, from the codes.

    >>> c = CodedColumn(pl.Series(["a", "b"]), np.array([1, 0, 1, -1], dtype=np.int8))
    >>> coded_placeholder(c, np.array([True, True, True, True]), "label")
    'b'
    """
    counts, _ = col.counts(rows)
    n = int(counts.sum())
    numeric = n > 0 and col.values.gather(np.flatnonzero(counts)).cast(
        pl.Float64, strict=False).null_count() == 0
    if kind in ("value", "probability") and numeric:
        codes = col.codes[rows]
        # The numbers in row order, as placeholder() sees them (the mean depends on order).
        num = col.values.cast(pl.Float64, strict=False).to_numpy()[codes[codes >= 0]]
        if kind == "value":
            return _fmt(float(np.median(num)))
        if num.min() >= 0.0 and num.max() <= 1.0:
            return _fmt(float(num.mean()))
    if kind == "probability":
        return "0.5"
    if n == 0:
        return ""
    # Most frequent; values are sorted, so argmax's first maximum is the smallest on ties.
    return str(col.values[int(np.argmax(counts))])


def coded_balance(col: CodedColumn, mask: np.ndarray) -> ClassBalance | None:
    """:func:`class_balance` of the rows outside and inside ``mask``, from the codes."""
    def shares(rows: np.ndarray) -> dict[str, float] | None:
        counts, nulls = col.counts(rows)
        present = np.flatnonzero(counts)
        if present.size + (1 if nulls else 0) > MAX_BALANCE_CLASSES:
            return None
        total = max(int(counts.sum()) + nulls, 1)
        found: dict[str, int] = {MISSING: nulls} if nulls else {}
        for i in present.tolist():
            key = str(col.values[i])
            found[key] = found.get(key, 0) + int(counts[i])
        return {k: round(v / total, 6) for k, v in found.items()}

    tr, te = shares(~mask), shares(mask)
    if tr is None or te is None or len(set(tr) | set(te)) > MAX_BALANCE_CLASSES:
        return None
    return ClassBalance(train=tr, test=te)


def class_balance(train: pl.Series, test: pl.Series) -> ClassBalance | None:
    """Share of each class in train and test (None for columns with too many values)."""
    def shares(s: pl.Series) -> dict[str, float] | None:
        if s.n_unique() > MAX_BALANCE_CLASSES:
            return None
        s = s.fill_null(MISSING)
        total = max(s.len(), 1)
        vc = s.value_counts(name="n").sort(s.name)
        return {str(k): round(int(v) / total, 6) for k, v in zip(vc[s.name], vc["n"], strict=True)}

    tr, te = shares(train), shares(test)
    if tr is None or te is None or len(set(tr) | set(te)) > MAX_BALANCE_CLASSES:
        return None
    return ClassBalance(train=tr, test=te)


# --- the test side ---------------------------------------------------------------------------


def _fills(plan: SplitPlan, columns: list[str],
           fill_value: Callable[[str, str | None], str | None]) -> dict[str, str]:
    """The sample submission's constant for each header column the test rows do not show."""
    hidden = set(plan.withheld_from_test)
    fills: dict[str, str] = {}
    for col in plan.submission_header:
        if col in plan.id_columns or (col in columns and col not in hidden):
            continue
        if col in plan.submission_only:
            fills[col] = plan.submission_only[col]
            continue
        source = plan.answer_names.get(col, col)
        kind = plan.metric_kind if source in plan.hidden_columns else None
        value = fill_value(source, kind)
        if value is None:
            raise SplitError(
                f"submission header column {col!r} is neither an id, a target, nor a column of "
                "the raw table")
        perfect = get_metric(plan.metric_id).perfect if plan.metric_id else None
        # a truth written as a prediction where they differ (kuzushiji's boxes as points)
        fills[col] = perfect(value) if perfect is not None and kind is not None else value
    return fills


#: Metrics whose prediction orders exactly the row's own items (ai4code's cells of a
#: notebook): no constant is valid, so the sample lists each row's items sorted, an order that
#: tells nothing.
ITEM_ORDER_METRICS = frozenset({"kendall_tau_orders"})


def _sample_column(col: str, test: pl.DataFrame, fills: dict[str, str],
                   plan: SplitPlan) -> pl.Series:
    if col not in fills:
        return test[col]
    if plan.metric_id in ITEM_ORDER_METRICS and col in plan.hidden_columns:
        return test[col].fill_null("").str.extract_all(r"\S+").list.sort().list.join(" ")
    return pl.repeat(fills[col], test.height, dtype=pl.String, eager=True)


def write_test_side(
    chunks: Iterable[pl.DataFrame], fill_value: Callable[[str, str | None], str | None],
    plan: SplitPlan, out: Path, columns: list[str],
) -> SampleReport:
    """Write public/test.csv, private answers and public/sample_submission.csv.

    ``chunks`` are the test rows in public order (at least one frame, possibly empty);
    ``fill_value(column, metric_kind)`` is the sample submission's constant for a column the
    test rows do not show (None: no such column).
    """
    require_columns(columns, plan.answer_columns, "the test rows")
    hidden = set(plan.withheld_from_test)
    public_cols = [c for c in columns if c not in hidden]
    fills = _fills(plan, columns, fill_value)
    (out / PRIVATE_DIR).mkdir(parents=True, exist_ok=True)
    rows = 0
    with (open(out / PUBLIC_DIR / TEST_FILE, "wb") as ftest,
          open(out / PRIVATE_DIR / plan.answers_file, "wb") as fanswers,
          open(out / PUBLIC_DIR / SAMPLE_FILE, "wb") as fsample):
        for i, test in enumerate(chunks):
            header = i == 0
            test.select(public_cols).write_csv(ftest, include_header=header)
            test.select(plan.answer_columns).write_csv(fanswers, include_header=header)
            sample = {col: _sample_column(col, test, fills, plan)
                      for col in plan.submission_header}
            pl.DataFrame(sample).select(plan.submission_header).write_csv(
                fsample, include_header=header)
            rows += test.height
    return SampleReport(header=plan.submission_header, rows=rows)


def copy_extra_files(raw_root: Path, plan: SplitPlan, out: Path,
                     refuse: Callable[[Path, str], None] | None = None) -> list[str]:
    """Copy ``split.extra_public_files`` unchanged into public/ (``refuse(path, label)`` raises
    for a raw file that must not be published); an entry naming a folder (h-and-m's
    ``images``) copies every file under it."""
    copied = []
    for rel in plan.split.extra_public_files:
        clean = safe_relpath(rel, "split.extra_public_files entry")
        if clean.parts[0] in RESERVED_PUBLIC:
            raise SplitError(f"extra public file {rel!r} would overwrite public/{clean.parts[0]}")
        src = resolve_inside(raw_root, rel, "split.extra_public_files entry")
        if src.is_dir():
            names = [p.relative_to(raw_root).as_posix() for p in sorted(src.rglob("*"))
                     if not p.is_dir()]
        elif src.is_file():
            names = [clean.as_posix()]
        else:
            raise SplitError(f"split.extra_public_files entry {rel!r} not found in the raw data")
        for name in names:
            path = resolve_inside(raw_root, name, "split.extra_public_files entry")
            if refuse is not None:
                refuse(path, name)
            dst = out / PUBLIC_DIR / name
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dst)
        copied.append(clean.as_posix())
    return copied
