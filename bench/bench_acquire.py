"""Acquisition speed: competitions from the local site to complete task folders.

Workload: 100 competitions (the 55 shared competition texts served in Kaggle style, then in
AIcrowd style, cut to 100), fetched with a real Chromium at concurrency 4 from the local site,
which has the real sites' structure: a Kaggle-style competition is 3 application-shell pages
whose content arrives by JSON POSTs (overview and evaluation share a page) and a list
leaderboard of 120 teams loaded by scrolling; an AIcrowd-style one is 3 server-rendered pages
and a table leaderboard of 3 pages (50 rows a page). Pages are mapped with the offline rule
mapper and the folders written (difficulty is the acquire command's next step, not timed).
Target: under 5 minutes.

Figures go to stdout as a table and to ``bench/results/bench_acquire.json``.

Usage::

    python bench/bench_acquire.py --scale 0.1      # 10 competitions: a quick check
    python bench/bench_acquire.py                  # 100 competitions
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TAMBENCH_SHARED_DIR", REPO.parent / "shared"))
TARGET_S = 300.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of 100 competitions")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--renderer", choices=["browser", "http"], default="browser")
    args = ap.parse_args()

    from tambench.acquisition.fetch import FetchSettings
    from tambench.acquisition.pipeline import acquire_competitions
    from tambench.testing.site import serve_site

    descriptions = SHARED / "data" / "competition-descriptions"
    if not descriptions.is_dir():
        print(f"shared competition texts not found at {descriptions}", file=sys.stderr)
        return 2
    slugs = sorted(p.stem for p in descriptions.glob("*.md"))
    refs = [f"{platform}:{s}" for platform in ("kaggle", "aicrowd", "biendata") for s in slugs]
    n = max(1, round(100 * args.scale))
    refs = refs[:n]
    work = Path(tempfile.mkdtemp(prefix="tb-bench-"))
    try:
        with serve_site(descriptions) as site:
            settings = FetchSettings(hermetic=True, renderer=args.renderer,
                                     tmp_dir=str(work / "tmp"))
            t0 = time.perf_counter()
            report = acquire_competitions(refs, work / "catalogue", base_urls=site.base_urls,
                                          concurrency=args.concurrency, settings=settings,
                                          state_dir=work / "state")
            wall = time.perf_counter() - t0
            requests = sum(site.state.hits.values())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    pages = sum(r.fetched for r in report.results)
    counts = report.counts()
    figures = {
        "competitions": n,
        "concurrency": args.concurrency,
        "renderer": args.renderer,
        "wall_s": round(wall, 2),
        "per_competition_s": round(wall / n, 3),
        "pages_fetched": pages,
        "pages_per_s": round(pages / wall, 2),
        "http_requests_to_site": requests,
        "statuses": counts,
        "target_s_for_100": TARGET_S,
        "projected_100_s": round(wall / n * 100, 1),
        "cpu_count": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    print(f"{'metric':<24} value")
    for k, v in figures.items():
        print(f"{k:<24} {v}")
    ok = figures["projected_100_s"] < TARGET_S
    print(f"\nprojected 100 competitions: {figures['projected_100_s']} s "
          f"(target < {TARGET_S:.0f} s): {'OK' if ok else 'MISSED'}")
    not_complete = [f"{r.ref}: {r.status} ({'; '.join(r.errors)[:120]})"
                    for r in report.results if r.status != "complete"]
    if not_complete:
        print("not complete (the fetch succeeded; see the reason):")
        for line in not_complete:
            print("  " + line)
    out = REPO / "bench" / "results" / "bench_acquire.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
