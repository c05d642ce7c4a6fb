"""A per-domain rate limit shared by every worker of an executor.

Crawls are distributed one competition per task, but a platform's politeness limit is per
domain, not per worker: two workers crawling two Kaggle competitions must still space their
requests to kaggle.com as one client would. The schedule therefore lives in exactly one place,
a :class:`SlotBook`:

- ``serial`` / ``thread``: an ordinary object in this process;
- ``local`` (process pool): a ``multiprocessing`` manager process holding the book;
- ``ray``: a Ray actor holding the book (works across machines).

Workers hold a :class:`GlobalRateLimiter` (picklable for the process and Ray backends) and ask
it for a slot before each request; the book answers how long to wait, and the worker sleeps
that long locally, so the book is never blocked by a waiting worker.
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.managers import BaseManager
from typing import Any, Protocol

from tambench._optional import require
from tambench.errors import ConfigError
from tambench.executors.lifeline import watch_parent
from tambench.executors.pools import LocalExecutor, default_mp_context
from tambench.executors.ray_backend import RayExecutor


class SlotBook:
    """The schedule of the next free request slot per domain (the state that is shared).

    Args:
        min_interval: Least seconds between two requests to the same domain.
        per_domain: Intervals for particular domains, overriding ``min_interval``.
        clock: Monotonic clock (tests inject a fake one).

    >>> t = [0.0]
    >>> book = SlotBook(2.0, clock=lambda: t[0])
    >>> book.reserve("kaggle.com"), book.reserve("kaggle.com"), book.reserve("aicrowd.com")
    (0.0, 2.0, 0.0)
    >>> book.defer("aicrowd.com", 30.0)
    >>> book.reserve("aicrowd.com")
    30.0
    """

    def __init__(
        self,
        min_interval: float,
        per_domain: Mapping[str, float] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        intervals = {"": min_interval, **(per_domain or {})}
        for domain, value in intervals.items():
            if not (math.isfinite(value) and value >= 0):
                raise ConfigError(
                    f"rate-limit interval for {domain or 'every domain'!r} must be a finite "
                    f"number of seconds >= 0, got {value!r}"
                )
        self._default = float(min_interval)
        self._per_domain = {k.lower(): float(v) for k, v in (per_domain or {}).items()}
        self._clock = clock
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def interval(self, domain: str) -> float:
        """Seconds between two requests to ``domain``."""
        return self._per_domain.get(domain.lower(), self._default)

    def reserve(self, domain: str, min_interval: float | None = None) -> float:
        """Book the next free slot for ``domain``; return the seconds to wait until it.

        ``min_interval`` is the gap this request asks to keep after it (callers that know
        their platform's politeness pass it); the configured interval is a floor under it.
        """
        key = domain.lower()
        gap = max(self.interval(key), float(min_interval or 0.0))
        with self._lock:
            now = self._clock()
            slot = max(now, self._next.get(key, now))
            self._next[key] = slot + gap
            return slot - now

    def defer(self, domain: str, seconds: float) -> None:
        """Keep ``domain`` free of requests for ``seconds`` from now (a server's Retry-After)."""
        key = domain.lower()
        with self._lock:
            now = self._clock()
            self._next[key] = max(self._next.get(key, now), now + max(0.0, seconds))


class _Book(Protocol):
    def reserve(self, domain: str, min_interval: float | None = None) -> float: ...

    def defer(self, domain: str, seconds: float) -> None: ...


class GlobalRateLimiter:
    """A worker's handle on the shared :class:`SlotBook`.

    It satisfies the acquisition stage's ``RateLimiter`` protocol (``await acquire(origin,
    min_interval)`` and ``defer(origin, seconds)``), so a page fetcher given this limiter spaces
    its requests together with every other worker's. Picklable when the book lives in a manager
    process or a Ray actor, so it can be passed to tasks as an argument.
    """

    def __init__(self, book: _Book) -> None:
        self._book = book

    def wait(self, domain: str, min_interval: float | None = None) -> float:
        """Block until this worker may send a request to ``domain``; return the seconds waited."""
        delay = float(self._book.reserve(domain, min_interval))
        if delay > 0:
            time.sleep(delay)
        return delay

    async def acquire(self, origin: str, min_interval: float | None = None) -> None:
        """:meth:`wait` for asyncio code (the booking call runs in a thread)."""
        delay = float(await asyncio.to_thread(self._book.reserve, origin, min_interval))
        if delay > 0:
            await asyncio.sleep(delay)

    def defer(self, origin: str, seconds: float) -> None:
        """Hold every worker off ``origin`` for ``seconds`` (e.g. after a 429 with Retry-After)."""
        self._book.defer(origin, seconds)


class _BookManager(BaseManager):
    """A manager process that owns one SlotBook for a process pool."""


_BookManager.register("SlotBook", SlotBook)


class _RayBook:
    """The :class:`_Book` interface over a Ray actor holding a SlotBook."""

    def __init__(self, actor: Any) -> None:
        self._actor = actor

    def reserve(self, domain: str, min_interval: float | None = None) -> float:
        ray = require("ray", feature="the ray executor")
        return float(ray.get(self._actor.reserve.remote(domain, min_interval)))

    def defer(self, domain: str, seconds: float) -> None:
        ray = require("ray", feature="the ray executor")
        ray.get(self._actor.defer.remote(domain, seconds))


@contextmanager
def shared_rate_limiter(
    executor: Executor,
    min_interval: float = 0.0,
    per_domain: Mapping[str, float] | None = None,
) -> Iterator[GlobalRateLimiter]:
    """A rate limiter that every worker of ``executor`` shares; released on exit.

    Args:
        executor: Where the workers run; decides where the book lives (see module docs).
        min_interval: Least seconds between two requests to one domain, across all workers
            (a request may ask for a longer gap).
        per_domain: Intervals for particular domains.

    Yields:
        A limiter to pass to the tasks (``limiter.wait(domain)`` or ``await
        limiter.acquire(origin, min_interval)`` before each request).
    """
    if isinstance(executor, RayExecutor):
        actor = executor.start_actor(SlotBook, min_interval, per_domain)
        try:
            yield GlobalRateLimiter(_RayBook(actor))
        finally:
            executor.stop_actor(actor)
    elif isinstance(executor, LocalExecutor | ProcessPoolExecutor):
        manager = _BookManager(ctx=default_mp_context())
        manager.start(initializer=watch_parent, initargs=(os.getpid(),))
        try:
            yield GlobalRateLimiter(manager.SlotBook(min_interval, per_domain))  # type: ignore[attr-defined]
        finally:
            manager.shutdown()
    else:
        yield GlobalRateLimiter(SlotBook(min_interval, per_domain))
