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


def _svg(fig: Any, title: str, caption: str = "") -> str:
    import html
    import warnings

    buf = io.BytesIO()
    with warnings.catch_warnings():
        # Text is kept as text (svg.fonttype none): the reader's fonts draw any glyph that
        # matplotlib's own font lacks, so its "Glyph missing" warning says nothing here.
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font")
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    uri = "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    note = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return f'<figure><img alt="{html.escape(title)}" src="{uri}">{note}</figure>'


def _labels(ax: Any, names: list[str]) -> None:
    ax.set_xticks(range(len(names)))
    rotation = 20 if len(names) <= 12 else 60
    ax.set_xticklabels([figure_label(n) for n in names], rotation=rotation, ha="right")


def _legend(ax: Any) -> None:
    """The legend beside the axes, never over a bar; ``legend`` in the SVG."""
    legend = ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0),
                       borderaxespad=0.0, frameon=False)
    legend.set_gid("legend")


def _bars(bars: Any, name: str) -> None:
    for i, patch in enumerate(bars.patches):
        patch.set_gid(f"bar-{name}-{i}")


def _intervals(ax: Any, xs: list[float], tops: list[float], estimates: list[Estimate | None],
               scale: float = 1.0) -> tuple[list[int], list[int]]:
    """Error bars for the estimates whose interval has a width, drawn from ``tops``; returns
    the indices without an interval and those whose interval has no width. No bar is drawn
    for either: a bar of zero length would look like a certainty the runs do not give."""
    drawn: list[tuple[int, float, float]] = []  # index, below, above
    flat: list[int] = []
    for i, e in enumerate(estimates):
        if e is None or e.ci_low is None or e.ci_high is None:
            continue
        if scale * (e.ci_high - e.ci_low) > 1e-9:
            drawn.append((i, max(0.0, scale * (e.value - e.ci_low)),
                          max(0.0, scale * (e.ci_high - e.value))))
        else:
            flat.append(i)
    if drawn:
        bars = ax.errorbar([xs[i] for i, _, _ in drawn], [tops[i] for i, _, _ in drawn],
                           yerr=[[lo for _, lo, _ in drawn], [hi for _, _, hi in drawn]],
                           fmt="none", ecolor="#333", capsize=3)
        bars.lines[2][0].set_gid("errorbar")
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
    title = "Modality-weighted rank % (lower is better), with intervals"
    with _figure(len(agents)) as (fig, ax):
        estimates = [a.modality_weighted_rank_pct for a in agents]
        values = [e.value if e else 0.0 for e in estimates]
        xs = [float(i) for i in range(len(agents))]
        _bars(ax.bar(xs, values, color="#4c78a8"), "rank")
        missing = _intervals(ax, xs, values, estimates)
        _labels(ax, [a.agent for a in agents])
        ax.set_ylabel("rank %")
        ax.set_ylim(0, 100)
        ax.set_title(title)
        return _svg(fig, title, no_interval_note(agents, missing, bootstrap))


def medal_figure(agents: list[AgentSummary], bootstrap: bool = True) -> str:
    """Medal rates per agent (stacked gold, silver, bronze), with the any-medal interval."""
    title = "Medal rate (% of runs on tasks with a leaderboard)"
    with _figure(len(agents)) as (fig, ax):
        xs = [float(i) for i in range(len(agents))]
        bottom = [0.0] * len(agents)
        for label, attr, colour in (("gold", "gold_medal_rate", "#d4af37"),
                                    ("silver", "silver_medal_rate", "#a8a9ad"),
                                    ("bronze", "bronze_medal_rate", "#cd7f32")):
            vals = [100 * getattr(a, attr).value if getattr(a, attr) else 0.0 for a in agents]
            _bars(ax.bar(xs, vals, bottom=bottom, label=label, color=colour), label)
            bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        missing = _intervals(ax, xs, bottom, [a.any_medal_rate for a in agents], scale=100)
        _labels(ax, [a.agent for a in agents])
        ax.set_ylabel("% of runs")
        ax.set_title(title)
        _legend(ax)
        return _svg(fig, title, no_interval_note(agents, missing, bootstrap))


def grouped_figure(title: str, groups: list[str], series: dict[str, list[float | None]]) -> str:
    """Bars per group (a modality or tier), one colour per agent, the legend beside."""
    with _figure(len(groups) * max(1, len(series)) // 2 + 1) as (fig, ax):
        n = max(1, len(series))
        width = 0.8 / n
        for k, (name, values) in enumerate(series.items()):
            xs = [i + (k - (n - 1) / 2) * width for i in range(len(groups))]
            _bars(ax.bar(xs, [v if v is not None else 0.0 for v in values], width=width,
                         label=figure_label(name)), f"s{k}")
        _labels(ax, groups)
        ax.set_ylabel("rank %")
        ax.set_ylim(0, 100)
        ax.set_title(title)
        if 1 < len(series) <= 20:
            _legend(ax)
        return _svg(fig, title)


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
