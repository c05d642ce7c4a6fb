"""A task's private answers as grading holds them: loaded once (:mod:`.loading`), then reused
for every submission.

Problems with the answers are our data's problems: they raise :class:`TaskDataError`, never
:class:`InvalidSubmissionError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from tambench.core.metrics.base import Metric
from tambench.errors import TambenchError, TaskDataError
from tambench.schema.taskspec import GradingSpec, SubmissionFormat
from tambench.validation.idindex import IdIndex, IdSet, KeyedIds

NUMERIC_KINDS = frozenset({"value", "probability"})


def answers_error(problems: list[str]) -> TambenchError:
    """The error a problem with an answers file becomes."""
    return TaskDataError("answers file is unusable: " + "; ".join(problems))


@dataclass(frozen=True)
class LabelSet:
    """The labels a column accepts: sorted (for messages) and as a set (for lookups)."""

    labels: list[str]
    members: frozenset[str]


@dataclass
class Answers(KeyedIds):
    """A task's private answers, loaded once and reused for every submission of the task."""

    path: Path
    grading: GradingSpec
    metric: Metric
    size: int
    n_rows: int = 0
    expected_header: list[str] = field(default_factory=list)
    key: pa.ChunkedArray | None = None
    """Row ids (joined with NUL when there are several id columns), as parsed (in chunks);
    None for positional."""
    y_true: Any = None
    """Targets of the scored rows in file order: float64 (n,) / (n, k) for numeric kinds,
    object str otherwise; for structured tasks the parsed document (dict/list) or list of
    lines."""
    aux: dict[str, np.ndarray] = field(default_factory=dict)
    """Auxiliary columns of the scored rows, keyed by keyword name (``groups`` for
    ``groups_column``)."""
    scored: np.ndarray | None = None
    """Positions of the scored rows among all answers rows, ascending (None: every row)."""
    universe: IdSet | None = None
    """The public id list a submission holds (``ids_from``), or None."""
    universe_rows: np.ndarray | None = None
    """For each answers row, its row in ``universe``."""
    params: dict[str, Any] = field(default_factory=dict)
    """Metric keyword arguments other than the auxiliary columns."""
    label_sets: dict[str, LabelSet | None] = field(default_factory=dict)
    """Allowed labels per target column (None: any string)."""
    identity: tuple[int, int] = (0, 0)
    """(device, inode) of the answers file."""
    private_dir: Path | None = None
    """The task's private folder (the answers' folder when it is named ``private``)."""
    private_files: frozenset[tuple[int, int]] = frozenset()
    """(device, inode) of the answers file and of every file directly in the private folder:
    a submission that is one of them (a hard link) is refused."""
    noun: str = "answer id"
    """What an id of this set is called in messages."""
    _key_array: pa.Array | None = field(default=None, repr=False)
    _key_index: IdIndex | None = field(default=None, repr=False)

    kind: str = field(init=False, default="")
    """The metric's input kind."""
    fmt: SubmissionFormat = field(init=False, default=SubmissionFormat.CSV)
    """The submission format."""

    def __post_init__(self) -> None:
        self.kind = self.metric.kind
        self.fmt = self.grading.submission_format


