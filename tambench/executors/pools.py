"""In-process and local process-pool executors.

:class:`LocalExecutor` is a process pool that survives a dead worker: when a worker process is
killed (``os._exit``, a segfault, the OOM killer) the standard pool marks itself broken and
refuses all further work; this one replaces the broken pool on the next ``submit`` so that
:func:`tambench.executors.run_items` can retry the items that were lost. The other way round,
its workers end when the process that started them dies (:mod:`tambench.executors.lifeline`).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import (
    Executor,
    Future,
    InvalidStateError,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
)
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from typing import Any

from tambench.errors import ExecutorError
from tambench.executors.lifeline import watch_parent

#: How long a replaced pool's manager thread may take to fail the tasks it still holds.
_MANAGER_JOIN_SECONDS = 30.0
#: Fresh pools one ``submit`` may start, and the first pause after a failed worker start
#: (doubled each time: 0.05 s to 0.4 s, under a second in all).
_START_ATTEMPTS = 5
_START_PAUSE_SECONDS = 0.05
#: Pools whose first worker may die as it starts before the executor gives up, and how long
#: the first worker may take to answer (past that the pool is taken as sound).
_PROBE_POOLS = 2
_PROBE_SECONDS = 120.0
#: Why the workers of a process pool die as they start, nearly always.
CANNOT_START = (
    "the local executor's worker processes die as they start, so nothing can run on them. "
    "Each worker imports the main script again: in a script, put the calls that start "
    "processes (a local or auto executor, tambench.grade_runs with one) under "
    "`if __name__ == \"__main__\":` (docs/api.md), or use get_executor(\"serial\") or "
    "get_executor(\"thread\")")


def default_mp_context() -> BaseContext:
    """How worker processes start: ``forkserver`` where the platform has it, else ``spawn``.

    Never plain ``fork``: the parent is usually multi-threaded (polars' and numpy's thread
    pools, a Ray client, progress bars), and a child forked while one of those threads holds
    a lock deadlocks the first time it needs that lock.
    """
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def default_workers() -> int:
    """One worker per CPU (at least one)."""
    return os.cpu_count() or 1


class SerialExecutor(Executor):
    """Runs each task immediately in the calling process (same interface as the pools)."""

    #: A serial executor runs one task at a time.
    max_workers = 1

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run ``fn(*args, **kwargs)`` now and return its already-finished future."""
        fut: Future[Any] = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # delivered through the future, as a pool would
            fut.set_exception(exc)
        return fut


class ThreadExecutor(ThreadPoolExecutor):
    """A thread pool that states its size (``max_workers``) like the other backends."""

    def __init__(self, max_workers: int | None = None) -> None:
        self.max_workers = max_workers or default_workers()
        super().__init__(max_workers=self.max_workers)


