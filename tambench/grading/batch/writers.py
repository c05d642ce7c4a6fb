"""Write a batch report: ``grades.json``, ``grades.csv``, ``report.html``, and MLE-bench's
timestamped ``<time>_grading_report.json``.

CSV follows RFC 4180 (every field holding a comma, a quote, CR or LF is quoted; CRLF line
ends), text cells are escaped against formula injection, and text is printable (control
characters written as escapes), so every CSV reader sees the same rows. JSON is strict (no NaN).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tambench.grading.batch.models import BatchReport, MleBenchReport, RunRow
from tambench.grading.report import MLE_BENCH_FIELDS
from tambench.grading.sanitize import csv_line, escape_formula, printable

#: Columns of grades.csv: every RunRow field, identity and status first.
CSV_COLUMNS = (
    "agent", "task", "run", "status", "error", "competition_id", "task_id", "metric", "modality",
    "tier", "score", "rank", "n_teams", "rank_pct", "gold_threshold", "silver_threshold",
    "bronze_threshold", "median_threshold", "any_medal", "gold_medal", "silver_medal",
    "bronze_medal", "above_median", "submission_exists", "valid_submission", "is_lower_better",
    "created_at", "submission_path", "solution_path", "constraints_passed", "constraints_total",
    "constraint_pass_rate", "judge_note", "errors", "warnings",
)
#: Several messages in one CSV cell are joined with this.
MESSAGE_SEPARATOR = " | "


def csv_cell(value: Any) -> str:
    """One value as CSV text: empty for null, true/false, numbers as Python writes them,
    times in ISO 8601, lists joined, text made printable and formula-safe.

    >>> csv_cell(None), csv_cell(True), csv_cell(0.25), csv_cell(["a", "b"]), csv_cell("=1+1")
    ('', 'true', '0.25', 'a | b', "'=1+1")
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)  # numbers are written by us: never a formula
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, list):
        value = MESSAGE_SEPARATOR.join(str(v) for v in value)
    return escape_formula(printable(str(value)))


def rows_to_csv(rows: list[RunRow]) -> str:
    """Rows as RFC 4180 CSV with a header."""
    out = [csv_line(CSV_COLUMNS)]
    for r in rows:
        out.append(csv_line(csv_cell(getattr(r, c)) for c in CSV_COLUMNS))
    return "".join(out)


def batch_to_csv(report: BatchReport) -> str:
    """The batch's rows as CSV."""
    return rows_to_csv(report.rows)


def _strict_json(data: Any, indent: int | None) -> str:
    return json.dumps(data, indent=indent, allow_nan=False, ensure_ascii=False)


def batch_to_json(report: BatchReport, *, indent: int | None = 2) -> str:
    """Strict JSON (NaN refused)."""
    return _strict_json(report.model_dump(mode="json"), indent)


def mle_bench_report(report: BatchReport) -> MleBenchReport:
    """The totals ``mlebench grade`` reports, over every row, with the rows as competition
    reports."""
    rows = report.rows
    return MleBenchReport(
        total_runs=len(rows),
        total_runs_with_submissions=sum(r.submission_exists for r in rows),
        total_valid_submissions=sum(r.valid_submission for r in rows),
        total_medals=sum(bool(r.any_medal) for r in rows),
        total_gold_medals=sum(bool(r.gold_medal) for r in rows),
        total_silver_medals=sum(bool(r.silver_medal) for r in rows),
        total_bronze_medals=sum(bool(r.bronze_medal) for r in rows),
        total_above_median=sum(bool(r.above_median) for r in rows),
        competition_reports=rows,
    )


#: MLE-bench rounds every score to this many decimals before it compares it with the thresholds.
MLE_BENCH_SCORE_DECIMALS = 5


def mle_bench_report_data(report: BatchReport) -> dict[str, Any]:
    """The MLE-bench report as JSON data, value by value as ``mlebench grade`` writes it: runs
    in input order (a JSONL's line order; a runs folder's sorted listing), scores rounded to 5
    decimals, ``created_at`` in ``datetime.isoformat()``'s spelling without a zone (UTC here);
    tambench's own fields follow MLE-bench's in each competition report."""
    data = mle_bench_report(report).model_dump(mode="json")
    rows = sorted(zip(report.rows, data["competition_reports"], strict=True),
                  key=lambda pair: _input_position(report, pair[0]))
    created = report.created_at.astimezone(UTC).replace(tzinfo=None).isoformat()
    reports = []
    for _row, cr in rows:
        if cr["score"] is not None:
            cr["score"] = round(cr["score"], MLE_BENCH_SCORE_DECIMALS)
        cr["created_at"] = created
        reports.append({**{k: cr.pop(k) for k in MLE_BENCH_FIELDS}, **cr})
    data["competition_reports"] = reports
    return data


def _input_position(report: BatchReport, row: RunRow) -> int:
    """Where a row's run came in its input: its JSONL line (``line<N>``), else 0 (rows are
    already in the runs folder's listing order)."""
    if report.runs_dir.endswith(".jsonl") and row.run.startswith("line") \
            and row.run[4:].isdigit():
        return int(row.run[4:])
    return 0


def mle_bench_report_name(created_at: datetime) -> str:
    """``<YYYY-MM-DDTHH-MM-SS>-GMT_grading_report.json``, as ``mlebench grade`` names it.

    >>> from datetime import UTC
    >>> mle_bench_report_name(datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC))
    '2025-03-04T05-06-07-GMT_grading_report.json'
    """
    return f"{created_at:%Y-%m-%dT%H-%M-%S}-GMT_grading_report.json"


def write_mle_bench_report(report: BatchReport, output_dir: Path) -> Path:
    """Write the timestamped MLE-bench-style report into ``output_dir``; returns its path."""
    from tambench.fileio import write_text_atomic

    path = output_dir / mle_bench_report_name(report.created_at)
    write_text_atomic(path, _strict_json(mle_bench_report_data(report), 2) + "\n")
    return path


def write_batch_outputs(report: BatchReport, out_dir: Path) -> dict[str, Path]:
    """Write ``grades.json``, ``grades.csv`` and ``report.html`` into ``out_dir``."""
    from tambench.fileio import write_text_atomic
    from tambench.grading.batch.html import batch_to_html

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out_dir / "grades.json",
        "csv": out_dir / "grades.csv",
        "html": out_dir / "report.html",
    }
    write_text_atomic(paths["json"], batch_to_json(report) + "\n")
    write_text_atomic(paths["csv"], batch_to_csv(report))
    write_text_atomic(paths["html"], batch_to_html(report))
    return paths
