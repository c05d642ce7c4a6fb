"""What preparing and auditing need of a grader, which they are given (never import).

Grading is a later stage than splits: a caller that has it (the command line, the demo, the
API) passes ``tambench.grading.grade.grade_submission`` as ``grader``; splits then score the
sample submission and record the score. Without one (None), the sample submission's header
and ids are still checked, its score is None and the audit says that no grader was given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from tambench.schema.taskspec import TaskSpec


class GradedSubmission(Protocol):
    """The parts of a grade report splits read."""

    @property
    def valid_submission(self) -> bool:
        """Whether the submission passed validation."""

    @property
    def score(self) -> float | None:
        """Its score (None when it is invalid)."""

    @property
    def errors(self) -> Sequence[str]:
        """Why it is invalid."""


class Grader(Protocol):
    """``grade_submission(submission, spec, answers)``: grades one submission file."""

    def __call__(self, submission: Path, spec: TaskSpec, answers: Path, /) -> GradedSubmission:
        """The report of grading ``submission`` against the ``answers`` file."""
