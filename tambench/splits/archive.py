"""Safe extraction of zip, tar (plain, gz, bz2, xz) and 7z archives, and of lone gzip files.

Every entry is checked before a single byte is written: no absolute paths, no ``..``
components, no backslashes or drive letters, no duplicates, only regular files and folders
(symbolic links, hard links, devices and FIFOs are refused outright), and caps on the number of
entries, the total uncompressed size and the compression ratio. While writing, the bytes
actually produced are counted again, so a header that lies about sizes cannot get past the cap.
"""

from __future__ import annotations

import gzip
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from tambench._optional import require
from tambench.errors import UnsafeArchiveError

_CHUNK = 1 << 20


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps applied to one archive."""

    max_entries: int = 2_000_000
    """Most entries (files and folders) an archive may hold."""

    max_total_bytes: int = 200 * 1024**3
    """Most bytes all entries may expand to."""

    max_ratio: float = 200.0
    """Largest uncompressed/compressed ratio, per zip entry and for the whole archive."""

    ratio_floor_bytes: int = 10 * 1024**2
    """Entries and archives smaller than this are exempt from the ratio cap (tiny text files
    compress very well and are harmless)."""


@dataclass(frozen=True)
class _Entry:
    name: str
    is_dir: bool
    size: int
    compressed: int | None


#: The 7z magic number (7z archives need the optional py7zr, of the kaggle extra).
SEVEN_ZIP_MAGIC = b"7z\xbc\xaf\x27\x1c"


def is_7z(path: Path) -> bool:
    """Whether ``path`` starts with the 7z magic number."""
    with open(path, "rb") as fh:
        return fh.read(len(SEVEN_ZIP_MAGIC)) == SEVEN_ZIP_MAGIC


#: The gzip magic number: a lone gzip file (acquire-valued-shoppers' trainHistory.csv.gz,
#: avazu's train.gz) holds one file, named like the archive without its ``.gz``.
GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: Path) -> bool:
    """Whether ``path`` starts with the gzip magic number."""
    with open(path, "rb") as fh:
        return fh.read(len(GZIP_MAGIC)) == GZIP_MAGIC


def is_archive(path: Path) -> bool:
    """Whether ``path`` is a zip, tar, 7z or gzip archive (by content, not by name)."""
    return path.is_file() and (zipfile.is_zipfile(path) or tarfile.is_tarfile(path)
                               or is_7z(path) or is_gzip(path))


def _check_name(name: str, archive: Path) -> PurePosixPath:
    where = f"archive {archive.name}: entry {name!r}"
    if not name or "\x00" in name:
        raise UnsafeArchiveError(f"{where} has an empty or NUL-containing name")
    if "\\" in name:
        raise UnsafeArchiveError(f"{where} contains a backslash (a Windows path separator)")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchiveError(f"{where} is an absolute path")
    parts = PurePosixPath(name).parts
    if ".." in parts:
        raise UnsafeArchiveError(f"{where} contains '..' (path traversal)")
    clean = [p for p in parts if p not in ("", ".")]
    if not clean:
        raise UnsafeArchiveError(f"{where} names no file")
    return PurePosixPath(*clean)


def _zip_entries(zf: zipfile.ZipFile, archive: Path) -> Iterator[_Entry]:
    for info in zf.infolist():
        mode = (info.external_attr >> 16) & 0xFFFF
        ftype = stat.S_IFMT(mode)  # 0 when the writer stored permission bits only
        if ftype and ftype not in (stat.S_IFREG, stat.S_IFDIR):
            kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
            raise UnsafeArchiveError(
                f"archive {archive.name}: entry {info.filename!r} is {kind}; links and special "
                "files are refused"
            )
        yield _Entry(info.filename, info.is_dir(), info.file_size, info.compress_size)


def _tar_entries(tf: tarfile.TarFile, archive: Path) -> Iterator[_Entry]:
    for m in tf:
        if not (m.isfile() or m.isdir()):
            kind = ("a symbolic link" if m.issym() else "a hard link" if m.islnk()
                    else "a device or FIFO")
            raise UnsafeArchiveError(
                f"archive {archive.name}: entry {m.name!r} is {kind}; links and special files "
                "are refused"
            )
        yield _Entry(m.name, m.isdir(), m.size if m.isfile() else 0, None)


def _validate(entries: Iterator[_Entry], archive: Path, limits: ArchiveLimits) -> None:
    seen: set[PurePosixPath] = set()
    total = 0
    count = 0
    for e in entries:
        count += 1
        if count > limits.max_entries:
            raise UnsafeArchiveError(
                f"archive {archive.name} has more than {limits.max_entries} entries"
            )
        rel = _check_name(e.name, archive)
        if rel in seen and not e.is_dir:
            raise UnsafeArchiveError(f"archive {archive.name}: entry {e.name!r} appears twice")
        seen.add(rel)
        total += e.size
        if total > limits.max_total_bytes:
            raise UnsafeArchiveError(
                f"archive {archive.name} expands to more than {limits.max_total_bytes} bytes"
            )
        if (e.compressed is not None and e.size > limits.ratio_floor_bytes
                and e.size > limits.max_ratio * max(e.compressed, 1)):
            raise UnsafeArchiveError(
                f"archive {archive.name}: entry {e.name!r} has compression ratio "
                f"{e.size / max(e.compressed, 1):.0f} > {limits.max_ratio:.0f} (a decompression "
                "bomb?)"
            )
    packed = archive.stat().st_size
    if total > limits.ratio_floor_bytes and total > limits.max_ratio * max(packed, 1):
        raise UnsafeArchiveError(
            f"archive {archive.name} expands {total / max(packed, 1):.0f}-fold "
            f"(> {limits.max_ratio:.0f}): a decompression bomb?"
        )


class _Budget:
    def __init__(self, archive: Path, limits: ArchiveLimits) -> None:
        self.archive = archive
        self.left = limits.max_total_bytes

    def copy(self, src: IO[bytes], dst_path: Path, declared: int) -> None:
        written = 0
        with open(dst_path, "xb") as dst:
            while chunk := src.read(_CHUNK):
                written += len(chunk)
                self.left -= len(chunk)
                if written > declared or self.left < 0:
                    raise UnsafeArchiveError(
                        f"archive {self.archive.name}: {dst_path.name} expands past its declared "
                        "size or the total cap"
                    )
                dst.write(chunk)


def _target_path(target: Path, name: str, archive: Path) -> Path:
    rel = _check_name(name, archive)
    out = target.joinpath(*rel.parts)
    if not out.resolve().is_relative_to(target):
        raise UnsafeArchiveError(f"archive {archive.name}: entry {name!r} resolves outside target")
    return out


def safe_extract(archive: Path, target: Path, limits: ArchiveLimits | None = None) -> list[Path]:
    """Extract ``archive`` into ``target`` (created; must be empty) after checking every entry.

    Returns the extracted files. Raises :class:`UnsafeArchiveError` naming the first offending
    entry; nothing is written for an archive whose headers fail the checks, and a partial
    extraction stopped by the byte count is removed.
    """
    limits = limits or ArchiveLimits()
    archive = Path(archive)
    target.mkdir(parents=True, exist_ok=True)
    target = target.resolve()
    if any(target.iterdir()):
        raise UnsafeArchiveError(f"extraction target {target} is not empty")
    is_zip = zipfile.is_zipfile(archive)
    if not is_zip and is_7z(archive):
        return _extract_7z(archive, target, limits)
    if not is_zip and not tarfile.is_tarfile(archive):
        if is_gzip(archive):
            return _extract_gzip(archive, target, limits)
        raise UnsafeArchiveError(f"{archive} is neither a zip nor a tar archive")
    try:
        if is_zip:
            with zipfile.ZipFile(archive) as zf:
                _validate(_zip_entries(zf, archive), archive, limits)
                return _extract_zip(zf, archive, target, limits)
        with tarfile.open(archive, "r:*") as tf:
            _validate(_tar_entries(tf, archive), archive, limits)
        with tarfile.open(archive, "r:*") as tf:
            return _extract_tar(tf, archive, target, limits)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
        _empty(target)
        raise UnsafeArchiveError(f"archive {archive.name} is corrupt: {exc}") from exc
    except UnsafeArchiveError:
        _empty(target)
        raise
    except (FileExistsError, NotADirectoryError) as exc:
        _empty(target)
        raise UnsafeArchiveError(
            f"archive {archive.name}: a file and a folder share a name ({exc})"
        ) from exc


def _empty(target: Path) -> None:
    for child in target.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _extract_zip(
    zf: zipfile.ZipFile, archive: Path, target: Path, limits: ArchiveLimits
) -> list[Path]:
    budget = _Budget(archive, limits)
    out: list[Path] = []
    for info in zf.infolist():
        dst = _target_path(target, info.filename, archive)
        if info.is_dir():
            dst.mkdir(parents=True, exist_ok=True)
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(info) as src:
            budget.copy(src, dst, info.file_size)
        out.append(dst)
    return out


def _extract_tar(
    tf: tarfile.TarFile, archive: Path, target: Path, limits: ArchiveLimits
) -> list[Path]:
    budget = _Budget(archive, limits)
    out: list[Path] = []
    for m in tf:
        dst = _target_path(target, m.name, archive)
        if m.isdir():
            dst.mkdir(parents=True, exist_ok=True)
            continue
        if not m.isfile():  # checked in the first pass; the archive changed underneath us
            raise UnsafeArchiveError(f"archive {archive.name}: entry {m.name!r} is not a file")
        dst.parent.mkdir(parents=True, exist_ok=True)
        src = tf.extractfile(m)
        if src is None:
            raise UnsafeArchiveError(f"archive {archive.name}: entry {m.name!r} has no data")
        with src:
            budget.copy(src, dst, m.size)
        os.chmod(dst, 0o644)
        out.append(dst)
    return out


def _extract_7z(archive: Path, target: Path, limits: ArchiveLimits) -> list[Path]:
    """A 7z archive (statoil's train.json.7z, the speech commands' train.7z): every entry
    checked like a zip's before anything is written, then the bytes written counted again."""
    py7zr = require("py7zr", extra="kaggle", feature="7z archives in a download")
    try:
        with py7zr.SevenZipFile(archive, "r") as zf:
            infos = zf.list()
            for info in infos:
                if info.is_symlink or not (info.is_file or info.is_directory):
                    raise UnsafeArchiveError(f"archive {archive.name}: entry {info.filename!r} "
                                             "is not a regular file; links are refused")
            _validate((_Entry(i.filename, i.is_directory, int(i.uncompressed or 0),
                              int(i.compressed) if i.compressed else None) for i in infos),
                      archive, limits)
            zf.extractall(path=target)
    except UnsafeArchiveError:
        _empty(target)
        raise
    except (py7zr.exceptions.ArchiveError, EOFError, OSError) as exc:
        _empty(target)
        raise UnsafeArchiveError(f"archive {archive.name} is corrupt: {exc}") from exc
    out = [p for p in target.rglob("*") if p.is_file() and not p.is_symlink()]
    if sum(p.stat().st_size for p in out) > limits.max_total_bytes:
        _empty(target)
        raise UnsafeArchiveError(
            f"archive {archive.name} expands to more than {limits.max_total_bytes} bytes")
    for p in out:
        os.chmod(p, 0o644)
    return out


