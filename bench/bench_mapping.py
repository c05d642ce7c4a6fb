"""Measure the schema mappers on real competition descriptions, per field, every miss listed.

Three partitions, reported separately:

* ``in-sample``: the 55 texts of ../shared/data/competition-descriptions, against
  tests/data/mapping_expected.csv. The rules were written against these.
* ``dev``: ../shared/data/competition-descriptions-dev (MLE-Dojo texts, labels.csv) except the
  held-back ones. Rules were generalised on their misses.
* ``held-back``: the 20 dev texts listed in bench/data/mapping_heldback.txt, chosen by hash
  before any mapper ran on the dev texts, never used to tune the rules.
* ``mledojo`` (with ``--mledojo DIR``): every ``mledojo/competitions/<slug>/info/description.txt``
  of an MLE-Dojo checkout (a work tree, or its git directory read at HEAD), read as data,
  against bench/data/mledojo_rules.csv (the published rule of each of its competitions and the
  metric id that computes it; a metric listed as pending counts once it is registered). Only
  the metric and the task type are labelled there.

Fields: metric id (with parameters), exact submission header, id columns, target columns,
task type. A metric is right when it equals the label's id with the same parameters once both
are merged over the metric's defaults, or when both are empty ("rightly empty": the page's
metric has no registered id, or the page states none). The label's id counts only when it is
registered in this installation and takes every parameter the label gives (otherwise it must
be left empty); a dev label refined in bench/data/mapping_dev_exact_ids.csv (the exact id of
a label left blank when no registered id computed the text's metric, or parameters the label
lacks, taken from bench/data/mledojo_rules.csv) expects that id once it is registered. A
registered id chosen where the expected metric is empty is a **neighbour substitution**: the
one error the mapper must never make. Fields marked ``unsure`` in the labels are left out of
that field's count. Each metric miss is one of: ``wrong`` (another registered id or other
parameters), ``neighbour``, ``missing`` (left empty: with the mapper's reason, or without
one); a text whose own evaluation section states another metric than the published rule
(bench/data/mapping_text_disagreements.csv, with the sentence) is counted apart, as
``text states otherwise``.

``--hostile`` measures the offline mapper's time on 1, 2, 4 and 8 MB of hostile text
(unbalanced brackets, parentheses, asterisks, backticks, pipes, underscores, unclosed HTML
comments and hidden elements, formula and citation openers, scoring-cue floods), placed under
an Evaluation heading, one line and many lines: the time must grow linearly.

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
    python bench/bench_mapping.py --no-llm --mledojo /path/to/MLE-Dojo --partition mledojo
    python bench/bench_mapping.py --hostile [--sizes-mb 1,2,4,8]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
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
MLEDOJO_RULES = REPO / "bench" / "data" / "mledojo_rules.csv"
TEXT_DISAGREEMENTS = REPO / "bench" / "data" / "mapping_text_disagreements.csv"
RESULTS = REPO / "bench" / "results"
FIELDS = ("metric", "header", "id_columns", "target_columns", "task_type")
PARTITIONS = ("in-sample", "dev", "held-back", "mledojo")
#: Where an MLE-Dojo checkout keeps each competition's description.
MLEDOJO_GLOB = "mledojo/competitions/*/info/description.txt"


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
    text: str | None = None
    """The page's text when it was not read from ``path`` (an MLE-Dojo git directory)."""


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
        exact = {r["slug"]: (r["exact_id"], json.loads(r["params"] or "{}"))
                 for r in csv.DictReader(fh)}
    dev: list[Expected] = []
    back: list[Expected] = []
    with (DEV_DIR / "labels.csv").open(newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            unsure = {"metric", "header"} if r["unsure"] == "all" else (
                {r["unsure"]} if r["unsure"] else set())
            metric_id = r["tambench_metric_id"]
            params = json.loads(r["metric_params"] or "{}")
            if r["slug"] in exact:
                metric_id, params = exact[r["slug"]][0], {**params, **exact[r["slug"]][1]}
            e = Expected(r["slug"], DEV_DIR / f"{r['slug']}.md", metric_id, params,
                         r["closest_id"],
                         _split(r["submission_header"], ","), _split(r["id_column"], ";"),
                         _split(r["target_columns"], ";"),
                         TASK_TYPE_BY_METRIC.get(metric_id or r["closest_id"], ""), unsure)
            (back if r["slug"] in held else dev).append(e)
    if held - {e.slug for e in back}:
        raise SystemExit(f"held-back slugs without labels: {sorted(held - {e.slug for e in back})}")
    return dev, back


def _mledojo_texts(root: Path) -> dict[str, str]:
    """slug -> description text of an MLE-Dojo checkout: a work tree, or its git directory
    (read at HEAD with ``git cat-file``; the repository's files are only read, never run)."""
    if (root / "mledojo" / "competitions").is_dir():
        return {p.parents[1].name: p.read_text(encoding="utf-8", errors="replace")
                for p in sorted(root.glob(MLEDOJO_GLOB))}
    git = ["git", f"--git-dir={root}"]
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", "HEAD", "mledojo/competitions"],
                           capture_output=True, text=True, check=True).stdout.split()
    paths = [n for n in names if n.endswith("/info/description.txt")]
    batch = subprocess.run([*git, "cat-file", "--batch"], input="".join(
        f"HEAD:{n}\n" for n in paths).encode(), capture_output=True, check=True).stdout
    out: dict[str, str] = {}
    pos = 0
    for path in paths:
        header_end = batch.index(b"\n", pos)
        size = int(batch[pos:header_end].split()[2])
        body = batch[header_end + 1: header_end + 1 + size]
        out[path.split("/")[2]] = body.decode("utf-8", errors="replace")
        pos = header_end + 1 + size + 1
    return out


