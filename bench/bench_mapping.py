"""Measure the schema mappers on the real competition descriptions.

Offline (rule-based) mapper: percentage of correct metric ids (with parameters) and of exact
submission headers against tests/data/mapping_expected.csv (written by reading each text;
targets: >= 80% metric ids, >= 85% exact headers), plus time per task.

LLM mapper, three ways:

* default: replay. A local fake OpenAI-compatible server answers each task with a reply built
  from the expected row and the rule-based mapper's quotes (or with a recorded reply from
  ``--replies DIR``), so the whole path runs: prompt, structured output, evidence checks,
  cross-checks, scoring. It proves the harness, not a model's quality.
* ``--llm MODEL [--base-url URL]``: a real endpoint (key in ``OPENAI_API_KEY`` or
  ``--api-key-env``). Each parsed reply is saved to ``bench/results/mapping_replies/<slug>.json``
  so the run can be replayed offline later with ``--replies bench/results/mapping_replies``.
  Example with a local vLLM / llama.cpp / Ollama server::

      OPENAI_API_KEY=unused python bench/bench_mapping.py --llm qwen2.5-7b-instruct \\
          --base-url http://127.0.0.1:8000/v1

* ``--no-llm``: offline mapper only.

``--scale 0.2`` maps the first 20% of the tasks (for a loaded machine). Results are printed as a
table and written to bench/results/bench_mapping.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DESCRIPTIONS = REPO.parent / "shared" / "data" / "competition-descriptions"
DEFAULT_EXPECTED = REPO / "tests" / "data" / "mapping_expected.csv"
RESULTS = REPO / "bench" / "results"


def load_expected(path: Path) -> list[dict[str, Any]]:
    """Rows of the expected-values file, with params parsed and the header split."""
    rows = []
    with path.open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            rows.append({
                "slug": r["slug"],
                "metric_id": r["metric_id"],
                "params": json.loads(r["params"] or "{}"),
                "header": r["submission_header"].split(",") if r["submission_header"] else [],
            })
    return rows


def score(result: Any, row: dict[str, Any]) -> tuple[bool, bool]:
    """(metric id and params right, submission header exactly right) for one task."""
    g = result.spec.grading
    metric_ok = g is not None and g.metric == row["metric_id"] and g.metric_params == row["params"]
    header = list(g.submission_header) if g is not None else []
    return metric_ok, header == row["header"]


def oracle_reply(rules_result: Any, row: dict[str, Any]) -> dict[str, Any]:
    """A MappedTask reply holding the expected values, quoting the rules' evidence."""
    ev = rules_result.evidence
    spec = rules_result.spec
    reply: dict[str, Any] = {}
    if "grading.metric" in ev:
        reply["metric"] = {
            "metric_id": row["metric_id"],
            "params": [{"name": k, "value": json.dumps(v)} for k, v in row["params"].items()],
            "metric_name": spec.metric.metric_name or row["metric_id"],
            "evidence": ev["grading.metric"],
        }
    if row["header"] and "grading.submission_header" in ev and spec.grading is not None:
        quote = ev["grading.submission_header"]
        ids = [c for c in spec.grading.id_columns if c in row["header"]] or row["header"][:1]
        reply["submission_header"] = {"value": row["header"], "evidence": quote}
        reply["id_columns"] = {"value": ids, "evidence": quote}
        reply["target_columns"] = {"value": [c for c in row["header"] if c not in ids],
                                   "evidence": quote}
    for attr in ("title", "goal_description", "task_type", "target_col", "output_format"):
        if attr in ev:
            reply[attr] = {"value": str(getattr(spec, attr)), "evidence": ev[attr]}
    return reply


def run_offline(rows: list[dict[str, Any]], descriptions: Path) -> dict[str, Any]:
    from tambench.schema.mapping import map_pages

    per_task = []
    t0 = time.perf_counter()
    for row in rows:
        text = (descriptions / f"{row['slug']}.md").read_text(encoding="utf-8")
        r = map_pages({"all": text}, task_id=f"kaggle/{row['slug']}")
        m_ok, h_ok = score(r, row)
        per_task.append({"slug": row["slug"], "metric_ok": m_ok, "header_ok": h_ok,
                         "metric": r.spec.grading.metric if r.spec.grading else None,
                         "unfilled": len(r.unfilled)})
    elapsed = time.perf_counter() - t0
    return summarise("rules", per_task, elapsed)


