"""Compressed submissions, read as Kaggle reads them, with bounded decompression.

Kaggle accepts a submission gzipped (``submission.csv.gz``) or zipped alone
(``submission.zip``, ``submission.csv.zip``: one file inside). A submission whose name ends
with ``.gz`` or ``.zip`` is decompressed in memory, never onto the disk, and only within bounds
(reliability.md's rules for archives), before it is validated like any other:

* the decompressed size is capped by the submission's own size cap, counted on the bytes
  actually produced (a header cannot lie past it);
* past :data:`RATIO_FLOOR_BYTES`, a file that expands more than :data:`MAX_RATIO`-fold is
  refused as a decompression bomb, as soon as it does;
* a zip member (stored, deflate, bzip2 or LZMA; other methods are refused) is decompressed
  here, at most a megabyte in and out per step, never through :mod:`zipfile`'s reader (which
  expands a bzip2 or LZMA block whole): its declared size and its LZMA dictionary size are not
  trusted, and a member that expands past its declared size, falls short of it or fails its
  CRC is refused;
* a zip holds exactly one entry: a regular file of the task's format, under a plain name (no
  folder, no ``..``, no absolute path, no link, no encryption); several members are refused;
* anything that is not what its name says (gzip bytes named ``.csv``, a ``.gz`` that is not
  gzip, a truncated stream, bytes after the end) is refused with a message that names it.

Every refusal is an :class:`~tambench.errors.InvalidSubmissionError`: the agent's to fix.
"""

from __future__ import annotations

import bz2
import io
import lzma
import stat
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Protocol

import pyarrow as pa

from tambench.errors import InvalidSubmissionError
from tambench.validation.reading.files import COMPRESSED_FORMS, COMPRESSED_SUFFIXES, RawFile
from tambench.validation.reading.text import echo, human_bytes

#: The most a compressed submission may expand, in multiples of its compressed size.
MAX_RATIO = 200.0
#: Submissions that expand to less than this are exempt from the ratio cap (small text files
#: compress very well and are harmless).
RATIO_FLOOR_BYTES = 10 * 1024**2
_CHUNK = 1 << 20
#: Zip methods that are not read, by the name a refusal gives them (APPNOTE 4.4.5).
_OTHER_METHODS = {1: "shrink", 6: "implode", 9: "deflate64", 18: "terse", 19: "lz77",
                  93: "zstd", 95: "xz", 97: "wavpack", 98: "ppmd"}
_GZIP = COMPRESSED_FORMS[".gz"][0]
_ZIPS = COMPRESSED_FORMS[".zip"]


class _Decompressor(Protocol):
    """What :func:`_inflate_member` asks of a decompressor (bz2's and lzma's interface)."""

    @property
    def eof(self) -> bool: ...
    @property
    def needs_input(self) -> bool: ...
    @property
    def unused_data(self) -> bytes: ...
    def decompress(self, data: bytes | memoryview, max_length: int) -> bytes: ...


class _Feed:
    """The output of decompressor ``d`` reading ``data`` from ``pos``, in pieces of at most
    :data:`_CHUNK` bytes, fed at most :data:`_CHUNK` bytes at a time: nothing is expanded
    whole, whatever a header says. Iteration stops at the stream's end (``d.eof``) or the
    input's; :attr:`end` is then where the stream ended in ``data``."""

    def __init__(self, d: _Decompressor, data: memoryview, pos: int = 0) -> None:
        self.d, self.data, self.pos = d, data, pos

    def __iter__(self) -> Iterator[bytes]:
        d = self.d
        while not d.eof:
            if not d.needs_input:
                yield d.decompress(b"", _CHUNK)
            elif self.pos < len(self.data):
                chunk = self.data[self.pos:self.pos + _CHUNK]
                self.pos += len(chunk)
                yield d.decompress(chunk, _CHUNK)
            else:
                return

    @property
    def end(self) -> int:
        return self.pos - len(self.d.unused_data)


def _refuse(message: str) -> InvalidSubmissionError:
    return InvalidSubmissionError([message])


class _Budget:
    """Counts the bytes a decompression produces against the size cap and the ratio."""

    def __init__(self, name: str, packed: int, cap: int) -> None:
        self.name, self.packed, self.cap = name, packed, cap
        self.pieces: list[bytes] = []
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
        if piece:
            self.pieces.append(piece)

    @property
    def ceiling(self) -> int:
        """The most bytes :meth:`add` lets out before it refuses (plus one step)."""
        return min(self.cap, max(RATIO_FLOOR_BYTES, int(MAX_RATIO * self.packed))) + _CHUNK

    def raw(self, path: Path) -> RawFile:
        # Kept as pieces until now (a growing stream would double its capacity as it grows,
        # so a refused bomb held twice what it produced), then copied once into arrow-owned
        # memory, as RawFile needs.
        arrow = pa.allocate_buffer(self.total)
        view, at = memoryview(arrow).cast("B"), 0
        self.pieces.reverse()
        while self.pieces:
            piece = self.pieces.pop()  # each piece freed once copied
            view[at:at + len(piece)] = piece
            at += len(piece)
        return RawFile(path=path, size=arrow.size, data=arrow.to_pybytes(), arrow=arrow)


def _gunzip(data: memoryview, budget: _Budget) -> None:
    """Every gzip member of ``data`` into ``budget``, a megabyte in and out per step; refuses a
    truncated stream or trailing bytes that are not another member."""
    pos = 0
    try:
        while True:  # one member per turn
            feed = _Feed(_Inflate(16 + zlib.MAX_WBITS), data, pos)
            for piece in feed:
                budget.add(piece)
            if not feed.d.eof:
                raise _refuse(f"compressed submission {budget.name!r} is a truncated gzip "
                              "stream (it ends before its last block)")
            pos = feed.end
            if pos >= len(data):
                return
            if bytes(data[pos:pos + len(_GZIP)]) != _GZIP:
                raise _refuse(f"compressed submission {budget.name!r} has "
                              f"{len(data) - pos} byte(s) after its gzip stream")
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


