"""The audit report: one result per check, as a versioned pydantic model."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, computed_field

from tambench.core.fielddocs import DOCUMENTED
from tambench.errors import LeakageError
from tambench.splits.report import VersionedModel

Status = Literal["pass", "fail", "skipped"]

#: What fixes a failed check, by check name (said under its findings when a task is
#: quarantined). Fields named are those of the task's ``split`` recipe (docs/splits.md).
FIXES: dict[str, str] = {
    "checksums": "a prepared file changed after prepare: prepare the task again with --force",
    "ids_disjoint": "give split.id_column a column unique per row, or drop the repeated rows "
                    "with a drop_rows transform",
    "groups_disjoint": "the split must keep whole groups: use strategy 'group' with this "
                       "group_column",
    "time_order": "use strategy 'time' on this time_column so test rows come last",
    "no_target_in_public": "list the column in split.target_columns (or hidden_columns) so it "
                           "stays out of public/test.csv",
    "no_private_file_in_public": "remove the file from split.extra_public_files (it is the "
                                 "answers)",
    "labels_in_public": "hide the column with split.hidden_columns {column: \"test\"} (or "
                        "\"public\"), or leave the file out of extra_public_files; for file "
                        "paths, set split.files.dest to a path made of the id (\"{id}.jpg\")",
    "feature_leakage": "hide the column with split.hidden_columns if it is derived from the "
                       "label; otherwise it is a real feature the raw data gives away",
    "row_order": "keep test_order 'shuffled'",
    "duplicate_rows": "drop repeated rows with a drop_rows transform or split by group",
    "id_leakage": "give split.id_column ids that do not encode the label (compose_id from "
                  "other columns)",
    "sample_submission": "the sample submission must hold placeholders, not labels: the split "
                         "recipe's train_file must be the labelled table, not the sample",
}


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
        for c in self.checks:
            lines += [f"  - {c.name}: {f}" for f in c.findings]
            if c.findings and c.name in FIXES:
                lines.append(f"    fix: {FIXES[c.name]}")
        return "\n".join(lines)

    def raise_for_findings(self) -> None:
        """Raise :class:`LeakageError` listing every finding, if any."""
        if not self.passed:
            raise LeakageError(self.render_findings())
