"""The batch report as one self-contained HTML page, to explore.

No network: figures are inlined SVG, the script and styles are inlined, the data is one JSON
block (escaped so that no value can close it). Tables are sortable, filterable and paginated in
the browser, so 10,000 runs stay usable; a click on an agent x task cell of the matrix lists
that cell's runs and their messages. Every value reaches the page as text (``textContent`` in
the script, ``html.escape`` in the markup), never as markup. Without JavaScript the page still
shows the agents' summary, the rule and the figures.
"""

from __future__ import annotations

import html
from importlib import resources
from typing import Any

from tambench.grading.batch.figures import all_figures
from tambench.grading.batch.models import AgentSummary, BatchReport, Estimate, RunRow
from tambench.grading.batch.summary import task_key
from tambench.grading.sanitize import json_for_script

#: Warnings listed on the page (the rest are counted).
MAX_WARNINGS = 50


def _asset(name: str) -> str:
    return resources.files("tambench.grading.batch").joinpath("assets", name).read_text("utf-8")


def _pct(e: Estimate | None) -> list[float | None]:
    if e is None:
        return [None, None, None, None]
    return [100 * e.value, None if e.se is None else 100 * e.se,
            None if e.ci_low is None else 100 * e.ci_low,
            None if e.ci_high is None else 100 * e.ci_high]


def _rank(e: Estimate | None) -> list[float | None]:
    if e is None:
        return [None, None, None, None]
    return [e.value, e.se, e.ci_low, e.ci_high]


AGENT_COLUMNS = [
    ("agent", "agent", "text"), ("runs", "runs", "num"), ("failed", "failed", "num"),
    ("valid", "valid %", "pct"), ("valid_se", "± se", "pct"),
    ("rank", "weighted rank %", "pct"), ("rank_se", "± se", "pct"),
    ("rank_low", "CI low", "pct"), ("rank_high", "CI high", "pct"),
    ("mean_rank", "mean rank %", "pct"), ("tasks_ranked", "ranked tasks", "num"),
    ("medal", "any medal %", "pct"), ("medal_se", "± se", "pct"),
    ("medal_low", "CI low", "pct"), ("medal_high", "CI high", "pct"),
    ("gold", "gold %", "pct"), ("silver", "silver %", "pct"), ("bronze", "bronze %", "pct"),
    ("above_median", "above median %", "pct"), ("medal_at_k", "any-medal@k (largest k)", "text"),
    ("constraints", "constraint pass rate", "num"),
]


def _agent_row(a: AgentSummary) -> list[Any]:
    valid = _pct(a.valid_submission_rate)
    medal = _pct(a.any_medal_rate)
    top = a.any_medal_at_k[-1] if a.any_medal_at_k else None
    at_k = (f"@{top.k}: {100 * top.estimate.value:.1f}% over {top.n_tasks} task(s)"
            if top else None)
    return [a.agent, a.total_runs, a.total_failed, valid[0], valid[1],
            *_rank(a.modality_weighted_rank_pct), _rank(a.mean_rank_pct)[0], a.n_tasks_ranked,
            *medal, _pct(a.gold_medal_rate)[0], _pct(a.silver_medal_rate)[0],
            _pct(a.bronze_medal_rate)[0], _pct(a.above_median_rate)[0], at_k,
            a.constraint_pass_rate]


TASK_COLUMNS = [
    ("agent", "agent", "text"), ("task", "task", "text"), ("task_id", "task id", "text"),
    ("modality", "modality", "text"), ("tier", "tier", "text"), ("runs", "runs", "num"),
    ("valid", "valid", "num"), ("failed", "failed", "num"),
    ("score_mean", "score mean", "num"), ("score_se", "± se", "num"),
    ("rank_pct", "rank % mean", "pct"), ("rank_pct_se", "± se", "pct"),
    ("medals", "medals", "num"), ("gold", "gold", "num"), ("leaderboard", "leaderboard", "bool"),
]

COMPARISON_COLUMNS = [
    ("a", "agent a", "text"), ("b", "agent b", "text"), ("tasks", "shared tasks", "num"),
    ("diff", "a - b (rank %)", "pct"), ("se", "± se", "pct"), ("low", "CI low", "pct"),
    ("high", "CI high", "pct"), ("better", "better", "text"),
]

RUN_COLUMNS = [
    ("agent", "agent", "text", False), ("task", "task", "text", False),
    ("run", "run", "text", False), ("status", "status", "text", False),
    ("score", "score", "num", False), ("rank", "rank", "num", False),
    ("rank_pct", "rank %", "pct", False), ("medal", "medal", "text", False),
    ("first", "first message", "text", False), ("error", "error", "text", True),
    ("errors", "errors", "text", True), ("warnings", "warnings", "text", True),
    ("judge_note", "judge", "text", True), ("submission_path", "submission", "text", True),
    ("task_key", "task key", "text", True),
]


