"""Compressed submissions, read as Kaggle reads them, with bounded decompression.

Kaggle accepts a submission gzipped (``submission.csv.gz``) or zipped alone
(``submission.zip``, ``submission.csv.zip``: one file inside). A submission whose name ends
with ``.gz`` or ``.zip`` is decompressed in memory, never onto the disk, and only within bounds
(reliability.md's rules for archives), before it is validated like any other:

* the decompressed size is capped by the submission's own size cap, counted on the bytes
  actually produced (a header cannot lie past it);
* past :data:`RATIO_FLOOR_BYTES`, a file that expands more than :data:`MAX_RATIO`-fold is
  refused as a decompression bomb, as soon as it does;
* a zip holds exactly one entry: a regular file of the task's format, under a plain name (no
  folder, no ``..``, no absolute path, no link, no encryption); several members are refused;
* anything that is not what its name says (gzip bytes named ``.csv``, a ``.gz`` that is not
  gzip, a truncated stream, bytes after the end) is refused with a message that names it.

Every refusal is an :class:`~tambench.errors.InvalidSubmissionError`: the agent's to fix.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from pathlib import Path, PurePosixPath

import pyarrow as pa

from tambench.errors import InvalidSubmissionError
from tambench.grading.files import COMPRESSED_FORMS, COMPRESSED_SUFFIXES, RawFile, echo, human_bytes

#: The most a compressed submission may expand, in multiples of its compressed size.
MAX_RATIO = 200.0
#: Submissions that expand to less than this are exempt from the ratio cap (small text files
#: compress very well and are harmless).
RATIO_FLOOR_BYTES = 10 * 1024**2
_CHUNK = 1 << 20
_GZIP = COMPRESSED_FORMS[".gz"][0]
_ZIPS = COMPRESSED_FORMS[".zip"]


def _refuse(message: str) -> InvalidSubmissionError:
    return InvalidSubmissionError([message])


class _Budget:
    """Counts the bytes a decompression produces against the size cap and the ratio."""

    def __init__(self, name: str, packed: int, cap: int) -> None:
        self.name, self.packed, self.cap = name, packed, cap
        self.out = pa.BufferOutputStream()
        self.total = 0

    def add(self, piece: bytes) -> None:
        self.total += len(piece)
        if self.total > self.cap:
            raise _refuse(f"compressed submission {self.name!r} expands past the size cap of "
                          f"{human_bytes(self.cap)} (stopped there)")
        if self.total > RATIO_FLOOR_BYTES and self.total > MAX_RATIO * max(self.packed, 1):
            raise _refuse(f"compressed submission {self.name!r} expands more than "
                          f"{MAX_RATIO:.0f}-fold ({human_bytes(self.packed)} to over "
                          f"{human_bytes(self.total)}): a decompression bomb? (stopped there)")
        self.out.write(piece)

    def raw(self, path: Path) -> RawFile:
        arrow = self.out.getvalue()  # arrow-owned memory, as RawFile needs
        return RawFile(path=path, size=arrow.size, data=arrow.to_pybytes(), arrow=arrow)


def _gunzip(data: bytes | memoryview, budget: _Budget) -> None:
    """Every gzip member of ``data`` into ``budget``; refuses a truncated stream or trailing
    bytes that are not another member."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending: bytes | memoryview = data
    try:
        while True:
            piece = d.decompress(pending, _CHUNK)
            budget.add(piece)
            if d.eof:
                rest = d.unused_data
                if not rest:
                    return
                if not rest.startswith(_GZIP):
                    raise _refuse(f"compressed submission {budget.name!r} has "
                                  f"{len(rest)} byte(s) after its gzip stream")
                d, pending = zlib.decompressobj(16 + zlib.MAX_WBITS), rest
                continue
            if not piece and not pending:
                raise _refuse(f"compressed submission {budget.name!r} is a truncated gzip "
                              "stream (it ends before its last block)")
            pending = d.unconsumed_tail
    except zlib.error as exc:
        raise _refuse(f"compressed submission {budget.name!r} is not valid gzip ({exc})") \
            from None


def _zip_member(zf: zipfile.ZipFile, name: str, fmt: str) -> zipfile.ZipInfo:
    """The one entry of a submission zip, refused unless it is a plain file of the format."""
    entries = zf.infolist()
    if len(entries) != 1:
        shown = ", ".join(echo(e.filename, 60) for e in entries[:5])
        raise _refuse(f"zipped submission {name!r} holds {len(entries)} entries ({shown}); "
                      f"expected exactly one file, the submission.{fmt}")
    info = entries[0]
    mode = (info.external_attr >> 16) & 0xFFFF
    kind = stat.S_IFMT(mode)
    if info.is_dir() or (kind and kind != stat.S_IFREG):
        what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        raise _refuse(f"zipped submission {name!r}: entry {echo(info.filename)} is {what}; "
                      "expected one regular file")
    parts = PurePosixPath(info.filename.replace("\\", "/")).parts
    if (not parts or ".." in parts or info.filename.startswith(("/", "\\"))
            or (len(info.filename) > 1 and info.filename[1] == ":") or "\x00" in info.filename):
        raise _refuse(f"zipped submission {name!r}: entry {echo(info.filename)} is not a plain "
                      "file name (an absolute path or '..'); refused")
    if not info.filename.lower().endswith(f".{fmt}"):
        raise _refuse(f"zipped submission {name!r} holds {echo(info.filename)}; expected a "
                      f".{fmt} file")
    if info.flag_bits & 0x1:
        raise _refuse(f"zipped submission {name!r} is encrypted; expected a plain zip")
    return info


def _unzip(data: bytes | memoryview, budget: _Budget, fmt: str) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            info = _zip_member(zf, budget.name, fmt)
            if info.file_size > budget.cap:
                raise _refuse(f"zipped submission {budget.name!r} declares "
                              f"{human_bytes(info.file_size)}, over the size cap of "
                              f"{human_bytes(budget.cap)}")
            with zf.open(info) as fh:
                while piece := fh.read(_CHUNK):
                    budget.add(piece)
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, EOFError) as exc:
        raise _refuse(f"zipped submission {budget.name!r} cannot be read as a zip ({exc})") \
            from None


def unpack_submission(raw: RawFile, *, max_bytes: int, fmt: str = "csv") -> RawFile:
    """The submission's bytes: ``raw`` itself, or, for a file named ``.gz`` or ``.zip``, its
    decompressed content within the bounds of the module docstring.

    Raises:
        InvalidSubmissionError: the content is not what the name says, or breaks a bound.
    """
    name = raw.path.name
    lower = name.lower()
    if not lower.endswith(COMPRESSED_SUFFIXES):
        return raw  # compressed bytes under a plain name are refused by the encoding check
    head = bytes(raw.data[:4])
    budget = _Budget(name, raw.size, max_bytes)
    if lower.endswith(".gz"):
        if not head.startswith(_GZIP):
            raise _refuse(f"submission {name!r} is named .gz but is not gzip-compressed")
        _gunzip(raw.view(), budget)
    else:
        if not head.startswith(_ZIPS):
            raise _refuse(f"submission {name!r} is named .zip but is not a zip archive")
        _unzip(raw.view(), budget, fmt)
    return budget.raw(raw.path)
