"""Agent-ready: what a task needs before an agent can be run on it and ranked.

A *complete* task can be graded (:mod:`tambench.schema.complete`). An *agent-ready* task also
has everything an agent run and its ranking need:

* **statement**: the schema's fields filled and agreeing with the grading
  (:func:`tambench.schema.mapping.templates.statement_problems`);
* **page source**: where the competition's pages are read (``page_sources``);
* **recipe**: how the local split is made (``split``), checked against the competition's real
  download: the suite prepares a download generated in that layout with it (the entry's
  ``raw_fixture.json``); a recipe without that check is reported as lacking a "checked recipe",
  since a recipe never run on the real layout is the usual reason a real download fails;
* **grading**: the task is complete;
* **leaderboard**: the final board a run is ranked against.

:func:`readiness_gaps` names what a task lacks; ``tambench tasks list`` shows it, and
``tambench subsets build --agent-ready`` builds from agent-ready tasks only, naming every task
left out and why.
"""

from __future__ import annotations

from pathlib import Path

from tambench.schema.mapping.templates import statement_problems
from tambench.schema.taskspec import TaskSpec
from tambench.tasks.catalogue import Catalogue, CatalogueEntry

#: What agent-readiness asks for, in the order it is reported.
PARTS = ("statement", "page source", "recipe", "grading", "leaderboard")


def readiness_gaps(spec: TaskSpec, has_leaderboard: bool, recipe: str) -> list[str]:
    """The parts of :data:`PARTS` the task lacks (empty when it is agent-ready); ``recipe`` is
    the entry's recipe state (:attr:`~tambench.tasks.catalogue.CatalogueEntry.recipe`:
    "checked", "unchecked" or "none")."""
    gaps = []
    if not spec.goal_description.strip() or statement_problems(spec):
        gaps.append("statement")
    if not spec.page_sources:
        gaps.append("page source")
    if spec.split is None or recipe == "none":
        gaps.append("recipe")
    elif recipe != "checked":
        gaps.append("checked recipe")
    if spec.status != "complete" or spec.grading is None:
        gaps.append("grading")
    if not has_leaderboard:
        gaps.append("leaderboard")
    return gaps


def catalogue_readiness(root: Path) -> dict[str, list[str]]:
    """Task id -> what it lacks, for every readable entry of a catalogue."""
    cat = Catalogue(root)
    entries, _ = cat.readable_entries()
    return {e.id: entry_gaps(e) for e in entries}


def entry_gaps(entry: CatalogueEntry) -> list[str]:
    """:func:`readiness_gaps` of a catalogue entry."""
    return readiness_gaps(entry.spec, entry.has_leaderboard, entry.recipe)


def not_ready_reason(gaps: list[str]) -> str:
    """The reason a task is left out of an agent-ready build.

    >>> not_ready_reason(["recipe", "leaderboard"])
    'not agent-ready: no recipe, no leaderboard'
    """
    return "not agent-ready: " + ", ".join(f"no {g}" for g in gaps)
