"""Measure the schema mappers on real competition descriptions, per field, every miss listed.

Three partitions, reported separately:

* ``in-sample``: the 55 texts of ../shared/data/competition-descriptions, against
  tests/data/mapping_expected.csv. The rules were written against these.
* ``dev``: ../shared/data/competition-descriptions-dev (MLE-Dojo texts, labels.csv) except the
  held-back ones. Rules were generalised on their misses.
* ``held-back``: the 20 dev texts listed in bench/data/mapping_heldback.txt, chosen by hash
  before any mapper ran on the dev texts, never used to tune the rules.

Fields: metric id (with parameters), exact submission header, id columns, target columns,
task type. A metric is right when it equals the label's id, or when both are empty ("rightly
empty": the page's metric has no registered id, or the page states none). The label's id
counts only when it is registered in this installation (a metric id not yet registered must
be left empty); a blank dev label whose exact id is known (bench/data/mapping_dev_exact_ids.csv)
expects that id once it is registered. A registered id chosen where the expected metric is
empty is a **neighbour substitution**: the one error the mapper must never make. Fields marked
``unsure`` in the labels are left out of that field's count.

Mappers:

* ``rules``: the offline mapper.
* ``replay:oracle`` (default, no network): a local fake OpenAI-compatible server answers each
  task with the expected values, quoting the rules' evidence. It proves the LLM path end to end
  (prompt, structured output, evidence checks, cross-check), not a model's quality.
* ``replay:naive``: the fake model answers the closest registered id wherever the page's
  metric has none, as an eager model does; the cross-check with the rules must refuse every
  such answer (neighbour substitutions after the cross-check: 0).
* ``--llm MODEL [--base-url URL]``: a real endpoint ("provider:model" or an OpenAI-compatible
  name; key from the provider's environment variable). Parsed replies are saved under
  bench/results/mapping_replies/ and replayed later with ``--replies DIR``.

Results: a table per partition and mapper (printed with the load average), every miss, and
bench/results/bench_mapping.json.

    python bench/bench_mapping.py                    # rules + both replays, all partitions
    python bench/bench_mapping.py --no-llm --partition dev
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("TAMBENCH_SHARED_DIR", REPO.parent / "shared"))
IN_SAMPLE_DIR = SHARED / "data" / "competition-descriptions"
DEV_DIR = SHARED / "data" / "competition-descriptions-dev"
IN_SAMPLE_CSV = REPO / "tests" / "data" / "mapping_expected.csv"
HELDBACK = REPO / "bench" / "data" / "mapping_heldback.txt"
DEV_EXACT = REPO / "bench" / "data" / "mapping_dev_exact_ids.csv"
RESULTS = REPO / "bench" / "results"
FIELDS = ("metric", "header", "id_columns", "target_columns", "task_type")
PARTITIONS = ("in-sample", "dev", "held-back")


@dataclass
class Expected:
    """One labelled text."""

    slug: str
    path: Path
    metric_id: str
    """The exact id, registered or not; "" when no id computes the page's metric."""

    params: dict[str, Any]
    closest_id: str
    header: list[str]
    id_columns: list[str]
    target_columns: list[str]
    task_type: str
    unsure: set[str] = field(default_factory=set)


def _split(text: str, sep: str) -> list[str]:
    return [c for c in text.split(sep)] if text else []


def load_in_sample() -> list[Expected]:
    with IN_SAMPLE_CSV.open(newline="", encoding="utf-8") as fh:
        return [Expected(r["slug"], IN_SAMPLE_DIR / f"{r['slug']}.md", r["metric_id"],
                         json.loads(r["params"] or "{}"), r["closest_id"],
                         _split(r["submission_header"], ","), _split(r["id_columns"], ";"),
                         _split(r["target_columns"], ";"), r["task_type"])
                for r in csv.DictReader(fh)]


def load_dev() -> tuple[list[Expected], list[Expected]]:
    """(dev, held-back) from labels.csv."""
    from tambench.schema.mapping.metric_rules import TASK_TYPE_BY_METRIC

    held = {ln.strip() for ln in HELDBACK.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}
    with DEV_EXACT.open(newline="", encoding="utf-8") as fh:
        exact = {r["slug"]: r["exact_id"] for r in csv.DictReader(fh)}
    dev: list[Expected] = []
    back: list[Expected] = []
    with (DEV_DIR / "labels.csv").open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            unsure = {"metric", "header"} if r["unsure"] == "all" else (
                {r["unsure"]} if r["unsure"] else set())
            metric_id = r["tambench_metric_id"] or exact.get(r["slug"], "")
            e = Expected(r["slug"], DEV_DIR / f"{r['slug']}.md", metric_id,
                         json.loads(r["metric_params"] or "{}"), r["closest_id"],
                         _split(r["submission_header"], ","), _split(r["id_column"], ";"),
                         _split(r["target_columns"], ";"),
                         TASK_TYPE_BY_METRIC.get(metric_id or r["closest_id"], ""), unsure)
            (back if r["slug"] in held else dev).append(e)
    if held - {e.slug for e in back}:
        raise SystemExit(f"held-back slugs without labels: {sorted(held - {e.slug for e in back})}")
    return dev, back


