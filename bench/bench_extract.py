"""Extraction speed: real saved pages to Markdown, through the adapter and the generic path.

Workload: every real page of ``../shared/data/real-pages`` and ``tests/data/real-pages``
(largest: a 1 MB Kaggle data tab), each converted ``--repeat`` times through the adapter path
(the Kaggle adapter's region for its page kind) and through the generic path (no region: the
rules, checked against trafilatura). The median wall and CPU time per page are reported, and
the largest page's on its own. Run it with another checkout first on ``PYTHONPATH`` to compare versions.

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


def _median_ms(fn: object, html: str, repeat: int) -> tuple[float, float]:
    """(median wall ms, median CPU ms of this process): the CPU time is the steadier figure
    on a shared machine."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(html)  # type: ignore[operator]
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return round(1000 * statistics.median(wall), 1), round(1000 * statistics.median(cpu), 1)


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
        adapter_wall, adapter_cpu = _median_ms(partial(_adapter, spec=spec), html, args.repeat)
        generic_wall, generic_cpu = _median_ms(extract_markdown, html, args.repeat)
        rows.append({"page": path.name, "kb": round(len(html.encode()) / 1024),
                     "adapter_ms": adapter_wall, "adapter_cpu_ms": adapter_cpu,
                     "generic_ms": generic_wall, "generic_cpu_ms": generic_cpu})
    largest = max(rows, key=lambda r: r["kb"])
    figures = {
        "pages": len(rows), "repeat": args.repeat,
        **{f"median_{k}": statistics.median(r[k] for r in rows)
           for k in ("adapter_ms", "adapter_cpu_ms", "generic_ms", "generic_cpu_ms")},
        "largest": largest,
        "loadavg": Path("/proc/loadavg").read_text().split()[:3]
        if Path("/proc/loadavg").exists() else [],
        "rows": rows,
    }
    print(f"{'page':44} {'KB':>5} {'adapter ms':>11} {'(cpu)':>7} {'generic ms':>11} {'(cpu)':>7}")
    for r in rows:
        print(f"{r['page']:44} {r['kb']:>5} {r['adapter_ms']:>11} {r['adapter_cpu_ms']:>7} "
              f"{r['generic_ms']:>11} {r['generic_cpu_ms']:>7}")
    print(f"median adapter {figures['median_adapter_ms']} ms (cpu "
          f"{figures['median_adapter_cpu_ms']}), generic {figures['median_generic_ms']} ms (cpu "
          f"{figures['median_generic_cpu_ms']}); load {' '.join(figures['loadavg'])}")
    out = REPO / "bench" / "results" / "bench_extract.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
