"""tambench: turn real ML competitions into a benchmark for ML agents, and grade the agents.

Data flows one way through the stage subpackages:
URL -> ``acquisition`` (pages + leaderboard) -> ``schema`` (TaskSpec) -> ``tasks`` (catalogue,
subsets) -> ``difficulty`` (tier) -> ``splits`` (public/private) -> ``grading`` (report);
``runs`` runs agents on prepared tasks in sandboxes, and grades what they made.

The Python API (:mod:`tambench.api`) is importable from here; each name loads its module on
first use, so ``import tambench`` stays cheap::

    from tambench import grade, grade_runs, validate, load_task, list_metrics, get_metric
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = [
    "Aggregation", "BatchReport", "GradeReport", "RunRow", "RunStatus", "TaskSpec", "Verdict",
    "__version__", "get_metric", "grade", "grade_runs", "list_metrics", "load_batch_report",
    "load_report", "load_task", "locate_task", "run", "validate", "write_batch_outputs",
]
#: The public API: every name lives in :mod:`tambench.api` and is loaded on first use.
API_NAMES = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name not in API_NAMES:
        raise AttributeError(f"module 'tambench' has no attribute {name!r}")
    value = getattr(importlib.import_module("tambench.api"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *API_NAMES])