# --- scoring ------------------------------------------------------------------------------------


def expected_metric(e: Expected) -> tuple[str, dict[str, Any]]:
    """The metric the mapper must give now: the exact id when registered, else empty."""
    from tambench.core.metrics import METRICS

    if e.metric_id and e.metric_id in METRICS:
        return e.metric_id, e.params
    return "", {}


def mapped(result: Any) -> dict[str, Any]:
    """The five fields as a mapping result holds them (grading, else pending_grading)."""
    spec = result.spec
    g = spec.grading
    pending = spec.provenance.pending_grading
    src = g if g is not None else pending
    return {
        "metric": (g.metric, dict(g.metric_params)) if g is not None else ("", {}),
        "header": list(src.submission_header) if src is not None else [],
        "id_columns": list(src.id_columns) if src is not None else [],
        "target_columns": list(src.target_columns) if src is not None else [],
        "task_type": spec.task_type,
        "named_id": pending.metric_id if pending is not None else "",
    }


def score(result: Any, e: Expected) -> dict[str, Any]:
    """Per field: status (right / wrong / missing / neighbour / unsure), got and expected."""
    got = mapped(result)
    want: dict[str, Any] = {"metric": expected_metric(e), "header": e.header,
                            "id_columns": e.id_columns, "target_columns": e.target_columns,
                            "task_type": e.task_type}
    out: dict[str, Any] = {"slug": e.slug, "named_id": got["named_id"]}
    for f in FIELDS:
        g, w = got[f], want[f]
        empty_g = not (g[0] if f == "metric" else g)
        empty_w = not (w[0] if f == "metric" else w)
        if f in e.unsure or (f in {"id_columns", "target_columns"} and "header" in e.unsure):
            status = "unsure"
        elif g == w:
            status = "right"
        elif f == "metric" and empty_w:
            status = "neighbour"
        elif empty_g:
            status = "missing"
        else:
            status = "wrong"
        out[f] = {"status": status, "got": g, "expected": w}
    return out


def summarise(mapper: str, partition: str, scores: list[dict[str, Any]],
              elapsed: float) -> dict[str, Any]:
    per_field = {}
    for f in FIELDS:
        counted = [s for s in scores if s[f]["status"] != "unsure"]
        right = sum(s[f]["status"] == "right" for s in counted)
        per_field[f] = {"n": len(counted), "right": right,
                        "pct": round(100.0 * right / len(counted), 1) if counted else None,
                        **{k: sum(s[f]["status"] == k for s in counted)
                           for k in ("wrong", "missing", "neighbour")}}
    misses = [{"slug": s["slug"], "field": f, **s[f]} for s in scores for f in FIELDS
              if s[f]["status"] not in {"right", "unsure"}]
    return {"mapper": mapper, "partition": partition, "n_texts": len(scores),
            "seconds_per_text": round(elapsed / max(len(scores), 1), 4),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "fields": per_field, "misses": misses}


# --- mappers ------------------------------------------------------------------------------------


def _read(e: Expected) -> dict[str, str]:
    from tambench.schema.mapping.pageio import read_page

    return {"all": read_page(e.path).text}


def run_rules(partition: str, rows: list[Expected]) -> dict[str, Any]:
    from tambench.schema.mapping import map_pages

    t0 = time.perf_counter()
    scores = [score(map_pages(_read(e), task_id=f"kaggle/{e.slug.lower()}"), e) for e in rows]
    return summarise("rules", partition, scores, time.perf_counter() - t0)


