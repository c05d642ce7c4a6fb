"""What one run may use, and how the harness holds it to that.

Limits are enforced from outside the agent: the wall clock and the disk written by the
supervising process (:mod:`tambench.runs.supervise`), memory, CPUs and processes by a cgroup
made for the run where the machine lets the harness make one (cgroup v2, or v1's ``memory``,
``cpu`` and ``pids`` controllers), else by resource limits set before the sandbox starts (a
process limit counted inside the run's own user namespace, an address-space cap for memory,
a file-size cap). run.json records which of the two held each limit.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from tambench.errors import ConfigError

#: The paper's budget: 8 hours a run.
DEFAULT_TIME_LIMIT = 8 * 3600.0

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3, "t": 1024 ** 4}
_SECONDS = {None: 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_size(text: str | int | None, what: str) -> int | None:
    """Bytes from ``"512M"``, ``"60GiB"``, ``"1.5g"`` or a plain number (binary units); None or
    ``""`` or ``"none"`` means no limit.

    >>> parse_size("2G", "memory"), parse_size("512KiB", "disk"), parse_size(None, "disk")
    (2147483648, 524288, None)
    """
    if text is None or (isinstance(text, str) and text.strip().lower() in ("", "none")):
        return None
    if isinstance(text, int):
        value = text
    else:
        m = _SIZE.match(text)
        if m is None:
            raise ConfigError(f"{what} limit {text!r} is not a size (e.g. 512M, 16G, 60GiB)")
        value = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if value <= 0:
        raise ConfigError(f"{what} limit must be positive, got {text!r}")
    return value


def parse_duration(text: str | float | None) -> float:
    """Seconds from ``"90"``, ``"30m"``, ``"8h"`` or a number.

    >>> parse_duration("30m"), parse_duration("8h"), parse_duration(2.5)
    (1800.0, 28800.0, 2.5)
    """
    if text is None:
        return DEFAULT_TIME_LIMIT
    if isinstance(text, int | float):
        value = float(text)
    else:
        m = _DURATION.match(text)
        if m is None:
            raise ConfigError(f"time limit {text!r} is not a duration (e.g. 90, 30m, 8h)")
        value = float(m.group(1)) * _SECONDS[(m.group(2) or "s").lower()]
    if value <= 0:
        raise ConfigError(f"the time limit must be positive, got {text!r}")
    return value


@dataclass(frozen=True)
class Limits:
    """The limits of every run of a batch (picklable; recorded in each run.json).

    Attributes:
        time: wall-clock seconds; the whole process tree is ended when they are up.
        memory: bytes of memory (None: no limit).
        cpus: CPUs (fractions allowed) the run may use at once (None: no limit).
        processes: processes and threads alive at once.
        disk: bytes the run may write in its writable folders (submission, code, logs,
            workspace, agent folder, /tmp).
        log: bytes of the agent's standard output and error kept; a run printing more is ended.
        gpus: GPUs each run gets (one device set per run, from ``gpu_devices``).
    """

    time: float = DEFAULT_TIME_LIMIT
    memory: int | None = None
    cpus: float | None = None
    processes: int | None = 1024
    disk: int | None = 50 * 1024 ** 3
    log: int | None = 100 * 1024 ** 2
    gpus: int = 0

    def __post_init__(self) -> None:
        if self.time <= 0:
            raise ConfigError(f"the time limit must be positive, got {self.time}")
        if self.cpus is not None and self.cpus <= 0:
            raise ConfigError(f"the CPU limit must be positive, got {self.cpus}")
        if self.processes is not None and self.processes < 8:
            raise ConfigError(f"the process limit must be at least 8 (the sandbox's own "
                              f"helpers count), got {self.processes}")
        if self.gpus < 0:
            raise ConfigError(f"the GPU count must be >= 0, got {self.gpus}")

    def as_dict(self) -> dict[str, Any]:
        """The limits as run.json records them."""
        return asdict(self)


def gpu_sets(devices: list[str], per_run: int) -> list[tuple[str, ...]]:
    """Split the machine's GPU ids into disjoint sets of ``per_run`` devices, one per parallel
    run slot.

    >>> gpu_sets(["0", "1", "2", "3"], 2)
    [('0', '1'), ('2', '3')]
    """
    if per_run == 0:
        return [()]
    if len(devices) < per_run:
        raise ConfigError(f"each run asks for {per_run} GPU(s) but only {len(devices)} are "
                          f"available ({', '.join(devices) or 'none'})")
    return [tuple(devices[i:i + per_run]) for i in range(0, len(devices) - per_run + 1, per_run)]
