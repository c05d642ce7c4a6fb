"""The audit report: one result per check, as a versioned pydantic model."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, computed_field

from tambench.core.fielddocs import DOCUMENTED
from tambench.errors import LeakageError
from tambench.splits.report import VersionedModel

Status = Literal["pass", "fail", "skipped"]


class CheckResult(BaseModel):
    """One audit check."""

    model_config = DOCUMENTED

    name: str
    """The check's name, e.g. "duplicate_rows"."""
    status: Status
    """pass, fail, or skipped (with the reason in ``detail``)."""
    detail: str = ""
    """What was checked, or why the check did not apply."""
    findings: list[str] = Field(default_factory=list)
    """One sentence per leak found."""


class AuditReport(VersionedModel):
    """Every check of one prepared task."""

    task_id: str
    """The task."""
    checks: list[CheckResult] = Field(default_factory=list)
    """The checks, in the order they ran."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """True when no check failed."""
        return all(c.status != "fail" for c in self.checks)

    @property
    def findings(self) -> list[str]:
        """Every finding, prefixed by its check's name."""
        return [f"{c.name}: {f}" for c in self.checks for f in c.findings]

    def check(self, name: str) -> CheckResult:
        """The result of the check called ``name``."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def render_findings(self) -> str:
        """The message of the :class:`LeakageError` raised for a failed audit."""
        lines = [f"leakage audit of {self.task_id} failed ({len(self.findings)} finding(s)):"]
        lines += [f"  - {f}" for f in self.findings]
        return "\n".join(lines)

    def raise_for_findings(self) -> None:
        """Raise :class:`LeakageError` listing every finding, if any."""
        if not self.passed:
            raise LeakageError(self.render_findings())
