"""Run a function over many items on any executor, retrying failures, one status per item.

:func:`run_items` is the one place where batch jobs (grading, splits, crawls) meet an executor,
so every backend behaves the same:

- an exception raised by ``fn`` for an item is caught on the worker, and the item is run again
  up to ``retries`` more times; then it is reported ``failed`` with the error text;
- a worker that dies (``os._exit``, a segfault, the OOM killer; a Ray ``WorkerCrashedError``)
  costs the item it was running one attempt, with the same bound;
- the batch always completes: one :class:`ItemResult` per input item, in input order.

Small items are grouped into chunks (one task per chunk) so that a cluster backend is not
dominated by per-task overhead. A chunk whose worker dies is split into single items, which
are retried individually. When a process pool breaks, every task in flight fails at once and
the culprit cannot be told apart, so the items that were in flight are re-run one at a time
("isolation"); only a failure in isolation is charged to the item.
"""

from __future__ import annotations

import traceback
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, wait
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from tambench.errors import ExecutorError
from tambench.executors.pools import worker_count

T = TypeVar("T")
R = TypeVar("R")

#: The default number of retries after a first failed attempt.
DEFAULT_RETRIES = 2

#: Chunks are sized so that each worker gets about this many of them (load balance).
_CHUNKS_PER_WORKER = 4
#: Upper bound for automatic chunk sizes (keeps a lost chunk cheap to redo).
_MAX_AUTO_CHUNK = 64


@dataclass(frozen=True)
class ItemResult(Generic[R]):
    """The outcome of one item of a batch.

    Attributes:
        index: Position of the item in the input.
        status: ``"ok"`` (``value`` holds the result) or ``"failed"`` (``error`` says why).
        value: What ``fn`` returned, when ok.
        error: One line, ``"ExceptionType: message"`` or ``"worker died: ..."``, when failed.
        detail: The worker-side traceback of the last failure, when there is one.
        attempts: Attempts charged to this item (1 when it succeeded the first time).
    """

    index: int
    status: Literal["ok", "failed"]
    value: R | None = None
    error: str | None = None
    detail: str | None = None
    attempts: int = 1

    @property
    def ok(self) -> bool:
        """Whether the item succeeded."""
        return self.status == "ok"


#: What a worker sends back per item: (index, succeeded, value or (error, traceback, retryable)).
_Outcome = tuple[int, bool, Any]


def run_chunk(
    fn: Callable[[Any], Any],
    chunk: Sequence[tuple[int, Any]],
    no_retry: tuple[type[BaseException], ...] = (),
) -> list[_Outcome]:
    """Worker side: apply ``fn`` to each item of a chunk, catching each item's exception.

    Exceptions travel back as text, not objects, so that an unpicklable exception cannot break
    the batch and the error text is the same on every backend.
    """
    out: list[_Outcome] = []
    for index, item in chunk:
        try:
            out.append((index, True, fn(item)))
        except Exception as exc:  # reported per item by run_items, never dropped
            failure = (describe_error(exc), traceback.format_exc(), not isinstance(exc, no_retry))
            out.append((index, False, failure))
    return out


