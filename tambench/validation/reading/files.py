"""Safe reading of untrusted files: open without following links, map, check the bytes.

* :func:`open_regular_file` refuses symlinks, FIFOs and other non-regular files (``lstat``, then
  ``O_NOFOLLOW`` and ``fstat`` on the opened descriptor, so a file swapped in between is caught)
  and applies the size cap before reading a byte; the file is memory-mapped, not copied.
* :func:`check_encoding_head` recognises compressed files, archives and byte-order marks of
  encodings other than UTF-8; :func:`find_nul_lines` and :func:`invalid_utf8_lines` name the
  lines holding binary or non-UTF-8 bytes; :func:`decode_text_file` decodes a whole text file
  after those checks.

Problems are raised as the error class the caller chooses: :class:`InvalidSubmissionError` for
submissions, :class:`TaskDataError` for our own answers files.
"""

from __future__ import annotations

import codecs
import mmap
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from tambench.errors import InvalidSubmissionError, MissingSubmissionError, TambenchError

#: How many example lines/ids/rows a message lists.
MAX_EXAMPLES = 5
#: How many characters of one submitted value (an id, a cell, a column name) a message quotes.
MAX_ECHO_CHARS = 80
#: How many names of a submitted header a message lists.
MAX_NAMES = 20
#: No single problem message is longer than this (a last bound, whatever built the message).
MAX_MESSAGE_CHARS = 2000


def clip(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a count of what was cut.

    >>> clip("sep=,"), clip("abcdef", limit=2)
    ('sep=,', 'ab... (+4 characters)')
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (+{len(text) - limit} characters)"


def echo(value: object, limit: int = MAX_ECHO_CHARS) -> str:
    """A submitted value as a message quotes it: its ``repr``, cut to ``limit`` characters
    with a count of what was cut, so that a 1 MB id gives a short message.

    >>> echo("r1"), echo("x" * 1000, limit=4)
    ("'r1'", "'xxxx'... (+996 characters)")
    """
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... (+{len(text) - limit} characters)"


def echo_list(values: Sequence[object], limit: int = MAX_NAMES) -> str:
    """A list of submitted names (a header, say) with each name and the length bounded.

    >>> echo_list(["id", "y"]), echo_list([str(i) for i in range(30)], limit=2)
    ("['id', 'y']", "['0', '1', ... (30 in all)]")
    """
    shown = ", ".join(echo(v) for v in values[:limit])
    more = f", ... ({len(values)} in all)" if len(values) > limit else ""
    return f"[{shown}{more}]"


def bound_message(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """A message of at most ``limit`` characters: a longer one is cut, with a count of what
    was cut (so bounding twice changes nothing).

    >>> bound_message("a" * 50, limit=40)
    'aaaaaaaaaaaaaaaa... (+34 characters cut)'
    """
    if len(message) <= limit:
        return message
    suffix = f"... (+{len(message)} characters cut)"  # an upper bound of the suffix's length
    keep = max(0, limit - len(suffix))
    return f"{message[:keep]}... (+{len(message) - keep} characters cut)"

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip-compressed"),
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "an empty zip archive"),
    (b"BZh", "bzip2-compressed"),
    (b"\xfd7zXZ\x00", "xz-compressed"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-zip archive"),
    (b"PAR1", "a Parquet file"),
    (b"\xd0\xcf\x11\xe0", "an old Excel/OLE document"),
)
#: The compressed forms a submission may take under a name that says so, as Kaggle accepts
#: them (reading/compressed.py reads them): the suffix, and the bytes such a file starts with.
COMPRESSED_FORMS: dict[str, tuple[bytes, ...]] = {
    ".gz": (b"\x1f\x8b",), ".zip": (b"PK\x03\x04", b"PK\x05\x06")}
COMPRESSED_SUFFIXES = tuple(COMPRESSED_FORMS)
_KAGGLE_SUFFIXES = {magic: suffix for suffix, magics in COMPRESSED_FORMS.items()
                    for magic in magics}
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian BOM)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian BOM)"),
    (b"\xfe\xff", "UTF-16 (big-endian BOM)"),
    (b"\xff\xfe", "UTF-16 (little-endian BOM)"),
)
UTF8_BOM = b"\xef\xbb\xbf"

ErrorFactory = Callable[[list[str]], TambenchError]


def submission_error(problems: list[str]) -> TambenchError:
    """The error a problem with a submission file becomes."""
    return InvalidSubmissionError(problems)


def human_bytes(n: int) -> str:
    """A byte count for messages: ``512 bytes``, ``3.0 GiB``."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return f"{n} bytes"  # pragma: no cover


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

    def arrow_view(self, start: int = 0) -> pa.Buffer:
        """A zero-copy arrow buffer from ``start`` to the end, for pyarrow's readers."""
        return self.arrow.slice(start)


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


