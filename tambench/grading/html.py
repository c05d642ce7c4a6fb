"""A self-contained HTML page for a batch report: tables and matplotlib figures inlined.

No network, no JavaScript: figures are SVG embedded as base64 ``data:`` URIs, every text from a
run (agent and task names, error messages) is HTML-escaped. Figures are made with a fixed SVG
hash salt and no date metadata, so the same report gives the same bytes.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tambench.grading.batch import BatchReport

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.9em}
th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.status-graded_valid{color:#176317}.status-error{color:#a00;font-weight:bold}
figure{display:inline-block;margin:0 1em 1em 0}
"""


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], numeric: set[int]) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, v in enumerate(row):
            cls = ' class="num"' if i in numeric else ""
            cells.append(f"<td{cls}>{_esc(_fmt(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _svg_data_uri(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _grouped_bars(
    title: str, groups: list[str], series: dict[str, list[float | None]], ylabel: str
) -> str:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"svg.hashsalt": "tambench", "svg.fonttype": "none"}):
        fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(groups) + 2), 3.2))
        n = max(1, len(series))
        width = 0.8 / n
        for k, (name, values) in enumerate(sorted(series.items())):
            xs = [i + (k - (n - 1) / 2) * width for i in range(len(groups))]
            ys = [v if v is not None else 0.0 for v in values]
            ax.bar(xs, ys, width=width, label=name)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, rotation=20, ha="right")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        if len(series) > 1:
            ax.legend(fontsize="small")
        uri = _svg_data_uri(fig)
        plt.close(fig)
    return f'<figure><img alt="{_esc(title)}" src="{uri}"></figure>'


def _medal_figure(report: BatchReport) -> str:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    agents = [a.agent for a in report.agents]
    with matplotlib.rc_context({"svg.hashsalt": "tambench", "svg.fonttype": "none"}):
        fig, ax = plt.subplots(figsize=(max(4.0, 1.0 * len(agents) + 2), 3.2))
        bottom = [0] * len(agents)
        for label, attr, colour in (
            ("gold", "total_gold_medals", "#d4af37"),
            ("silver", "total_silver_medals", "#a8a9ad"),
            ("bronze", "total_bronze_medals", "#cd7f32"),
        ):
            vals = [getattr(a, attr) for a in report.agents]
            ax.bar(range(len(agents)), vals, bottom=bottom, label=label, color=colour)
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        ax.set_xticks(range(len(agents)))
        ax.set_xticklabels(agents, rotation=20, ha="right")
        ax.set_ylabel("runs")
        ax.set_title("Medals")
        ax.legend(fontsize="small")
        uri = _svg_data_uri(fig)
        plt.close(fig)
    return f'<figure><img alt="Medals" src="{uri}"></figure>'


def batch_to_html(report: BatchReport) -> str:
    """Render the batch report as one self-contained HTML page."""
    agents = report.agents
    summary = _table(
        ["agent", "runs", "with submission", "valid", "made %", "valid %", "modality-weighted "
         "rank %", "mean rank %", "medals", "gold", "silver", "bronze", "above median",
         "errors", "constraint pass rate"],
        [[a.agent, a.total_runs, a.total_runs_with_submissions, a.total_valid_submissions,
          100 * a.made_submission_rate, 100 * a.valid_submission_rate,
          None if a.modality_weighted_rank_pct is None else 100 * a.modality_weighted_rank_pct,
          None if a.mean_rank_pct is None else 100 * a.mean_rank_pct,
          a.total_medals, a.total_gold_medals, a.total_silver_medals, a.total_bronze_medals,
          a.total_above_median, a.total_errors, a.constraint_pass_rate] for a in agents],
        numeric=set(range(1, 15)),
    )
    tiers = sorted({t for a in agents for t in a.rank_pct_by_tier})
    mods = sorted({m for a in agents for m in a.rank_pct_by_modality})
    by_tier = _table(
        ["agent", *tiers],
        [[a.agent, *(_pct(a.rank_pct_by_tier.get(t)) for t in tiers)] for a in agents],
        numeric=set(range(1, len(tiers) + 1)),
    )
    by_mod = _table(
        ["agent", *mods],
        [[a.agent, *(_pct(a.rank_pct_by_modality.get(m)) for m in mods)] for a in agents],
        numeric=set(range(1, len(mods) + 1)),
    )
    figures = ""
    if agents:
        if mods:
            figures += _grouped_bars(
                "Rank percentage by modality (lower is better)", mods,
                {a.agent: [_pct(a.rank_pct_by_modality.get(m)) for m in mods] for a in agents},
                "rank %",
            )
        if tiers:
            figures += _grouped_bars(
                "Rank percentage by difficulty (lower is better)", tiers,
                {a.agent: [_pct(a.rank_pct_by_tier.get(t)) for t in tiers] for a in agents},
                "rank %",
            )
        figures += _medal_figure(report)
    per_task = _table(
        ["agent", "task", "modality", "tier", "runs", "valid", "score mean", "score std",
         "score min", "score max", "rank % mean", "rank % std", "gold", "silver", "bronze"],
        [[a.agent, t.task, t.modality, t.tier, t.n_runs, t.n_valid,
          *(_stats(t.score)), _pct(t.percentile.mean if t.percentile else None),
          _pct(t.percentile.std if t.percentile else None),
          t.gold_medals, t.silver_medals, t.bronze_medals]
         for a in agents for t in a.tasks],
        numeric=set(range(4, 15)),
    )
    rows_html = []
    for r in report.rows:
        status_cls = "status-error" if r.status.startswith("error") else f"status-{r.status}"
        errs = "<br>".join(_esc(e) for e in r.errors)
        rows_html.append(
            "<tr>" + "".join(f"<td>{_esc(v)}</td>" for v in (r.agent, r.task, r.run))
            + f'<td class="{_esc(status_cls)}">{_esc(r.status)}</td>'
            + f'<td class="num">{_esc(_fmt(r.score))}</td>'
            + f'<td class="num">{_esc(_fmt(r.rank))}</td>'
            + f'<td class="num">{_esc(_fmt(_pct(r.percentile)))}</td>'
            + f"<td>{_esc(r.medal_name())}</td><td>{errs}</td></tr>"
        )
    runs_table = (
        "<table><thead><tr><th>agent</th><th>task</th><th>run</th><th>status</th><th>score"
        "</th><th>rank</th><th>rank %</th><th>medal</th><th>errors</th></tr></thead><tbody>"
        + "".join(rows_html) + "</tbody></table>"
    )
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>tambench grades</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<h1>tambench grades</h1><p>Runs folder: <code>{_esc(report.runs_dir)}</code>; "
        f"created {_esc(report.created_at.isoformat())}; {len(report.rows)} runs.</p>"
        f"<h2>Agents</h2>{summary}"
        f"<h2>Figures</h2>{figures}"
        f"<h2>Rank percentage by difficulty</h2>{by_tier}"
        f"<h2>Rank percentage by modality</h2>{by_mod}"
        f"<h2>Tasks</h2>{per_task}"
        f"<h2>Runs</h2>{runs_table}"
        "</body></html>\n"
    )


def _pct(v: float | None) -> float | None:
    return None if v is None else 100.0 * v


def _stats(s: Any) -> list[float | None]:
    if s is None:
        return [None, None, None, None]
    return [s.mean, s.std, s.min, s.max]