def run_llm(rows: list[dict[str, Any]], descriptions: Path, *, llm: str | None,
            base_url: str | None, api_key_env: str, replies: Path | None) -> dict[str, Any]:
    from tambench.schema.mapping import map_pages
    from tambench.schema.mapping.llm import ask_model, build_messages, merge_model_reply, new_nonce
    from tambench.schema.mapping.markdown import PageText, parse_pages
    from tambench.schema.mapping.rules import map_rules
    from tambench.testing.fake_openai import FakeOpenAIServer

    per_task = []
    record_dir = RESULTS / "mapping_replies"
    t0 = time.perf_counter()
    for row in rows:
        text = (descriptions / f"{row['slug']}.md").read_text(encoding="utf-8")
        pages = {"all": text}
        task_id = f"kaggle/{row['slug']}"
        if llm is not None:  # a real endpoint: record each parsed reply for later replay
            from tambench.schema.mapping.draft import build_result

            rules = map_rules(pages)
            mapped = ask_model(build_messages(pages, task_id=task_id, nonce=new_nonce()),
                               llm=llm, base_url=base_url, api_key_env=api_key_env)
            record_dir.mkdir(parents=True, exist_ok=True)
            (record_dir / f"{row['slug']}.json").write_text(mapped.model_dump_json(indent=2))
            draft = merge_model_reply(mapped, rules, PageText(parse_pages(pages)), model=llm)
            r = build_result(draft, task_id=task_id, url="", mapper=f"model:{llm}")
        else:
            if replies is not None:
                reply = json.loads((replies / f"{row['slug']}.json").read_text())
            else:
                reply = oracle_reply(map_pages(pages, task_id=task_id), row)
            os.environ.setdefault(api_key_env, "replay-not-a-key")
            with FakeOpenAIServer(replies=[reply]) as srv:
                r = map_pages(pages, task_id=task_id, llm="replay", base_url=srv.base_url,
                              api_key_env=api_key_env)
        m_ok, h_ok = score(r, row)
        per_task.append({"slug": row["slug"], "metric_ok": m_ok, "header_ok": h_ok,
                         "metric": r.spec.grading.metric if r.spec.grading else None,
                         "unfilled": len(r.unfilled), "warnings": len(r.warnings)})
    elapsed = time.perf_counter() - t0
    mode = f"model:{llm}" if llm else ("replay:" + str(replies) if replies else "replay:oracle")
    return summarise(mode, per_task, elapsed)


def summarise(mode: str, per_task: list[dict[str, Any]], elapsed: float) -> dict[str, Any]:
    n = len(per_task)
    return {
        "mapper": mode,
        "n_tasks": n,
        "metric_id_pct": round(100.0 * sum(t["metric_ok"] for t in per_task) / n, 1),
        "exact_header_pct": round(100.0 * sum(t["header_ok"] for t in per_task) / n, 1),
        "seconds_per_task": round(elapsed / n, 4),
        "failures": [t for t in per_task if not (t["metric_ok"] and t["header_ok"])],
        "tasks": per_task,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--descriptions", type=Path, default=DEFAULT_DESCRIPTIONS)
    ap.add_argument("--expected", type=Path, default=DEFAULT_EXPECTED)
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the tasks to map")
    ap.add_argument("--llm", default=None, help="model name of a real endpoint")
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--api-key-env", default="OPENAI_API_KEY")
    ap.add_argument("--replies", type=Path, default=None, help="recorded replies to replay")
    ap.add_argument("--no-llm", action="store_true", help="offline mapper only")
    args = ap.parse_args(argv)

    rows = load_expected(args.expected)
    rows = rows[: max(1, round(len(rows) * args.scale))]
    if not args.descriptions.is_dir():
        print(f"descriptions folder not found: {args.descriptions}", file=sys.stderr)
        return 1
    results = [run_offline(rows, args.descriptions)]
    if not args.no_llm:
        results.append(run_llm(rows, args.descriptions, llm=args.llm, base_url=args.base_url,
                               api_key_env=args.api_key_env, replies=args.replies))

    print(f"{'mapper':24} {'tasks':>5} {'metric id %':>12} {'exact header %':>15} "
          f"{'s/task':>8}")
    for r in results:
        print(f"{r['mapper']:24} {r['n_tasks']:>5} {r['metric_id_pct']:>12} "
              f"{r['exact_header_pct']:>15} {r['seconds_per_task']:>8}")
        for f in r["failures"]:
            print(f"    miss {f['slug']}: metric_ok={f['metric_ok']} header_ok={f['header_ok']} "
                  f"(got {f['metric']})")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "bench_mapping.json"
    out.write_text(json.dumps({"scale": args.scale, "results": results}, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
