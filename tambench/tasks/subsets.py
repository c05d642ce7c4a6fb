"""Lite / Medium / Full subsets: balanced over modality x tier, nested, deterministic.

Tiers are data here: the caller gives each task's :class:`TierAssignment` (computed by a
difficulty method or read from reference tiers, see :mod:`tambench.difficulty.tiers`); this
module never computes a tier.

Cells are the 6 modalities x 3 tiers. Within each cell, tasks are ranked by: complete
entries first (so a subset is gradable wherever the catalogue allows), then those the paper
itself put in the subset being built (its ``paper-lite.txt`` / ``paper-medium.txt``, when the
catalogue has them, and the tasks of its public Lite release), then those passing every filter, then a seeded hash of the task id
(sha256 of ``"<seed>:<id>"``: adding a task never reorders the others). Then:

* Lite takes the first task of each cell (18 when every cell has one);
* Medium takes Lite's task of each cell and the next 2 (54);
* Full is every complete task with a modality, plus Medium (so that Lite is inside Medium
  and Medium inside Full).

A cell with too few tasks is a :class:`Shortfall` with its reason (how many tasks of that
modality have that tier, how many have no tier and why); it is never filled from another cell.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from tambench.core.layout import SUBSETS_DIR
from tambench.errors import SubsetError
from tambench.fileio import write_text_atomic
from tambench.schema.taskspec import Modality, TaskSpec, Tier
from tambench.tasks.catalogue import Catalogue, CatalogueEntry
from tambench.tasks.dates import ended_within, is_rolling
from tambench.tasks.filters import evaluate_rules, passes_filters
from tambench.tasks.manifests import Manifest, read_manifest, render_manifest
from tambench.tasks.readiness import entry_gaps, not_ready_reason

MODALITY_ORDER: tuple[Modality, ...] = tuple(Modality)
TIER_ORDER: tuple[Tier, ...] = (Tier.EASY, Tier.MEDIUM, Tier.HARD)
CELLS: tuple[tuple[Modality, Tier], ...] = tuple(
    (m, t) for m in MODALITY_ORDER for t in TIER_ORDER
)
LITE_PER_CELL = 1
MEDIUM_PER_CELL = 3
SUBSET_NAMES = ("lite", "medium", "full")


def cell_name(modality: Modality | str, tier: Tier | str) -> str:
    """``Modality/tier`` label of a cell.

    >>> cell_name(Modality.GRAPH, Tier.HARD)
    'Graph/hard'
    """
    m = modality.value if isinstance(modality, Modality) else modality
    t = tier.value if isinstance(tier, Tier) else tier
    return f"{m}/{t}"


@dataclass(frozen=True)
class TierAssignment:
    """A task's tier from a tier source, or why it has none."""

    tier: Tier | None
    source: str = ""
    """Which source gave it (``difficulty:calibrated``, ``reference:tam-bench``)."""
    reason: str = ""
    """Why there is no tier (empty when there is one)."""


@dataclass(frozen=True)
class Candidate:
    """A task that can be placed in a cell."""

    id: str
    modality: Modality
    tier: Tier
    passes_filters: bool
    complete: bool


@dataclass(frozen=True)
class Skipped:
    """A catalogue task that cannot be placed, and why."""

    id: str
    reason: str
    modality: Modality | None = None


@dataclass(frozen=True)
class Selection:
    """Which of a catalogue's tasks a build may use: a collection's members, and those that
    ended within a date window (the contamination filter: ended on or after a model's
    training cutoff)."""

    ids: frozenset[str] | None = None
    """A collection's members (None: every entry)."""
    since: date | None = None
    until: date | None = None
    agent_ready: bool = True
    """Only agent-ready tasks (see :mod:`tambench.tasks.readiness`; the default): the others
    are left out with what they lack. False: every complete task (gradable)."""

    def considers(self, task_id: str) -> bool:
        """Whether the task is in the collection at all."""
        return self.ids is None or task_id in self.ids

    def excludes(self, spec: TaskSpec) -> str:
        """Why the dates keep a task of the collection out ("" when they do not)."""
        if self.since is None and self.until is None:
            return ""
        inside, why = ended_within(spec.start_date, spec.end_date, self.since, self.until,
                                   rolling=is_rolling(spec.provenance.facts))
        if inside is None:
            return f"dates unknown: {why}"
        window = " and ".join(part for part in (
            f"on or after {self.since}" if self.since else "",
            f"on or before {self.until}" if self.until else "") if part)
        return "" if inside else f"outside the date window: {why}, not {window}"


