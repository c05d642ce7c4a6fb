"""The README's and the docs' examples name tasks that grade on a fresh install."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tambench.schema.complete import completeness_problems
from tambench.tasks.catalogue import bundled_catalogue_dir
from tambench.tasks.locate import load_task

REPO = Path(__file__).resolve().parents[2]
#: Commands of a fenced example that take a task, and where its id is.
_TASK_ARG = re.compile(
    r"^\s*\$?\s*tambench\s+(?:(?:grade|judge|check-split)\b.*?--task\s+(?P<a>\S+)"
    r"|(?:prepare|audit)\s+(?P<b>[a-z0-9][\w.-]*/[\w.-]+)"
    r"|tasks\s+show\s+(?P<c>[a-z0-9][\w.-]*/[\w.-]+))")


def example_tasks() -> list[tuple[str, int, str, str]]:
    """(file, line, command, task id) of every task-taking command in a fenced block."""
    out = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        fenced = False
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            m = _TASK_ARG.match(line) if fenced else None
            if m:
                tid = m.group("a") or m.group("b") or m.group("c")
                command = line.split("tambench", 1)[1].split()[0]
                out.append((path.name, lineno, command, tid))
    return out


def test_the_examples_name_tasks() -> None:
    found = example_tasks()
    assert any(f == "README.md" and c == "grade" for f, _, c, _ in found)
    assert len(found) >= 6


@pytest.mark.parametrize(("where", "line", "command", "task_id"), example_tasks())
def test_every_example_task_grades(where: str, line: int, command: str, task_id: str) -> None:
    spec = load_task(task_id, bundled_catalogue_dir())
    assert spec.grading is not None, f"{where}:{line}: {task_id} has no grading spec"
    assert completeness_problems(spec) == [], f"{where}:{line}: {task_id} is incomplete"
    if command == "prepare":
        assert spec.split is not None, f"{where}:{line}: {task_id} has no prepare recipe"
    if command in {"grade", "judge"}:
        assert spec.leaderboard is not None, f"{where}:{line}: {task_id} ranks on no board"
