"""The grading report of one submission: a versioned pydantic model, written as strict JSON.

Field names follow MLE-bench's per-competition report (competition_id, score, the four
thresholds, the medal flags, above_median, submission_exists, valid_submission,
is_lower_better, created_at, submission_path), with the same meanings, so users' tooling keeps
working; tambench adds rank, n_teams, rank_pct, errors, warnings, task_id, modality, tier and
metric.

Without a leaderboard the medal flags and ``above_median`` are null (unknown), never false, and
``warnings`` says so. ``rank_pct`` is ``100 * rank / n_teams``: lower is better.

A report of a newer ``report_version`` than this tambench knows is refused with
:class:`ReportVersionError` (never half-read); version 1 reports (``percentile`` = rank / N)
are read and converted. No field ever holds NaN or infinity: the JSON is strict.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ValidationError,
    computed_field,
    field_validator,
    model_validator,
)

from tambench.core.bounded import REPORT_BOUNDS, parse_json, read_bounded
from tambench.core.fielddocs import DOCUMENTED
from tambench.errors import ReportVersionError, TaskDataError

#: The report version this tambench writes and the newest it reads.
REPORT_VERSION = 2

#: MLE-bench's per-competition report fields, in its order (names and meanings kept).
MLE_BENCH_FIELDS = (
    "competition_id", "score", "gold_threshold", "silver_threshold", "bronze_threshold",
    "median_threshold", "any_medal", "gold_medal", "silver_medal", "bronze_medal",
    "above_median", "submission_exists", "valid_submission", "is_lower_better", "created_at",
    "submission_path",
)


def check_report_version(data: Any, newest: int, what: str = "report") -> int:
    """The ``report_version`` of a report about to be read; a newer or bogus one is refused.

    Raises:
        ReportVersionError: the version is not an integer, below 1 or newer than ``newest``.
    """
    version = data.get("report_version", newest) if isinstance(data, dict) else newest
    if not isinstance(version, int) or isinstance(version, bool):
        raise ReportVersionError(f"{what} report_version {version!r} is not an integer")
    if version > newest:
        raise ReportVersionError(
            f"{what} report_version {version} is newer than this tambench reads ({newest}); "
            "upgrade tambench"
        )
    if version < 1:
        raise ReportVersionError(f"{what} report_version {version} does not exist")
    return int(version)


def migrate_v1_fields(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 stored ``percentile`` = rank / N (0-1); version 2 stores ``rank_pct`` (0-100)."""
    out = {k: v for k, v in data.items() if k != "percentile"}
    pct = data.get("percentile")
    if "rank_pct" not in out:
        out["rank_pct"] = None if pct is None else 100.0 * float(pct)
    return out


