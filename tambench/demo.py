"""The main job end to end, on nothing but this package and its dependencies.

``tambench demo`` (what ``make demo`` runs):

1. serves the local competition site (Kaggle-, AIcrowd- and Biendata-style pages built around
   scikit-learn's bundled datasets, each with a private leaderboard of honestly trained
   baseline models);
2. acquires the demo competitions with a real Chromium into a catalogue: pages as Markdown
   (the Kaggle-style ones loaded by the page's own JSON API calls), the leaderboard read as the
   sites render it (a list loaded by scrolling, a server-rendered table), the TaskSpec mapped
   offline by the rule-based mapper; then the difficulty tier of each task;
3. downloads each competition's training data and prepares a train/test split with hidden
   labels, followed by the leakage audit;
4. runs a few baseline agents (a constant predictor, a linear model, a random forest, and a
   careless agent whose files break the rules) with ``tambench run``'s runner, each run in the
   bubblewrap sandbox seeing only its task's public files; each writes ``submission.csv`` and
   its solution code per task and seed;
5. grades every run (validation, metric, rank on the real leaderboard, medals, aggregates) and
   writes ``grades.json``, ``grades.csv`` and the HTML report.

Everything goes under one output folder (``demo-output/`` by default), rebuilt on every run.
"""

from __future__ import annotations

import csv
import json
import shutil
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from tambench.acquisition.pipeline import acquire_competitions
from tambench.core.metrics import get_metric
from tambench.core.tables import Column, render_table
from tambench.difficulty.batch import catalogue_difficulties, store_difficulty
from tambench.errors import ConfigError, TambenchError
from tambench.executors import get_executor
from tambench.grading.batch import grade_runs, write_batch_outputs
from tambench.grading.grade import grade_submission
from tambench.runs.agents import folder_agent
from tambench.runs.limits import Limits
from tambench.runs.run import run_agents as run_batch
from tambench.runs.sandbox import get_sandbox
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.schema.suggest import suggest_split_spec
from tambench.schema.taskspec import TaskSpec
from tambench.splits.prepare import prepare_task
from tambench.splits.statement import PageOptions
from tambench.testing import demo_agent
from tambench.testing.site import DEMO_REFS, serve_site

#: Agents and how many runs each makes per task.
AGENT_RUNS = {"constant-baseline": 1, "linear-model": 2, "random-forest": 2, "careless-agent": 1}
#: Largest training download the demo accepts (the demo sets are a few tens of KB).
MAX_DOWNLOAD_BYTES = 50_000_000


@dataclass(frozen=True)
class DemoResult:
    """Where the demo wrote its outputs."""

    out_dir: Path
    catalogue: Path
    data_dir: Path
    runs_dir: Path
    report_html: Path
    report_json: Path
    seconds: float


# --- data -----------------------------------------------------------------------------------


def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def _download(url: str, dest: Path) -> None:
    """Fetch a training file from the (loopback) demo site with a size cap."""
    if not url.startswith(("http://127.0.0.1", "http://localhost")):
        raise TambenchError(f"the demo downloads only from its local site, not {url}")
    with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310 - loopback URL checked above
        data = resp.read(MAX_DOWNLOAD_BYTES + 1)
    if len(data) > MAX_DOWNLOAD_BYTES:
        raise TambenchError(f"{url} is larger than {MAX_DOWNLOAD_BYTES} bytes")
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)


# --- baseline agents ------------------------------------------------------------------------


@dataclass(frozen=True)
class _TaskView:
    """A prepared task: its spec and public folder."""

    spec: TaskSpec
    public: Path


#: Each agent's model in the agent script (tambench/testing/demo_agent.py).
MODELS = {"constant-baseline": "constant", "linear-model": "linear", "random-forest": "forest",
          "careless-agent": "careless"}


def _task_table(views: list[_TaskView]) -> dict[str, dict[str, Any]]:
    """What the agents are told of each task (its public spec): columns, prediction kind, slug."""
    out = {}
    for view in views:
        g = view.spec.grading
        if g is None:
            raise TambenchError(f"task {view.spec.id} has no grading spec")
        out[view.spec.id] = {"id": g.id_columns[0], "target": g.target_columns[0],
                             "targets": list(g.target_columns), "slug": view.spec.slug,
                             "kind": get_metric(g.metric).kind}
    return out


def _agent_folder(root: Path, agent: str, tasks: dict[str, dict[str, Any]]) -> Path:
    """An MLE-bench-style agent folder: start.sh, config.yaml, the script and its task table."""
    folder = root / agent
    folder.mkdir(parents=True)
    (folder / "agent.py").write_text(Path(demo_agent.__file__).read_text(encoding="utf-8"))
    (folder / "tasks.json").write_text(json.dumps(tasks, indent=1))
    (folder / "start.sh").write_text('#!/bin/bash\nexec python3 "$AGENT_DIR/agent.py"\n')
    (folder / "config.yaml").write_text(
        f"{agent}:\n  start: {agent}/start.sh\n  env_vars:\n    DEMO_MODEL: {MODELS[agent]}\n")
    return folder


