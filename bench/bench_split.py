"""Benchmark the split step: a large CSV table, and a files task with many small files.

Generates its data in a folder outside git (default: a temp folder; --work to choose), then
runs ``prepare_task`` in a child process and measures the child's wall time and peak RSS
(``ru_maxrss`` of the child). Targets: a 10M-row ~1.1 GB CSV in <= 15 s and <= 1 GB;
100k small files without holding them in memory.

    .venv/bin/python bench/bench_split.py --rows 1000000 --files 10000   # quick check
    .venv/bin/python bench/bench_split.py                                # full scale

Prints a small table and writes bench/results/bench_split.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import sys, time
from pathlib import Path
from tambench.grading.grade import grade_submission
from tambench.schema.io import load_taskspec
from tambench.splits.prepare import prepare_task
spec = load_taskspec(sys.argv[1])
t0 = time.perf_counter()
res = prepare_task(spec, Path(sys.argv[2]), Path(sys.argv[3]), force=True,
                   run_audit=sys.argv[4] == "1", grader=grade_submission)
print("ROWS", res.report.rows.train, res.report.rows.test)
print("SECONDS", time.perf_counter() - t0)
"""


def make_table(path: Path, rows: int, seed: int = 0) -> None:
    """~110 bytes per row: a string id, 8 numeric features, a category, a group, a label."""
    rng = np.random.default_rng(seed)
    chunk = 1_000_000
    with open(path, "wb") as fh:
        for start in range(0, rows, chunk):
            m = min(chunk, rows - start)
            idx = np.arange(start, start + m)
            cols: dict[str, object] = {"id": pl.Series(idx).cast(pl.String).str.zfill(9)}
            for j in range(8):
                cols[f"f{j}"] = rng.normal(size=m).round(7)
            cols["cat"] = rng.choice(["alpha", "beta", "gamma", "delta"], m)
            cols["group"] = rng.integers(0, 100_000, m)
            cols["label"] = rng.integers(0, 2, m)
            pl.DataFrame(cols).write_csv(fh, include_header=start == 0)


