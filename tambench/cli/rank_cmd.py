"""``tambench rank`` and ``tambench metrics``."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import typer


def rank(
    leaderboard: Path = typer.Option(..., "--leaderboard", help="Leaderboard file, any format."),
    score: float = typer.Option(..., "--score", help="The score to place."),
    metric: str | None = typer.Option(None, "--metric", help="Metric id (declares direction)."),
    higher_is_better: bool | None = typer.Option(
        None,
        "--higher-is-better/--lower-is-better",
        help="Direction, when no metric is given (overrides the metric's if both are).",
    ),
    keep_junk: bool = typer.Option(
        False,
        "--keep-junk",
        help="Rank against every finite row; by default junk rows (absurd outliers, "
        "placeholders, duplicates, out-of-range) are dropped first, as grading does.",
    ),
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
) -> None:
    """Place a score on a leaderboard: rank, n, percentile, medal, above_median, thresholds."""
    import warnings

    from tambench.cli._console import console, print_json
    from tambench.core.leaderboard import check_order, read_leaderboard
    from tambench.core.metrics import get_metric
    from tambench.core.rank import award_medal, rank_score
    from tambench.errors import ConfigError, LeaderboardOrderWarning

    m = get_metric(metric) if metric else None
    if higher_is_better is None:
        if m is None:
            raise ConfigError(
                "the direction is unknown: give --metric ID, or --higher-is-better / "
                "--lower-is-better"
            )
        higher_is_better = m.higher_is_better
    if not math.isfinite(score):
        from tambench.errors import InvalidScoreError

        raise InvalidScoreError(f"score {score!r} is not finite; it is never ranked")
    lb = read_leaderboard(leaderboard)
    if not keep_junk:
        lb = lb.clean(value_range=(m.lower_bound, m.upper_bound) if m else None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LeaderboardOrderWarning)
        check_order(lb, higher_is_better)
    r = rank_score(score, lb, higher_is_better)
    medal = award_medal(score, lb, higher_is_better)
    medal_name = (
        "gold" if medal.gold_medal else "silver" if medal.silver_medal
        else "bronze" if medal.bronze_medal else None
    )
    out = {
        "score": score,
        "metric": metric,
        "is_lower_better": not higher_is_better,
        "rank": r.rank,
        "n": r.n,
        "percentile": r.percentile,
        "medal": medal_name,
        **medal.as_dict(),
        "warnings": [str(w.message) for w in caught],
    }
    if json_out:
        print_json(out)
        return
    for w in out["warnings"]:
        console.print(f"[yellow]warning:[/] {w}")
    console.print(
        f"rank {r.rank} of {r.n} (percentile {r.percentile:.4f}, lower is better); "
        f"medal: {medal_name or 'none'}; above median: {medal.above_median}"
    )
    console.print(
        f"thresholds: gold {medal.gold_threshold}, silver {medal.silver_threshold}, "
        f"bronze {medal.bronze_threshold}, median {medal.median_threshold}"
    )


def metrics(
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
    markdown: bool = typer.Option(False, "--markdown", help="Print the metric reference "
                                  "(docs/metrics.md) generated from the registry."),
) -> None:
    """List every registered metric with its direction, value range and input kind."""
    from rich.table import Table

    from tambench.cli._console import console, print_json
    from tambench.core.metrics import list_metrics
    from tambench.core.metrics.reference import as_json, render_markdown

    if json_out and markdown:
        raise typer.BadParameter("give at most one of --json and --markdown")
    ms = list_metrics()
    if markdown:
        sys.stdout.write(render_markdown(ms))
        return
    if json_out:
        print_json([as_json(m) for m in ms])
        return
    table = Table("id", "better", "range", "kind", "parameters", "summary")
    for m in ms:
        table.add_row(
            m.id, m.direction, f"[{m.lower_bound:g}, {m.upper_bound:g}]", m.kind,
            ", ".join(f"{k}={v}" for k, v in m.defaults.items()), m.summary,
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    """Attach the commands."""
    app.command("rank")(rank)
    app.command("metrics")(metrics)
