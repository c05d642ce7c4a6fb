"""``tambench difficulty``: difficulty tiers from leaderboards, their agreement and calibration.

    tambench difficulty LB.csv --metric ID [--method M] [--json] [--explain]
    tambench difficulty --catalogue DIR [--method M] [--write] [--json] [--explain]
    tambench difficulty compare [--reference mle-bench | --labels LABELS.csv] [--catalogue DIR]
    tambench difficulty calibrate [--reference mle-bench | --labels LABELS.csv] [--folds 5]
    tambench difficulty methods

Every registered method is computed and shown side by side; ``--method`` picks the primary one
(the tier written with ``--write``, compared and calibrated). The default is ``calibrated``,
the model fitted to MLE-bench's human tiers; the paper's formula is printed beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from tambench.cli._catalogue_options import catalogue_root


class _DefaultCommandGroup(TyperGroup):
    """A group whose first argument, when not a sub-command, goes to ``compute``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in {"--help", "-h"}:
            args = ["compute", *args]
        return super().parse_args(ctx, args)


difficulty_app = typer.Typer(
    cls=_DefaultCommandGroup,
    help="Difficulty tiers from leaderboards (calibrated model, paper formula, robust variant).",
    no_args_is_help=True,
)

_METHOD_HELP = "Primary method (`tambench difficulty methods` lists them; default calibrated)."
_LB_HELP = ("Folder of leaderboards for entries that ship none "
            "(<platform>/<slug>/leaderboard.csv or <slug>/leaderboard.csv).")


def _check_method(method: str | None) -> str:
    from tambench.difficulty.methods import DEFAULT_METHOD, METHODS

    name = method or DEFAULT_METHOD
    if name not in METHODS:
        raise typer.BadParameter(METHODS.unknown_message(name), param_hint="--method")
    return name


def _result_dict(r: Any) -> dict[str, Any]:
    return {"method": r.method, "score": r.score, "tier": r.tier.value,
            "inputs": r.inputs, "notes": list(r.notes)}


def _explain(r: Any) -> list[str]:
    from tambench.difficulty.calibrated import explain_calibrated
    from tambench.difficulty.formula import explain_lines

    return explain_calibrated(r) if r.method == "calibrated" else explain_lines(r)


