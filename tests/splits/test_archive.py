"""Hostile archives built at test time are refused with zero writes outside the target."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from tambench.errors import SourceError, UnsafeArchiveError
from tambench.splits.archive import ArchiveLimits, safe_extract
from tambench.splits.sources import ArchiveSource, LocalFolderSource, open_source


def _snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return path


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for info, data in members:
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _link(name: str, target: str, kind: bytes) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def _assert_refused(archive: Path, tmp_path: Path, match: str,
                    limits: ArchiveLimits | None = None) -> None:
    before = _snapshot(tmp_path)
    target = tmp_path / "out"
    with pytest.raises(UnsafeArchiveError, match=match):
        safe_extract(archive, target, limits)
    after = _snapshot(tmp_path)
    assert after - before <= {"out"}, f"wrote outside the target: {after - before}"
    assert list(target.iterdir()) == []


def test_safe_archives_of_each_format_extract_their_files(tmp_path: Path) -> None:
    z = _zip(tmp_path / "a.zip", {"data/train.csv": b"id,y\n1,2\n", "README": b"hi"})
    files = safe_extract(z, tmp_path / "z")
    assert sorted(p.relative_to(tmp_path / "z").as_posix() for p in files) == [
        "README", "data/train.csv"]
    t = _tar(tmp_path / "a.tar.gz", [_file("train.csv", b"id,y\n")])
    safe_extract(t, tmp_path / "t")
    assert (tmp_path / "t/train.csv").read_bytes() == b"id,y\n"


@pytest.mark.parametrize("name", ["../evil.txt", "data/../../evil.txt", "/tmp/evil_abs.txt",
                                  "..\\evil.txt", "C:/evil.txt"])
def test_zip_slip_and_absolute_names_are_refused(tmp_path: Path, name: str) -> None:
    z = _zip(tmp_path / "slip.zip", {"ok.txt": b"fine", name: b"pwned"})
    _assert_refused(z, tmp_path, "path traversal|absolute|backslash")
    assert not Path("/tmp/evil_abs.txt").exists()


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/evil_abs"])
def test_tar_traversal_and_absolute_names_are_refused(tmp_path: Path, name: str) -> None:
    t = _tar(tmp_path / "slip.tar.gz", [_file("ok.txt", b"x"), _file(name, b"pwned")])
    _assert_refused(t, tmp_path, "path traversal|absolute")


def test_tar_symlinks_and_hardlinks_are_refused(tmp_path: Path) -> None:
    for kind, label in ((tarfile.SYMTYPE, "symbolic link"), (tarfile.LNKTYPE, "hard link")):
        t = _tar(tmp_path / f"link{label[0]}.tar.gz",
                 [_link("escape", "/etc/passwd", kind), _file("escape/x", b"1")])
        _assert_refused(t, tmp_path, label)


def test_zip_symlink_entries_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "link.zip"
    with zipfile.ZipFile(path, "w") as zf:
        info = zipfile.ZipInfo("escape")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    _assert_refused(path, tmp_path, "symbolic link")


def test_decompression_bomb_is_refused_by_the_ratio_cap(tmp_path: Path) -> None:
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("zeros.bin", b"\0" * (30 * 1024 * 1024))
    assert path.stat().st_size < 100_000
    _assert_refused(path, tmp_path, "compression ratio")


def test_entry_count_and_total_size_caps_are_enforced(tmp_path: Path) -> None:
    z = _zip(tmp_path / "many.zip", {f"f{i}.txt": b"x" for i in range(20)})
    _assert_refused(z, tmp_path, "more than 10 entries", ArchiveLimits(max_entries=10))
    big = _zip(tmp_path / "big.zip", {"a.bin": os.urandom(5000)})
    _assert_refused(big, tmp_path, "expands to more than 1000 bytes",
                    ArchiveLimits(max_total_bytes=1000))


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_duplicate_entries_and_non_archives_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("a.txt", "1")
        zf.writestr("a.txt", "2")
    _assert_refused(path, tmp_path, "appears twice")
    plain = tmp_path / "plain.csv"
    plain.write_text("id\n1\n")
    with pytest.raises(SourceError, match="neither a zip nor a tar"):
        open_source(plain)


def test_open_source_picks_folder_or_archive(tmp_path: Path) -> None:
    (tmp_path / "raw").mkdir()
    assert isinstance(open_source(tmp_path / "raw"), LocalFolderSource)
    z = _zip(tmp_path / "a.zip", {"train.csv": b"id\n"})
    src = open_source(z)
    assert isinstance(src, ArchiveSource)
    work = tmp_path / "work"
    work.mkdir()
    assert (src.fetch(work) / "train.csv").is_file()
    with pytest.raises(SourceError, match="does not exist"):
        open_source(tmp_path / "nope")
