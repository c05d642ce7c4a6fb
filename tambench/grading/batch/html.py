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


def _pct(e: Estimate | None) -> list[Any]:
    """[value, se, [ci low, ci high]] in percent (None where unknown)."""
    if e is None:
        return [None, None, None]
    ci = None if e.ci_low is None or e.ci_high is None else [100 * e.ci_low, 100 * e.ci_high]
    return [100 * e.value, None if e.se is None else 100 * e.se, ci]


def _rank(e: Estimate | None) -> list[Any]:
    """[value, se, [ci low, ci high]] as they are (None where unknown)."""
    if e is None:
        return [None, None, None]
    ci = None if e.ci_low is None or e.ci_high is None else [e.ci_low, e.ci_high]
    return [e.value, e.se, ci]


def _col(key: str, label: str, kind: str, *, group: str | None = None, hidden: bool = False,
         wrap: bool = False, tip: str | None = None, wide: bool = False) -> list[Any]:
    """A table column for the page's script: key, header, kind (text, num, pct, ci, bool),
    hidden, the group header above it, whether its cells may wrap (free text), the key of a
    hidden column shown as each cell's tooltip (a standard error, say), and whether the column
    is a less important one (class ``wide``; every column is shown, and a table wider than
    the window scrolls in its own frame)."""
    return [key, label, kind, hidden, group, wrap, tip, wide]


def agent_columns(ci: str) -> list[list[Any]]:
    """The Agents table: each estimate's value and interval under one header, its standard
    error as the value's tooltip; the medal split under one header."""
    return [
        _col("agent", "agent", "text"), _col("runs", "runs", "num"),
        _col("failed", "failed", "num"),
        _col("valid", "valid %", "pct", tip="valid_se"),
        _col("valid_se", "valid % ± se", "pct", hidden=True),
        _col("rank", "value", "pct", group="weighted rank %", tip="rank_se"),
        _col("rank_se", "weighted rank % ± se", "pct", hidden=True),
        _col("rank_ci", ci, "ci", group="weighted rank %"),
        _col("mean_rank", "mean rank %", "pct", hidden=True),
        _col("tasks_ranked", "ranked tasks", "num", wide=True),
        _col("medal", "value", "pct", group="any medal %", tip="medal_se"),
        _col("medal_se", "any medal % ± se", "pct", hidden=True),
        _col("medal_ci", ci, "ci", group="any medal %"),
        _col("gold", "gold", "pct", group="medals %"),
        _col("silver", "silver", "pct", group="medals %"),
        _col("bronze", "bronze", "pct", group="medals %"),
        _col("above_median", "above median %", "pct"),
        _col("medal_at_k", "any-medal@k", "text", wide=True),
        _col("constraints", "constraint pass rate", "num"),
    ]


def _agent_row(a: AgentSummary) -> list[Any]:
    valid = _pct(a.valid_submission_rate)
    top = a.any_medal_at_k[-1] if a.any_medal_at_k else None
    at_k = f"@{top.k}: {100 * top.estimate.value:.1f}" if top else None
    return [a.agent, a.total_runs, a.total_failed, valid[0], valid[1],
            *_rank(a.modality_weighted_rank_pct), _rank(a.mean_rank_pct)[0], a.n_tasks_ranked,
            *_pct(a.any_medal_rate), _pct(a.gold_medal_rate)[0], _pct(a.silver_medal_rate)[0],
            _pct(a.bronze_medal_rate)[0], _pct(a.above_median_rate)[0], at_k,
            a.constraint_pass_rate]


TASK_COLUMNS = [
    _col("agent", "agent", "text"), _col("task", "task", "text"),
    _col("metric", "metric", "text"),
    _col("modality", "modality", "text"), _col("tier", "tier", "text", wide=True),
    _col("runs", "runs", "num"), _col("valid", "valid", "num"),
    _col("failed", "failed", "num", wide=True),
    _col("score_mean", "score", "num", tip="score_se"),
    _col("score_se", "score ± se", "num", hidden=True),
    _col("rank_pct", "rank %", "pct", tip="rank_pct_se"),
    _col("rank_pct_se", "rank % ± se", "pct", hidden=True),
    _col("medals", "medals", "num", wide=True), _col("gold", "gold", "num", hidden=True),
    _col("leaderboard", "leaderboard", "bool", hidden=True),
]


