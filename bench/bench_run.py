"""``tambench run`` at batch scale: per-run overhead and throughput, and Ray against the local
pool.

The 18 Lite tasks of the bundled catalogue are prepared with synthetic answers
(tests/grading/lite_synth.py) and their public sample submissions (tests/grading/public_tasks.py);
a trivial agent copies the sample submission into place. The batch (tasks x seeds, about 100
runs) runs in the bubblewrap sandbox on a local pool of ``--parallel`` workers, then the same
batch on a local Ray cluster with as many CPUs; both runs folders are graded and their grades
compared row by row. Per run, the harness's overhead is the time from the run's start record to
its final one (folder, validation server, sandbox start and tear-down, record writing) and the
sandbox's share of it (its process's wall time for an agent that does almost nothing).
Figures go to stdout and ``bench/results/bench_run.json``.

Usage::

    python bench/bench_run.py [--runs 100] [--parallel 2] [--no-ray]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tambench.runs.agents import command_agent  # noqa: E402
from tambench.runs.limits import Limits  # noqa: E402
from tambench.runs.run import run_agents  # noqa: E402
from tambench.schema.io import load_taskspec  # noqa: E402
from tests.grading.lite_synth import LITE_TASK_IDS, make_answers  # noqa: E402
from tests.grading.public_tasks import write_public  # noqa: E402

RESULTS = REPO / "bench" / "results"
CATALOGUE = REPO / "tambench" / "tasks" / "catalogue"
AGENT = ('f=$(ls /home/data/sample_submission.* | head -1); '
         'cp "$f" "/home/submission/submission.${f##*.}"')


def prepare(data: Path) -> list[str]:
    """The Lite tasks prepared under ``data`` (synthetic answers, public samples)."""
    for task_id in LITE_TASK_IDS:
        spec = load_taskspec(CATALOGUE / task_id / "task.json")
        folder = data / spec.platform / spec.slug
        (folder / "private").mkdir(parents=True)
        make_answers(spec, folder / "private", n_rows=60, seed=0)
        write_public(spec, folder)
    return list(LITE_TASK_IDS)


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def batch(tasks: list[str], seeds: int, out: Path, data: Path, executor: str,
          parallel: int) -> dict[str, Any]:
    start = time.perf_counter()
    result = run_agents([command_agent(AGENT, "copy-sample")], tasks, seeds=seeds, out=out,
                        catalogue=CATALOGUE, data_dir=data, limits=Limits(time=120),
                        executor=executor, parallel=parallel, grade=True)
    elapsed = time.perf_counter() - start
    recs = result.records
    harness = [_stamp(r["ended_at"]) - _stamp(r["started_at"]) for r in recs]
    sandbox = [r["wall_seconds"] for r in recs]
    grades = sorted((row.agent, row.task, row.run, row.status.value, row.score)
                    for row in result.report.rows)
    return {
        "executor": executor, "runs": len(recs), "exit_reasons": result.counts(),
        "elapsed_s": round(elapsed, 2), "runs_per_minute": round(60 * len(recs) / elapsed, 1),
        "per_run_s": {"median": round(statistics.median(harness), 3),
                      "p90": round(sorted(harness)[int(0.9 * (len(harness) - 1))], 3),
                      "max": round(max(harness), 3)},
        "sandbox_process_s": {"median": round(statistics.median(sandbox), 3),
                              "max": round(max(sandbox), 3)},
        "grades": grades,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        root = Path(tmp)
        tasks = prepare(root / "data")
        seeds = max(1, math.ceil(args.runs / len(tasks)))
        local = batch(tasks, seeds, root / "local", root / "data", "local", args.parallel)
        out: dict[str, Any] = {"tasks": len(tasks), "seeds": seeds, "parallel": args.parallel,
                               "local": local}
        if not args.no_ray:
            ray = batch(tasks, seeds, root / "ray", root / "data", "ray", args.parallel)
            out["ray"] = ray
            out["ray_grades_identical"] = ray["grades"] == local["grades"]
    for key in ("local", "ray"):
        if key in out:
            out[key].pop("grades")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bench_run.json").write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
