"""``auto``, the default executor: serial, threads or processes, chosen per batch.

A process pool pays for itself only when a batch is long enough: each worker starts an
interpreter and imports the grader again (about half a second of CPU each, more on a loaded
machine), and a batch of 200 small submissions took longer on a pool than in one process.
Threads cost nothing to start but run Python one at a time; they help where tasks wait
(network, disk) rather than compute.

So :class:`AutoExecutor` runs the first tasks of a batch in the calling process, measures
them (wall and CPU time), and then sends the rest where :func:`choose_backend` says. The batch
driver (:func:`tambench.executors.run_items`) announces the number of tasks with
:meth:`AutoExecutor.expect`; an explicit ``--executor serial|thread|local|ray`` bypasses all
this.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, Literal

from tambench.executors.pools import (
    LocalExecutor,
    SerialExecutor,
    ThreadExecutor,
    default_workers,
)

Backend = Literal["serial", "thread", "process"]

#: Tasks run in the calling process and timed before the choice (the first one also pays
#: for the imports the work needs; the fastest of them is taken as the cost of a task).
PROBE_TASKS = 2
#: What starting a process pool costs before its workers do useful work, in seconds: each
#: worker starts an interpreter and imports the grader.
PROCESS_START_S = 1.5
#: A task spending less than this share of its wall time on the CPU is waiting (network,
#: disk): threads overlap the waits.
WAITING_CPU_SHARE = 0.5
#: Threads are not worth their bookkeeping below this much serial work, in seconds.
THREAD_MIN_S = 0.2


def choose_backend(tasks_left: int, wall_s: float, cpu_s: float, workers: int) -> Backend:
    """Where the rest of a batch runs, given the measured cost of one task.

    - one worker, or nothing left: ``serial``;
    - tasks that mostly wait (CPU under :data:`WAITING_CPU_SHARE` of wall) and at least
      :data:`THREAD_MIN_S` of serial work left: ``thread``;
    - compute-bound work whose parallel run saves more than a pool's start-up
      (``serial * (1 - 1/workers) > PROCESS_START_S``): ``process``;
    - anything else: ``serial``.

    >>> choose_backend(199, 0.012, 0.012, 2)     # 200 small submissions: 2.4 s in one process
    'serial'
    >>> choose_backend(999, 0.05, 0.05, 2)       # 50 s of grading
    'process'
    >>> choose_backend(99, 0.3, 0.01, 4)         # page fetches: waiting on the network
    'thread'
    """
    if workers <= 1 or tasks_left <= 0:
        return "serial"
    serial = tasks_left * wall_s
    if cpu_s < WAITING_CPU_SHARE * wall_s and serial >= THREAD_MIN_S:
        return "thread"
    if serial * (1.0 - 1.0 / workers) > PROCESS_START_S:
        return "process"
    return "serial"


class AutoExecutor(Executor):
    """Serial for the first tasks, then the backend :func:`choose_backend` picks.

    Args:
        max_workers: Workers of a thread or process pool, if one is chosen (default: one per
            CPU).
    """

    def __init__(self, max_workers: int | None = None) -> None:
        self.max_workers = max_workers or default_workers()
        self.expected_tasks: int | None = None
        self.chosen: Backend | None = None
        """The backend picked for this batch (None until the probe tasks have run)."""
        self._probes: list[tuple[float, float]] = []
        self._inner: Executor = SerialExecutor()

    def expect(self, n_tasks: int) -> None:
        """The batch about to be submitted holds ``n_tasks`` tasks (called by run_items)."""
        self.expected_tasks = n_tasks

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run a probe task inline (timed), or hand the task to the chosen backend."""
        if self.chosen is not None:
            return self._inner.submit(fn, *args, **kwargs)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        future = self._inner.submit(fn, *args, **kwargs)
        self._probes.append((time.perf_counter() - wall0, time.process_time() - cpu0))
        if len(self._probes) >= PROBE_TASKS or self.expected_tasks is None \
                or len(self._probes) >= self.expected_tasks:
            self._choose()
        return future

    def _choose(self) -> None:
        wall, cpu = min(self._probes)
        left = (self.expected_tasks or len(self._probes)) - len(self._probes)
        self.chosen = choose_backend(left, wall, cpu, self.max_workers)
        if self.chosen == "thread":
            self._inner = ThreadExecutor(self.max_workers)
        elif self.chosen == "process":
            self._inner = LocalExecutor(self.max_workers)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the pool, if one was started."""
        self._inner.shutdown(wait=wait, cancel_futures=cancel_futures)
