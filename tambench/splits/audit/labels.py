"""Label-bearing content in public/, judged by what files hold, at any test size.

The statistical checks (:mod:`.stats`) need enough rows; these rules are exact, so they hold on
a test set of a handful of rows as well:

* a public column equal to a target on every test row (a copy of the label under another name
  or in another file, the way peers published label files);
* a public column with a value that marks one class exactly (``giver_username_if_known`` is
  "N/A" exactly when no pizza was received; ``benign_malignant`` is "malignant" exactly when
  the target is 1), judged on the test rows together with the train rows;
* public side files (JSON, logs) holding the test ids with their labels (span logs);
* per-row files whose public path holds their row's label and no other (``test/cat/12.jpg``;
  a uid such as ``1.2.826.0.1`` holds every digit label, so it names none).

A file's name is never a finding by itself: ``public/test.csv`` and a private ``test.csv`` share
a name and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from tambench.splits.audit.report import CheckResult
from tambench.splits.audit.stats import MAX_CLASS_VALUES, MIN_ROWS
from tambench.splits.layout import (
    MANIFEST_FILE,
    PUBLIC_DIR,
    SAMPLE_FILE,
    TEST_FILES_DIR,
    TRAIN_FILE,
    TRAIN_FILES_DIR,
    SplitPlan,
)

#: The indicator rule needs this many rows in all (test and train) and on each side of it.
INDICATOR_MIN_ROWS = 12
INDICATOR_MIN_SIDE = 3
#: A column covering this share of the test ids keys a table by them (a label file).
KEY_COVERAGE = 0.9
#: Share of test rows whose public file path names their label that is a finding.
PATH_LABEL_SHARE = 0.9


def _text(series: pl.Series) -> np.ndarray:
    return series.cast(pl.String).fill_null("").to_numpy().astype(str)


def marking_value(column: np.ndarray, labels: np.ndarray) -> tuple[str, str] | None:
    """A value of ``column`` present exactly on the rows of one label (value, label), when both
    sides have at least :data:`INDICATOR_MIN_SIDE` rows and there are
    :data:`INDICATOR_MIN_ROWS` rows in all; None otherwise.

    >>> marking_value(np.array(["N/A"] * 6 + list("abcdef")), np.array(["0"] * 6 + ["1"] * 6))
    ('N/A', '0')
    """
    if column.size < INDICATOR_MIN_ROWS:
        return None
    values, col = np.unique(column, return_inverse=True)
    classes, lab = np.unique(labels, return_inverse=True)
    if classes.size < 2:
        return None
    per_value = np.bincount(col, minlength=values.size)
    per_class = np.bincount(lab, minlength=classes.size)
    pairs = np.unique(col.astype(np.int64) * classes.size + lab)
    pair_value, pair_class = pairs // classes.size, pairs % classes.size
    labels_of_value = np.bincount(pair_value, minlength=values.size)
    n = per_value[pair_value]
    marks = np.flatnonzero((labels_of_value[pair_value] == 1) & (per_class[pair_class] == n)
                           & (n >= INDICATOR_MIN_SIDE) & (n <= column.size - INDICATOR_MIN_SIDE))
    if marks.size == 0:
        return None
    first = int(marks[0])
    return str(values[pair_value[first]]), str(classes[pair_class[first]])


def _key_column(table: pl.DataFrame, idc: str, test_ids: pl.Series) -> str | None:
    """The column of ``table`` holding the test ids (the id column, or one under another
    name covering :data:`KEY_COVERAGE` of them), one row per id; None when none does."""
    if idc in table.columns:
        return idc if table[idc].n_unique() == table.height else None
    for col in table.columns:
        s = table[col].cast(pl.String)
        if s.n_unique() == table.height and \
                test_ids.is_in(s.implode()).mean() >= KEY_COVERAGE:  # type: ignore[operator]
            return col
    return None


def column_findings(name: str, column: pl.Series, labels: pl.Series, target: str,
                    train: tuple[pl.Series, pl.Series] | None, small: bool) -> list[str]:
    """Findings for one public column against one target on the test rows (``train``: the
    same column and target on public train rows, which the indicator rule also reads)."""
    col, lab = _text(column), _text(labels)
    if lab.size == 0:
        return []
    if small and np.unique(lab).size >= 2 and bool(np.all(col == lab)):
        return [f"{name} equals target {target!r} on every one of the {lab.size} test rows"]
    if np.unique(lab).size > MAX_CLASS_VALUES:
        return []
    both_col, both_lab = col, lab
    if train is not None:
        both_col = np.concatenate([col, _text(train[0])])
        both_lab = np.concatenate([lab, _text(train[1])])
    marked = marking_value(both_col, both_lab)
    if marked is None:
        return []
    return [f"{name} is {marked[0]!r} exactly on the rows whose target {target!r} is "
            f"{marked[1]!r} ({both_col.size} train and test rows): it carries the label"]


def check_label_bearing(plan: SplitPlan, root: Path, answers: pl.DataFrame,
                        tables: dict[str, pl.DataFrame],
                        train: pl.DataFrame | None) -> CheckResult:
    """No public table (other than train.csv and the sample submission) carries a test label,
    exactly, in a column of any name; no per-row file path names its row's label.

    ``tables`` maps public CSV paths (relative to public/) to their rows; ``train`` is a sample
    of public train rows.
    """
    idc = plan.id_column
    targets = [t for t in plan.hidden_columns if t in answers.columns]
    small = answers.height < MIN_ROWS
    ids = answers[idc].cast(pl.String)
    findings: list[str] = []
    for rel, table in sorted(tables.items()):
        if rel in (TRAIN_FILE, SAMPLE_FILE, MANIFEST_FILE):
            continue
        key = _key_column(table, idc, ids)
        if key is None:
            continue
        keyed = table.with_columns(pl.col(key).cast(pl.String)).rename(
            {c: f"\x01{c}" for c in table.columns if c != key})
        joined = answers.with_columns(pl.col(idc).cast(pl.String)).join(
            keyed, left_on=idc, right_on=key, how="inner")
        for col in (c for c in table.columns if c != key):
            values = joined[f"\x01{col}"]
            for t in targets:
                on_train = (train[col], train[t]) if (
                    train is not None and col in train.columns and t in train.columns) else None
                findings += column_findings(f"public/{rel} column {col!r}", values, joined[t],
                                            t, on_train, small)
    findings += _path_findings(root, answers, idc, targets)
    findings += _text_file_findings(root, answers, idc, targets)
    return CheckResult(name="labels_in_public", status="fail" if findings else "pass",
                       findings=findings, detail=f"{len(tables)} public table(s), "
                                                 f"{answers.height} test rows")


def _path_findings(root: Path, answers: pl.DataFrame, idc: str, targets: list[str]) -> list[str]:
    """Per-row test files whose public path holds their row's label."""
    manifest = root / PUBLIC_DIR / MANIFEST_FILE
    if not manifest.is_file():
        return []
    rows = pl.read_csv(manifest, infer_schema=False).filter(pl.col("split") == "test")
    joined = rows.join(answers.with_columns(pl.col(idc).cast(pl.String)),
                       left_on="id", right_on=idc, how="inner")
    findings = []
    paths = joined["path"].to_list()
    for t in targets:
        labels = _text(joined[t])
        if joined.height < 2 or np.unique(labels).size < 2:
            continue
        parts = [set(p.replace(".", "/").split("/")) for p in paths]
        classes = set(labels.tolist())
        share = float(np.mean([lab in ps and not (classes - {lab}) & ps
                               for lab, ps in zip(labels, parts, strict=True)]))
        if share >= PATH_LABEL_SHARE:
            findings.append(f"the public paths of {share:.0%} of the test files name their "
                            f"row's target {t!r} (e.g. {paths[0]})")
        inside = _labels_inside(root / PUBLIC_DIR, paths, labels)
        if inside >= PATH_LABEL_SHARE:
            findings.append(f"{inside:.0%} of the test files hold their row's target {t!r} in "
                            f"their bytes (e.g. public/{paths[0]}): the files carry the labels")
    return findings


