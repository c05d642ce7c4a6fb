"""Write a batch report: ``grades.json``, ``grades.csv``, ``report.html`` and their
``manifest.json`` as one set that replaces the previous set at once, and MLE-bench's timestamped
``<time>_grading_report.json``.

CSV follows RFC 4180 (every field holding a comma, a quote, CR or LF is quoted; CRLF line
ends), text cells are escaped against formula injection, and text is printable (control
characters written as escapes), so every CSV reader sees the same rows. JSON is strict (no NaN).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tambench.core.bounded import load_json
from tambench.errors import InputError, TambenchError
from tambench.fileio import (
    current_umask,
    fsync_dir,
    swap_folder,
    write_bytes_atomic,
    write_text_atomic,
)
from tambench.fileio import locked_folder as _locked
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


#: MLE-bench's threshold fields: numbers its ``CompetitionReport.from_dict`` converts.
_THRESHOLDS = ("gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold")
#: MLE-bench's flag fields: always true or false there.
_FLAGS = ("any_medal", "gold_medal", "silver_medal", "bronze_medal", "above_median",
          "submission_exists", "valid_submission", "is_lower_better")
#: A threshold no leaderboard gives (an unknown competition, an unreadable line): a string
#: that ``float()`` reads as NaN, which no score reaches, so strict JSON still loads there.
NO_THRESHOLD = "NaN"


def mle_bench_report_data(report: BatchReport) -> dict[str, Any]:
    """The MLE-bench report as JSON data, value by value as ``mlebench grade`` writes it: runs
    in input order (a JSONL's line order; a runs folder's sorted listing), scores rounded to 5
    decimals, each row's ``created_at`` in ``datetime.isoformat()``'s spelling without a zone
    (UTC here); tambench's own fields follow MLE-bench's in each competition report. Every row
    loads with MLE-bench's ``CompetitionReport.from_dict``: a row without a leaderboard has
    :data:`NO_THRESHOLD` thresholds and false flags where tambench says null."""
    data = mle_bench_report(report).model_dump(mode="json")
    rows = sorted(zip(report.rows, data["competition_reports"], strict=True),
                  key=lambda pair: _input_position(report, pair[0]))
    reports = []
    for row, cr in rows:
        if cr["score"] is not None:
            cr["score"] = round(cr["score"], MLE_BENCH_SCORE_DECIMALS)
        when = row.created_at or report.created_at
        cr["created_at"] = when.astimezone(UTC).replace(tzinfo=None).isoformat()
        cr.update({k: NO_THRESHOLD for k in _THRESHOLDS if cr[k] is None})
        cr.update({k: False for k in _FLAGS if cr[k] is None})
        if cr["competition_id"] is None:
            cr["competition_id"] = row.task
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


def mle_bench_report_text(report: BatchReport) -> str:
    """The MLE-bench-style report as strict JSON text."""
    return _strict_json(mle_bench_report_data(report), 2) + "\n"


def write_mle_bench_report(report: BatchReport, output_dir: Path) -> Path:
    """Write the timestamped MLE-bench-style report into ``output_dir`` (one file, written
    atomically); returns its path."""
    path = output_dir / mle_bench_report_name(report.created_at)
    write_text_atomic(path, mle_bench_report_text(report))
    return path


#: The files of a report set, by key.
SET_FILES = {"json": "grades.json", "csv": "grades.csv", "html": "report.html"}
#: The set's manifest: the batch, and every file with its size and SHA-256. Written last.
MANIFEST = "manifest.json"
#: Names a report folder may hold from a run of an older tambench (no manifest yet).
_KNOWN_NAMES = frozenset({*SET_FILES.values(), MANIFEST})
#: Staging folder inside a report folder that is updated in place.
_INNER_STAGING = ".staging-"
_MLE_NAME = re.compile(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-GMT_grading_report\.json")


def write_batch_outputs(report: BatchReport, out_dir: Path,
                        extra: dict[str, str] | None = None) -> dict[str, Path]:
    """Write the report set (``grades.json``, ``grades.csv``, ``report.html``, the ``extra``
    files by name, and ``manifest.json``) into ``out_dir``, replacing any previous set as one
    unit: the set is built in a staging folder beside ``out_dir`` and swapped in (one atomic
    exchange on Linux and macOS; elsewhere two renames, between which the folder is briefly
    absent; a folder that cannot be renamed is updated in place, without a manifest until the
    new set is whole: see :func:`replace_folder`). A reader never sees files of two batches
    together; a set from an interrupted run stays in a hidden ``.<name>.staging-*`` folder
    (with no manifest until it was complete), removed by the next write.

    Returns the paths of the set's files (keys ``json``, ``csv``, ``html``, ``manifest`` and
    the extra names).

    Raises:
        InputError: ``out_dir`` is a file, or holds files that are not a report set (the whole
            folder is replaced, so nothing else may live in it).
    """
    # start-up: saves 115 ms (the HTML report: numpy)
    from tambench.grading.batch.html import batch_to_html

    texts = {"json": batch_to_json(report) + "\n", "csv": batch_to_csv(report),
             "html": batch_to_html(report)}
    members = {SET_FILES[k]: v.encode("utf-8") for k, v in texts.items()}
    members.update({name: text.encode("utf-8") for name, text in (extra or {}).items()})
    out = check_report_folder(Path(out_dir))
    replace_folder(out, members, _manifest(report, members))
    paths = {k: out / name for k, name in SET_FILES.items()}
    return {**paths, "manifest": out / MANIFEST, **{n: out / n for n in (extra or {})}}


def _manifest(report: BatchReport, members: dict[str, bytes]) -> bytes:
    files = {name: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
             for name, data in sorted(members.items())}
    digest = hashlib.sha256(members[SET_FILES["json"]]).hexdigest()
    manifest = {
        "batch_id": f"{report.created_at:%Y%m%dT%H%M%S}-{digest[:12]}",
        "created_at": report.created_at.isoformat(),
        "runs": len(report.rows),
        "files": files,
    }
    return (_strict_json(manifest, 2) + "\n").encode("utf-8")


def check_report_folder(out: Path) -> Path:
    """The folder a report set replaces: ``out``, or the target of a symbolic link (the link
    keeps pointing at the set). Checked before a batch starts and again when it is written.

    Raises:
        InputError: ``out`` is a file, or holds anything that is not a report set."""
    if out.is_symlink():
        out = Path(os.path.realpath(out))
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is a file; the report set needs a folder")
    if out.is_dir():
        listing = _set_listing(out)
        foreign = sorted(n for n in os.listdir(out) if not _belongs(out, n, listing))
        if foreign:
            shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
            if listing is None:
                shown = shown.replace(MANIFEST, f"{MANIFEST}, not a tambench report manifest")
            raise InputError(
                f"{out} holds files that are not part of a report set ({shown}); the whole "
                "folder is replaced by each batch, so give a new or empty folder")
    return out


def _set_listing(folder: Path) -> dict[str, Any] | None:
    """What the folder's ``manifest.json`` lists (name -> its bytes and SHA-256): empty when
    there is no manifest (an older tambench's set, or a new folder), None when the file is not
    a report manifest of tambench (another tool's: it is theirs, and so is what it lists)."""
    path = folder / MANIFEST
    if not os.path.lexists(path):
        return {}
    try:
        manifest = load_json(path)
    except (OSError, TambenchError):
        return None
    if not (isinstance(manifest, dict) and isinstance(manifest.get("batch_id"), str)
            and isinstance(manifest.get("created_at"), str)
            and isinstance(manifest.get("runs"), int) and isinstance(manifest.get("files"), dict)):
        return None
    files: dict[str, Any] = manifest["files"]
    if not all(isinstance(v, dict) and isinstance(v.get("bytes"), int)
               and isinstance(v.get("sha256"), str) for v in files.values()):
        return None
    return files


def _belongs(folder: Path, name: str, listing: dict[str, Any] | None) -> bool:
    """Whether ``name`` in ``folder`` is part of a report set: a set file of any tambench
    (the manifest only when it is one of ours), or a regular file the manifest lists, of the
    size it lists."""
    if name == MANIFEST:
        return listing is not None
    if name in _KNOWN_NAMES or _MLE_NAME.fullmatch(name) or name.startswith(_INNER_STAGING):
        return True
    entry = (listing or {}).get(name)
    if entry is None:
        return False
    try:
        st = os.lstat(folder / name)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == entry["bytes"]


def replace_folder(out: Path, members: dict[str, bytes], manifest: bytes) -> None:
    """Build ``members`` and then the manifest in a staging folder beside ``out``, and swap it
    in for ``out`` (created when absent). Writers of one parent folder take turns (a lock on
    the parent), and leftovers of interrupted writes are removed first.

    A folder that cannot be swapped (a mount point, one whose parent this user cannot write,
    or the current folder or one above it) is updated in place instead: see
    :func:`_update_in_place`."""
    out = Path(os.path.abspath(out))
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    if out.is_dir() and (os.path.ismount(out) or not os.access(parent, os.W_OK)
                         or out == Path.cwd() or out in Path.cwd().parents):
        _update_in_place(out, members, manifest)
        return
    with _locked(parent):
        _remove_leftovers(parent, out.name)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-", dir=parent))
        for name, data in members.items():
            write_bytes_atomic(staging / name, data)
        write_bytes_atomic(staging / MANIFEST, manifest)
        mode = stat.S_IMODE(out.stat().st_mode) if out.is_dir() else 0o777 & ~current_umask()
        os.chmod(staging, mode)
        fsync_dir(staging)
        previous = swap_folder(staging, out)
        if previous is not None:
            shutil.rmtree(previous)


def _update_in_place(out: Path, members: dict[str, bytes], manifest: bytes) -> None:
    """Replace the set inside ``out`` file by file: the new files are staged in
    ``out/.staging-*``, the old manifest is removed (from then on the folder holds no whole
    set, and says so by having no manifest), each file is renamed over its old copy, files of
    the old set that the new one lacks are removed, and the manifest comes last. A reader that
    checks the files against ``manifest.json`` never accepts a mixed set."""
    with _locked(out):
        _remove_leftovers(out, "")
        staging = Path(tempfile.mkdtemp(prefix=_INNER_STAGING, dir=out))
        for name, data in members.items():
            write_bytes_atomic(staging / name, data)
        write_bytes_atomic(staging / MANIFEST, manifest)
        listing = _set_listing(out)
        previous = [n for n in os.listdir(out) if n not in members
                    and _belongs(out, n, listing) and not n.startswith(_INNER_STAGING)]
        (out / MANIFEST).unlink(missing_ok=True)
        fsync_dir(out)
        for name in members:
            os.replace(staging / name, out / name)
        for name in previous:  # files of the previous set that the new one lacks
            Path(out / name).unlink(missing_ok=True)
        os.replace(staging / MANIFEST, out / MANIFEST)
        os.rmdir(staging)
        fsync_dir(out)


def _remove_leftovers(parent: Path, name: str) -> None:
    """Staging and old folders of ``name`` that an interrupted write left behind."""
    prefixes = (f".{name}.staging-", f".{name}.old-") if name else (_INNER_STAGING,)
    for entry in os.scandir(parent):
        if entry.name.startswith(prefixes) and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