def make_files(raw: Path, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    (raw / "images").mkdir(parents=True, exist_ok=True)
    ids = [f"img{i:07d}" for i in range(n)]
    for i in ids:
        (raw / "images" / f"{i}.jpg").write_bytes(rng.bytes(256))
    pl.DataFrame({"id": ids, "label": rng.choice(["a", "b", "c"], n)}).write_csv(
        raw / "labels.csv")


def run_child(spec_path: Path, raw: Path, data: Path, audit: bool) -> dict[str, float]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = usage.ru_maxrss
    cpu_before = usage.ru_utime + usage.ru_stime
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(spec_path), str(raw), str(data), "1" if audit else "0"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"child failed:\n{proc.stderr[-3000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_kb = usage.ru_maxrss
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    return {
        "wall_s": round(wall, 2),
        "split_s": round(float(lines["SECONDS"]), 2),
        # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run one child per process.
        "peak_rss_mb": round(max(peak_kb, before) / 1024, 1),
        "rows": lines["ROWS"],
        # CPU seconds of the child (all its threads, its start-up included): unlike the wall
        # time, barely moved by other work on a shared machine.
        "cpu_s": round(usage.ru_utime + usage.ru_stime - cpu_before, 2),
        # 1-minute load average of the (shared) machine just before and after the run.
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--work", type=Path, default=None, help="data folder (outside git)")
    ap.add_argument("--audit", action="store_true", help="also time the leakage audit")
    ap.add_argument("--only", choices=["table", "files", "both"], default="both")
    ap.add_argument("--keep", action="store_true", help="keep the generated data")
    ap.add_argument("--fixtures", action="store_true",
                    help="also prepare every catalogue recipe's generated download")
    args = ap.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="tambench-bench-split-"))
    work.mkdir(parents=True, exist_ok=True)
    results: dict[str, object] = {"machine": f"{os.cpu_count()} cores (shared while measured)"}
    from tambench.schema.io import save_taskspec
    from tambench.schema.taskspec import TaskSpec

    try:
        if args.only in ("table", "both"):
            raw = work / "table-raw"
            raw.mkdir(exist_ok=True)
            csv_path = raw / "train.csv"
            if not csv_path.exists():
                t0 = time.perf_counter()
                make_table(csv_path, args.rows)
                print(f"generated {args.rows} rows in {time.perf_counter() - t0:.1f} s")
            spec = TaskSpec.model_validate({
                "id": "bench/table", "platform": "bench",
                "grading": {"metric": "roc_auc", "id_columns": ["id"],
                            "target_columns": ["label"]},
                "split": {"strategy": "random", "id_column": "id", "test_size": 0.1}})
            spec_path = work / "table-task.json"
            save_taskspec(spec, spec_path)
            r = run_child_isolated(spec_path, raw, work / "data", args.audit)
            r["csv_mb"] = round(csv_path.stat().st_size / 1e6, 1)
            r["target"] = "<= 15 s, <= 1024 MB"
            results["table"] = r
        if args.only in ("files", "both"):
            raw = work / "files-raw"
            if not (raw / "labels.csv").exists():
                t0 = time.perf_counter()
                make_files(raw, args.files)
                print(f"generated {args.files} files in {time.perf_counter() - t0:.1f} s")
            spec = TaskSpec.model_validate({
                "id": "bench/files", "platform": "bench",
                "grading": {"metric": "accuracy", "id_columns": ["id"],
                            "target_columns": ["label"]},
                "split": {"strategy": "random", "id_column": "id", "train_file": "labels.csv",
                          "files": {"pattern": "images/{id}.jpg"}, "test_size": 0.1}})
            spec_path = work / "files-task.json"
            save_taskspec(spec, spec_path)
            r = run_child_isolated(spec_path, raw, work / "data", args.audit)
            r["files"] = args.files
            results["files"] = r
        if args.fixtures:
            results["fixtures"] = time_fixtures(work / "fixtures")
    finally:
        if not args.keep and args.work is None:
            shutil.rmtree(work, ignore_errors=True)

    print(f"{'case':8} {'size':>14} {'split s':>8} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} "
          f"{'load':>10}")
    for case in ("table", "files"):
        if case in results:
            r = results[case]  # type: ignore[assignment]
            size = f"{r['csv_mb']} MB" if case == "table" else f"{r['files']} files"  # type: ignore[index]
            print(f"{case:8} {size:>14} {r['split_s']:>8} {r['wall_s']:>8} "  # type: ignore[index]
                  f"{r['cpu_s']:>8} {r['peak_rss_mb']:>8} "  # type: ignore[index]
                  f"{'/'.join(map(str, r['load_1min'])):>10}")  # type: ignore[index]
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_split.json").write_text(json.dumps(results, indent=2) + "\n")


def time_fixtures(work: Path) -> dict[str, object]:
    """Prepare (with the audit) the generated download of every catalogue recipe that has a
    raw fixture; report the count, the total and the largest download with its time."""
    from tambench.grading.grade import grade_submission
    from tambench.splits.fixture import FIXTURE_FILE, RawFixture, make_download
    from tambench.splits.prepare import prepare_task
    from tambench.tasks.catalogue import Catalogue, bundled_catalogue_dir

    cat = Catalogue(bundled_catalogue_dir())
    timings = []
    for path in sorted(bundled_catalogue_dir().glob(f"*/*/{FIXTURE_FILE}")):
        task_id = path.parent.relative_to(bundled_catalogue_dir()).as_posix()
        dl = make_download(RawFixture.read(path), work / task_id.replace("/", "_") / "dl.zip")
        t0 = time.perf_counter()
        prepare_task(cat.get(task_id).spec, dl, work / "data", force=True,
                     grader=grade_submission)
        timings.append((dl.stat().st_size, time.perf_counter() - t0, task_id))
    size, seconds, task_id = max(timings)
    total = sum(t for _, t, _ in timings)
    print(f"fixtures: {len(timings)} prepared and audited in {total:.1f} s; largest download "
          f"{task_id} ({size / 1e3:.1f} kB) in {seconds:.2f} s")
    return {"count": len(timings), "total_s": round(total, 2), "largest": task_id,
            "largest_kb": round(size / 1e3, 1), "largest_s": round(seconds, 2)}


def run_child_isolated(spec_path: Path, raw: Path, data: Path, audit: bool) -> dict[str, object]:
    """Run one measurement in a fresh interpreter so ru_maxrss belongs to that child alone."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_split as b; "
        "from pathlib import Path; "
        f"print(json.dumps(b.run_child(Path({str(spec_path)!r}), Path({str(raw)!r}), Path({str(data)!r}), {audit!r})))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"measurement failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


if __name__ == "__main__":
    main()
