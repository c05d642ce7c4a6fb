"""Turn a competition's raw training data into a public/private split (see :mod:`.layout`).

Tables are streamed: a first pass reads only the key columns (id, targets, group, time...) to
decide which rows are test rows; a second pass reads the table in batches and writes each
row to train or test. Only the test rows (a ``test_size`` share) are held in memory, to write
them in their final order. Every value is read and written as text, so ids such as ``007``
and numbers such as ``1.50`` keep their exact spelling.

Outputs are written into a staging folder next to the task folder and moved into place only
when complete, so an interrupted run never leaves a half-written task behind.
"""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from string import Formatter
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from tambench.errors import (
    LeakageError,
    SourceError,
    SplitError,
    TambenchError,
)
from tambench.schema.taskspec import TaskSpec
from tambench.splits.assign import (
    assign_groups,
    assign_random,
    assign_stratified,
    assign_time,
)
from tambench.splits.checksums import (
    CHECKSUMS_FILE,
    ChecksumDiff,
    diff_checksums,
    ensure_checksums,
    read_checksums,
    write_checksums,
)
from tambench.splits.hashing import HASH_CHUNK, stable_hash
from tambench.splits.layout import (
    MANIFEST_FILE,
    PRIVATE_DIR,
    PUBLIC_DIR,
    REPORT_FILE,
    RESERVED_PUBLIC,
    SAMPLE_FILE,
    TEST_FILE,
    TEST_FILES_DIR,
    TRAIN_FILE,
    TRAIN_FILES_DIR,
    SplitPlan,
    load_grader,
    plan_split,
    resolve_inside,
    safe_relpath,
    task_dir,
)
from tambench.splits.sources import KaggleSource, RawSource, open_source

#: Rows per streamed batch: small enough to bound memory, large enough to amortise overhead.
BATCH_ROWS = 250_000
#: At most this many classes are listed in a report's class balance.
MAX_BALANCE_CLASSES = 50
_MISSING = "\x00<missing>"


# --- reading ---------------------------------------------------------------------------------


def scan_table(path: Path) -> pl.LazyFrame:
    """A lazy CSV scan with every column read as text (no type inference, exact spelling)."""
    return pl.scan_csv(path, infer_schema=False)


def table_columns(path: Path) -> list[str]:
    """Header of a CSV table."""
    try:
        return scan_table(path).collect_schema().names()
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read the header of {path.name}: {exc}") from exc


def _collect(lf: pl.LazyFrame, what: str) -> pl.DataFrame:
    try:
        return lf.collect(engine="streaming")
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {what}: {exc}") from exc


def _require_columns(have: Sequence[str], need: Sequence[str], where: str) -> None:
    missing = [c for c in need if c and c not in have]
    if missing:
        raise SplitError(f"{where} lacks column(s) {missing}; it has {list(have)}")


def find_train_table(raw_root: Path, plan: SplitPlan) -> Path:
    """The table to split: ``split.train_file``, else the only CSV, else the only train.csv."""
    if plan.split.train_file:
        return _raw_file(raw_root, plan.split.train_file, "split.train_file")
    csvs = sorted(p for p in raw_root.rglob("*.csv") if p.is_file())
    if len(csvs) == 1:
        return csvs[0]
    named = [p for p in csvs if p.name == "train.csv"]
    if len(named) == 1:
        return named[0]
    found = [p.relative_to(raw_root).as_posix() for p in csvs[:20]]
    raise SplitError(
        f"cannot tell which table to split in {raw_root}: set split.train_file "
        f"(CSV files found: {found or 'none'})"
    )


def _raw_file(raw_root: Path, rel: str, what: str) -> Path:
    p = resolve_inside(raw_root, rel, what)
    if not p.is_file():
        raise SplitError(f"{what} {rel!r} not found in the raw data ({raw_root})")
    return p


# --- assignment ------------------------------------------------------------------------------


def _check_ids(ids: pl.Series, where: str, hashes: np.ndarray | None = None) -> None:
    nulls = ids.null_count()
    if nulls:
        raise SplitError(f"{where}: {nulls} row(s) have no value in id column {ids.name!r}")
    if hashes is not None:
        # Equal ids have equal hashes: only rows sharing a hash can be duplicates (much
        # cheaper than a hash table of every id string).
        s = np.sort(hashes)
        shared = s[1:][s[1:] == s[:-1]]
        if shared.size == 0:
            return
        ids = ids.filter(pl.Series(np.isin(hashes, shared)))
    dup = ids.filter(ids.is_duplicated()).unique(maintain_order=True)
    if dup.len():
        raise SplitError(
            f"{where}: id column {ids.name!r} has {dup.len()} duplicated value(s), e.g. "
            f"{dup.head(5).to_list()}; ids must be unique"
        )


