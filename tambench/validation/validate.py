"""Validate a submission once, before scoring, and align it to the answers by id.

Order (style guide section 4): file -> format -> columns -> rows -> ids -> types and ranges ->
missing values. Every problem of every stage that can be checked is collected; a stage that
makes the later ones meaningless (the file cannot be read, it is not CSV) stops there. The
result is an :class:`InvalidSubmissionError` listing the problems, or a
:class:`ValidatedSubmission` whose predictions are in the answers' row order, so a metric can
assume clean, aligned input (contract in :mod:`tambench.core.metrics.base`).

Rules:

* Ids are exact strings: ``0001`` is not ``1``, ``1.0`` is not ``1``, and ``NA``, ``None`` or
  ``null`` are ids, never missing values (nothing is ever read as missing). Rows are matched by
  id; order does not matter. Same length and every answer id found proves a one-to-one match.
* Messages name the problem, what was expected and what was got, with counts and up to five
  example ids, rows or columns. They only ever quote the submission's own values, the public
  ids, and the set of class labels; never a private label of a row, so permuting the private
  labels gives byte-identical messages.

Declared policies (``GradingSpec.value_policy``; absent keys take these defaults; each is
read by the step it concerns, in :mod:`tambench.validation`):

* ``extra_columns``: ``"reject"`` (Kaggle's rule, default) or ``"ignore"``.
* ``label_set`` (kind ``label``): ``"auto"`` (default: the labels present in the answers when
  there are at most 256 of them, else any string), ``"answers"``, ``"any"`` or an explicit list.
* ``allow_empty``: whether an empty cell is a value. Default false for kinds ``value``,
  ``probability`` and ``label``; true for ``text``, ``set``, ``ranking`` and ``mask``, where an
  empty string is an empty set, ranking, mask or text.
* ``row_sum`` (kind ``probability``, several target columns): ``"auto"`` (default: rows must sum
  to 1 when the metric compares distributions, such as ``kl_divergence``, or takes a
  ``renormalize`` parameter set to false), ``"require"``, or ``"ignore"``.
  ``row_sum_tolerance`` default 1e-4.
* ``strip_spaces``: spaces around numbers are always ignored (they cannot change a number);
  with true, spaces around labels and strings are removed too. Ids are never stripped.
* ``json_shape`` (json submissions): ``"mirror"`` (default: every key, list length and leaf
  type of the answers' document, no extra keys) or ``"keys"`` (top-level keys only).
"""

from __future__ import annotations

import os
from pathlib import Path

from tambench.errors import InvalidSubmissionError
from tambench.schema.taskspec import SubmissionFormat, TaskSpec
from tambench.validation.answers import Answers
from tambench.validation.arrays import fill_floats
from tambench.validation.loading import load_answers
from tambench.validation.messages import show_id
from tambench.validation.policies import expected_header
from tambench.validation.reading.compressed import unpack_submission
from tambench.validation.reading.csvio import CsvLayout
from tambench.validation.reading.files import open_regular_file
from tambench.validation.reading.limits import Limits
from tambench.validation.reading.text import MAX_MESSAGE_CHARS, bound_message
from tambench.validation.result import ValidatedSubmission
from tambench.validation.structured import validate_structured
from tambench.validation.tabular import validate_csv
from tambench.validation.textfiles import split_lines

#: What ``--extra-columns`` may say: refuse columns beyond the expected header (Kaggle's rule),
#: or ignore them, as ``mlebench grade`` does.
EXTRA_COLUMNS_CHOICES = ("reject", "ignore")


def with_extra_columns(spec: TaskSpec, policy: str | None) -> TaskSpec:
    """``spec`` with ``value_policy.extra_columns`` set to ``policy`` (None: unchanged, the
    task's own rule, which is ``reject`` unless the task declares otherwise).

    Raises:
        ValueError: ``policy`` is not one of :data:`EXTRA_COLUMNS_CHOICES`.
    """
    if policy is None or spec.grading is None:
        return spec
    if policy not in EXTRA_COLUMNS_CHOICES:
        raise ValueError(f"extra_columns must be one of {EXTRA_COLUMNS_CHOICES}, got {policy!r}")
    grading = spec.grading.model_copy(
        update={"value_policy": {**spec.grading.value_policy, "extra_columns": policy}})
    return spec.model_copy(update={"grading": grading})


def validate_submission(
    path: Path, answers: Answers, *, limits: Limits | None = None
) -> ValidatedSubmission:
    """Validate a submission file against loaded answers; return aligned predictions.

    Raises:
        InvalidSubmissionError: listing every problem found (MissingSubmissionError when the
            file does not exist).
    """
    limits = limits or Limits()
    path = Path(path)
    refuse_private_path(path, answers)
    raw = open_regular_file(
        path, max_bytes=limits.byte_cap(answers.size), what="submission",
        refuse=lambda st: private_file_refusal(path, st, answers),
    )
    try:
        raw = unpack_submission(raw, max_bytes=limits.byte_cap(answers.size),
                                fmt=answers.fmt.value)  # .gz and .zip, as Kaggle reads them
        if answers.fmt == SubmissionFormat.CSV and answers.kind != "structured":
            return validate_csv(raw, answers, limits)
        return validate_structured(raw, answers)
    except InvalidSubmissionError as exc:
        if all(len(p) <= MAX_MESSAGE_CHARS for p in exc.problems):
            raise
        raise InvalidSubmissionError([bound_message(p) for p in exc.problems]) from None


def refuse_private_path(path: Path, answers: Answers) -> None:
    """Refuse a submission whose real path (links resolved) lies in the private folder."""
    if answers.private_dir is None:
        return
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):  # missing, unreadable or a link loop: reported on opening
        return
    if real.is_relative_to(answers.private_dir):
        raise InvalidSubmissionError([
            f"submission {path.name!r} resolves into the task's private folder; expected the "
            "agent's own file (private task data is never graded as a submission)"
        ])


def private_file_refusal(path: Path, st: os.stat_result, answers: Answers) -> str | None:
    """Why an opened submission must not be graded: it is the answers file itself or another
    private file under a second name (a hard link: same device and inode); None if neither."""
    if (st.st_dev, st.st_ino) not in answers.private_files:
        return None
    what = "the answers file" if (st.st_dev, st.st_ino) == answers.identity else (
        "a file of the task's private folder")
    return (
        f"submission {path.name!r} is {what} under another name (a hard link: same device "
        "and inode); expected the agent's own file"
    )


__all__ = [
    "Answers",
    "CsvLayout",
    "Limits",
    "ValidatedSubmission",
    "expected_header",
    "fill_floats",
    "load_answers",
    "show_id",
    "split_lines",
    "validate_submission",
]
