"""Planted leaks, each flagged by its own audit check, and their clean twins, which pass.

Duplicated rows (byte for byte, and after normalising whitespace and case) are caught by
``duplicate_rows``; ids that tell the label (a prefix, the label inside, a hash of it, ids
numbered in label order) by ``id_leakage``. Every twin differs from its leak only in the
planted signal.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from tambench.splits.audit import AuditReport, audit_task
from tambench.splits.audit.stats import feature_findings, labels_of
from tambench.splits.prepare import prepare_task
from tests.splits.helpers import make_spec

N = 1000
WORDS = ["red", "green", "blue", "quick", "brown", "fox", "lazy", "dog", "jumps", "over"]


def _table(seed: int = 0, n: int = N) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({
        "id": [f"{i:06d}" for i in rng.permutation(n)],
        "x1": [f"{v:.5f}" for v in rng.normal(size=n)],
        "x2": [f"{v:.3f}" for v in rng.lognormal(size=n)],
        "note": [" ".join(rng.choice(WORDS, 4)).capitalize() for _ in range(n)],
        "label": rng.choice(["yes", "no"], n).tolist(),
    })


def _audit(tmp_path: Path, df: pl.DataFrame, name: str, **spec: Any) -> AuditReport:
    raw = tmp_path / name
    raw.mkdir()
    df.write_csv(raw / "train.csv")
    task = make_spec(name, {"strategy": "random", "test_size": 0.2, **spec.pop("split", {})},
                     **spec)
    res = prepare_task(task, raw, tmp_path / "data", run_audit=False)
    return audit_task(task, res.task_dir)


def _failed(report: AuditReport) -> dict[str, list[str]]:
    return {c.name: c.findings for c in report.checks if c.status == "fail"}


# --- duplicated rows -------------------------------------------------------------------------


def _with_copies(df: pl.DataFrame, share: float, alter: Any = None) -> pl.DataFrame:
    copies = df.head(int(share * df.height)).with_columns(
        (pl.lit("c") + pl.col("id")).alias("id"))
    if alter is not None:
        copies = copies.with_columns(alter)
    return pl.concat([df, copies])


def test_rows_copied_byte_for_byte_are_flagged_by_duplicate_rows(tmp_path: Path) -> None:
    report = _audit(tmp_path, _with_copies(_table(), 0.15), "dup")
    (finding,) = _failed(report)["duplicate_rows"]
    assert "have an identical labelled row in public/train.csv" in finding
    assert "byte for byte, 0 after normalising" in finding


def test_rows_copied_with_other_case_and_spacing_are_flagged_after_normalising(
        tmp_path: Path) -> None:
    respelled = (pl.col("note").str.to_uppercase().str.replace_all(" ", "   ") + " ")
    report = _audit(tmp_path, _with_copies(_table(), 0.15, respelled.alias("note")), "dupnorm")
    (finding,) = _failed(report)["duplicate_rows"]
    assert "(0 byte for byte," in finding and "after normalising whitespace and case" in finding


def test_copies_with_other_words_are_a_clean_twin(tmp_path: Path) -> None:
    other = (pl.col("note") + " again").alias("note")
    report = _audit(tmp_path, _with_copies(_table(), 0.15, other), "dupclean")
    assert report.passed, _failed(report)
    assert report.check("duplicate_rows").status == "pass"


def test_a_small_feature_space_repeats_rows_without_being_flagged(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    df = pl.DataFrame({
        "id": [f"p{i:05d}" for i in range(N)],
        "colour": rng.choice(["red", "green", "blue", "grey"], N),
        "size": rng.choice(["s", "m", "l"], N),
        "label": rng.choice(["yes", "no"], N),
    })
    report = _audit(tmp_path, df, "smallspace")
    assert report.check("duplicate_rows").status == "pass", report.check("duplicate_rows")


# --- ids that tell the label -----------------------------------------------------------------


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()[:8]  # noqa: S324 - a planted leak, not security


ID_SHAPES: dict[str, tuple[Any, str]] = {
    # name -> (id from (row number, label, independent coin), what the finding names)
    "prefix": (lambda i, y, c: f"{y}-{i:06d}", "the label written in the id"),
    "label inside": (lambda i, y, c: f"img_{ {'yes': 'cat', 'no': 'dog'}[y]}_{i:05d}",
                     "token 2"),
    "hash of the label": (lambda i, y, c: f"{_md5(y)}{i:06d}", "a md5 hash of the label"),
}


@pytest.mark.parametrize("shape", sorted(ID_SHAPES))
def test_ids_that_carry_the_label_are_flagged_by_id_leakage_and_their_twin_passes(
        tmp_path: Path, shape: str) -> None:
    make, named = ID_SHAPES[shape]
    df = _table()
    coin = np.random.default_rng(9).choice(["yes", "no"], N).tolist()
    leak = df.with_columns(pl.Series("id", [make(i, y, c) for i, (y, c) in
                                            enumerate(zip(df["label"], coin, strict=True))]))
    findings = _failed(_audit(tmp_path, leak, "idleak"))["id_leakage"]
    assert findings[0].startswith("test ids give away target 'label'") and named in findings[0]
    twin = df.with_columns(pl.Series("id", [make(i, c, y) for i, (y, c) in
                                            enumerate(zip(df["label"], coin, strict=True))]))
    report = _audit(tmp_path, twin, "idtwin")
    assert report.passed, _failed(report)


def test_ids_numbered_in_label_order_are_flagged_and_shuffled_numbering_passes(
        tmp_path: Path) -> None:
    df = _table().sort("label").with_columns(
        pl.Series("id", [f"row{i:06d}" for i in range(N)]))
    failed = _failed(_audit(tmp_path, df, "sorted"))
    assert any("sort order reaches AUROC" in f for f in failed["id_leakage"])
    assert "row_order" not in failed  # the public test order is shuffled: only the ids leak
    twin = df.with_columns(pl.Series("id", np.random.default_rng(2).permutation(
        [f"row{i:06d}" for i in range(N)]).tolist()))
    assert _audit(tmp_path, twin, "unsorted").passed


def test_ids_numbered_by_a_regression_target_are_flagged(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    y = rng.normal(size=N)
    order = np.argsort(np.argsort(y))
    df = pl.DataFrame({"id": [f"s{o:06d}" for o in order], "x": rng.normal(size=N).astype(str),
                       "y": y.astype(str)})
    failed = _failed(_audit(tmp_path, df, "regsorted", metric="rmse", targets=("y",)))
    assert any("|Spearman|" in f for f in failed["id_leakage"])


# --- a strong genuine feature is not a leak --------------------------------------------------


def test_a_feature_as_strong_on_train_as_on_a_small_test_set_is_not_a_leak() -> None:
    rng = np.random.default_rng(0)
    labels = pl.Series(["a"] * 30 + ["b"] * 30)
    test = pl.Series([str(v) for v in np.r_[rng.normal(0, 1, 30), rng.normal(5, 1, 30)]])
    lab = labels_of(labels)
    assert feature_findings("c", test, lab, "y")  # alone, the test rows look like a leak
    big = pl.Series(["a"] * 3000 + ["b"] * 3000)
    strong = pl.Series([str(v) for v in np.r_[rng.normal(0, 1, 3000), rng.normal(2.6, 1, 3000)]])
    assert feature_findings("c", test, lab, "y", (strong, labels_of(big))) == []
    noise = pl.Series([str(v) for v in rng.normal(0, 1, 6000)])
    (only_test,) = feature_findings("c", test, lab, "y", (noise, labels_of(big)))
    assert "but only" in only_test and "the test rows carry more" in only_test
    copied = pl.Series([str(v) for v in np.r_[np.zeros(3000), np.ones(3000)]])
    (both,) = feature_findings("c", test, lab, "y", (copied, labels_of(big)))
    assert "on the train rows" in both