def _run_row(r: RunRow) -> list[Any]:
    first = r.error or (r.errors[0] if r.errors else None)
    return [r.agent, r.task, r.run, r.status.value, r.score, r.rank, r.rank_pct,
            r.medal_name() if r.any_medal is not None else "unknown", first, r.error, r.errors,
            r.warnings, r.judge_note, r.submission_path, task_key(r)]


def _matrix(report: BatchReport) -> dict[str, Any]:
    keys = sorted({task_key(r) for r in report.rows})
    agents = [a.agent for a in report.agents]
    cells: list[list[Any]] = []
    for a in report.agents:
        by_key = {t.task_id or f"?{t.task}": t for t in a.tasks}
        row: list[Any] = []
        for k in keys:
            t = by_key.get(k)
            row.append(None if t is None else [t.rank_pct.mean if t.rank_pct else None,
                                               t.n_runs, t.n_valid, t.any_medals or 0])
        cells.append(row)
    return {"agents": agents, "tasks": keys, "cells": cells}


def report_data(report: BatchReport) -> dict[str, Any]:
    """Everything the page's script renders."""
    def spec(columns: list[Any], rows: list[list[Any]]) -> dict[str, Any]:
        return {"columns": [list(c) for c in columns], "rows": rows}

    tasks = [[a.agent, t.task, t.task_id, t.modality, t.tier, t.n_runs, t.n_valid, t.n_failed,
              t.score.mean if t.score else None, t.score.se if t.score else None,
              t.rank_pct.mean if t.rank_pct else None, t.rank_pct.se if t.rank_pct else None,
              t.any_medals, t.gold_medals, t.leaderboard] for a in report.agents for t in a.tasks]
    comparisons = [[c.agent_a, c.agent_b, c.n_tasks, *_rank(c.difference), c.better]
                   for c in report.comparisons]
    return {
        "agents": spec(AGENT_COLUMNS, [_agent_row(a) for a in report.agents]),
        "tasks": spec(TASK_COLUMNS, tasks),
        "comparisons": spec(COMPARISON_COLUMNS, comparisons),
        "runs": spec(RUN_COLUMNS, [_run_row(r) for r in report.rows]),
        "matrix": _matrix(report),
    }


def _static_agents(agents: list[AgentSummary]) -> str:
    """The agents' headline numbers as plain HTML (shown without JavaScript)."""
    head = "".join(f"<th>{h}</th>" for h in ("agent", "runs", "valid %", "weighted rank %",
                                             "any medal %"))
    body = []
    for a in agents:
        rank = a.modality_weighted_rank_pct
        medal = a.any_medal_rate
        cells = [a.agent, str(a.total_runs), f"{100 * a.valid_submission_rate.value:.1f}",
                 "" if rank is None else f"{rank.value:.1f}",
                 "" if medal is None else f"{100 * medal.value:.1f}"]
        body.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _warnings(warnings: list[str]) -> str:
    if not warnings:
        return ""
    items = "".join(f"<li>{html.escape(w)}</li>" for w in warnings[:MAX_WARNINGS])
    more = len(warnings) - MAX_WARNINGS
    extra = f"<li>... and {more} more (see grades.json)</li>" if more > 0 else ""
    return f'<ul class="warnings">{items}{extra}</ul>'


def batch_to_html(report: BatchReport) -> str:
    """Render the batch report as one self-contained HTML page."""
    esc = html.escape
    n_tasks = len({task_key(r) for r in report.rows})
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width\"><title>tambench grades</title>"
        f"<style>{_asset('report.css')}</style></head><body>"
        "<h1>tambench grades</h1>"
        f"<p class=\"meta\">Runs: <code>{esc(report.runs_dir)}</code>; created "
        f"{esc(report.created_at.isoformat())}; {len(report.rows)} runs, "
        f"{len(report.agents)} agents, {n_tasks} tasks; {report.n_failed} could not be graded."
        "</p>"
        f"<p class=\"rule\">{esc(report.aggregation_rule)} Rank % = 100 x rank / leaderboard "
        "size: lower is better.</p>"
        f"{_warnings(report.warnings)}"
        "<h2>Agents</h2><div id=\"agents-table\"></div>"
        f"<noscript>{_static_agents(report.agents)}</noscript>"
        f"<h2>Figures</h2>{all_figures(report.agents)}"
        "<h2>Agents compared (paired, over shared tasks)</h2><div id=\"comparisons-table\">"
        f"{'' if report.comparisons else '<p>No two agents share a ranked task.</p>'}</div>"
        "<h2>Agent x task</h2><p>Mean rank % of each agent on each task; click a cell for its "
        "runs and messages.</p><div id=\"matrix\"></div><div id=\"drill\" hidden></div>"
        "<h2>Tasks</h2><div id=\"tasks-table\"></div>"
        "<h2>Runs</h2><p>Click a run for its messages.</p><div id=\"runs-table\"></div>"
        "<script type=\"application/json\" id=\"report-data\">"
        f"{json_for_script(report_data(report))}</script>"
        f"<script>{_asset('report.js')}</script>"
        "</body></html>\n"
    )