def _sandbox(con: Console) -> str:
    """bubblewrap where it runs; else no sandbox, saying so (the demo's agents are ours)."""
    try:
        get_sandbox("bubblewrap").check()
    except ConfigError as exc:
        con.print(f"[yellow]warning:[/] {exc}; the demo's own agents run without a sandbox",
                  highlight=False)
        return "none"
    return "bubblewrap"


def run_agents(views: list[_TaskView], runs_dir: Path, catalogue: Path, data_dir: Path,
               con: Console) -> int:
    """Run every agent through ``tambench run``'s runner (in the sandbox), as
    ``<agent>/<platform>__<slug>/<seed>/``; returns the number of runs."""
    tasks = _task_table(views)
    agents = [folder_agent(_agent_folder(runs_dir.parent / "agents", agent, tasks))
              for agent in AGENT_RUNS]
    result = run_batch(agents, list(tasks), seeds=AGENT_RUNS, out=runs_dir, catalogue=catalogue,
                       data_dir=data_dir, sandbox=_sandbox(con), limits=Limits(time=600),
                       parallel=2)
    return len(result.records)


# --- the pipeline -----------------------------------------------------------------------------


def run_demo(
    out_dir: Path = Path("demo-output"), *, console: Console | None = None, concurrency: int = 3,
    executor: str = "local",
) -> DemoResult:
    """Run the whole pipeline into ``out_dir`` (deleted first) and print what happened."""
    con = console or Console(soft_wrap=True)  # lines are never wrapped; tables fit the terminal
    start = time.perf_counter()
    if out_dir.exists():
        shutil.rmtree(out_dir)
    catalogue, data_dir = out_dir / "catalogue", out_dir / "data"
    runs_dir, report_dir = out_dir / "runs", out_dir / "report"

    step = _stepper(con, start)
    step("serving the local competition site and acquiring the demo competitions in Chromium")
    with serve_site() as site:
        specs = _acquire(con, site, catalogue, concurrency)
        step("downloading training data, preparing splits with hidden labels, auditing")
        views = _prepare(con, site, specs, out_dir / "raw", catalogue, data_dir)

    step("running baseline agents with tambench run, each run in the sandbox")
    n_runs = run_agents(views, runs_dir, catalogue, data_dir, con)
    con.print(f"{n_runs} runs by {len(AGENT_RUNS)} agents over {len(views)} tasks")

    step("grading every run: validation, metric, rank on the leaderboard, medals, aggregates")
    paths = _grade(con, runs_dir, catalogue, data_dir, report_dir, executor)
    seconds = time.perf_counter() - start
    con.print(f"\n[bold]report:[/] {paths['html'].resolve()}", highlight=False)
    con.print(f"grades: {paths['json'].resolve()} and {paths['csv'].name}; "
              f"catalogue: {catalogue.resolve()}; finished in {seconds:.1f} s", highlight=False)
    return DemoResult(out_dir, catalogue, data_dir, runs_dir, paths["html"], paths["json"],
                      seconds)


def _acquire(con: Console, site: Any, catalogue: Path, concurrency: int) -> list[TaskSpec]:
    """Acquire the demo competitions into ``catalogue`` with difficulty tiers; every one must be
    complete."""
    acquired = acquire_competitions(
        list(DEMO_REFS), catalogue, base_urls=site.base_urls, concurrency=concurrency
    )
    store_difficulty(catalogue, catalogue_difficulties(catalogue))
    rows: list[list[Any]] = []
    specs: list[TaskSpec] = []
    for r in acquired.results:
        spec = load_taskspec(Path(r.folder) / "task.json") if r.folder else None
        metric = spec.grading.metric if spec and spec.grading else "-"
        tier = spec.difficulty.tier.value if spec and spec.difficulty else "-"
        rows.append([r.task_id or r.ref, r.status, len(r.pages), r.leaderboard_rows, metric,
                     tier])
        if r.status != "complete" or spec is None:
            raise TambenchError(f"demo competition {r.ref} was not acquired: {r.errors}")
        specs.append(spec)
    show_table(con, [Column("task", key=True), Column("status", priority=5),
                     Column("pages", priority=2, align="right"),
                     Column("leaderboard rows", priority=3, align="right"),
                     Column("metric", priority=4), Column("tier (paper)", priority=4)], rows)
    return specs