def describe_error(exc: BaseException) -> str:
    """One line naming an exception: ``"ValueError: bad row"``.

    >>> describe_error(KeyError("id"))
    "KeyError: 'id'"
    """
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _describe_crash(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"worker died: {type(exc).__name__}: {first}".rstrip(": ")


def pick_chunk_size(n_items: int, workers: int) -> int:
    """Automatic chunk size: about four chunks per worker, at most 64 items each.

    >>> pick_chunk_size(10_000, 2), pick_chunk_size(10, 2), pick_chunk_size(0, 2)
    (64, 1, 1)
    """
    return max(1, min(_MAX_AUTO_CHUNK, n_items // (workers * _CHUNKS_PER_WORKER)))


def run_items(
    fn: Callable[[T], R],
    items: Iterable[T],
    executor: Executor,
    *,
    retries: int = DEFAULT_RETRIES,
    chunk_size: int | None = None,
    max_in_flight: int | None = None,
    no_retry: tuple[type[BaseException], ...] = (),
    on_result: Callable[[ItemResult[R]], None] | None = None,
) -> list[ItemResult[R]]:
    """Apply ``fn`` to every item on ``executor``; one :class:`ItemResult` per item, in order.

    Args:
        fn: A picklable (module-level) function of one item.
        items: The work items (picklable).
        executor: Any ``concurrent.futures.Executor``. A process pool that breaks must be able
            to restart (as :class:`~tambench.executors.LocalExecutor` does).
        retries: Extra attempts after a failed one (exception or dead worker); 0 disables.
        chunk_size: Items per task; ``None`` picks one from the batch size and worker count.
        max_in_flight: Tasks submitted at once (default: the executor's workers times its
            ``in_flight_per_worker``, else 2). It also bounds how many items must be re-run
            alone after a process pool breaks.
        no_retry: Exception types reported at once, without retries (deterministic errors).
        on_result: Called in the calling thread with each final result (progress display).

    Returns:
        One result per item; ``status`` is ``"ok"`` or ``"failed"``.

    Raises:
        ExecutorError: ``retries`` is negative, or the executor is broken and cannot restart.
    """
    if retries < 0:
        raise ExecutorError(f"retries must be >= 0, got {retries}")
    work = list(items)
    workers = worker_count(executor)
    size = chunk_size if chunk_size is not None else pick_chunk_size(len(work), workers)
    if size < 1:
        raise ExecutorError(f"chunk_size must be >= 1, got {size}")
    depth = getattr(executor, "in_flight_per_worker", 2)
    window = max_in_flight if max_in_flight is not None else depth * workers
    if window < 1:
        raise ExecutorError(f"max_in_flight must be >= 1, got {window}")
    expect = getattr(executor, "expect", None)
    if callable(expect):  # the auto executor picks its backend from the batch's size
        expect(-(-len(work) // size))
    batch = _Batch(fn, work, executor, retries=retries, no_retry=no_retry, on_result=on_result)
    return batch.run(size, window)


class _Batch(Generic[T, R]):
    """The scheduling state of one :func:`run_items` call."""

    def __init__(
        self,
        fn: Callable[[T], R],
        work: list[T],
        executor: Executor,
        *,
        retries: int,
        no_retry: tuple[type[BaseException], ...],
        on_result: Callable[[ItemResult[R]], None] | None,
    ) -> None:
        self.fn, self.work, self.executor = fn, work, executor
        self.retries, self.no_retry, self.on_result = retries, no_retry, on_result
        self.results: list[ItemResult[R] | None] = [None] * len(work)
        self.charged = [0] * len(work)
        self.pending: deque[list[int]] = deque()
        self.isolate: deque[int] = deque()
        self.in_flight: dict[Future[list[_Outcome]], list[int]] = {}
        self.solo: set[Future[list[_Outcome]]] = set()

    def run(self, size: int, window: int) -> list[ItemResult[R]]:
        n = len(self.work)
        self.pending.extend(list(range(i, min(i + size, n))) for i in range(0, n, size))
        try:
            while self.pending or self.isolate or self.in_flight:
                self._fill(window)
                done, _ = wait(list(self.in_flight), return_when=FIRST_COMPLETED)
                for fut in done:
                    self._collect(fut)
        finally:
            for fut in self.in_flight:
                fut.cancel()
        missing = [i for i, r in enumerate(self.results) if r is None]
        if missing:
            raise ExecutorError(f"internal error: no result for items {missing[:5]}")
        return [r for r in self.results if r is not None]

    def _fill(self, window: int) -> None:
        if self.isolate:
            # Items under suspicion run alone so that a dead worker is attributable.
            if not self.in_flight:
                self._submit([self.isolate.popleft()], alone=True)
            return
        while self.pending and len(self.in_flight) < window:
            self._submit(self.pending.popleft(), alone=False)

    def _submit(self, indices: list[int], *, alone: bool) -> None:
        chunk = [(i, self.work[i]) for i in indices]
        try:
            fut = self.executor.submit(run_chunk, self.fn, chunk, self.no_retry)
        except BrokenExecutor as exc:
            raise ExecutorError(
                f"the executor is broken and cannot restart ({exc}); use "
                "tambench.executors.get_executor(...), whose pools replace dead workers"
            ) from exc
        self.in_flight[fut] = indices
        if alone:
            self.solo.add(fut)

    def _collect(self, fut: Future[list[_Outcome]]) -> None:
        indices = self.in_flight.pop(fut)
        alone = fut in self.solo
        self.solo.discard(fut)
        exc = fut.exception()
        if exc is not None and not isinstance(exc, Exception):
            raise exc  # Ctrl-C (or an exit) inside an in-process executor stops the batch
        if exc is None:
            for index, succeeded, payload in fut.result():
                if succeeded:
                    self._finish(ItemResult(index, "ok", payload, None, None,
                                            self.charged[index] + 1))
                else:
                    error, detail, retryable = payload
                    self._charge(index, error, detail, retryable=retryable, alone=False)
        elif isinstance(exc, BrokenExecutor) and not alone:
            # Every task in flight failed with the pool; the culprit is unknown.
            self.isolate.extend(indices)
        elif len(indices) > 1:
            # The task died; run its items singly, so the culprit alone pays.
            self.pending.extendleft([i] for i in reversed(indices))
        else:
            self._charge(indices[0], _describe_crash(exc), None,
                         retryable=True, alone=isinstance(exc, BrokenExecutor))

    def _finish(self, result: ItemResult[R]) -> None:
        self.results[result.index] = result
        if self.on_result is not None:
            self.on_result(result)

    def _charge(
        self, index: int, error: str, detail: str | None, *, retryable: bool, alone: bool
    ) -> None:
        self.charged[index] += 1
        if not retryable or self.charged[index] > self.retries:
            self._finish(ItemResult(index, "failed", None, error, detail, self.charged[index]))
        elif alone:
            self.isolate.append(index)
        else:
            self.pending.append([index])
