"""A CSV submission's body: only the id and target columns parsed (any other column is
tokenised, never built), and its row count checked against what the task expects.
"""

from __future__ import annotations

import pyarrow as pa

from tambench.errors import InvalidSubmissionError
from tambench.validation.answers import NUMERIC_KINDS, Answers
from tambench.validation.policies import values_may_span_lines
from tambench.validation.reading.csvbody import read_csv_columns
from tambench.validation.reading.csvio import CsvLayout, RawFile


def read_body(
    raw: RawFile, layout: CsvLayout, first_pos: dict[str, int], ans: Answers,
    column_problems: list[str],
) -> pa.Table:
    """Parse the body, converting only the id and target columns (any other column is
    tokenised, never built); format problems come first, then the header's."""
    g = ans.grading
    needed = [first_pos[c] for c in [*g.id_columns, *g.target_columns] if c in first_pos]
    targets = [first_pos[c] for c in g.target_columns if c in first_pos]
    numeric = ans.kind in NUMERIC_KINDS
    try:
        return read_csv_columns(raw, layout, columns=needed,
                                float_columns=targets if numeric else (),
                                multiline=values_may_span_lines(g, ans.kind))
    except InvalidSubmissionError as exc:
        raise InvalidSubmissionError([*exc.problems, *column_problems]) from None


def row_problems(
    table: pa.Table, layout: CsvLayout, ans: Answers, earlier: list[str]
) -> list[str]:
    """The row count; a file without data rows is refused at once (with ``earlier``)."""
    n_sub = table.num_rows
    expected = _expected_rows(ans)
    if n_sub == 0 or not layout.has_data:
        raise InvalidSubmissionError([
            *earlier,
            "no data rows (header only); expected "
            + (f"{expected[0]} rows (one per {expected[1]})" if expected else "data rows"),
        ])
    if expected and n_sub != expected[0]:
        return [f"{n_sub} rows; expected {expected[0]} (one per {expected[1]})"]
    return []


def _expected_rows(ans: Answers) -> tuple[int, str] | None:
    """How many rows a submission has, and of what; None when that is private (extra ids
    allowed without a public id list: the count would tell how many ids are scored)."""
    if ans.grading.extra_ids == "reject":
        return ans.n_rows, ans.noun
    if ans.universe is not None:
        return ans.universe.n_rows, ans.universe.noun
    return None