def _prepare(con: Console, site: Any, specs: list[TaskSpec], raw_dir: Path, catalogue: Path,
             data_dir: Path) -> list[_TaskView]:
    """Download each task's training data, split it with hidden labels and audit the split."""
    views: list[_TaskView] = []
    rows: list[list[Any]] = []
    for spec in specs:
        raw = raw_dir / spec.platform / spec.slug
        _download(site.download_url(spec.slug, "train.csv", spec.platform), raw / "train.csv")
        n_rows = len(_read_csv(raw / "train.csv")[1])
        split = suggest_split_spec(spec, n_rows=n_rows)
        if split is None:
            raise TambenchError(f"demo task {spec.id} cannot be split by rows")
        spec = spec.model_copy(update={"split": split})
        save_taskspec(spec, catalogue / spec.platform / spec.slug / "task.json")
        result = prepare_task(spec, raw, data_dir, grader=grade_submission,
                              pages=PageOptions(acquired=[catalogue]))
        counts = result.report.rows
        audit = "passed" if result.audit is not None and result.audit.passed else "FAILED"
        rows.append([spec.id, f"{split.strategy} {split.test_size:.0%}", counts.train,
                     counts.test, audit])
        views.append(_TaskView(spec, result.task_dir / "public"))
    show_table(con, [Column("task", key=True), Column("split", priority=3),
                     Column("train rows", priority=2, align="right"),
                     Column("test rows", priority=2, align="right"),
                     Column("leakage audit", priority=5)], rows)
    return views


def _grade(con: Console, runs_dir: Path, catalogue: Path, data_dir: Path, report_dir: Path,
           executor: str) -> dict[str, Path]:
    """Grade every run, write grades.json, grades.csv and the report, print the tables."""
    pool = get_executor(executor, max_workers=2)
    try:
        report = grade_runs(runs_dir, catalogue=catalogue, data_dir=data_dir, executor=pool)
    finally:
        pool.shutdown()
    paths = write_batch_outputs(report, report_dir)
    _print_runs(con, report)
    _print_agents(con, report)
    return paths


def show_table(con: Console, columns: list[Column], rows: list[list[Any]]) -> None:
    """A table through the one renderer: fitted to a terminal, plain columns elsewhere."""
    text = render_table(columns, rows, width=con.width if con.is_terminal else None)
    con.print(text, end="", markup=False, highlight=False, soft_wrap=True)


def _stepper(con: Console, start: float) -> Callable[[str], None]:
    counter = iter(range(1, 100))

    def step(text: str) -> None:
        con.print(f"\n[bold cyan]{next(counter)}.[/] {text} "
                  f"[dim](t={time.perf_counter() - start:.1f}s)[/]", highlight=False)

    return step


def _fmt(v: Any, spec: str = ".4f") -> str:
    return "-" if v is None else format(v, spec)


def _print_runs(con: Console, report: Any) -> None:
    """Per task: each agent's runs (score, best rank, medals); then every refused run's reason."""
    by_task: dict[str, list[Any]] = {}
    for r in report.rows:
        by_task.setdefault(r.task, []).append(r)
    for task, rows in sorted(by_task.items()):
        n_teams = next((r.n_teams for r in rows if r.n_teams), None)
        con.print(f"{task} ({rows[0].metric}; {n_teams} teams on the leaderboard)",
                  markup=False, highlight=False)
        cells: list[list[Any]] = []
        agents: dict[str, list[Any]] = {}
        for r in rows:
            agents.setdefault(r.agent, []).append(r)
        for agent, rs in sorted(agents.items()):
            valid = [r for r in rs if r.valid_submission]
            scores = ", ".join(_fmt(r.score) for r in valid) or "-"
            best = min((r.rank for r in valid if r.rank is not None), default=None)
            medals = ", ".join(
                "gold" if r.gold_medal else "silver" if r.silver_medal else "bronze"
                for r in valid if r.any_medal
            ) or "-"
            cells.append([agent, f"{len(valid)}/{len(rs)}", scores, best, medals])
        show_table(con, [Column("agent", key=True), Column("valid", priority=5),
                         Column("scores", priority=1, min_width=10),
                         Column("best rank", priority=4, align="right"),
                         Column("medals", priority=3)], cells)
    refused = [r for r in report.rows if not r.valid_submission]
    if refused:
        con.print("[bold]refused runs[/] (what the validator told the agent):")
    for r in refused:
        first = r.errors[0] if r.errors else r.status
        more = f" (+{len(r.errors) - 1} more)" if len(r.errors) > 1 else ""
        con.print(f"  {r.agent}/{r.task}/{r.run}: {r.status}: {first}{more}",
                  highlight=False, markup=False)


def _print_agents(con: Console, report: Any) -> None:
    con.print("per agent (rank %: modality-weighted, lower is better)", markup=False,
              highlight=False)
    rows = []
    for a in report.agents:
        rank = a.modality_weighted_rank_pct
        rows.append([a.agent, a.total_runs, f"{a.made_submission_rate:.0%}",
                     f"{a.valid_submission_rate.value:.0%}", a.total_medals,
                     a.total_above_median, None if rank is None else f"{rank.value:.1f}"])
    show_table(con, [Column("agent", key=True), Column("runs", priority=4, align="right"),
                     Column("submitted", priority=2, align="right"),
                     Column("valid", priority=3, align="right"),
                     Column("medals", priority=5, align="right"),
                     Column(">median", priority=1, align="right"),
                     Column("weighted rank %", priority=6, align="right")], rows)
    con.print(report.aggregation_rule, markup=False, highlight=False)
