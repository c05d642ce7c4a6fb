"""The leakage audit: can anything in public/ reveal the private test labels?

Checks, each reported as pass / fail / skipped with its findings:

* ``checksums`` - the files still match ``checksums.json``;
* ``ids_disjoint`` - train and test ids share nothing; public test ids equal the answers' ids;
* ``groups_disjoint`` - group splits share no group between train and test;
* ``time_order`` - time splits put every test row after every train row;
* ``no_target_in_public`` - no public file but train.csv (and the sample submission's
  placeholders) has a target column;
* ``no_private_file_in_public`` - no private file is in public/, by name or by content;
* ``feature_leakage`` - no single column of a public table keyed by the test ids reaches
  AUROC >= 0.99 (|Spearman| >= 0.99 for numeric targets) against the test labels, equals the
  label, or determines it;
* ``row_order`` - the row order of public/test.csv carries no label signal;
* ``sample_submission`` - the sample submission has the expected header and ids, validates,
  and scores what prepare recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl
from scipy.stats import rankdata

from tambench.errors import LeakageError, TaskDataError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.checksums import (
    CHECKSUMS_FILE,
    compute_checksums,
    diff_checksums,
    iter_files,
    read_checksums,
    sha256_file,
)
from tambench.splits.hashing import stable_hash
from tambench.splits.layout import (
    PRIVATE_DIR,
    PUBLIC_DIR,
    REPORT_FILE,
    SAMPLE_FILE,
    TEST_FILE,
    TRAIN_FILE,
    SplitPlan,
    load_grader,
    plan_split,
)

#: A single feature at or above this AUROC (or |Spearman|) against the labels is a leak.
FEATURE_THRESHOLD = 0.99
#: Row position at or above this AUROC against the labels is a leak (random order: ~0.5).
ORDER_AUROC_THRESHOLD = 0.9
#: Row position at or above this |Spearman| against numeric labels is a leak.
ORDER_SPEARMAN_THRESHOLD = 0.5
#: Labels with at most this many distinct values are treated as classes.
MAX_CLASS_VALUES = 20
#: Statistics need at least this many rows (and this many per class).
MIN_ROWS = 30
MIN_CLASS_ROWS = 5

Status = Literal["pass", "fail", "skipped"]


@dataclass
class CheckResult:
    """One audit check."""

    name: str
    status: Status
    detail: str = ""
    findings: list[str] = field(default_factory=list)


@dataclass
class AuditReport:
    """Every check of one task."""

    task_id: str
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when no check failed."""
        return all(c.status != "fail" for c in self.checks)

    @property
    def findings(self) -> list[str]:
        """Every finding, prefixed by its check's name."""
        return [f"{c.name}: {f}" for c in self.checks for f in c.findings]

    def render_findings(self) -> str:
        """The message of the :class:`LeakageError` raised for a failed audit."""
        lines = [f"leakage audit of {self.task_id} failed ({len(self.findings)} finding(s)):"]
        lines += [f"  - {f}" for f in self.findings]
        return "\n".join(lines)

    def raise_for_findings(self) -> None:
        """Raise :class:`LeakageError` listing every finding, if any."""
        if not self.passed:
            raise LeakageError(self.render_findings())

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON output."""
        return {
            "task_id": self.task_id,
            "passed": self.passed,
            "checks": [{"name": c.name, "status": c.status, "detail": c.detail,
                        "findings": c.findings} for c in self.checks],
        }


# --- statistics ------------------------------------------------------------------------------


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
class _Labels:
    kind: Literal["binary", "multiclass", "numeric", "other"]
    text: np.ndarray
    values: np.ndarray | None = None
    classes: tuple[str, ...] = ()


def _labels(series: pl.Series) -> _Labels:
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
            return _Labels("other", text)
        return _Labels("binary" if n_distinct == 2 else "multiclass", text, classes=classes)
    return _Labels("numeric", text, values=num.to_numpy())


def _numeric_feature(series: pl.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """Values and the rows they come from, when >= 95% of the non-missing values are numbers."""
    nonnull = series.len() - series.null_count()
    if nonnull < MIN_ROWS:
        return None
    num = series.cast(pl.Float64, strict=False).to_numpy()
    ok = np.isfinite(num)
    if ok.sum() < 0.95 * nonnull:
        return None
    return num[ok], ok


def score_signal(x: np.ndarray, lab: _Labels, rows: np.ndarray | None = None) -> tuple[str, float]:
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


def _purity(feature: np.ndarray, labels: np.ndarray) -> float:
    """Share of rows whose label is the most frequent label among rows with the same feature."""
    _, f = np.unique(feature, return_inverse=True)
    _, y = np.unique(labels, return_inverse=True)
    k = int(y.max()) + 1
    counts = np.bincount(f * k + y, minlength=(int(f.max()) + 1) * k).reshape(-1, k)
    return float(counts.max(axis=1).sum() / labels.size)


def feature_findings(name: str, series: pl.Series, lab: _Labels, target: str) -> list[str]:
    """Leak findings for one public column against one target column."""
    out: list[str] = []
    if series.drop_nulls().n_unique() < 2:
        return out
    text = series.fill_null("").to_numpy().astype(str)
    same = float(np.mean(text == lab.text))
    if same >= FEATURE_THRESHOLD:
        out.append(f"{name} equals target {target!r} on {same:.1%} of test rows")
        return out
    num = _numeric_feature(series)
    if num is not None:
        values, rows = num
        label, value = score_signal(values, lab, rows)
        if label and value >= FEATURE_THRESHOLD:
            out.append(f"{name} reaches {label} {value:.4f} >= {FEATURE_THRESHOLD} against "
                       f"target {target!r} on the test rows")
            return out
    if lab.kind in ("binary", "multiclass"):
        n_values = series.n_unique()
        if 2 <= n_values <= series.len() // 10:
            _, counts = np.unique(lab.text, return_counts=True)
            base = counts.max() / lab.text.size
            pur = _purity(text, lab.text)
            if pur >= FEATURE_THRESHOLD and base < 0.95:
                out.append(f"{name} determines target {target!r}: {pur:.1%} of test rows have "
                           f"the majority label of their {name} value (base rate {base:.1%})")
    return out


# --- checks ----------------------------------------------------------------------------------


def _read(path: Path, columns: list[str] | None = None) -> pl.DataFrame:
    try:
        lf = pl.scan_csv(path, infer_schema=False)
        if columns is not None:
            lf = lf.select(columns)
        return lf.collect(engine="streaming")
    except pl.exceptions.PolarsError as exc:
        raise TaskDataError(f"cannot read prepared file {path}: {exc}") from exc


def _header(path: Path) -> list[str]:
    try:
        return pl.scan_csv(path, infer_schema=False).collect_schema().names()
    except pl.exceptions.PolarsError as exc:
        raise TaskDataError(f"cannot read the header of {path}: {exc}") from exc


def _examples(values: pl.Series, k: int = 5) -> list[Any]:
    return values.head(k).to_list()


def check_checksums(root: Path) -> CheckResult:
    """The prepared files still match their recorded checksums."""
    if not (root / CHECKSUMS_FILE).is_file():
        return CheckResult("checksums", "fail", findings=[f"{CHECKSUMS_FILE} is missing"])
    diff = diff_checksums(read_checksums(root), compute_checksums(root))
    if diff.ok:
        return CheckResult("checksums", "pass")
    return CheckResult("checksums", "fail",
                       findings=[f"files differ from {CHECKSUMS_FILE}:\n{diff.render()}"])


def check_ids(plan: SplitPlan, train: pl.DataFrame, test: pl.DataFrame,
              answers: pl.DataFrame) -> CheckResult:
    """Train and test ids are disjoint; test ids and answer ids are the same unique set."""
    idc = plan.id_column
    res = CheckResult("ids_disjoint", "pass")
    for name, df in (("public test", test), ("answers", answers)):
        if idc not in df.columns:
            res.findings.append(f"{name} lacks the id column {idc!r}")
    if res.findings:
        res.status = "fail"
        return res
    tr, te, an = train[idc], test[idc], answers[idc]
    shared = te.filter(te.is_in(tr.implode()))
    if shared.len():
        res.findings.append(f"{shared.len()} test id(s) also appear in train.csv, e.g. "
                            f"{_examples(shared)}")
    for name, s in (("public test", te), ("answers", an)):
        dup = s.filter(s.is_duplicated()).unique(maintain_order=True)
        if dup.len():
            res.findings.append(f"{name} has {dup.len()} duplicated id(s), e.g. {_examples(dup)}")
    only_test = te.filter(~te.is_in(an.implode()))
    only_ans = an.filter(~an.is_in(te.implode()))
    if only_test.len() or only_ans.len():
        res.findings.append(
            f"public test and answers ids differ: {only_test.len()} only in test "
            f"(e.g. {_examples(only_test)}), {only_ans.len()} only in answers "
            f"(e.g. {_examples(only_ans)})"
        )
    res.status = "fail" if res.findings else "pass"
    res.detail = f"{tr.len()} train ids, {te.len()} test ids"
    return res


def check_groups(plan: SplitPlan, train_path: Path, test_path: Path) -> CheckResult:
    """Group splits share no group value between public train and test."""
    s = plan.split
    uses_groups = s.strategy == "group" or (s.strategy == "files" and
                                            s.file_base_strategy == "group")
    if not uses_groups:
        return CheckResult("groups_disjoint", "skipped", "not a group split")
    col = s.group_column
    if col not in _header(train_path) or col not in _header(test_path):
        return CheckResult("groups_disjoint", "skipped",
                           f"group column {col!r} is not in both public tables")
    tr = _read(train_path, [col])[col].unique()
    te = _read(test_path, [col])[col].unique()
    shared = te.filter(te.is_in(tr.implode()))
    if shared.len():
        return CheckResult("groups_disjoint", "fail", findings=[
            f"{shared.len()} value(s) of group column {col!r} occur in both train and test, "
            f"e.g. {_examples(shared)}"])
    return CheckResult("groups_disjoint", "pass", f"{tr.len()} train / {te.len()} test groups")


def check_time(plan: SplitPlan, train_path: Path, test_path: Path) -> CheckResult:
    """Time splits: every test row is at or after every train row."""
    s = plan.split
    if s.strategy != "time":
        return CheckResult("time_order", "skipped", "not a time split")
    col = s.time_column
    if col not in _header(train_path) or col not in _header(test_path):
        return CheckResult("time_order", "skipped", f"time column {col!r} is not public")
    from tambench.splits.prepare import _parse_periods

    tr, _ = _parse_periods(_read(train_path, [col])[col], col)
    te, _ = _parse_periods(_read(test_path, [col])[col], col)
    if tr.len() and te.len():
        last_train, first_test = tr.sort()[-1], te.sort()[0]
        if last_train > first_test:
            return CheckResult("time_order", "fail", findings=[
                f"train rows reach {last_train!s} but test rows start at {first_test!s} in "
                f"column {col!r}"])
    return CheckResult("time_order", "pass")


def _public_csvs(root: Path) -> list[Path]:
    pub = root / PUBLIC_DIR
    return sorted(p for p in iter_files(pub) if p.suffix.lower() == ".csv")


def check_no_target(plan: SplitPlan, root: Path) -> CheckResult:
    """No public CSV other than train.csv and the sample submission has a target column."""
    res = CheckResult("no_target_in_public", "pass")
    pub = root / PUBLIC_DIR
    for p in _public_csvs(root):
        rel = p.relative_to(pub).as_posix()
        if rel in (TRAIN_FILE, SAMPLE_FILE):
            continue
        found = [c for c in plan.hidden_columns if c in _header(p)]
        if found:
            res.findings.append(f"public/{rel} has target column(s) {found}")
    res.status = "fail" if res.findings else "pass"
    return res


def check_private_files(root: Path) -> CheckResult:
    """No private file is in public/, by name or as a byte-identical copy."""
    res = CheckResult("no_private_file_in_public", "pass")
    priv = root / PRIVATE_DIR
    pub = root / PUBLIC_DIR
    private = {p.name: (p.stat().st_size, sha256_file(p)) for p in iter_files(priv)}
    by_size: dict[int, list[tuple[str, str]]] = {}
    for name, (size, digest) in private.items():
        by_size.setdefault(size, []).append((name, digest))
    for p in iter_files(pub):
        rel = p.relative_to(pub).as_posix()
        if p.name in private:
            res.findings.append(f"public/{rel} has the name of private file {p.name!r}")
            continue
        candidates = by_size.get(p.stat().st_size)
        if candidates:
            digest = sha256_file(p)
            for name, d in candidates:
                if d == digest:
                    res.findings.append(f"public/{rel} is a byte-identical copy of private/{name}")
    res.status = "fail" if res.findings else "pass"
    return res


def _sample_rows(df: pl.DataFrame, id_column: str, max_rows: int) -> pl.DataFrame:
    if df.height <= max_rows:
        return df
    h = stable_hash(df[id_column].to_arrow(), "audit")
    keep = np.sort(np.argsort(h, kind="stable")[:max_rows])
    return df.select(pl.all().gather(pl.Series(keep)))


def check_features(plan: SplitPlan, root: Path, answers: pl.DataFrame,
                   max_rows: int) -> CheckResult:
    """No single column of a public table keyed by the test ids tracks a test label."""
    res = CheckResult("feature_leakage", "pass")
    idc = plan.id_column
    targets = [t for t in plan.hidden_columns if t in answers.columns]
    ans = _sample_rows(answers.select([idc, *targets]), idc, max_rows)
    if ans.height < MIN_ROWS:
        return CheckResult("feature_leakage", "skipped", f"only {ans.height} test rows")
    labels = {t: _labels(ans[t]) for t in targets}
    pub = root / PUBLIC_DIR
    checked = 0
    for p in _public_csvs(root):
        rel = p.relative_to(pub).as_posix()
        if rel == TRAIN_FILE or idc not in _header(p):
            continue
        table = _read(p)
        if table[idc].n_unique() != table.height:
            continue  # not one row per id: a side table, not keyed by the test ids
        renamed = table.rename({c: f"\x01{c}" for c in table.columns if c != idc})
        joined = ans.join(renamed, on=idc, how="left", maintain_order="left")
        for col in table.columns:
            series = joined[idc] if col == idc else joined[f"\x01{col}"].rename(col)
            for t in targets:
                res.findings += feature_findings(f"public/{rel} column {col!r}", series,
                                                 labels[t], t)
            checked += 1
    res.status = "fail" if res.findings else "pass"
    res.detail = f"{checked} public column(s) against {len(targets)} target(s) on {ans.height} rows"
    return res


def check_row_order(plan: SplitPlan, test: pl.DataFrame, answers: pl.DataFrame) -> CheckResult:
    """The position of a row in public/test.csv does not track its label."""
    idc = plan.id_column
    pos = test.select(idc).with_row_index("__pos")
    joined = pos.join(answers, on=idc, how="inner").sort("__pos")
    if joined.height < MIN_ROWS:
        return CheckResult("row_order", "skipped", f"only {joined.height} test rows")
    x = joined["__pos"].cast(pl.Float64).to_numpy()
    res = CheckResult("row_order", "pass")
    for t in plan.hidden_columns:
        if t not in joined.columns:
            continue
        lab = _labels(joined[t])
        label, value = score_signal(x, lab)
        threshold = ORDER_SPEARMAN_THRESHOLD if lab.kind == "numeric" else ORDER_AUROC_THRESHOLD
        if label and value >= threshold:
            res.findings.append(f"row position in public/{TEST_FILE} reaches {label} {value:.4f} "
                                f">= {threshold} against target {t!r}: the rows are ordered by "
                                "label")
    res.status = "fail" if res.findings else "pass"
    return res


def check_sample(spec: TaskSpec, plan: SplitPlan, root: Path,
                 answers: pl.DataFrame) -> CheckResult:
    """Expected header, the answers' ids once each; valid and scoring as recorded by prepare."""
    path = root / PUBLIC_DIR / SAMPLE_FILE
    res = CheckResult("sample_submission", "pass")
    if not path.is_file():
        return CheckResult("sample_submission", "fail", findings=[f"public/{SAMPLE_FILE} missing"])
    header = _header(path)
    if header != plan.submission_header:
        res.findings.append(f"header is {header}, expected {plan.submission_header}")
    else:
        ids = _read(path, [plan.id_column])[plan.id_column]
        an = answers[plan.id_column]
        if ids.len() != an.len() or ids.n_unique() != ids.len() or not ids.is_in(
                an.implode()).all():
            res.findings.append(f"holds {ids.len()} rows / {ids.n_unique()} distinct ids, "
                                f"expected the {an.len()} answer ids once each")
    grader = load_grader()
    if not res.findings and grader is not None and spec.grading is not None:
        rep = grader(path, spec, root / PRIVATE_DIR / plan.answers_file)
        if not getattr(rep, "valid_submission", False):
            res.findings.append(f"the grader rejects it: {getattr(rep, 'errors', '')}")
        else:
            score = float(rep.score)
            res.detail = f"score {score}"
            recorded = _recorded_score(root)
            if recorded is not None and not np.isclose(score, recorded, rtol=1e-9, atol=1e-12):
                res.findings.append(f"scores {score}, but prepare recorded {recorded}")
    elif grader is None:
        res.detail = "header and ids checked (no grader available)"
    res.status = "fail" if res.findings else "pass"
    return res


