"""``tambench subsets``: build Lite/Medium/Full manifests from a catalogue, and diff them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from tambench.cli._catalogue_options import catalogue_root

subsets_app = typer.Typer(help="Lite / Medium / Full subsets: build and diff manifests.",
                          no_args_is_help=True)

_TIERS_HELP = ("Tier source(s), tried in order: difficulty:<method> (calibrated, paper, robust) "
               "or reference:<name> (tam-bench, mle-bench), comma-separated. Default: "
               "reference:tam-bench,difficulty:calibrated (the paper release's tiers for its "
               "Lite tasks, the calibrated model for the rest).")


def read_tier_source(text: str | None, root: Path, option: str = "--tiers") -> list[Any]:
    """Parse a tier source for ``root`` (None: the default one); a bad one is a usage error
    naming the valid choices."""
    from tambench.difficulty.tiers import default_tier_source, parse_tier_source, reference_names
    from tambench.errors import DifficultyError

    references = reference_names(root)
    try:
        return parse_tier_source(text or default_tier_source(references), references=references)
    except DifficultyError as exc:
        raise typer.BadParameter(str(exc), param_hint=option) from None


def _out_dir(out: Path | None, root: Path) -> Path | None:
    """Where manifests go: ``--out``, else the catalogue's _subsets/ unless that catalogue is
    the installed package's own (never written implicitly)."""
    from tambench.config import bundled_catalogue
    from tambench.core.layout import SUBSETS_DIR

    if out is not None:
        return out
    if root.resolve() == bundled_catalogue().resolve():
        return None
    return root / SUBSETS_DIR


def _print_build(result: Any, tiers_text: str, counts: dict[str, int], scope: str) -> None:
    from tambench.cli._console import console
    from tambench.tasks.subsets import CELLS, cell_name

    console.print(f"{scope}; tiers from {tiers_text}: "
                  + ", ".join(f"{v} {k}" for k, v in counts.items()), markup=False)
    for name in ("lite", "medium", "full"):
        members = result.subsets[name]
        complete = sum(1 for t in members if t in result.complete)
        console.print(f"{name}: {len(members)} task(s), {complete} complete", markup=False)
    console.print("lite, cell by cell:")
    by_cell = {cell: tid for tid, cell in result.subsets["lite"].items()}
    for m, t in CELLS:
        cell = cell_name(m, t)
        tid = by_cell.get(cell)
        mark = "" if tid is None or tid in result.complete else "  (incomplete entry)"
        console.print(f"  {cell:18s} {tid or '-- empty --'}{mark}", markup=False)
    for s in result.shortfalls:
        console.print(f"gap: {s.subset} {s.cell} has {s.have} of {s.need}: {s.reason}",
                      markup=False)
    for s in result.skipped:
        if s.reason.startswith(("dates unknown", "not agent-ready")):
            console.print(f"not placed: {s.id}: {s.reason}", markup=False)


def _selection(root: Path, collection: str | None, since: str | None, until: str | None,
               agent_ready: bool = False) -> tuple[Any, str, dict[str, str]]:
    """The build's selection, a line naming it, and its manifest header fields."""
    from tambench.cli._catalogue_options import collection_option_ids, parse_day
    from tambench.tasks.collections import default_subset_collection
    from tambench.tasks.subsets import Selection

    name = collection or default_subset_collection(root)
    ids = collection_option_ids(root, name)
    window = parse_day(since, "--since"), parse_day(until, "--until")
    selection = Selection(frozenset(ids) if ids is not None else None, *window,
                          agent_ready=agent_ready)
    header = {"collection": name} | {k: d.isoformat() for k, d in
                                     zip(("since", "until"), window, strict=True) if d}
    header |= {"agent_ready": "yes" if agent_ready else "no"}
    scope = f"collection {name}" + "".join(f", ended {k} {v}" for k, v in header.items()
                                           if k in ("since", "until"))
    scope += ", agent-ready tasks only" if agent_ready else ""
    return selection, scope, header


def _readiness(result: Any, root: Path) -> dict[str, Any]:
    """Per subset: how many members are agent-ready, and what each other member lacks."""
    from tambench.tasks.readiness import catalogue_readiness

    gaps = catalogue_readiness(root)
    out: dict[str, Any] = {}
    for name, members in result.subsets.items():
        lacking = {t: gaps.get(t, ["entry"]) for t in sorted(members) if gaps.get(t, ["entry"])}
        out[name] = {"agent_ready": len(members) - len(lacking), "tasks": len(members),
                     "not_ready": lacking}
    return out


def _print_readiness(readiness: dict[str, Any]) -> None:
    from tambench.cli._console import console

    for name, r in readiness.items():
        console.print(f"{name}: {r['agent_ready']} of {r['tasks']} agent-ready", markup=False)
        for tid, gaps in r["not_ready"].items():
            console.print(f"  not agent-ready: {tid}: lacks {', '.join(gaps)}", markup=False)


def _build_json(result: Any, paths: list[Path]) -> dict[str, Any]:
    """The subsets, gaps and unplaced tasks of a build, as ``--json`` prints them."""
    return {
        "subsets": {k: dict(sorted(v.items())) for k, v in result.subsets.items()},
        "complete": sorted(result.complete),
        "manifests": [str(p) for p in paths],
        "gaps": [{"subset": s.subset, "cell": s.cell, "have": s.have, "need": s.need,
                  "reason": s.reason} for s in result.shortfalls],
        "unplaced": [{"id": s.id, "reason": s.reason} for s in result.skipped],
    }


