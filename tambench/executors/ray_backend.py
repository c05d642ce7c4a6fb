"""The ``ray`` executor: a ``concurrent.futures.Executor`` over Ray tasks.

``pip install 'tambench[ray]'``. Ray is imported when a :class:`RayExecutor` is created, never
when this module is imported.

- ``address=None`` (or ``""``) starts a private local Ray on this machine: no dashboard, no usage
  statistics, worker logs kept out of the terminal, session files under a fresh temporary folder
  that :meth:`RayExecutor.shutdown` deletes along with the local cluster.
- ``address="auto"`` joins the Ray cluster this machine is part of (``ray start --head`` ran
  here); ``"host:6379"`` joins a cluster's head node directly; ``"ray://host:10001"`` connects
  through the Ray Client. Shutting down only disconnects: a cluster tambench did not start is
  never stopped.
- If Ray is already initialised in this process, the executor uses that session and leaves it
  running on shutdown.

Tasks never retry inside Ray (``max_retries=0``): retries belong to
:func:`tambench.executors.run_items`, so that every backend retries the same way.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from tambench._optional import require
from tambench.errors import ExecutorError


def _invoke(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Ray task body: call ``fn`` (the remote function wraps this, not each user function)."""
    return fn(*args, **kwargs)


class RayExecutor(Executor):
    """Run tasks on Ray, returning ordinary ``concurrent.futures.Future`` objects.

    Args:
        address: ``None``/``""`` (start a local Ray), ``"auto"``, ``"host:port"`` or
            ``"ray://host:port"``.
        max_workers: For a local Ray, its CPU count (default: one per CPU of this machine);
            with an address, how many tasks batch helpers keep in flight (default: the
            cluster's CPUs).
        num_cpus: CPUs each task reserves (default 1).
        num_gpus: GPUs each task reserves (default 0); Ray sets the task's
            ``CUDA_VISIBLE_DEVICES`` to the devices it was given.
        runtime_env: Ray runtime environment for the workers, e.g.
            ``{"pip": ["tambench==0.1.0"]}`` on a cluster without tambench installed.
        temp_dir: Session folder for a local Ray, kept after shutdown (default: a new temporary
            folder, deleted on shutdown). Keep its path short: Ray puts Unix sockets inside.

    Raises:
        MissingDependencyError: Ray is not installed.
        ExecutorError: Ray could not start or connect.
    """

    #: Tasks kept in flight per worker by batch helpers: Ray's per-task latency (~1 ms) is
    #: hidden only when several tasks per worker are queued.
    in_flight_per_worker = 8

    def __init__(
        self,
        address: str | None = None,
        *,
        max_workers: int | None = None,
        num_cpus: float = 1,
        num_gpus: float = 0,
        runtime_env: dict[str, Any] | None = None,
        temp_dir: str | None = None,
    ) -> None:
        self._ray = require("ray", feature="the ray executor")
        ray = self._ray
        self.address = address or ""
        self._owns_session = False
        self._temp_dir: str | None = None
        self._lock = threading.Lock()
        self._shut = False
        self._refs: dict[Future[Any], Any] = {}
        if not ray.is_initialized():
            self._start_session(max_workers, runtime_env, temp_dir)
        try:
            cluster_cpus = int(ray.cluster_resources().get("CPU", 1))
        except Exception as exc:  # a dead connection surfaces here first; say what failed
            self._cleanup()
            raise ExecutorError(f"connected to Ray but could not read its resources: {exc}") from exc
        #: Tasks that run at once (used by batch helpers to size their window).
        self.max_workers = max_workers if max_workers and self.address else max(1, cluster_cpus)
        self._remote = ray.remote(max_retries=0, num_cpus=num_cpus, num_gpus=num_gpus)(_invoke)

    def _start_session(
        self, max_workers: int | None, runtime_env: dict[str, Any] | None, temp_dir: str | None
    ) -> None:
        ray = self._ray
        # Read by ray.init and by the processes it starts: no usage report leaves the machine.
        os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
        try:
            if self.address.startswith("ray://"):
                ray.init(self.address, runtime_env=runtime_env)
            elif self.address:
                ray.init(
                    address=self.address, runtime_env=runtime_env,
                    log_to_driver=False, configure_logging=False,
                )
            else:
                if temp_dir is None:
                    self._temp_dir = tempfile.mkdtemp(prefix="tambench-ray-")
                ray.init(
                    num_cpus=max_workers or os.cpu_count() or 1,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                    runtime_env=runtime_env,
                    _temp_dir=temp_dir or self._temp_dir,
                )
        except Exception as exc:  # ray raises ConnectionError, RuntimeError, ValueError...
            self._cleanup()
            where = self.address or "a local Ray"
            raise ExecutorError(f"could not start or connect to {where}: {exc}") from exc
        self._owns_session = True

    @property
    def owns_session(self) -> bool:
        """Whether this executor started (or connected) the Ray session it will shut down."""
        return self._owns_session

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Schedule ``fn(*args, **kwargs)`` as a Ray task.

        The future's exception is the one ``fn`` raised (not Ray's wrapper); a worker that died
        gives ``ray.exceptions.WorkerCrashedError``.
        """
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot schedule new futures after shutdown")
            ref = self._remote.remote(fn, args, kwargs)
            out: Future[Any] = Future()
            self._refs[out] = ref
        ray_future = ref.future()
        ray_future.add_done_callback(lambda rf: self._settle(out, rf))
        return out

    def _settle(self, out: Future[Any], ray_future: Future[Any]) -> None:
        with self._lock:
            self._refs.pop(out, None)
        if not out.set_running_or_notify_cancel():
            return
        exc = ray_future.exception()
        if exc is None:
            out.set_result(ray_future.result())
            return
        cause = getattr(exc, "cause", None)
        if isinstance(exc, self._ray.exceptions.RayTaskError) and isinstance(cause, Exception):
            # Same exception as the local pool would deliver, not Ray's dual-class wrapper.
            out.set_exception(cause)
        else:
            out.set_exception(exc)

    def start_actor(self, cls: type, *args: Any) -> Any:
        """Start a Ray actor holding ``cls(*args)`` (state shared by all tasks); returns its handle."""
        return self._ray.remote(num_cpus=0)(cls).remote(*args)

    def stop_actor(self, actor: Any) -> None:
        """Stop an actor started by :meth:`start_actor`."""
        self._ray.kill(actor)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop accepting tasks; stop the local Ray this executor started, and delete its files.

        A session this executor did not start, or an external cluster, keeps running.
        """
        with self._lock:
            if self._shut:
                return
            self._shut = True
            outstanding = dict(self._refs)
        if cancel_futures:
            for fut, ref in outstanding.items():
                if fut.cancel():
                    self._ray.cancel(ref, force=True)
        if wait:
            for fut in outstanding:
                if not fut.cancelled():
                    fut.exception()  # waits; the result stays with its owner
        self._cleanup()

    def _cleanup(self) -> None:
        if self._owns_session:
            self._ray.shutdown()
            self._owns_session = False
        if self._temp_dir is not None:
            # Ray leaves its session logs and sockets behind; they are ours to remove.
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None