def _dense_codes(values: pl.Series) -> tuple[np.ndarray, pl.Series]:
    """Codes 0..k-1 in sorted order of the distinct values, and those values sorted."""
    filled = values.fill_null(_MISSING)
    uniq = filled.unique().sort()
    codes = (filled.rank("dense").cast(pl.Int64) - 1).to_numpy()
    return codes, uniq


def _strata(keys: pl.DataFrame, columns: list[str]) -> pl.Series:
    """One stratum key per row: the label set of each column (tokens sorted), joined."""
    exprs = [
        pl.col(c).fill_null(_MISSING).str.extract_all(r"\S+").list.sort().list.join(" ")
        for c in columns
    ]
    return keys.select(pl.concat_str(exprs, separator="\x1f").alias("stratum")).to_series()


def _parse_periods(values: pl.Series, column: str) -> tuple[pl.Series, str]:
    """Sortable period values: numbers if every value is one, else datetimes."""
    if values.null_count():
        raise SplitError(f"time column {column!r} has {values.null_count()} missing value(s)")
    as_num = values.cast(pl.Float64, strict=False)
    if as_num.null_count() == 0:
        return as_num, "number"
    try:
        dt = values.str.to_datetime(strict=True, time_unit="us")
    except pl.exceptions.PolarsError as exc:
        bad = values.head(3).to_list()
        raise SplitError(
            f"time column {column!r}: values such as {bad} are neither numbers nor ISO dates ({exc})"
        ) from exc
    if isinstance(dt.dtype, pl.Datetime) and dt.dtype.time_zone is not None:
        dt = dt.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
    return dt, "datetime"


def _cutoff_code(periods_sorted: pl.Series, kind: str, cutoff: str) -> int:
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


@dataclass
class Assignment:
    """The outcome of the first pass."""

    mask: np.ndarray
    """True for test rows, in the table's row order."""
    keys: pl.DataFrame
    """The key columns that decided it."""
    info: dict[str, Any] = field(default_factory=dict)
    """Strategy-specific facts for the split report."""
    test_ids: pl.Series = field(default_factory=lambda: pl.Series([], dtype=pl.String))
    """Ids of the test rows, in table order."""


def assign_rows(keys: pl.DataFrame, plan: SplitPlan, strategy: str) -> Assignment:
    """Decide the test rows of a table from its key columns."""
    split = plan.split
    ids = keys[plan.id_column]
    if ids.null_count():
        _check_ids(ids, "the table to split")
    salt = str(split.seed)
    id_hashes = np.concatenate([
        stable_hash(ids.slice(i, HASH_CHUNK).to_arrow(), salt)
        for i in range(0, max(ids.len(), 1), HASH_CHUNK)
    ])
    _check_ids(ids, "the table to split", id_hashes)
    info: dict[str, Any] = {}
    if strategy == "random":
        mask = assign_random(id_hashes, split.test_size)
    elif strategy == "stratified":
        strata = _strata(keys, plan.stratify_columns)
        codes, uniq = _dense_codes(strata)
        if uniq.len() > max(2, len(strata) // 2):
            raise SplitError(
                f"stratify column(s) {plan.stratify_columns} have {uniq.len()} distinct values over "
                f"{len(strata)} rows; stratified splits need repeated classes (use random, or set "
                "split.stratify_column to a class column)"
            )
        mask = assign_stratified(id_hashes, codes, split.test_size)
        info["strata"] = int(uniq.len())
    elif strategy == "group":
        col = split.group_column
        if not col:
            raise SplitError("the group strategy needs split.group_column")
        groups = keys[col]
        if groups.null_count():
            raise SplitError(f"group column {col!r} has {groups.null_count()} missing value(s)")
        codes, uniq = _dense_codes(groups)
        ghash = stable_hash(uniq.to_arrow(), f"{salt}:group")
        mask = assign_groups(codes, ghash, split.test_size)
        test_groups = np.unique(codes[mask])
        info["groups"] = {"column": col, "train": int(uniq.len() - test_groups.size),
                          "test": int(test_groups.size), "shared": 0}
    elif strategy == "time":
        col = split.time_column
        if not col:
            raise SplitError("the time strategy needs split.time_column")
        periods, kind = _parse_periods(keys[col], col)
        uniq = periods.unique().sort()
        codes = (periods.rank("dense").cast(pl.Int64) - 1).to_numpy()
        cutoff = _cutoff_code(uniq, kind, split.time_cutoff) if split.time_cutoff else None
        mask = assign_time(codes, uniq.len(), cutoff_code=cutoff, last_k=split.last_k_periods,
                           test_size=split.test_size)
        raw = keys[col]
        info["time"] = {
            "column": col,
            "train": _time_range(raw, periods, ~mask),
            "test": _time_range(raw, periods, mask),
        }
    elif strategy == "holdout":
        col, value = split.holdout_column, split.holdout
        if not col or not value:
            raise SplitError("the holdout strategy (row form) needs split.holdout_column and "
                             "split.holdout")
        mask = (keys[col] == value).fill_null(False).to_numpy()
        if not mask.any():
            raise SplitError(f"no row has {col} == {value!r}: the holdout would be empty")
        if mask.all():
            raise SplitError(f"every row has {col} == {value!r}: no training rows would remain")
        info["holdout"] = {"column": col, "value": value}
    else:
        raise SplitError(f"strategy {strategy!r} does not split a single table")
    mask = np.asarray(mask, dtype=bool)
    return Assignment(mask=mask, keys=keys, info=info, test_ids=ids.filter(pl.Series(mask)))


def _time_range(raw: pl.Series, parsed: pl.Series, rows: np.ndarray) -> list[str]:
    sel = pl.Series(rows)
    p = parsed.filter(sel)
    r = raw.filter(sel)
    return [str(r[int(p.arg_min() or 0)]), str(r[int(p.arg_max() or 0)])]


# --- writing ---------------------------------------------------------------------------------


def _open_text(path: Path) -> Any:
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path, "wb")