def candidates_from_catalogue(
    root: Path, tiers: Mapping[str, TierAssignment], selection: Selection | None = None
) -> tuple[list[Candidate], list[Skipped]]:
    """Every placeable task of a catalogue (within ``selection``), and every task that is
    not, with its reason."""
    cands: list[Candidate] = []
    skipped: list[Skipped] = []
    selection = selection or Selection()
    for entry in Catalogue(root):
        spec = entry.spec
        if not selection.considers(spec.id):
            continue
        excluded = selection.excludes(spec) or _not_ready(selection, entry)
        if excluded:
            skipped.append(Skipped(spec.id, excluded, spec.modality))
            continue
        if spec.modality is None:
            skipped.append(Skipped(spec.id, "no modality"))
            continue
        got = tiers.get(spec.id, TierAssignment(None, reason="no tier given"))
        if got.tier is None:
            skipped.append(Skipped(spec.id, f"no tier: {got.reason}", spec.modality))
            continue
        cands.append(Candidate(spec.id, spec.modality, got.tier,
                               passes_filters(evaluate_rules(spec)), spec.status == "complete"))
    return cands, skipped


# --- building --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shortfall:
    """A cell holding fewer tasks than a subset asks for, and why."""

    subset: str
    cell: str
    have: int
    need: int
    reason: str = ""


@dataclass(frozen=True)
class SubsetBuild:
    """The three subsets, their cells, and every shortfall."""

    seed: int
    subsets: dict[str, dict[str, str]]
    """Subset name -> {task id: cell label}."""
    shortfalls: tuple[Shortfall, ...]
    skipped: tuple[Skipped, ...] = field(default=())
    ranking: dict[str, list[str]] = field(default_factory=dict)
    """Cell label -> its candidates in rank order."""
    complete: frozenset[str] = frozenset()
    """Ids of the complete candidates."""

    def ids(self, name: str) -> list[str]:
        """Sorted ids of one subset."""
        return sorted(self.subsets[name])


def rank_key(c: Candidate, seed: int, preferred: Sequence[Collection[str]] = ()
             ) -> tuple[bool, int, bool, str]:
    """Sort key within a cell: complete, preferred (the index of the first group of
    ``preferred`` that holds it, e.g. the published release, then the paper's list),
    filter-passing, then the seeded hash of the id."""
    digest = hashlib.sha256(f"{seed}:{c.id}".encode()).hexdigest()
    rank = next((i for i, group in enumerate(preferred) if c.id in group), len(preferred))
    return (not c.complete, rank, not c.passes_filters, digest)


def _shortfall_reason(modality: Modality, tier: Tier, cands: list[Candidate],
                      skipped: Iterable[Skipped]) -> str:
    """Why a cell is short: the tiers this modality's tasks have, and why others have none."""
    tiers = Counter(c.tier.value for c in cands if c.modality == modality)
    untiered = Counter(_reason_kind(s.reason) for s in skipped if s.modality == modality)
    have = ", ".join(f"{n} {t}" for t, n in sorted(tiers.items())) or "none"
    text = f"{modality.value} tasks with a tier: {have}"
    if untiered:
        text += "; " + "; ".join(f"{n} {r}" for r, n in untiered.most_common())
    return text


def _reason_kind(reason: str) -> str:
    """A skip reason as a phrase after a count, without a task's own dates (so they group)."""
    for kind, phrase in (("dates unknown", "with unknown dates"),
                         ("outside the date window", "outside the date window")):
        if reason.startswith(kind):
            return phrase
    return f"with {reason}"