def scripted_reply(rules_result: Any, e: Expected, *, naive: bool) -> dict[str, Any]:
    """A MappedTask reply with the expected values (``naive``: the closest registered id
    where the page's metric has none), quoting the rules' evidence."""
    ev = rules_result.evidence
    reply: dict[str, Any] = {}
    metric_id, params = expected_metric(e)
    if naive and not metric_id and e.closest_id:
        metric_id, params = e.closest_id, {}
    quote = ev.get("metric.metric_name") or ev.get("grading.metric")
    if quote:
        reply["metric"] = {
            "metric_id": metric_id or "unknown",
            "params": [{"name": k, "value": json.dumps(v)} for k, v in params.items()],
            "metric_name": rules_result.spec.metric.metric_name or metric_id or "unknown",
            "evidence": quote,
        }
    hq = ev.get("grading.submission_header")
    if e.header and hq:
        reply["submission_header"] = {"value": e.header, "evidence": hq}
        ids = [c for c in e.id_columns if c in e.header] or e.header[:1]
        reply["id_columns"] = {"value": ids, "evidence": hq}
        reply["target_columns"] = {"value": [c for c in e.target_columns if c in e.header],
                                   "evidence": hq}
    for attr in ("title", "goal_description", "target_col", "output_format"):
        if attr in ev:
            reply[attr] = {"value": str(getattr(rules_result.spec, attr)), "evidence": ev[attr]}
    if e.task_type and "task_type" in ev:
        reply["task_type"] = {"value": e.task_type, "evidence": ev["task_type"]}
    return reply


def run_llm(partition: str, rows: list[Expected], *, mode: str, llm: str | None,
            base_url: str | None, replies: Path | None) -> dict[str, Any]:
    from tambench.schema.mapping import map_pages
    from tambench.testing.fake_openai import FakeOpenAIServer

    t0 = time.perf_counter()
    scores = []
    for e in rows:
        pages, task_id = _read(e), f"kaggle/{e.slug.lower()}"
        if llm is not None:
            r = map_pages(pages, task_id=task_id, llm=llm, base_url=base_url,
                          record_reply=RESULTS / "mapping_replies" / f"{e.slug}.json")
        else:
            reply: Any = (json.loads((replies / f"{e.slug}.json").read_text()) if replies
                          else scripted_reply(map_pages(pages, task_id=task_id), e,
                                              naive=mode == "naive"))
            os.environ.setdefault("OPENAI_API_KEY", "replay-not-a-key")
            with FakeOpenAIServer(replies=[reply]) as srv:
                r = map_pages(pages, task_id=task_id, llm="replay", base_url=srv.base_url)
        scores.append(score(r, e))
    name = f"model:{llm}" if llm else (f"replay:{replies}" if replies else f"replay:{mode}")
    return summarise(name, partition, scores, time.perf_counter() - t0)


# --- output -------------------------------------------------------------------------------------


def print_summary(s: dict[str, Any]) -> None:
    la = ", ".join(str(x) for x in s["load_average"])
    cells = "  ".join(f"{f} {v['right']}/{v['n']} ({v['pct']}%)" for f, v in s["fields"].items())
    print(f"{s['partition']:10} {s['mapper']:16} texts {s['n_texts']:3}  {cells}  "
          f"neighbour substitutions {s['fields']['metric']['neighbour']}  "
          f"{s['seconds_per_text']} s/text  load average {la}")


def _short(value: Any) -> str:
    if isinstance(value, list) and len(value) > 8:
        return f"[{', '.join(map(repr, value[:6]))}, ... ({len(value)} in all)]"
    return repr(value)


def print_misses(s: dict[str, Any]) -> None:
    for m in s["misses"]:
        print(f"    {m['status']:9} {m['field']:14} {m['slug']}: got {_short(m['got'])}, "
              f"expected {_short(m['expected'])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--partition", choices=[*PARTITIONS, "all"], default="all")
    ap.add_argument("--llm", default=None, help="model of a real endpoint")
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--replies", type=Path, default=None, help="recorded replies to replay")
    ap.add_argument("--no-llm", action="store_true", help="offline mapper only")
    ap.add_argument("--quiet", action="store_true", help="do not list the misses")
    args = ap.parse_args(argv)
    if not IN_SAMPLE_DIR.is_dir() or not DEV_DIR.is_dir():
        print(f"descriptions not found under {SHARED / 'data'} (set TAMBENCH_SHARED_DIR)",
              file=sys.stderr)
        return 1
    dev, back = load_dev()
    sets = {"in-sample": load_in_sample(), "dev": dev, "held-back": back}
    chosen = PARTITIONS if args.partition == "all" else (args.partition,)
    runs: list[Callable[[str, list[Expected]], dict[str, Any]]] = [run_rules]
    if not args.no_llm:
        modes = ["real"] if args.llm or args.replies else ["oracle", "naive"]
        runs += [lambda p, rows, m=m: run_llm(p, rows, mode=m, llm=args.llm,  # type: ignore[misc]
                                              base_url=args.base_url, replies=args.replies)
                 for m in modes]
    results = []
    for part in chosen:
        for run in runs:
            s = run(part, sets[part])
            results.append(s)
            print_summary(s)
            if not args.quiet:
                print_misses(s)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "bench_mapping.json"
    out.write_text(json.dumps({"results": results}, indent=2, default=list))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