class LocalExecutor(Executor):
    """A process pool that replaces itself when a worker process dies.

    Futures already submitted to a broken pool fail with ``BrokenProcessPool`` (the caller
    decides whether to retry them); the next ``submit`` starts a fresh pool.

    Work functions must be importable by module name (module-level functions), as with any
    process pool that does not fork.

    Args:
        max_workers: Number of worker processes (default: one per CPU).
        mp_context: A multiprocessing context (default: :func:`default_mp_context`).
    """

    def __init__(self, max_workers: int | None = None, mp_context: BaseContext | None = None) -> None:
        self.max_workers = max_workers or default_workers()
        self._mp_context = mp_context or default_mp_context()
        self._lock = threading.Lock()
        self._shut = False
        #: How many times a broken pool was replaced.
        self.restarts = 0
        self._proven = False
        self._pool = self._start_pool()

    def _start_pool(self) -> ProcessPoolExecutor:
        # Workers end when this process dies (kill -9 included): see executors.lifeline.
        return ProcessPoolExecutor(max_workers=self.max_workers, mp_context=self._mp_context,
                                   initializer=watch_parent, initargs=(os.getpid(),))

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Schedule ``fn(*args, **kwargs)`` on a worker process, restarting a broken pool.

        Raises:
            OSError: no worker process could be started, after a few fresh pools.
            ExecutorError: the first workers died as they started (:data:`CANNOT_START`).
        """
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot schedule new futures after shutdown")
            for attempt in range(_START_ATTEMPTS):
                try:
                    if not self._proven:
                        self._prove()
                    future = self._pool.submit(fn, *args, **kwargs)
                except BrokenProcessPool:
                    self._replace_pool()  # broken before this submit: its futures have failed
                    continue
                except OSError:
                    # A worker could not be started: the pool was breaking and closed the pipes
                    # that worker was being handed, or the forkserver is restarting (it ends
                    # when a start fails half-way, and refuses connections until it has gone).
                    if attempt == _START_ATTEMPTS - 1:
                        raise
                    self._replace_pool()
                    time.sleep(_START_PAUSE_SECONDS * 2**attempt)
                    continue
                if _is_broken(self._pool):
                    # The pool broke while this task was being queued: the task may have missed
                    # the pool's failing of every pending task, and would then never finish.
                    self._replace_pool(queued=future)
                return future
            raise BrokenProcessPool(f"the process pool broke {_START_ATTEMPTS} times in a row "
                                    "while this task was being submitted")

    def _prove(self) -> None:
        """Before the first task, see one worker answer a trivial call: workers that die as
        they start (a script without a main guard) would otherwise fail every task, one by
        one, each with a worker's traceback, and a batch would look graded. A worker that
        cannot be started at all raises OSError, which :meth:`submit` retries."""
        for _ in range(_PROBE_POOLS):
            try:
                self._pool.submit(os.getpid).result(timeout=_PROBE_SECONDS)
            except BrokenProcessPool:
                self._replace_pool()
                continue
            except TimeoutError:
                pass  # a slow start is still a start
            self._proven = True
            return
        raise ExecutorError(CANNOT_START)

    def _replace_pool(self, queued: Future[Any] | None = None) -> None:
        old = self._pool
        if _is_broken(old):
            manager = getattr(old, "_executor_manager_thread", None)  # shutdown clears it
            _end_broken_pool(old)
            if queued is not None:
                if manager is not None:
                    manager.join(timeout=_MANAGER_JOIN_SECONDS)
                if not queued.done():
                    with contextlib.suppress(InvalidStateError):  # failed by the pool meanwhile
                        queued.set_exception(BrokenProcessPool(
                            "the process pool broke while this task was being submitted"))
        else:
            # Sound, but it could not start a worker: the tasks it runs finish as usual (a
            # task it holds half-queued may run too; nobody waits for its result).
            old.shutdown(wait=False)
        self._pool = self._start_pool()
        self.restarts += 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the worker processes (waiting for running tasks when ``wait``)."""
        with self._lock:
            self._shut = True
            pool = self._pool
        if _is_broken(pool):
            _end_broken_pool(pool)
        pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def _is_broken(pool: ProcessPoolExecutor) -> bool:
    """Whether the standard pool has marked itself broken (it keeps that in a private field,
    set before it fails its pending tasks and ends its workers)."""
    return bool(getattr(pool, "_broken", False))


def _end_broken_pool(pool: ProcessPoolExecutor) -> None:
    """Shut a broken pool down and kill whatever worker of it is still running.

    A broken pool's manager thread terminates the workers it knows and then joins all of them.
    A ``submit`` that passed the "broken?" check just before the pool learnt that a worker had
    died may still start a worker after that termination; nothing ever sends that worker work
    or an end, so the join (and with it the interpreter's exit, which joins the manager thread)
    would wait for ever. Killing the leftover workers lets the join finish.
    """
    # The standard pool keeps its workers in a private table (pid -> process), which its
    # shutdown empties: read it first.
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        if process.is_alive():
            process.kill()


def worker_count(executor: Executor) -> int:
    """How many tasks ``executor`` runs at once (its ``max_workers``, else one per CPU)."""
    n = getattr(executor, "max_workers", None)
    if n is None:
        # Standard-library pools keep their size in a private attribute only.
        n = getattr(executor, "_max_workers", None)
    return int(n) if isinstance(n, int) and n > 0 else default_workers()
