"""The public reference: what a submission is checked against when the answers stay private.

``tambench validate``, its HTTP server and :func:`tambench.validate` answer an agent's
question "is my submission valid?" without ever opening a private file. They run the same
validation as grading (:func:`tambench.validation.validate.validate_submission`) against an
:class:`~tambench.validation.answers.Answers` record built here from the task spec and
the task's public files only:

* ids (CSV): the declared ``ids_from`` column, else the id columns of the public sample
  submission (``sample_submission.csv``, or ``sampleSubmission.csv``, MLE-bench's other
  name), else of ``test.csv``; a task without id columns takes the row count of that file;
* labels: the task's declared label set (``labels``, ``labels_from``), as grading does;
* JSON and line files: the public sample submission's document or lines (keys, list lengths,
  leaf types, line count), in place of the answers' own;
* the size cap: scaled by the public reference file, where grading scales it by the answers;
* links: the device and inode of the entries of the private folder, read from the folder
  listing (no file there is opened), so a submission that IS a private file is refused as
  grading refuses it.

No truth, no scored-row flag and no answers column reaches the record: ``y_true`` holds the
sample's placeholder document (structured tasks) or nothing, ``scored`` is None. So nothing a
message says can come from the answers.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tambench.core.layout import PUBLIC_TEST_FILE, SAMPLE_SUBMISSION_FILE, safe_join
from tambench.core.metrics.base import Metric
from tambench.errors import TambenchError, TaskDataError
from tambench.schema.taskspec import GradingSpec, SubmissionFormat
from tambench.validation.answers import Answers
from tambench.validation.idindex import IdSet
from tambench.validation.labelsets import PUBLIC_MAX_BYTES, declared_label_set, read_public_columns
from tambench.validation.policies import check_applicable, expected_header, split_params
from tambench.validation.reading.csvio import sniff_csv
from tambench.validation.reading.files import open_regular_file, private_identity
from tambench.validation.structured import load_structured_answers
from tambench.validation.truths import make_key

#: Sample submission names looked for in the public folder, per format, in order.
SAMPLE_NAMES: dict[SubmissionFormat, tuple[str, ...]] = {
    SubmissionFormat.CSV: (SAMPLE_SUBMISSION_FILE, "sampleSubmission.csv"),
    SubmissionFormat.JSON: ("sample_submission.json",),
    SubmissionFormat.TXT: ("sample_submission.txt",),
}


def reference_error(problems: list[str]) -> TambenchError:
    """The error a problem with the public reference becomes (task data, not the agent's)."""
    return TaskDataError("the task's public reference file is unusable: " + "; ".join(problems))


def reference_file(grading: GradingSpec, public_dir: Path, sample: str | None = None) -> str:
    """The public file ids (or the structure) come from, relative to ``public_dir``.

    The declared ``ids_from`` file (grading reads the same one); else ``sample`` when given;
    else the first sample submission of :data:`SAMPLE_NAMES` that exists, else (CSV)
    ``test.csv``.

    Raises:
        TaskDataError: none of them exists.
    """
    if grading.ids_from is not None:
        return grading.ids_from.file
    if sample:
        path = safe_join(public_dir, sample, what="sample submission")
        if not path.is_file():
            raise TaskDataError(f"sample submission {sample!r} not found in {public_dir}")
        return sample
    fmt = grading.submission_format
    csv_task = fmt == SubmissionFormat.CSV
    candidates = [*SAMPLE_NAMES[fmt], *([PUBLIC_TEST_FILE] if csv_task else [])]
    for name in candidates:
        if (public_dir / name).is_file():
            return name
    raise TaskDataError(
        f"no public reference in {public_dir}: expected one of {candidates} (the public "
        "sample submission, or the public test file); name another with --sample-submission"
    )


def load_reference(
    grading: GradingSpec,
    metric: Metric,
    public_dir: Path,
    *,
    answers_path: Path | None = None,
    sample: str | None = None,
) -> Answers:
    """Build the record a submission is validated against, from public files only.

    ``answers_path`` is where the task's answers would be: when its folder exists, the device
    and inode of its entries are listed (no file opened) to refuse a private file submitted
    under another name.

    Raises:
        TaskSpecError: the grading spec declares what does not apply.
        TaskDataError: the public files are missing or unusable.
    """
    check_applicable(grading, metric)
    public_dir = Path(public_dir)
    name = reference_file(grading, public_dir, sample)
    path = safe_join(public_dir, name, what="public reference")
    raw = open_regular_file(path, max_bytes=PUBLIC_MAX_BYTES, what="public reference",
                            error=reference_error)
    ref = Answers(path=path, grading=grading, metric=metric, size=raw.size)
    _set_private_identity(ref, answers_path)
    ref.params, _ = split_params(metric, grading)
    if metric.kind == "structured" or grading.submission_format != SubmissionFormat.CSV:
        load_structured_answers(raw, ref, what="public reference", error=reference_error)
        return ref
    del raw
    ref.expected_header = expected_header(grading)
    _set_ids(ref, public_dir, name)
    if metric.kind == "label":
        label_set = declared_label_set(grading, public_dir)
        ref.label_sets = dict.fromkeys(grading.target_columns, label_set)
    return ref


def _set_private_identity(ref: Answers, answers_path: Path | None) -> None:
    """The private folder and the identities of its entries, when the folder exists."""
    if answers_path is None:
        return
    path = Path(answers_path).resolve()
    try:
        st = os.stat(path)
        identity = (st.st_dev, st.st_ino)
        folder, files = private_identity(path, identity)
    except OSError:  # no private folder here (an agent's container), or not ours to list
        return
    ref.identity, ref.private_dir, ref.private_files = identity, folder, files


def _set_ids(ref: Answers, public_dir: Path, name: str) -> None:
    """The public ids (or, without id columns, the row count) of the reference file."""
    g = ref.grading
    if g.ids_from is not None:
        columns = [g.ids_from.column]
    else:
        columns = list(g.id_columns) or [_first_column(public_dir, name)]
    arrays = read_public_columns(public_dir, name, columns, "public reference")
    ref.n_rows = len(arrays[0])
    if not g.id_columns:
        return
    table = pa.table({f"c{i}": a for i, a in enumerate(arrays)})
    key = make_key(table, list(range(len(arrays))))
    if len(pc.unique(key)) != len(key):
        raise TaskDataError(
            f"public reference {name!r} holds duplicated ids; it cannot list the test ids"
        )
    ref.key = key
    if g.ids_from is not None:  # check_applicable: only with extra_ids "ignore"
        ref.universe = IdSet(key, "test id")
        ref.universe_rows = np.arange(len(key), dtype=np.int64)


def _first_column(public_dir: Path, name: str) -> str:
    """The first column of a public CSV file (to count its rows)."""
    path = safe_join(public_dir, name, what="public reference")
    raw = open_regular_file(path, max_bytes=PUBLIC_MAX_BYTES, what="public reference",
                            error=reference_error)
    layout = sniff_csv(raw, [], what="public reference", error=reference_error)
    return layout.header[0]