class GradeFields(BaseModel):
    """What grading says about one submission; shared by a single report and a batch row."""

    model_config = DOCUMENTED

    competition_id: str | None = None
    """The competition's slug (MLE-bench's name for it), e.g. "spaceship-titanic"."""

    task_id: str | None = None
    """tambench task id ``<platform>/<slug>``."""

    metric: str | None = None
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

    any_medal: bool | None = None
    """Whether the score earns any medal (null: no leaderboard, unknown)."""

    gold_medal: bool | None = None
    """Whether the score reaches the gold threshold (null: unknown)."""

    silver_medal: bool | None = None
    """Whether the score earns silver and not gold (null: unknown)."""

    bronze_medal: bool | None = None
    """Whether the score earns bronze and not gold or silver (null: unknown)."""

    above_median: bool | None = None
    """Whether the score is strictly better than the leaderboard median (null: unknown)."""

    rank: int | None = None
    """1 + the number of leaderboard entries strictly better (null without a leaderboard)."""

    n_teams: int | None = None
    """Number of leaderboard rows with a finite score after junk rows are removed."""

    rank_pct: float | None = None
    """Rank percentage ``100 * rank / n_teams``: lower is better, best ``100 / n_teams``."""

    submission_exists: bool = False
    """Whether a submission file was found."""

    valid_submission: bool = False
    """Whether the submission passed validation and produced a finite score."""

    is_lower_better: bool | None = None
    """The metric's declared direction (null when the task is unknown)."""

    created_at: datetime | None = None
    """When the report was made (UTC)."""

    submission_path: str | None = None
    """The submission file graded."""

    errors: list[str] = []
    """Every problem found, when the submission is missing or invalid."""

    warnings: list[str] = []
    """What limits the report (e.g. no leaderboard: rank and medals unknown)."""

    modality: str | None = None
    """The task's modality (Tabular, Text, Image, Audio, Graph, Multimodal)."""

    tier: str | None = None
    """The task's difficulty tier (easy, medium, hard), when known."""

    @field_validator(
        "score", "gold_threshold", "silver_threshold", "bronze_threshold", "median_threshold",
        "rank_pct",
    )
    @classmethod
    def _finite(cls, v: float | None) -> float | None:
        if v is not None and not math.isfinite(v):
            raise ValueError(f"{v!r} is not finite; reports hold finite numbers only")
        return v

    @model_validator(mode="before")
    @classmethod
    def _drop_derived(cls, data: Any) -> Any:
        """``medal`` is written for readers (it follows from the medal flags); reading a report
        back recomputes it."""
        if isinstance(data, dict) and "medal" in data:
            data = {k: v for k, v in data.items() if k != "medal"}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def medal(self) -> str | None:
        """"gold", "silver", "bronze" or null (none, or unknown without a leaderboard)."""
        if self.gold_medal:
            return "gold"
        if self.silver_medal:
            return "silver"
        if self.bronze_medal:
            return "bronze"
        return None


class GradeReport(GradeFields):
    """What grading one submission produced."""

    report_version: int = REPORT_VERSION
    """Version of this report format; newer versions are refused by older readers."""

    competition_id: str
    """The competition's slug (MLE-bench's name for it), e.g. "spaceship-titanic"."""

    task_id: str
    """tambench task id ``<platform>/<slug>``."""

    metric: str
    """Registered metric id the score was computed with."""

    is_lower_better: bool = False
    """The metric's declared direction."""

    created_at: datetime
    """When the report was made (UTC)."""

    submission_path: str = ""
    """The submission file graded."""

    leaderboard_order_inversions: int | None = None
    """Adjacent pairs of the leaderboard (junk rows dropped) ordered against the metric's
    declared direction; null without a leaderboard. Above zero, rank and medals rest on a
    direction the board contradicts, and ``warnings`` says so."""

    @model_validator(mode="before")
    @classmethod
    def _read_known_versions(cls, data: Any) -> Any:
        version = check_report_version(data, REPORT_VERSION)
        if version == 1 and isinstance(data, dict):
            return {**migrate_v1_fields(data), "report_version": REPORT_VERSION}
        return data

    def to_json(self, *, indent: int | None = 2) -> str:
        """Strict JSON (NaN and infinity refused), ``report_version`` first."""
        data = self.model_dump(mode="json")
        ordered = {"report_version": data.pop("report_version"), **data}
        return json.dumps(ordered, indent=indent, allow_nan=False, ensure_ascii=False)


def parse_report(text: str | bytes, source: str = "report") -> GradeReport:
    """Read a report from JSON text (through the bounded loader), refusing newer versions
    with ReportVersionError; ``source`` names it in messages."""
    data = parse_json(text, source, error=TaskDataError, bounds=REPORT_BOUNDS)
    try:
        return GradeReport.model_validate(data)
    except ValidationError as exc:
        raise TaskDataError(f"{source} does not validate: {exc}") from None


def load_report(path: str | Path) -> GradeReport:
    """Read a report file (see :func:`parse_report`)."""
    return parse_report(read_bounded(path, REPORT_BOUNDS, TaskDataError), str(path))
