"""Figures of the batch report: SVG bar charts (:mod:`~tambench.grading.batch.svgbars`),
inlined as ``data:`` URIs.

Names are drawn as plain text: labels are printable and short
(:func:`~tambench.grading.sanitize.figure_label`) and escaped for XML, never read as markup or
TeX. The bytes depend on the report alone, so they are reproducible.
"""

from __future__ import annotations

import base64
import html

from tambench.grading.batch.models import AgentSummary, Estimate
from tambench.grading.batch.svgbars import Bar, BarChart, ErrorBar
from tambench.grading.sanitize import figure_label

_MAX_WIDTH_PX = 2880.0
#: Colours of the agents in the grouped figures, in order (then repeated).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")


def _width(n_groups: int) -> float:
    return min(_MAX_WIDTH_PX, max(384.0, 57.6 * n_groups + 240.0))


def _svg(chart: BarChart, caption: str = "") -> str:
    uri = "data:image/svg+xml;base64," + base64.b64encode(
        chart.svg().encode("utf-8")).decode("ascii")
    note = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return f'<figure><img alt="{html.escape(chart.title)}" src="{uri}">{note}</figure>'


def _intervals(chart: BarChart, tops: list[float], estimates: list[Estimate | None],
               scale: float = 1.0) -> tuple[list[int], list[int]]:
    """Error bars for the estimates whose interval has a width, drawn from ``tops``; returns
    the indices without an interval and those whose interval has no width. No bar is drawn
    for either: a bar of zero length would look like a certainty the runs do not give."""
    flat: list[int] = []
    for i, e in enumerate(estimates):
        if e is None or e.ci_low is None or e.ci_high is None:
            continue
        if scale * (e.ci_high - e.ci_low) > 1e-9:
            chart.errors.append(ErrorBar(
                float(i), tops[i] - max(0.0, scale * (e.value - e.ci_low)),
                tops[i] + max(0.0, scale * (e.ci_high - e.value))))
        else:
            flat.append(i)
    none = [i for i, e in enumerate(estimates)
            if e is not None and (e.ci_low is None or e.ci_high is None)]
    return none, flat


def no_interval_note(agents: list[AgentSummary], missing: tuple[list[int], list[int]],
                     bootstrap: bool) -> str:
    """Why some agents have no error bar (none is drawn for them)."""
    def names(indices: list[int]) -> str:
        shown = [figure_label(agents[i].agent) for i in indices[:10]]
        return ", ".join(shown) + (" ..." if len(indices) > 10 else "")

    none, flat = missing
    notes = []
    if none:
        why = ("one run per task, so there is nothing to resample" if bootstrap
               else "intervals are off (--bootstrap 0)")
        notes.append(f"No error bar for {names(none)}: {why}.")
    if flat:
        notes.append(f"No error bar for {names(flat)}: every resample gave the same value "
                     "(an interval of zero width).")
    return " ".join(notes)


def rank_figure(agents: list[AgentSummary], bootstrap: bool = True) -> str:
    """Each agent's modality-weighted rank % with its bootstrap interval (none drawn, and the
    caption says why, for an agent without one)."""
    chart = BarChart("Modality-weighted rank % (lower is better), with intervals",
                     [figure_label(a.agent) for a in agents], ylabel="rank %", ymax=100.0,
                     width_px=_width(len(agents)))
    estimates = [a.modality_weighted_rank_pct for a in agents]
    values = [e.value if e else 0.0 for e in estimates]
    chart.bars = [Bar(float(i), v, "#4c78a8", f"bar-rank-{i}") for i, v in enumerate(values)]
    missing = _intervals(chart, values, estimates)
    return _svg(chart, no_interval_note(agents, missing, bootstrap))


def medal_figure(agents: list[AgentSummary], bootstrap: bool = True) -> str:
    """Medal rates per agent (stacked gold, silver, bronze), with the any-medal interval."""
    chart = BarChart("Medal rate (% of runs on tasks with a leaderboard)",
                     [figure_label(a.agent) for a in agents], ylabel="% of runs", ymax=100.0,
                     width_px=_width(len(agents)))
    bottom = [0.0] * len(agents)
    for label, attr, colour in (("gold", "gold_medal_rate", "#d4af37"),
                                ("silver", "silver_medal_rate", "#a8a9ad"),
                                ("bronze", "bronze_medal_rate", "#cd7f32")):
        vals = [100 * getattr(a, attr).value if getattr(a, attr) else 0.0 for a in agents]
        chart.bars += [Bar(float(i), v, colour, f"bar-{label}-{i}", bottom=bottom[i])
                       for i, v in enumerate(vals)]
        chart.legend.append((label, colour))
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    missing = _intervals(chart, bottom, [a.any_medal_rate for a in agents], scale=100)
    return _svg(chart, no_interval_note(agents, missing, bootstrap))


def grouped_figure(title: str, groups: list[str], series: dict[str, list[float | None]]) -> str:
    """Bars per group (a modality or tier), one colour per agent, the legend beside."""
    n = max(1, len(series))
    chart = BarChart(title, [figure_label(g) for g in groups], ylabel="rank %", ymax=100.0,
                     width_px=_width(len(groups) * n // 2 + 1))
    width = 0.8 / n
    for k, (name, values) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        chart.bars += [Bar(i + (k - (n - 1) / 2) * width, v if v is not None else 0.0, colour,
                           f"bar-s{k}-{i}", width=width) for i, v in enumerate(values)]
        if 1 < len(series) <= 20:
            chart.legend.append((figure_label(name), colour))
    return _svg(chart)


def all_figures(agents: list[AgentSummary], bootstrap: bool = True) -> str:
    """Every figure of the report, as HTML, agents in the order given."""
    if not agents:
        return ""
    out = [rank_figure(agents, bootstrap), medal_figure(agents, bootstrap)]
    for what, attr in (("modality", "rank_pct_by_modality"), ("difficulty", "rank_pct_by_tier")):
        groups = sorted({g for a in agents for g in getattr(a, attr)})
        if groups:
            out.append(grouped_figure(
                f"Rank % by {what} (lower is better)", groups,
                {a.agent: [getattr(a, attr).get(g) for g in groups] for a in agents}))
    return "".join(out)
