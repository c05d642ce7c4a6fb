"""Helper processes that end when the process that started them dies.

A process pool's workers wait for work on a pipe whose write end they hold themselves, so they
never see the end of it: after ``kill -9`` of ``grade-runs --executor local`` the workers kept
waiting, and with them the forkserver (kept alive by the workers' copies of its "alive" pipe)
and multiprocessing's resource tracker (kept alive by every process holding its pipe), for
ever.

Each worker (and the rate limiter's manager process) runs :func:`watch_parent` as its
initializer: a daemon thread waits for the starting process to exit and then ends the worker
at once. On Linux it waits on a pidfd (no polling, and no confusion with a later process that
reuses the number); elsewhere it checks every :data:`POLL_SECONDS`. Once the workers are gone,
the forkserver reads the end of its "alive" pipe and exits, and the resource tracker reads the
end of its own pipe, cleans up and exits: nothing is left.
"""

from __future__ import annotations

import os
import select
import threading
import time

#: How often the portable fallback checks that the starting process still exists.
POLL_SECONDS = 1.0
#: Exit status of a helper ended because the process that started it died.
ORPHANED_EXIT = 70


def watch_parent(pid: int) -> None:
    """Start a daemon thread that ends this process as soon as process ``pid`` has exited.

    Used as a pool initializer: ``ProcessPoolExecutor(initializer=watch_parent,
    initargs=(os.getpid(),))``. When ``pid`` is already gone, this process ends now.
    """
    if pid == os.getpid():
        return
    threading.Thread(target=_wait_then_exit, args=(pid,), name="tambench-parent-watch",
                     daemon=True).start()


def _wait_then_exit(pid: int) -> None:
    try:
        _wait_for_exit(pid)
    finally:  # whatever ended the wait, an orphaned helper must not linger
        os._exit(ORPHANED_EXIT)


def _wait_for_exit(pid: int) -> None:
    """Return once process ``pid`` no longer runs."""
    open_pidfd = getattr(os, "pidfd_open", None)
    if open_pidfd is not None:
        try:
            fd = open_pidfd(pid)
        except ProcessLookupError:
            return
        except OSError:  # an old kernel, or not allowed: poll instead
            pass
        else:
            select.select([fd], [], [])  # readable once the process has exited
            return
    while _alive(pid):
        time.sleep(POLL_SECONDS)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True