def _check_candidates(cands: list[Candidate], lite: int, medium: int) -> None:
    if not 0 < lite <= medium:
        raise SubsetError(f"need 0 < lite_per_cell <= medium_per_cell, got {lite} and {medium}")
    seen: set[str] = set()
    for c in cands:
        if c.id in seen:
            raise SubsetError(f"task {c.id} given twice")
        seen.add(c.id)


def build_subsets(
    candidates: Iterable[Candidate],
    *,
    seed: int = 0,
    lite_per_cell: int = LITE_PER_CELL,
    medium_per_cell: int = MEDIUM_PER_CELL,
    skipped: Iterable[Skipped] = (),
    complete: Iterable[tuple[str, Modality]] = (),
    preferred: Mapping[str, Sequence[Collection[str]]] | None = None,
) -> SubsetBuild:
    """Build Lite, Medium and Full (see the module docstring).

    ``complete`` lists (id, modality) of every complete task, tier or not: Full holds them all.
    ``preferred`` (subset name -> groups of ids, most preferred first) ranks those ids first
    among equally complete tasks of a cell: the paper's public release, then the paper's own
    membership (:func:`paper_preferences`).
    """
    preferred = preferred or {}
    cands = list(candidates)
    skipped = tuple(skipped)
    _check_candidates(cands, lite_per_cell, medium_per_cell)
    ranking: dict[str, list[Candidate]] = {cell_name(m, t): [] for m, t in CELLS}
    for c in cands:
        ranking[cell_name(c.modality, c.tier)].append(c)
    subsets: dict[str, dict[str, str]] = {"lite": {}, "medium": {}, "full": {}}
    shortfalls: list[Shortfall] = []
    for (modality, tier), (label, members) in zip(CELLS, ranking.items(), strict=True):
        lite = sorted(members, key=lambda c: rank_key(c, seed, preferred.get("lite", ())))
        lite = lite[:lite_per_cell]
        members.sort(key=lambda c: rank_key(c, seed, preferred.get("medium", ())))
        members[:] = [*lite, *(c for c in members if c not in lite)]  # Lite inside Medium
        for name, take in (("lite", lite_per_cell), ("medium", medium_per_cell)):
            subsets[name].update({c.id: label for c in members[:take]})
            if len(members) < take:
                shortfalls.append(Shortfall(name, label, len(members), take,
                                            _shortfall_reason(modality, tier, cands, skipped)))
    placed = {c.id: cell_name(c.modality, c.tier) for c in cands}
    full = {tid: placed.get(tid, modality.value) for tid, modality in complete}
    subsets["full"] = {**full, **subsets["medium"]}
    return SubsetBuild(
        seed=seed, subsets=subsets, shortfalls=tuple(shortfalls), skipped=skipped,
        ranking={k: [c.id for c in v] for k, v in ranking.items()},
        complete=frozenset(tid for tid, _ in complete))


