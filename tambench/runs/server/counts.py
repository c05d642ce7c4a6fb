"""How often an agent checked: validations counted per run, written beside the run.

A request names its run with the form field ``run`` or the header ``X-Run`` (the server's
``--run`` otherwise). With a runs folder, each run's counts are in
``<runs dir>/<run>/validations.json``, replaced atomically (a temporary file in the same folder,
fsync, rename) after every request::

    {"run": "agent1/spaceship-titanic/r1", "task_id": "kaggle/spaceship-titanic",
     "requests": 4, "validations": 3, "valid": 1, "invalid": 2, "refused": 1,
     "first_at": "2025-01-01T10:00:00+00:00", "last_at": "2025-01-01T10:20:00+00:00"}

``validations`` counts verdicts given (valid + invalid); ``refused`` counts uploads refused
before a verdict (too large, too slow, not a form with a file). A file left by an earlier
server is continued. Run names come from the agent's side of the connection: one to three
path parts, each a plain name (no ``..``, no control characters, at most 100 characters), and
the folder must resolve inside the runs folder.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from tambench.core.layout import safe_join, safe_relpath
from tambench.errors import ConfigError, TambenchError, UnsafePathError
from tambench.fileio import fsync_dir, write_text_atomic
from tambench.validation.reading.csvio import decode_text_file
from tambench.validation.reading.files import open_regular_file
from tambench.validation.textfiles import parse_json

COUNTS_FILE = "validations.json"
#: The header naming a request's run (the form field is ``run``).
RUN_HEADER = "X-Run"
MAX_RUN_PARTS = 3
MAX_PART_CHARS = 100
#: Largest counts file read back (anything larger is not ours).
MAX_COUNTS_BYTES = 64 * 1024
Outcome = Literal["valid", "invalid", "refused"]
_FIELDS = ("requests", "validations", "valid", "invalid", "refused")


def check_run_name(name: str) -> str:
    """The run name, or :class:`ConfigError` saying what is wrong with it.

    >>> check_run_name("agent1/titanic/r1")
    'agent1/titanic/r1'
    >>> check_run_name("../x")
    Traceback (most recent call last):
    ...
    tambench.errors.ConfigError: run name '../x' is not usable: run name '../x' must not contain '..'
    """
    try:
        parts = safe_relpath(name, "run name").parts
    except UnsafePathError as exc:
        raise ConfigError(f"run name {name!r} is not usable: {exc}") from None
    problem = ""
    if not 1 <= len(parts) <= MAX_RUN_PARTS:
        problem = f"expected 1 to {MAX_RUN_PARTS} path parts, got {len(parts)}"
    elif any(len(p) > MAX_PART_CHARS for p in parts):
        problem = f"a part is longer than {MAX_PART_CHARS} characters"
    elif any(not p.isprintable() or p.startswith(".") for p in parts):
        problem = "a part holds a control character or starts with a dot"
    if problem:
        raise ConfigError(f"run name {name[:120]!r} is not usable: {problem}")
    return "/".join(parts)


class ValidationCounts:
    """Counts per run, in memory and (with a runs folder) in each run's counts file."""

    def __init__(self, task_id: str, runs_dir: Path | None = None, *,
                 default_run: str | None = None, max_runs: int = 10_000) -> None:
        self.task_id = task_id
        self.runs_dir = runs_dir
        self.default_run = None if default_run is None else check_run_name(default_run)
        self.max_runs = max_runs
        self.runs: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def run_of(self, named: str | None) -> str | None:
        """The run a request counts for: the name it gave (checked), else the default.

        Raises:
            ConfigError: the name is not usable.
        """
        if named is None or named == "":
            return self.default_run
        return check_run_name(named)

    def record(self, run: str | None, outcome: Outcome) -> dict[str, Any] | None:
        """Count one request for ``run`` (None: the anonymous run, kept in memory); the
        run's counts, or None when the server already counts :attr:`max_runs` runs."""
        key = run or ""
        with self._lock:
            counts = self.runs.get(key)
            if counts is None:
                if len(self.runs) >= self.max_runs:
                    return None
                counts = self._start(run)
                self.runs[key] = counts
            now = datetime.now(UTC).isoformat()
            counts["requests"] += 1
            counts[outcome] += 1
            if outcome != "refused":
                counts["validations"] += 1
            counts["first_at"] = counts["first_at"] or now
            counts["last_at"] = now
            if run and self.runs_dir is not None:
                self._write(run, counts)
            return dict(counts)

    def _start(self, run: str | None) -> dict[str, Any]:
        counts: dict[str, Any] = {"run": run, "task_id": self.task_id,
                                  **dict.fromkeys(_FIELDS, 0), "first_at": None, "last_at": None}
        if run and self.runs_dir is not None:
            counts.update(_read_earlier(self.folder(run) / COUNTS_FILE))
        return counts

    def folder(self, run: str) -> Path:
        """The run's folder inside the runs folder (made when missing)."""
        if self.runs_dir is None:
            raise ConfigError("no runs folder: validations are not written")
        try:
            folder = safe_join(self.runs_dir, run, what="run name")
        except RuntimeError as exc:  # a link loop planted in the runs folder
            raise TambenchError(f"run folder of {run!r} cannot be resolved: {exc}") from None
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def _write(self, run: str, counts: dict[str, Any]) -> None:
        folder = self.folder(run)
        write_text_atomic(folder / COUNTS_FILE, json.dumps(counts, indent=2) + "\n")
        fsync_dir(folder)  # the rename itself survives a crash


def _not_counts(problems: list[str]) -> TambenchError:
    return TambenchError("; ".join(problems))


def _read_earlier(path: Path) -> dict[str, Any]:
    """The counts an earlier server left (its numbers and first time); nothing when the file
    is absent, oversized or not a counts file. The runs folder is the agent's to write: a
    link, FIFO, socket or device planted there is never opened for reading (a FIFO would
    block the server's loop), and is replaced by the next count written."""
    try:
        raw = open_regular_file(path, max_bytes=MAX_COUNTS_BYTES, what="counts file",
                                error=_not_counts)
        data = parse_json(decode_text_file(raw, what="counts file", error=_not_counts),
                          "counts file", TambenchError)
    except (OSError, ValueError, TambenchError):
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, Any] = {k: data[k] for k in _FIELDS
                           if isinstance(data.get(k), int) and not isinstance(data[k], bool)
                           and data[k] >= 0}
    if isinstance(data.get("first_at"), str):
        out["first_at"] = data["first_at"][:64]
    return out
