"""Measure ``tambench tasks import`` on a peer benchmark's real tree, against a truth table.

Sources and their truth:

* ``mle-dojo`` (``tasks import mle-dojo``): ``bench/data/mledojo_rules.csv``, the published
  rule of each of MLE-Dojo's 202 competitions and how its ``metric.py`` departs from it;
* ``dslighting`` (``tasks import mle-bench`` on dslighting's repository):
  ``bench/data/dslighting_truth.csv``, the metric each task's ``grade.py`` computes (read by
  hand), replaced by the published rule where MLE-Dojo's table has the slug;
* ``mle-bench`` (``tasks import mle-bench``): :data:`bench_import_mlebench.TRUE_METRICS`, the
  metric each ``grade.py`` computes.

The import runs once through the real command into an empty catalogue. Counted, the same way
for each source:

* **gradable by the competition's rule**: complete, with the truth's metric id and every
  parameter the truth gives, defaults filled in on both sides (``eps`` aside: a clipping
  constant; and parameters naming answers columns, ``*_column(s)``: the layout of one
  benchmark's prepared answers, not the rule);
* **complete**; **wrong metric**: complete with another metric, or complete where the truth
  has no registered metric (0 required);
* **conflicts named**: tasks whose metric was not settled, each with its witnesses' readings;
* **departures flagged** (mle-dojo): against the table's ``departure`` column: flagged, missed,
  flagged where the table has none.

Usage::

    python bench/bench_import_peers.py --source mle-dojo --tree /path/to/MLE-Dojo [--json]
    python bench/bench_import_peers.py --source dslighting --tree /path/to/dslighting
    python bench/bench_import_peers.py --source mle-bench --tree /path/to/mle-bench

A tree may be a checkout or a bare git directory (cloned to a temporary folder first).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from bench_import_mlebench import TRUE_METRICS, checkout, run_import  # noqa: E402

DATA = BENCH / "data"
IMPORTER = {"mle-dojo": "mle-dojo", "dslighting": "mle-bench", "mle-bench": "mle-bench"}
#: Parameters that are numerical tolerances, not part of the rule.
TOLERANCES = frozenset({"eps"})
#: Parameters naming answers columns: the layout of one benchmark's prepared answers, not the
#: rule (MLE-bench's and MLE-Dojo's answers name the same thing differently).
LAYOUT_SUFFIXES = ("_column", "_columns")
#: Warnings naming a conflict between witnesses (every reading is in the warning).
CONFLICT = ("metric not settled", "metric disagreement", "used for different metrics",
            "no registered id computes exactly")
#: Warnings saying the settled metric (or its parameters) is not registered yet.
AWAITING = ("not registered yet", "not a registered metric yet", "do not fit")


def load_truth(source: str, table: Path | None) -> dict[str, dict[str, Any]]:
    """Task id -> {"metric": id or "", "params": {...}, "departure": str}."""
    if source == "mle-bench":
        return {f"kaggle/{c.lower()}": {"metric": m, "params": p, "departure": ""}
                for c, (m, p) in TRUE_METRICS.items()}
    path = table or DATA / ("mledojo_rules.csv" if source == "mle-dojo" else
                            "dslighting_truth.csv")
    out: dict[str, dict[str, Any]] = {}
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            tid = row.get("task_id") or f"kaggle/{row['slug'].lower()}"
            out[tid] = {"metric": row["metric"], "params": json.loads(row["metric_params"] or
                                                                      "{}"),
                        "departure": row.get("departure", "")}
    return out


def _specs(catalogue: Path) -> dict[str, dict[str, Any]]:
    from tambench.schema.io import load_taskspec

    return {s["id"]: s for s in (load_taskspec(p).model_dump(mode="json")
                                 for p in catalogue.glob("*/*/task.json"))}


def _differences(grading: dict[str, Any], truth: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(rule differences, answers-layout differences) between a grading and the truth: the
    metric id and every parameter, defaults filled in on both sides (tolerances aside)."""
    from tambench.core.metrics import get_metric

    if grading["metric"] != truth["metric"]:
        return ["metric"], []
    metric = get_metric(truth["metric"])
    ours = metric.resolve_params(grading["metric_params"])
    theirs = metric.resolve_params(truth["params"])
    differ = [k for k in sorted(set(ours) | set(theirs))
              if k not in TOLERANCES and ours.get(k) != theirs.get(k)]
    return ([k for k in differ if not k.endswith(LAYOUT_SUFFIXES)],
            [k for k in differ if k.endswith(LAYOUT_SUFFIXES)])


