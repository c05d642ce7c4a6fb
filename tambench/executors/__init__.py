"""Pluggable executors: every parallel job in tambench runs on a ``concurrent.futures.Executor``.

``auto`` (the default) runs a batch's first tasks in the calling process, measures them and
sends the rest to one of the next three (see :mod:`tambench.executors.auto`); ``local`` is a
process pool that replaces dead workers; ``thread`` a thread pool; ``serial`` runs in the
calling process (debugging, tiny jobs); ``ray`` runs on a Ray cluster
(``pip install 'tambench[ray]'``; imported only when chosen). A backend registers a factory in
:data:`EXECUTOR_FACTORIES`.

Batch jobs go through :func:`run_items`, which retries failed items a bounded number of times
and returns one status per item on every backend. Work that must respect one limit across all
workers (the per-domain crawl rate) uses :func:`shared_rate_limiter`.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any

from tambench.core.registry import Registry
from tambench.errors import ConfigError
from tambench.executors.auto import AutoExecutor, choose_backend
from tambench.executors.pools import (
    LocalExecutor,
    SerialExecutor,
    ThreadExecutor,
    default_workers,
    worker_count,
)
from tambench.executors.retry import DEFAULT_RETRIES, ItemResult, run_chunk, run_items

if TYPE_CHECKING:
    from tambench.config import Settings
    from tambench.executors.limiter import GlobalRateLimiter, SlotBook, shared_rate_limiter

#: Names of :mod:`tambench.executors.limiter`, loaded on first use: the limiter is for crawls
#: (asyncio and a multiprocessing manager), which a grading command never needs.
_LIMITER_NAMES = frozenset({"GlobalRateLimiter", "SlotBook", "shared_rate_limiter"})


def __getattr__(name: str) -> Any:
    if name in _LIMITER_NAMES:
        # start-up: saves 47 ms (the crawl limiter: asyncio)
        from tambench.executors import limiter

        return getattr(limiter, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "DEFAULT_RETRIES",
    "AutoExecutor",
    "EXECUTOR_FACTORIES",
    "GlobalRateLimiter",
    "ItemResult",
    "LocalExecutor",
    "SerialExecutor",
    "SlotBook",
    "choose_backend",
    "ThreadExecutor",
    "default_workers",
    "executor_from_settings",
    "get_executor",
    "run_chunk",
    "run_items",
    "shared_rate_limiter",
    "worker_count",
]


def _auto(max_workers: int | None, **_: Any) -> Executor:
    return AutoExecutor(max_workers=max_workers)


def _local(max_workers: int | None, **_: Any) -> Executor:
    return LocalExecutor(max_workers=max_workers)


def _thread(max_workers: int | None, **_: Any) -> Executor:
    return ThreadExecutor(max_workers=max_workers)


def _serial(max_workers: int | None, **_: Any) -> Executor:
    return SerialExecutor()


def _ray(max_workers: int | None, **options: Any) -> Executor:
    # Imported here: ray is an optional extra, loaded only when this backend is chosen.
    # start-up: saves 2 ms (the Ray adapter)
    from tambench.executors.ray_backend import RayExecutor

    return RayExecutor(max_workers=max_workers, **options)


#: name -> factory(max_workers, **options) returning an Executor. A new backend registers a
#: factory here (or lazily: ``EXECUTOR_FACTORIES.register_lazy("dask", "pkg.mod:factory")``).
EXECUTOR_FACTORIES: Registry[Callable[..., Executor]] = Registry(
    "executor", error=ConfigError, hint="set it with --executor or the executor setting"
)
for _name, _factory in (("auto", _auto), ("local", _local), ("thread", _thread), ("serial", _serial), ("ray", _ray)):
    EXECUTOR_FACTORIES.register(_name, _factory)


def get_executor(kind: str = "auto", max_workers: int | None = None, **options: Any) -> Executor:
    """Create an executor by name ("auto", "local", "thread", "serial", "ray", or a registered
    backend).

    Args:
        kind: The backend's name in :data:`EXECUTOR_FACTORIES`.
        max_workers: Parallel workers (default: one per CPU; for ``ray`` with an address,
            the cluster's CPUs).
        **options: Backend options; ``ray`` takes ``address`` ("auto", "ray://host:10001"),
            ``num_cpus``, ``num_gpus``, ``runtime_env`` and ``temp_dir``. Other backends ignore them.

    Raises:
        ConfigError: ``kind`` is not registered.
    """
    return EXECUTOR_FACTORIES[kind](max_workers, **options)


def executor_from_settings(settings: Settings) -> Executor:
    """The executor that resolved settings ask for (``executor``, ``executor_address``,
    ``max_workers``; see :mod:`tambench.config`).

    ``executor_address`` is only meaningful for ``ray``; an empty address starts a local Ray.

    Raises:
        ConfigError: The executor name is unknown, or an address is given for a backend
            that runs on this machine only.
    """
    options: dict[str, Any] = {}
    if settings.executor_address:
        if settings.executor != "ray":
            raise ConfigError(
                f"executor_address {settings.executor_address!r} is only used by the ray "
                f"executor; got executor={settings.executor!r} (set executor to 'ray', or clear "
                "the address with --executor-address '')"
            )
        options["address"] = settings.executor_address
    return get_executor(settings.executor, settings.max_workers or None, **options)
