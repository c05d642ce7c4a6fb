"""The grading report of one submission: a versioned pydantic model, written as strict JSON.

Field names follow MLE-bench's per-competition report (competition_id, score, the four
thresholds, the medal flags, above_median, submission_exists, valid_submission,
is_lower_better, created_at, submission_path) so users' tooling keeps working; tambench adds
rank, n_teams, percentile, errors, task_id, modality, tier and metric.

A report of a newer ``report_version`` than this tambench knows is refused with
:class:`ReportVersionError` (never half-read). No field ever holds NaN or infinity: the JSON is
strict.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from tambench.errors import ReportVersionError, TaskDataError

#: The report version this tambench writes and the newest it reads.
REPORT_VERSION = 1


class GradeReport(BaseModel):
    """What grading one submission produced."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    report_version: int = REPORT_VERSION
    """Version of this report format; newer versions are refused by older readers."""

    competition_id: str
    """The competition's slug (MLE-bench's name for it), e.g. "spaceship-titanic"."""

    task_id: str
    """tambench task id ``<platform>/<slug>``."""

    metric: str
    """Registered metric id the score was computed with."""

    score: float | None = None
    """The metric's value; null when the submission is missing or invalid."""

    gold_threshold: float | None = None
    """Score at the gold-medal position of the leaderboard (null without a leaderboard)."""

    silver_threshold: float | None = None
    """Score at the silver-medal position."""

    bronze_threshold: float | None = None
    """Score at the bronze-medal position."""

    median_threshold: float | None = None
    """Median leaderboard score."""

    any_medal: bool = False
    """Whether the score earns any medal."""

    gold_medal: bool = False
    """Whether the score reaches the gold threshold."""

    silver_medal: bool = False
    """Whether the score earns silver (and not gold)."""

    bronze_medal: bool = False
    """Whether the score earns bronze (and not gold or silver)."""

    above_median: bool = False
    """Whether the score is strictly better than the leaderboard median."""

    rank: int | None = None
    """1 + the number of leaderboard entries strictly better (null without a leaderboard)."""

    n_teams: int | None = None
    """Number of leaderboard rows with a finite score after junk rows are removed."""

    percentile: float | None = None
    """rank / n_teams: lower is better, best 1/n_teams (the paper's rank percentage)."""

    submission_exists: bool = False
    """Whether a submission file was found."""

    valid_submission: bool = False
    """Whether the submission passed validation and produced a finite score."""

    is_lower_better: bool = False
    """The metric's declared direction."""

    created_at: datetime
    """When the report was made (UTC)."""

    submission_path: str = ""
    """The submission file graded."""

    errors: list[str] = []
    """Every problem found, when the submission is missing or invalid."""

    modality: str | None = None
    """The task's modality (Tabular, Text, Image, Audio, Graph, Multimodal)."""

    tier: str | None = None
    """The task's difficulty tier (easy, medium, hard), when known."""

    @model_validator(mode="before")
    @classmethod
    def _refuse_newer_versions(cls, data: Any) -> Any:
        if isinstance(data, dict):
            version = data.get("report_version", REPORT_VERSION)
            if not isinstance(version, int) or isinstance(version, bool):
                raise ReportVersionError(f"report_version {version!r} is not an integer")
            if version > REPORT_VERSION:
                raise ReportVersionError(
                    f"report_version {version} is newer than this tambench reads "
                    f"({REPORT_VERSION}); upgrade tambench"
                )
            if version < 1:
                raise ReportVersionError(f"report_version {version} does not exist")
        return data

    @field_validator(
        "score", "gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold",
        "percentile",
    )
    @classmethod
    def _finite(cls, v: float | None) -> float | None:
        if v is not None and not math.isfinite(v):
            raise ValueError(f"{v!r} is not finite; reports hold finite numbers only")
        return v

    @property
    def medal(self) -> str | None:
        """"gold", "silver", "bronze" or None."""
        if self.gold_medal:
            return "gold"
        if self.silver_medal:
            return "silver"
        if self.bronze_medal:
            return "bronze"
        return None

    def to_json(self, *, indent: int | None = 2) -> str:
        """Strict JSON (NaN and infinity refused)."""
        return json.dumps(self.model_dump(mode="json"), indent=indent, allow_nan=False,
                          ensure_ascii=False)


def parse_report(text: str) -> GradeReport:
    """Read a report from JSON text, refusing newer versions with ReportVersionError."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskDataError(f"report is not valid JSON: {exc}") from None
    try:
        return GradeReport.model_validate(data)
    except ValidationError as exc:
        raise TaskDataError(f"report does not validate: {exc}") from None


def load_report(path: str | Path) -> GradeReport:
    """Read a report file (see :func:`parse_report`)."""
    return parse_report(Path(path).read_text(encoding="utf-8"))
