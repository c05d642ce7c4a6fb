"""Quarantine: a prepared task whose leakage audit failed is kept for inspection, not graded.

When the audit of a prepared task fails, ``quarantine.json`` is written into the task folder
with the findings; a later audit that passes removes it. A task built to be audited is moved
into place already quarantined (:data:`AUDIT_PENDING`), so a prepare interrupted or killed
during its audit never leaves a gradable, unaudited task. :func:`check_gradable` is what every
grader calls before it reads a task's private answers: a quarantined task raises
:class:`QuarantinedTaskError` unless the caller allows it explicitly (``allow=True``, or the
environment variable ``TAMBENCH_ALLOW_QUARANTINED=1`` for a whole command; on the command line
``tambench grade --allow-quarantined`` and ``tambench grade-runs --allow-quarantined``).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field

from tambench.errors import QuarantinedTaskError
from tambench.splits.layout import PUBLIC_FILE_MODE, QUARANTINE_FILE
from tambench.splits.report import VersionedModel

ALLOW_ENV = "TAMBENCH_ALLOW_QUARANTINED"


class Quarantine(VersionedModel):
    """``quarantine.json``: why a prepared task may not be graded."""

    task_id: str
    """The task."""
    reason: str
    """One sentence: what failed."""
    findings: list[str] = Field(default_factory=list)
    """The audit's findings, as it reported them."""
    created_at: datetime
    """When the task was quarantined (UTC)."""


#: The reason of a task prepared for an audit that has not passed yet (interrupted or crashed).
AUDIT_PENDING = "its leakage audit has not finished (run tambench audit)"


def quarantine_task(task_dir: Path, task_id: str, findings: list[str],
                    reason: str = "the leakage audit failed") -> Path:
    """Mark ``task_dir`` as not gradable; returns the marker's path."""
    path = task_dir / QUARANTINE_FILE
    Quarantine(task_id=task_id, reason=reason, findings=findings,
               created_at=datetime.now(UTC)).write(path)
    os.chmod(path, PUBLIC_FILE_MODE)
    return path


def lift_quarantine(task_dir: Path) -> bool:
    """Remove the marker (after an audit that passed); True if there was one."""
    path = task_dir / QUARANTINE_FILE
    if path.is_file():
        path.unlink()
        return True
    return False


def read_quarantine(task_dir: Path) -> Quarantine | None:
    """The marker of ``task_dir``, or None when the task is not quarantined."""
    path = task_dir / QUARANTINE_FILE
    return Quarantine.read(path) if path.is_file() or path.is_symlink() else None


def check_gradable(task_data_dir: Path, *, allow: bool = False) -> None:
    """Raise :class:`QuarantinedTaskError` when the prepared task in ``task_data_dir`` failed
    its leakage audit, unless ``allow`` (or ``TAMBENCH_ALLOW_QUARANTINED=1``) says to grade
    it anyway."""
    marker = read_quarantine(Path(task_data_dir))
    if marker is None or allow or os.environ.get(ALLOW_ENV) == "1":
        return
    shown = "; ".join(marker.findings[:3]) or "no findings recorded"
    more = f" (and {len(marker.findings) - 3} more)" if len(marker.findings) > 3 else ""
    raise QuarantinedTaskError(
        f"task {marker.task_id} is quarantined since {marker.created_at:%Y-%m-%d %H:%M} UTC: "
        f"{marker.reason}: {shown}{more}. Fix its split and prepare it again "
        f"(tambench prepare --force), or grade it anyway with --allow-quarantined (or "
        f"{ALLOW_ENV}=1) "
        f"({task_data_dir / QUARANTINE_FILE})")
