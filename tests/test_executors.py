"""Executors: backends, retries with one status per item, dead workers, the shared rate limit.

Ray tests share one module-scoped local Ray (it takes seconds and ~700 MB to start).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import pytest

from tambench.config import load_settings
from tambench.errors import ConfigError, ExecutorError, MissingDependencyError
from tambench.executors import (
    EXECUTOR_FACTORIES,
    LocalExecutor,
    SerialExecutor,
    ThreadExecutor,
    executor_from_settings,
    get_executor,
    run_items,
    shared_rate_limiter,
)
from tambench.executors.limiter import GlobalRateLimiter

# --- work functions (module level: workers import them by name) -----------------------------


def square(x: int) -> int:
    return x * x


def square_or_fail(x: int) -> int:
    if x == 3:
        raise ValueError("three is not allowed")
    return x * x


def behave(item: tuple[str, str]) -> str:
    """``("ok"|"raise"|"die"|"die_once"|"raise_once", marker path)``."""
    kind, marker = item
    if kind == "raise":
        raise ValueError(f"bad item {Path(marker).name}")
    if kind == "die":
        os._exit(17)
    if kind in {"die_once", "raise_once"} and not Path(marker).exists():
        Path(marker).write_text("first attempt", encoding="utf-8")
        if kind == "die_once":
            os._exit(17)
        raise RuntimeError("transient")
    return f"{kind} done"


def reserve_after_barrier(args: tuple[Any, Any]) -> tuple[int, float]:
    """Meet another worker at a barrier, then book one slot for the same domain."""
    limiter, barrier = args
    if barrier is not None:
        barrier.wait(timeout=120)
    return os.getpid(), limiter._book.reserve("Example.org")


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_executor() -> Iterator[Executor]:
    """One local Ray for the module; checks that shutdown removes what it started."""
    ray = pytest.importorskip("ray")
    from tambench.executors.ray_backend import RayExecutor

    executor = RayExecutor(max_workers=2)
    temp_dir = executor._temp_dir
    yield executor
    executor.shutdown()
    assert not ray.is_initialized()
    assert temp_dir is not None and not Path(temp_dir).exists()


@pytest.fixture(scope="module")
def local_executor() -> Iterator[LocalExecutor]:
    executor = LocalExecutor(max_workers=2)
    yield executor
    executor.shutdown()


def _mixed_batch(tmp_path: Path, *, with_deaths: bool) -> list[tuple[str, str]]:
    kinds = ["ok", "raise", "raise_once", "ok"]
    if with_deaths:
        kinds += ["die", "die_once", "ok"]
    return [(k, str(tmp_path / f"item{i}")) for i, k in enumerate(kinds)]


def _summary(results: list[Any]) -> list[tuple[Any, ...]]:
    return [(r.index, r.status, r.value, r.error, r.attempts) for r in results]


# --- backends ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["serial", "thread", "local"])
def test_each_local_backend_returns_submit_and_map_results_in_order(kind: str) -> None:
    executor = get_executor(kind, max_workers=2)
    try:
        assert executor.submit(square, 7).result() == 49
        assert list(executor.map(square, range(6))) == [0, 1, 4, 9, 16, 25]
    finally:
        executor.shutdown()


def test_ray_backend_returns_real_futures_and_the_original_exception(
    ray_executor: Executor,
) -> None:
    from concurrent.futures import Future

    fut = ray_executor.submit(square, 7)
    assert isinstance(fut, Future)
    assert fut.result(timeout=120) == 49
    assert list(ray_executor.map(square, range(6), timeout=120)) == [0, 1, 4, 9, 16, 25]
    with pytest.raises(ValueError, match="three is not allowed"):
        ray_executor.submit(square_or_fail, 3).result(timeout=120)


def test_second_ray_executor_reuses_the_session_and_leaves_it_running(
    ray_executor: Executor,
) -> None:
    import ray

    from tambench.executors.ray_backend import RayExecutor

    guest = RayExecutor()
    assert not guest.owns_session
    assert guest.submit(square, 4).result(timeout=120) == 16
    guest.shutdown()
    assert ray.is_initialized()
    assert ray_executor.submit(square, 5).result(timeout=120) == 25


def test_unknown_executor_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown executor 'dask'; valid: auto, local, ray, serial, thread"):
        get_executor("dask")


def test_ray_is_registered_but_not_imported_until_chosen() -> None:
    assert "ray" in EXECUTOR_FACTORIES
    code = "import sys, tambench.executors, tambench.cli.main; print('ray' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False"


def test_ray_executor_without_ray_installed_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    with pytest.raises(MissingDependencyError, match=r"pip install 'tambench\[ray\]'"):
        get_executor("ray")


# --- settings ---------------------------------------------------------------------------------


def _use_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "cfg.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("TAMBENCH_CONFIG", str(path))
    for var in ("TAMBENCH_EXECUTOR", "TAMBENCH_EXECUTOR_ADDRESS", "TAMBENCH_MAX_WORKERS"):
        monkeypatch.delenv(var, raising=False)


def test_config_file_chooses_the_executor_and_its_size(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _use_config(monkeypatch, tmp_path, 'executor = "thread"\nmax_workers = 3\n')
    executor = executor_from_settings(load_settings())
    try:
        assert isinstance(executor, ThreadExecutor)
        assert executor.max_workers == 3
    finally:
        executor.shutdown()
    serial = executor_from_settings(load_settings(executor="serial"))  # the CLI option wins
    assert isinstance(serial, SerialExecutor)


def test_address_for_a_machine_local_executor_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _use_config(monkeypatch, tmp_path, 'executor = "local"\nexecutor_address = "auto"\n')
    with pytest.raises(ConfigError, match=r"executor_address 'auto' is only used by the ray"):
        executor_from_settings(load_settings())


# --- run_items: retries and one status per item -----------------------------------------------


@pytest.mark.parametrize("kind", ["serial", "thread"])
def test_exception_is_retried_then_reported_with_a_status_per_row(kind: str) -> None:
    executor = get_executor(kind, max_workers=2)
    try:
        results = run_items(square_or_fail, range(6), executor, retries=2)
    finally:
        executor.shutdown()
    assert [r.status for r in results] == ["ok", "ok", "ok", "failed", "ok", "ok"]
    assert [r.value for r in results] == [0, 1, 4, None, 16, 25]
    failed = results[3]
    assert failed.error == "ValueError: three is not allowed"
    assert failed.attempts == 3
    assert failed.detail is not None and "square_or_fail" in failed.detail


def test_zero_retries_reports_a_failure_after_one_attempt() -> None:
    results = run_items(square_or_fail, [3], SerialExecutor(), retries=0)
    assert (results[0].status, results[0].attempts) == ("failed", 1)


def test_no_retry_exceptions_are_reported_at_once() -> None:
    results = run_items(square_or_fail, [3], SerialExecutor(), retries=5, no_retry=(ValueError,))
    assert (results[0].status, results[0].attempts) == ("failed", 1)


def test_transient_exception_succeeds_on_retry(tmp_path: Path) -> None:
    results = run_items(behave, [("raise_once", str(tmp_path / "m"))], SerialExecutor())
    assert (results[0].status, results[0].value, results[0].attempts) == ("ok", "raise_once done", 2)


def test_negative_retries_are_refused() -> None:
    with pytest.raises(ExecutorError, match="retries must be >= 0, got -1"):
        run_items(square, [1], SerialExecutor(), retries=-1)


@pytest.mark.parametrize("chunk_size", [1, 3, None])
def test_chunking_does_not_change_results(chunk_size: int | None) -> None:
    results = run_items(square_or_fail, range(10), SerialExecutor(), chunk_size=chunk_size)
    assert [r.value for r in results] == [i * i if i != 3 else None for i in range(10)]
    assert [r.index for r in results] == list(range(10))


def test_killed_local_worker_is_retried_then_reported_and_the_pool_recovers(
    tmp_path: Path, local_executor: LocalExecutor
) -> None:
    batch = _mixed_batch(tmp_path, with_deaths=True)
    # One chunk in flight at a time: a chunk whose result is lost with a broken pool is not
    # charged (see the bystander test below), so with more in flight the attempts counted for
    # the transient item would depend on timing.
    results = run_items(behave, batch, local_executor, retries=2, chunk_size=2, max_in_flight=1)
    assert _summary(results) == [
        (0, "ok", "ok done", None, 1),
        (1, "failed", None, "ValueError: bad item item1", 3),
        (2, "ok", "raise_once done", None, 2),
        (3, "ok", "ok done", None, 1),
        (4, "failed", None, results[4].error, 3),
        (5, "ok", "die_once done", None, 2),
        (6, "ok", "ok done", None, 1),
    ]
    assert results[4].error is not None and results[4].error.startswith("worker died:")
    assert local_executor.restarts >= 4  # three deaths of item 4, one of item 5
    assert local_executor.submit(square, 3).result() == 9


def test_items_in_flight_when_the_pool_breaks_are_rerun_without_being_charged(
    tmp_path: Path, local_executor: LocalExecutor
) -> None:
    batch = [("die", str(tmp_path / "d"))] + [("ok", str(tmp_path / f"o{i}")) for i in range(5)]
    results = run_items(behave, batch, local_executor, retries=2, chunk_size=1, max_in_flight=2)
    assert [(r.status, r.attempts) for r in results] == [("failed", 3)] + [("ok", 1)] * 5
    assert [r.value for r in results[1:]] == ["ok done"] * 5


@pytest.fixture
def broken_local(tmp_path: Path) -> Iterator[tuple[LocalExecutor, Any]]:
    """A one-worker local executor whose pool broke (its worker died) and has finished
    failing its tasks and ending its workers; with that broken pool."""
    from concurrent.futures.process import BrokenProcessPool

    executor = LocalExecutor(max_workers=1)
    try:
        with pytest.raises(BrokenProcessPool):
            executor.submit(behave, ("die", str(tmp_path / "m"))).result(timeout=60)
        broken = executor._pool
        broken._executor_manager_thread.join(timeout=60)
        yield executor, broken
    finally:
        executor.shutdown()


@pytest.mark.parametrize("ending", ["replaced", "shut down"])
def test_a_worker_started_late_in_a_broken_pool_is_killed(
    broken_local: tuple[LocalExecutor, Any], ending: str
) -> None:
    # A submit that passes the pool's "broken?" check just before the pool learns of a death
    # can start a worker after the pool has terminated the others. Nothing ever ends that
    # worker, and the pool's manager thread (which the interpreter joins at exit) waits for it.
    executor, broken = broken_local
    # The late worker: a process the broken pool records but did not terminate.
    late = executor._mp_context.Process(target=time.sleep, args=(600,))  # type: ignore[attr-defined]
    late.daemon = True
    late.start()
    broken._processes[late.pid] = late
    if ending == "replaced":
        assert executor.submit(square, 4).result(timeout=60) == 16
        assert executor.restarts == 1
    else:
        executor.shutdown()
    late.join(timeout=20)
    assert not late.is_alive()


def test_a_task_queued_while_the_pool_breaks_fails_instead_of_waiting_for_ever(
    broken_local: tuple[LocalExecutor, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race: a submit passes the pool's "broken?" check, then the pool fails every pending
    # task and marks itself broken, then the submit queues its task, which nothing will run.
    from concurrent.futures.process import BrokenProcessPool

    executor, broken = broken_local
    real_submit = broken.submit

    def submit_as_the_race_does(*args: Any, **kwargs: Any) -> Any:
        flags = broken._broken, broken._shutdown_thread
        broken._broken, broken._shutdown_thread = False, False  # as seen by the check
        try:
            return real_submit(*args, **kwargs)
        finally:
            broken._broken, broken._shutdown_thread = flags

    monkeypatch.setattr(broken, "submit", submit_as_the_race_does)
    queued = executor.submit(square, 3)
    with pytest.raises(BrokenProcessPool, match="broke while this task was being submitted"):
        queued.result(timeout=60)
    assert executor.restarts == 1
    assert executor.submit(square, 4).result(timeout=60) == 16


@pytest.fixture
def refused_starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Worker starts that the forkserver refuses, as it does while it restarts (it ends when a
    start fails half-way): set ``refused[0]`` to how many starts to refuse; ``refused[1]``
    counts the refusals."""
    import multiprocessing.forkserver as forkserver

    refused = [0, 0]
    real = forkserver.connect_to_new_process

    def connect(fds: Any) -> Any:
        if refused[1] < refused[0]:
            refused[1] += 1
            raise ConnectionRefusedError(111, "Connection refused")
        return real(fds)

    monkeypatch.setattr(forkserver, "connect_to_new_process", connect)
    return refused


