"""Safe opening of untrusted files: open without following links, check what the file is, map.

* :func:`open_regular_file` refuses symlinks, FIFOs and other non-regular files (``lstat``, then
  ``O_NOFOLLOW`` and ``fstat`` on the opened descriptor, so a file swapped in between is caught)
  and applies the size cap before reading a byte; the file is memory-mapped, not copied.
* The bytes themselves (compression, encodings, NUL bytes) are checked by :mod:`.csvio`.

Problems are raised as the error class the caller chooses: :class:`InvalidSubmissionError` for
submissions, :class:`TaskDataError` for our own answers files.
"""

from __future__ import annotations

import mmap
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from tambench.core.layout import PRIVATE_DIR
from tambench.errors import (
    InvalidSubmissionError,
    MissingSubmissionError,
    TambenchError,
)
from tambench.validation.reading.text import (
    human_bytes,
)

#: The compressed forms a submission may take under a name that says so, as Kaggle accepts
#: them (reading/compressed.py reads them): the suffix, and the bytes such a file starts with.
COMPRESSED_FORMS: dict[str, tuple[bytes, ...]] = {
    ".gz": (b"\x1f\x8b",), ".zip": (b"PK\x03\x04", b"PK\x05\x06")}
COMPRESSED_SUFFIXES = tuple(COMPRESSED_FORMS)

ErrorFactory = Callable[[list[str]], TambenchError]


def submission_error(problems: list[str]) -> TambenchError:
    """The error a problem with a submission file becomes."""
    return InvalidSubmissionError(problems)


def _kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


@dataclass
class RawFile:
    """The bytes of one regular file, memory-mapped read-only (or empty).

    ``data`` is the mapping Python code scans; ``arrow`` is a second, arrow-owned mapping of
    the same open file, the only memory handed to pyarrow's readers. Arrow's I/O threads may
    drop their last reference to a block after the reader has returned, even after the
    interpreter has begun to exit; a buffer that wraps a Python object (``pa.py_buffer``)
    then needs the GIL in its destructor, the thread is killed by the finalising interpreter
    inside a C++ destructor, and the process aborts ("terminate called without an active
    exception", exit 134). An arrow-owned mapping is released without Python.
    """

    path: Path
    size: int
    data: mmap.mmap | bytes
    arrow: pa.Buffer
    identity: tuple[int, int] = (0, 0)
    """(device, inode) of the opened file: the same pair is the same file, whatever its name."""

    def view(self, start: int = 0) -> memoryview:
        """A zero-copy view from ``start`` to the end, for Python code."""
        return memoryview(self.data)[start:]


def open_regular_file(
    path: Path,
    *,
    max_bytes: int,
    what: str = "submission",
    error: ErrorFactory = submission_error,
    refuse: Callable[[os.stat_result], str | None] | None = None,
) -> RawFile:
    """Open a regular file without following links and map it, refusing anything else.

    ``refuse`` is asked about the opened file's own status (``fstat``, so a name swapped
    after a check cannot fool it) and returns why the file must not be read, or None.

    Raises:
        MissingSubmissionError: for a submission that does not exist.
        The error ``error`` builds: a symlink, FIFO, directory or device; over ``max_bytes``;
        what ``refuse`` said.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if error is submission_error:
            raise MissingSubmissionError(f"{what} file not found: {path}") from None
        raise error([f"{what} file not found: {path}"]) from None
    except OSError as exc:  # a folder on the way that cannot be searched, a name too long
        raise error([f"{what} {path.name!r} cannot be read: {exc.strerror}"]) from None
    _check_status(st, path, max_bytes, what, error, " (links and special files are refused)")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:  # ELOOP: swapped for a link after lstat
        raise error([f"{what} {path.name!r} cannot be opened safely: {exc.strerror}"]) from None
    try:
        fst = os.fstat(fd)
        refusal = refuse(fst) if refuse is not None and stat.S_ISREG(fst.st_mode) else None
        if refusal is not None:
            raise error([refusal])
        _check_status(fst, path, max_bytes, what, error, "")
        identity = (fst.st_dev, fst.st_ino)
        if fst.st_size == 0:
            return RawFile(path=path, size=0, data=b"", arrow=pa.allocate_buffer(0),
                           identity=identity)
        data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        arrow = _arrow_mapping(fd, path, fst)
    finally:
        os.close(fd)
    return RawFile(path=path, size=fst.st_size, data=data, arrow=arrow, identity=identity)


def _check_status(
    st: os.stat_result, path: Path, max_bytes: int, what: str, error: ErrorFactory, note: str
) -> None:
    """Refuse anything but a regular file, and a file over the size cap."""
    if not stat.S_ISREG(st.st_mode):
        raise error([
            f"{what} {path.name!r} is {_kind_of(st.st_mode)}; expected a regular file{note}"
        ])
    if st.st_size > max_bytes:
        raise error([
            f"{what} file is {human_bytes(st.st_size)}; expected at most "
            f"{human_bytes(max_bytes)} (size cap, checked before parsing)"
        ])


def _arrow_mapping(fd: int, path: Path, fst: os.stat_result) -> pa.Buffer:
    """Map the file open on ``fd`` once more, with arrow's own memory map (see RawFile)."""
    by_fd = Path(f"/proc/self/fd/{fd}")
    if by_fd.exists():  # Linux: the very file already checked, whatever the path says now
        return pa.memory_map(str(by_fd), "r").read_buffer()
    mapped = pa.memory_map(str(path), "r")
    now = os.stat(path)
    if (now.st_dev, now.st_ino, now.st_size) != (fst.st_dev, fst.st_ino, fst.st_size):
        raise TambenchError(f"{path} changed while it was being opened; try again")
    return mapped.read_buffer()


#: Files of the private folder whose identity is remembered (the answers file always is).
MAX_PRIVATE_FILES = 10_000


def private_identity(
    path: Path, answers_identity: tuple[int, int]
) -> tuple[Path | None, frozenset[tuple[int, int]]]:
    """The private folder (when the answers sit in one) and the identities (device, inode) of
    its files, read from the folder's entries: no file is opened."""
    found = {answers_identity}
    folder = path.parent if path.parent.name == PRIVATE_DIR else None
    if folder is not None:
        with os.scandir(folder) as entries:
            for n, entry in enumerate(entries):
                if n >= MAX_PRIVATE_FILES:
                    break
                if entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    found.add((st.st_dev, st.st_ino))
    return folder, frozenset(found)
