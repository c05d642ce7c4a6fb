"""Atomic file writes shared by every stage: a crash never leaves a half-written file.

Files get the permissions an ordinary ``open()`` gives (0666 minus the umask, usually 0644),
not the 0600 of the temporary file they are written through.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
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


def swap_folder(staging: str | os.PathLike[str], target: str | os.PathLike[str]) -> Path | None:
    """Put the folder ``staging`` in place of ``target``: a rename when ``target`` is absent,
    else one atomic exchange (:func:`exchange_paths`), after which the previous folder is
    under the staging name. Where the file system cannot exchange, two renames: ``target`` is
    briefly absent, its previous content moved to ``.<name>.old-<suffix>`` first
    (:func:`restore_folder` puts it back after a crash between the two).

    Returns the folder now holding ``target``'s previous content, for the caller to remove
    (None when ``target`` was absent)."""
    staging, target = Path(staging), Path(target)
    old: Path | None = None
    if not os.path.lexists(target):
        os.rename(staging, target)
    elif exchange_paths(staging, target):
        old = staging
    else:
        old = target.parent / f".{target.name}.old-{staging.name.rsplit('-', 1)[-1]}"
        os.rename(target, old)
        os.rename(staging, target)
    fsync_dir(target.parent)
    return old


def restore_folder(target: str | os.PathLike[str], staging_prefix: str) -> None:
    """Clean up after an interrupted :func:`swap_folder` of ``target``: a previous folder left
    as ``.<name>.old-*`` goes back in place when ``target`` is missing (else it is removed),
    and staging folders named ``<staging_prefix>*`` beside it are removed."""
    import shutil

    target = Path(target)
    if not target.parent.is_dir():
        return
    old_prefix = f".{target.name}.old-"
    for entry in sorted(os.scandir(target.parent), key=lambda e: e.name):
        if not entry.is_dir(follow_symlinks=False):
            continue
        if entry.name.startswith(old_prefix) and not os.path.lexists(target):
            os.rename(entry.path, target)
        elif entry.name.startswith((old_prefix, staging_prefix)):
            shutil.rmtree(entry.path, ignore_errors=True)


@contextmanager
def locked_folder(folder: str | os.PathLike[str]) -> Iterator[None]:
    """An exclusive lock on ``folder`` (flock on its descriptor; none where unsupported):
    writers of one folder take turns."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock
