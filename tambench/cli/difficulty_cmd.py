"""``tambench difficulty``: difficulty tiers from leaderboards, their agreement and calibration.

    tambench difficulty LB.csv --metric ID [--method paper|robust] [--json] [--explain]
    tambench difficulty --catalogue DIR [--method ...] [--write] [--json] [--explain]
    tambench difficulty compare --labels LABELS.csv [--catalogue DIR | --computed TIERS.csv]
    tambench difficulty calibrate --labels LABELS.csv [--catalogue DIR] [--folds 5] [--seed 0]

Both methods are always computed and shown side by side; ``--method`` picks the primary one
(the tier written with ``--write``, and the one compared and calibrated).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup


class _DefaultCommandGroup(TyperGroup):
    """A group whose first argument, when not a sub-command, goes to ``compute``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in {"--help", "-h"}:
            args = ["compute", *args]
        return super().parse_args(ctx, args)


difficulty_app = typer.Typer(
    cls=_DefaultCommandGroup,
    help="Difficulty tiers from leaderboards (paper formula and robust variant).",
    no_args_is_help=True,
)

_METHOD_HELP = "Primary method: paper (the formula as printed) or robust."


def _check_method(method: str) -> Any:
    from tambench.difficulty.formula import METHODS

    if method not in METHODS:
        raise typer.BadParameter(f"expected one of {list(METHODS)}, got {method!r}",
                                 param_hint="--method")
    return method


def _result_dict(r: Any) -> dict[str, Any]:
    return {"method": r.method, "score": r.score, "tier": r.tier.value,
            "inputs": r.inputs, "notes": list(r.notes)}


def _catalogue_dir(catalogue: Path | None) -> Path:
    from tambench.config import load_settings

    return load_settings(catalogue=catalogue).catalogue


@difficulty_app.command("compute")
def compute(
    leaderboard: Path | None = typer.Argument(None, help="Leaderboard CSV (any known format)."),
    metric: str | None = typer.Option(None, "--metric", help="Registered metric id."),
    catalogue: Path | None = typer.Option(
        None, "--catalogue", help="Compute for every entry of this catalogue instead."),
    method: str = typer.Option("paper", "--method", help=_METHOD_HELP),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
    explain: bool = typer.Option(False, "--explain", help="Print every term of the formula."),
    write: bool = typer.Option(False, "--write",
                               help="Store the results in each task.json (catalogue mode)."),
    leaderboards: Path | None = typer.Option(
        None, "--leaderboards", help="Folder of leaderboards for entries that ship none "
        "(<platform>/<slug>/leaderboard.csv or <slug>/leaderboard.csv)."),
) -> None:
    """Difficulty of one leaderboard, or of every entry of a catalogue."""
    primary = _check_method(method)
    if catalogue is not None or leaderboard is None:
        if leaderboard is not None or metric is not None:
            raise typer.BadParameter("give either LB.csv --metric ID, or --catalogue DIR")
        _compute_catalogue(_catalogue_dir(catalogue), primary, json_out, explain, write,
                           leaderboards)
        return
    if metric is None:
        raise typer.BadParameter("a leaderboard needs --metric ID", param_hint="--metric")
    if write:
        raise typer.BadParameter("--write applies to --catalogue only", param_hint="--write")
    from tambench.cli._console import console, print_json
    from tambench.core.leaderboard import read_leaderboard
    from tambench.core.metrics import get_metric
    from tambench.difficulty.formula import compute_all, explain_lines

    m = get_metric(metric)
    lb = read_leaderboard(leaderboard)
    first, others = compute_all(lb, m, primary)
    if json_out:
        print_json({"leaderboard": str(leaderboard), "metric": m.id, "primary": first.method,
                    "results": [_result_dict(r) for r in (first, *others)]})
        return
    console.print(f"{leaderboard}: {len(lb)} rows, metric {m.id} ({m.direction} is better)")
    for r in (first, *others):
        label = "primary" if r is first else "beside"
        console.print(f"  {r.method:7s} D = {r.score:.4f}  tier {r.tier.value:6s} ({label}; "
                      f"NormMean {r.inputs['norm_mean']:.4f}, NormBest "
                      f"{r.inputs['norm_best']:.4f}, P {int(r.inputs['participants'])})")
    if explain:
        for r in (first, *others):
            console.print("")
            for line in explain_lines(r):
                console.print(f"  {line}", markup=False)


