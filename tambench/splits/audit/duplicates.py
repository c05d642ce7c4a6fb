"""The duplicate-row check: does a test row have an identical, labelled row in public/train.csv?

A test row whose features equal those of a train row (byte for byte, or after normalising
whitespace and case in text columns) gives away its label when the train row has the same
label: an agent looks it up instead of predicting it. Feature tuples met often in train are
common values of a small feature space, not copies, and are not counted
(:data:`~tambench.splits.audit.trainpass.MAX_TWINS`). The check fails when at least
:data:`DUP_SHARE` of the test rows (and :data:`MIN_DUP_ROWS`) have such a twin, and nearly all
twinned test rows share their twin's label (:data:`MIN_AGREEMENT`; chance coincidences of
features do not).
"""

from __future__ import annotations

import math

import polars as pl

from tambench.splits.audit.report import CheckResult
from tambench.splits.audit.trainpass import (
    TWIN_ID,
    TWIN_LABEL,
    Features,
    TrainPass,
    label_key,
    norm_name,
)

NAME = "duplicate_rows"
#: Share of test rows with an identical labelled train row at which the check fails.
DUP_SHARE = 0.01
#: ... and at least this many rows.
MIN_DUP_ROWS = 5
#: Share of twinned test rows that share their twin's label for the twins to count as copies.
MIN_AGREEMENT = 0.9
_TEST_LABEL, _TEST_ID = "\x04label", "\x04id"


def _pairs(test: pl.DataFrame, answers: pl.DataFrame, idc: str, targets: list[str],
           features: Features, twins: pl.DataFrame) -> pl.DataFrame:
    """(test id, train id, same label, byte-identical) for every test row and train twin."""
    labels = answers.select(pl.col(idc).alias(_TEST_ID), label_key(targets).alias(_TEST_LABEL))
    side = test.select(pl.col(idc).alias(_TEST_ID), *features.normalised(),
                       *[pl.col(c) for c in features.columns]).join(
        labels, on=_TEST_ID, how="left")
    norm = [norm_name(c) for c in features.columns]
    joined = side.join(twins, on=norm, how="inner", suffix="\x05", nulls_equal=True)
    exact = pl.all_horizontal([pl.col(c).eq_missing(pl.col(f"{c}\x05"))
                               for c in features.columns])
    return joined.select(
        _TEST_ID, TWIN_ID,
        pl.col(_TEST_LABEL).eq_missing(pl.col(TWIN_LABEL)).alias("same_label"),
        exact.alias("exact"),
    )


def check_duplicates(test: pl.DataFrame, answers: pl.DataFrame, idc: str, targets: list[str],
                     features: Features, train: TrainPass) -> CheckResult:
    """Fail when test rows have identical labelled rows in public/train.csv."""
    if not features.columns:
        return CheckResult(name=NAME, status="skipped",
                           detail="no feature column is in both public tables")
    n_test = test.height
    if train.twins is None or train.twins.height == 0 or n_test == 0:
        return CheckResult(name=NAME, status="pass", detail=(
            f"{len(features.columns)} feature column(s); no test row has a train twin"))
    pairs = _pairs(test, answers, idc, targets, features, train.twins)
    per_row = pairs.group_by(_TEST_ID).agg(
        pl.col("same_label").any().alias("same"),
        (pl.col("same_label") & pl.col("exact")).any().alias("exact"),
        pl.col(TWIN_ID).filter(pl.col("same_label")).first().alias("train_id"),
    )
    n_twinned = per_row.height
    same = per_row.filter(pl.col("same")).sort(_TEST_ID)
    n_same, n_exact = same.height, int(same["exact"].sum())
    agreement = n_same / n_twinned if n_twinned else 0.0
    detail = (f"{n_twinned} of {n_test} test rows have a train row with the same features "
              f"({len(features.columns)} column(s)); {n_same} of them the same label too")
    limit = max(MIN_DUP_ROWS, math.ceil(DUP_SHARE * n_test))
    if n_same < limit or agreement < MIN_AGREEMENT:
        return CheckResult(name=NAME, status="pass", detail=detail)
    examples = ", ".join(f"test {t!r} = train {r!r}" for t, r in
                         same.head(3).select(_TEST_ID, "train_id").iter_rows())
    finding = (f"{n_same} of {n_test} test rows have an identical labelled row in public/train.csv "
               f"({n_exact} byte for byte, {n_same - n_exact} after normalising whitespace and "
               f"case), e.g. {examples}: their labels can be looked up; remove duplicated rows "
               "from the raw data or split by a group column")
    return CheckResult(name=NAME, status="fail", detail=detail, findings=[finding])
