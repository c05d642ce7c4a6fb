"""A verdict on one submission from the task's public files: valid or not, and every problem;
never a score, a rank or a medal (``tambench validate``, its HTTP server, ``tambench.validate``).

The checks are grading's own (:func:`~tambench.validation.validate.validate_submission`), run
against the public reference of :mod:`tambench.validation.reference` instead of the
answers. No private file is opened, so a verdict and its messages cannot depend on the
answers: they never quote an answer value or label, never name an id the public files do not
list, and never give a count the public test file does not already show (docs/grading.md,
"Validating without the answers").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from tambench.core.fielddocs import DOCUMENTED
from tambench.core.layout import PRIVATE_DIR, PUBLIC_DIR, safe_join
from tambench.core.metrics.base import get_metric
from tambench.errors import InvalidSubmissionError, MissingSubmissionError, TaskDataError
from tambench.grading.grade import bounded, label_warnings, resolve_task, small_pages
from tambench.schema.taskspec import TaskSpec
from tambench.validation.reading.limits import Limits
from tambench.validation.reference import load_reference
from tambench.validation.validate import Answers, validate_submission

#: MLE-bench's result text for a valid submission (agents' scripts look for it).
VALID_TEXT = "Submission is valid."
#: How MLE-bench's result text for an invalid submission begins.
INVALID_TEXT = "Submission invalid!"


class Verdict(BaseModel):
    """Whether a submission is valid, from public information alone, with every problem."""

    model_config = DOCUMENTED

    task_id: str
    """tambench task id ``<platform>/<slug>``."""

    submission_path: str
    """The submission as it was given (a path, or an upload's name)."""

    submission_exists: bool = True
    """Whether the submission file exists."""

    valid_submission: bool
    """Whether grading would accept the submission's format (see docs/grading.md for what
    only grading can tell)."""

    errors: list[str] = Field(default_factory=list)
    """Every problem found; empty when valid."""

    warnings: list[str] = Field(default_factory=list)
    """Remarks that do not make the submission invalid."""

    reference: str = ""
    """The public file the ids (or the structure) were read from, in the public folder."""

    def to_json(self, *, indent: int | None = 2) -> str:
        """Strict JSON."""
        return json.dumps(self.model_dump(mode="json"), indent=indent, allow_nan=False,
                          ensure_ascii=False)

    def result_text(self) -> str:
        """MLE-bench's ``result`` text: ``Submission is valid.``, or ``Submission invalid!``
        and one line per problem."""
        if self.valid_submission:
            return VALID_TEXT + "".join(f"\nwarning: {w}" for w in self.warnings)
        lines = [f"{INVALID_TEXT} {len(self.errors)} problem(s) found:",
                 *(f"- {e}" for e in self.errors)]
        return "\n".join(lines)


@dataclass(frozen=True)
class PublicTask:
    """A task as validation without the answers sees it."""

    spec: TaskSpec
    public_dir: Path
    """The task's public folder (sample submission, test file, label files)."""
    answers_path: Path | None = None
    """Where the task's answers would be: only the listing of their folder is read."""

    def reference(self, sample: str | None = None) -> Answers:
        """The public reference submissions are checked against (built once, reusable)."""
        grading = self.spec.grading
        if grading is None:
            raise TaskDataError(f"task {self.spec.id} has no grading spec; it cannot be "
                                "validated")
        return load_reference(grading, get_metric(grading.metric), self.public_dir,
                              answers_path=self.answers_path, sample=sample)


def resolve_public_task(
    task: str | Path,
    *,
    catalogue: Path | None = None,
    data_dir: Path | None = None,
    public_dir: Path | None = None,
) -> PublicTask:
    """Resolve a task reference (as ``tambench grade --task``) and its public folder:
    ``public_dir`` if given (an agent container's data mount), else
    ``<data_dir>/<platform>/<slug>/public``.

    Raises:
        TaskNotFoundError, AmbiguousTaskError: the reference names no single task.
        TaskDataError: the task has no grading spec or no public folder.
    """
    # With a public folder given (an agent container's mount), the prepared data folder and
    # its private answers need not exist: nothing private is read.
    resolved = resolve_task(task, catalogue=catalogue, data_dir=data_dir,
                            allow_quarantined=True, check_data=public_dir is None)
    return public_task(resolved.spec, public_dir=public_dir,
                       task_dir=resolved.answers.parent.parent)


def public_task(
    spec: TaskSpec, *, public_dir: Path | None = None, task_dir: Path | None = None
) -> PublicTask:
    """A spec with its public folder: ``public_dir``, else ``<task_dir>/public``.

    Raises:
        TaskDataError: the public folder does not exist.
    """
    grading = spec.grading
    if grading is None:
        raise TaskDataError(f"task {spec.id} has no grading spec; it cannot be validated")
    if public_dir is not None:
        folder = Path(public_dir)
    elif task_dir is not None:
        folder = Path(task_dir) / PUBLIC_DIR
    else:
        raise TaskDataError(f"task {spec.id}: give its public folder (or its data folder)")
    if not folder.is_dir():
        raise TaskDataError(
            f"public folder of task {spec.id} not found: {folder} (prepare the task with "
            f"`tambench prepare {spec.id}`, or give the folder with --public-dir)")
    answers = None
    if task_dir is not None:
        answers = safe_join(Path(task_dir), PRIVATE_DIR, grading.answers_file,
                            what="answers file")
    return PublicTask(spec=spec, public_dir=folder, answers_path=answers)


def check_submission(
    submission: Path,
    task: PublicTask,
    reference: Answers,
    *,
    limits: Limits | None = None,
    shown_as: str | None = None,
) -> Verdict:
    """The verdict on one submission file against a public reference.

    An invalid or missing submission is a verdict, never an exception. ``shown_as`` is the
    name the verdict gives the submission (an upload's name rather than its temporary path).
    """
    base = {"task_id": task.spec.id, "submission_path": shown_as or str(submission),
            "reference": reference.path.name}
    with small_pages():
        try:
            validated = validate_submission(Path(submission), reference, limits=limits)
            refusals = cell_refusals(reference, validated.y_pred)
        except MissingSubmissionError as exc:
            return Verdict(**base, submission_exists=False, valid_submission=False,
                           errors=bounded(exc.problems))
        except InvalidSubmissionError as exc:
            refusals = exc.problems
    if refusals:
        return Verdict(**base, valid_submission=False,
                       errors=bounded(refusals))
    notes = label_warnings(task.spec.id, reference, validated.y_pred, answers_visible=False)
    return Verdict(**base, valid_submission=True, warnings=notes)


#: Kinds whose metrics parse each predicted cell on its own, and the truth every task of the
#: kind can hold that the parse is run against: an empty mask.
NEUTRAL_TRUTHS = {"mask": ""}


def cell_refusals(reference: Answers, y_pred: Any) -> list[str]:
    """What the metric refuses in the submission's own cells (a malformed run-length
    encoding), found by scoring it against truths that are all :data:`NEUTRAL_TRUTHS`; empty
    for other kinds.

    Only a refusal of the submission counts (:class:`InvalidSubmissionError`); the score and
    any other error are dropped: they would speak of the stand-in truths. A metric that needs
    columns only the answers hold (image sizes) cannot run here and refuses nothing.
    """
    neutral = NEUTRAL_TRUTHS.get(reference.kind)
    if neutral is None or not isinstance(y_pred, np.ndarray):
        return []
    truths = np.full(y_pred.shape, neutral, dtype=object)
    try:
        reference.metric.fn(truths, y_pred, **reference.params)
    except InvalidSubmissionError as exc:
        return list(exc.problems)
    except Exception:  # noqa: BLE001 - about the stand-in truths or missing answers columns
        return []
    return []