def _compute_catalogue(root: Path, primary: Any, json_out: bool, explain: bool,
                       write: bool, leaderboards: Path | None) -> None:
    from rich.table import Table

    from tambench.cli._console import console, err_console, print_json
    from tambench.difficulty.batch import catalogue_difficulties, store_difficulty
    from tambench.difficulty.formula import explain_lines

    results = catalogue_difficulties(root, primary, leaderboards)
    failed = [r for r in results if r.status == "failed"]
    if write:
        written = store_difficulty(root, results)
        err_console.print(f"stored difficulty in {len(written)} task.json file(s)")
    if json_out:
        print_json({
            "catalogue": str(root),
            "primary": primary,
            "tasks": [{"task": r.task, "status": r.status, "reason": r.reason,
                       "metric": r.metric, "reference_tiers": r.reference_tiers,
                       "results": [_result_dict(x) for x in (r.primary, *r.others)
                                   if x is not None]} for r in results],
        })
    else:
        table = Table()
        for col in ("task", "metric", "P", "paper D", "paper tier", "robust D", "robust tier",
                    "reference"):
            table.add_column(col, no_wrap=col == "task", overflow="fold")
        for r in results:
            if r.status != "ok":
                continue
            p, rb = r.result("paper"), r.result("robust")
            if p is None or rb is None:
                continue
            table.add_row(r.task, r.metric, str(int(p.inputs["participants"])),
                          f"{p.score:.3f}", p.tier.value, f"{rb.score:.3f}", rb.tier.value,
                          ", ".join(f"{k}={v}" for k, v in sorted((r.reference_tiers or
                                                                   {}).items())))
        console.print(table)
        skipped = [r for r in results if r.status == "skipped"]
        console.print(f"{sum(r.status == 'ok' for r in results)} computed, {len(skipped)} "
                      f"skipped (no leaderboard or metric), {len(failed)} failed")
        for r in failed:
            console.print(f"failed {r.task}: {r.reason}")
        if explain:
            for r in results:
                for x in (r.primary, *r.others):
                    if x is None:
                        continue
                    console.print(f"\n{r.task}", markup=False)
                    for line in explain_lines(x):
                        console.print(f"  {line}", markup=False)
    if failed:
        raise typer.Exit(3)


def _computed_tiers(root: Path, method: Any,
                    leaderboards: Path | None) -> tuple[dict[str, Any], list[str]]:
    from tambench.difficulty.batch import catalogue_difficulties

    tiers: dict[str, Any] = {}
    problems: list[str] = []
    for r in catalogue_difficulties(root, method, leaderboards):
        res = r.result(method)
        if res is not None:
            tiers[r.task] = res.tier
        elif r.status == "failed":
            problems.append(f"{r.task}: {r.reason}")
    return tiers, problems


def _print_comparison(title: str, cmp: Any) -> None:
    from rich.table import Table

    from tambench.cli._console import console

    d = cmp.to_dict()
    console.print(f"{title}: {d['n']} tasks, agreement {cmp.agreement:.3f}, linearly weighted "
                  f"kappa {'undefined' if cmp.kappa_linear is None else f'{cmp.kappa_linear:.3f}'}")
    table = Table("reference \\ computed", *d["tiers"])
    for name, row in zip(d["tiers"], d["confusion"]["matrix"], strict=True):
        table.add_row(name, *(str(v) for v in row))
    console.print(table)