def line_of_offset(data: mmap.mmap | bytes, offset: int) -> int:
    """1-based line number of a byte offset."""
    return bytes(data[:offset]).count(b"\n") + 1


def check_encoding_head(raw: RawFile, *, what: str = "submission") -> tuple[int, list[str]]:
    """Check magic bytes and byte-order marks; return (body start offset, fatal problems)."""
    head = bytes(raw.data[:8])
    for magic, name in _MAGIC:
        if head.startswith(magic):
            hint = ""
            if what == "submission" and magic in _KAGGLE_SUFFIXES:  # as Kaggle reads them
                hint = (f", or name it {raw.path.name}{_KAGGLE_SUFFIXES[magic]} (compressed "
                        "submissions are read by their name)")
            return 0, [
                f"{what} file is {name} (magic bytes {magic[:4].hex(' ')}); expected a plain-text "
                f"UTF-8 file: decompress or export it first{hint}"
            ]
    for bom, name in _BOMS:
        if head.startswith(bom):
            return 0, [
                f"{what} file is encoded as {name}; expected UTF-8 (re-save it as UTF-8)"
            ]
    start = len(UTF8_BOM) if head.startswith(UTF8_BOM) else 0
    sample = bytes(raw.data[start : start + 4096])
    if len(sample) >= 4:
        odd_nuls = sample[1::2].count(0)
        even_nuls = sample[0::2].count(0)
        half = len(sample) // 2
        if max(odd_nuls, even_nuls) > 0.4 * half and min(odd_nuls, even_nuls) < 0.1 * half:
            return 0, [
                f"{what} file looks UTF-16 encoded without a byte-order mark (every other "
                "byte is NUL); expected UTF-8 (re-save it as UTF-8)"
            ]
    return start, []


#: Bytes per step of the NUL scan (bounds the scan's temporary).
_NUL_SCAN_BYTES = 1 << 26


def _has_nul(raw: RawFile, start: int) -> bool:
    """Whether a NUL byte follows ``start``, read through the arrow mapping (numpy's minimum,
    vectorised). The Python mapping stays untouched: every mapping a page is read through
    counts once more in the process's resident memory, and the parser reads the file through
    the arrow one anyway."""
    if not isinstance(raw.data, mmap.mmap):
        return raw.data.find(b"\x00", start) != -1
    body = np.frombuffer(raw.arrow, dtype=np.uint8)
    return any(int(body[lo : lo + _NUL_SCAN_BYTES].min()) == 0
               for lo in range(start, raw.size, _NUL_SCAN_BYTES))


def find_nul_lines(raw: RawFile, start: int) -> tuple[int, list[int]]:
    """(number of NUL bytes up to the examples found, line numbers of the first few)."""
    if not _has_nul(raw, start):
        return 0, []
    data = raw.data
    lines: list[int] = []
    pos = data.find(b"\x00", start)
    count = 0
    while pos != -1 and len(lines) < MAX_EXAMPLES:
        count += 1
        line = line_of_offset(data, pos)
        if line not in lines:
            lines.append(line)
        pos = data.find(b"\x00", pos + 1)
    return count, lines


def invalid_utf8_lines(data: mmap.mmap | bytes, start: int) -> list[str]:
    """Describe the first few lines holding bytes that are not UTF-8."""
    out: list[str] = []
    lineno = 0
    pos = start
    size = len(data)
    while pos < size and len(out) < MAX_EXAMPLES:
        end = data.find(b"\n", pos)
        end = size if end == -1 else end
        lineno += 1
        chunk = bytes(data[pos:end])
        try:
            chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = chunk[exc.start : exc.start + 1].hex()
            out.append(
                f"line {lineno}: byte 0x{bad} at position {exc.start + 1} is not valid UTF-8 "
                "(latin-1/cp1252 text?); expected UTF-8"
            )
        pos = end + 1
    return out


def decode_text_file(
    raw: RawFile, *, what: str = "submission", error: ErrorFactory = submission_error
) -> str:
    """Decode a whole text (JSON or line) file as strict UTF-8, after the byte checks."""
    if raw.size == 0:
        raise error([f"{what} file is empty (0 bytes)"])
    start, problems = check_encoding_head(raw, what=what)
    if problems:
        raise error(problems)
    n_nul, nul_lines = find_nul_lines(raw, start)
    if n_nul:
        raise error([
            f"{what} file contains NUL bytes (binary data?) on line(s) {nul_lines}; expected "
            "plain UTF-8 text"
        ])
    try:
        return codecs.decode(bytes(raw.data[start:]), "utf-8")
    except UnicodeDecodeError:
        raise error(invalid_utf8_lines(raw.data, start)) from None
