"""Batch grading: agent runs in -> one row per run, aggregates with uncertainty, reports out.

The stages, one module each:

* :mod:`~tambench.grading.batch.discover`: runs folder (``<agent>/<task>/<run>/``, MLE-bench
  run groups) or MLE-bench ``submissions.jsonl`` -> one picklable :class:`RunItem` per run;
  :mod:`~tambench.grading.batch.resolve` maps task folder names to tasks;
* :mod:`~tambench.grading.batch.worker`: one item -> one row (on any executor, with a per-run
  time limit from :mod:`~tambench.grading.batch.deadline`);
* :mod:`~tambench.grading.batch.summary` and :mod:`~tambench.grading.batch.stats`: rows ->
  per-agent aggregates with bootstrap intervals and paired comparisons;
* :mod:`~tambench.grading.batch.writers`, :mod:`~tambench.grading.batch.html` and
  :mod:`~tambench.grading.batch.figures`: the report -> grades.json, grades.csv, report.html,
  MLE-bench's timestamped report;
* :mod:`~tambench.grading.batch.run`: :func:`grade_runs`, the whole batch.

Every run gets a row whatever happens to it (see :class:`RunStatus`); the models are in
:mod:`~tambench.grading.batch.models`.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Public name -> the module defining it; imported on first use, so that importing one
#: submodule (or the command line's help) does not load the whole batch grader.
_EXPORTS = {
    "JudgeConfig": "discover", "RunItem": "discover", "RunSettings": "discover",
    "TaskProblem": "discover", "TaskRef": "discover", "discover_runs": "discover",
    "FAILED_STATUSES": "models", "AgentSummary": "models", "Aggregation": "models",
    "BatchReport": "models", "Estimate": "models", "PairedComparison": "models",
    "RunRow": "models", "RunStatus": "models", "TaskSummary": "models",
    "load_batch_report": "models",
    "make_resolver": "resolve",
    "DEFAULT_TIME_LIMIT": "deadline", "grade_runs": "run",
    "modality_weighted_mean": "stats",
    "summarise": "summary",
    "grade_run_item": "worker",
    "CSV_COLUMNS": "writers", "batch_to_csv": "writers", "batch_to_json": "writers",
    "write_batch_outputs": "writers", "write_mle_bench_report": "writers",
}

__all__ = [
    "AgentSummary", "Aggregation", "BatchReport", "CSV_COLUMNS", "DEFAULT_TIME_LIMIT", "Estimate",
    "FAILED_STATUSES", "JudgeConfig", "PairedComparison", "RunItem", "RunRow", "RunSettings",
    "RunStatus", "TaskProblem", "TaskRef", "TaskSummary", "batch_to_csv", "batch_to_json",
    "discover_runs", "grade_run_item", "grade_runs", "load_batch_report", "make_resolver",
    "modality_weighted_mean", "summarise", "write_batch_outputs", "write_mle_bench_report",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
