"""One retry policy for everything acquisition asks of a server: pages, files, the kaggle client.

A failed call is sorted by a *classifier* into "retry" (a timeout, a dropped connection, 429,
5xx) or "stop" (anything the same request cannot fix: 4xx, a blocked page, an off-list URL,
and a host that cannot be reached at all, :func:`is_unreachable`: a name that does not resolve
fails at once with "cannot reach HOST (no network?)").
Retries wait a jittered exponential backoff that is never shorter than the server's
``Retry-After``; a ``Retry-After`` longer than :attr:`RetryPolicy.max_retry_after` stops at
once instead of waiting. ``Retry-After`` is parsed in one place, :func:`parse_retry_after`.

The loop itself is tenacity's; the waiting is pluggable so that the page fetcher can book the
delay in its per-origin rate limiter (every request to that origin waits, not only the retry).

>>> policy = RetryPolicy(retries=2, backoff_base=0.0)
>>> calls = []
>>> def flaky(n: int) -> str:
...     calls.append(n)
...     if n < 3:
...         raise TimeoutError("slow")
...     return "ok"
>>> call_with_retries(flaky, policy, lambda e: Verdict(retry=True), sleep=lambda s: None)
'ok'
>>> calls
[1, 2, 3]
"""

from __future__ import annotations

import email.utils
import errno
import random
import re
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC
from typing import TypeVar

import tenacity

T = TypeVar("T")

#: HTTP statuses worth another attempt: timeouts, rate limits and server-side failures.
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})

#: How the libraries underneath (socket, urllib3, httpx, Chromium) say that a host cannot be
#: reached at all: its name does not resolve, or there is no network.
_UNREACHABLE_TEXT = (
    "Name or service not known", "Temporary failure in name resolution",
    "nodename nor servname", "No address associated with hostname", "NameResolutionError",
    "Failed to resolve", "Network is unreachable", "No route to host",
    "ERR_NAME_NOT_RESOLVED", "ERR_INTERNET_DISCONNECTED", "ERR_ADDRESS_UNREACHABLE",
    "ERR_NAME_RESOLUTION_FAILED",
)


def is_unreachable(exc: BaseException) -> bool:
    """Whether a failure means the host cannot be reached at all (its name does not resolve,
    no route, no network): no back-off can fix that, so it is never retried.

    >>> import socket
    >>> is_unreachable(socket.gaierror(-2, "Name or service not known"))
    True
    >>> is_unreachable(ConnectionResetError(104, "Connection reset by peer"))
    False
    """
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, socket.gaierror) or (
                isinstance(e, OSError) and e.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH)):
            return True
        if any(marker in str(e) for marker in _UNREACHABLE_TEXT):
            return True
        for inner in (e.__cause__, e.__context__, getattr(e, "reason", None),
                      getattr(e, "last", None), *e.args):
            if isinstance(inner, BaseException):
                stack.append(inner)
    return False


