"""Batch grading gives the same report on every executor, and loads a task once per worker.

The Ray tests share one module-scoped local Ray (2 CPUs).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import Executor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tambench.executors import LocalExecutor, SerialExecutor, run_items
from tambench.grading.batch import (
    RunItem,
    RunSettings,
    batch_to_csv,
    batch_to_json,
    discover_runs,
    grade_run_item,
    grade_runs,
    make_resolver,
)
from tambench.grading.batch import worker as batch_worker
from tambench.schema.io import save_taskspec
from tambench.schema.taskspec import GradingSpec, TaskSpec

NOW = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
N_ROWS = 40


def build_runs(
    root: Path, *, agents: int, runs: int, slugs: tuple[str, ...] = ("alpha", "beta", "gamma")
) -> tuple[Path, Path, Path]:
    """Catalogue, data folder and runs tree: one task per slug; "gamma" has no answers.

    Each (agent, task) gets ``runs`` runs: valid submissions of varied accuracy, plus one
    invalid (wrong column) and one missing submission per agent and task.
    """
    catalogue, data_dir, runs_dir = root / "catalogue", root / "data", root / "runs"
    labels = [(i * 7) % 3 for i in range(N_ROWS)]
    for slug in slugs:
        folder = catalogue / "local" / slug
        folder.mkdir(parents=True)
        spec = TaskSpec(
            id=f"local/{slug}", platform="local", title=slug,
            grading=GradingSpec(metric="accuracy", id_columns=["id"], target_columns=["label"]),
        )
        save_taskspec(spec, folder / "task.json")
        board = ["Rank,TeamName,Score,Entries,LastSubmission"]
        board += [f"{r + 1},team{r},{1 - r / 20:.2f},3,2024-01-01" for r in range(20)]
        (folder / "leaderboard.csv").write_text("\n".join(board) + "\n", encoding="utf-8")
        if slug != "gamma":  # gamma's answers are missing: its rows end as errors
            private = data_dir / "local" / slug / "private"
            private.mkdir(parents=True)
            rows = "".join(f"{i},{labels[i]}\n" for i in range(N_ROWS))
            (private / "answers.csv").write_text("id,label\n" + rows, encoding="utf-8")
    for a in range(agents):
        for slug in slugs:
            for r in range(runs + 2):
                run = runs_dir / f"agent{a}" / slug / f"run{r:03d}"
                run.mkdir(parents=True)
                if r == runs + 1:
                    continue  # no submission
                header = "id,wrong" if r == runs else "id,label"
                wrong = (a + r) % N_ROWS
                body = "".join(
                    f"{i},{(labels[i] + 1) % 3 if i < wrong else labels[i]}\n"
                    for i in range(N_ROWS)
                )
                (run / "submission.csv").write_text(f"{header}\n{body}", encoding="utf-8")
    return runs_dir, catalogue, data_dir


def grade_and_count(item: RunItem) -> tuple[int, str, int]:
    """Worker: grade one run; say which process did it and how many loads grading it took."""
    if item.task_ref is None:
        raise ValueError(f"test item {item} has no task")
    task_id = item.task_ref.task_id
    before = batch_worker.TASK_LOADS[task_id]
    grade_run_item(item)
    return os.getpid(), task_id, batch_worker.TASK_LOADS[task_id] - before


@pytest.fixture(scope="module")
def ray_executor() -> Iterator[Executor]:
    pytest.importorskip("ray")
    from tambench.executors.ray_backend import RayExecutor

    executor = RayExecutor(max_workers=2)
    yield executor
    executor.shutdown()


@pytest.fixture(scope="module")
def runs_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    return build_runs(tmp_path_factory.mktemp("batch"), agents=2, runs=6)


def _grade(tree: tuple[Path, Path, Path], executor: Executor) -> Any:
    runs_dir, catalogue, data_dir = tree
    return grade_runs(
        runs_dir, catalogue=catalogue, data_dir=data_dir, executor=executor, retries=1, now=NOW
    )


def test_batch_report_is_byte_identical_on_local_and_ray(
    runs_tree: tuple[Path, Path, Path], ray_executor: Executor
) -> None:
    local = LocalExecutor(max_workers=2)
    try:
        on_local = _grade(runs_tree, local)
    finally:
        local.shutdown()
    on_ray = _grade(runs_tree, ray_executor)
    on_serial = _grade(runs_tree, SerialExecutor())

    statuses = {r.status.value for r in on_local.rows}
    assert statuses == {"graded_valid", "invalid_submission", "missing_submission", "error"}
    assert len(on_local.rows) == 2 * 3 * 8
    gamma_errors = [r for r in on_local.rows if r.task == "gamma" and r.status == "error"]
    assert len(gamma_errors) == 2 * 8  # gamma's answers cannot be loaded: every row fails
    assert "task local/gamma is not prepared in" in (gamma_errors[0].error or "")
    assert batch_to_json(on_ray) == batch_to_json(on_local) == batch_to_json(on_serial)
    assert batch_to_csv(on_ray) == batch_to_csv(on_local)


@pytest.fixture(scope="module")
def load_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Tasks of their own, so that no process has loaded them before these tests."""
    return build_runs(
        tmp_path_factory.mktemp("loads"), agents=2, runs=6, slugs=("delta", "epsilon")
    )


def _items(tree: tuple[Path, Path, Path]) -> list[RunItem]:
    runs_dir, catalogue, data_dir = tree
    resolve = make_resolver(catalogue, data_dir)
    return discover_runs(runs_dir, resolve, RunSettings(created_at=NOW))


def _assert_loaded_once_per_task_per_worker(results: list[Any], max_workers: int) -> None:
    assert all(r.ok for r in results)
    loads: dict[tuple[int, str], int] = {}
    for r in results:
        pid, task_id, n = r.value
        loads[pid, task_id] = loads.get((pid, task_id), 0) + n
    # Every process that graded a task loaded it exactly once, whatever number of its runs
    # it graded (2 agents x 8 runs per task here); without the cache this would be 8 or more.
    assert set(loads.values()) == {1}, loads
    assert len({pid for pid, _ in loads}) <= max_workers
    assert sum(loads.values()) < len(results)


def test_local_workers_load_each_task_once_not_once_per_submission(
    load_tree: tuple[Path, Path, Path],
) -> None:
    items = _items(load_tree)
    executor = LocalExecutor(max_workers=2)
    try:
        results = run_items(grade_and_count, items, executor, chunk_size=1)
    finally:
        executor.shutdown()
    _assert_loaded_once_per_task_per_worker(results, 2)


def test_ray_workers_load_each_task_once_not_once_per_submission(
    load_tree: tuple[Path, Path, Path], ray_executor: Executor
) -> None:
    items = _items(load_tree)
    results = run_items(grade_and_count, items, ray_executor, chunk_size=1)
    _assert_loaded_once_per_task_per_worker(results, 2)
