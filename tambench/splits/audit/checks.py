"""The audit's checks of files, ids, groups, times, public columns and the sample submission.

Each check returns a :class:`CheckResult` (pass / fail / skipped with its findings); the
train side of the id, group and time checks comes from the one streamed pass over
public/train.csv (:mod:`.trainpass`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from tambench.core.bounded import REPORT_BOUNDS, load_json
from tambench.errors import TaskDataError
from tambench.schema.taskspec import GroupSplit, TaskSpec, TimeSplit
from tambench.splits.answerfiles import read_rendered
from tambench.splits.audit.report import CheckResult
from tambench.splits.audit.stats import (
    MIN_ROWS,
    feature_findings,
    labels_of,
    score_signal,
)
from tambench.splits.audit.trainpass import TrainPass
from tambench.splits.checksums import (
    CHECKSUMS_FILE,
    compute_checksums,
    diff_checksums,
    iter_files,
    read_checksums,
    sha256_file,
)
from tambench.splits.grader import Grader
from tambench.splits.hashing import stable_hash
from tambench.splits.layout import (
    PRIVATE_DIR,
    PUBLIC_DIR,
    REPORT_FILE,
    SAMPLE_FILE,
    TEST_FILE,
    TEST_FILES_DIR,
    TRAIN_FILE,
    TRAIN_FILES_DIR,
    SplitPlan,
)
from tambench.splits.periods import parse_periods
from tambench.splits.rawcsv import polars_reason

#: Row position at or above this AUROC against the labels is a leak (random order: ~0.5).
ORDER_AUROC_THRESHOLD = 0.9
#: Row position at or above this |Spearman| against numeric labels is a leak.
ORDER_SPEARMAN_THRESHOLD = 0.5


def read_csv(path: Path, columns: list[str] | None = None) -> pl.DataFrame:
    """A prepared CSV with every column as text."""
    try:
        lf = pl.scan_csv(path, infer_schema=False)
        if columns is not None:
            lf = lf.select(columns)
        return lf.collect(engine="streaming")
    except pl.exceptions.PolarsError as exc:
        raise TaskDataError(f"cannot read prepared file {path}: {polars_reason(exc)}") from exc


def header_of(path: Path) -> list[str]:
    """The header of a prepared CSV."""
    try:
        return pl.scan_csv(path, infer_schema=False).collect_schema().names()
    except pl.exceptions.PolarsError as exc:
        raise TaskDataError(f"cannot read the header of {path}: {polars_reason(exc)}") from exc


def _examples(values: pl.Series | list[Any], k: int = 5) -> list[Any]:
    return values.head(k).to_list() if isinstance(values, pl.Series) else list(values)[:k]


def check_checksums(root: Path) -> CheckResult:
    """The prepared files still match their recorded checksums."""
    if not (root / CHECKSUMS_FILE).is_file():
        return CheckResult(name="checksums", status="fail",
                           findings=[f"{CHECKSUMS_FILE} is missing"])
    diff = diff_checksums(read_checksums(root), compute_checksums(root))
    if diff.ok:
        return CheckResult(name="checksums", status="pass")
    return CheckResult(name="checksums", status="fail",
                       findings=[f"files differ from {CHECKSUMS_FILE}:\n{diff.render()}"])


def check_ids(plan: SplitPlan, train: TrainPass, test: pl.DataFrame,
              answers: pl.DataFrame) -> CheckResult:
    """Train and test ids are disjoint; test ids and answer ids are the same unique set."""
    idc = plan.id_column
    findings = []
    if train.shared_ids:
        findings.append(f"{len(train.shared_ids)} test id(s) also appear in train.csv, e.g. "
                        f"{_examples(train.shared_ids)}")
    te, an = test[idc], answers[idc]
    for name, s in (("public test", te), ("answers", an)):
        if s.n_unique() == s.len():
            continue
        dup = s.filter(s.is_duplicated()).unique(maintain_order=True)
        findings.append(f"{name} has {dup.len()} duplicated id(s), e.g. {_examples(dup)}")
    keyed = (f" (train.csv's rows are events keyed by {plan.train_id_column!r}; the test "
             f"rows are {idc!r} keys)" if plan.train_id_column else "")
    if not findings and te.len() == an.len() and te.sort().equals(an.sort()):
        return CheckResult(name="ids_disjoint", status="pass",
                           detail=f"{train.rows} train ids, {te.len()} test ids{keyed}")
    only_test = te.filter(~te.is_in(an.implode()))
    only_ans = an.filter(~an.is_in(te.implode()))
    if only_test.len() or only_ans.len():
        findings.append(
            f"public test and answers ids differ: {only_test.len()} only in test "
            f"(e.g. {_examples(only_test)}), {only_ans.len()} only in answers "
            f"(e.g. {_examples(only_ans)})")
    return CheckResult(name="ids_disjoint", status="fail" if findings else "pass",
                       findings=findings, detail=f"{train.rows} train ids, {te.len()} test ids")


def group_column(plan: SplitPlan) -> str | None:
    """The group column of a group split (None for other strategies)."""
    return plan.split.group_column if isinstance(plan.split, GroupSplit) else None


def time_column(plan: SplitPlan) -> str | None:
    """The time column of a time split (None for other strategies)."""
    return plan.split.time_column if isinstance(plan.split, TimeSplit) else None


def check_groups(plan: SplitPlan, train: TrainPass, test: pl.DataFrame) -> CheckResult:
    """Group splits share no group value between public train and test."""
    col = group_column(plan)
    if col is None:
        return CheckResult(name="groups_disjoint", status="skipped", detail="not a group split")
    if col not in train.values or col not in test.columns:
        return CheckResult(name="groups_disjoint", status="skipped",
                           detail=f"group column {col!r} is not in both public tables")
    tr, te = train.values[col], test[col].unique()
    shared = te.filter(te.is_in(tr.implode()))
    if shared.len():
        return CheckResult(name="groups_disjoint", status="fail", findings=[
            f"{shared.len()} value(s) of group column {col!r} occur in both train and test, "
            f"e.g. {_examples(shared)}"])
    return CheckResult(name="groups_disjoint", status="pass",
                       detail=f"{tr.len()} train / {te.len()} test groups")


def check_time(plan: SplitPlan, train: TrainPass, test: pl.DataFrame) -> CheckResult:
    """Time splits: every test row is at or after every train row."""
    col = time_column(plan)
    if col is None:
        return CheckResult(name="time_order", status="skipped", detail="not a time split")
    if col not in train.values or col not in test.columns:
        return CheckResult(name="time_order", status="skipped",
                           detail=f"time column {col!r} is not public")
    tr, _ = parse_periods(train.values[col], col)
    te, _ = parse_periods(test[col].unique(), col)
    if tr.len() and te.len():
        last_train, first_test = tr.max(), te.min()
        if last_train > first_test:  # type: ignore[operator]
            return CheckResult(name="time_order", status="fail", findings=[
                f"train rows reach {last_train!s} but test rows start at {first_test!s} in "
                f"column {col!r}"])
    return CheckResult(name="time_order", status="pass")


def public_csvs(root: Path) -> list[Path]:
    """Every public table: the CSVs under public/ but the per-row files of public/train/ and
    public/test/ (a sensor recording per row is a row's file, not a table keyed by ids; the
    label checks read those files apart)."""
    pub = root / PUBLIC_DIR
    rows = (pub / TRAIN_FILES_DIR, pub / TEST_FILES_DIR)
    return sorted(p for p in iter_files(pub) if p.suffix.lower() == ".csv"
                  and not any(p.is_relative_to(d) for d in rows))


def check_no_target(plan: SplitPlan, root: Path, test_ids: pl.Series | None = None,
                    tables: dict[str, pl.DataFrame] | None = None) -> CheckResult:
    """No public CSV other than train.csv and the sample submission holds a target column for
    test rows: test.csv never, another table when it has the id column with test ids in it (a
    side table listing the classes, misconception_mapping.csv, holds no test row)."""
    findings = []
    pub = root / PUBLIC_DIR
    for p in public_csvs(root):
        rel = p.relative_to(pub).as_posix()
        if rel in (TRAIN_FILE, SAMPLE_FILE):
            continue
        header = header_of(p)
        found = [c for c in plan.hidden_columns if c in header]
        if not found:
            continue
        if rel != TEST_FILE and test_ids is not None:
            if plan.id_column not in header:
                continue
            table = (tables or {}).get(rel)
            ids = (table if table is not None else read_csv(p, [plan.id_column]))[
                plan.id_column]
            if not ids.is_in(test_ids.implode()).any():
                continue
        findings.append(f"public/{rel} has target column(s) {found}")
    return CheckResult(name="no_target_in_public", status="fail" if findings else "pass",
                       findings=findings)


def check_private_files(root: Path) -> CheckResult:
    """No private file is in public/ as a byte-identical copy (its contents, not its name:
    public/test.csv beside a private test.csv of answers is the usual layout, not a leak)."""
    findings = []
    pub = root / PUBLIC_DIR
    private = {p.name: (p.stat().st_size, sha256_file(p)) for p in iter_files(root / PRIVATE_DIR)}
    by_size: dict[int, list[tuple[str, str]]] = {}
    for name, (size, digest) in private.items():
        by_size.setdefault(size, []).append((name, digest))
    for p in iter_files(pub):
        rel = p.relative_to(pub).as_posix()
        candidates = by_size.get(p.stat().st_size)
        if candidates:
            digest = sha256_file(p)
            findings += [f"public/{rel} is a byte-identical copy of private/{name}"
                         for name, d in candidates if d == digest]
    return CheckResult(name="no_private_file_in_public", status="fail" if findings else "pass",
                       findings=findings)


def sample_rows(df: pl.DataFrame, id_column: str, max_rows: int) -> pl.DataFrame:
    """At most ``max_rows`` rows of ``df``: a fixed, id-hashed sample, in table order."""
    if df.height <= max_rows:
        return df
    h = stable_hash(df[id_column].to_arrow(), "audit")
    keep = np.sort(np.argsort(h, kind="stable")[:max_rows])
    return df.select(pl.all().gather(pl.Series(keep)))


def check_features(plan: SplitPlan, root: Path, ans: pl.DataFrame,
                   loaded: dict[str, pl.DataFrame],
                   train: pl.DataFrame | None = None) -> CheckResult:
    """No single column of a public table keyed by the test ids tracks a test label.

    ``ans`` is the (sampled) answers; ``loaded`` maps public paths already read to their rows;
    ``train`` is a sample of public train rows (strong genuine features track the labels
    there as well).
    """
    idc = plan.id_column
    targets = [t for t in plan.hidden_columns if t in ans.columns]
    if ans.height < MIN_ROWS:
        return CheckResult(name="feature_leakage", status="skipped",
                           detail=f"only {ans.height} test rows")
    labels = {t: labels_of(ans[t]) for t in targets}
    usable = train is not None and train.height >= MIN_ROWS
    train_labels = {t: labels_of(train[t]) for t in targets
                    if usable and train is not None and t in train.columns}
    pub = root / PUBLIC_DIR
    findings: list[str] = []
    checked = 0
    for p in public_csvs(root):
        rel = p.relative_to(pub).as_posix()
        if rel == TRAIN_FILE or idc not in header_of(p):
            continue
        table = loaded[rel] if rel in loaded else read_csv(p)
        if table[idc].n_unique() != table.height:
            continue  # not one row per id: a side table, not keyed by the test ids
        renamed = table.rename({c: f"\x01{c}" for c in table.columns if c != idc})
        joined = ans.select(idc).join(renamed, on=idc, how="left", maintain_order="left")
        for col in table.columns:
            series = joined[idc] if col == idc else joined[f"\x01{col}"].rename(col)
            for t in targets:
                on_train = (train[col], train_labels[t]) if (
                    train is not None and t in train_labels and col in train.columns) else None
                findings += feature_findings(f"public/{rel} column {col!r}", series, labels[t], t,
                                             on_train)
            checked += 1
    return CheckResult(name="feature_leakage", status="fail" if findings else "pass",
                       findings=findings, detail=(f"{checked} public column(s) against "
                                                  f"{len(targets)} target(s) on {ans.height} rows"))


def check_row_order(plan: SplitPlan, test: pl.DataFrame, answers: pl.DataFrame) -> CheckResult:
    """The position of a row in public/test.csv does not track its label."""
    idc = plan.id_column
    pos = test.select(idc).with_row_index("__pos")
    joined = pos.join(answers, on=idc, how="inner").sort("__pos")
    if joined.height < MIN_ROWS:
        return CheckResult(name="row_order", status="skipped",
                           detail=f"only {joined.height} test rows")
    x = joined["__pos"].cast(pl.Float64).to_numpy()
    findings = []
    for t in plan.hidden_columns:
        if t not in joined.columns:
            continue
        lab = labels_of(joined[t])
        label, value = score_signal(x, lab)
        threshold = ORDER_SPEARMAN_THRESHOLD if lab.kind == "numeric" else ORDER_AUROC_THRESHOLD
        if label and value >= threshold:
            findings.append(f"row position in public/{TEST_FILE} reaches {label} {value:.4f} "
                            f">= {threshold} against target {t!r}: the rows are ordered by label")
    return CheckResult(name="row_order", status="fail" if findings else "pass",
                       findings=findings)


def check_sample(spec: TaskSpec, plan: SplitPlan, root: Path, answers: pl.DataFrame,
                 grader: Grader | None) -> CheckResult:
    """Expected header, the answers' ids once each; with a grader, valid and scoring as
    recorded by prepare."""
    path = root / PUBLIC_DIR / plan.sample_file
    if not path.is_file():
        return CheckResult(name="sample_submission", status="fail",
                           findings=[f"public/{plan.sample_file} missing"])
    findings, detail = [], ""
    if plan.rendered_file:
        findings += _sample_rendered(plan, root, path)
    elif (header := header_of(path)) != plan.submission_header:
        findings.append(f"header is {header}, expected {plan.submission_header}")
    else:
        keys = _sample_keys(plan)
        ids = _key(read_csv(path, keys), keys)
        an = _key(answers, keys)
        if ids.len() != an.len() or ids.n_unique() != ids.len() or not ids.is_in(
                an.implode()).all():
            findings.append(f"holds {ids.len()} rows / {ids.n_unique()} distinct ids, "
                            f"expected the {an.len()} answer ids once each")
        if not findings:
            findings += _sample_is_answers(plan, path, answers)
    if not findings and grader is not None and spec.grading is not None:
        rep = grader(path, spec, root / PRIVATE_DIR / (plan.rendered_file or plan.answers_file))
        if not rep.valid_submission or rep.score is None:
            findings.append(f"the grader rejects it: {list(rep.errors)}")
        else:
            score = float(rep.score)
            detail = f"score {score}"
            recorded = _recorded_score(root)
            if recorded is not None and not np.isclose(score, recorded, rtol=1e-9, atol=1e-12):
                findings.append(f"scores {score}, but prepare recorded {recorded}")
    elif grader is None:
        detail = "header and ids checked (no grader given, so not scored)"
    return CheckResult(name="sample_submission", status="fail" if findings else "pass",
                       findings=findings, detail=detail)


def _sample_rendered(plan: SplitPlan, root: Path, path: Path) -> list[str]:
    """A txt or json sample: one line (or key) per answer, and not the answers themselves."""
    answers = read_rendered(root / PRIVATE_DIR / plan.rendered_file, plan.rendered_format)
    sample = read_rendered(path, plan.rendered_format)
    if plan.rendered_format == "txt" and len(sample) != len(answers):
        return [f"holds {len(sample)} lines, expected {len(answers)} (one per public test row)"]
    if plan.rendered_format == "json" and (
            not isinstance(sample, dict) or sample.keys() != answers.keys()):
        return ["its keys are not the answers' keys"]
    values = answers if plan.rendered_format == "txt" else [
        json.dumps(v, sort_keys=True) for v in answers.values()]
    if len(set(values)) >= 2 and sample == answers:
        return ["it equals the answers: the sample submission holds the test labels"]
    return []


def _sample_keys(plan: SplitPlan) -> list[str]:
    """The columns naming a sample submission's rows: the split's id column, or where the
    submission leaves it out, the grading's id columns it holds (uw-madison's id and class)."""
    if plan.id_column in plan.submission_header:
        return [plan.id_column]
    return [c for c in plan.id_columns if c in plan.submission_header] or [plan.id_column]


def _key(frame: pl.DataFrame, keys: list[str]) -> pl.Series:
    if len(keys) == 1:
        return frame[keys[0]]
    return frame.select(pl.concat_str([pl.col(k).fill_null("") for k in keys],
                                      separator="\x01").alias("key"))["key"]


def _sample_is_answers(plan: SplitPlan, path: Path, answers: pl.DataFrame) -> list[str]:
    """The sample submission's target values are not the answers (a sample split from the
    labelled rows, or copied from them, hands the agent every label)."""
    keys = _sample_keys(plan)
    targets = [c for c in plan.submission_header if c not in keys and c in answers.columns]
    if not targets or answers.height < 2:
        return []
    sample = read_csv(path, [*keys, *targets])
    joined = answers.select([*keys, *targets]).join(
        sample, on=keys, how="inner", suffix="\x01")
    if joined.height != answers.height:
        return []
    same = [t for t in targets if answers[t].n_unique() >= 2 and
            joined[t].fill_null("").equals(joined[f"{t}\x01"].fill_null("").rename(t))]
    return [f"its column {t!r} equals the answers on every row: the sample submission "
            "holds the test labels" for t in same]


def _recorded_score(root: Path) -> float | None:
    path = root / REPORT_FILE
    if not path.is_file():
        return None
    data = load_json(path, error=TaskDataError, bounds=REPORT_BOUNDS)
    sample = data.get("sample_submission") if isinstance(data, dict) else None
    score = sample.get("score") if isinstance(sample, dict) else None
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise TaskDataError(f"{path}: sample_submission.score {score!r} is not a number")
    return float(score) if score is not None else None
