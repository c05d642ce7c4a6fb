"""Difficulty over a whole catalogue: every entry with a leaderboard and a known score scale.

An entry's scale is its grading metric, else the scale recorded with its shipped leaderboard
(:func:`tambench.tasks.leaderboards.scale_of`), so catalogue stubs whose board ships get a
tier too. An entry without either is skipped with its reason; an unreadable board or an
unknown metric is a failure of that entry only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tambench.core.layout import LEADERBOARD_FILE, TASK_FILE
from tambench.core.leaderboard import read_leaderboard
from tambench.difficulty.formula import DifficultyResult, tier_for
from tambench.difficulty.methods import DEFAULT_METHOD, METHODS, compute_all
from tambench.errors import DifficultyError, LeaderboardError, UnknownMetricError
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.schema.taskspec import TaskSpec
from tambench.tasks.catalogue import Catalogue, CatalogueEntry
from tambench.tasks.leaderboards import scale_of


@dataclass(frozen=True)
class EntryDifficulty:
    """The outcome for one catalogue entry."""

    task: str
    status: str
    """``ok``, ``skipped`` (nothing to compute from) or ``failed`` (an error, named)."""
    reason: str = ""
    metric: str = ""
    primary: DifficultyResult | None = None
    others: tuple[DifficultyResult, ...] = ()
    reference_tiers: dict[str, str] | None = None

    def result(self, method: str) -> DifficultyResult | None:
        """The result of one method, if computed."""
        for r in (self.primary, *self.others):
            if r is not None and r.method == method:
                return r
        return None


def find_leaderboard(entry_dir: Path, task_id: str, leaderboards: Path | None) -> Path | None:
    """The entry's own leaderboard.csv, else one supplied in ``leaderboards``.

    A supplied folder may hold ``<platform>/<slug>/leaderboard.csv`` or
    ``<slug>/leaderboard.csv`` (the layout of the paper's Lite data).
    """
    own = entry_dir / LEADERBOARD_FILE
    if own.is_file():
        return own
    if leaderboards is not None:
        slug = task_id.split("/", 1)[1]
        for cand in (leaderboards / task_id / LEADERBOARD_FILE,
                     leaderboards / slug / LEADERBOARD_FILE):
            if cand.is_file():
                return cand
    return None


def entry_difficulty(entry: CatalogueEntry, primary: str = DEFAULT_METHOD,
                     leaderboards: Path | None = None) -> EntryDifficulty:
    """Every method's difficulty of one entry (or why there is none)."""
    spec = entry.spec
    refs = dict(spec.reference_tiers)
    lb_path = find_leaderboard(entry.path, spec.id, leaderboards)
    if lb_path is None:
        return EntryDifficulty(spec.id, "skipped", f"no {LEADERBOARD_FILE}",
                               reference_tiers=refs)
    try:
        scale = scale_of(spec)
        if scale is None:
            return EntryDifficulty(spec.id, "skipped", "no grading metric and no score scale "
                                   "recorded with the leaderboard", reference_tiers=refs)
        first, others = compute_all(read_leaderboard(lb_path), scale, primary)
    except (UnknownMetricError, LeaderboardError, DifficultyError) as exc:
        return EntryDifficulty(spec.id, "failed", str(exc), reference_tiers=refs)
    return EntryDifficulty(spec.id, "ok", metric=scale.id, primary=first, others=tuple(others),
                           reference_tiers=refs)


def catalogue_difficulties(
    root: Path, primary: str = DEFAULT_METHOD, leaderboards: Path | None = None
) -> list[EntryDifficulty]:
    """Every method's difficulty of every entry of a catalogue, sorted by id."""
    return [entry_difficulty(e, primary, leaderboards)
            for e in sorted(Catalogue(root), key=lambda e: e.id)]


def store_difficulty(root: Path, results: list[EntryDifficulty]) -> list[str]:
    """Write each computed result into its task.json ``difficulty``; returns the ids written."""
    cat = Catalogue(root)
    written = []
    for r in results:
        if r.primary is None:
            continue
        path = cat.entry_path(r.task) / TASK_FILE
        spec = load_taskspec(path)
        save_taskspec(spec.model_copy(update={"difficulty": r.primary.to_model(r.others)}), path)
        written.append(r.task)
    return written


def stored_problems(spec: TaskSpec) -> list[str]:
    """Problems of the difficulty stored in a task.json: an unknown method, or a paper score
    whose tier contradicts the paper's thresholds."""
    if spec.difficulty is None:
        return []
    problems = []
    for d in (spec.difficulty, *spec.difficulty.other):
        if d.method not in METHODS:
            problems.append(METHODS.unknown_message(d.method))
        elif d.method == "paper" and tier_for(d.score) != d.tier:
            problems.append(f"difficulty score {d.score} is tier {tier_for(d.score).value} under "
                            f"the paper's thresholds, but the file says {d.tier.value}")
    return problems