def _test_order(ids: pl.Series, plan: SplitPlan) -> np.ndarray:
    if plan.split.test_order == "original":
        return np.arange(ids.len())
    return np.argsort(stable_hash(ids.to_arrow(), f"{plan.split.seed}:order"), kind="stable")


_BLOCK = 1 << 26
_NEWLINE = 10
_IOV_MAX = 1024


def _line_bytes(lines: pa.Array) -> memoryview:
    """The bytes of consecutive binary values, as one view."""
    if len(lines) == 0:
        return memoryview(b"")
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[
        lines.offset : lines.offset + len(lines) + 1]
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]


def _write_runs(fd: int, view: memoryview, starts: np.ndarray, stops: np.ndarray) -> None:
    """Write ``view[starts[i]:stops[i]]`` for every i, in order, with few system calls."""
    pieces = [view[a:b] for a, b in zip(starts.tolist(), stops.tolist(), strict=True)]
    for i in range(0, len(pieces), _IOV_MAX):
        batch = pieces[i : i + _IOV_MAX]
        want = sum(len(p) for p in batch)
        done = os.writev(fd, batch)
        if done != want:  # a short write (rare): finish this batch piece by piece
            for p in batch:
                skip = min(done, len(p))
                done -= skip
                rest = p[skip:]
                while len(rest):
                    rest = rest[os.write(fd, rest):]


def split_lines(table: Path, mask: np.ndarray, train_out: Path,
                order: np.ndarray | None = None) -> bytes | None:
    """Byte-level second pass for CSVs without quote characters: one row per line.

    Train lines are copied byte for byte to ``train_out`` (runs of consecutive train lines are
    written straight from the read buffer); the header plus the test lines are returned.
    Returns None (and the caller falls back to parsing) when the file has a quote character
    (a quoted field may hold a newline) or its line count differs from the row count (blank
    lines). ``order`` permutes the returned test lines.
    """
    row = 0
    test_parts: list[pa.Array] = []
    buf = bytearray(_BLOCK)
    with open(table, "rb") as src, open(train_out, "wb") as dst:
        header = src.readline()
        if b'"' in header:
            return None
        dst.write(header)
        dst.flush()
        fd = dst.fileno()
        carry = 0  # bytes of an unfinished line kept at the start of buf
        while True:
            if carry == len(buf):  # one line longer than the buffer: grow it
                buf.extend(bytearray(len(buf)))
            got = src.readinto(memoryview(buf)[carry:])
            size = carry + (got or 0)
            if not got:
                if carry == 0:
                    break
                if len(buf) == size:
                    buf.append(_NEWLINE)
                else:
                    buf[size] = _NEWLINE
                size += 1  # the last line had no newline: give it one
            view = memoryview(buf)[:size]
            arr = np.frombuffer(view, dtype=np.uint8)
            if (arr == ord('"')).any():
                return None
            ends = np.flatnonzero(arr == _NEWLINE) + 1
            k = ends.size
            if k:
                if row + k > mask.size:
                    return None
                offsets = np.concatenate([np.zeros(1, dtype=np.int64), ends.astype(np.int64)])
                in_test = mask[row : row + k]
                edges = np.diff(np.concatenate([[1], in_test.astype(np.int8), [1]]))
                run_starts = np.flatnonzero(edges == -1)
                run_stops = np.flatnonzero(edges == 1)
                _write_runs(fd, view, offsets[run_starts], offsets[run_stops])
                test_idx = np.flatnonzero(in_test)
                if test_idx.size:
                    lines = pa.LargeBinaryArray.from_buffers(
                        pa.large_binary(), k, [None, pa.py_buffer(offsets), pa.py_buffer(view)])
                    test_parts.append(lines.take(pa.array(test_idx)))
                    del lines  # release the export of buf before it may be resized
                row += k
                last = int(ends[-1])
            else:
                last = 0
            rest = size - last
            del view, arr
            buf[:rest] = buf[last:size]
            carry = rest
            if not got:
                break
    if row != mask.size:
        return None
    test_lines = pa.concat_arrays(test_parts) if test_parts else pa.array([], pa.large_binary())
    if order is not None:
        test_lines = test_lines.take(pa.array(order))
    return header + bytes(_line_bytes(test_lines))