@subsets_app.command("build")
def build(
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Catalogue folder."),
    seed: int = typer.Option(0, "--seed", help="Seed of the within-cell ranking."),
    tiers: str | None = typer.Option(None, "--tiers", help=_TIERS_HELP),
    out: Path | None = typer.Option(
        None, "--out", help="Manifest folder (default: <catalogue>/_subsets, except for the "
        "installed package's catalogue, which is never written)."),
    day: str | None = typer.Option(None, "--date", help="Date for the header (YYYY-MM-DD)."),
    allow_gaps: bool = typer.Option(False, "--allow-gaps",
                                    help="Exit 0 even when a Lite or Medium cell is short."),
    collection: str | None = typer.Option(
        None, "--collection", help="Build from this collection of the catalogue (default: "
        "paper when the catalogue has it; all: every entry)."),
    since: str | None = typer.Option(
        None, "--since", help="Only tasks that ended on or after YYYY-MM-DD (a model's "
        "training cutoff); tasks whose dates cannot tell are named and left out."),
    until: str | None = typer.Option(None, "--until",
                                     help="Only tasks that ended on or before YYYY-MM-DD."),
    agent_ready: bool = typer.Option(
        True, "--agent-ready/--all-complete", help="From agent-ready tasks only (default; "
        "the others are named with what they lack), or from every complete task."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Regenerate Lite, Medium and Full from agent-ready tasks; name every task left out and
    why, and every cell the catalogue cannot fill.

    Exit 3 when a cell is short, unless --allow-gaps."""
    from tambench.cli._catalogue_options import parse_day
    from tambench.cli._console import err_console, print_json
    from tambench.difficulty.tiers import build_from_catalogue, tier_counts
    from tambench.tasks.catalogue import Catalogue, build_index, index_hash
    from tambench.tasks.subsets import write_manifests

    root = catalogue_root(catalogue)
    when = parse_day(day, "--date")
    selection, scope, header = _selection(root, collection, since, until, agent_ready)
    sources = read_tier_source(tiers, root)
    tiers_text = ",".join(str(s) for s in sources)
    result, assigned = build_from_catalogue(root, sources, selection, seed=seed,
                                            quiet=json_out)
    digest = index_hash(build_index(Catalogue(root)))
    target = _out_dir(out, root)
    paths = (write_manifests(result, target, index_sha256=digest, tier_source=tiers_text,
                             day=when, extra=header) if target is not None else [])
    if json_out:
        print_json({
            "catalogue": str(root), "seed": seed, "tiers": tiers_text, "index_sha256": digest,
            **header, "tier_counts": tier_counts(assigned), **_build_json(result, paths),
            "readiness": _readiness(result, root)})
    else:
        _print_build(result, tiers_text, tier_counts(assigned),
                     f"{len(assigned)} catalogue tasks in {scope}")
        _print_readiness(_readiness(result, root))
        for p in paths:
            err_console.print(f"wrote {p}", markup=False)
        if target is None:
            err_console.print("manifests not written (the installed package's catalogue is "
                              "never written): give --out DIR to write them", markup=False)
    if result.shortfalls and not allow_gaps:
        raise typer.Exit(3)


@subsets_app.command("diff")
def diff(
    old: Path = typer.Argument(..., help="Old manifest."),
    new: Path = typer.Argument(..., help="New manifest."),
    catalogue: Path | None = typer.Option(
        None, "--catalogue", help="Look removed tasks up in this catalogue for a reason "
        "(default: the configured catalogue, as for every command)."),
    tiers: str | None = typer.Option(
        None, "--tiers", help="Tier source for those reasons (default: the new manifest's)."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """What changed between two manifests: only real changes, each with its own reason."""
    from tambench.cli._console import console, print_json
    from tambench.tasks.manifests import read_manifest
    from tambench.tasks.subsets import diff_manifests

    a, b = read_manifest(old), read_manifest(new)
    current = _current_cells(catalogue, tiers or b.header.get("tiers"))
    d = diff_manifests(a, b, current=current)
    if json_out:
        print_json({
            "added": list(d.added), "removed": list(d.removed),
            "moved": [{"id": t, "from": x, "to": y} for t, x, y in d.moved],
            "header_changes": [{"key": k, "old": x, "new": y} for k, x, y in d.header_changes],
            "reasons": d.reasons,
        })
        return
    for k, x, y in d.header_changes:
        console.print(f"header {k}: {x or '-'} -> {y or '-'}", markup=False)
    for sign, ids in (("+", d.added), ("-", d.removed), ("~", [t for t, _, _ in d.moved])):
        for t in ids:
            console.print(f"{sign} {t}: {d.reasons[t]}", markup=False)
    if d.unchanged:
        console.print("same tasks in the same cells")


def _current_cells(catalogue: Path | None, tiers: str | None) -> dict[str, str]:
    """Each task's cell now (or why it has none), for the reasons of a diff."""
    from tambench.difficulty.tiers import catalogue_tiers
    from tambench.tasks.subsets import candidates_from_catalogue, cell_name

    root = catalogue_root(catalogue)
    cands, skipped = candidates_from_catalogue(
        root, catalogue_tiers(root, read_tier_source(tiers, root), quiet=True))
    current = {c.id: cell_name(c.modality, c.tier) for c in cands}
    current.update({s.id: f"not placeable: {s.reason}" for s in skipped})
    return current


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(subsets_app, name="subsets")