def load_mledojo(root: Path, table: Path = MLEDOJO_RULES) -> list[Expected]:
    """MLE-Dojo's descriptions against the rules table: the registered id (or the pending id,
    once registered) with its parameters; only the metric and the task type are labelled."""
    from tambench.schema.mapping.metric_rules import TASK_TYPE_BY_METRIC

    texts = _mledojo_texts(root)
    with table.open(newline="", encoding="utf-8") as fh:
        rows = {r["slug"]: r for r in csv.DictReader(fh)}
    if set(rows) != set(texts):
        raise SystemExit(f"{table.name} and the checkout differ: table only "
                         f"{sorted(set(rows) - set(texts))[:5]}, checkout only "
                         f"{sorted(set(texts) - set(rows))[:5]}")
    out = []
    for slug in sorted(rows):
        r = rows[slug]
        metric_id = r["metric"] or r["pending_metric"]
        task_type = TASK_TYPE_BY_METRIC.get(metric_id, "")
        out.append(Expected(slug, Path(f"mledojo/competitions/{slug}/info/description.txt"),
                            metric_id, json.loads(r["metric_params"] or "{}"), "", [], [], [],
                            task_type, {"header", "id_columns", "target_columns"}
                            | (set() if task_type else {"task_type"}), text=texts[slug]))
    return out


def load_disagreements() -> dict[str, str]:
    """slug -> why the page's own evaluation text states another metric than the label."""
    with TEXT_DISAGREEMENTS.open(newline="", encoding="utf-8") as fh:
        return {r["slug"]: f"the text says {r['text_states']!r}; {r['why']}"
                for r in csv.DictReader(fh)}


# --- scoring ------------------------------------------------------------------------------------


def resolved(metric_id: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """``params`` merged over the registered metric's defaults; None when the metric is not
    registered or does not take one of them (then no registered id computes it yet)."""
    from tambench.core.metrics import METRICS

    metric = METRICS.get(metric_id)
    if metric is None or set(params) - set(metric.defaults):
        return None
    return {**metric.defaults, **params}


def expected_metric(e: Expected) -> tuple[str, dict[str, Any]]:
    """The metric the mapper must give now: the exact id when registered and taking every
    parameter the label gives, else empty."""
    if e.metric_id and resolved(e.metric_id, e.params) is not None:
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
        "reason": pending.reason if pending is not None else "",
    }


def _same_metric(got: tuple[str, dict[str, Any]], want: tuple[str, dict[str, Any]]) -> bool:
    if got[0] != want[0]:
        return False
    return not got[0] or resolved(*got) == resolved(*want)


def _status(f: str, g: Any, w: Any, reason: str) -> str:
    if (g[0] == w[0] and _same_metric(g, w)) if f == "metric" else g == w:
        return "right"
    empty_g = not (g[0] if f == "metric" else g)
    empty_w = not (w[0] if f == "metric" else w)
    if f == "metric" and empty_w:
        return "neighbour"
    if empty_g:
        return "missing" if f != "metric" or reason else "missing_no_reason"
    return "wrong"


def score(result: Any, e: Expected, disagreements: dict[str, str] | None = None
          ) -> dict[str, Any]:
    """Per field: status (right / wrong / missing / neighbour / unsure / text_states_otherwise),
    got and expected."""
    got = mapped(result)
    want: dict[str, Any] = {"metric": expected_metric(e), "header": e.header,
                            "id_columns": e.id_columns, "target_columns": e.target_columns,
                            "task_type": e.task_type}
    out: dict[str, Any] = {"slug": e.slug, "named_id": got["named_id"], "reason": got["reason"]}
    for f in FIELDS:
        if f in e.unsure or (f in {"id_columns", "target_columns"} and "header" in e.unsure):
            status = "unsure"
        else:
            status = _status(f, got[f], want[f], got["reason"])
            if status != "right" and f == "metric" and e.slug in (disagreements or {}):
                status = "text_states_otherwise"
        out[f] = {"status": status, "got": got[f], "expected": want[f]}
    return out


