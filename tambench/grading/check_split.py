"""Consistency of local splits with the platform: local vs official scores of a baseline.

For each task, a baseline submission (typically the sample submission) with a known official
leaderboard score is graded locally against the prepared answers. Agreement is reported per
task and over tasks: the Pearson correlation of local and official scores, and the median
absolute difference of their leaderboard rank percentiles, in percentile points.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, computed_field

from tambench.core.fielddocs import DOCUMENTED
from tambench.core.leaderboard import read_leaderboard
from tambench.core.metrics import get_metric
from tambench.core.rank import rank_score
from tambench.errors import SplitError, TambenchError
from tambench.grading.grade import grade_submission
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import PRIVATE_DIR, plan_split, task_dir
from tambench.splits.quarantine import check_gradable
from tambench.splits.report import VersionedModel

REQUIRED_COLUMNS = ("task", "submission", "official_score")


class CheckRow(BaseModel):
    """One task's comparison."""

    model_config = DOCUMENTED

    task: str
    """The task reference as given."""
    submission: str
    """The baseline submission graded."""
    official_score: float
    """Its score on the platform's leaderboard (NaN when the input was not a number)."""
    local_score: float | None = None
    """Its score on the local split."""
    abs_error: float | None = None
    """|local - official|."""
    official_percentile: float | None = None
    """Leaderboard percentile of the official score."""
    local_percentile: float | None = None
    """Leaderboard percentile of the local score."""
    percentile_error_points: float | None = None
    """|local - official percentile| x 100."""
    error: str = ""
    """Why the row could not be scored (empty when it was)."""


class CheckSplitReport(VersionedModel):
    """All rows and the summary over tasks."""

    rows: list[CheckRow] = Field(default_factory=list)
    """One row per baseline."""
    pearson: float | None = None
    """Pearson correlation of local vs official scores (None with fewer than 3 scored tasks)."""
    median_percentile_error_points: float | None = None
    """Median |local percentile - official percentile| x 100 over tasks with a leaderboard."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def n_scored(self) -> int:
        """Rows with a local score."""
        return sum(r.local_score is not None for r in self.rows)

    @property
    def failed(self) -> list[CheckRow]:
        """Rows that could not be scored."""
        return [r for r in self.rows if r.error]


def read_check_input(path: Path) -> list[dict[str, str]]:
    """Rows of a check-split CSV: task, submission, official_score[, leaderboard]."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            missing = [c for c in REQUIRED_COLUMNS if c not in header]
            if missing:
                raise SplitError(f"{path} lacks column(s) {missing}; expected "
                                 f"{list(REQUIRED_COLUMNS)} (+ optional leaderboard), got {header}")
            rows = [dict(r) for r in reader]
    except FileNotFoundError:
        raise SplitError(f"check-split input {path} not found") from None
    base = path.parent
    for r in rows:
        for key in ("submission", "leaderboard"):
            if r.get(key) and not Path(r[key]).is_absolute():
                r[key] = str(base / r[key])
    return rows


def pearson(x: list[float], y: list[float]) -> float | None:
    """Pearson correlation, None with fewer than 3 points or a constant side.

    >>> pearson([1.0, 2.0, 3.0], [2.0, 4.0, 6.5])
    0.9979487157886733
    """
    if len(x) < 3:
        return None
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def check_split(
    rows: list[dict[str, str]],
    resolve_spec: Callable[[str], TaskSpec],
    data_dir: Path,
    *,
    leaderboard_for: Callable[[TaskSpec], Path | None] | None = None,
) -> CheckSplitReport:
    """Grade each baseline locally and compare with its official score."""
    report = CheckSplitReport()
    for raw in rows:
        try:
            official = float(raw["official_score"])
        except ValueError:
            official = math.nan
        row = CheckRow(task=raw["task"], submission=raw["submission"], official_score=official)
        report.rows.append(row)
        if not math.isfinite(official):
            row.error = f"official_score {raw['official_score']!r} is not a finite number"
            continue
        try:
            spec = resolve_spec(raw["task"])
            if spec.grading is None:
                raise SplitError(f"task {spec.id} has no grading spec")
            check_gradable(task_dir(spec, data_dir))
            answers = task_dir(spec, data_dir) / PRIVATE_DIR / plan_split(spec).answers_file
            if not answers.is_file():
                raise SplitError(f"{answers} missing: prepare {spec.id} first")
            rep = grade_submission(Path(raw["submission"]), spec, answers)
            if not rep.valid_submission or rep.score is None:
                raise SplitError(f"the submission is invalid: {rep.errors}")
            row.local_score = float(rep.score)
            row.abs_error = abs(row.local_score - official)
            lb_path = Path(raw["leaderboard"]) if raw.get("leaderboard") else (
                leaderboard_for(spec) if leaderboard_for else None)
            if lb_path is not None:
                lb = read_leaderboard(lb_path).clean()
                hib = get_metric(spec.grading.metric).higher_is_better
                off, loc = rank_score(official, lb, hib), rank_score(row.local_score, lb, hib)
                row.official_percentile = off.rank / off.n
                row.local_percentile = loc.rank / loc.n
                row.percentile_error_points = 100 * abs(row.local_percentile
                                                        - row.official_percentile)
        except TambenchError as exc:
            row.error = str(exc)
    scored = [r for r in report.rows if r.local_score is not None]
    report.pearson = pearson([r.official_score for r in scored],
                             [float(r.local_score) for r in scored if r.local_score is not None])
    pct = [r.percentile_error_points for r in scored if r.percentile_error_points is not None]
    report.median_percentile_error_points = float(np.median(pct)) if pct else None
    return report