def stream_split(
    table: Path, mask: np.ndarray, plan: SplitPlan, out: Path, columns: list[str],
    order: np.ndarray,
) -> pl.DataFrame:
    """Second pass: write train rows to public/train.csv; return the test rows (all columns),
    permuted by ``order``."""
    train_cols = [c for c in columns if c not in plan.split.drop_columns]
    train_path = out / PUBLIC_DIR / TRAIN_FILE
    if not plan.split.drop_columns:
        train_path.parent.mkdir(parents=True, exist_ok=True)
        test_bytes = split_lines(table, mask, train_path, order)
        if test_bytes is not None:
            try:
                return pl.read_csv(test_bytes, infer_schema=False)
            except pl.exceptions.PolarsError as exc:
                raise SplitError(f"cannot read the test rows of {table.name}: {exc}") from exc
    pos = 0
    test_parts: list[pl.DataFrame] = []
    with _open_text(out / PUBLIC_DIR / TRAIN_FILE) as ftrain:
        first = True
        try:
            batches = scan_table(table).collect_batches(chunk_size=BATCH_ROWS)
            for df in batches:
                n = df.height
                if pos + n > len(mask):
                    raise SplitError(f"{table.name} grew while it was being split")
                m = pl.Series(mask[pos : pos + n])
                pos += n
                df.filter(~m).select(train_cols).write_csv(ftrain, include_header=first)
                test_parts.append(df.filter(m))
                first = False
        except pl.exceptions.PolarsError as exc:
            raise SplitError(f"cannot read {table.name}: {exc}") from exc
        if first:  # no batch at all: still write the header
            pl.DataFrame(schema=dict.fromkeys(train_cols, pl.String)).write_csv(ftrain)
    if pos != len(mask):
        raise SplitError(f"{table.name} changed while it was being split ({pos} != {len(mask)})")
    test = pl.concat(test_parts) if test_parts else pl.DataFrame(
        schema=dict.fromkeys(columns, pl.String))
    return test.select(pl.all().gather(pl.Series(order)))


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


def write_test_side(
    test: pl.DataFrame, train_values: Callable[[str], pl.Series | None], plan: SplitPlan,
    out: Path, columns: list[str], *, ordered: bool = False,
) -> dict[str, Any]:
    """Write public/test.csv, private answers and public/sample_submission.csv in test order."""
    _require_columns(columns, plan.answer_columns, "the test rows")
    if not ordered:
        order = _test_order(test[plan.id_column], plan)
        test = test.select(pl.all().gather(pl.Series(order)))
    hidden = set(plan.hidden_columns) | set(plan.split.drop_columns)
    public_cols = [c for c in columns if c not in hidden]
    test.select(public_cols).write_csv(out / PUBLIC_DIR / TEST_FILE)
    (out / PRIVATE_DIR).mkdir(parents=True, exist_ok=True)
    test.select(plan.answer_columns).write_csv(out / PRIVATE_DIR / plan.answers_file)
    sample: dict[str, pl.Series] = {}
    for col in plan.submission_header:
        if col in plan.id_columns or (col in test.columns and col not in hidden):
            sample[col] = test[col]
        elif (values := train_values(col)) is not None:
            kind = plan.metric_kind if col in plan.hidden_columns else None
            sample[col] = pl.repeat(placeholder(values, kind), test.height,
                                    dtype=pl.String, eager=True)
        else:
            raise SplitError(
                f"submission header column {col!r} is neither an id, a target, nor a column of "
                "the raw table"
            )
    pl.DataFrame(sample).select(plan.submission_header).write_csv(out / PUBLIC_DIR / SAMPLE_FILE)
    return {"header": plan.submission_header, "rows": test.height}


