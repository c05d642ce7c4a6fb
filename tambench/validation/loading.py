"""Loading a task's private answers, once per task: the spec's conventions checked, the file
opened and read through the reading layer, the truths built, the label set and id list set.

Problems with the answers are our data's problems: they raise :class:`TaskDataError`, never
:class:`InvalidSubmissionError`.
"""

from __future__ import annotations

from pathlib import Path

from tambench.core.metrics.base import Metric
from tambench.errors import TaskDataError
from tambench.schema.taskspec import GradingSpec
from tambench.validation.answer_formats import converted, format_for
from tambench.validation.answers import NUMERIC_KINDS, Answers, answers_error
from tambench.validation.labelsets import set_labels, set_universe
from tambench.validation.policies import answers_plan
from tambench.validation.reading.csvbody import read_csv_columns
from tambench.validation.reading.csvio import first_positions, sniff_csv
from tambench.validation.reading.files import open_regular_file, private_identity
from tambench.validation.structured import load_structured_answers
from tambench.validation.truths import build_truths

#: Answers files are ours; this cap only guards against a wrong path (a disk image, say).
ANSWERS_MAX_BYTES = 64 * 1024**3


def load_answers(
    path: Path,
    grading: GradingSpec,
    metric: Metric,
    *,
    max_bytes: int | None = None,
    public_dir: Path | None = None,
) -> Answers:
    """Load and check a task's private answers (our data: problems raise TaskDataError).

    ``public_dir`` is where ``labels_from`` and ``ids_from`` files are read (default: the
    ``public/`` folder beside the answers' ``private/`` folder). The steps, each one room
    visited once: the spec's conventions (:mod:`.policies`), the file opened and read
    (:mod:`.reading`), the truths built (:mod:`.truths`), the label set and the public id
    list (:mod:`.labelsets`).

    Raises:
        TaskSpecError: the grading spec declares a convention that does not apply.
        TaskDataError: the answers (or a public file the spec names) are unusable.
    """
    path = Path(path).resolve()
    ans = Answers(path=path, grading=grading, metric=metric, size=0)
    plan = answers_plan(grading, metric, path, public_dir)
    raw = open_regular_file(
        path, max_bytes=max_bytes or ANSWERS_MAX_BYTES, what="answers", error=answers_error
    )
    fmt = format_for(metric.id, path)  # another benchmark's answers, read as the table
    if fmt is not None:
        raw = converted(raw, fmt)
    ans.size, ans.identity, ans.params = raw.size, raw.identity, plan.params
    ans.private_dir, ans.private_files = private_identity(path, raw.identity)
    if plan.structured:
        load_structured_answers(raw, ans)
        return ans
    ans.expected_header = plan.expected_header
    layout = sniff_csv(raw, plan.needed, what="answers", error=answers_error)
    pos = first_positions(layout.header)
    missing = [c for c in plan.needed if c not in pos]
    if missing:
        raise TaskDataError(
            f"answers file {ans.path} lacks column(s) {missing}; it has {layout.header[:50]}"
        )
    rule_columns = [c for c in plan.rule_columns if c in pos]
    table = read_csv_columns(
        raw, layout, columns=[pos[c] for c in [*plan.needed, *rule_columns]],
        float_columns=[pos[c] for c in plan.targets] if ans.kind in NUMERIC_KINDS else (),
        multiline=plan.multiline, what="answers", error=answers_error,
    )
    build_truths(table, pos, ans, plan.aux_columns)
    if metric.kind == "label":
        set_labels(ans, plan.public)
    if grading.ids_from is not None:
        set_universe(ans, plan.public)
    return ans
