"""A catalogue and prepared data of two small tasks (public and private folders) for runs."""

from __future__ import annotations

from pathlib import Path

from tambench.grading.grade import resolve_task
from tambench.runs.batch import task_info
from tambench.runs.job import TaskInfo
from tests.grading.corpus import TASKS
from tests.grading.public_tasks import write_public
from tests.grading.test_batch import make_env


def prepared(tmp_path: Path) -> tuple[Path, Path]:
    """(catalogue, data) with test/value, test/label and test/txt prepared (public + private)."""
    cat, data, _ = make_env(tmp_path)
    for name in ("value", "label", "txt"):
        spec = resolve_task(f"test/{name}", catalogue=cat, data_dir=data).spec
        write_public(spec, data / "test" / name)
        (data / "test" / name / "public" / "train.csv").write_text("id,y\n1,0.5\n")
    return cat, data


def info(cat: Path, data: Path, task: str = "test/value") -> TaskInfo:
    return task_info(task, cat, data)


def answers_text(name: str = "value") -> str:
    return TASKS[name].answers
