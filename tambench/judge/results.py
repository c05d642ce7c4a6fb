"""The judge's results: one verdict per checkable constraint, the others listed apart.

``JudgeResult.as_dict()`` is what ``tambench judge --json`` prints. Its counts (``passed``,
``total``, ``pass_rate``) cover the checkable constraints only; constraints that no code can
show compliance with are listed under ``not_applicable`` with the reason.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from tambench.judge.types import PROMPT_VERSION, JudgeMode, VerdictStatus

#: Version of the result's JSON shape; 2 added ``not_applicable`` and ``stated``.
RESULT_VERSION = 2


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ConstraintVerdict(_Frozen):
    """The judge's verdict on one constraint."""

    number: int
    """The constraint's number in the task's instructions."""

    text: str
    status: VerdictStatus
    answer: Literal["yes", "no"] | None = None
    reason: str = ""
    cited_lines: list[int] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    """Why a verdict is not a clean pass or fail."""

    cached: bool = False
    raw_reply: str | None = None
    """The model's reply (truncated), for review."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """Only a clean, checked "yes" passes."""
        return self.status == "pass"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return self.model_dump(mode="json")


class NotApplicable(_Frozen):
    """A constraint no solution code can show compliance with; it is not judged."""

    number: int
    text: str
    category: str
    """account, team, submission_limit, schedule, prize, licence, platform, evaluation,
    permission or statement."""

    reason: str


class JudgeResult(_Frozen):
    """Verdicts on the checkable constraints of one solution, and the constraints set aside."""

    result_version: int = RESULT_VERSION
    model: str | None
    mode: JudgeMode
    code_sha256: str
    verdicts: list[ConstraintVerdict]
    preamble: str = ""
    not_applicable: list[NotApplicable] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total(self) -> int:
        """Number of checkable constraints (the pass rate's denominator)."""
        return len(self.verdicts)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def stated(self) -> int:
        """Number of constraints the task states, checkable or not."""
        return len(self.verdicts) + len(self.not_applicable)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> int:
        """Constraints whose verdict is a checked pass."""
        return sum(v.passed for v in self.verdicts)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judged(self) -> bool:
        """Whether a model judged the constraints (False when none was configured or none is
        checkable)."""
        return all(v.status != "not_judged" for v in self.verdicts) and bool(self.verdicts)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float | None:
        """passed / total; None when nothing was judged or no constraint is checkable."""
        if not self.verdicts or not self.judged:
            return None
        return self.passed / self.total

    def count(self, status: VerdictStatus) -> int:
        """How many verdicts have ``status``."""
        return sum(v.status == status for v in self.verdicts)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what ``tambench judge --json`` prints)."""
        data = self.model_dump(mode="json", exclude={"verdicts"})
        data.update(prompt_version=PROMPT_VERSION, needs_review=self.count("needs_review"),
                    unparseable=self.count("unparseable"), errors=self.count("error"),
                    constraints=[v.as_dict() for v in self.verdicts])
        return data
