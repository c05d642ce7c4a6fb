"""The run records (``run.json``) that ``tambench run`` writes beside each run's submission.

Grading reads them for one thing: runs made on different hardware or under different limits
are not comparable as they stand, so the report says so (the records' hardware without the
host's name, and their limits, compared across the batch).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from tambench.core.bounded import load_json
from tambench.errors import MalformedInputError

RUN_FILE = "run.json"
#: A record larger than this is not a record tambench wrote; it is skipped.
_MAX_BYTES = 1 << 20


def read_run_records(runs: Path) -> list[dict[str, Any]]:
    """The records of a ``<agent>/<task>/<run>/`` folder (unreadable ones skipped)."""
    out: list[dict[str, Any]] = []
    if not runs.is_dir():
        return out
    for path in sorted(runs.glob(f"*/*/*/{RUN_FILE}")):
        try:
            if path.is_symlink() or path.stat().st_size > _MAX_BYTES:
                continue
            doc = load_json(path)
        except (OSError, MalformedInputError):
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out


def comparable(record: dict[str, Any]) -> tuple[str, str]:
    """The hardware and limits of a record, as strings that differ exactly when they differ
    (the host's name left out: two identical machines are the same hardware)."""
    hw = record.get("hardware")
    hw = {k: v for k, v in hw.items() if k != "hostname_hash"} if isinstance(hw, dict) else {}
    return json.dumps(hw, sort_keys=True), json.dumps(record.get("limits") or {}, sort_keys=True)


def difference_warnings(records: list[dict[str, Any]]) -> list[str]:
    """One warning each when the finished runs' hardware, or their limits, differ."""
    out = []
    for index, what in ((0, "hardware"), (1, "limits")):
        groups: dict[str, list[str]] = defaultdict(list)
        for r in records:
            if r.get("state") == "done":
                groups[comparable(r)[index]].append(
                    f"{r.get('agent')}/{r.get('task_folder')}/{r.get('seed')}")
        if len(groups) > 1:
            shown = "; ".join(f"{len(v)} run(s) like {v[0]}" for v in groups.values())
            out.append(f"the runs differ in {what} ({len(groups)} kinds: {shown}); compare "
                       "their results with care")
    return out
