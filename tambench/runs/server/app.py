"""The routes, with MLE-bench's shapes and status codes.

* ``GET /health`` -> 200 ``{"status": "running"}``.
* ``POST /validate`` (multipart, the file in the field ``file``) -> 200 ``{"result": "..."}``:
  ``Submission is valid.``, or ``Submission invalid!`` and one line per problem.
* ``POST /verdict`` (the same form) -> 200 with the whole verdict, as ``tambench validate
  --json`` prints it (``valid_submission``, ``errors``, ``warnings``, ...): for harnesses that
  want the problems as a list.
* A request that is not validated -> ``{"error": "...", "details": "..."}`` (the shape of
  MLE-bench's 500 answer) with 400 (not a form with a file, a bad run name, malformed), 408
  (too slow), 413 (too large), 415 (a body compressed as a whole), 503 (too many requests at
  once) or 500 (a bug in tambench: details name the exception type only, the log holds the
  rest).
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from tambench.errors import ConfigError, TambenchError
from tambench.grading.verdict import PublicTask, Verdict, check_submission
from tambench.runs.server.config import UploadLimits
from tambench.runs.server.counts import RUN_HEADER, ValidationCounts
from tambench.runs.server.uploads import (
    UploadRefused,
    check_request_headers,
    receive,
    request_folder,
)
from tambench.validation.reading.limits import Limits
from tambench.validation.validate import Answers


@dataclass
class ServerState:
    """What every request needs: the task, its public reference, the limits and the counts."""

    task: PublicTask
    reference: Answers
    limits: UploadLimits
    counts: ValidationCounts
    root: Path
    """The server's private temporary folder (0700)."""
    pool: Executor
    cap: int
    """The largest upload accepted, in bytes."""
    log: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr))
    pending: int = 0

    @property
    def file_name(self) -> str:
        """What an upload is saved as in its request's folder."""
        grading = self.task.spec.grading
        return f"submission.{grading.submission_format.value if grading else 'csv'}"

    def check(self, path: Path, shown_as: str) -> Verdict:
        """The verdict on one received file (run in the pool)."""
        return check_submission(path, self.task, self.reference, shown_as=shown_as,
                                limits=Limits(max_bytes=self.cap))


STATE: web.AppKey[ServerState] = web.AppKey("state", ServerState)


def error_response(status: int, error: str, details: str) -> web.Response:
    """MLE-bench's error shape; the connection is closed after it (the rest of a refused
    body is not read)."""
    resp = web.json_response({"error": error, "details": details}, status=status)
    resp.force_close()
    return resp


async def health(request: web.Request) -> web.Response:
    """``{"status": "running"}``, as MLE-bench's server answers."""
    return web.json_response({"status": "running"})


async def expect_continue(request: web.Request) -> web.Response | None:
    """Answer ``Expect: 100-continue``: refuse at once an upload declared too large, so the
    client never sends its body; else let it send."""
    state = request.app[STATE]
    try:
        check_request_headers(request.headers, state.cap)
    except UploadRefused as exc:
        _count(state, request.headers.get(RUN_HEADER), "refused")
        return error_response(exc.status, exc.error, exc.details)
    if request.headers.get("Expect", "").lower() != "100-continue":
        return error_response(417, "expectation failed", "only Expect: 100-continue is known")
    await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    return None


def _count(state: ServerState, named: str | None, outcome: Any) -> None:
    try:
        run = state.counts.run_of(named)
    except ConfigError:
        run = state.counts.default_run
    _record(state, run, outcome)


def _record(state: ServerState, run: str | None, outcome: Any) -> dict[str, Any] | None:
    """Count a request; a counts file that cannot be written is logged, never the answer's
    failure."""
    try:
        return state.counts.record(run, outcome)
    except (OSError, TambenchError) as exc:
        state.log(f"warning: validations of run {run!r} not written: {exc}")
        return None


async def _verdict_of(request: web.Request) -> Verdict | web.Response:
    """Receive, validate and count one request: its verdict, or the refusal to send."""
    state = request.app[STATE]
    named = request.headers.get(RUN_HEADER)
    if state.pending >= state.limits.max_pending:
        _count(state, named, "refused")
        resp = error_response(503, "busy", f"{state.pending} submissions are being checked; "
                                           "try again in a second")
        resp.headers["Retry-After"] = "1"
        return resp
    state.pending += 1
    folder = request_folder(state.root)
    start = time.monotonic()
    try:
        upload = await receive(request, folder, state.limits, state.cap, state.file_name)
        named = upload.run if upload.run is not None else named
        run = state.counts.run_of(named)
        loop = asyncio.get_running_loop()
        verdict = await loop.run_in_executor(state.pool, state.check, upload.path, upload.name)
    except UploadRefused as exc:
        _count(state, named, "refused")
        state.log(f"refused ({exc.status} {exc.error}): {exc.details}")
        return error_response(exc.status, exc.error, exc.details)
    except ConfigError as exc:  # a run name that cannot be a folder
        _count(state, None, "refused")
        return error_response(400, "bad request", str(exc))
    finally:
        state.pending -= 1
        shutil.rmtree(folder, ignore_errors=True)
    counts = _record(state, run, "valid" if verdict.valid_submission else "invalid")
    seen = f"; validation {counts['validations']} of run {run}" if counts and run else ""
    state.log(f"{'valid' if verdict.valid_submission else 'invalid'} "
              f"({len(verdict.errors)} problem(s), {time.monotonic() - start:.2f} s){seen}")
    return verdict


async def validate(request: web.Request) -> web.Response:
    """MLE-bench's route: ``{"result": "..."}``."""
    outcome = await _guarded(request)
    if isinstance(outcome, web.Response):
        return outcome
    return web.json_response({"result": outcome.result_text()})


async def verdict(request: web.Request) -> web.Response:
    """The whole verdict as JSON."""
    outcome = await _guarded(request)
    if isinstance(outcome, web.Response):
        return outcome
    return web.Response(text=outcome.to_json(), content_type="application/json")


async def _guarded(request: web.Request) -> Verdict | web.Response:
    """:func:`_verdict_of`, with a bug answered 500 (logged, not sent)."""
    try:
        return await _verdict_of(request)
    except Exception as exc:  # noqa: BLE001 - a bug: logged, answered without details
        request.app[STATE].log("internal error (a bug in tambench):\n"
                               + "".join(traceback.format_exception(exc)))
        return error_response(500, "An unexpected error occurred.",
                              f"{type(exc).__name__}; see the validation server's log")


def build_app(state: ServerState) -> web.Application:
    """The application serving ``state``'s task."""
    app = web.Application(client_max_size=64 * 1024)
    app[STATE] = state
    app.router.add_get("/health", health)
    app.router.add_post("/validate", validate, expect_handler=expect_continue)
    app.router.add_post("/verdict", verdict, expect_handler=expect_continue)
    return app