def unreachable_message(host: str, what: str = "") -> str:
    """The one message of an unreachable host, said at once.

    >>> unreachable_message("x.invalid", "listing competitions")
    'cannot reach x.invalid (no network?): listing competitions failed; the name does not resolve or there is no route to it'
    """
    doing = f"{what} failed; " if what else ""
    return (f"cannot reach {host} (no network?): {doing}the name does not resolve or there is "
            "no route to it")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry. Durations are in seconds."""

    retries: int = 3
    """Extra attempts after the first, for transient failures only."""
    backoff_base: float = 0.5
    """Delay before the first retry; doubles each retry (times a jitter of 1 to 1.5)."""
    backoff_max: float = 30.0
    """Cap on one backoff delay (a longer Retry-After still wins, up to max_retry_after)."""
    max_retry_after: float = 120.0
    """A Retry-After longer than this stops the call instead of waiting."""


@dataclass(frozen=True)
class Verdict:
    """What a classifier says about one failure."""

    retry: bool
    retry_after: float | None = None
    """Seconds the server asked to wait (``Retry-After``), when it said."""


class RetryAfterTooLongError(Exception):
    """The server asked for a longer wait than the policy allows (wraps the last failure)."""

    def __init__(self, last: BaseException, seconds: float, limit: float) -> None:
        super().__init__(f"{last} asks to wait {seconds:.0f} s, more than the {limit:.0f} s "
                         "allowed")
        self.last = last
        self.seconds = seconds


class GaveUpError(Exception):
    """Every attempt failed with a retryable error (wraps the last one)."""

    def __init__(self, last: BaseException, attempts: int) -> None:
        super().__init__(f"{last} (gave up after {attempts} attempts)")
        self.last = last
        self.attempts = attempts


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta seconds or an HTTP date.

    >>> parse_retry_after("2")
    2.0
    >>> parse_retry_after(" 1.5 ")
    1.5
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0)
    10.0
    >>> parse_retry_after("soon") is None, parse_retry_after(None) is None
    (True, True)
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def backoff_delay(policy: RetryPolicy, retry_number: int, retry_after: float | None) -> float:
    """The wait before retry ``retry_number`` (0 for the first retry).

    Exponential with a jitter of 1x to 1.5x, capped at ``backoff_max``; never shorter than the
    server's ``Retry-After`` (plus up to 0.25 s, so that clients told the same instant spread).
    """
    base = policy.backoff_base * (2**retry_number) * random.uniform(1.0, 1.5)  # noqa: S311
    delay = min(policy.backoff_max, base)
    if retry_after is not None:
        delay = max(delay, retry_after + random.uniform(0.0, 0.25))  # noqa: S311
    return delay


class _State:
    """What the loop learned about the last failure (tenacity keeps only the exception)."""

    def __init__(self, policy: RetryPolicy, classify: Callable[[BaseException], Verdict]) -> None:
        self.policy = policy
        self.classify = classify
        self.verdict = Verdict(retry=False)
        self.too_long = False

    def should_retry(self, state: tenacity.RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome is not None else None
        if exc is None:
            return False
        self.verdict = self.classify(exc)
        after = self.verdict.retry_after
        self.too_long = bool(self.verdict.retry and after is not None
                             and after > self.policy.max_retry_after)
        return self.verdict.retry and not self.too_long

    def wait(self, state: tenacity.RetryCallState) -> float:
        return backoff_delay(self.policy, state.attempt_number - 1, self.verdict.retry_after)

    def final_error(self, exc: BaseException, attempts: int) -> BaseException:
        if self.too_long:
            return RetryAfterTooLongError(exc, self.verdict.retry_after or 0.0,
                                          self.policy.max_retry_after)
        if self.verdict.retry:
            return GaveUpError(exc, attempts)
        return exc


def call_with_retries(
    fn: Callable[[int], T],
    policy: RetryPolicy,
    classify: Callable[[BaseException], Verdict],
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call ``fn(attempt_number)`` until it succeeds or a failure is final.

    Raises:
        The failure itself when the classifier says stop; :class:`GaveUpError` when every
        attempt failed with a retryable error; :class:`RetryAfterTooLongError` when the server
        asked for a longer wait than allowed.
    """
    state = _State(policy, classify)
    retryer = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(policy.retries + 1), retry=state.should_retry,
        wait=state.wait, sleep=sleep, reraise=True,
    )
    count = 0

    def once() -> T:
        nonlocal count
        count += 1
        return fn(count)

    try:
        return retryer(once)
    except Exception as exc:
        final = state.final_error(exc, count)
        if final is exc:
            raise
        raise final from exc


async def call_with_retries_async(
    fn: Callable[[int], Awaitable[T]],
    policy: RetryPolicy,
    classify: Callable[[BaseException], Verdict],
    *,
    sleep: Callable[[float], Awaitable[None]],
) -> T:
    """:func:`call_with_retries` for coroutines; ``sleep`` may book the delay elsewhere."""
    state = _State(policy, classify)
    retryer = tenacity.AsyncRetrying(
        stop=tenacity.stop_after_attempt(policy.retries + 1), retry=state.should_retry,
        wait=state.wait, sleep=sleep, reraise=True,
    )
    count = 0

    async def once() -> T:
        nonlocal count
        count += 1
        return await fn(count)

    try:
        return await retryer(once)
    except Exception as exc:
        final = state.final_error(exc, count)
        if final is exc:
            raise
        raise final from exc