def test_a_worker_start_refused_by_a_restarting_forkserver_is_retried_on_a_fresh_pool(
    refused_starts: list[int],
) -> None:
    executor = LocalExecutor(max_workers=2)
    try:
        assert executor._mp_context.get_start_method() == "forkserver"
        busy = executor.submit(time.sleep, 1.0)  # the first worker
        refused_starts[0] = 2  # the next submit needs a second worker: refused twice
        assert executor.submit(square, 3).result(timeout=60) == 9
        assert refused_starts[1] == 2 and executor.restarts == 2
        # The pool that could not grow was retired gently: its running task finished.
        assert busy.result(timeout=60) is None
    finally:
        executor.shutdown()


def test_a_pool_that_can_never_start_a_worker_raises_instead_of_hanging(
    refused_starts: list[int],
) -> None:
    executor = LocalExecutor(max_workers=1)
    try:
        refused_starts[0] = 10**6
        with pytest.raises(ConnectionRefusedError):
            executor.submit(square, 3)
        assert refused_starts[1] == 5  # a few fresh pools, then the error
        refused_starts[0] = 0  # the forkserver is back: the executor works again
        assert executor.submit(square, 4).result(timeout=60) == 16
    finally:
        executor.shutdown()


def test_killed_ray_worker_is_retried_then_reported_like_the_local_pool(
    tmp_path: Path, ray_executor: Executor
) -> None:
    batch = _mixed_batch(tmp_path, with_deaths=True)
    results = run_items(behave, batch, ray_executor, retries=2, chunk_size=2)
    assert [(r.status, r.value, r.attempts) for r in results] == [
        ("ok", "ok done", 1),
        ("failed", None, 3),
        ("ok", "raise_once done", 2),
        ("ok", "ok done", 1),
        ("failed", None, 3),
        ("ok", "die_once done", 2),
        ("ok", "ok done", 1),
    ]
    assert results[1].error == "ValueError: bad item item1"
    assert results[4].error is not None and "WorkerCrashedError" in results[4].error