#: Test files read for labels inside them: at most this many, each up to this many bytes.
CONTENT_FILES = 200
CONTENT_BYTES = 4 * 1024**2


def _labels_inside(pub: Path, paths: list[str], labels: np.ndarray) -> float:
    """Share of test files (a sample) whose bytes hold their own label, for labels of at least
    three characters that differ between rows (0.0 otherwise)."""
    checked = hits = 0
    for rel, label in zip(paths[:CONTENT_FILES], labels[:CONTENT_FILES], strict=False):
        if len(label) < 3:
            return 0.0
        path = pub / rel
        if path.is_dir():  # a row's folder: its first file
            path = next((f for f in sorted(path.rglob("*")) if f.is_file()), path)
        if not path.is_file():
            continue
        with open(path, "rb") as fh:
            data = fh.read(CONTENT_BYTES)
        checked += 1
        hits += label.encode() in data
    return hits / checked if checked >= 2 else 0.0


#: Public text files (not tables, not per-row files) read for test ids beside their labels.
TEXT_SUFFIXES = frozenset({".json", ".jsonl", ".txt", ".log", ".tsv", ".xml", ".yaml", ".yml"})
TEXT_MAX_BYTES = 32 * 1024**2


def _text_file_findings(root: Path, answers: pl.DataFrame, idc: str,
                        targets: list[str]) -> list[str]:
    """Public side files (a JSON of annotations, a log of spans) that hold the test ids with
    their labels: a finding when nearly every test row's id and label (three characters or
    more) are both in the file."""
    pub = root / PUBLIC_DIR
    skip = (pub / TRAIN_FILES_DIR, pub / TEST_FILES_DIR)
    ids = _text(answers[idc])
    findings = []
    for path in sorted(pub.rglob("*")):
        if not path.is_file() or path.suffix.lower() not in TEXT_SUFFIXES or \
                any(path.is_relative_to(d) for d in skip) or \
                path.stat().st_size > TEXT_MAX_BYTES:
            continue
        data = path.read_bytes()
        for t in targets:
            labels = _text(answers[t])
            usable = [(i, lab) for i, lab in zip(ids, labels, strict=True) if len(lab) >= 3]
            if len(usable) < 2 or len(usable) < 0.5 * len(ids):
                continue
            usable = usable[:CONTENT_FILES]  # a sample: each look-up scans the file
            share = np.mean([i.encode() in data and lab.encode() in data for i, lab in usable])
            if share >= PATH_LABEL_SHARE:
                findings.append(f"public/{path.relative_to(pub).as_posix()} holds {share:.0%} "
                                f"of the test ids together with their target {t!r}")
    return findings
