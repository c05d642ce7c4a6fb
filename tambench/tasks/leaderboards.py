"""Leaderboards inside a catalogue: the one writer of an entry's ``leaderboard.csv``.

A catalogue entry ships its final leaderboard in the compact form (``rank,score``, see
:func:`tambench.core.leaderboard.write_compact_leaderboard`) and records where it came from in
``task.json`` (:class:`~tambench.schema.taskspec.LeaderboardSource`: source, commit, path,
kind, row count, SHA-256 of the file as read, and the scale of its scores). Everything that
puts a board into a catalogue goes through :func:`store_leaderboard`: the shipping script
(``scripts/ship_leaderboards.py``), the importers and ``tambench leaderboard refresh``.

The scale (metric, direction, bounds) is what difficulty needs for an entry whose grading is
not declared yet; :func:`scale_of` reads it from the grading metric when there is one, else
from the leaderboard record, and :func:`scale_problems` lists any disagreement between the
two (a board whose recorded direction contradicts the task's metric is a data error).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

from tambench.core.layout import LEADERBOARD_FILE, TASK_FILE
from tambench.core.leaderboard import Leaderboard, leaderboard_to_compact_csv
from tambench.core.metrics import METRICS, get_metric
from tambench.errors import CatalogueError
from tambench.fileio import write_text_atomic
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.schema.taskspec import LeaderboardSource, TaskSpec


@dataclass(frozen=True)
class ScoreScale:
    """Direction and value range of a board's scores, and where they were read."""

    metric: str
    higher_is_better: bool
    lower_bound: float
    upper_bound: float
    origin: str
    """"grading" (the task's metric) or "leaderboard" (the board's own record)."""

    @property
    def bounded(self) -> bool:
        """Whether both ends of the range are finite."""
        return math.isfinite(self.lower_bound) and math.isfinite(self.upper_bound)

    @property
    def id(self) -> str:
        """The metric's id, or a description of the scale when none is recorded."""
        return self.metric or f"(scale recorded with the {self.origin})"


def source_sha256(data: bytes) -> str:
    """SHA-256 of a source file's bytes (recorded in :class:`LeaderboardSource`)."""
    return hashlib.sha256(data).hexdigest()


def scale_from_metric(metric_id: str, origin: str) -> ScoreScale:
    """The scale of a registered metric."""
    m = get_metric(metric_id)
    return ScoreScale(m.id, m.higher_is_better, m.lower_bound, m.upper_bound, origin)


def record_scale(metric_id: str) -> dict[str, object]:
    """The scale fields of a :class:`LeaderboardSource` for a registered metric (infinite
    bounds written as None)."""
    s = scale_from_metric(metric_id, "grading")
    return {"metric": s.metric, "higher_is_better": s.higher_is_better,
            "lower_bound": s.lower_bound if math.isfinite(s.lower_bound) else None,
            "upper_bound": s.upper_bound if math.isfinite(s.upper_bound) else None}


def scale_of(spec: TaskSpec) -> ScoreScale | None:
    """The scale of a task's board: its grading metric, else its leaderboard record.

    Returns None when neither says (no grading metric and no recorded direction). A grading
    metric that is not registered raises :class:`~tambench.errors.UnknownMetricError`.
    """
    if spec.grading is not None:
        return scale_from_metric(spec.grading.metric, "grading")
    rec = spec.leaderboard
    if rec is None or rec.higher_is_better is None:
        return None
    if rec.metric and rec.metric in METRICS:
        return scale_from_metric(rec.metric, "leaderboard")
    lo = -math.inf if rec.lower_bound is None else rec.lower_bound
    hi = math.inf if rec.upper_bound is None else rec.upper_bound
    return ScoreScale(rec.metric, rec.higher_is_better, lo, hi, "leaderboard")


def _bound(value: float | None, default: float) -> float:
    return default if value is None else value


def scale_problems(spec: TaskSpec) -> list[str]:
    """Disagreements between the grading metric, the recorded metric and the recorded scale."""
    rec = spec.leaderboard
    if rec is None or not rec.metric:
        return []
    problems: list[str] = []
    if spec.grading is not None and spec.grading.metric != rec.metric:
        problems.append(f"the leaderboard's scores are recorded as {rec.metric!r} but the task is "
                        f"graded with {spec.grading.metric!r}")
    if rec.metric not in METRICS:
        return problems
    m = METRICS[rec.metric]
    recorded = (rec.higher_is_better, _bound(rec.lower_bound, -math.inf),
                _bound(rec.upper_bound, math.inf))
    declared = (m.higher_is_better, m.lower_bound, m.upper_bound)
    if rec.higher_is_better is not None and recorded != declared:
        problems.append(f"the leaderboard record gives {rec.metric} the scale (higher is better "
                        f"{recorded[0]}, [{recorded[1]}, {recorded[2]}]) but the metric declares "
                        f"(higher is better {declared[0]}, [{declared[1]}, {declared[2]}])")
    return problems


def store_leaderboard(entry_dir: Path, lb: Leaderboard, source: LeaderboardSource) -> TaskSpec:
    """Write ``lb`` as the entry's compact ``leaderboard.csv`` and record ``source``.

    The row count of the record must match the board. ``n_teams`` is filled from a private
    board when the spec has none; no other field of the spec changes.
    """
    task_file = Path(entry_dir) / TASK_FILE
    if not task_file.is_file():
        raise CatalogueError(f"{entry_dir} holds no {TASK_FILE}; a leaderboard needs its task")
    if source.rows != len(lb):
        raise CatalogueError(f"leaderboard record says {source.rows} rows, the board has "
                             f"{len(lb)}")
    spec = load_taskspec(task_file)
    write_text_atomic(Path(entry_dir) / LEADERBOARD_FILE, leaderboard_to_compact_csv(lb))
    update: dict[str, object] = {"leaderboard": source}
    if spec.n_teams is None and source.kind == "private":
        update["n_teams"] = len(lb)
    unfilled = [f for f in spec.provenance.unfilled if f != "leaderboard"]
    if unfilled != spec.provenance.unfilled:
        update["provenance"] = spec.provenance.model_copy(update={"unfilled": unfilled})
    new = TaskSpec.model_validate({**spec.model_dump(), **{
        k: (v.model_dump() if hasattr(v, "model_dump") else v) for k, v in update.items()}})
    save_taskspec(new, task_file)
    return new
