"""What MLE-bench split kinds' settings share: the split's seed and size, the answers, the
sample submission, the per-side folders of copied files and the raw files copied unchanged."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require


class KindSettings(BaseModel):
    """The settings every kind of :mod:`tambench.splits.mlebench_kinds` here reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    test_size: float = Field(gt=0, lt=1)
    random_state: int
    train_to: str
    answers_to: str
    sample_to: str
    sample_values: dict[str, int | float | str] = Field(min_length=1)
    """Columns of the sample submission (the answers' rows) set to a constant."""
    train_files_to: str
    """Folder of the training side's copied files."""
    test_files_to: str
    copies: dict[str, str] = Field(default_factory=dict)
    """Destination -> raw file copied unchanged."""


def pandas() -> Any:
    """pandas, or the error naming the extra that installs it."""
    return require("pandas", extra="mlebench", feature="prepare --like mle-bench")
