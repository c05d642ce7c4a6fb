"""Tier sources: where a task's tier comes from when subsets are built or tasks are listed.

A tier source is written ``kind:name``; several, separated by commas, are tried in order and
the first that gives a tier wins:

* ``difficulty:<method>``: computed by a registered difficulty method
  (:data:`~tambench.difficulty.methods.METHODS`) from the entry's leaderboard and score scale;
  an entry with neither uses the result of that method stored in its ``task.json``, if any.
  ``difficulty`` alone is the default method.
* ``reference:<name>``: the entry's ``reference_tiers[name]`` (``mle-bench``: low / medium /
  high read as easy / medium / hard; ``tam-bench``: the paper's release).

An unknown kind, method or reference name is refused with the valid choices
(:func:`parse_tier_source`), so that a typo never yields an empty subset.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from tambench.core.progress import Progress
from tambench.difficulty.batch import entry_difficulty
from tambench.difficulty.compare import parse_tier
from tambench.difficulty.formula import find_method
from tambench.difficulty.methods import DEFAULT_METHOD, METHODS
from tambench.errors import DifficultyError
from tambench.schema.taskspec import Tier
from tambench.tasks.catalogue import Catalogue, CatalogueEntry
from tambench.tasks.subsets import (
    Selection,
    SubsetBuild,
    TierAssignment,
    build_subsets,
    candidates_from_catalogue,
    complete_tasks,
    paper_preferences,
)

KINDS = ("difficulty", "reference")
#: The default tier source: the paper release's published tiers where it published them (its
#: Lite tasks), the default difficulty method for every other task.
DEFAULT_TIER_SOURCE = f"reference:tam-bench,difficulty:{DEFAULT_METHOD}"


@dataclass(frozen=True)
class TierSource:
    """One parsed ``kind:name``."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


def reference_names(root: Path) -> list[str]:
    """Every reference-tier name some readable entry of the catalogue carries, sorted."""
    entries, _ = Catalogue(root).readable_entries()
    return sorted({k for e in entries for k in e.spec.reference_tiers})


def default_tier_source(references: list[str]) -> str:
    """:data:`DEFAULT_TIER_SOURCE` without the reference tiers a catalogue does not carry."""
    parts = [p for p in DEFAULT_TIER_SOURCE.split(",")
             if not p.startswith("reference:") or p.partition(":")[2] in references]
    return ",".join(parts)


def parse_tier_source(text: str, *, references: list[str]) -> list[TierSource]:
    """Parse a tier source (comma-separated ``kind:name``), refusing unknown parts.

    >>> parse_tier_source("reference:tam-bench,difficulty", references=["tam-bench"])
    [TierSource(kind='reference', name='tam-bench'), TierSource(kind='difficulty', name='calibrated')]
    """
    out: list[TierSource] = []
    for part in (p.strip() for p in text.split(",")):
        kind, _, name = part.partition(":")
        if kind not in KINDS:
            raise DifficultyError(f"unknown tier source {part!r}; expected difficulty:<method> "
                                  f"(methods: {', '.join(METHODS.names())}) or reference:<name> "
                                  f"(in this catalogue: {', '.join(references) or 'none'})")
        if kind == "difficulty":
            name = name or DEFAULT_METHOD
            if name not in METHODS:
                raise DifficultyError(f"unknown difficulty method in tier source {part!r}; "
                                      f"valid: {', '.join(METHODS.names())}")
        elif name not in references:
            raise DifficultyError(f"unknown reference tier {name!r} in tier source {part!r}; "
                                  f"this catalogue has: {', '.join(references) or 'none'}")
        out.append(TierSource(kind, name))
    return out


def _from_reference(entry: CatalogueEntry, src: TierSource) -> TierAssignment:
    value = entry.spec.reference_tiers.get(src.name)
    if value is None:
        return TierAssignment(None, str(src), f"no {src.name} reference tier")
    return TierAssignment(parse_tier(value), str(src))


def _from_difficulty(entry: CatalogueEntry, src: TierSource) -> TierAssignment:
    result = entry_difficulty(entry, src.name)
    if result.primary is not None:
        return TierAssignment(result.primary.tier, str(src))
    stored = find_method(entry.spec.difficulty, src.name) if entry.spec.difficulty else None
    if stored is not None:
        return TierAssignment(stored.tier, f"{src} (stored)")
    return TierAssignment(None, str(src), result.reason)


_READERS: dict[str, Callable[[CatalogueEntry, TierSource], TierAssignment]] = {
    "reference": _from_reference,
    "difficulty": _from_difficulty,
}


def tier_of(entry: CatalogueEntry, sources: list[TierSource]) -> TierAssignment:
    """The first tier the sources give, or the reasons none did."""
    reasons = []
    for src in sources:
        got = _READERS[src.kind](entry, src)
        if got.tier is not None:
            return got
        reasons.append(got.reason)
    return TierAssignment(None, "", "; ".join(reasons))


def catalogue_tiers(root: Path, sources: list[TierSource], *, quiet: bool = False,
                    only: Collection[str] | None = None) -> dict[str, TierAssignment]:
    """Every readable entry's tier from ``sources`` (progress on stderr unless ``quiet``);
    ``only``: just these ids (a collection's members). An entry whose task.json cannot be
    read has no tier here; the commands name it."""
    readable, _ = Catalogue(root).readable_entries()
    entries = [e for e in readable if only is None or e.id in only]
    out: dict[str, TierAssignment] = {}
    with Progress("tiers read", total=len(entries), quiet=quiet,
                  kept=lambda: "no manifest written") as progress:
        for entry in entries:
            out[entry.id] = tier_of(entry, sources)
            progress.advance(note=entry.id)
    return out


def tier_counts(tiers: dict[str, TierAssignment]) -> dict[str, int]:
    """How many entries got each tier, and how many none."""
    counts = {t.value: 0 for t in (Tier.EASY, Tier.MEDIUM, Tier.HARD)} | {"none": 0}
    for a in tiers.values():
        counts[a.tier.value if a.tier else "none"] += 1
    return counts


def build_from_catalogue(root: Path, sources: list[TierSource], selection: Selection, *,
                         seed: int = 0, quiet: bool = False
                         ) -> tuple[SubsetBuild, dict[str, TierAssignment]]:
    """Lite, Medium and Full of a catalogue's selection, with each task's tier from
    ``sources`` (the paper's own membership preferred within a cell), and those tiers."""
    assigned = catalogue_tiers(root, sources, quiet=quiet, only=selection.ids)
    cands, skipped = candidates_from_catalogue(root, assigned, selection)
    result = build_subsets(cands, seed=seed, skipped=skipped,
                           complete=complete_tasks(root, selection),
                           preferred=paper_preferences(root))
    return result, assigned