def _extract_gzip(archive: Path, target: Path, limits: ArchiveLimits) -> list[Path]:
    """A lone gzip file: its one member, named like the archive without ``.gz``; the bytes are
    counted as they are produced against the total cap and the ratio cap (a gzip header does
    not state the size)."""
    lower = archive.name.lower()
    name = archive.name[:-3] if lower.endswith(".gz") and len(archive.name) > 3 else archive.name
    dst = _target_path(target, name, archive)
    packed = max(archive.stat().st_size, 1)
    written = 0
    try:
        with gzip.open(archive, "rb") as src, open(dst, "xb") as out:
            while chunk := src.read(_CHUNK):
                written += len(chunk)
                if written > limits.max_total_bytes:
                    raise UnsafeArchiveError(f"archive {archive.name} expands to more than "
                                             f"{limits.max_total_bytes} bytes")
                if written > limits.ratio_floor_bytes and written / packed > limits.max_ratio:
                    raise UnsafeArchiveError(
                        f"archive {archive.name} expands more than {limits.max_ratio:.0f}-fold: "
                        "a decompression bomb?")
                out.write(chunk)
    except UnsafeArchiveError:
        _empty(target)
        raise
    except (OSError, EOFError, zlib.error) as exc:
        _empty(target)
        raise UnsafeArchiveError(f"archive {archive.name} is corrupt: {exc}") from exc
    os.chmod(dst, 0o644)
    return [dst]
