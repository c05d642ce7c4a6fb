"""``tambench subsets``: build Lite/Medium/Full manifests from a catalogue, and diff them."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import typer

subsets_app = typer.Typer(help="Lite / Medium / Full subsets: build and diff manifests.",
                          no_args_is_help=True)


@subsets_app.command("build")
def build(
    catalogue: Path | None = typer.Option(None, "--catalogue", help="Catalogue folder."),
    seed: int = typer.Option(0, "--seed", help="Seed of the within-cell ranking."),
    tiers: str = typer.Option(
        "difficulty:paper", "--tiers",
        help="Tier source: difficulty:paper, difficulty:robust or reference:<name>."),
    out: Path | None = typer.Option(None, "--out",
                                    help="Manifest folder (default: <catalogue>/_subsets)."),
    day: str | None = typer.Option(None, "--date", help="Date for the header (YYYY-MM-DD)."),
    leaderboards: Path | None = typer.Option(
        None, "--leaderboards", help="Folder of leaderboards for entries that ship none."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Regenerate lite.txt, medium.txt and full.txt; report every cell lacking tasks."""
    from tambench.cli._console import console, print_json
    from tambench.config import load_settings
    from tambench.core.layout import SUBSETS_DIR
    from tambench.tasks.catalogue import Catalogue, build_index, index_hash
    from tambench.tasks.subsets import (
        build_subsets,
        candidates_from_catalogue,
        write_manifests,
    )

    root = load_settings(catalogue=catalogue).catalogue
    try:
        when = date.fromisoformat(day) if day else None
    except ValueError:
        raise typer.BadParameter(f"expected YYYY-MM-DD, got {day!r}", param_hint="--date") \
            from None
    cands, skipped = candidates_from_catalogue(root, tiers, leaderboards)
    result = build_subsets(cands, seed=seed, skipped=skipped)
    digest = index_hash(build_index(Catalogue(root)))
    paths = write_manifests(result, out or root / SUBSETS_DIR, index_sha256=digest,
                            tier_source=tiers, day=when)
    if json_out:
        print_json({
            "catalogue": str(root), "seed": seed, "tiers": tiers, "index_sha256": digest,
            "sizes": {k: len(v) for k, v in result.subsets.items()},
            "manifests": [str(p) for p in paths],
            "shortfalls": [{"subset": s.subset, "cell": s.cell, "have": s.have, "need": s.need}
                           for s in result.shortfalls],
            "unplaced": [{"id": s.id, "reason": s.reason} for s in result.skipped],
        })
        return
    console.print(f"{len(cands)} placeable task(s), {len(skipped)} not placeable; seed {seed}, "
                  f"tiers from {tiers}")
    for name in ("lite", "medium", "full"):
        console.print(f"  {name}: {len(result.subsets[name])} task(s)")
    for s in result.shortfalls:
        console.print(f"  lacking: {s.subset} {s.cell} has {s.have}, needs {s.need}",
                      markup=False)
    for p in paths:
        console.print(f"wrote {p}")


@subsets_app.command("diff")
def diff(
    old: Path = typer.Argument(..., help="Old manifest."),
    new: Path = typer.Argument(..., help="New manifest."),
    catalogue: Path | None = typer.Option(
        None, "--catalogue", help="Look removed tasks up in this catalogue for a reason."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """What changed between two manifests, and why."""
    from tambench.cli._console import console, print_json
    from tambench.tasks.subsets import diff_manifests, read_manifest

    d = diff_manifests(read_manifest(old), read_manifest(new), catalogue=catalogue)
    if json_out:
        print_json({
            "added": list(d.added), "removed": list(d.removed),
            "moved": [{"id": t, "from": a, "to": b} for t, a, b in d.moved],
            "header_changes": [{"key": k, "old": a, "new": b} for k, a, b in d.header_changes],
            "reasons": d.reasons,
        })
        return
    for k, a, b in d.header_changes:
        console.print(f"header {k}: {a or '-'} -> {b or '-'}", markup=False)
    for t in d.added:
        console.print(f"+ {t}: {d.reasons[t]}", markup=False)
    for t in d.removed:
        console.print(f"- {t}: {d.reasons[t]}", markup=False)
    for t, _, _ in d.moved:
        console.print(f"~ {t}: {d.reasons[t]}", markup=False)
    if d.unchanged:
        console.print("same tasks in the same cells")


def register(app: typer.Typer) -> None:
    """Attach the command group."""
    app.add_typer(subsets_app, name="subsets")
