"""Figures of the batch report: matplotlib SVG, inlined as ``data:`` URIs.

Names are drawn as plain text: mathtext is switched off (``$...$`` in an agent's name is not
TeX), labels are printable and short (:func:`~tambench.grading.sanitize.figure_label`), and the
SVG writer escapes them for XML. A fixed hash salt and no date keep the bytes reproducible.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tambench.grading.batch.models import AgentSummary, Estimate
from tambench.grading.sanitize import figure_label

RC: dict[str, Any] = {"svg.hashsalt": "tambench", "svg.fonttype": "none", "text.parse_math": False,
      "text.usetex": False}
_MAX_WIDTH = 30.0


@contextmanager
def _figure(n_groups: int) -> Iterator[tuple[Any, Any]]:
    from tambench.config import env_dir_fallback

    env_dir_fallback("MPLCONFIGDIR", "matplotlib")  # matplotlib needs one; no home: a temporary
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(RC):  # type: ignore[arg-type]
        width = min(_MAX_WIDTH, max(4.0, 0.6 * n_groups + 2.5))
        fig, ax = plt.subplots(figsize=(width, 3.4))
        try:
            yield fig, ax
        finally:
            plt.close(fig)


def _svg(fig: Any, title: str) -> str:
    import warnings

    buf = io.BytesIO()
    with warnings.catch_warnings():
        # Text is kept as text (svg.fonttype none): the reader's fonts draw any glyph that
        # matplotlib's own font lacks, so its "Glyph missing" warning says nothing here.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font")
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    uri = "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    import html

    return f'<figure><img alt="{html.escape(title)}" src="{uri}"></figure>'


def _labels(ax: Any, names: list[str]) -> None:
    ax.set_xticks(range(len(names)))
    rotation = 20 if len(names) <= 12 else 60
    ax.set_xticklabels([figure_label(n) for n in names], rotation=rotation, ha="right")


def _errors(estimates: list[Estimate | None]) -> tuple[list[float], list[list[float]] | None]:
    values = [e.value if e else 0.0 for e in estimates]
    if not any(e and e.ci_low is not None for e in estimates):
        return values, None
    low = [max(0.0, e.value - e.ci_low) if e and e.ci_low is not None else 0.0 for e in estimates]
    high = [max(0.0, e.ci_high - e.value) if e and e.ci_high is not None else 0.0
            for e in estimates]
    return values, [low, high]


def rank_figure(agents: list[AgentSummary]) -> str:
    """Each agent's modality-weighted rank % with its bootstrap interval."""
    title = "Modality-weighted rank % (lower is better), with intervals"
    with _figure(len(agents)) as (fig, ax):
        values, err = _errors([a.modality_weighted_rank_pct for a in agents])
        ax.bar(range(len(agents)), values, yerr=err, capsize=3, color="#4c78a8")
        _labels(ax, [a.agent for a in agents])
        ax.set_ylabel("rank %")
        ax.set_ylim(0, 100)
        ax.set_title(title)
        return _svg(fig, title)


def medal_figure(agents: list[AgentSummary]) -> str:
    """Medal rates per agent (stacked gold, silver, bronze), with the any-medal interval."""
    title = "Medal rate (% of runs on tasks with a leaderboard)"
    with _figure(len(agents)) as (fig, ax):
        bottom = [0.0] * len(agents)
        for label, attr, colour in (("gold", "gold_medal_rate", "#d4af37"),
                                    ("silver", "silver_medal_rate", "#a8a9ad"),
                                    ("bronze", "bronze_medal_rate", "#cd7f32")):
            vals = [100 * getattr(a, attr).value if getattr(a, attr) else 0.0 for a in agents]
            ax.bar(range(len(agents)), vals, bottom=bottom, label=label, color=colour)
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        anym = [a.any_medal_rate for a in agents]
        _, err = _errors(anym)
        if err is not None:
            ax.errorbar(range(len(agents)), bottom, yerr=[[100 * v for v in err[0]],
                                                          [100 * v for v in err[1]]],
                        fmt="none", ecolor="#333", capsize=3)
        _labels(ax, [a.agent for a in agents])
        ax.set_ylabel("% of runs")
        ax.set_title(title)
        ax.legend(fontsize="small")
        return _svg(fig, title)


def grouped_figure(title: str, groups: list[str], series: dict[str, list[float | None]]) -> str:
    """Bars per group (a modality or tier), one colour per agent."""
    with _figure(len(groups) * max(1, len(series)) // 2 + 1) as (fig, ax):
        n = max(1, len(series))
        width = 0.8 / n
        for k, (name, values) in enumerate(sorted(series.items())):
            xs = [i + (k - (n - 1) / 2) * width for i in range(len(groups))]
            ax.bar(xs, [v if v is not None else 0.0 for v in values], width=width,
                   label=figure_label(name))
        _labels(ax, groups)
        ax.set_ylabel("rank %")
        ax.set_ylim(0, 100)
        ax.set_title(title)
        if 1 < len(series) <= 20:
            ax.legend(fontsize="small")
        return _svg(fig, title)


def all_figures(agents: list[AgentSummary]) -> str:
    """Every figure of the report, as HTML."""
    if not agents:
        return ""
    out = [rank_figure(agents), medal_figure(agents)]
    for what, attr in (("modality", "rank_pct_by_modality"), ("difficulty", "rank_pct_by_tier")):
        groups = sorted({g for a in agents for g in getattr(a, attr)})
        if groups:
            out.append(grouped_figure(
                f"Rank % by {what} (lower is better)", groups,
                {a.agent: [getattr(a, attr).get(g) for g in groups] for a in agents}))
    return "".join(out)