def comparison_columns(ci: str) -> list[list[Any]]:
    """Paired comparisons: the difference with its interval (its se as the tooltip)."""
    return [
        _col("a", "agent a", "text"), _col("b", "agent b", "text"),
        _col("tasks", "shared tasks", "num"),
        _col("diff", "value", "pct", group="a - b (rank %)", tip="se"),
        _col("se", "a - b ± se", "pct", hidden=True),
        _col("ci", ci, "ci", group="a - b (rank %)"), _col("better", "better", "text"),
    ]


RUN_COLUMNS = [
    _col("agent", "agent", "text"), _col("task", "task", "text"), _col("run", "run", "text"),
    _col("status", "status", "text"), _col("score", "score", "num"),
    _col("rank", "rank", "num", wide=True), _col("rank_pct", "rank %", "pct"),
    _col("medal", "medal", "text"),
    _col("first", "first message", "text", wrap=True, wide=True),
    _col("error", "error", "text", hidden=True), _col("errors", "errors", "text", hidden=True),
    _col("warnings", "warnings", "text", hidden=True),
    _col("judge_note", "judge", "text", hidden=True),
    _col("submission_path", "submission", "text", hidden=True),
    _col("task_key", "task key", "text", hidden=True),
]


def _run_row(r: RunRow) -> list[Any]:
    first = r.error or (r.errors[0] if r.errors else None)
    return [r.agent, r.task, r.run, r.status.value, r.score, r.rank, r.rank_pct,
            r.medal_name() if r.any_medal is not None else "n/a", first, r.error, r.errors,
            r.warnings, r.judge_note, r.submission_path, task_key(r)]


def ordered_agents(report: BatchReport) -> list[AgentSummary]:
    """The agents by the headline number, the modality-weighted rank % (lower first; agents
    without one last), then by name."""
    def key(a: AgentSummary) -> tuple[bool, float, str]:
        rank = a.modality_weighted_rank_pct
        return (rank is None, rank.value if rank is not None else 0.0, a.agent)

    return sorted(report.agents, key=key)


def _matrix(report: BatchReport, agents: list[AgentSummary]) -> dict[str, Any]:
    keys = sorted({task_key(r) for r in report.rows})
    cells: list[list[Any]] = []
    for a in agents:
        by_key = {t.task_id or f"?{t.task}": t for t in a.tasks}
        row: list[Any] = []
        for k in keys:
            t = by_key.get(k)
            row.append(None if t is None else [t.rank_pct.mean if t.rank_pct else None,
                                               t.n_runs, t.n_valid, t.any_medals or 0])
        cells.append(row)
    return {"agents": [a.agent for a in agents], "tasks": keys, "cells": cells}


def report_data(report: BatchReport) -> dict[str, Any]:
    """Everything the page's script renders; agents by the headline number."""
    def spec(columns: list[Any], rows: list[list[Any]]) -> dict[str, Any]:
        return {"columns": [list(c) for c in columns], "rows": rows}

    agents = ordered_agents(report)
    ci = f"{report.aggregation.confidence:.0%} CI"
    metrics = {task_key(r): r.metric for r in report.rows if r.metric}
    tasks = [[a.agent, t.task_id or t.task, metrics.get(t.task_id or f"?{t.task}"), t.modality,
              t.tier, t.n_runs, t.n_valid,
              t.n_failed, t.score.mean if t.score else None, t.score.se if t.score else None,
              t.rank_pct.mean if t.rank_pct else None, t.rank_pct.se if t.rank_pct else None,
              t.any_medals, t.gold_medals, t.leaderboard] for a in agents for t in a.tasks]
    comparisons = [[c.agent_a, c.agent_b, c.n_tasks, *_rank(c.difference),
                    None if c.better is None else "a" if c.better == c.agent_a else "b"]
                   for c in report.comparisons]
    return {
        "agents": spec(agent_columns(ci), [_agent_row(a) for a in agents]),
        "tasks": spec(TASK_COLUMNS, tasks),
        "comparisons": spec(comparison_columns(ci), comparisons),
        "runs": spec(RUN_COLUMNS, [_run_row(r) for r in report.rows]),
        "matrix": _matrix(report, agents),
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
    agents = ordered_agents(report)
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
        "<h2>Agents</h2><p>By modality-weighted rank % (lower is better).</p>"
        "<div id=\"agents-table\"></div>"
        f"<noscript>{_static_agents(agents)}</noscript>"
        f"<h2>Figures</h2>{all_figures(agents, report.aggregation.bootstrap_samples > 0)}"
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
