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


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make a folder's entries (a rename into it) durable; a no-op where folders cannot be
    opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: renameat2's flag (Linux) and renamex_np's (macOS) for an atomic exchange of two paths.
_RENAME_EXCHANGE, _RENAME_SWAP, _AT_FDCWD = 2, 2, -100


def exchange_paths(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Swap two existing paths (folders) in one atomic step: Linux's ``renameat2`` with
    ``RENAME_EXCHANGE``, macOS's ``renamex_np`` with ``RENAME_SWAP``. Returns False, having
    changed nothing, where neither exists or the file system refuses (the caller then renames
    twice); any other failure raises OSError."""
    import ctypes
    import sys

    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    fa, fb = os.fsencode(a), os.fsencode(b)
    if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
        rc = libc.renameat2(_AT_FDCWD, fa, _AT_FDCWD, fb, _RENAME_EXCHANGE)
    elif sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        rc = libc.renamex_np(fa, fb, _RENAME_SWAP)
    else:
        return False
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False  # this file system cannot exchange
    raise OSError(err, os.strerror(err), os.fsdecode(fa), None, os.fsdecode(fb))
