"""The files the split stage writes about itself, as versioned pydantic models.

Every model carries ``schema_version``; a file of a newer version than this tambench knows is
refused with :class:`ReportVersionError` (never half-read), and a version-less file of the
first format is read as version 1. Files are written as strict JSON with sorted keys, so the
same split gives the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from tambench.core.bounded import REPORT_BOUNDS, load_json
from tambench.core.fielddocs import DOCUMENTED
from tambench.errors import ReportVersionError, TaskDataError
from tambench.fileio import write_text_atomic
from tambench.schema.splitspec import omit_empty

M = TypeVar("M", bound="VersionedModel")


class VersionedModel(BaseModel):
    """A model written to disk: ``schema_version`` guards the format."""

    model_config = DOCUMENTED

    VERSION: ClassVar[int] = 1

    schema_version: int = 1
    """Version of this file's format; newer versions are refused by older readers."""

    @model_validator(mode="before")
    @classmethod
    def _known_version(cls, data: Any) -> Any:
        if isinstance(data, dict):
            version = data.get("schema_version", 1)
            if not isinstance(version, int) or isinstance(version, bool) or version < 1:
                raise ReportVersionError(
                    f"{cls.__name__}: schema_version must be a positive integer, got {version!r}")
            if version > cls.VERSION:
                raise ReportVersionError(
                    f"{cls.__name__} has schema_version {version}, but this tambench reads "
                    f"versions up to {cls.VERSION}; upgrade tambench to read it")
            # values computed from the others are written for readers, not read back
            data = {k: v for k, v in data.items() if k not in cls.model_computed_fields}
        return data

    def to_json(self) -> str:
        """Strict JSON (no NaN), sorted keys, one trailing newline."""
        return json.dumps(self.model_dump(mode="json"), indent=1, sort_keys=True,
                          allow_nan=False) + "\n"

    def write(self, path: Path) -> None:
        """Write :meth:`to_json` atomically."""
        write_text_atomic(path, self.to_json())

    @classmethod
    def read(cls: type[M], path: Path) -> M:
        """Read and validate a file written by :meth:`write`."""
        try:
            data = load_json(path, error=TaskDataError, bounds=REPORT_BOUNDS)
        except FileNotFoundError:
            raise TaskDataError(f"{path} not found") from None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise TaskDataError(f"{path} does not hold a valid {cls.__name__}:\n{exc}") from exc


class _Part(BaseModel):
    model_config = DOCUMENTED


class RowCounts(_Part):
    """Rows on each side."""

    train: int
    """Rows of public/train.csv."""
    test: int
    """Rows of public/test.csv (and of the answers)."""
    test_fraction: float
    """test / (train + test), rounded to 6 digits."""

    @classmethod
    def of(cls, n_train: int, n_test: int) -> RowCounts:
        """Counts and their fraction."""
        return cls(train=n_train, test=n_test,
                   test_fraction=round(n_test / max(n_train + n_test, 1), 6))


class ClassBalance(_Part):
    """Share of each value of a target column on each side."""

    train: dict[str, float]
    """Value -> share of train rows."""
    test: dict[str, float]
    """Value -> share of test rows."""


class GroupCounts(_Part):
    """Groups on each side of a group split."""

    column: str
    """The group column."""
    train: int
    """Distinct groups in train."""
    test: int
    """Distinct groups in test."""
    shared: int
    """Groups on both sides (0 by construction)."""


class TimeRanges(_Part):
    """Earliest and latest time on each side of a time split, spelled as in the table."""

    column: str
    """The time column."""
    train: list[str]
    """[earliest, latest] of train."""
    test: list[str]
    """[earliest, latest] of test."""


class FilesReport(_Part):
    """Per-row files placed into public/."""

    train: int
    """Files under public/train/."""
    test: int
    """Files under public/test/."""
    linked: int
    """Files hard-linked from the raw data."""
    copied: int
    """Files copied."""
    shared: int = 0
    """Rows whose file another row of the same side had already placed (one file, several
    rows); written only when not 0."""

    @model_serializer(mode="wrap")
    def _omit_no_sharing(self, handler: SerializerFunctionWrapHandler) -> Any:
        return omit_empty(handler(self), ("shared",))
    manifest: str
    """The manifest listing id, side and path of every file."""


class SampleReport(_Part):
    """The sample submission written to public/."""

    header: list[str]
    """Its header: the exact columns the grader expects."""
    rows: int
    """One per test id."""
    score: float | None = None
    """Its score by the grader (None without a grader or grading spec)."""


class SplitReport(VersionedModel):
    """What one prepare did: the settings it applied, sizes, balance and the files it wrote."""

    task_id: str
    """The task."""
    strategy: str
    """The split strategy."""
    settings: dict[str, Any]
    """Only the settings this strategy applied (test_size only where it sets the test size,
    seed only where it decides rows or order)."""
    rows: RowCounts
    """Rows on each side."""
    source_table: str
    """The raw table that was split (or the training table), relative to the raw data."""
    test_source: str | None = None
    """Two-table strategies: the raw file the test rows came from."""
    strata: int | None = None
    """Stratified splits: the number of strata."""
    groups: GroupCounts | None = None
    """Group splits: groups on each side."""
    time: TimeRanges | None = None
    """Time splits: the time range of each side."""
    class_balance: dict[str, ClassBalance] = Field(default_factory=dict)
    """Per target with few values: the share of each value on each side."""
    files: FilesReport | None = None
    """Per-row files, when the split has them."""
    sample_submission: SampleReport
    """The sample submission."""
    extra_public_files: list[str] = Field(default_factory=list)
    """Raw files copied unchanged into public/."""
    recipe_notes: list[str] = Field(default_factory=list)
    """What the recipe's transforms did (files listed, rows dropped and why); written only
    when there is something to say."""

    @model_serializer(mode="wrap")
    def _omit_no_notes(self, handler: SerializerFunctionWrapHandler) -> Any:
        return omit_empty(handler(self), ("recipe_notes",))
