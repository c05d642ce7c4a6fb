"""A batch with hostile run folders finishes with a status per run, and its reports stay whole:
a CSV that every reader parses into the same rows, a page whose figures are valid SVG, names
that never act as markup, messages that are bounded."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tambench.executors import get_executor
from tambench.grading.batch import BatchReport, grade_runs, write_batch_outputs
from tambench.grading.batch.writers import CSV_COLUMNS
from tambench.grading.sanitize import MAX_MESSAGE, MAX_NAME
from tests.grading.hostile import UNREADABLE, build_hostile_batch, lock, unlock

FIXED = __import__("datetime").datetime(2025, 1, 1, tzinfo=__import__("datetime").UTC)
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: Submission caps small enough that the sparse "huge" files are refused before reading.
SMALL_CAP = 50_000_000


def _simulate_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    """As root every folder is readable; refuse the marked ones as the kernel would: a folder
    marked unreadable cannot be listed, and nothing inside it can be looked up."""
    real_scandir, real_lstat = os.scandir, os.lstat

    def inside_unreadable(path: Any, *, itself: bool) -> bool:
        parts = os.fsdecode(path).split("/")
        return any(UNREADABLE in p for p in (parts if itself else parts[:-1]))

    def scandir(path: Any = ".") -> Any:
        if inside_unreadable(path, itself=True):
            raise PermissionError(13, "Permission denied", os.fsdecode(path))
        return real_scandir(path)

    def lstat(path: Any, *a: Any, **k: Any) -> Any:
        if inside_unreadable(path, itself=False):
            raise PermissionError(13, "Permission denied", os.fsdecode(path))
        return real_lstat(path, *a, **k)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "lstat", lstat)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, BatchReport, dict[str, Path]]:
    root = tmp_path_factory.mktemp("hostile")
    batch = build_hostile_batch(root, 240, hostile_share=0.1)
    with pytest.MonkeyPatch.context() as mp:
        _simulate_unreadable(mp)
        with get_executor("thread", 2) as pool:
            from tambench.validation.reading.limits import Limits

            report = grade_runs(batch.runs, catalogue=batch.catalogue, data_dir=batch.data,
                                executor=pool, now=FIXED, limits=Limits(max_bytes=SMALL_CAP))
    paths = write_batch_outputs(report, root / "out")
    return batch, report, paths


def test_every_hostile_run_ends_with_its_expected_status(
    graded: tuple[Any, BatchReport, dict[str, Path]]
) -> None:
    batch, report, _ = graded
    assert len(report.rows) == 240
    assert Counter(r.status.value for r in report.rows) == batch.expected
    assert sum(batch.hostile.values()) == 24


def test_report_text_is_printable_and_bounded(
    graded: tuple[Any, BatchReport, dict[str, Path]]
) -> None:
    _, report, _ = graded
    for r in report.rows:
        for name in (r.agent, r.task, r.run):
            assert not CONTROL.search(name) and len(name) <= MAX_NAME + 40
        for m in [*r.errors, r.error or ""]:
            assert not CONTROL.search(m) and len(m) <= MAX_MESSAGE + 40
    # The 1 MB id is quoted cut to 80 characters by validation (or to the report's bound).
    bomb = [r for r in report.rows if r.run.startswith("h") and any("x" * 80 in e
                                                                    for e in r.errors)]
    assert bomb and all(re.search(r"characters cut|\(\+\d+ characters\)", e)
                        for r in bomb for e in r.errors if "x" * 80 in e)
    escaped = {r.agent for r in report.rows if "\\x1b" in r.agent or "\\xff" in r.agent}
    assert len(escaped) >= 2  # the escape sequence and the non-UTF-8 byte, written visibly


def test_unknown_task_and_missing_leaderboard_are_said_once(
    graded: tuple[Any, BatchReport, dict[str, Path]]
) -> None:
    _, report, _ = graded
    unknown = [r for r in report.rows if r.status == "task_unknown"]
    assert unknown and all("did you mean test/value" in (r.error or "") for r in unknown)
    assert report.warnings == ["task test/txt has no leaderboard: rank, medals and above_median "
                               "are unknown (null), not false"]
    txt = [r for r in report.rows if r.task_id == "test/txt"]
    assert txt and all(r.any_medal is None and r.above_median is None for r in txt)
    value = [r for r in report.rows if r.task_id == "test/value" and r.status != "unreadable"]
    assert all(r.any_medal is not None for r in value)


def _rows_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _rows_pandas(path: Path) -> list[list[str]]:
    import pandas as pd

    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    return [list(df.columns), *df.values.tolist()]


def _rows_polars(path: Path) -> list[list[str]]:
    import polars as pl

    try:
        df = pl.read_csv(path, infer_schema=False, empty_string_is_null=False)
    except TypeError:  # polars 1.x spells it differently
        df = pl.read_csv(path, infer_schema=False, missing_utf8_is_empty_string=True)
    return [df.columns, *[list(r) for r in df.rows()]]


def _rows_arrow(path: Path) -> list[list[str]]:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(
        path, parse_options=pacsv.ParseOptions(newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(
            column_types=dict.fromkeys(CSV_COLUMNS, pa.string()), strings_can_be_null=False,
            quoted_strings_can_be_null=False),
    )
    cols = table.column_names
    return [cols, *[[r[c] for c in cols] for r in table.to_pylist()]]


def test_every_csv_reader_parses_the_same_rows(
    graded: tuple[Any, BatchReport, dict[str, Path]]
) -> None:
    _, report, paths = graded
    raw = paths["csv"].read_bytes()
    rows = _rows_csv(raw.decode("utf-8"))
    assert len(rows) == len(report.rows) + 1 and rows[0] == list(CSV_COLUMNS)
    assert _rows_pandas(paths["csv"]) == rows
    assert _rows_polars(paths["csv"]) == rows
    assert _rows_arrow(paths["csv"]) == rows
    assert b"\r=" not in raw.replace(b'"\r=', b"")  # no unquoted CR before a formula
    text_cols = [i for i, c in enumerate(CSV_COLUMNS) if c in {
        "agent", "task", "run", "status", "error", "errors", "submission_path", "task_id"}]
    for row in rows[1:]:
        for i in text_cols:
            cell = row[i].lstrip(" \t\r\n\u3000")
            assert cell[:1] not in {"=", "+", "-", "@", "＝", "＋", "－", "＠"}, row[i]


def _svgs(page: str) -> list[str]:
    return [base64.b64decode(m).decode("utf-8")
            for m in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)]


def test_report_page_is_whole_and_its_figures_are_valid_svg(
    graded: tuple[Any, BatchReport, dict[str, Path]]
) -> None:
    _, report, paths = graded
    page = paths["html"].read_text(encoding="utf-8")
    assert not CONTROL.search(page.replace("\n", ""))
    svgs = _svgs(page)
    assert len(svgs) == 4
    for svg in svgs:
        ET.fromstring(svg)  # raises on invalid XML
    # names are drawn as text: mathtext did not read "$...$", no tag got through
    assert any("$\\frac{a}{b}" in svg for svg in svgs)
    assert "<script>alert" not in page and page.count("<script") == 2
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page,
                     re.S)
    assert data is not None and len(json.loads(data.group(1))["runs"]["rows"]) == len(report.rows)
    json.loads(paths["json"].read_text(), parse_constant=lambda c: pytest.fail(c))


def test_terminal_output_holds_no_escape_sequences(
    graded: tuple[Any, BatchReport, dict[str, Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    from tambench.cli.grade_cmd import _print_batch, _print_problems

    _, report, _ = graded
    _print_batch(report, [])
    _print_problems(report)
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\u202e" not in out + err
    assert "[red]markup[_red] & <b>" in out  # shown as written, not read as console markup


SETPRIV = __import__("shutil").which("setpriv")


@pytest.mark.skipif(SETPRIV is None or not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="needs root and setpriv to grade without the right to read anything")
def test_folders_truly_unreadable_to_the_grading_process_become_statuses(tmp_path: Path) -> None:
    """The batch runs in a process without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH, so the
    kernel refuses the chmod-000 folders as it would for any other user."""
    batch = build_hostile_batch(tmp_path, 60, hostile_share=0.2)
    out = tmp_path / "out"
    lock(batch)
    try:
        proc = subprocess.run(
            [str(SETPRIV), "--bounding-set=-dac_override,-dac_read_search", sys.executable,
             "-m", "tambench.cli.main", "grade-runs", str(batch.runs), "--catalogue",
             str(batch.catalogue), "--data-dir", str(batch.data), "--out", str(out),
             "--executor", "serial", "--bootstrap", "50"],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )
    finally:
        unlock(batch)
    assert proc.returncode == 3, proc.stderr  # some runs could not be graded
    assert "Traceback" not in proc.stderr
    report = json.loads((out / "grades.json").read_text())
    statuses = Counter(r["status"] for r in report["rows"])
    assert statuses["unreadable"] == batch.expected["unreadable"] > 0
    unreadable = [r for r in report["rows"] if r["status"] == "unreadable"]
    assert all("Permission denied" in r["error"] for r in unreadable)
    assert statuses["task_unknown"] == batch.expected["task_unknown"]
    assert "unreadable" in proc.stderr  # the distinct reasons are told on stderr
