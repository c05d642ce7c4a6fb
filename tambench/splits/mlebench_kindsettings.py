"""What MLE-bench split kinds' settings share: the split's seed and size, the answers, the
sample submission, the per-side folders of copied files and the raw files copied unchanged."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require
from tambench.errors import SplitError
from tambench.splits.layout import resolve_inside


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


def read_table(raw_root: Path, rel: str, columns: list[str]) -> Any:
    """A raw CSV table read as MLE-bench's ``read_csv`` helper reads it (floats round-trip),
    with the ``columns`` the script reads.

    Raises:
        SplitError: the table is missing, unreadable, or lacks one of ``columns``.
    """
    pd = pandas()
    path = resolve_inside(raw_root, rel, "MLE-bench recipe table")
    try:
        with warnings.catch_warnings():  # pandas 3 deprecates the option MLE-bench still gives
            warnings.filterwarnings("ignore", message=".*float_precision.*")
            frame = pd.read_csv(path, float_precision="round_trip")
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise SplitError(f"cannot read {rel} as MLE-bench does: {exc}") from exc
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise SplitError(f"{rel} lacks the column(s) {missing} MLE-bench reads; it has "
                         f"{list(frame.columns)}")
    return frame
