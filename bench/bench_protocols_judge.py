"""Benchmark: sibling-benchmark protocols and the constraint judge's overhead.

Usage: .venv/bin/python bench/bench_protocols_judge.py [--runs 1] [--repeat 3]
           [--judge-solutions 5] [--shared ../shared]

Measures: KaggleBench scoring of the 20 human baselines (each file copied ``--runs`` times as
extra runs), constraint parsing of the 18 Lite schemas, MLAgentBench harness reads of a long
stdout, and judge throughput against the local fake endpoint (cold and cached), which is the
judge's own overhead, not a model's latency. Prints a small table and writes
bench/results/bench_protocols_judge.json. Timings are medians of ``--repeat`` runs; the
machine may be shared, so treat them as indicative.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tambench.judge import judge_solution, parse_constraints, split_checkable
from tambench.protocols.kagglebench import evaluate_outputs
from tambench.protocols.mlagentbench import evaluate_harness
from tambench.testing.fake_openai import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def honest_yes(body: dict[str, Any]) -> str:
    nonce = re.search(r"with this exact value ([0-9a-f]{32})",
                      body["messages"][0]["content"])
    return json.dumps({"nonce": nonce.group(1) if nonce else "", "answer": "yes",
                       "reason": "ok", "cited_lines": [1]})


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--runs", type=int, default=1, help="runs per KaggleBench scenario")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--judge-solutions", type=int, default=5,
                    help="solutions judged against the fake endpoint")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = ap.parse_args()
    results: dict[str, float] = {}

    tasks = args.shared / "data" / "kaggle-bench" / "tasks"
    with tempfile.TemporaryDirectory() as tmp:
        outs = Path(tmp)
        n_files = 0
        for human in sorted(tasks.glob("*/human_baseline/tc1_human.json")):
            slug = human.parent.parent.name
            data = json.loads(human.read_text())
            for k in range(args.runs):
                data["run_id"] = f"run_{k}"
                dest = outs / slug / "tc1_from_scratch" / f"run_{k}.json"
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(json.dumps(data))
                n_files += 1
        t = median_time(lambda: evaluate_outputs(tasks, outs), args.repeat)
        results["kagglebench_outputs"] = n_files
        results["kagglebench_s"] = t
        results["kagglebench_runs_per_s"] = n_files / t

    lite = args.shared / "data" / "tam-lite"
    texts = [json.loads(p.read_text())["special_instructions"]
             for p in sorted(lite.glob("*/schema.json"))]
    t = median_time(lambda: [parse_constraints(x) for x in texts * 50], args.repeat)
    results["parse_schemas_per_s"] = len(texts) * 50 / t

    stdout = "\n".join(f"epoch {i}: lr=0.1 step={i}" for i in range(20000)) + "\nscore: 0.9"
    t = median_time(lambda: evaluate_harness(stdout=stdout, metric="accuracy", baseline=0.5,
                                             mode="compatible"), args.repeat)
    results["harness_stdout_mb"] = len(stdout) / 1e6
    results["harness_read_s"] = t

    code = (ROOT / "tambench" / "judge" / "run.py").read_text()
    instructions = texts[0]
    # Only checkable constraints are sent to the model; the others are set aside unjudged.
    n_constraints = len(split_checkable(parse_constraints(instructions))[0])
    cache = Path(tempfile.mkdtemp())
    try:
        with FakeOpenAIServer(default=honest_yes) as srv:
            # Warm-up: the first call pays the one-time import of LangChain and its client.
            judge_solution("1. Warm up.", "x = 1\n", model="m", base_url=srv.base_url)
            t0 = time.perf_counter()
            for i in range(args.judge_solutions):
                judge_solution(instructions, code + f"\n# variant {i}\n", model="m",
                               base_url=srv.base_url, cache_dir=cache)
            cold = time.perf_counter() - t0
            t0 = time.perf_counter()
            for i in range(args.judge_solutions):
                judge_solution(instructions, code + f"\n# variant {i}\n", model="m",
                               base_url=srv.base_url, cache_dir=cache)
            warm = time.perf_counter() - t0
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    n_verdicts = args.judge_solutions * n_constraints
    results["judge_verdicts"] = n_verdicts
    results["judge_cold_verdicts_per_s"] = n_verdicts / cold
    results["judge_cached_verdicts_per_s"] = n_verdicts / warm

    width = max(len(k) for k in results)
    for k, v in results.items():
        print(f"{k:<{width}}  {v:,.4g}")
    out = ROOT / "bench" / "results" / "bench_protocols_judge.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                               "results": results}, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
