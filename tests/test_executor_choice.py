"""The ``auto`` executor: serial, threads or processes, chosen from a batch's size and the
measured cost of its first tasks."""

from __future__ import annotations

import os
import time

import pytest

from tambench.config import load_settings
from tambench.executors import (
    AutoExecutor,
    LocalExecutor,
    SerialExecutor,
    ThreadExecutor,
    choose_backend,
    executor_from_settings,
    get_executor,
    run_items,
)
from tambench.executors import auto as auto_module


@pytest.mark.parametrize(("tasks_left", "wall", "cpu", "workers", "expected"), [
    (199, 0.012, 0.012, 2, "serial"),   # 200 small submissions: 2.4 s in one process
    (999, 0.05, 0.05, 2, "process"),    # 50 s of compute on 2 workers saves 25 s
    (999, 0.05, 0.05, 1, "serial"),     # one worker: nothing to share
    (0, 5.0, 5.0, 8, "serial"),         # nothing left after the probes
    (99, 0.3, 0.01, 4, "thread"),       # waiting on the network
    (3, 0.03, 0.0, 4, "serial"),        # waiting, but too little of it for threads
    (30, 0.1, 0.1, 2, "serial"),        # 3 s of compute: 1.5 s saved does not beat start-up
    (31, 0.1, 0.1, 2, "process"),       # 3.1 s: 1.55 s saved does
])
def test_the_choice_rule_weighs_serial_work_against_a_pools_start_up(
    tasks_left: int, wall: float, cpu: float, workers: int, expected: str
) -> None:
    assert choose_backend(tasks_left, wall, cpu, workers) == expected


def _square(x: int) -> int:
    return x * x


def _nap(x: int) -> int:
    time.sleep(0.05)
    return x


def _pid(_: int) -> int:
    return os.getpid()


def test_a_short_batch_stays_in_the_calling_process() -> None:
    pool = AutoExecutor(max_workers=2)
    results = run_items(_square, range(50), pool, chunk_size=1)
    pool.shutdown()
    assert pool.chosen == "serial"
    assert [r.value for r in results] == [x * x for x in range(50)]


def test_tasks_that_wait_go_to_threads() -> None:
    pool = AutoExecutor(max_workers=4)
    results = run_items(_nap, range(12), pool, chunk_size=1)
    pool.shutdown()
    assert pool.chosen == "thread"
    assert isinstance(pool._inner, ThreadExecutor)
    assert [r.value for r in results] == list(range(12))


def test_long_compute_goes_to_a_process_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    # Start-up made free, so any compute-bound batch is worth a pool: the rule, not the clock,
    # decides here.
    monkeypatch.setattr(auto_module, "PROCESS_START_S", 0.0)
    monkeypatch.setattr(auto_module, "WAITING_CPU_SHARE", -1.0)
    pool = AutoExecutor(max_workers=2)
    results = run_items(_pid, range(8), pool, chunk_size=1)
    pool.shutdown()
    assert pool.chosen == "process"
    pids = [r.value for r in results]
    assert pids[:2] == [os.getpid()] * 2  # the probes ran here
    assert os.getpid() not in pids[2:]    # the rest on worker processes


def test_a_failing_probe_is_still_retried_and_reported() -> None:
    calls: list[int] = []

    def flaky(x: int) -> int:
        calls.append(x)
        if x == 0 and calls.count(0) == 1:
            raise ValueError("first attempt fails")
        return x

    pool = AutoExecutor(max_workers=2)
    results = run_items(flaky, range(5), pool, chunk_size=1, retries=1)
    pool.shutdown()
    assert [r.status for r in results] == ["ok"] * 5
    assert results[0].attempts == 2


@pytest.mark.parametrize(("name", "kind"), [
    ("auto", AutoExecutor), ("local", LocalExecutor), ("thread", ThreadExecutor),
    ("serial", SerialExecutor),
])
def test_an_explicit_choice_is_kept(name: str, kind: type) -> None:
    pool = get_executor(name, 2)
    try:
        assert type(pool) is kind
    finally:
        pool.shutdown()


def test_auto_is_the_default(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.delenv("TAMBENCH_EXECUTOR", raising=False)
    monkeypatch.setenv("TAMBENCH_CONFIG", str(tmp_path) + "/none.toml")
    pool = executor_from_settings(load_settings())
    pool.shutdown()
    assert isinstance(pool, AutoExecutor)
