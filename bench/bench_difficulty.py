"""Benchmark: difficulty (every method) on real and synthetic leaderboards, and calibration.

Usage: .venv/bin/python bench/bench_difficulty.py [--rows 100000] [--tasks 150] [--repeat 3]
           [--shared ../shared]

Prints a small table and writes bench/results/bench_difficulty.json. Timings are medians of
``--repeat`` runs; the machine may be shared, so treat them as indicative.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from tambench.core.leaderboard import read_leaderboard, read_leaderboard_text
from tambench.core.metrics.base import Metric
from tambench.difficulty.calibrate import calibrate
from tambench.difficulty.formula import DifficultyResult, formula_terms, tier_for
from tambench.difficulty.methods import compute_all
from tambench.schema.taskspec import Tier

ROOT = Path(__file__).resolve().parents[1]


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000, help="rows of the synthetic board")
    ap.add_argument("--tasks", type=int, default=150, help="tasks in the calibration run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = ap.parse_args()
    rmse = Metric("bench_rmse", lambda t, p: 0.0, False, 0.0, math.inf, "value", "bench")
    results: dict[str, float] = {}

    lite = args.shared / "data" / "tam-lite"
    boards = [read_leaderboard(p / "leaderboard.csv") for p in sorted(lite.iterdir())
              if (p / "leaderboard.csv").is_file()] if lite.is_dir() else []
    if boards:
        results[f"every method, {len(boards)} real boards (s)"] = median_time(
            lambda: [compute_all(b, rmse) for b in boards], args.repeat)

    rng = np.random.default_rng(0)
    scores = np.sort(rng.gamma(2.0, 1.0, args.rows))
    text = "rank,team,score,entries,submitted_at\n" + "".join(
        f"{i},t{i},{s!r},1,\n" for i, s in enumerate(scores.tolist(), start=1))
    board = read_leaderboard_text(text)
    results[f"parse synthetic board, {args.rows} rows (s)"] = median_time(
        lambda: read_leaderboard_text(text), args.repeat)
    results[f"every method, {args.rows} rows (s)"] = median_time(
        lambda: compute_all(board, rmse), args.repeat)

    res: dict[str, DifficultyResult] = {}
    labels: dict[str, Tier] = {}
    for i in range(args.tasks):
        t = formula_terms(mean_score=rng.random(), best_score=rng.random(), min_score=0.0,
                          max_score=1.0, participants=int(rng.integers(10, 5000)),
                          higher_is_better=True)
        res[f"t{i}"] = DifficultyResult("paper", t["difficulty"], tier_for(t["difficulty"]), t)
        labels[f"t{i}"] = (Tier.EASY, Tier.MEDIUM, Tier.HARD)[int(rng.integers(0, 3))]
    results[f"calibrate, {args.tasks} tasks, 5 folds, step 0.05 (s)"] = median_time(
        lambda: calibrate(res, labels), args.repeat)

    width = max(len(k) for k in results)
    print(f"{'measure':{width}s}  median")
    for k, v in results.items():
        print(f"{k:{width}s}  {v:.4f}")
    out = ROOT / "bench" / "results" / "bench_difficulty.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                               "median_seconds": results}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
