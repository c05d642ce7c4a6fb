"""What "complete" means for a task: the one definition every command uses.

A task is complete when a submission can be validated and scored from its spec alone:

* ``grading`` is declared and names a registered metric;
* a CSV submission names its id column(s), its target column(s) and its exact header (the
  header holds the id and target columns, which :class:`~tambench.schema.taskspec.GradingSpec`
  itself checks); JSON and line-file submissions are checked by their metric's own structure
  checker, so they need no columns;
* the modality is set (subsets balance over it).

The split (how local test labels are made) and the leaderboard (ranking and difficulty) are
not part of completeness: they live in their own stages and are reported there.
``tambench schema validate``, ``tambench tasks validate``, the importers and the paper-schema
converter all call :func:`completeness_problems`; :func:`status_for` turns it into a status.
"""

from __future__ import annotations

from typing import Literal

from tambench.errors import UnknownMetricError
from tambench.schema.taskspec import SubmissionFormat, TaskSpec


def completeness_problems(spec: TaskSpec) -> list[str]:
    """Every reason the task is not complete (empty when it is)."""
    # start-up: saves 2 ms (the metric registry)
    from tambench.core.metrics import get_metric

    problems: list[str] = []
    g = spec.grading
    if g is None:
        problems.append("no grading is declared")
    else:
        try:
            get_metric(g.metric)
        except UnknownMetricError as exc:
            problems.append(str(exc))
        if g.submission_format == SubmissionFormat.CSV:
            for name, value in (("id_columns", g.id_columns),
                                ("target_columns", g.target_columns),
                                ("submission_header", g.submission_header)):
                if not value:
                    problems.append(f"grading names no {name} (a csv submission needs them)")
    if spec.modality is None:
        problems.append("no modality is set")
    return problems


def is_complete(spec: TaskSpec) -> bool:
    """Whether :func:`completeness_problems` finds nothing."""
    return not completeness_problems(spec)


def status_for(spec: TaskSpec) -> Literal["complete", "incomplete"]:
    """The status a spec's content supports."""
    return "complete" if is_complete(spec) else "incomplete"


def status_problems(spec: TaskSpec) -> list[str]:
    """Problems of a spec that says it is complete (empty for an incomplete one)."""
    if spec.status != "complete":
        return []
    return [f"status is complete but {p}" for p in completeness_problems(spec)]