def _recorded_score(root: Path) -> float | None:
    path = root / REPORT_FILE
    if not path.is_file():
        return None
    score = json.loads(path.read_text(encoding="utf-8")).get("sample_submission", {}).get("score")
    return float(score) if score is not None else None


def audit_task(spec: TaskSpec, root: Path, *, max_rows: int = 200_000) -> AuditReport:
    """Run every check on the prepared task in ``root``; never raises for findings.

    Call :meth:`AuditReport.raise_for_findings` to turn findings into :class:`LeakageError`.
    Statistics run on at most ``max_rows`` test rows (a fixed, id-hashed sample).
    """
    plan = plan_split(spec)
    pub = root / PUBLIC_DIR
    train_path, test_path = pub / TRAIN_FILE, pub / TEST_FILE
    answers_path = root / PRIVATE_DIR / plan.answers_file
    for p in (train_path, test_path, answers_path):
        if not p.is_file():
            raise TaskDataError(f"{p} is missing: prepare the task first (tambench prepare)")
    report = AuditReport(spec.id)
    report.checks.append(check_checksums(root))
    train_ids = _read(train_path, [plan.id_column]) if plan.id_column in _header(
        train_path) else pl.DataFrame({plan.id_column: pl.Series([], dtype=pl.String)})
    test = _read(test_path)
    answers = _read(answers_path)
    report.checks.append(check_ids(plan, train_ids, test, answers))
    report.checks.append(check_groups(plan, train_path, test_path))
    report.checks.append(check_time(plan, train_path, test_path))
    report.checks.append(check_no_target(plan, root))
    report.checks.append(check_private_files(root))
    if plan.id_column in test.columns and plan.id_column in answers.columns:
        report.checks.append(check_features(plan, root, answers, max_rows))
        report.checks.append(check_row_order(plan, test, answers))
        report.checks.append(check_sample(spec, plan, root, answers))
    return report
