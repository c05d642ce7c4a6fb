"""A CSV submission's header, checked before its body is read: a first line that is data, and
duplicate, missing and unexpected columns.

Declared policy read here: ``extra_columns`` (``GradingSpec.value_policy``): ``"reject"``
(Kaggle's rule, default) or ``"ignore"``.
"""

from __future__ import annotations

from collections import Counter

from tambench.errors import InvalidSubmissionError
from tambench.validation.answers import Answers
from tambench.validation.messages import loose
from tambench.validation.reading.text import MAX_EXAMPLES, clip, echo_list, format_examples


def refuse_headerless(header: list[str], expected: list[str], first_pos: dict[str, int]) -> None:
    """A first line that names no expected column, even loosely, is data: refuse at once."""
    if any(c in first_pos for c in expected) or len(header) != len(expected):
        return
    names = {loose(c) for c in expected}
    if not any(loose(h) in names for h in header):
        raise InvalidSubmissionError([
            f"no header row: line 1 ({echo_list(header, MAX_EXAMPLES)}) looks like data; "
            f"expected the header {echo_list(expected)} on line 1"
        ])


def column_problems(header: list[str], ans: Answers) -> list[str]:
    """Duplicate, missing and unexpected columns (checked on the header alone)."""
    expected = ans.expected_header
    shown = echo_list(expected)
    problems = []
    if len(set(header)) != len(header):
        dups = sorted(h for h, n in Counter(header).items() if n > 1)
        problems.append(f"duplicate column name(s) {echo_list(dups)}; expected each of {shown} once")
    present = set(header)
    extra_cols = [h for h in dict.fromkeys(header) if h not in expected]
    loose_extra = {loose(h): h for h in reversed(extra_cols)}
    for c in expected:
        if c in present:
            continue
        near = loose_extra.get(loose(c))
        hint = f" (got `{clip(near)}`: names are case- and space-sensitive)" if near else ""
        problems.append(f"column `{c}` missing; expected {shown}, got {echo_list(header)}{hint}")
    if extra_cols and ans.grading.value_policy.get("extra_columns", "reject") != "ignore":
        problems.append(
            f"unexpected column(s) {format_examples(extra_cols)}; expected exactly {shown} "
            "(extra columns are not allowed)"
        )
    return problems
