"""The line files of a task graded on plain text (submission format txt), written after the
split.

Such a task (AQA's ranked paper ids, the next-product sessions) is graded by position: line i
of a submission answers row i of public/test.csv. The split itself runs as for any task, with
the recipe's row id and its one target column, and keeps those keyed answers in
``private/answers.csv`` (the audit reads them). Then the grading's answers file gets the
target of each public test row in public/test.csv's order, one a line, and the sample
submission becomes ``public/sample_submission.txt`` the same way (its CSV form is removed,
so the public folder holds one sample, the one graded).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from tambench.errors import SplitError
from tambench.splits.layout import PRIVATE_DIR, PUBLIC_DIR, SAMPLE_FILE, TEST_FILE, SplitPlan


def _in_test_order(test_ids: pl.DataFrame, keyed: Path, plan: SplitPlan, what: str) -> list[str]:
    """The target of every public test row, in the public order, from a keyed CSV."""
    idc, target = plan.id_column, plan.hidden_columns[0]
    values = pl.read_csv(keyed, columns=[idc, target], infer_schema=False)
    rows = test_ids.join(values, on=idc, how="left", maintain_order="left")[target]
    missing = rows.null_count()
    if missing or values.height != test_ids.height:
        raise SplitError(f"{what}: {values.height} row(s) for {test_ids.height} public test "
                         f"row(s), {missing} test id(s) without a value")
    broken = rows.str.contains("[\r\n]").sum()
    if broken:
        raise SplitError(f"{what}: {broken} value(s) of {target!r} hold a line break and "
                         "cannot be one line each")
    return rows.to_list()


def write_line_files(plan: SplitPlan, out: Path) -> int:
    """Write ``private/<lines_file>`` and ``public/sample_submission.txt`` from the keyed
    answers and sample of a split in ``out``; returns the number of lines."""
    test_ids = pl.read_csv(out / PUBLIC_DIR / TEST_FILE, columns=[plan.id_column],
                           infer_schema=False)
    answers = _in_test_order(test_ids, out / PRIVATE_DIR / plan.answers_file, plan, "answers")
    sample_csv = out / PUBLIC_DIR / SAMPLE_FILE
    sample = _in_test_order(test_ids, sample_csv, plan, "sample submission")
    (out / PRIVATE_DIR / plan.lines_file).write_text("".join(f"{v}\n" for v in answers),
                                                     encoding="utf-8")
    (out / PUBLIC_DIR / plan.sample_file).write_text("".join(f"{v}\n" for v in sample),
                                                     encoding="utf-8")
    sample_csv.unlink()
    return len(answers)


def read_lines(path: Path) -> list[str]:
    """The lines of a line file (without their line ends)."""
    return path.read_text(encoding="utf-8").splitlines()
