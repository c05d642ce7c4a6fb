"""One streamed pass over public/train.csv that gathers what every train-side check needs.

public/train.csv is the largest public file (nine times the test rows in a usual split), so it
is read once, in batches, and never held whole. From each batch the pass keeps:

* the ids that also occur in public/test.csv (compared by hash, then as strings);
* the train rows whose features, normalised (text columns lower-cased, runs of whitespace
  made one space, ends stripped), equal those of a test row: candidates for the
  duplicate-row check, with their raw features, label and id; a feature tuple met more than
  :data:`MAX_TWINS` times in train is common, not a copy, and is dropped as soon as it is seen
  to be;
* a hashed sample of whole rows, from which the id-leak check learns what an id says and the
  feature check tells a strong genuine feature from a leak;
* the distinct values of the group or time column, for group and time splits.

Hashes are polars' row hashes, compared within one process only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from tambench.errors import TaskDataError
from tambench.splits.rawcsv import polars_reason

#: Train rows read per batch.
BATCH_ROWS = 100_000
#: A normalised feature tuple met more often than this in train is a common value, not a copy.
MAX_TWINS = 3
#: Rows of the train sample (between this and twice this many when train is larger).
SAMPLE_ROWS = 100_000
#: Candidate twin rows held before common tuples are pruned.
PRUNE_AT = 1_000_000
_SEED = 7
#: Column names of the twin rows (prefixed so that they cannot clash with the table's).
TWIN_KEY, TWIN_LABEL, TWIN_ID = "\x02key", "\x02label", "\x02id"
_HASH = "\x02h"


def norm_name(col: str) -> str:
    """The name of a column's normalised copy."""
    return f"\x03{col}"


@dataclass(frozen=True)
class Features:
    """The public columns a duplicate is judged on, and how each is normalised."""

    columns: list[str]
    text: list[str]
    """The columns normalised as text: lower case, ends stripped (the others are numbers,
    compared as written)."""
    spaced: list[str] = field(default_factory=list)
    """Text columns whose test values hold inner whitespace: runs of it become one space. In
    the other columns no train value could match a test value either way, so the (costly)
    collapse is skipped."""

    def normalised(self) -> list[pl.Expr]:
        """One expression per column, named :func:`norm_name` of it."""
        out = []
        for c in self.columns:
            e = pl.col(c)
            if c in self.text:
                e = e.str.to_lowercase()
                if c in self.spaced:
                    e = e.str.replace_all(r"\s+", " ")
                e = e.str.strip_chars()
            out.append(e.alias(norm_name(c)))
        return out

    def key(self, df: pl.DataFrame) -> np.ndarray:
        """The hash of each row's normalised features."""
        return df.select(self.normalised()).hash_rows(seed=_SEED).to_numpy()


def feature_columns(train_header: list[str], test: pl.DataFrame,
                    exclude: set[str]) -> Features:
    """Columns of both public tables except ids and targets; text columns are those whose
    test values are not all numbers."""
    cols = [c for c in test.columns if c in train_header and c not in exclude]
    text = [c for c in cols
            if test[c].drop_nulls().cast(pl.Float64, strict=False).null_count() > 0]
    spaced = [c for c in text if test[c].str.strip_chars().str.contains(r"\s").any()]
    return Features(cols, text, spaced)


def label_key(targets: list[str]) -> pl.Expr:
    """All target values of a row as one string."""
    return pl.concat_str([pl.col(t).fill_null("") for t in targets], separator="\x1f")


class KeySet:
    """A set of 64-bit hashes that answers "which of these values are members?" quickly.

    Most values asked about are not members (train rows that match no test row), so a bitmap
    of the keys' top bits rules out nearly all of them before a binary search in the sorted
    keys confirms the rest (a binary search of every value is cache-bound and ten times
    slower on millions of rows).

    >>> KeySet(np.array([3, 1, 3], dtype=np.uint64)).contains(np.array([3, 9, 1], dtype=np.uint64))
    array([ True, False,  True])
    """

    _BITS = 24

    def __init__(self, keys: np.ndarray) -> None:
        ordered = np.sort(np.asarray(keys, dtype=np.uint64))
        keep = np.ones(ordered.size, dtype=bool)
        keep[1:] = ordered[1:] != ordered[:-1]
        self.keys = ordered[keep]
        self._shift = np.uint64(64 - self._BITS)
        self._bitmap = np.zeros(1 << self._BITS, dtype=bool)
        self._bitmap[self.keys >> self._shift] = True

    def __len__(self) -> int:
        return int(self.keys.size)

    def contains(self, values: np.ndarray) -> np.ndarray:
        """Whether each of ``values`` is a member."""
        out = np.zeros(values.size, dtype=bool)
        if self.keys.size == 0:
            return out
        maybe = np.flatnonzero(self._bitmap[values >> self._shift])
        if maybe.size:
            cand = values[maybe]
            pos = np.searchsorted(self.keys, cand)
            pos[pos == self.keys.size] = 0
            out[maybe] = self.keys[pos] == cand
        return out

    def add(self, keys: np.ndarray) -> KeySet:
        """A set holding these keys too."""
        return KeySet(np.concatenate([self.keys, keys]))