def class_balance(train: pl.Series, test: pl.Series) -> dict[str, Any] | None:
    """Share of each class in train and test (None for columns with too many values)."""
    def shares(s: pl.Series) -> dict[str, float] | None:
        if s.n_unique() > MAX_BALANCE_CLASSES:
            return None
        s = s.fill_null(_MISSING)
        total = max(s.len(), 1)
        vc = s.value_counts(name="n").sort(s.name)
        return {str(k): round(int(v) / total, 6) for k, v in zip(vc[s.name], vc["n"], strict=True)}

    tr, te = shares(train), shares(test)
    if tr is None or te is None or len(set(tr) | set(te)) > MAX_BALANCE_CLASSES:
        return None
    return {"train": tr, "test": te}


def copy_extra_files(raw_root: Path, plan: SplitPlan, out: Path) -> list[str]:
    """Copy ``split.extra_public_files`` unchanged into public/."""
    copied = []
    for rel in plan.split.extra_public_files:
        clean = safe_relpath(rel, "split.extra_public_files entry")
        if clean.parts[0] in RESERVED_PUBLIC:
            raise SplitError(f"extra public file {rel!r} would overwrite public/{clean.parts[0]}")
        src = _raw_file(raw_root, rel, "split.extra_public_files entry")
        dst = out / PUBLIC_DIR / clean
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        copied.append(clean.as_posix())
    return copied


# --- files strategy --------------------------------------------------------------------------


def pattern_fields(pattern: str) -> list[str]:
    """Field names used by a file pattern.

    >>> pattern_fields("images/{label_free}/{id}.png")
    ['label_free', 'id']
    """
    return [f for _, f, _, _ in Formatter().parse(pattern) if f is not None]


def _place_file(src: Path, dst: Path, link: bool) -> str:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if link:
        try:
            os.link(src, dst)
            return "linked"
        except OSError:
            pass  # another file system or links not allowed: copy instead
    shutil.copyfile(src, dst)
    return "copied"


