"""The batch report page at scale: size, time to build, time to load and to filter in Chromium.

Reports of 1,000 to 50,000 synthetic runs (tests/grading/synthetic.py: the real aggregation
code over made-up rows) are written, opened in a headless Chromium through Playwright, and
timed until the page's script has rendered every table (``body[data-ready]``), then while a
filter runs over all runs. Figures go to stdout and ``bench/results/bench_report.json``.

Usage::

    python bench/bench_report.py [--runs 1000,10000,50000] [--screenshot PNG]
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
sys.path.insert(0, str(REPO))

from tambench.grading.batch.html import batch_to_html  # noqa: E402
from tests.grading.synthetic import synthetic_report  # noqa: E402

RESULTS = REPO / "bench" / "results"


def chromium() -> str:
    for cand in (os.environ.get("TAMBENCH_CHROMIUM"), shutil.which("chromium"),
                 "/usr/bin/chromium"):
        if cand and Path(cand).is_file():
            return cand
    raise SystemExit("no Chromium found: set TAMBENCH_CHROMIUM")


def measure(browser: object, n: int, folder: Path, screenshot: str | None) -> dict[str, float]:
    t0 = time.perf_counter()
    report = synthetic_report(n, n_agents=10, n_tasks=100)
    t1 = time.perf_counter()
    path = folder / f"report-{n}.html"
    path.write_text(batch_to_html(report), encoding="utf-8")
    t2 = time.perf_counter()
    page = browser.new_page(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    start = time.perf_counter()
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='1']", timeout=120_000)
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    page.locator("#runs-table input.filter").fill("agent-03")
    page.wait_for_function("document.querySelector('#runs-table .count').textContent"
                           f".startsWith('{n // 10} of')")
    filtered = time.perf_counter() - start
    if screenshot:
        page.screenshot(path=screenshot, full_page=False)
    page.close()
    if errors:
        raise SystemExit(f"page errors at {n} runs: {errors}")
    return {"runs": n, "aggregate_s": round(t1 - t0, 2), "html_s": round(t2 - t1, 2),
            "size_mb": round(path.stat().st_size / 1e6, 2), "load_s": round(loaded, 2),
            "filter_s": round(filtered, 2), "load_avg": round(os.getloadavg()[0], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="1000,10000,50000")
    ap.add_argument("--screenshot", default=None, help="PNG of the largest page, first screen")
    ns = ap.parse_args()
    from playwright.sync_api import sync_playwright

    sizes = [int(x) for x in ns.runs.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), headless=True,
                                     args=["--no-sandbox", "--disable-gpu"])
        for n in sizes:
            shot = ns.screenshot if n == sizes[-1] else None
            rows.append(measure(browser, n, Path(tmp), shot))
            print(rows[-1], flush=True)
        browser.close()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_report.json").write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
