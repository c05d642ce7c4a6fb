"""Pluggable executors: every parallel job in tambench runs on a ``concurrent.futures.Executor``.

``local`` (the default) is a process pool; ``thread`` a thread pool; ``serial`` runs in the
calling process (debugging, tiny jobs). A cluster backend registers itself in
:data:`EXECUTOR_FACTORIES` with the same interface.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from tambench.errors import ConfigError


class SerialExecutor(Executor):
    """Runs each task immediately in the calling process (same interface as the pools)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # delivered through the future, as a pool would
            fut.set_exception(exc)
        return fut


def _local(max_workers: int | None, **_: Any) -> Executor:
    return ProcessPoolExecutor(max_workers=max_workers or os.cpu_count() or 1)


def _thread(max_workers: int | None, **_: Any) -> Executor:
    return ThreadPoolExecutor(max_workers=max_workers or os.cpu_count() or 1)


def _serial(max_workers: int | None, **_: Any) -> Executor:
    return SerialExecutor()


#: name -> factory(max_workers, **options) returning an Executor.
EXECUTOR_FACTORIES: dict[str, Callable[..., Executor]] = {
    "local": _local,
    "thread": _thread,
    "serial": _serial,
}


def get_executor(kind: str = "local", max_workers: int | None = None, **options: Any) -> Executor:
    """Create an executor by name ("local", "thread", "serial", or a registered backend)."""
    try:
        factory = EXECUTOR_FACTORIES[kind]
    except KeyError:
        raise ConfigError(
            f"unknown executor {kind!r}; known: {sorted(EXECUTOR_FACTORIES)}"
        ) from None
    return factory(max_workers, **options)
