"""run.json: what one run was, on what, under which limits, and how it ended.

The file is written twice: when the run starts (``"state": "running"``, no exit reason) and
when it ends (``"state": "done"``). Both writes are atomic (a temporary file renamed over the
old one), so a runner killed at any moment leaves either the start record or the final one,
never half a file, and only a final record marks a run finished: a later ``tambench run``
redoes every run whose record is missing or still ``running``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

from tambench.core.bounded import load_json
from tambench.core.layout import CHECKSUMS_FILE
from tambench.errors import MalformedInputError
from tambench.fileio import fsync_dir, write_text_atomic
from tambench.grading.batch.records import RUN_FILE

RUN_RECORD_VERSION = 1
#: How a run ended.
EXIT_REASONS = ("finished", "crashed", "time_limit", "out_of_memory", "process_limit",
                "disk_limit", "log_limit", "killed", "sandbox_error")


def write_record(folder: Path, record: dict[str, Any]) -> None:
    """Write ``folder/run.json`` atomically and make the rename durable."""
    write_text_atomic(folder / RUN_FILE, json.dumps(record, indent=2, sort_keys=True) + "\n")
    fsync_dir(folder)


def read_record(folder: Path) -> dict[str, Any] | None:
    """The run.json of a run folder; None when missing or unreadable."""
    try:
        doc = load_json(folder / RUN_FILE)
    except (OSError, MalformedInputError):
        return None
    return doc if isinstance(doc, dict) else None


def is_finished(folder: Path) -> bool:
    """Whether a run folder holds a final record (a run that need not be redone)."""
    doc = read_record(folder)
    return doc is not None and doc.get("state") == "done" and doc.get("exit_reason") in EXIT_REASONS


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _memory_bytes() -> int | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


def _gpus() -> list[str]:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run([exe, "--query-gpu=name,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


@cache
def hardware() -> dict[str, Any]:
    """The machine a run ran on (read once per process)."""
    return {"cpu_model": _cpu_model(), "cpu_cores": os.cpu_count(), "memory_bytes": _memory_bytes(),
            "gpus": _gpus(), "machine": platform.machine(), "system": platform.system(),
            "kernel": platform.release(), "hostname_hash":
            hashlib.sha256(platform.node().encode()).hexdigest()[:12]}


def task_checksums(task_dir: Path, public: Path) -> dict[str, Any]:
    """What identifies the prepared task a run saw: the sha256 of each public file, and that
    of the task's ``checksums.json`` (the digest of every prepared file) when present."""
    # start-up: saves 339 ms (pydantic, the TaskSpec)
    from tambench.splits.checksums import compute_checksums, sha256_file

    out: dict[str, Any] = {"public": compute_checksums(public)}
    record = task_dir / CHECKSUMS_FILE
    if record.is_file():
        out["checksums_json_sha256"] = sha256_file(record)
    return out
