"""Executor options shared by batch commands (grading, splits, crawls).

A command declares them as parameters and opens its executor with :func:`open_executor`::

    def grade_batch(..., executor: str | None = executor_option(),
                    executor_address: str | None = executor_address_option(),
                    max_workers: int | None = max_workers_option(),
                    retries: int | None = retries_option()) -> None:
        with open_executor(executor, executor_address, max_workers, retries) as (pool, settings):
            ...run_items(..., pool, retries=settings.retries)

Each option falls back to the config file, then the defaults (see :mod:`tambench.config`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from tambench.config import Settings


def executor_option() -> Any:
    """``--executor auto|local|thread|serial|ray``."""
    return typer.Option(
        None, "--executor",
        help="Where the work runs: auto (serial, threads or processes, chosen from the "
        "batch's size and the measured cost of its first items), local (process pool), "
        "thread, serial or ray [default: config file, else auto].",
    )


def executor_address_option() -> Any:
    """``--executor-address`` (ray only)."""
    return typer.Option(
        None, "--executor-address",
        help="Ray cluster to use: 'auto', 'host:6379' or 'ray://host:10001'; empty starts a "
        "local Ray [default: config file].",
    )


def max_workers_option() -> Any:
    """``--max-workers N``."""
    return typer.Option(
        None, "--max-workers", min=0, help="Parallel workers; 0 means one per CPU "
        "[default: config file, else 0].",
    )


def retries_option() -> Any:
    """``--retries N``."""
    return typer.Option(
        None, "--retries", min=0, help="Extra attempts for an item that fails or whose worker "
        "dies [default: config file, else 2].",
    )


@contextmanager
def open_executor(
    executor: str | None = None,
    executor_address: str | None = None,
    max_workers: int | None = None,
    retries: int | None = None,
) -> Iterator[tuple[Executor, Settings]]:
    """Resolve the executor settings (options > environment > config file) and open it.

    Yields:
        The executor and the resolved settings (``settings.retries`` for ``run_items``). The
        executor is shut down on exit (a Ray cluster tambench did not start keeps running).
    """
    from tambench.config import load_settings
    from tambench.executors import executor_from_settings

    settings = load_settings(
        executor=executor, executor_address=executor_address,
        max_workers=max_workers, retries=retries,
    )
    pool = executor_from_settings(settings)
    try:
        yield pool, settings
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