class _Stored:
    """The decompressor interface (``decompress``, ``eof``, ``needs_input``) of bytes stored
    as they are."""

    eof = False
    needs_input = True
    unused_data = b""

    def decompress(self, data: bytes | memoryview, max_length: int) -> bytes:
        return bytes(data)


class _Inflate:
    """Raw deflate, with the interface of :class:`bz2.BZ2Decompressor`: input it could not
    take within ``max_length`` is kept and used by the next call."""

    def __init__(self, wbits: int = -zlib.MAX_WBITS) -> None:
        self._d = zlib.decompressobj(wbits)
        self._tail: bytes = b""
        self.needs_input = True

    @property
    def eof(self) -> bool:
        return self._d.eof

    @property
    def unused_data(self) -> bytes:
        return self._d.unused_data

    def decompress(self, data: bytes | memoryview, max_length: int) -> bytes:
        out = self._d.decompress(self._tail + bytes(data) if self._tail else data, max_length)
        self._tail = self._d.unconsumed_tail
        self.needs_input = not self._tail and len(out) < max_length
        return out


def _lzma_decompressor(head: memoryview, budget: _Budget) -> tuple[lzma.LZMADecompressor, int]:
    """The raw LZMA decompressor of a zip's LZMA member (its header: version, properties'
    size, the five property bytes) and where the stream starts. The dictionary size the
    header declares is not trusted: no match reaches further back than the bytes the budget
    lets out."""
    size = int.from_bytes(head[2:4], "little") if len(head) >= 4 else 0
    props = bytes(head[4:4 + size])
    if size != 5 or len(props) != 5 or props[0] >= 9 * 5 * 5:
        raise _refuse(f"zipped submission {budget.name!r}: its LZMA header is damaged")
    pb, rest = divmod(props[0], 45)
    lp, lc = divmod(rest, 9)
    declared = int.from_bytes(props[1:5], "little")
    dict_size = max(4096, min(declared, budget.ceiling))
    filters = [{"id": lzma.FILTER_LZMA1, "lc": lc, "lp": lp, "pb": pb, "dict_size": dict_size}]
    return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters), 4 + size


def _member_bytes(data: memoryview, info: zipfile.ZipInfo, name: str) -> memoryview:
    """The compressed bytes of ``info``, found through its local header."""
    at = info.header_offset
    local = bytes(data[at:at + 30])
    if len(local) < 30 or not local.startswith(b"PK\x03\x04"):
        raise _refuse(f"zipped submission {name!r}: the local header of its entry is missing "
                      "or damaged")
    start = at + 30 + int.from_bytes(local[26:28], "little") \
        + int.from_bytes(local[28:30], "little")
    if start + info.compress_size > len(data):
        raise _refuse(f"zipped submission {name!r} is truncated (its entry ends past the end "
                      "of the file)")
    return data[start:start + info.compress_size]


def _decompressor(info: zipfile.ZipInfo, packed: memoryview,
                  budget: _Budget) -> tuple[_Decompressor, memoryview]:
    """The streaming decompressor of ``info``'s method and the stream it reads."""
    method = info.compress_type
    if method == zipfile.ZIP_STORED:
        return _Stored(), packed
    if method == zipfile.ZIP_DEFLATED:
        return _Inflate(), packed
    if method == zipfile.ZIP_BZIP2:
        return bz2.BZ2Decompressor(), packed
    if method == zipfile.ZIP_LZMA:
        d, start = _lzma_decompressor(packed, budget)
        return d, packed[start:]
    shown = _OTHER_METHODS.get(method, "unknown")
    raise _refuse(f"zipped submission {budget.name!r} uses compression method {method} "
                  f"({shown}), which is not read; expected stored, deflate, bzip2 or LZMA")


def _inflate_member(info: zipfile.ZipInfo, packed: memoryview, budget: _Budget) -> None:
    """Decompress one member into ``budget``, at most :data:`_CHUNK` bytes in and out per
    step, whatever its header says; refused past its declared size, short of it, or when
    its CRC does not match."""
    d, stream = _decompressor(info, packed, budget)
    crc, start = 0, budget.total
    for piece in _Feed(d, stream):
        if budget.total - start + len(piece) > info.file_size:
            raise _refuse(f"zipped submission {budget.name!r} expands past the "
                          f"{human_bytes(info.file_size)} its header declares (stopped there)")
        budget.add(piece)
        crc = zlib.crc32(piece, crc)
    if budget.total - start != info.file_size or crc != info.CRC:
        raise _refuse(f"zipped submission {budget.name!r} is damaged or truncated (its entry "
                      f"gives {human_bytes(budget.total - start)}, its header declares "
                      f"{human_bytes(info.file_size)}, CRC {'' if crc == info.CRC else 'not '}"
                      "matching)")


def _unzip(data: memoryview, budget: _Budget, fmt: str) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            info = _zip_member(zf, budget.name, fmt)
        if info.file_size > budget.cap:
            raise _refuse(f"zipped submission {budget.name!r} declares "
                          f"{human_bytes(info.file_size)}, over the size cap of "
                          f"{human_bytes(budget.cap)}")
        _inflate_member(info, _member_bytes(data, info, budget.name), budget)
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, OSError, EOFError) as exc:
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
