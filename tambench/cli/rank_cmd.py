"""``tambench rank`` and ``tambench metrics``."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

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
    """Place a score on a leaderboard: rank, rank % (100 x rank / N, lower is better), medal,
    above_median and the thresholds."""
    from tambench.cli._console import console, print_json

    out = place_score(leaderboard, score, metric, higher_is_better, keep_junk)
    if json_out:
        print_json(out)
        return
    for w in out["warnings"]:
        console.print(f"warning: {w}")
    console.print(
        f"rank {out['rank']} of {out['n_teams']} (rank % {out['rank_pct']:.2f}, lower is "
        f"better); medal: {out['medal'] or 'none'}; above median: "
        f"{'yes' if out['above_median'] else 'no'}"
    )
    console.print(
        f"thresholds: gold {out['gold_threshold']}, silver {out['silver_threshold']}, "
        f"bronze {out['bronze_threshold']}, median {out['median_threshold']}"
    )


def _direction(metric: str | None, higher_is_better: bool | None) -> tuple[Any, bool]:
    from tambench.core.metrics import get_metric
    from tambench.errors import ConfigError

    m = get_metric(metric) if metric else None
    if higher_is_better is None:
        if m is None:
            raise ConfigError(
                "the direction is unknown: give --metric ID, or --higher-is-better / "
                "--lower-is-better"
            )
        higher_is_better = m.higher_is_better
    return m, higher_is_better


def place_score(leaderboard: Path, score: float, metric: str | None,
                higher_is_better: bool | None, keep_junk: bool) -> dict[str, Any]:
    """Rank and medals of one score (the fields of ``rank --json``)."""
    import warnings

    from tambench.core.leaderboard import check_order, read_leaderboard
    from tambench.core.rank import award_medal, rank_score
    from tambench.errors import InvalidScoreError, LeaderboardOrderWarning

    m, hib = _direction(metric, higher_is_better)
    if not math.isfinite(score):
        raise InvalidScoreError(f"score {score!r} is not finite; it is never ranked")
    lb = read_leaderboard(leaderboard)
    if not keep_junk:
        lb = lb.clean(value_range=(m.lower_bound, m.upper_bound) if m else None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LeaderboardOrderWarning)
        check_order(lb, hib)
    r = rank_score(score, lb, hib)
    medal = award_medal(score, lb, hib)
    medal_name = (
        "gold" if medal.gold_medal else "silver" if medal.silver_medal
        else "bronze" if medal.bronze_medal else None
    )
    return {
        "score": score,
        "metric": metric,
        "is_lower_better": not hib,
        "rank": r.rank,
        "n_teams": r.n,
        "rank_pct": r.rank_pct,
        "medal": medal_name,
        **medal.as_dict(),
        "warnings": [str(w.message) for w in caught],
    }


def _metric_columns() -> tuple[Any, ...]:
    from tambench.core.tables import Column

    return (Column("id", key=True), Column("better", priority=9), Column("range", priority=5),
            Column("kind", priority=4), Column("parameters", priority=2, min_width=10),
            Column("summary", priority=6, min_width=20))


def metrics(
    json_out: bool = typer.Option(False, "--json", help="Print strict JSON."),
    markdown: bool = typer.Option(False, "--markdown", help="Print the metric reference "
                                  "(docs/metrics.md) generated from the registry."),
) -> None:
    """List every registered metric with its direction, value range and input kind."""
    from tambench.cli._console import print_json
    from tambench.core.metrics import list_metrics
    from tambench.core.metrics.reference import as_json, render_markdown
    from tambench.core.tables import print_table

    if json_out and markdown:
        raise typer.BadParameter("give at most one of --json and --markdown")
    ms = list_metrics()
    if markdown:
        sys.stdout.write(render_markdown(ms))
        return
    if json_out:
        print_json([as_json(m) for m in ms])
        return
    print_table(_metric_columns(), [
        (m.id, m.direction, f"[{m.lower_bound:g}, {m.upper_bound:g}]", m.kind,
         ", ".join(f"{k}={v}" for k, v in m.defaults.items()), m.summary) for m in ms])


def register(app: typer.Typer) -> None:
    """Attach the commands."""
    app.command("rank")(rank)
    app.command("metrics")(metrics)