STATUSES = ("wrong", "missing", "missing_no_reason", "neighbour", "text_states_otherwise")


def summarise(mapper: str, partition: str, scores: list[dict[str, Any]],
              elapsed: float) -> dict[str, Any]:
    per_field = {}
    for f in FIELDS:
        counted = [s for s in scores if s[f]["status"] != "unsure"]
        right = sum(s[f]["status"] == "right" for s in counted)
        per_field[f] = {"n": len(counted), "right": right,
                        "pct": round(100.0 * right / len(counted), 1) if counted else None,
                        **{k: sum(s[f]["status"] == k for s in counted) for k in STATUSES}}
    m = per_field["metric"]
    picks = {"right": m["right"], "empty_with_reason": m["missing"],
             "empty_without_reason": m["missing_no_reason"],
             "wrong": m["wrong"] + m["neighbour"],
             "text_states_otherwise": m["text_states_otherwise"]}
    misses = [{"slug": s["slug"], "field": f, **s[f],
               **({"reason": s["reason"]} if f == "metric" and s["reason"] else {})}
              for s in scores for f in FIELDS if s[f]["status"] not in {"right", "unsure"}]
    return {"mapper": mapper, "partition": partition, "n_texts": len(scores),
            "seconds_per_text": round(elapsed / max(len(scores), 1), 4),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "fields": per_field, "metric_picks": picks, "misses": misses}


# --- mappers ------------------------------------------------------------------------------------


def _read(e: Expected) -> dict[str, str]:
    from tambench.schema.mapping.pageio import read_page

    return {"all": e.text if e.text is not None else read_page(e.path).text}


def run_rules(partition: str, rows: list[Expected]) -> dict[str, Any]:
    from tambench.schema.mapping import map_pages

    disagreements = load_disagreements()
    t0 = time.perf_counter()
    scores = [score(map_pages(_read(e), task_id=f"kaggle/{e.slug.lower()}"), e, disagreements)
              for e in rows]
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
        scores.append(score(r, e, load_disagreements()))
    name = f"model:{llm}" if llm else (f"replay:{replies}" if replies else f"replay:{mode}")
    return summarise(name, partition, scores, time.perf_counter() - t0)


# --- hostile pages ------------------------------------------------------------------------------

#: Repeated units of hostile text: each one opens a construct some parser or regex could try to
#: close far away (or never).
HOSTILE_UNITS: dict[str, str] = {
    "brackets": "[",
    "link-openers": "[a](",
    "parentheses": "(",
    "asterisks": "*",
    "emphasis": "**a _b ",
    "backticks": "`",
    "code-spans": "`a ",
    "pipes": "| a ",
    "underscores": "_",
    "formulas": "$\\frac{a} ",
    "citations": "(2020). a ",
    "comments": "<!-- ",
    "hidden": "<div hidden>",
    "tags": "<b>a</b> <i ",
    "images": "![a](",
    "headings": "# a #",
    "cues": "Submissions are evaluated on x ",
    "mixed": "",
}
_MIXED_CHARS = "[](){}*`|_#$<>!-=\\~:;,. abcXYZ019\n"


