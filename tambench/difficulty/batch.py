"""Difficulty over a whole catalogue: every entry with a leaderboard and a registered metric."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tambench.difficulty.formula import (
    DifficultyResult,
    Method,
    compute_all,
)
from tambench.errors import DifficultyError, LeaderboardError, UnknownMetricError


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

    def result(self, method: Method) -> DifficultyResult | None:
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
    own = entry_dir / "leaderboard.csv"
    if own.is_file():
        return own
    if leaderboards is not None:
        slug = task_id.split("/", 1)[1]
        for cand in (leaderboards / task_id / "leaderboard.csv",
                     leaderboards / slug / "leaderboard.csv"):
            if cand.is_file():
                return cand
    return None


def catalogue_difficulties(
    root: Path, primary: Method = "paper", leaderboards: Path | None = None
) -> list[EntryDifficulty]:
    """Compute both methods for every entry of a catalogue, sorted by id.

    Entries without a leaderboard of their own use one from ``leaderboards`` when given.
    """
    from tambench.core.leaderboard import read_leaderboard
    from tambench.core.metrics import get_metric
    from tambench.tasks.catalogue import Catalogue

    out: list[EntryDifficulty] = []
    for entry in sorted(Catalogue(root), key=lambda e: e.id):
        spec = entry.spec
        refs = dict(spec.reference_tiers)
        if spec.grading is None:
            out.append(EntryDifficulty(spec.id, "skipped", "no grading metric declared",
                                       reference_tiers=refs))
            continue
        lb_path = find_leaderboard(entry.path, spec.id, leaderboards)
        if lb_path is None:
            out.append(EntryDifficulty(spec.id, "skipped", "no leaderboard.csv",
                                       metric=spec.grading.metric, reference_tiers=refs))
            continue
        try:
            metric = get_metric(spec.grading.metric)
            lb = read_leaderboard(lb_path)
            first, others = compute_all(lb, metric, primary)
        except (UnknownMetricError, LeaderboardError, DifficultyError) as exc:
            out.append(EntryDifficulty(spec.id, "failed", str(exc), metric=spec.grading.metric,
                                       reference_tiers=refs))
            continue
        out.append(EntryDifficulty(spec.id, "ok", metric=metric.id, primary=first,
                                   others=tuple(others), reference_tiers=refs))
    return out


def store_difficulty(root: Path, results: list[EntryDifficulty]) -> list[str]:
    """Write each computed result into its task.json ``difficulty``; returns the ids written."""
    from tambench.core.layout import TASK_FILE
    from tambench.schema.io import load_taskspec, save_taskspec
    from tambench.tasks.catalogue import Catalogue

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