def test_plain_process_pool_that_breaks_is_reported_as_executor_error(tmp_path: Path) -> None:
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=1)
    try:
        with pytest.raises(ExecutorError, match="cannot restart"):
            run_items(behave, [("die", str(tmp_path / "m")), ("ok", "x")], pool, chunk_size=1)
    finally:
        pool.shutdown()


# --- the shared rate limit --------------------------------------------------------------------


def test_local_workers_share_one_rate_limit(local_executor: LocalExecutor) -> None:
    import multiprocessing

    with multiprocessing.Manager() as manager:
        barrier = manager.Barrier(2)
        with shared_rate_limiter(local_executor, min_interval=100.0) as limiter:
            futs = [local_executor.submit(reserve_after_barrier, (limiter, barrier)) for _ in "ab"]
            booked = [f.result(timeout=120) for f in futs]
    assert len({pid for pid, _ in booked}) == 2  # two processes met at the barrier
    # One book for both: the second request waits a full interval (a book per process: 0, 0).
    assert sorted(round(delay / 100.0) for _, delay in booked) == [0, 1]


def test_ray_tasks_share_one_rate_limit_held_by_an_actor(ray_executor: Executor) -> None:
    with shared_rate_limiter(ray_executor, min_interval=100.0) as limiter:
        futs = [ray_executor.submit(reserve_after_barrier, (limiter, None)) for _ in range(3)]
        booked = [f.result(timeout=120) for f in futs]
    assert sorted(round(delay / 100.0) for _, delay in booked) == [0, 1, 2]