def hostile_body(shape: str, size: int, *, lines: bool) -> str:
    """``size`` characters of one hostile shape, as one line or as lines of 80 characters."""
    if shape == "mixed":
        import random

        rng = random.Random(20261126)
        body = "".join(rng.choices(_MIXED_CHARS, k=size))
    else:
        unit = HOSTILE_UNITS[shape]
        body = (unit * (size // len(unit) + 1))[:size]
    if lines:
        body = "\n".join(body[i:i + 80] for i in range(0, len(body), 80))
    return body


_HOSTILE_HEAD = "## Evaluation\n\nSubmissions are scored on the root mean squared error.\n\n"
_HOSTILE_TAIL = ("\n\n## Submission File\n\nThe file should have the following format:\n\n"
                 "```\nid,target\n1,0\n```\n")


def hostile_page(shape: str, size: int, *, lines: bool) -> str:
    """A page of ``size`` characters in all: the real metric sentence, the hostile body under
    the Evaluation heading, then a submission example."""
    budget = size - len(_HOSTILE_HEAD) - len(_HOSTILE_TAIL)
    return _HOSTILE_HEAD + hostile_body(shape, budget, lines=lines)[:budget] + _HOSTILE_TAIL


def run_hostile(sizes_mb: list[float], shapes: list[str]) -> dict[str, Any]:
    """Seconds to map each hostile page; growth is linear when seconds per MB stay flat."""
    from tambench.schema.mapping import map_pages

    map_pages({"all": hostile_page("mixed", 4096, lines=True)}, task_id="kaggle/warm-up")
    rows = []
    for shape in shapes:
        for lines in (False, True):
            times = []
            for mb in sizes_mb:
                page = hostile_page(shape, int(mb * 1024 * 1024), lines=lines)
                t0 = time.perf_counter()
                map_pages({"all": page}, task_id="kaggle/hostile")
                times.append(time.perf_counter() - t0)
            row = {"shape": shape, "layout": "lines" if lines else "one line",
                   "seconds": [round(t, 3) for t in times],
                   "seconds_per_mb": [round(t / mb, 3) for t, mb in zip(times, sizes_mb,
                                                                         strict=True)],
                   "load_average": [round(x, 2) for x in os.getloadavg()]}
            rows.append(row)
            cells = "  ".join(f"{mb:g} MB {t:7.2f} s" for mb, t in zip(sizes_mb, times,
                                                                     strict=True))
            print(f"{shape:13} {row['layout']:8}  {cells}  "
                  f"s/MB {min(row['seconds_per_mb']):.2f}-{max(row['seconds_per_mb']):.2f}  "
                  f"load average {', '.join(map(str, row['load_average']))}", flush=True)
    return {"sizes_mb": sizes_mb, "rows": rows}


# --- output -------------------------------------------------------------------------------------


def print_summary(s: dict[str, Any]) -> None:
    la = ", ".join(str(x) for x in s["load_average"])
    cells = "  ".join(f"{f} {v['right']}/{v['n']} ({v['pct']}%)" for f, v in s["fields"].items())
    picks = s["metric_picks"]
    print(f"{s['partition']:10} {s['mapper']:16} texts {s['n_texts']:3}  {cells}  "
          f"neighbour substitutions {s['fields']['metric']['neighbour']}  "
          f"{s['seconds_per_text']} s/text  load average {la}")
    print(f"{'':10} metric picks: right {picks['right']} / empty with reason "
          f"{picks['empty_with_reason']} / wrong {picks['wrong']}  (empty without reason "
          f"{picks['empty_without_reason']}, text states otherwise "
          f"{picks['text_states_otherwise']})")


def _short(value: Any) -> str:
    if isinstance(value, list) and len(value) > 8:
        return f"[{', '.join(map(repr, value[:6]))}, ... ({len(value)} in all)]"
    return repr(value)


def print_misses(s: dict[str, Any]) -> None:
    for m in s["misses"]:
        why = f"  ({m['reason']})" if m.get("reason") else ""
        print(f"    {m['status']:9} {m['field']:14} {m['slug']}: got {_short(m['got'])}, "
              f"expected {_short(m['expected'])}{why}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--partition", choices=[*PARTITIONS, "all"], default="all")
    ap.add_argument("--llm", default=None, help="model of a real endpoint")
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--replies", type=Path, default=None, help="recorded replies to replay")
    ap.add_argument("--no-llm", action="store_true", help="offline mapper only")
    ap.add_argument("--quiet", action="store_true", help="do not list the misses")
    ap.add_argument("--mledojo", type=Path, default=None,
                    help="an MLE-Dojo checkout (work tree or git directory): adds the mledojo "
                         "partition")
    ap.add_argument("--rules-table", type=Path, default=MLEDOJO_RULES,
                    help="the MLE-Dojo rules table (default: bench/data/mledojo_rules.csv)")
    ap.add_argument("--hostile", action="store_true",
                    help="measure mapping time on hostile text instead")
    ap.add_argument("--sizes-mb", default="1,2,4,8", help="hostile text sizes in MB")
    ap.add_argument("--shapes", default=",".join(HOSTILE_UNITS), help="hostile shapes")
    args = ap.parse_args(argv)
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.hostile:
        res = run_hostile([float(x) for x in args.sizes_mb.split(",")], args.shapes.split(","))
        (RESULTS / "bench_mapping_hostile.json").write_text(json.dumps(res, indent=2))
        print(f"wrote {RESULTS / 'bench_mapping_hostile.json'}")
        return 0
    if not IN_SAMPLE_DIR.is_dir() or not DEV_DIR.is_dir():
        print(f"descriptions not found under {SHARED / 'data'} (set TAMBENCH_SHARED_DIR)",
              file=sys.stderr)
        return 1
    dev, back = load_dev()
    sets = {"in-sample": load_in_sample(), "dev": dev, "held-back": back}
    if args.mledojo is not None:
        sets["mledojo"] = load_mledojo(args.mledojo, args.rules_table)
    elif args.partition == "mledojo":
        print("--partition mledojo needs --mledojo DIR", file=sys.stderr)
        return 1
    chosen = [p for p in PARTITIONS if p in sets] if args.partition == "all" else [args.partition]
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
    out = RESULTS / "bench_mapping.json"
    out.write_text(json.dumps({"results": results}, indent=2, default=list))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

