"""Lite / Medium / Full subsets: balanced over modality x tier, nested, deterministic.

Cells are the 6 modalities x 3 tiers. Within each cell, tasks are ranked by: passing every
filter first, complete entries before stubs, then a seeded hash of the task id (sha256 of
``"<seed>:<id>"``; adding a task to the catalogue never reorders the others). Then:

* Lite takes the first task of each cell (18 when every cell has one);
* Medium takes the first 3 of each cell (54);
* Full takes up to 150: every cell gets the same quota (the largest level the catalogue allows
  under 150, "water-filling"), and what is left of 150 goes one task at a time to the cells
  that still have tasks, in modality then tier order.

Because each subset takes a prefix of the same ranking, Lite is inside Medium and Medium inside
Full. A cell with too few tasks is reported with what it has and what it needs; it is never
filled from another cell (Full's remainder is the one exception, and is reported as such).

Manifest files are sorted id lists with a ``#`` header::

    # tambench subset manifest
    # subset: lite
    # catalogue_index_sha256: 3f2a...
    # seed: 0
    # tiers: difficulty:paper
    # date: 2025-01-31
    # tasks: 18
    biendata/aqa  # Graph/hard
    ...

Each id line may carry its cell after ``#``; ``tambench subsets diff`` uses it to explain
changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from tambench.errors import DifficultyError, SubsetError, TambenchError
from tambench.schema.taskspec import Modality, TaskSpec, Tier

MODALITY_ORDER: tuple[Modality, ...] = tuple(Modality)
TIER_ORDER: tuple[Tier, ...] = (Tier.EASY, Tier.MEDIUM, Tier.HARD)
CELLS: tuple[tuple[Modality, Tier], ...] = tuple(
    (m, t) for m in MODALITY_ORDER for t in TIER_ORDER
)
LITE_PER_CELL = 1
MEDIUM_PER_CELL = 3
FULL_SIZE = 150
SUBSET_NAMES = ("lite", "medium", "full")
MANIFEST_MAGIC = "# tambench subset manifest"


def cell_name(modality: Modality | str, tier: Tier | str) -> str:
    """``Modality/tier`` label of a cell.

    >>> cell_name(Modality.GRAPH, Tier.HARD)
    'Graph/hard'
    """
    m = modality.value if isinstance(modality, Modality) else modality
    t = tier.value if isinstance(tier, Tier) else tier
    return f"{m}/{t}"


# --- manifests -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Manifest:
    """A subset manifest: header fields and the sorted ids (with their cells when known)."""

    name: str
    header: dict[str, str]
    cells: dict[str, str]
    """Task id -> cell label ("" when the line carries none)."""
    path: str = ""

    @property
    def ids(self) -> list[str]:
        """The ids, sorted."""
        return sorted(self.cells)


def render_manifest(name: str, header: dict[str, str], cells: dict[str, str]) -> str:
    """Manifest text: magic line, ``subset`` then the other header fields, then sorted ids."""
    lines = [MANIFEST_MAGIC, f"# subset: {name}"]
    lines += [f"# {k}: {v}" for k, v in header.items() if k not in {"subset", "tasks"}]
    lines.append(f"# tasks: {len(cells)}")
    for tid in sorted(cells):
        lines.append(f"{tid}  # {cells[tid]}" if cells[tid] else tid)
    return "\n".join(lines) + "\n"


def parse_manifest(text: str, *, source: str = "(manifest)") -> Manifest:
    """Parse manifest text (format in the module docstring)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != MANIFEST_MAGIC:
        raise SubsetError(f"{source} is not a subset manifest; expected the first line "
                          f"{MANIFEST_MAGIC!r}, got {lines[0][:60] if lines else '(empty)'!r}")
    header: dict[str, str] = {}
    cells: dict[str, str] = {}
    previous = ""
    for lineno, raw in enumerate(lines[1:], start=2):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if cells:
                raise SubsetError(f"{source} line {lineno}: header line after the first id")
            key, sep, value = line[1:].partition(":")
            if not sep:
                raise SubsetError(f"{source} line {lineno}: header lines are '# key: value', "
                                  f"got {line!r}")
            header[key.strip()] = value.strip()
            continue
        tid, _, cell = line.partition("#")
        tid = tid.strip()
        if "/" not in tid or " " in tid:
            raise SubsetError(f"{source} line {lineno}: expected a task id <platform>/<slug>, "
                              f"got {tid!r}")
        if tid in cells:
            raise SubsetError(f"{source} line {lineno}: {tid} listed twice")
        if tid < previous:
            raise SubsetError(f"{source} line {lineno}: ids must be sorted; {tid} after "
                              f"{previous}")
        previous = tid
        cells[tid] = cell.strip()
    if "subset" not in header:
        raise SubsetError(f"{source} has no '# subset: <name>' header line")
    if "tasks" in header and header["tasks"] != str(len(cells)):
        raise SubsetError(f"{source} says tasks: {header['tasks']} but lists {len(cells)}")
    return Manifest(header["subset"], header, cells, source)


