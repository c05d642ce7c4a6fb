"""The ``tambench`` command. Results go to stdout, progress and errors to stderr.

One error contract for every command, enforced here rather than in each command:

* exit codes: 0 success (an invalid submission is still a graded result), 1 error (a file
  that does not exist or cannot be read, bad content, an unknown task id, ...), 2 usage error
  (an unknown option, a missing argument, contradictory options), 3 a batch finished with
  failed items, 130 interrupted (Ctrl-C);
* a user's mistake never prints a traceback: one line ``error: <what is wrong>`` on stderr;
  only a bug in tambench prints one (and still exits 1);
* with ``--json``, stdout holds exactly one JSON document: the command's result, or
  ``{"error": {"type", "kind", "message", "exit_code"}}`` when it failed (nothing else the
  command printed reaches stdout then).
"""

from __future__ import annotations

import atexit
import errno
import gc
import importlib
import io
import json
import os
import select
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass
from typing import Any

import typer

from tambench import __version__
from tambench.errors import TambenchError

#: Top-level command -> the module that registers it (each module exposes ``register(app)``).
#: Only the module a command line names is imported, so ``tambench grade`` does not pay for
#: the browser, the catalogue or the report code; help and unknown commands load them all.
#: Adding a command = one line here (a test checks the table against what modules register).
COMMANDS: dict[str, str] = {
    "acquire": "tambench.cli.acquire_cmd",
    "discover": "tambench.cli.acquire_cmd",
    "audit": "tambench.cli.split_cmd",
    "check-split": "tambench.cli.split_cmd",
    "demo": "tambench.cli.demo_cmd",
    "difficulty": "tambench.cli.difficulty_cmd",
    "grade": "tambench.cli.grade_cmd",
    "grade-runs": "tambench.cli.grade_cmd",
    "judge": "tambench.cli.judge_cmd",
    "leaderboard": "tambench.cli.leaderboard_cmd",
    "metrics": "tambench.cli.rank_cmd",
    "prepare": "tambench.cli.split_cmd",
    "protocol": "tambench.cli.protocol_cmd",
    "rank": "tambench.cli.rank_cmd",
    "run": "tambench.cli.run_cmd",
    "schema": "tambench.cli.schema_cmd",
    "serve": "tambench.cli.serve_cmd",
    "site": "tambench.cli.site_cmd",
    "subsets": "tambench.cli.subsets_cmd",
    "tasks": "tambench.cli.tasks_cmd",
    "validate": "tambench.cli.validate_cmd",
}
COMMAND_MODULES = tuple(dict.fromkeys(sorted(COMMANDS.values())))

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_BATCH_FAILED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tambench {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """tambench: competitions in, graded agents out."""


def make_app(modules: tuple[str, ...] = COMMAND_MODULES) -> typer.Typer:
    """The typer app with the commands of ``modules`` registered."""
    app = typer.Typer(
        name="tambench",
        help="Build ML-agent benchmarks from real competitions, and grade agents' submissions.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    app.callback()(_root)
    for name in modules:
        importlib.import_module(name).register(app)
    return app


def modules_for(args: list[str]) -> tuple[str, ...]:
    """The command modules a command line needs: the one its command names, else all."""
    command = next((a for a in args if not a.startswith("-")), None)
    if command in COMMANDS:
        return (COMMANDS[command],)
    return COMMAND_MODULES


@dataclass(frozen=True)
class Failure:
    """A command that did not succeed, as the user sees it."""

    kind: str
    """usage, error, interrupted or internal."""
    type: str
    """The exception's class name."""
    message: str
    exit_code: int

    def as_json(self) -> str:
        """The one JSON document printed with ``--json``."""
        return json.dumps({"error": {"type": self.type, "kind": self.kind,
                                     "message": self.message, "exit_code": self.exit_code}},
                          ensure_ascii=False)


def _os_message(exc: OSError) -> str:
    """What a failed file operation means, naming the file."""
    name = exc.filename if exc.filename is not None else ""
    if isinstance(exc, FileNotFoundError):
        return f"not found: {name}"
    if isinstance(exc, IsADirectoryError):
        return f"{name} is a folder; a file is needed here"
    if isinstance(exc, NotADirectoryError):
        return f"{name} is not a folder (or a part of its path is a file)"
    if isinstance(exc, PermissionError):
        return f"permission denied: {name}"
    return f"{exc.strerror or exc}: {name}".rstrip(": ")


def _is_click_error(exc: BaseException) -> bool:
    """A usage or parameter error of the command-line parser (click's, or typer's copy)."""
    return isinstance(getattr(exc, "exit_code", None), int) and callable(
        getattr(exc, "format_message", None))


def _failure(exc: BaseException) -> Failure:
    """Classify an exception that ended a command (see the module docstring)."""
    name = type(exc).__name__
    if _is_click_error(exc):
        code = getattr(exc, "exit_code", EXIT_ERROR)
        kind = "usage" if code == EXIT_USAGE else "error"
        return Failure(kind, name, exc.format_message(), code or EXIT_ERROR)  # type: ignore[attr-defined]
    if isinstance(exc, KeyboardInterrupt) or type(exc).__name__ == "Abort":
        return Failure("interrupted", name, "interrupted", EXIT_INTERRUPTED)
    if isinstance(exc, TambenchError):
        return Failure("error", name, str(exc), EXIT_ERROR)
    if isinstance(exc, OSError):
        return Failure("error", name, _os_message(exc), EXIT_ERROR)
    if isinstance(exc, UnicodeDecodeError):
        return Failure("error", name, f"a file is not UTF-8 text ({exc.reason} at byte "
                                      f"{exc.start})", EXIT_ERROR)
    return Failure("internal", name, f"internal error (a bug in tambench): {name}: {exc}",
                   EXIT_ERROR)


def _wants_json(args: list[str]) -> bool:
    before = args[: args.index("--")] if "--" in args else args
    return "--json" in before


def _plain_help(command: Any) -> None:
    """Help as plain text everywhere: no markup read from help strings, no ``<bool>``."""
    setattr(command, "rich_markup_mode", None)  # noqa: B010 - typer's attribute, absent on click's
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)


def build_command(modules: tuple[str, ...] = COMMAND_MODULES) -> Any:
    """The click command tree of the app (every command unless ``modules`` says otherwise)."""
    command = typer.main.get_command(make_app(modules))
    _plain_help(command)
    return command


def _run(command: Any, args: list[str]) -> int:
    try:
        result = command.main(args=args, prog_name="tambench", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    except SystemExit:  # the parser exits 1 on a broken pipe itself
        if _stdout_reader_gone():
            return EXIT_OK
        raise
    return result if isinstance(result, int) else EXIT_OK


def _report(failure: Failure, exc: BaseException, json_mode: bool) -> None:
    if failure.kind == "internal":
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    if failure.kind == "usage" and not json_mode and callable(getattr(exc, "show", None)):
        exc.show(file=sys.stderr)  # type: ignore[attr-defined]
    else:
        from tambench.cli._echo import echo

        echo(f"error: {failure.message}", err=True)
    if json_mode:
        print(failure.as_json())


def _stdout_closed(exc: BaseException) -> bool:
    """Whether the command ended because stdout's reader went away (``tambench ... | head``);
    a broken pipe elsewhere (a socket, a child process) is an error as usual."""
    if not isinstance(exc, OSError) or exc.errno != errno.EPIPE:
        return False
    gone = _stdout_reader_gone()
    return True if gone is None else gone


def _stdout_reader_gone() -> bool | None:
    """Whether stdout is a pipe whose reader has closed it (None: stdout is no file)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & select.POLLERR for _fd, ev in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return None


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that nothing more writes to the closed pipe."""
    from tambench.cli._console import discard_output

    discard_output(sys.stdout)


def _flush_stdout() -> bool:
    """Flush stdout; False when its reader has gone."""
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        _silence_stdout()
        return False
    return True


#: Whether :func:`_skip_final_collection` registered its exit hook (once per process).
_FREEZE_AT_EXIT: list[bool] = []


def _skip_final_collection() -> None:
    """At exit, move every object out of the cyclic garbage collector's reach (``gc.freeze``)
    before the interpreter's last collections walk them all: after a 200-run batch that walk
    (pydantic's schemas, loaded answers and leaderboards) took 45-60 ms, and a process that
    ends returns its memory anyway. Files are closed by then (with blocks and atomic writes);
    atexit callbacks, finalizers registered with weakref.finalize included, still run."""
    if not _FREEZE_AT_EXIT:
        atexit.register(gc.freeze)
        _FREEZE_AT_EXIT.append(True)


#: Allocations between two young-generation collections in a ``tambench`` process (Python's
#: default is 700). A command's start-up makes some 60,000 long-lived objects (pydantic's
#: schemas, numpy, pyarrow, the task's answers) that each older-generation collection walks
#: again: 28 ms of collection in a 200-run batch, 11 ms with this threshold. Garbage is
#: still collected, less often.
YOUNG_COLLECTION_THRESHOLD = 50_000


def _collect_less_often() -> None:
    """Raise this process's young-generation threshold (see the constant); never lower it."""
    young, older, oldest = gc.get_threshold()
    gc.set_threshold(max(YOUNG_COLLECTION_THRESHOLD, young), older, oldest)


def _one_blas_thread() -> None:
    """One OpenBLAS thread, unless the user chose (``OPENBLAS_NUM_THREADS`` or
    ``OMP_NUM_THREADS``). numpy's OpenBLAS starts a thread per further core when numpy is
    imported, and each spins for about 0.1 s waiting for matrix work no command gives it
    (tambench's numerics are elementwise and sorts): 0.12 s of CPU in a 200-run batch,
    a whole core on a two-core machine. Set before numpy is imported; children inherit it."""
    if "numpy" not in sys.modules and not any(
            v in os.environ for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def main(argv: list[str] | None = None) -> int:
    """Entry point: run one command under the error contract; returns the exit code.

    A reader that closes stdout early (``tambench tasks list | head``) is not an error: what
    the command prints after that is discarded and it finishes with its own exit code
    (``validate`` of an invalid file is still 1, a batch still writes its reports)."""
    _skip_final_collection()
    if argv is None:  # the process's own entry point: the console script, python -m
        _collect_less_often()
        _one_blas_thread()
    guard = _PipeGuard(sys.stdout)
    sys.stdout = guard
    try:
        code = _main(argv)
    except BrokenPipeError as exc:  # raised while the error itself was being printed
        if not _stdout_closed(exc):
            raise
        code = EXIT_OK
        _silence_stdout()
    finally:
        if sys.stdout is guard:
            sys.stdout = guard.stream
    _flush_stdout()
    return code


class _PipeGuard:
    """stdout for one command: once its reader has gone (``| head``), further writes are
    discarded instead of raising, so the command runs to its end; any other failure to write
    is raised as usual."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.reader_gone = False

    def _gone(self, exc: BrokenPipeError) -> None:
        if not _stdout_closed(exc):
            raise exc
        self.reader_gone = True
        _silence_stdout()

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return int(self.stream.write(text))
            except BrokenPipeError as exc:
                self._gone(exc)
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self.stream.flush()
            except BrokenPipeError as exc:
                self._gone(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _main(argv: list[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    json_mode = _wants_json(args)
    captured = io.StringIO()
    failure: Failure | None = None
    caught: BaseException | None = None
    try:
        if json_mode:
            with redirect_stdout(captured):
                code = _run(build_command(modules_for(args)), args)
        else:
            code = _run(build_command(modules_for(args)), args)
    except (Exception, KeyboardInterrupt) as exc:  # every end goes through here
        caught, failure = exc, _failure(exc)
        code = failure.exit_code
    if caught is not None and _stdout_closed(caught):
        _silence_stdout()
        return EXIT_OK
    if failure is not None and caught is not None:
        _report(failure, caught, json_mode)
        return code
    if json_mode:
        out = captured.getvalue()
        if code != EXIT_OK and not out.strip():
            out = Failure("error", "Exit", f"the command failed with exit code {code}; see "
                          "the messages on stderr", code).as_json() + "\n"
        sys.stdout.write(out)
    return code


if __name__ == "__main__":
    sys.exit(main())