def test_in_process_limiter_spaces_requests_per_domain_and_honours_defer() -> None:
    import asyncio

    with shared_rate_limiter(SerialExecutor(), min_interval=0.0, per_domain={"a.org": 50.0}) as lim:
        assert isinstance(lim, GlobalRateLimiter)
        asyncio.run(lim.acquire("b.org", 0.0))
        assert lim.wait("a.org") == 0.0
        assert round(lim._book.reserve("A.ORG")) == 50  # domains are case-insensitive
        lim.defer("b.org", 80.0)
        assert round(lim._book.reserve("b.org")) == 80
        assert round(lim._book.reserve("b.org", 5.0)) == 80  # a per-request gap, after that one
        assert round(lim._book.reserve("b.org")) == 85


def test_rate_limit_interval_must_be_finite_and_non_negative() -> None:
    with pytest.raises(ConfigError, match=r"'every domain' must be a finite .* got -1.0"):
        with shared_rate_limiter(SerialExecutor(), min_interval=-1.0):
            pass


# --- distributed crawls -----------------------------------------------------------------------


def test_crawls_run_one_competition_per_task_under_one_global_rate_limit(
    tmp_path: Path, local_executor: LocalExecutor
) -> None:
    from tambench.acquisition.crawl import crawl_competitions
    from tambench.acquisition.fetch import FetchSettings
    from tambench.testing.site import serve_site

    # AIcrowd-style pages are server-rendered, so the http renderer reads them completely;
    # what matters here is that their pages are crawled in parallel under one limit.
    settings = FetchSettings(renderer="http", hermetic=True, retries=0)
    with serve_site() as site:
        refs = [f"aicrowd:{slug}" for slug in site.slugs]
        report = crawl_competitions(
            refs, tmp_path / "catalogue", local_executor, min_interval=0.3,
            base_urls=site.base_urls, settings=settings, state_dir=tmp_path / "state",
        )
        times = sorted(site.hit_times("/aicrowd/challenges/"))
    assert [r.ref for r in report.results] == refs
    assert all(r.fetched >= 3 and r.status == "complete" for r in report.results), report
    assert len(times) >= 3 * len(refs)
    # Two workers crawl at once, yet requests reach the origin one interval apart: a limiter
    # per worker would let pairs arrive together (gaps near 0) and finish in half the time.
    # Arrival times carry scheduling jitter on a loaded machine (a request sent on its slot
    # can arrive late and the next on time), so single gaps get a jitter allowance and the
    # whole crawl must span its intervals.
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= 0.12, gaps
    assert times[-1] - times[0] >= 0.9 * 0.3 * (len(times) - 1), gaps


