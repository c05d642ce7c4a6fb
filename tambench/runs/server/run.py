"""Starting and stopping the validation server: in the foreground (``tambench serve
validate``) or in a background thread (tests, benchmarks, a harness in Python)::

    task = resolve_public_task("kaggle/spaceship-titanic", data_dir=...)
    with ValidationServer(task, ServerConfig(port=0)) as server:
        httpx.get(server.url + "/health").json()   # {'status': 'running'}
"""

from __future__ import annotations

import asyncio
import errno
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType

from tambench._optional import require
from tambench.errors import ConfigError
from tambench.grading.verdict import PublicTask, Verdict, check_submission
from tambench.runs.server.config import ServerConfig, check_bind_address
from tambench.runs.server.counts import ValidationCounts
from tambench.validation.reading.limits import Limits
from tambench.validation.reading.text import human_bytes


class ValidationServer:
    """The validation server of one task.

    The public reference is built once, before the port is opened; the server keeps a private
    temporary folder (0700) for uploads while it runs and removes it when it stops.
    """

    def __init__(self, task: PublicTask, config: ServerConfig | None = None, *,
                 sample: str | None = None, log: Callable[[str], None] | None = None) -> None:
        self.task = task
        self.config = config or ServerConfig()
        check_bind_address(self.config.host, allow_remote=self.config.allow_remote)
        require("aiohttp.web", extra="server", feature="the validation server")
        self.reference = task.reference(sample)
        for ids in (self.reference, self.reference.universe):  # built now: requests share
            if ids is not None and ids.key is not None:       # them from several threads
                ids.key_array()
                ids.key_index()
        self.counts = ValidationCounts(task.spec.id, self.config.runs_dir,
                                       default_run=self.config.run)
        self.sample_verdict: Verdict | None = None
        if self.reference.path.name.lower().startswith("sample"):
            # the first validation loads what validation needs; the task's own sample is the
            # natural first one, and it should be valid
            self.sample_verdict = check_submission(self.reference.path, task, self.reference,
                                                   limits=Limits(max_bytes=self.cap))
        self.log = log
        self.port: int | None = None
        self.root: Path | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    @property
    def cap(self) -> int:
        """The largest upload accepted, in bytes (the task's submission size cap unless the
        limits say otherwise)."""
        if self.config.limits.max_bytes is not None:
            return self.config.limits.max_bytes
        return Limits().byte_cap(self.reference.size)

    @property
    def url(self) -> str:
        """``http://HOST:PORT`` of the running server."""
        host = self.config.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.port}"

    async def serve(self, on_ready: Callable[[ValidationServer], None] | None = None) -> None:
        """Listen until :meth:`stop` (or a cancellation); clean up either way."""
        from aiohttp import web

        # start-up: saves 288 ms (aiohttp)
        from tambench.runs.server.app import ServerState, build_app

        limits = self.config.limits
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.root = Path(tempfile.mkdtemp(prefix="tambench-validate-", dir=self.config.tmp_dir))
        pool = ThreadPoolExecutor(max_workers=max(1, limits.workers),
                                  thread_name_prefix="tambench-validate")
        state = ServerState(task=self.task, reference=self.reference, limits=limits,
                            counts=self.counts, root=self.root, pool=pool, cap=self.cap)
        if self.log is not None:
            state.log = self.log
        runner = web.AppRunner(build_app(state), access_log=None, lingering_time=0,
                               keepalive_timeout=limits.header_seconds,
                               shutdown_timeout=limits.stop_seconds)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.config.host, self.config.port)
            try:
                await site.start()
            except OSError as exc:
                raise _bind_error(exc, self.config) from None
            sockets = getattr(site, "_server").sockets  # noqa: B009 - aiohttp keeps it there
            self.port = sockets[0].getsockname()[1]
            self._ready.set()
            if on_ready is not None:
                on_ready(self)
            await self._stop.wait()
        finally:
            await runner.cleanup()
            pool.shutdown(wait=True, cancel_futures=True)
            shutil.rmtree(self.root, ignore_errors=True)

    def serve_forever(self, on_ready: Callable[[ValidationServer], None] | None = None) -> None:
        """Serve in the foreground until SIGTERM or Ctrl-C (both end it normally)."""

        async def main() -> None:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stop)
            await self.serve(on_ready)

        asyncio.run(main())

    def stop(self) -> None:
        """Ask the server to stop (from any thread)."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)

    # --- in a background thread ---------------------------------------------------------------

    def start(self, timeout: float = 30.0) -> ValidationServer:
        """Serve in a daemon thread; return once listening (bind errors are raised here)."""

        def target() -> None:
            try:
                asyncio.run(self.serve())
            except BaseException as exc:  # noqa: BLE001 - handed to the starting thread
                self._failure = exc
                self._ready.set()

        self._thread = threading.Thread(target=target, name="tambench-validation-server",
                                        daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise ConfigError(f"the validation server did not start within {timeout:g} s")
        if self._failure is not None:
            raise self._failure
        return self

    def close(self, timeout: float = 30.0) -> None:
        """Stop a server started with :meth:`start` and wait for it."""
        self.stop()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def __enter__(self) -> ValidationServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _bind_error(exc: OSError, config: ServerConfig) -> ConfigError:
    where = f"{config.host}:{config.port}"
    if exc.errno == errno.EADDRINUSE:
        return ConfigError(f"cannot listen on {where}: the port is in use (another validation "
                           "server?); choose another with --port")
    if exc.errno == errno.EACCES:
        return ConfigError(f"cannot listen on {where}: permission denied (ports below 1024 "
                           "need privileges)")
    return ConfigError(f"cannot listen on {where}: {exc.strerror or exc}")


def describe(server: ValidationServer) -> list[str]:
    """What the server tells its operator when it starts."""
    limits = server.config.limits
    cap = server.cap
    lines = [
        f"validating submissions for {server.task.spec.id} at {server.url}/validate "
        f"(GET {server.url}/health)",
        f"  public reference: {server.reference.path}; no private file is read",
        f"  uploads: at most {human_bytes(cap)}, in {limits.body_seconds:g} s; "
        f"{limits.workers} validation(s) at once",
    ]
    sample = server.sample_verdict
    if sample is not None and not sample.valid_submission:
        lines.append(f"warning: the task's own sample submission is invalid here: "
                     f"{'; '.join(sample.errors)[:500]}")
    if server.config.runs_dir is not None:
        run = server.config.run or "<run>"
        lines.append(f"  validations counted in {server.config.runs_dir}/{run}/validations.json "
                     "(a request names its run with the form field `run` or the X-Run header)")
    return lines
