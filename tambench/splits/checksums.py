"""sha256 of every produced file of a prepared task, recorded in ``checksums.json`` and verified.

The file (:class:`ChecksumsFile`) maps each path relative to the task folder (POSIX
separators, sorted) to its sha256. A later run that finds different bytes reports which files
were added, removed or changed. ``checksums.json`` itself, the quarantine marker (written
after the files, when the audit fails) and ``pages/`` (the competition's pages, obtained
separately and checked by their own record) are not part of the record.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tambench.core.layout import CHECKSUMS_FILE, PAGES_DIR, QUARANTINE_FILE
from tambench.errors import ChecksumMismatchError, TaskDataError
from tambench.splits.report import VersionedModel

_CHUNK = 1 << 20
#: Files of a task folder that are about the record, not in it.
_NOT_RECORDED = frozenset({CHECKSUMS_FILE, QUARANTINE_FILE})


class ChecksumsFile(VersionedModel):
    """``checksums.json``: the sha256 of every file of a prepared task."""

    sha256: dict[str, str]
    """Path relative to the task folder (POSIX, sorted) -> sha256 of its bytes."""


def sha256_file(path: Path) -> str:
    """sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


#: Digests of files hashed as they were written: (device, inode) -> (size, mtime, sha256).
_WRITTEN: dict[tuple[int, int], tuple[int, int, str]] = {}


def remember_written(path: Path, sha256: str) -> None:
    """Record the sha256 of the file just written at ``path`` (hashed as it was written), so
    that :func:`write_checksums` need not read it again while it is unchanged."""
    st = path.stat()
    if len(_WRITTEN) > 1000:  # files never recorded (a failed build): forget them
        _WRITTEN.clear()
    _WRITTEN[(st.st_dev, st.st_ino)] = (st.st_size, st.st_mtime_ns, sha256)


def _written_sha256(path: Path) -> str:
    """:func:`sha256_file`, or the digest recorded when the file was written if its size and
    modification time are still those it had then."""
    st = path.stat()
    known = _WRITTEN.pop((st.st_dev, st.st_ino), None)
    if known is not None and known[:2] == (st.st_size, st.st_mtime_ns):
        return known[2]
    return sha256_file(path)


def iter_files(root: Path) -> Iterator[Path]:
    """Every regular file under ``root``, depth first in sorted order (no symlinks followed)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            yield Path(dirpath) / name


def compute_checksums(root: Path, *, written: bool = False) -> dict[str, str]:
    """sha256 of every file under ``root`` except ``checksums.json`` and the quarantine marker,
    keyed by relpath. ``written`` takes the digest of a file hashed as it was written
    (:func:`remember_written`) while its size and modification time are unchanged."""
    out: dict[str, str] = {}
    for p in iter_files(root):
        rel = p.relative_to(root).as_posix()
        if rel in _NOT_RECORDED or rel.startswith(f"{PAGES_DIR}/"):
            continue
        if p.is_symlink() or not p.is_file():
            raise TaskDataError(f"prepared folder {root} holds {rel}, which is not a regular file")
        out[rel] = _written_sha256(p) if written else sha256_file(p)
    return dict(sorted(out.items()))


def write_checksums(root: Path) -> dict[str, str]:
    """Compute and write ``<root>/checksums.json``; returns the mapping."""
    sums = compute_checksums(root, written=True)
    ChecksumsFile(sha256=sums).write(root / CHECKSUMS_FILE)
    return sums


def read_checksums(root: Path) -> dict[str, str]:
    """The mapping recorded in ``<root>/checksums.json``."""
    path = root / CHECKSUMS_FILE
    if not path.is_file():
        raise TaskDataError(f"{path} not found: the task was never prepared here")
    return ChecksumsFile.read(path).sha256


@dataclass
class ChecksumDiff:
    """Differences between recorded and actual checksums."""

    missing: list[str] = field(default_factory=list)
    """Recorded files that no longer exist."""

    unexpected: list[str] = field(default_factory=list)
    """Files present but not recorded."""

    changed: list[tuple[str, str, str]] = field(default_factory=list)
    """(path, recorded sha256, actual sha256) of files whose bytes differ."""

    @property
    def ok(self) -> bool:
        """True when nothing differs."""
        return not (self.missing or self.unexpected or self.changed)

    def render(self, limit: int = 20) -> str:
        """A readable diff, one line per file (at most ``limit`` lines per kind)."""
        lines: list[str] = []
        for kind, items in (("missing", self.missing), ("unexpected", self.unexpected)):
            for p in items[:limit]:
                lines.append(f"  {kind}: {p}")
            if len(items) > limit:
                lines.append(f"  ... and {len(items) - limit} more {kind}")
        for p, exp, got in self.changed[:limit]:
            lines.append(f"  changed: {p} (recorded {exp[:12]}, now {got[:12]})")
        if len(self.changed) > limit:
            lines.append(f"  ... and {len(self.changed) - limit} more changed")
        return "\n".join(lines)


def diff_checksums(expected: dict[str, str], actual: dict[str, str]) -> ChecksumDiff:
    """Compare two path -> sha256 mappings.

    >>> diff_checksums({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"}).render()
    '  unexpected: c\\n  changed: b (recorded 2, now 3)'
    """
    return ChecksumDiff(
        missing=sorted(set(expected) - set(actual)),
        unexpected=sorted(set(actual) - set(expected)),
        changed=[(p, expected[p], actual[p]) for p in sorted(set(expected) & set(actual))
                 if expected[p] != actual[p]],
    )


def verify_checksums(root: Path) -> ChecksumDiff:
    """Compare the files under ``root`` with its ``checksums.json``."""
    return diff_checksums(read_checksums(root), compute_checksums(root))


def ensure_checksums(root: Path) -> None:
    """Raise :class:`ChecksumMismatchError` (with the diff) unless ``root`` matches its record."""
    diff = verify_checksums(root)
    if not diff.ok:
        raise ChecksumMismatchError(
            f"prepared files under {root} differ from {CHECKSUMS_FILE}:\n{diff.render()}\n"
            "re-run prepare with --force to rebuild them"
        )