@difficulty_app.command("methods")
def methods(
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """List the registered difficulty methods."""
    from tambench.cli._console import console, print_json
    from tambench.difficulty.methods import DEFAULT_METHOD, METHODS

    if json_out:
        print_json({"default": DEFAULT_METHOD, "methods": [
            {"name": n, "summary": METHODS[n].summary} for n in METHODS.names()]})
        return
    for name in METHODS.names():
        mark = " (default)" if name == DEFAULT_METHOD else ""
        console.print(f"{name}{mark}: {METHODS[name].summary}", markup=False)


@difficulty_app.command("compute")
def compute(
    leaderboard: Path | None = typer.Argument(None, help="Leaderboard CSV (any known format)."),
    metric: str | None = typer.Option(None, "--metric", help="Registered metric id."),
    catalogue: Path | None = typer.Option(
        None, "--catalogue", help="Compute for every entry of this catalogue instead."),
    method: str | None = typer.Option(None, "--method", help=_METHOD_HELP),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
    explain: bool = typer.Option(False, "--explain", help="Print every step of each method."),
    write: bool = typer.Option(False, "--write",
                               help="Store the results in each task.json (catalogue mode)."),
    leaderboards: Path | None = typer.Option(None, "--leaderboards", help=_LB_HELP),
) -> None:
    """Difficulty of one leaderboard, or of every entry of a catalogue."""
    primary = _check_method(method)
    if catalogue is not None or leaderboard is None:
        if leaderboard is not None or metric is not None:
            raise typer.BadParameter("give either LB.csv --metric ID, or --catalogue DIR")
        _compute_catalogue(catalogue_root(catalogue), primary, json_out, explain, write,
                           leaderboards)
        return
    if metric is None:
        raise typer.BadParameter("a leaderboard needs --metric ID", param_hint="--metric")
    if write:
        raise typer.BadParameter("--write applies to --catalogue only", param_hint="--write")
    from tambench.cli._console import console, print_json
    from tambench.core.leaderboard import read_leaderboard
    from tambench.core.metrics import get_metric
    from tambench.difficulty.methods import compute_all

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
        console.print(f"  {r.method:10s} score {r.score:.4f}  tier {r.tier.value:6s} ({label})")
    if explain:
        for r in (first, *others):
            console.print("")
            for line in _explain(r):
                console.print(f"  {line}", markup=False)


def _catalogue_table(results: list[Any], primary: str) -> tuple[list[Any], list[list[Any]]]:
    """The columns and rows of the catalogue's difficulty table (tasks that computed)."""
    from tambench.core.tables import Column
    from tambench.difficulty.methods import METHODS

    names = [primary, *[n for n in METHODS.names() if n != primary]]
    columns = [Column("task", key=True), Column("metric", priority=3),
               Column("P", priority=4, align="right"),
               *(Column(n, priority=9 if n == primary else 2) for n in names),
               Column("reference", priority=1, min_width=8)]
    rows = []
    for r in results:
        if r.status != "ok":
            continue
        cells = [f"{x.score:.3f} {x.tier.value}" if (x := r.result(n)) else None for n in names]
        p = r.result("paper")
        rows.append([r.task, r.metric, int(p.inputs["participants"]) if p else None, *cells,
                     ", ".join(f"{k}={v}" for k, v in sorted((r.reference_tiers or {}).items()))])
    return columns, rows


def _compute_catalogue(root: Path, primary: str, json_out: bool, explain: bool,
                       write: bool, leaderboards: Path | None) -> None:
    from tambench.cli._console import console, err_console, print_json
    from tambench.difficulty.batch import catalogue_difficulties, store_difficulty

    results = catalogue_difficulties(root, primary, leaderboards)
    failed = [r for r in results if r.status == "failed"]
    if write:
        written = store_difficulty(root, results)
        err_console.print(f"stored difficulty in {len(written)} task.json file(s)")
    if json_out:
        print_json({
            "catalogue": str(root), "primary": primary,
            "tasks": [{"task": r.task, "status": r.status, "reason": r.reason,
                       "metric": r.metric, "reference_tiers": r.reference_tiers,
                       "results": [_result_dict(x) for x in (r.primary, *r.others)
                                   if x is not None]} for r in results],
        })
    else:
        from tambench.core.tables import print_table

        print_table(*_catalogue_table(results, primary))
        tiers = [r.primary.tier.value for r in results if r.primary is not None]
        console.print(f"{len(tiers)} computed ({primary}: "
                      + ", ".join(f"{tiers.count(t)} {t}" for t in ("easy", "medium", "hard"))
                      + f"), {sum(r.status == 'skipped' for r in results)} skipped (no "
                      f"leaderboard or scale), {len(failed)} failed")
        for r in failed:
            console.print(f"failed {r.task}: {r.reason}", markup=False)
        if explain:
            for r in results:
                for x in (r.primary, *r.others):
                    if x is not None:
                        console.print(f"\n{r.task}", markup=False)
                        for line in _explain(x):
                            console.print(f"  {line}", markup=False)
    if failed:
        raise typer.Exit(3)


def _computed_tiers(root: Path, method: str,
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


def _reference(root: Path, labels: Path | None, reference: str | None
               ) -> tuple[dict[str, Any], list[str], str]:
    """Reference tiers: a labels file (names resolved in the catalogue), or the tiers stored
    in the catalogue under ``reference`` (default mle-bench)."""
    from tambench.difficulty.compare import (
        read_labels,
        resolve_label_ids,
        stored_reference_tiers,
    )
    from tambench.difficulty.tiers import reference_names

    if labels is not None:
        if reference is not None:
            raise typer.BadParameter("give --labels FILE or --reference NAME, not both")
        resolved, unknown = resolve_label_ids(read_labels(labels), root)
        return resolved, unknown, str(labels)
    name = reference or "mle-bench"
    valid = reference_names(root)
    if name not in valid:
        raise typer.BadParameter(f"unknown reference tier {name!r}; this catalogue has: "
                                 f"{', '.join(valid) or 'none'}", param_hint="--reference")
    return stored_reference_tiers(root, name), [], f"reference:{name}"


def _print_comparison(title: str, cmp: Any) -> None:
    from tambench.cli._console import console
    from tambench.core.tables import Column, print_table

    d = cmp.to_dict()
    kappa = "undefined" if cmp.kappa_linear is None else f"{cmp.kappa_linear:.3f}"
    console.print(f"{title}: {d['n']} tasks, agreement {cmp.agreement:.3f}, two-step jumps "
                  f"{cmp.two_step_jumps}, linearly weighted kappa {kappa}", markup=False)
    print_table([Column("reference \\ computed", key=True),
                 *(Column(t, key=True, align="right") for t in d["tiers"])],
                [[name, *row] for name, row in zip(d["tiers"], d["confusion"]["matrix"],
                                                   strict=True)])


@difficulty_app.command("compare")
def compare(
    labels: Path | None = typer.Option(None, "--labels", help="Reference tiers: CSV task,tier "
                                       "(ids or bare slugs)."),
    reference: str | None = typer.Option(
        None, "--reference", help="Reference tiers stored in the catalogue (mle-bench, "
        "tam-bench); the default without --labels is mle-bench."),
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Catalogue to compute from."),
    computed: Path | None = typer.Option(
        None, "--computed", help="Compare with these tiers (same CSV format) instead."),
    method: str | None = typer.Option(None, "--method", help=_METHOD_HELP),
    leaderboards: Path | None = typer.Option(None, "--leaderboards", help=_LB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Agreement of computed tiers with reference tiers: confusion matrix, kappa, changes."""
    from tambench.cli._console import console, err_console, print_json
    from tambench.difficulty.compare import CompareReport, compare_tiers, read_labels

    primary = _check_method(method)
    root = catalogue_root(catalogue)
    ref, unknown, origin = _reference(root, labels, reference)
    problems: list[str] = []
    if computed is not None:
        predicted = read_labels(computed)
    else:
        predicted, problems = _computed_tiers(root, primary, leaderboards)
    report = CompareReport(method=primary, reference=origin,
                           comparison=compare_tiers(predicted, ref),
                           labels_not_in_catalogue=unknown, failed=problems)
    if json_out:
        print_json(report.model_dump(mode="json"))
        return
    cmp = report.comparison
    _print_comparison(f"{primary} tiers vs {origin}", cmp)
    console.print(f"{len(cmp.changed)} task(s) changed tier:")
    for c in cmp.changed:
        console.print(f"  {c.task}: {c.reference.value} -> {c.predicted.value} "
                      f"({c.steps:+d} step{'s' if abs(c.steps) != 1 else ''})", markup=False)
    if cmp.only_reference:
        console.print(f"labelled but not computed ({len(cmp.only_reference)}): "
                      f"{', '.join(cmp.only_reference)}", markup=False)
    if unknown:
        console.print(f"labels not in the catalogue ({len(unknown)}): {', '.join(unknown)}",
                      markup=False)
    for p in problems:
        err_console.print(f"failed: {p}", markup=False)


@difficulty_app.command("calibrate")
def calibrate_cmd(
    labels: Path | None = typer.Option(None, "--labels", help="Reference tiers: CSV task,tier."),
    reference: str | None = typer.Option(None, "--reference", help="Stored reference tiers "
                                         "(default mle-bench without --labels)."),
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Catalogue to compute from."),
    method: str = typer.Option("paper", "--method", help="Whose formula terms to re-weight: "
                               "paper or robust."),
    folds: int = typer.Option(5, "--folds", help="Cross-validation folds."),
    seed: int = typer.Option(0, "--seed", help="Seed of the fold assignment."),
    step: float = typer.Option(0.05, "--step", help="Weight grid step (must divide 1)."),
    leaderboards: Path | None = typer.Option(None, "--leaderboards", help=_LB_HELP),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Re-fit the paper's weights and thresholds to reference tiers; held-out agreement."""
    from tambench.cli._console import console, print_json
    from tambench.difficulty.batch import catalogue_difficulties
    from tambench.difficulty.calibrate import calibrate

    if method not in ("paper", "robust"):
        raise typer.BadParameter(f"expected paper or robust, got {method!r}",
                                 param_hint="--method")
    root = catalogue_root(catalogue)
    ref, unknown, origin = _reference(root, labels, reference)
    results = {r.task: res for r in catalogue_difficulties(root, method, leaderboards)
               if (res := r.result(method)) is not None}
    report = calibrate(results, ref, k=folds, seed=seed, step=step)
    if json_out:
        print_json({**report.model_dump(mode="json"), "labels_not_in_catalogue": unknown})
        return
    p = report.fitted_params
    console.print(f"calibration of the {method} terms on {report.n} tasks labelled by {origin}, "
                  f"{report.k}-fold cross-validation (seed {seed}, grid step {step})",
                  markup=False)
    _print_comparison("paper formula (nothing fitted)", report.paper)
    _print_comparison("re-weighted formula, held-out predictions", report.heldout)
    console.print(f"fitted on all tasks: w1 {p.w1:.2f}, w2 {p.w2:.2f}, w3 {p.w3:.2f}, "
                  f"easy <= {p.easy_max:.4f}, medium <= {p.medium_max:.4f} (in-sample agreement "
                  f"{report.fitted_agreement}/{report.n})")
    console.print(report.verdict)
    if unknown:
        console.print(f"labels not in the catalogue ({len(unknown)}): {', '.join(unknown)}",
                      markup=False)


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(difficulty_app, name="difficulty")