@difficulty_app.command("compare")
def compare(
    labels: Path = typer.Option(..., "--labels", help="Reference tiers: CSV task,tier."),
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Catalogue to compute from."),
    computed: Path | None = typer.Option(
        None, "--computed", help="Compare with these tiers (same CSV format) instead."),
    method: str = typer.Option("paper", "--method", help=_METHOD_HELP),
    leaderboards: Path | None = typer.Option(
        None, "--leaderboards", help="Folder of leaderboards for entries that ship none "
        "(<platform>/<slug>/leaderboard.csv or <slug>/leaderboard.csv)."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Agreement of computed tiers with reference tiers: confusion matrix, kappa, changes."""
    from tambench.cli._console import console, err_console, print_json
    from tambench.difficulty.compare import compare_tiers, read_labels, resolve_label_ids

    primary = _check_method(method)
    reference = read_labels(labels)
    problems: list[str] = []
    unknown: list[str] = []
    if computed is not None:
        predicted = read_labels(computed)
    else:
        root = _catalogue_dir(catalogue)
        predicted, problems = _computed_tiers(root, primary, leaderboards)
        from tambench.tasks.catalogue import Catalogue

        reference, unknown = resolve_label_ids(reference, Catalogue(root).ids())
    cmp = compare_tiers(predicted, reference)
    if json_out:
        print_json({"method": primary, **cmp.to_dict(), "labels_not_in_catalogue": unknown,
                    "failed": problems})
    else:
        _print_comparison(f"{primary} tiers vs {labels.name}", cmp)
        console.print(f"{len(cmp.changed)} task(s) changed tier:")
        for c in cmp.changed:
            console.print(f"  {c.task}: {c.reference.value} -> {c.predicted.value} "
                          f"({c.steps:+d} step{'s' if abs(c.steps) != 1 else ''})")
        if cmp.only_reference:
            console.print(f"labelled but not computed ({len(cmp.only_reference)}): "
                          f"{', '.join(cmp.only_reference)}")
        if unknown:
            console.print(f"labels not in the catalogue ({len(unknown)}): {', '.join(unknown)}")
        for p in problems:
            err_console.print(f"failed: {p}", markup=False)


@difficulty_app.command("calibrate")
def calibrate_cmd(
    labels: Path = typer.Option(..., "--labels", help="Reference tiers: CSV task,tier."),
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Catalogue to compute from."),
    method: str = typer.Option("paper", "--method", help="Which method's terms to calibrate."),
    folds: int = typer.Option(5, "--folds", help="Cross-validation folds."),
    seed: int = typer.Option(0, "--seed", help="Seed of the fold assignment."),
    step: float = typer.Option(0.05, "--step", help="Weight grid step (must divide 1)."),
    leaderboards: Path | None = typer.Option(
        None, "--leaderboards", help="Folder of leaderboards for entries that ship none "
        "(<platform>/<slug>/leaderboard.csv or <slug>/leaderboard.csv)."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Fit weights and thresholds to reference tiers; report held-out agreement vs the paper."""
    from tambench.cli._console import console, print_json
    from tambench.difficulty.batch import catalogue_difficulties
    from tambench.difficulty.calibrate import calibrate
    from tambench.difficulty.compare import read_labels, resolve_label_ids
    from tambench.tasks.catalogue import Catalogue

    primary = _check_method(method)
    root = _catalogue_dir(catalogue)
    reference, unknown = resolve_label_ids(read_labels(labels), Catalogue(root).ids())
    results = {}
    for r in catalogue_difficulties(root, primary, leaderboards):
        res = r.result(primary)
        if res is not None:
            results[r.task] = res
    report = calibrate(results, reference, k=folds, seed=seed, step=step)
    if json_out:
        print_json({**report.to_dict(), "labels_not_in_catalogue": unknown})
        return
    p = report.fitted.params
    console.print(f"calibration of the {primary} terms on {report.n} labelled tasks, "
                  f"{report.k}-fold cross-validation (seed {seed}, grid step {step})")
    _print_comparison("paper formula (nothing fitted)", report.paper)
    _print_comparison("calibrated, held-out predictions", report.heldout)
    console.print(f"fitted on all tasks: w1 {p.w1:.2f}, w2 {p.w2:.2f}, w3 {p.w3:.2f}, "
                  f"easy <= {p.easy_max:.4f}, medium <= {p.medium_max:.4f} (in-sample agreement "
                  f"{report.fitted.agreement}/{report.fitted.n})")
    console.print(report.verdict)
    if unknown:
        console.print(f"labels not in the catalogue ({len(unknown)}): {', '.join(unknown)}")


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(difficulty_app, name="difficulty")
