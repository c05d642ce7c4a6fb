"""Validating a CSV submission in the fixed order: format -> columns -> rows -> ids -> values,
each stage one module: the layout (:mod:`.reading.csvio`), the header (:mod:`.header`), the body
and its row count (:mod:`.rows`), ids and alignment (:mod:`.ids`), the target values
(:mod:`.columns`).
"""

from __future__ import annotations

from tambench.errors import InvalidSubmissionError
from tambench.validation.answers import Answers
from tambench.validation.columns import check_targets
from tambench.validation.header import column_problems, refuse_headerless
from tambench.validation.ids import align_ids
from tambench.validation.reading.csvio import RawFile, first_positions, sniff_csv
from tambench.validation.reading.limits import Limits
from tambench.validation.result import ValidatedSubmission
from tambench.validation.rows import read_body, row_problems


def validate_csv(raw: RawFile, ans: Answers, limits: Limits) -> ValidatedSubmission:
    """Validate a CSV submission; return its predictions in the answers' row order."""
    expected = ans.expected_header
    layout = sniff_csv(raw, expected, max_columns=limits.max_columns)
    first_pos = first_positions(layout.header)
    refuse_headerless(layout.header, expected, first_pos)
    problems = column_problems(layout.header, ans)  # on the header, before the body is read
    table = read_body(raw, layout, first_pos, ans, problems)
    del raw  # the table owns its buffers; let the mapping go
    problems += row_problems(table, layout, ans, problems)
    ids = align_ids(table, first_pos, ans)
    problems += ids.problems
    y_pred, value_problems = check_targets(table, first_pos, ids.key, ans)
    problems += value_problems
    if problems or not ids.ok or y_pred is None:
        raise InvalidSubmissionError(problems or ["submission could not be aligned to answers"])
    take = ids.perm  # the submission row of each answers row (None: the same row)
    if ans.scored is not None:
        take = ans.scored if take is None else take[ans.scored]
    if take is not None:
        y_pred = y_pred[take]
    return ValidatedSubmission(y_pred=y_pred, n_rows=table.num_rows, aligned_by=ids.aligned_by)




