"""Archives inside a competition's download, unpacked where a recipe expects their files.

A Kaggle download is one zip, and inside it the files are often zipped again: ``train.zip``
(a folder of images), ``train.csv.zip`` (one table), ``Train.zip`` holding ``Train.csv``, a
zip inside a zip. Recipes name the files as they are once everything is unpacked, so each
archive ``<name>.<zip|tar|tar.gz|tgz|tar.bz2|tar.xz|7z|gz>`` found in the raw data is extracted
(safely, with :func:`tambench.splits.archive.safe_extract`) into a folder ``<name>`` beside it
and removed; an archive whose only member is ``<name>`` itself (``train.csv.zip`` holding
``train.csv``, ``train.zip`` holding ``train/``) gives that member its place, so
``train.csv.zip`` becomes ``train.csv`` and never ``train.csv/train.csv``, and an archive
holding one file puts it beside the archive (``Train.zip`` holding ``Train.csv``); a lone gzip
file at the top of the raw data holds one table, ``trainHistory.csv.gz`` becoming
``trainHistory.csv`` (gzipped per-row files in folders, ``scans/{id}.nii.gz``, are kept, but a
gzipped table in a folder is unpacked when the recipe names it without its ``.gz``: OGB's
``pcqm4m_kddcup2021/raw/data.csv.gz``). Archives found in what was unpacked are unpacked in
turn, up to :data:`MAX_DEPTH` levels.

A local folder is never changed: when it holds archives, its files are first linked (or
copied, across file systems) into the working folder, and unpacked there.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tambench.errors import SplitError
from tambench.splits.archive import ArchiveLimits, is_archive, safe_extract

#: Suffixes of the archives that are unpacked (longest first).
ARCHIVE_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".zip", ".tar", ".7z", ".gz")
#: Archives inside archives are unpacked this many levels deep.
MAX_DEPTH = 3


def archive_stem(name: str) -> str | None:
    """The name an archive unpacks to, or None when ``name`` has no archive suffix.

    >>> archive_stem("train.csv.zip"), archive_stem("Train.zip"), archive_stem("x.npy")
    ('train.csv', 'Train', None)
    """
    lower = name.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if lower.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


def _lone_gzip(name: str) -> bool:
    lower = name.lower()
    return lower.endswith(".gz") and not lower.endswith(".tar.gz")


def nested_archives(root: Path, named: frozenset[str] = frozenset()) -> list[Path]:
    """Archives (by suffix and by content) anywhere under ``root``; lone gzip files at its top
    (tables) or, deeper, only where ``named`` (paths relative to ``root``) holds the path
    they unpack to, since per-row files inside folders may be gzipped by format
    (``scans/{id}.nii.gz``) and are kept as they are."""
    found = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            p = Path(dirpath) / name
            if _lone_gzip(name) and Path(dirpath) != root and \
                    p.relative_to(root).as_posix()[:-3] not in named:
                continue
            if archive_stem(name) is not None and not p.is_symlink() and is_archive(p):
                found.append(p)
    return sorted(found)


def _link_tree(src: Path, dst: Path) -> None:
    """``dst`` as a copy of ``src`` whose files are hard links where the file system allows."""

    def link_or_copy(a: str, b: str) -> None:
        try:
            os.link(a, b)
        except OSError:
            shutil.copy2(a, b)

    shutil.copytree(src, dst, copy_function=link_or_copy, symlinks=False)


def _unpack_one(archive: Path, limits: ArchiveLimits) -> Path:
    stem = archive_stem(archive.name)
    if stem is None:
        raise SplitError(f"{archive.name} is not an archive this recipe can unpack")
    place = archive.with_name(stem)
    scratch = archive.with_name(f".{stem}.unpacking")
    safe_extract(archive, scratch, limits)
    archive.unlink()
    members = list(scratch.iterdir())
    source = members[0] if len(members) == 1 and members[0].name == stem else scratch
    if len(members) == 1 and members[0].is_file():  # Train.zip holding Train.csv
        source, place = members[0], archive.with_name(members[0].name)
    if place.exists():
        if not place.is_dir() or not source.is_dir():
            shutil.rmtree(scratch)
            raise SplitError(f"{archive.name} unpacks to {stem!r}, which the raw data already "
                             "holds as a file")
        for child in source.iterdir():  # a folder and its zip both given: merge, never replace
            if not (place / child.name).exists():
                os.replace(child, place / child.name)
    else:
        os.replace(source, place)
    shutil.rmtree(scratch, ignore_errors=True)
    return place


def unpack_nested(root: Path, work: Path, limits: ArchiveLimits | None = None,
                  named: frozenset[str] = frozenset()) -> Path:
    """Unpack every archive under ``root``; returns the folder holding the result.

    ``root`` inside ``work`` (an extracted download) is unpacked in place; otherwise (a user's
    folder) it is first linked into ``work/unpacked``. Without archives ``root`` is returned
    unchanged. ``named``: the raw paths the recipe reads (a gzipped table in a folder is
    unpacked only when named).
    """
    limits = limits or ArchiveLimits()
    archives = nested_archives(root, named)
    if not archives:
        return root
    if not root.resolve().is_relative_to(work.resolve()):
        copy = work / "unpacked"
        _link_tree(root, copy)
        root = copy
        archives = nested_archives(root, named)
    for _ in range(MAX_DEPTH):
        if not archives:
            break
        for archive in archives:
            _unpack_one(archive, limits)
        archives = nested_archives(root, named)
    return root
