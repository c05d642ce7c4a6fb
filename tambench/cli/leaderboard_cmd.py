"""``tambench leaderboard``: normalise and inspect leaderboards."""

from __future__ import annotations

import collections
from pathlib import Path

import typer

lb_app = typer.Typer(help="Leaderboards: normalise any known format, show junk rows.",
                     no_args_is_help=True)


@lb_app.command("normalize")
def normalize(
    src: Path = typer.Argument(..., help="Leaderboard in any known format."),
    out: Path = typer.Argument(..., help="Where to write the normalised CSV."),
) -> None:
    """Normalise a leaderboard to rank,team,score,entries,submitted_at + original columns."""
    from tambench.core.leaderboard import read_leaderboard, write_leaderboard

    lb = read_leaderboard(src)
    write_leaderboard(lb, out)
    typer.echo(f"{src} ({lb.format}, {len(lb)} rows) -> {out}", err=True)


@lb_app.command("show")
def show(
    src: Path = typer.Argument(..., help="Leaderboard in any known format."),
    metric: str | None = typer.Option(None, "--metric", help="Metric id (range and direction)."),
    head: int = typer.Option(10, "--head", help="Rows to show."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Show a leaderboard's summary, first rows and every junk row by rule."""
    import numpy as np

    from tambench.cli._console import console, print_json
    from tambench.core.leaderboard import DEFAULT_EXCLUDE, check_order, read_leaderboard
    from tambench.core.metrics import get_metric
    from tambench.core.tables import Column, print_table

    lb = read_leaderboard(src)
    m = get_metric(metric) if metric else None
    value_range = (m.lower_bound, m.upper_bound) if m else None
    junk = lb.detect_junk(value_range=value_range)
    inversions = check_order(lb, m.higher_is_better, warn=False) if m else None
    finite = lb.finite_scores()
    summary = {
        "path": str(src),
        "format": lb.format,
        "rows": len(lb),
        "finite_scores": int(finite.size),
        "distinct_scores": int(np.unique(finite).size),
        "min": float(finite.min()) if finite.size else None,
        "max": float(finite.max()) if finite.size else None,
        "median": float(np.median(finite)) if finite.size else None,
        "order_inversions": inversions,
        "junk": [{"row": j.row, "rule": j.rule, "detail": j.detail} for j in junk],
        "excluded_by_default": sorted({j.row for j in junk if j.rule in DEFAULT_EXCLUDE}),
    }
    if json_out:
        print_json(summary)
        return
    console.print(
        f"{src}: {lb.format}, {len(lb)} rows, {summary['distinct_scores']} distinct scores, "
        f"min {summary['min']}, median {summary['median']}, max {summary['max']}"
    )
    print_table((Column("rank", priority=9, align="right"), Column("team", key=True),
                 Column("score", priority=8), Column("entries", priority=2, align="right"),
                 Column("submitted_at", priority=1)),
                [(r.rank, r.team, r.score_raw, r.entries or None, r.submitted_at)
                 for r in lb.rows[:head]])
    counts = collections.Counter(j.rule for j in junk)
    if not junk:
        console.print("no junk rows")
    for rule, n in sorted(counts.items()):
        rows = [j.row for j in junk if j.rule == rule]
        excl = "excluded from statistics" if rule in DEFAULT_EXCLUDE else "reported only"
        more = " ..." if len(rows) > 20 else ""
        console.print(f"junk[{rule}] {n} row(s) ({excl}): rows {rows[:20]}{more}")
    if inversions:
        console.print(f"warning: {inversions} adjacent pairs ordered against the "
                      f"declared direction of {metric}")


def _kaggle_slug(url: str, slug: str) -> str:
    """The competition's slug on Kaggle: from its overview address when there is one (the
    catalogue keeps some release names: cornell-birdcall-identification is
    birdsong-recognition on Kaggle), else the task's own slug."""
    marker = "kaggle.com/competitions/"
    if marker in url:
        return url.split(marker, 1)[1].strip("/").split("/", 1)[0]
    return slug


@lb_app.command("refresh")
def refresh(
    task: str = typer.Argument(..., help="Task id, bare slug or task folder."),
    catalogue: Path | None = typer.Option(
        None, "--catalogue", help="Catalogue holding the task (default: the configured one; "
        "never the installed package's)."),
    kind: str = typer.Option("private", "--kind", help="private (a finished competition's "
                             "final board), public or unknown."),
) -> None:
    """Fetch a Kaggle competition's leaderboard with the kaggle client and ship it with the
    task (compact form, provenance in task.json). Needs the kaggle package and credentials."""
    from datetime import UTC, datetime

    from tambench.acquisition.kaggle_client import KaggleClient
    from tambench.cli._catalogue_options import import_catalogue
    from tambench.cli._console import console
    from tambench.schema.taskspec import LeaderboardSource
    from tambench.tasks.leaderboards import record_scale, store_leaderboard
    from tambench.tasks.locate import locate_task

    if kind not in ("private", "public", "unknown"):
        raise typer.BadParameter(f"expected private, public or unknown, got {kind!r}",
                                 param_hint="--kind")
    root = import_catalogue(catalogue)
    task_file = locate_task(task, root)
    from tambench.schema.io import load_taskspec

    spec = load_taskspec(task_file)
    if spec.platform != "kaggle":
        raise typer.BadParameter(f"{spec.id} is on {spec.platform}; only Kaggle boards can be "
                                 "fetched with the kaggle client", param_hint="TASK")
    slug = _kaggle_slug(spec.url, spec.slug)
    lb = KaggleClient().leaderboard(slug)  # every page of the board
    scale: dict[str, object] = {}
    if spec.grading is not None:
        scale = record_scale(spec.grading.metric)
    elif spec.leaderboard is not None:
        scale = spec.leaderboard.model_dump(include={"metric", "higher_is_better",
                                                     "lower_bound", "upper_bound"})
    record = LeaderboardSource.model_validate({
        "source": "kaggle", "path": f"competitions/{slug}/leaderboard", "kind": kind,
        "rows": len(lb), "retrieved_at": datetime.now(UTC).date(),
        "notes": ["fetched with the kaggle client (tambench leaderboard refresh)"], **scale})
    store_leaderboard(task_file.parent, lb, record)
    console.print(f"{spec.id}: {len(lb)} rows from Kaggle ({slug}) -> "
                  f"{task_file.parent / 'leaderboard.csv'}", markup=False)


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(lb_app, name="leaderboard")
