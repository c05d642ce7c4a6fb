"""Atomic file writes shared by every stage: a crash never leaves a half-written file.

Files get the permissions an ordinary ``open()`` gives (0666 minus the umask, usually 0644),
not the 0600 of the temporary file they are written through.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


def current_umask() -> int:
    """The process's umask (read from /proc where it can be, without changing it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o666) -> None:
    """Write bytes atomically: temp file in the same folder, fsync, rename over the target.

    The file ends with ``mode`` minus the umask (0600 for a private file, pass ``mode=0o600``).
    """
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder", str(p))
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        os.fchmod(fd, mode & ~current_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str, *, mode: int = 0o666) -> None:
    """Write UTF-8 text atomically (newlines written as given)."""
    write_bytes_atomic(path, text.encode("utf-8"), mode=mode)