def copy_row_files(
    raw_root: Path, keys: pl.DataFrame, mask: np.ndarray, plan: SplitPlan, out: Path
) -> dict[str, Any]:
    """Link or copy each row's file into public/train/ or public/test/, writing a manifest.

    Files are handled one at a time (never held in memory); the manifest lists train rows in
    table order, then test rows in the public test order.
    """
    pattern = plan.split.file_id_pattern
    fields = pattern_fields(pattern)
    bad = [f for f in fields if f in plan.hidden_columns]
    if bad:
        raise SplitError(f"file_id_pattern {pattern!r} uses target column(s) {bad}: file paths "
                         "would reveal the test labels")
    ids = keys[plan.id_column]
    values = {f: (ids if f == "id" else keys[f]) for f in fields}
    counts = {"linked": 0, "copied": 0}
    missing: list[str] = []
    test_rows: list[tuple[str, str]] = []
    raw_resolved = raw_root.resolve()
    with open(out / PUBLIC_DIR / MANIFEST_FILE, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", "split", "path"])
        for i in range(ids.len()):
            rel = pattern.format(**{f: values[f][i] for f in fields})
            clean = safe_relpath(rel, "file path")
            src = raw_root.joinpath(*clean.parts)
            if not src.is_file():
                missing.append(rel)
                continue
            if not src.resolve().is_relative_to(raw_resolved):
                raise SplitError(f"file {rel!r} resolves outside the raw data")
            split_dir = TEST_FILES_DIR if mask[i] else TRAIN_FILES_DIR
            dst_rel = f"{split_dir}/{clean.as_posix()}"
            counts[_place_file(src, out / PUBLIC_DIR / dst_rel, plan.split.link_files)] += 1
            if mask[i]:
                test_rows.append((str(ids[i]), dst_rel))
            else:
                w.writerow([ids[i], "train", dst_rel])
        if missing:
            raise SplitError(
                f"{len(missing)} row file(s) named by file_id_pattern {pattern!r} are missing, e.g. "
                f"{missing[:5]}"
            )
        tids = pl.Series([t[0] for t in test_rows], dtype=pl.String)
        for j in _test_order(tids, plan):
            w.writerow([test_rows[j][0], "test", test_rows[j][1]])
    n_test = len(test_rows)
    return {"train": int(ids.len()) - n_test, "test": n_test, **counts,
            "manifest": f"{PUBLIC_DIR}/{MANIFEST_FILE}"}


# --- strategies ------------------------------------------------------------------------------


def _key_columns(plan: SplitPlan, strategy: str) -> list[str]:
    s = plan.split
    cols = [plan.id_column, *plan.id_columns, *plan.hidden_columns, *plan.aux_columns]
    if strategy == "stratified":
        cols += plan.stratify_columns
    if strategy == "group":
        cols.append(s.group_column)
    if strategy == "time":
        cols.append(s.time_column)
    if strategy == "holdout":
        cols.append(s.holdout_column)
    if s.strategy == "files":
        cols += [f for f in pattern_fields(s.file_id_pattern) if f != "id"]
    return list(dict.fromkeys(c for c in cols if c))


def split_single_table(raw_root: Path, plan: SplitPlan, out: Path) -> dict[str, Any]:
    """random / stratified / group / time / holdout (row form) / files."""
    s = plan.split
    strategy = s.file_base_strategy if s.strategy == "files" else s.strategy
    if s.strategy == "files" and not s.file_id_pattern:
        raise SplitError("the files strategy needs split.file_id_pattern, e.g. 'images/{id}.png'")
    table = find_train_table(raw_root, plan)
    columns = table_columns(table)
    _require_columns(columns, [*_key_columns(plan, strategy), *s.drop_columns],
                     f"table {table.name}")
    key_cols = list(dict.fromkeys([*_key_columns(plan, strategy), *plan.submission_header]))
    # Header columns the table lacks are reported by write_test_side.
    keys = _collect(scan_table(table).select([c for c in key_cols if c in columns]),
                    f"table {table.name}")
    result = assign_rows(keys, plan, strategy)
    mask = result.mask
    if s.strategy != "files":  # only the files step still needs the ids
        keep = [c for c in keys.columns if c != plan.id_column or c in plan.hidden_columns]
        keys = keys.select(keep)
    result.keys = keys
    report: dict[str, Any] = dict(result.info)
    order = _test_order(result.test_ids, plan)
    test_rows = stream_split(table, mask, plan, out, columns, order)
    train_only = [c for c in keys.columns if c in plan.hidden_columns
                  or c in plan.submission_header and c not in plan.id_columns]
    not_test = pl.Series(~mask)

    def train_values(col: str) -> pl.Series | None:
        return keys[col].filter(not_test) if col in train_only else None

    report["sample_submission"] = write_test_side(test_rows, train_values, plan, out, columns,
                                                  ordered=True)
    report["class_balance"] = _balances(train_values, test_rows, plan)
    if s.strategy == "files":
        report["files"] = copy_row_files(raw_root, keys, mask, plan, out)
    report["rows"] = _rows(int((~mask).sum()), int(mask.sum()))
    report["source_table"] = table.relative_to(raw_root).as_posix()
    return report


def _rows(n_train: int, n_test: int) -> dict[str, Any]:
    return {"train": n_train, "test": n_test,
            "test_fraction": round(n_test / max(n_train + n_test, 1), 6)}


def _balances(train_values: Callable[[str], pl.Series | None], test: pl.DataFrame,
              plan: SplitPlan) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col in plan.hidden_columns:
        train = train_values(col)
        if train is not None and col in test.columns:
            bal = class_balance(train, test[col])
            if bal is not None:
                out[col] = bal
    return out


def split_two_tables(
    raw_root: Path, plan: SplitPlan, out: Path, test_rel: str, answers_rel: str
) -> dict[str, Any]:
    """official (published test labels) and holdout (a named file is the test set)."""
    s = plan.split
    train = find_train_table(raw_root, plan)
    test_path = _raw_file(raw_root, test_rel, "test file")
    answers_path = _raw_file(raw_root, answers_rel, "answers file")
    if test_path.resolve() == train.resolve():
        raise SplitError(f"the test file {test_rel!r} is the training table itself")
    train_cols = table_columns(train)
    _require_columns(train_cols, [plan.id_column, *plan.hidden_columns, *s.drop_columns],
                     f"training table {train.name}")
    try:
        scan_table(train).select([c for c in train_cols if c not in s.drop_columns]).sink_csv(
            _ensure_parent(out / PUBLIC_DIR / TRAIN_FILE))
    except pl.exceptions.PolarsError as exc:
        raise SplitError(f"cannot read {train.name}: {exc}") from exc
    train_keys = _collect(scan_table(train).select(
        list(dict.fromkeys([plan.id_column, *plan.hidden_columns]))), f"table {train.name}")
    test_cols = table_columns(test_path)
    _require_columns(test_cols, [plan.id_column], f"test file {test_rel}")
    test = _collect(scan_table(test_path), f"test file {test_rel}")
    _check_ids(test[plan.id_column], f"test file {test_rel}")
    if answers_path.resolve() != test_path.resolve():
        ans_cols = table_columns(answers_path)
        _require_columns(ans_cols, [plan.id_column, *plan.hidden_columns],
                         f"answers file {answers_rel}")
        answers = _collect(
            scan_table(answers_path).select([c for c in plan.answer_columns if c in ans_cols]),
            f"answers file {answers_rel}")
        _check_ids(answers[plan.id_column], f"answers file {answers_rel}")
        extra = answers.join(test, on=plan.id_column, how="anti")[plan.id_column]
        lacking = test.join(answers, on=plan.id_column, how="anti")[plan.id_column]
        if extra.len() or lacking.len():
            raise SplitError(
                f"answers file {answers_rel} and test file {test_rel} hold different ids: "
                f"{lacking.len()} test id(s) without an answer (e.g. {lacking.head(3).to_list()}), "
                f"{extra.len()} answer(s) without a test row (e.g. {extra.head(3).to_list()})"
            )
        keep = [c for c in test.columns if c not in answers.columns or c == plan.id_column]
        test = test.select(keep).join(answers, on=plan.id_column, how="left",
                                      maintain_order="left")
    columns = [*test_cols, *[c for c in test.columns if c not in test_cols]]
    report: dict[str, Any] = {}
    def train_values(col: str) -> pl.Series | None:
        return train_keys[col] if col in train_keys.columns else None

    report["sample_submission"] = write_test_side(test, train_values, plan, out, columns)
    report["class_balance"] = _balances(train_values, test, plan)
    report["rows"] = _rows(train_keys.height, test.height)
    report["source_table"] = train.relative_to(raw_root).as_posix()
    report["test_source"] = test_rel
    return report


def _ensure_parent(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def build_split(spec: TaskSpec, raw_root: Path, out: Path) -> dict[str, Any]:
    """Write public/ and private/ for ``spec`` from ``raw_root`` into ``out``; return the report."""
    plan = plan_split(spec)
    s = plan.split
    (out / PUBLIC_DIR).mkdir(parents=True, exist_ok=True)
    (out / PRIVATE_DIR).mkdir(parents=True, exist_ok=True)
    if s.strategy == "official":
        if not (s.official_test_file and s.official_answers_file):
            raise SplitError("the official strategy needs split.official_test_file and "
                             "split.official_answers_file")
        body = split_two_tables(raw_root, plan, out, s.official_test_file, s.official_answers_file)
    elif s.strategy == "holdout" and not s.holdout_column:
        if not s.holdout:
            raise SplitError("the holdout strategy needs split.holdout (a file, or a value of "
                             "split.holdout_column)")
        body = split_two_tables(raw_root, plan, out, s.holdout, s.holdout)
    else:
        body = split_single_table(raw_root, plan, out)
    extra = copy_extra_files(raw_root, plan, out)
    report: dict[str, Any] = {
        "task_id": spec.id,
        "strategy": s.strategy,
        "seed": s.seed,
        "test_size": s.test_size,
        "test_order": s.test_order,
        **body,
        "extra_public_files": extra,
    }
    report["sample_submission"]["score"] = grade_sample(spec, out, plan)
    return report


def grade_sample(spec: TaskSpec, root: Path, plan: SplitPlan) -> float | None:
    """Score of the sample submission by the grader (None without a grader or grading spec)."""
    grader = load_grader()
    if grader is None or spec.grading is None:
        return None
    rep = grader(root / PUBLIC_DIR / SAMPLE_FILE, spec, root / PRIVATE_DIR / plan.answers_file)
    if not getattr(rep, "valid_submission", False):
        errors = getattr(rep, "errors", None) or getattr(rep, "messages", None)
        raise SplitError(f"the sample submission of {spec.id} does not validate: {errors}")
    score = getattr(rep, "score", None)
    if score is None or not math.isfinite(float(score)):
        raise SplitError(f"the sample submission of {spec.id} scores {score!r}, not a number")
    return float(score)


# --- driver ----------------------------------------------------------------------------------


@dataclass
class PrepareResult:
    """What one prepare did."""

    task_id: str
    task_dir: Path
    status: str
    """"prepared" (files written) or "up_to_date" (existing files matched their checksums)."""
    report: dict[str, Any]
    audit: Any = None
    """The :class:`tambench.splits.audit.AuditReport` (None when the audit was skipped)."""
    changed: ChecksumDiff | None = None
    """For a forced rebuild: how the new files differ from the previous ones."""


def _swap_into_place(staging: Path, final: Path) -> None:
    if final.exists():
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, old)
        os.replace(staging, final)
        shutil.rmtree(old)
    else:
        os.replace(staging, final)


def resolve_source(spec: TaskSpec, raw: RawSource | str | Path | None) -> RawSource:
    """The source to prepare from: the given one, a local path, or Kaggle for kaggle tasks."""
    if raw is None:
        if spec.platform != "kaggle":
            raise SourceError(f"task {spec.id}: only Kaggle tasks can be downloaded; give --raw")
        return KaggleSource(spec.slug)
    if isinstance(raw, (str, Path)):
        return open_source(raw)
    return raw


def prepare_task(
    spec: TaskSpec,
    raw: RawSource | str | Path | None,
    data_dir: Path,
    *,
    force: bool = False,
    run_audit: bool = True,
) -> PrepareResult:
    """Prepare one task into ``<data_dir>/<platform>/<slug>`` and audit it.

    An existing prepared task is verified against its ``checksums.json`` and kept when it
    matches (a mismatch raises :class:`ChecksumMismatchError` with the diff); ``force``
    rebuilds it. ``raw`` None downloads a Kaggle task. The leakage audit runs afterwards and
    raises :class:`LeakageError` listing every finding.
    """
    from tambench.splits.audit import audit_task

    final = task_dir(spec, data_dir)
    if not force and (final / CHECKSUMS_FILE).is_file():
        ensure_checksums(final)
        report = json.loads((final / REPORT_FILE).read_text(encoding="utf-8"))
        result = PrepareResult(spec.id, final, "up_to_date", report)
    else:
        source = resolve_source(spec, raw)
        final.parent.mkdir(parents=True, exist_ok=True)
        previous = read_checksums(final) if (final / CHECKSUMS_FILE).is_file() else None
        staging = Path(tempfile.mkdtemp(prefix=f".{spec.slug}.staging-", dir=final.parent))
        work = Path(tempfile.mkdtemp(prefix=f".{spec.slug}.raw-", dir=final.parent))
        try:
            raw_root = source.fetch(work)
            report = build_split(spec, raw_root, staging)
            text = json.dumps(report, indent=1, sort_keys=True, allow_nan=False) + "\n"
            (staging / REPORT_FILE).write_text(text, encoding="utf-8")
            sums = write_checksums(staging)
            _swap_into_place(staging, final)
        finally:
            shutil.rmtree(work, ignore_errors=True)
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        changed = diff_checksums(previous, sums) if previous is not None else None
        result = PrepareResult(spec.id, final, "prepared", report, changed=changed)
    if run_audit:
        result.audit = audit_task(spec, final)
        if not result.audit.passed:
            raise LeakageError(result.audit.render_findings())
    return result


# --- many tasks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrepareJob:
    """One task to prepare in a worker process (picklable)."""

    spec: TaskSpec
    raw: str | None
    """A folder or archive; None downloads the task (Kaggle)."""
    data_dir: str
    force: bool = False
    run_audit: bool = True


@dataclass(frozen=True)
class PrepareOutcome:
    """The result of one job, as plain data."""

    task_id: str
    ok: bool
    status: str
    """"prepared", "up_to_date", or "failed"."""
    error: str = ""
    error_type: str = ""
    task_dir: str = ""
    rows: dict[str, Any] = field(default_factory=dict)


def prepare_job(job: PrepareJob) -> PrepareOutcome:
    """Run one :class:`PrepareJob`; tambench's own errors become a failed outcome."""
    try:
        res = prepare_task(job.spec, job.raw, Path(job.data_dir), force=job.force,
                           run_audit=job.run_audit)
    except TambenchError as exc:
        return PrepareOutcome(job.spec.id, False, "failed", str(exc), type(exc).__name__)
    return PrepareOutcome(job.spec.id, True, res.status, task_dir=str(res.task_dir),
                          rows=dict(res.report.get("rows", {})))


def prepare_many(
    jobs: Sequence[PrepareJob],
    *,
    executor: Executor | str = "local",
    max_workers: int | None = None,
    retries: int = 2,
) -> list[PrepareOutcome]:
    """Prepare many tasks on a pluggable executor; outcomes come back in job order.

    A job that raises something other than tambench's own errors, or whose worker dies, is
    retried ``retries`` times and then becomes a failed outcome; the batch always completes.
    """
    from tambench.executors import get_executor, run_items

    ex = get_executor(executor, max_workers) if isinstance(executor, str) else executor
    owned = isinstance(executor, str)
    try:
        results = run_items(prepare_job, jobs, ex, retries=retries, chunk_size=1)
    finally:
        if owned:
            ex.shutdown(wait=True)
    return [
        r.value if r.ok and r.value is not None else PrepareOutcome(
            job.spec.id, False, "failed", str(r.error), str(r.error).split(":", 1)[0]
        )
        for job, r in zip(jobs, results, strict=True)
    ]
