"""Run every check of the leakage audit on one prepared task."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from tambench.errors import TaskDataError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.audit.checks import (
    check_checksums,
    check_features,
    check_groups,
    check_ids,
    check_no_target,
    check_private_files,
    check_row_order,
    check_sample,
    check_time,
    group_column,
    header_of,
    public_csvs,
    read_csv,
    sample_rows,
    time_column,
)
from tambench.splits.audit.duplicates import check_duplicates
from tambench.splits.audit.ids import check_id_leakage
from tambench.splits.audit.labels import check_label_bearing
from tambench.splits.audit.report import AuditReport, CheckResult
from tambench.splits.audit.trainpass import feature_columns, read_train
from tambench.splits.grader import Grader
from tambench.splits.layout import PRIVATE_DIR, PUBLIC_DIR, TEST_FILE, TRAIN_FILE, prepared_plan


def _id_frame(df: pl.DataFrame, idc: str, targets: list[str]) -> pl.DataFrame:
    return df.select(pl.col(idc).alias("id"), *[c for c in targets if c in df.columns])


def audit_task(spec: TaskSpec, root: Path, *, max_rows: int = 200_000,
               grader: Grader | None = None) -> AuditReport:
    """Run every check on the prepared task in ``root``; never raises for findings.

    ``grader`` (``tambench.grading.grade.grade_submission``) grades the sample submission and
    compares its score with the one prepare recorded; None checks its header and ids only.

    Call :meth:`AuditReport.raise_for_findings` to turn findings into :class:`LeakageError`.
    Statistics run on at most ``max_rows`` test rows (a fixed, id-hashed sample).
    """
    plan = prepared_plan(spec)
    idc = plan.id_column
    train_idc = plan.train_id_column or idc  # events regrouped per key: their own row id
    train_path, test_path = root / PUBLIC_DIR / TRAIN_FILE, root / PUBLIC_DIR / TEST_FILE
    answers_path = root / PRIVATE_DIR / plan.answers_file
    for p in (train_path, test_path, answers_path):
        if not p.is_file():
            raise TaskDataError(f"{p} is missing: prepare the task first (tambench prepare)")
    report = AuditReport(task_id=spec.id)
    report.checks.append(check_checksums(root))
    test, answers = read_csv(test_path), read_csv(answers_path)
    missing = [f"{name} lacks the id column {idc!r}"
               for name, df in (("public test", test), ("answers", answers))
               if idc not in df.columns]
    if missing or train_idc not in header_of(train_path):
        report.checks.append(CheckResult(name="ids_disjoint", status="fail", findings=missing or [
            f"public/{TRAIN_FILE} lacks the id column {train_idc!r}"]))
        return report
    targets = [t for t in plan.hidden_columns if t in answers.columns]
    features = feature_columns(header_of(train_path), test,
                               {*plan.id_columns, *plan.hidden_columns})
    distinct = [c for c in (group_column(plan), time_column(plan)) if c]
    train = read_train(train_path, train_idc, [t for t in targets if t in header_of(train_path)],
                       test, features, [c for c in distinct if c in header_of(train_path)],
                       test_idc=idc)
    ans = sample_rows(answers.select([idc, *targets]), idc, max_rows)
    tables = _public_tables(root, idc, test)
    report.checks += [
        check_ids(plan, train, test, answers),
        check_groups(plan, train, test),
        check_time(plan, train, test),
        check_no_target(plan, root, answers[idc], tables),
        check_private_files(root),
        check_duplicates(test, answers, idc, targets, features, train),
        check_features(plan, root, ans, tables, train.sample),
        check_label_bearing(plan, root, ans, tables, train.sample),
        check_row_order(plan, test, answers),
        check_id_leakage(_id_frame(ans, idc, targets), None if train.sample is None else
                         _id_frame(train.sample, train_idc, targets), targets),
        check_sample(spec, plan, root, answers, grader),
    ]
    return report


#: Public tables without the id column are read for label files up to this size.
SIDE_TABLE_MAX_BYTES = 32 * 1024**2


def _public_tables(root: Path, idc: str, test: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Public CSVs that may be keyed by the test ids (path under public/ -> rows): test.csv,
    every CSV with the id column, and small CSVs keyed by another column (label files)."""
    pub = root / PUBLIC_DIR
    tables = {TEST_FILE: test}
    for p in public_csvs(root):
        rel = p.relative_to(pub).as_posix()
        if rel in tables or rel == TRAIN_FILE:
            continue
        if idc in header_of(p) or p.stat().st_size <= SIDE_TABLE_MAX_BYTES:
            tables[rel] = read_csv(p)
    return tables
