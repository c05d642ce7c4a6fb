"""The id-leak check: do the test ids tell their labels, whatever their shape?

Ids are public, so anything in them that predicts a label is a leak. For class labels, each
of these views of an id is a candidate, learnt on the train ids (public/train.csv holds their
labels) and tried on the test ids: the id's skeleton (digit runs replaced by ``#``: ``yes-#``),
each of its first four letter/digit tokens and its last one, its first and last 1-8
characters (a constant per label, such as a hash of the label, shows up here), and the
labels themselves or a hash of them (md5, sha1, sha256; first 8 hex digits) written inside
the id. A view that gets at least :data:`~tambench.splits.audit.stats.FEATURE_THRESHOLD` of
the test labels right, when the most frequent label alone gets under
:data:`MAX_BASE_RATE`, leaks. For every label kind, the ids' sort order and the number in
them are scored like a feature (AUROC or |Spearman| >= 0.99).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np
import polars as pl

from tambench.splits.audit.report import CheckResult
from tambench.splits.audit.stats import (
    FEATURE_THRESHOLD,
    MIN_ROWS,
    Labels,
    labels_of,
    score_signal,
)

NAME = "id_leakage"
#: Above this share of the most frequent label, "gets the labels right" proves nothing.
MAX_BASE_RATE = 0.95
_TOKENS = r"[A-Za-z]+|[0-9]+"


View = Callable[[pl.Expr], pl.Expr]


def _skeleton(e: pl.Expr) -> pl.Expr:
    return e.str.replace_all(r"[0-9]+", "#")


def _last_token(e: pl.Expr) -> pl.Expr:
    return e.str.extract_all(_TOKENS).list.last()


def _token(i: int) -> View:
    def view(e: pl.Expr) -> pl.Expr:
        return e.str.extract_all(_TOKENS).list.get(i, null_on_oob=True)
    return view


def _first(k: int) -> View:
    def view(e: pl.Expr) -> pl.Expr:
        return e.str.slice(0, k)
    return view


def _last(k: int) -> View:
    def view(e: pl.Expr) -> pl.Expr:
        return e.str.slice(-k)
    return view


def _views() -> dict[str, View]:
    """Name -> a categorical view of an id."""
    views: dict[str, View] = {"skeleton (digits as #)": _skeleton, "last token": _last_token}
    views.update({f"token {i + 1}": _token(i) for i in range(4)})
    for k in (1, 2, 3, 4, 6, 8):
        views[f"first {k} character(s)"] = _first(k)
        views[f"last {k} character(s)"] = _last(k)
    return views


def _learnt_accuracy(view: View, train: pl.DataFrame,
                     test: pl.DataFrame) -> float:
    """Share of test rows whose label is the train majority label of their id's view."""
    mapping = (train.select(view(pl.col("id")).alias("v"), "y").drop_nulls("v")
               .group_by(["v", "y"]).len()
               .sort(["v", "len", "y"], descending=[False, True, False])
               .group_by("v", maintain_order=True).first().select("v", pl.col("y").alias("p")))
    guessed = test.select(view(pl.col("id")).alias("v"), "y").join(
        mapping, on="v", how="left", maintain_order="left")
    right = (guessed["y"] == guessed["p"]).fill_null(False).to_numpy()
    return float(right.mean()) if right.size else 0.0


def _written_accuracy(ids: pl.Series, lab: Labels, spell: Callable[[str], str]) -> float:
    """Share of rows whose id contains ``spell(label)`` of exactly its own label."""
    low = ids.str.to_lowercase()
    found = np.zeros((ids.len(), len(lab.classes)), dtype=bool)
    for j, c in enumerate(lab.classes):
        needle = spell(c).lower()
        if needle:
            found[:, j] = low.str.contains(needle, literal=True).fill_null(False).to_numpy()
    single = found.sum(axis=1) == 1
    guess = np.array(lab.classes, dtype=object)[found.argmax(axis=1)]
    return float(np.mean(single & (guess == lab.text)))


def _digest(name: str) -> Callable[[str], str]:
    return lambda c: hashlib.new(name, c.encode("utf-8")).hexdigest()[:8]


def _class_findings(test: pl.DataFrame, train: pl.DataFrame | None, lab: Labels,
                    target: str) -> list[str]:
    hits: list[str] = []
    written = {"the label written in the id": lambda c: c if len(c) >= 2 else ""}
    written.update({f"a {h} hash of the label in the id": _digest(h)
                    for h in ("md5", "sha1", "sha256")})
    for name, spell in written.items():
        acc = _written_accuracy(test["id"], lab, spell)
        if acc >= FEATURE_THRESHOLD:
            hits.append(f"{name} ({acc:.1%} right)")
    if train is not None and train.height:
        for name, view in _views().items():
            acc = _learnt_accuracy(view, train, test)
            if acc >= FEATURE_THRESHOLD:
                hits.append(f"the id's {name} ({acc:.1%} right, learnt on train ids)")
    if not hits:
        return []
    shown = "; ".join(hits[:3]) + (f"; and {len(hits) - 3} more view(s)" if len(hits) > 3 else "")
    return [f"test ids give away target {target!r} (base rate {lab.base_rate:.1%}): {shown}"]


def _order_findings(ids: pl.Series, lab: Labels, target: str) -> list[str]:
    out = []
    number = ids.str.extract(r"([0-9]+)\D*$", 1).cast(pl.Float64, strict=False)
    signals = {"sort order": ids.rank("ordinal").cast(pl.Float64).to_numpy()}
    if number.null_count() <= 0.05 * max(ids.len(), 1):
        signals["number"] = number.fill_null(-1.0).to_numpy()
    for name, x in signals.items():
        label, value = score_signal(x, lab)
        if label and value >= FEATURE_THRESHOLD:
            out.append(f"the test ids' {name} reaches {label} {value:.4f} >= {FEATURE_THRESHOLD} "
                       f"against target {target!r}: ordering the ids orders the labels")
    return out


def check_id_leakage(test: pl.DataFrame, train: pl.DataFrame | None,
                     targets: list[str]) -> CheckResult:
    """``test`` and ``train`` hold ``id`` and the target columns (text); ``train`` may be None."""
    if test.height < MIN_ROWS:
        return CheckResult(name=NAME, status="skipped", detail=f"only {test.height} test rows")
    findings: list[str] = []
    for t in targets:
        if t not in test.columns:
            continue
        lab = labels_of(test[t])
        if lab.is_class and lab.base_rate < MAX_BASE_RATE:
            pair = test.select("id", pl.col(t).alias("y"))
            learn = train.select("id", pl.col(t).alias("y")) if (
                train is not None and t in train.columns) else None
            findings += _class_findings(pair, learn, lab, t)
        findings += _order_findings(test["id"], lab, t)
    return CheckResult(name=NAME, status="fail" if findings else "pass", findings=findings,
                       detail=f"{test.height} test ids against {len(targets)} target(s)")
