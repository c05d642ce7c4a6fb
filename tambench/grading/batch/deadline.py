"""A per-run time limit: :func:`time_limit` raises :class:`GradingTimeout` in the grading code.

In a process's main thread (a process-pool or Ray worker, or a serial batch in the command
itself) the limit is a ``SIGALRM`` timer, which also interrupts a blocked read or a sleep.
In any other thread (the thread executor) a watchdog thread raises the exception in the
grading thread. Either way Python code stops at once, and a long call into native code stops
when it returns (native routines are bounded by the submission size caps).

A timer that was already running (e.g. a test harness's) keeps its deadline.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from tambench.errors import GradingTimeout

#: Seconds one run may take to grade before it gets status ``timeout``.
DEFAULT_TIME_LIMIT = 300.0


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`GradingTimeout` in the calling thread after ``seconds`` (None or <= 0:
    no limit).

    >>> with time_limit(5):
    ...     sum(range(10))
    45
    """
    if seconds is None or seconds <= 0:
        yield
    elif threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _watchdog(seconds):
            yield


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    start = time.monotonic()
    deadline = start + seconds
    outer_delay, outer_interval = signal.getitimer(signal.ITIMER_REAL)
    outer_deadline = start + outer_delay if outer_delay > 0 else None
    previous = signal.getsignal(signal.SIGALRM)

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        if time.monotonic() >= deadline - 1e-3:
            raise GradingTimeout(f"took longer than {seconds:g} s")
        if callable(previous):  # the outer timer's turn came first
            previous(signum, frame)

    signal.signal(signal.SIGALRM, on_alarm)
    first = seconds if outer_deadline is None else min(seconds, max(outer_delay, 1e-3))
    signal.setitimer(signal.ITIMER_REAL, first)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_deadline is not None:
            left = outer_deadline - time.monotonic()
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), outer_interval)


# Two prototypes of one C function: one raises an exception class in a thread, the other
# passes NULL, which clears an exception still pending.
_raise_in = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
_clear_in = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))


@contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    ident = threading.get_ident()
    lock = threading.Lock()
    state = {"active": True, "fired": False}

    def fire() -> None:
        with lock:
            if state["active"]:
                state["fired"] = True
                _raise_in(ident, GradingTimeout)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["active"] = False
        timer.cancel()
        if state["fired"]:
            # Clear the exception if it is still pending (the body ended just in time).
            _clear_in(ident, None)