@dataclass
class TrainPass:
    """What the pass kept."""

    rows: int = 0
    shared_ids: list[str] = field(default_factory=list)
    """Test ids that also occur in train."""
    twins: pl.DataFrame | None = None
    """Train rows whose normalised features match a test row (common tuples pruned)."""
    common_keys: KeySet = field(default_factory=lambda: KeySet(np.zeros(0, dtype=np.uint64)))
    """Feature hashes met more than MAX_TWINS times in train."""
    sample: pl.DataFrame | None = None
    """A hashed sample of train rows (every column)."""
    values: dict[str, pl.Series] = field(default_factory=dict)
    """Distinct values of the group or time column."""


@dataclass
class _Accumulator:
    idc: str
    targets: list[str]
    features: Features
    test_ids: pl.Series
    test_id_keys: KeySet
    test_keys: KeySet
    distinct: list[str]
    out: TrainPass = field(default_factory=TrainPass)
    twin_parts: list[pl.DataFrame] = field(default_factory=list)
    twin_rows: int = 0
    sample_parts: list[pl.DataFrame] = field(default_factory=list)
    sample_rows: int = 0
    threshold: int = (1 << 64) - 1
    distinct_parts: dict[str, list[pl.Series]] = field(default_factory=dict)

    def add(self, batch: pl.DataFrame) -> None:
        ids = batch[self.idc]
        self.out.rows += batch.height
        id_keys = ids.hash(seed=_SEED)
        hit = self.test_id_keys.contains(id_keys.to_numpy())
        if hit.any():
            cand = ids.filter(pl.Series(hit))
            self.out.shared_ids += cand.filter(cand.is_in(self.test_ids.implode())).to_list()
        if self.features.columns:
            self._add_twins(batch)
        self._add_sample(batch, id_keys)
        for c in self.distinct:
            self.distinct_parts.setdefault(c, []).append(batch[c].unique())

    def _add_twins(self, batch: pl.DataFrame) -> None:
        keys = self.features.key(batch)
        hit = self.test_keys.contains(keys)
        if len(self.out.common_keys):
            hit &= ~self.out.common_keys.contains(keys)
        if not hit.any():
            return
        m = pl.Series(hit)
        part = batch.filter(m).select(
            *self.features.normalised(), *[pl.col(c) for c in self.features.columns],
            label_key(self.targets).alias(TWIN_LABEL), pl.col(self.idc).alias(TWIN_ID),
        ).with_columns(pl.Series(TWIN_KEY, keys[hit]))
        self.twin_parts.append(part)
        self.twin_rows += part.height
        if self.twin_rows > PRUNE_AT:
            self._prune()

    def _prune(self) -> None:
        twins = pl.concat(self.twin_parts)
        counts = twins.group_by(TWIN_KEY).len()
        over = counts.filter(pl.col("len") > MAX_TWINS)[TWIN_KEY].to_numpy()
        self.out.common_keys = self.out.common_keys.add(over)
        twins = twins.filter(~pl.col(TWIN_KEY).is_in(pl.Series(over).implode()))
        self.twin_parts, self.twin_rows = [twins], twins.height

    def _add_sample(self, batch: pl.DataFrame, h: pl.Series) -> None:
        keep = h < self.threshold
        part = batch.with_columns(h.alias(_HASH)).filter(keep)
        self.sample_parts.append(part)
        self.sample_rows += part.height
        while self.sample_rows > 2 * SAMPLE_ROWS:
            self.threshold //= 2
            self.sample_parts = [p.filter(pl.col(_HASH) < self.threshold)
                                 for p in self.sample_parts]
            self.sample_rows = sum(p.height for p in self.sample_parts)

    def finish(self) -> TrainPass:
        if self.twin_parts:
            self._prune()
            self.out.twins = self.twin_parts[0]
        if self.sample_parts:
            self.out.sample = pl.concat(self.sample_parts).drop(_HASH)
        self.out.values = {c: pl.concat(v).unique() for c, v in self.distinct_parts.items()}
        return self.out


def read_train(path: Path, idc: str, targets: list[str], test: pl.DataFrame,
               features: Features, distinct: list[str], test_idc: str = "") -> TrainPass:
    """Stream ``path`` (public/train.csv) once; see the module docstring. ``test_idc``: the
    test rows' id column where train.csv's rows are keyed otherwise (events before the test
    period, the test rows their keys); empty: ``idc``."""
    test_ids = test[test_idc or idc]
    acc = _Accumulator(
        idc=idc, targets=targets, features=features, test_ids=test_ids,
        test_id_keys=KeySet(test_ids.hash(seed=_SEED).to_numpy()),
        test_keys=KeySet(features.key(test) if features.columns else np.zeros(
            0, dtype=np.uint64)),
        distinct=distinct,
    )
    try:
        for batch in pl.scan_csv(path, infer_schema=False).collect_batches(
                chunk_size=BATCH_ROWS):
            acc.add(batch)
    except pl.exceptions.PolarsError as exc:
        raise TaskDataError(f"cannot read prepared file {path}: {polars_reason(exc)}") from exc
    return acc.finish()