def paper_preferences(root: Path) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Subset name -> the ids the paper put in it, most preferred first: the tasks of the
    paper's public Lite release (those carrying its ``tam-bench`` tier), which it published as
    Lite and whose graders and boards researchers compare with, then the catalogue's
    ``paper-<name>.txt`` (the paper's own list, which differs from the release in one Image
    task)."""
    release = frozenset(e.id for e in Catalogue(root).readable_entries()[0]
                        if "tam-bench" in e.spec.reference_tiers)
    out: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
    for name in ("lite", "medium"):
        path = Path(root) / SUBSETS_DIR / f"paper-{name}.txt"
        listed = frozenset(read_manifest(path).ids) if path.is_file() else frozenset()
        out[name] = (release, listed)
    return out


def complete_tasks(root: Path, selection: Selection | None = None
                   ) -> list[tuple[str, Modality]]:
    """(id, modality) of every complete entry with a modality (within ``selection``)."""
    selection = selection or Selection()
    return [(e.id, e.spec.modality) for e in Catalogue(root)
            if e.spec.status == "complete" and e.spec.modality is not None
            and selection.considers(e.id) and not selection.excludes(e.spec)
            and not _not_ready(selection, e)]


def _not_ready(selection: Selection, entry: CatalogueEntry) -> str:
    """Why an agent-ready build leaves the entry out ("" when it does not)."""
    if not selection.agent_ready:
        return ""
    gaps = entry_gaps(entry)
    return not_ready_reason(gaps) if gaps else ""


def write_manifests(
    build: SubsetBuild,
    out_dir: Path,
    *,
    index_sha256: str,
    tier_source: str,
    day: date | None = None,
    extra: Mapping[str, str] | None = None,
) -> list[Path]:
    """Write ``lite.txt``, ``medium.txt`` and ``full.txt`` into ``out_dir`` (``extra``: more
    header fields, such as the collection and date window the build used)."""
    day = day or date.today()
    paths = []
    for name in SUBSET_NAMES:
        header = {"catalogue_index_sha256": index_sha256, "seed": str(build.seed),
                  "tiers": tier_source, **(extra or {}), "date": day.isoformat()}
        path = Path(out_dir) / f"{name}.txt"
        write_text_atomic(path, render_manifest(name, header, build.subsets[name]))
        paths.append(path)
    return paths


# --- diff ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ManifestDiff:
    """What changed between two manifests, each change with its own reason."""

    old: Manifest
    new: Manifest
    added: tuple[str, ...]
    removed: tuple[str, ...]
    moved: tuple[tuple[str, str, str], ...]
    """(id, old cell, new cell) for ids in both whose cell really changed."""
    header_changes: tuple[tuple[str, str, str], ...]
    """(key, old value, new value); the date and the task count are not changes."""
    reasons: dict[str, str]
    """Task id -> why it was added, removed or moved."""

    @property
    def unchanged(self) -> bool:
        """Whether both manifests list the same ids in the same cells."""
        return not (self.added or self.removed or self.moved)


def same_cell(a: str, b: str) -> bool:
    """Whether two cell labels name the same cell; a label without a tier (the paper's
    manifests say only the modality) matches any tier of its modality.

    >>> same_cell("Image", "Image/easy"), same_cell("Image/easy", "Image/hard")
    (True, False)
    """
    if not a or not b:
        return True
    ma, _, ta = a.partition("/")
    mb, _, tb = b.partition("/")
    return ma.lower() == mb.lower() and (not ta or not tb or ta == tb)


def diff_manifests(old: Manifest, new: Manifest, *,
                   current: Mapping[str, str] | None = None) -> ManifestDiff:
    """Compare two manifests.

    ``current`` (task id -> its cell now, or ``"not placeable: <why>"``), when given, lets a
    removed task say why it left.
    """
    added = tuple(sorted(set(new.cells) - set(old.cells)))
    removed = tuple(sorted(set(old.cells) - set(new.cells)))
    moved = tuple((t, old.cells[t], new.cells[t]) for t in sorted(set(old.cells) & set(new.cells))
                  if not same_cell(old.cells[t], new.cells[t]))
    keys = [k for k in dict.fromkeys([*old.header, *new.header]) if k not in {"date", "tasks"}]
    header_changes = tuple((k, old.header.get(k, ""), new.header.get(k, "")) for k in keys
                           if old.header.get(k, "") != new.header.get(k, ""))
    reasons: dict[str, str] = {}
    for t, a, b in moved:
        reasons[t] = f"its cell changed: {a} -> {b}"
    for t in added:
        reasons[t] = f"selected in {new.cells.get(t) or 'an unrecorded cell'}"
    for t in removed:
        was = old.cells.get(t) or "an unrecorded cell"
        now = (current or {}).get(t)
        if current is None:
            reasons[t] = (f"was in {was}; not in the new manifest (no catalogue given to "
                          "say why)")
        elif now is None:
            reasons[t] = f"was in {was}; no longer in the catalogue"
        elif now.startswith("not placeable"):
            reasons[t] = f"was in {was}; {now}"
        elif not same_cell(was, now):
            reasons[t] = f"was in {was}; its cell is now {now}, filled by higher-ranked tasks"
        else:
            reasons[t] = f"still in {now}, but higher-ranked tasks fill the cell"
    return ManifestDiff(old, new, added, removed, moved, header_changes, reasons)
