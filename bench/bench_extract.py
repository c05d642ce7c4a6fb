"""Extraction speed: real saved pages to Markdown, through the adapter and the generic path.

Workload: every real page of ``../shared/data/real-pages`` and ``tests/data/real-pages``
(largest: a 1 MB Kaggle data tab), each converted ``--repeat`` times through the adapter path
(the Kaggle adapter's region for its page kind) and through the generic path (no region: the
rules, checked against trafilatura). The median time per page is reported, and the largest
page's on its own. Run it with another checkout first on ``PYTHONPATH`` to compare versions.

Figures go to stdout as a table and to ``bench/results/bench_extract.json``.

Usage::

    python bench/bench_extract.py              # 5 repeats
    python bench/bench_extract.py --repeat 20
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TAMBENCH_SHARED_DIR", REPO.parent / "shared"))
#: Page file -> the Kaggle page kind whose region the adapter path uses.
KINDS = {"k_titanic_data_2017": "data", "k_predictfuturesales_2019": "data", "k_nyctaxi": "data",
         "kaggle_rules_2015": "rules"}


def _pages() -> list[Path]:
    found = sorted((SHARED / "data" / "real-pages").glob("*/*.html"))
    found += sorted((REPO / "tests" / "data" / "real-pages").glob("*.html"))
    return found


def _adapter(html: str, spec: object) -> str:
    from tambench.acquisition.pipeline import page_markdown

    return page_markdown(html, spec)  # type: ignore[arg-type]


def _median_s(fn: object, html: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(html)  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    from tambench.acquisition.markdown import extract_markdown
    from tambench.acquisition.platforms import get_adapter

    specs = {s.kind: s for s in get_adapter("kaggle").page_specs("x")}
    pages = _pages()
    if not pages:
        print(f"no real pages under {SHARED}", file=sys.stderr)
        return 2
    extract_markdown("<main><h1>warm</h1><p>up</p></main>")  # imports, not timed
    rows: list[dict[str, Any]] = []
    for path in pages:
        html = path.read_text(encoding="utf-8")
        spec = specs[KINDS.get(path.stem, "overview")]
        rows.append({
            "page": path.name, "kb": round(len(html.encode()) / 1024),
            "adapter_ms": round(1000 * _median_s(partial(_adapter, spec=spec), html, args.repeat),
                                1),
            "generic_ms": round(1000 * _median_s(extract_markdown, html, args.repeat), 1),
        })
    largest = max(rows, key=lambda r: r["kb"])
    figures = {
        "pages": len(rows), "repeat": args.repeat,
        "median_adapter_ms": statistics.median(r["adapter_ms"] for r in rows),
        "median_generic_ms": statistics.median(r["generic_ms"] for r in rows),
        "largest": largest,
        "loadavg": Path("/proc/loadavg").read_text().split()[:3]
        if Path("/proc/loadavg").exists() else [],
        "rows": rows,
    }
    print(f"{'page':44} {'KB':>6} {'adapter ms':>11} {'generic ms':>11}")
    for r in rows:
        print(f"{r['page']:44} {r['kb']:>6} {r['adapter_ms']:>11} {r['generic_ms']:>11}")
    print(f"median adapter {figures['median_adapter_ms']} ms, generic "
          f"{figures['median_generic_ms']} ms; load {' '.join(figures['loadavg'])}")
    out = REPO / "bench" / "results" / "bench_extract.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