# --- distributed split preparation ------------------------------------------------------------


def _prepare_jobs(root: Path, data_dir: Path) -> list[Any]:
    from tambench.schema.taskspec import GradingSpec, RandomSplit, TaskSpec
    from tambench.splits.prepare import PrepareJob

    jobs = []
    for slug in ("one", "two", "broken"):
        raw = root / "raw" / slug
        if slug != "broken":  # no raw data: a failed outcome, not an aborted batch
            raw.mkdir(parents=True, exist_ok=True)
            rows = "".join(f"{i},{i % 3},{i * 0.5}\n" for i in range(120))
            (raw / "train.csv").write_text("id,label,x\n" + rows, encoding="utf-8")
        spec = TaskSpec(
            id=f"local/{slug}", platform="local", title=slug,
            grading=GradingSpec(metric="accuracy", id_columns=["id"], target_columns=["label"]),
            split=RandomSplit(id_column="id", target_columns=["label"], test_size=0.25),
        )
        jobs.append(PrepareJob(spec, str(raw), str(data_dir)))
    return jobs


def test_split_preparation_gives_the_same_files_on_local_and_ray(
    tmp_path: Path, local_executor: LocalExecutor, ray_executor: Executor
) -> None:
    from tambench.splits.prepare import prepare_many

    outcomes = {}
    for name, executor in (("local", local_executor), ("ray", ray_executor)):
        outcomes[name] = prepare_many(
            _prepare_jobs(tmp_path, tmp_path / name), executor=executor, retries=1
        )
    for name, got in outcomes.items():
        assert [(o.task_id, o.status) for o in got] == [
            ("local/one", "prepared"), ("local/two", "prepared"), ("local/broken", "failed")
        ], name
        assert "does not exist" in got[2].error
    for slug in ("one", "two"):
        local_sums = (tmp_path / "local" / "local" / slug / "checksums.json").read_bytes()
        ray_sums = (tmp_path / "ray" / "local" / slug / "checksums.json").read_bytes()
        assert local_sums == ray_sums