def read_manifest(path: str | Path) -> Manifest:
    """Read a manifest file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SubsetError(f"manifest not found: {p}") from None
    return parse_manifest(text, source=str(p))


# --- candidates ------------------------------------------------------------------------------


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


def tier_of(spec: TaskSpec, tier_source: str, leaderboard: Path | None) -> Tier:
    """A task's tier from ``tier_source``.

    ``difficulty:<method>`` reads the stored difficulty of that method, or computes it from the
    entry's leaderboard and metric when none is stored; ``reference:<name>`` reads
    ``reference_tiers[name]`` (e.g. ``reference:tam-bench``, ``reference:mle-bench``).
    """
    from tambench.difficulty.compare import parse_tier
    from tambench.difficulty.formula import compute_difficulty, find_method

    kind, _, name = tier_source.partition(":")
    if kind == "reference":
        if name not in spec.reference_tiers:
            raise SubsetError(f"no reference tier {name!r}")
        return parse_tier(spec.reference_tiers[name])
    if kind != "difficulty" or name not in ("paper", "robust"):
        raise SubsetError(f"unknown tier source {tier_source!r}; expected difficulty:paper, "
                          "difficulty:robust or reference:<name>")
    if spec.difficulty is not None:
        stored = find_method(spec.difficulty, name)  # type: ignore[arg-type]
        if stored is not None:
            return stored.tier
    if spec.grading is None or leaderboard is None or not leaderboard.is_file():
        raise SubsetError("no stored difficulty, and no leaderboard and metric to compute it")
    from tambench.core.leaderboard import read_leaderboard
    from tambench.core.metrics import get_metric

    result = compute_difficulty(read_leaderboard(leaderboard), get_metric(spec.grading.metric),
                                name)  # type: ignore[arg-type]
    return result.tier


def candidates_from_catalogue(
    root: Path, tier_source: str = "difficulty:paper", leaderboards: Path | None = None
) -> tuple[list[Candidate], list[Skipped]]:
    """Every placeable task of a catalogue, and every task that is not with its reason.

    Entries without a leaderboard of their own use one from ``leaderboards`` when given.
    """
    from tambench.difficulty.batch import find_leaderboard
    from tambench.tasks.catalogue import Catalogue
    from tambench.tasks.filters import evaluate_rules, passes_filters

    cands: list[Candidate] = []
    skipped: list[Skipped] = []
    for entry in Catalogue(root):
        spec = entry.spec
        if spec.modality is None:
            skipped.append(Skipped(spec.id, "no modality"))
            continue
        try:
            tier = tier_of(spec, tier_source,
                           find_leaderboard(entry.path, spec.id, leaderboards))
        except (SubsetError, DifficultyError) as exc:
            skipped.append(Skipped(spec.id, f"no tier ({exc})"))
            continue
        except TambenchError as exc:  # unreadable leaderboard, unknown metric: name it
            skipped.append(Skipped(spec.id, f"no tier ({type(exc).__name__}: {exc})"))
            continue
        cands.append(Candidate(spec.id, spec.modality, tier,
                               passes_filters(evaluate_rules(spec)), spec.status == "complete"))
    return cands, skipped


# --- building --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shortfall:
    """A cell holding fewer tasks than a subset asks for."""

    subset: str
    cell: str
    have: int
    need: int


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

    def ids(self, name: str) -> list[str]:
        """Sorted ids of one subset."""
        return sorted(self.subsets[name])


def rank_key(c: Candidate, seed: int) -> tuple[bool, bool, str]:
    """Sort key within a cell: filter-passing, complete, then the seeded hash of the id."""
    digest = hashlib.sha256(f"{seed}:{c.id}".encode()).hexdigest()
    return (not c.passes_filters, not c.complete, digest)


def full_quotas(available: Sequence[int], total: int) -> list[int]:
    """Per-cell quotas summing to at most ``total``, as even as the availabilities allow.

    >>> full_quotas([10, 10, 1], 12)
    [6, 5, 1]
    """
    level = 0
    while sum(min(a, level + 1) for a in available) <= total and level < max(available, default=0):
        level += 1
    quotas = [min(a, level) for a in available]
    left = total - sum(quotas)
    for i, a in enumerate(available):
        if left <= 0:
            break
        if a > quotas[i]:
            quotas[i] += 1
            left -= 1
    return quotas


def build_subsets(
    candidates: Iterable[Candidate],
    *,
    seed: int = 0,
    lite_per_cell: int = LITE_PER_CELL,
    medium_per_cell: int = MEDIUM_PER_CELL,
    full_size: int = FULL_SIZE,
    skipped: Iterable[Skipped] = (),
) -> SubsetBuild:
    """Build Lite, Medium and Full from placeable candidates (see the module docstring)."""
    if not 0 < lite_per_cell <= medium_per_cell:
        raise SubsetError(f"need 0 < lite_per_cell <= medium_per_cell, got {lite_per_cell} and "
                          f"{medium_per_cell}")
    if full_size < medium_per_cell * len(CELLS):
        raise SubsetError(f"full_size {full_size} is smaller than Medium "
                          f"({medium_per_cell * len(CELLS)})")
    cands = list(candidates)
    seen: set[str] = set()
    for c in cands:
        if c.id in seen:
            raise SubsetError(f"task {c.id} given twice")
        seen.add(c.id)
    ranking: dict[str, list[Candidate]] = {cell_name(m, t): [] for m, t in CELLS}
    for c in cands:
        ranking[cell_name(c.modality, c.tier)].append(c)
    for members in ranking.values():
        members.sort(key=lambda c: rank_key(c, seed))
    labels = list(ranking)
    quotas = full_quotas([len(ranking[k]) for k in labels], full_size)
    subsets: dict[str, dict[str, str]] = {"lite": {}, "medium": {}, "full": {}}
    shortfalls: list[Shortfall] = []
    balanced_share = full_size // len(CELLS)
    for label, quota in zip(labels, quotas, strict=True):
        members = ranking[label]
        for name, take in (("lite", lite_per_cell), ("medium", medium_per_cell),
                           ("full", quota)):
            for c in members[:take]:
                subsets[name][c.id] = label
        for name, need in (("lite", lite_per_cell), ("medium", medium_per_cell),
                           ("full", balanced_share)):
            if len(members) < need:
                shortfalls.append(Shortfall(name, label, len(members), need))
    return SubsetBuild(
        seed=seed,
        subsets=subsets,
        shortfalls=tuple(shortfalls),
        skipped=tuple(skipped),
        ranking={k: [c.id for c in v] for k, v in ranking.items()},
    )


def write_manifests(
    build: SubsetBuild,
    out_dir: Path,
    *,
    index_sha256: str,
    tier_source: str,
    day: date | None = None,
) -> list[Path]:
    """Write ``lite.txt``, ``medium.txt`` and ``full.txt`` into ``out_dir``."""
    from tambench.fileio import write_text_atomic

    day = day or date.today()
    paths = []
    for name in SUBSET_NAMES:
        header = {"catalogue_index_sha256": index_sha256, "seed": str(build.seed),
                  "tiers": tier_source, "date": day.isoformat()}
        path = Path(out_dir) / f"{name}.txt"
        write_text_atomic(path, render_manifest(name, header, build.subsets[name]))
        paths.append(path)
    return paths


# --- diff ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ManifestDiff:
    """What changed between two manifests, and the reasons that can be told."""

    old: Manifest
    new: Manifest
    added: tuple[str, ...]
    removed: tuple[str, ...]
    moved: tuple[tuple[str, str, str], ...]
    """(id, old cell, new cell) for ids in both whose cell changed."""
    header_changes: tuple[tuple[str, str, str], ...]
    """(key, old value, new value)."""
    reasons: dict[str, str]
    """Task id -> why it was added, removed or moved."""

    @property
    def unchanged(self) -> bool:
        """Whether both manifests list the same ids in the same cells."""
        return not (self.added or self.removed or self.moved)


def diff_manifests(
    old: Manifest, new: Manifest, *, catalogue: Path | None = None,
    tier_source: str | None = None,
) -> ManifestDiff:
    """Compare two manifests; with ``catalogue``, removed tasks are looked up for a reason."""
    added = tuple(sorted(set(new.cells) - set(old.cells)))
    removed = tuple(sorted(set(old.cells) - set(new.cells)))
    moved = tuple(
        (t, old.cells[t], new.cells[t]) for t in sorted(set(old.cells) & set(new.cells))
        if old.cells[t] and new.cells[t] and old.cells[t] != new.cells[t]
    )
    keys = [k for k in dict.fromkeys([*old.header, *new.header]) if k not in {"date", "tasks"}]
    header_changes = tuple((k, old.header.get(k, ""), new.header.get(k, "")) for k in keys
                           if old.header.get(k, "") != new.header.get(k, ""))
    changed_keys = {k for k, _, _ in header_changes}
    context = []
    if "seed" in changed_keys:
        context.append(f"seed changed {old.header.get('seed')} -> {new.header.get('seed')}, "
                       "which reorders every cell")
    if "catalogue_index_sha256" in changed_keys:
        context.append("the catalogue changed (index hash differs)")
    if "tiers" in changed_keys:
        context.append(f"tier source changed {old.header.get('tiers')} -> "
                       f"{new.header.get('tiers')}")
    suffix = f" ({'; '.join(context)})" if context else ""

    current: dict[str, str] = {}
    if catalogue is not None:
        source = tier_source or new.header.get("tiers") or "difficulty:paper"
        cands, skipped = candidates_from_catalogue(catalogue, source)
        current = {c.id: cell_name(c.modality, c.tier) for c in cands}
        current.update({s.id: f"not placeable: {s.reason}" for s in skipped})
    reasons: dict[str, str] = {}
    for t, a, b in moved:
        reasons[t] = f"tier or modality changed: {a} -> {b}{suffix}"
    for t in removed:
        was = old.cells.get(t) or "unknown cell"
        if catalogue is None:
            reasons[t] = f"was in {was}; no longer selected{suffix}"
        elif t not in current:
            reasons[t] = f"was in {was}; no longer in the catalogue"
        elif current[t].startswith("not placeable"):
            reasons[t] = f"was in {was}; now {current[t]}"
        elif current[t] != was:
            reasons[t] = f"was in {was}; now in {current[t]}, whose quota is filled by " \
                         f"higher-ranked tasks{suffix}"
        else:
            reasons[t] = f"still in {was}, outranked by other tasks of the cell{suffix}"
    for t in added:
        cell = new.cells.get(t) or "unknown cell"
        reasons[t] = f"selected in {cell}{suffix}"
    return ManifestDiff(old, new, added, removed, moved, header_changes, reasons)
