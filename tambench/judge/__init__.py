"""Constraint judge: does an agent's final solution code respect each numbered constraint?

A task's ``special_instructions`` are split into numbered constraints
(:mod:`~tambench.judge.constraints`). Those no code can show compliance with (rules
about accounts, teams, submissions per day, deadlines, prizes, licences, the platform's
notebook limits, descriptions of the scoring, permissions, plain statements) are set aside as
not applicable (:mod:`~tambench.judge.applicability`). For each remaining one, a chat
model (any provider, through :mod:`tambench.core.llm`) reads the final solution code and
answers whether it complies (method section 5: answer No when the code shows no evidence). The
pass rate is passed / checkable constraints.

Hardening against prompt injection in the code (reliability section 3.2):

* The code is shown between delimiter lines carrying a fresh random nonce, every code line
  prefixed by its number; text in the code that imitates a delimiter is escaped, and a nonce
  that happens to occur in the code is never used (:mod:`~tambench.judge.prompt`).
* ``strict`` mode (default) asks for one JSON object ``{nonce, answer, reason, cited_lines}``
  (sent as a JSON-schema response format to OpenAI-compatible endpoints). A reply that is not
  exactly that, or does not echo the request's nonce, is ``unparseable``; a verdict that cites
  missing lines, says "yes" without citing lines, cites only comments, strings or blank lines
  for a "yes", or says "yes" with a reason that says the code violates the constraint is
  ``needs_review``. Neither is ever a pass (:mod:`~tambench.judge.verdicts`).
* ``paper`` mode reproduces the paper's two-line reply (``Answer: Yes|No`` / ``Reason: ...``);
  it has no nonce echo or citations and is weaker, offered to compare with the paper.

Without a model, every checkable constraint is ``not_judged`` and the pass rate is None, never
a pass. Verdicts are cached on disk by (prompt version, mode, model, constraint, code hash).
"""

from __future__ import annotations

from tambench.judge.applicability import (
    NOT_CHECKABLE,
    Applicability,
    classify_constraint,
    split_checkable,
)
from tambench.judge.cache import CachedVerdict, cache_key, default_cache_dir
from tambench.judge.constraints import (
    Constraint,
    ParsedInstructions,
    parse_constraints,
    parse_instructions,
)
from tambench.judge.prompt import (
    ESCAPED_DELIMITER,
    build_messages,
    choose_nonce,
    number_code_lines,
    verdict_json_schema,
)
from tambench.judge.results import (
    RESULT_VERSION,
    ConstraintVerdict,
    JudgeResult,
    NotApplicable,
)
from tambench.judge.run import judge_one, judge_solution
from tambench.judge.types import (
    CACHED_STATUSES,
    JUDGE_MODES,
    PROMPT_VERSION,
    RAW_REPLY_CHARS,
    JudgeMode,
    VerdictStatus,
)
from tambench.judge.verdicts import (
    ReadVerdict,
    StrictVerdict,
    code_line_numbers,
    read_paper_reply,
    read_strict_reply,
    says_violation,
)

__all__ = [
    "CACHED_STATUSES", "ESCAPED_DELIMITER", "JUDGE_MODES", "NOT_CHECKABLE", "PROMPT_VERSION",
    "RAW_REPLY_CHARS", "RESULT_VERSION", "Applicability", "CachedVerdict", "Constraint",
    "ConstraintVerdict", "JudgeMode", "JudgeResult", "NotApplicable", "ParsedInstructions",
    "ReadVerdict", "StrictVerdict", "VerdictStatus", "build_messages", "cache_key",
    "choose_nonce", "classify_constraint", "code_line_numbers", "default_cache_dir",
    "judge_one", "judge_solution", "number_code_lines", "parse_constraints",
    "parse_instructions", "read_paper_reply", "read_strict_reply", "says_violation",
    "split_checkable", "verdict_json_schema",
]