def score(source: str, specs: dict[str, dict[str, Any]], report: dict[str, Any],
          truth: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The counts of the module docstring."""
    gradable, wrong, complete, unknown, layout = [], [], [], [], []
    for tid, spec in sorted(specs.items()):
        if spec["status"] != "complete":
            continue
        complete.append(tid)
        t = truth.get(tid)
        rule, columns = _differences(spec["grading"], t) if t and t["metric"] else (["-"], [])
        if t is None:
            unknown.append(tid)
        elif t["metric"] and not rule:
            gradable.append(tid)
            if columns:
                layout.append(f"{tid}: {', '.join(columns)}")
        else:
            wrong.append(f"{tid}: {spec['grading']['metric']} {spec['grading']['metric_params']}"
                         f" (truth {t['metric'] or 'none'} {t['params']})")
    warnings = report["warnings"]
    awaiting = sorted(t for t, ws in warnings.items()
                      if any(any(u in w for u in AWAITING) for w in ws))
    conflicts = sorted(t for t, ws in warnings.items() if t not in awaiting and
                       any(any(u in w for u in CONFLICT) for w in ws))
    flagged = sorted(t for t, ws in warnings.items() if any("departs from the published rule"
                                                            in w for w in ws))
    with_departure = sorted(t for t, v in truth.items() if v["departure"])
    return {
        "source": source, "read": report["read"], "failures": report["failures"],
        "truth_rows": len(truth),
        "truth_with_registered_metric": sum(1 for v in truth.values() if v["metric"]),
        "gradable_by_rule": len(gradable), "complete": len(complete), "wrong_metric": wrong,
        "complete_without_truth": unknown, "answers_layout_differences": layout,
        "conflicts_named": len(conflicts),
        "conflicts": conflicts, "awaiting_a_metric": awaiting, "departures_flagged": flagged,
        "departures_in_truth": with_departure,
        "departures_missed": sorted(set(with_departure) - set(flagged)),
        "departures_not_in_truth": sorted(set(flagged) - set(with_departure)),
        "incomplete_with_registered_truth": sorted(
            t for t, v in truth.items() if v["metric"] and t in specs and
            specs[t]["status"] != "complete"),
        "platforms": dict(Counter(s["platform"] for s in specs.values())),
    }


def _print(out: dict[str, Any]) -> None:
    print(f"{out['source']}: {out['read']} read in {out['seconds']} s (load "
          f"{out['load_average']}), {len(out['failures'])} failed; platforms "
          f"{out['platforms']}")
    print(f"  gradable by the competition's rule: {out['gradable_by_rule']} (truth has a "
          f"registered metric for {out['truth_with_registered_metric']} of "
          f"{out['truth_rows']})")
    print(f"  complete: {out['complete']}; wrong metric: {len(out['wrong_metric'])}; conflicts "
          f"named: {out['conflicts_named']}")
    for line in out["wrong_metric"]:
        print(f"    wrong: {line}")
    for line in out["answers_layout_differences"]:
        print(f"    answers columns differ from the truth's: {line}")
    print(f"  settled on a metric (or parameters) not registered yet: "
          f"{len(out['awaiting_a_metric'])}")
    print(f"  departures flagged: {len(out['departures_flagged'])} (truth lists "
          f"{len(out['departures_in_truth'])}; missed {out['departures_missed'] or 'none'}; "
          f"flagged beyond the truth {out['departures_not_in_truth'] or 'none'})")
    print(f"  incomplete although the truth's metric is registered: "
          f"{', '.join(out['incomplete_with_registered_truth']) or 'none'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", choices=sorted(IMPORTER), required=True)
    ap.add_argument("--tree", type=Path, required=True, help="a checkout or bare git directory")
    ap.add_argument("--truth", type=Path, default=None, help="truth table (default: bench/data)")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args(argv)
    truth = load_truth(args.source, args.truth)
    with tempfile.TemporaryDirectory() as tmp:
        tree = checkout(args.tree, Path(tmp))
        report, seconds = run_import(tree, Path(tmp) / "catalogue", IMPORTER[args.source])
        out = score(args.source, _specs(Path(tmp) / "catalogue"), report, truth)
    out = {"load_average": [round(x, 2) for x in os.getloadavg()],
           "seconds": round(seconds, 2), **out}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        _print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
