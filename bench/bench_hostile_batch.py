"""A 1,000-run batch with 10% hostile run folders, graded by the real command.

Hostile folders (tests/grading/hostile.py): unreadable runs and agents, odd names (mathtext,
HTML, terminal escapes, CR/LF, right-to-left override, formulas, 240-character and non-UTF-8
names), symbolic links (to a run elsewhere, to the private answers), 3 GB sparse files, FIFOs,
folders named submission.csv, a 1 MB id, a CR hiding a formula, a misspelt task folder.

Checks: a status per run equal to the one expected; grades.csv parsed into the same rows by
Python's csv, pandas, polars and pyarrow; every figure of report.html valid SVG; the report set
whole (every file matches manifest.json); no traceback.
As root, the batch runs without CAP_DAC_OVERRIDE (``setpriv``) so unreadable folders are
really unreadable. Figures go to stdout and ``bench/results/bench_hostile_batch.json``.

Usage::

    python bench/bench_hostile_batch.py [--runs 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.grading.hostile import build_hostile_batch, lock, unlock  # noqa: E402
from tests.grading.test_batch_hostile import (  # noqa: E402
    _rows_arrow,
    _rows_csv,
    _rows_pandas,
    _rows_polars,
)

RESULTS = REPO / "bench" / "results"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--share", type=float, default=0.1, help="hostile share of the runs")
    ap.add_argument("--workers", type=int, default=2)
    ns = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tambench-hostile-"))
    try:
        results = run(root, ns.runs, ns.share, ns.workers)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_hostile_batch.json").write_text(json.dumps(results, indent=2) + "\n")
    for k, v in results.items():
        print(f"{k:28} {v}")


def run(root: Path, n_runs: int, share: float, workers: int) -> dict[str, object]:
    batch = build_hostile_batch(root, n_runs, hostile_share=share)
    out = root / "out"
    cmd = [sys.executable, "-m", "tambench.cli.main", "grade-runs", str(batch.runs),
           "--catalogue", str(batch.catalogue), "--data-dir", str(batch.data), "--out", str(out),
           "--executor", "local", "--max-workers", str(workers)]
    setpriv = shutil.which("setpriv")
    real_unreadable = os.geteuid() != 0 or setpriv is not None
    if os.geteuid() == 0 and setpriv is not None:
        cmd = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *cmd]
    load_before = os.getloadavg()
    lock(batch)
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=3600)
    finally:
        seconds = time.perf_counter() - start
        unlock(batch)
    report = json.loads((out / "grades.json").read_text())
    statuses = Counter(r["status"] for r in report["rows"])
    expected = dict(batch.expected)
    if not real_unreadable:  # root without setpriv reads everything
        n = expected.pop("unreadable", 0)
        expected["graded_valid"] = expected.get("graded_valid", 0) + n
    rows = _rows_csv((out / "grades.csv").read_text(encoding="utf-8"))
    readers_agree = all(f(out / "grades.csv") == rows
                        for f in (_rows_pandas, _rows_polars, _rows_arrow))
    page = (out / "report.html").read_text(encoding="utf-8")
    svgs = re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)
    for svg in svgs:
        ET.fromstring(base64.b64decode(svg))
    manifest = json.loads((out / "manifest.json").read_text())
    set_whole = all(hashlib.sha256((out / name).read_bytes()).hexdigest() == entry["sha256"]
                    for name, entry in manifest["files"].items())
    return {
        "runs": n_runs, "hostile_runs": sum(batch.hostile.values()),
        "hostile_kinds": dict(sorted(batch.hostile.items())),
        "exit_code": proc.returncode, "traceback": "Traceback" in proc.stderr,
        "seconds": round(seconds, 2), "workers": workers,
        "statuses": dict(sorted(statuses.items())),
        "statuses_as_expected": dict(statuses) == expected,
        "rows_in_report": len(report["rows"]), "csv_rows": len(rows) - 1,
        "csv_readers_agree": readers_agree, "svg_figures_valid": len(svgs),
        "report_set_whole": set_whole,
        "grades_json_mb": round((out / "grades.json").stat().st_size / 1e6, 2),
        "grades_csv_mb": round((out / "grades.csv").stat().st_size / 1e6, 2),
        "report_html_mb": round((out / "report.html").stat().st_size / 1e6, 2),
        "really_unreadable": real_unreadable,
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in os.getloadavg()],
    }


if __name__ == "__main__":
    main()
