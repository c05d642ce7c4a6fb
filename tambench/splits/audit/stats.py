"""Statistics of the leakage audit: AUROC, Spearman, label kinds, and single-column leak tests.

A column leaks when, on the test rows, it equals the label, tracks it (AUROC >= 0.99 for
classes, |Spearman| >= 0.99 for numbers), or determines it (nearly every row has the majority
label of its value while the labels are not nearly all one class).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import polars as pl
from scipy.stats import rankdata

#: A single feature at or above this AUROC (or |Spearman|) against the labels is a leak.
FEATURE_THRESHOLD = 0.99
#: Labels with at most this many distinct values are treated as classes.
MAX_CLASS_VALUES = 20
#: A column whose train statistic is within this of its test statistic (and under the
#: threshold) is a strong genuine feature: a small test set overshot, no leak.
CONSISTENT_MARGIN = 0.05
#: Statistics need at least this many rows (and this many per class).
MIN_ROWS = 30
MIN_CLASS_ROWS = 5




def auroc(score: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve of ``score`` for the boolean labels ``positive`` (ties: 0.5).

    >>> auroc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([False, False, True, True]))
    0.75
    """
    n1 = int(positive.sum())
    n0 = positive.size - n1
    if n1 == 0 or n0 == 0:
        return 0.5
    ranks = rankdata(score)
    return float((ranks[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation (0.0 when either side is constant).

    >>> spearman(np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 15.0]))
    0.5
    """
    rx = rankdata(x)
    ry = rankdata(y)
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


@dataclass(frozen=True)
class Labels:
    """One target column's values on the test rows."""

    kind: Literal["binary", "multiclass", "numeric", "other"]
    text: np.ndarray
    """The labels as text (missing: empty)."""
    values: np.ndarray | None = None
    """numeric: the labels as numbers."""
    classes: tuple[str, ...] = ()
    """binary/multiclass: classes with at least MIN_CLASS_ROWS rows, most frequent first."""

    @property
    def is_class(self) -> bool:
        """Whether the labels are classes (binary or multiclass)."""
        return self.kind in ("binary", "multiclass")

    @property
    def base_rate(self) -> float:
        """Share of the most frequent label."""
        if self.text.size == 0:
            return 1.0
        _, counts = np.unique(self.text, return_counts=True)
        return float(counts.max() / self.text.size)


def labels_of(series: pl.Series) -> Labels:
    """The kind of a target column on the test rows, with its values."""
    text = series.fill_null("").to_numpy().astype(str)
    counts = series.drop_nulls().value_counts(name="n").sort(["n", series.name],
                                                             descending=[True, False])
    n_distinct = counts.height
    num = series.cast(pl.Float64, strict=False)
    is_num = series.null_count() == 0 and num.null_count() == 0
    if n_distinct <= MAX_CLASS_VALUES or not is_num:
        classes = tuple(str(c) for c, k in zip(counts[series.name], counts["n"], strict=True)
                        if k >= MIN_CLASS_ROWS)[:50]
        if len(classes) < 2:
            return Labels("other", text)
        return Labels("binary" if n_distinct == 2 else "multiclass", text, classes=classes)
    return Labels("numeric", text, values=num.to_numpy())


def numeric_feature(series: pl.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """Values and the rows they come from, when >= 95% of the non-missing values are numbers."""
    nonnull = series.len() - series.null_count()
    if nonnull < MIN_ROWS:
        return None
    num = series.cast(pl.Float64, strict=False).to_numpy()
    ok = np.isfinite(num)
    if ok.sum() < 0.95 * nonnull:
        return None
    return num[ok], ok


def score_signal(x: np.ndarray, lab: Labels, rows: np.ndarray | None = None) -> tuple[str, float]:
    """How well one numeric column tracks the labels: ("AUROC"|"|Spearman|", value in [0.5|0, 1])."""
    text = lab.text if rows is None else lab.text[rows]
    if lab.kind == "binary":
        a = auroc(x, text == lab.classes[0])
        return "AUROC", max(a, 1 - a)
    if lab.kind == "multiclass":
        aucs = []
        for c in lab.classes:
            pos = text == c
            if pos.sum() < MIN_CLASS_ROWS or (~pos).sum() < MIN_CLASS_ROWS:
                continue
            centre = float(np.median(x[pos]))
            aucs.append(auroc(-np.abs(x - centre), pos))
        return "AUROC (one-vs-rest, distance to class median, macro)", float(np.mean(aucs)) if (
            len(aucs) >= 2) else 0.5
    if lab.kind == "numeric" and lab.values is not None:
        y = lab.values if rows is None else lab.values[rows]
        return "|Spearman|", abs(spearman(x, y))
    return "", 0.0


def purity(feature: np.ndarray, labels: np.ndarray) -> float:
    """Share of rows whose label is the most frequent label among rows with the same feature."""
    _, f = np.unique(feature, return_inverse=True)
    _, y = np.unique(labels, return_inverse=True)
    k = int(y.max()) + 1
    counts = np.bincount(f * k + y, minlength=(int(f.max()) + 1) * k).reshape(-1, k)
    return float(counts.max(axis=1).sum() / labels.size)


def _train_signal(train: tuple[pl.Series, Labels] | None) -> tuple[str, float] | None:
    """The same statistic on the train rows (None when train lacks the column or rows)."""
    if train is None:
        return None
    series, lab = train
    num = numeric_feature(series)
    if num is None:
        return None
    values, rows = num
    label, value = score_signal(values, lab, rows)
    return (label, value) if label else None


def _numeric_finding(name: str, series: pl.Series, lab: Labels, target: str,
                     train: tuple[pl.Series, Labels] | None) -> str | None:
    """A column that tracks the labels on the test rows; None when it does not, or when it is a
    strong feature that tracks them as well (within :data:`CONSISTENT_MARGIN`) on the far more
    numerous train rows."""
    num = numeric_feature(series)
    if num is None:
        return None
    values, rows = num
    label, value = score_signal(values, lab, rows)
    if not label or value < FEATURE_THRESHOLD:
        return None
    found = f"{name} reaches {label} {value:.4f} >= {FEATURE_THRESHOLD} against target " \
            f"{target!r} on the test rows"
    on_train = _train_signal(train)
    if on_train is None:
        return found
    if on_train[1] >= FEATURE_THRESHOLD:
        return f"{found} (and {on_train[1]:.4f} on the train rows)"
    if on_train[1] >= value - CONSISTENT_MARGIN:
        return None  # a strong feature, as strong on train: small test sets overshoot
    return f"{found}, but only {on_train[1]:.4f} on the train rows: the test rows carry more"


def feature_findings(name: str, series: pl.Series, lab: Labels, target: str,
                     train: tuple[pl.Series, Labels] | None = None) -> list[str]:
    """Leak findings for one public column against one target column.

    ``train`` (the same column and the labels on a sample of train rows, when train has the
    column) tells a strong genuine feature from a leak for the AUROC/Spearman rule.
    """
    if series.drop_nulls().n_unique() < 2:
        return []
    text = series.fill_null("").to_numpy().astype(str)
    same = float(np.mean(text == lab.text))
    if same >= FEATURE_THRESHOLD:
        return [f"{name} equals target {target!r} on {same:.1%} of test rows"]
    numeric = _numeric_finding(name, series, lab, target, train)
    if numeric is not None:
        return [numeric]
    if lab.kind in ("binary", "multiclass"):
        n_values = series.n_unique()
        if 2 <= n_values <= series.len() // 10:
            base = lab.base_rate
            pur = purity(text, lab.text)
            if pur >= FEATURE_THRESHOLD and base < 0.95:
                return [f"{name} determines target {target!r}: {pur:.1%} of test rows have "
                        f"the majority label of their {name} value (base rate {base:.1%})"]
    return []
