"""Per-row files (images, audio, documents) that follow their row into public/train or public/test.

Files are handled one at a time (never held in memory). A file is hard-linked when the file
system allows it and the raw file's mode is already what public files get (0644), so linking
never changes a raw file; otherwise it is copied. A pattern naming a folder (a patient's
scans) places every file under it. A path that leaves the raw folder, through ``..`` or a
link, is refused.
"""

from __future__ import annotations

import csv
import fnmatch
import os
import re
import shutil
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from string import Formatter
from typing import BinaryIO

import numpy as np
import polars as pl

from tambench.core.layout import safe_relpath
from tambench.errors import SplitError, UnsafePathError
from tambench.schema.splitspec import FilesSpec
from tambench.splits.layout import (
    MANIFEST_FILE,
    PUBLIC_DIR,
    PUBLIC_FILE_MODE,
    TEST_FILES_DIR,
    TRAIN_FILES_DIR,
    SplitPlan,
)
from tambench.splits.report import FilesReport

#: A pattern field: a column, optionally one character of its value (``{id[0]}``).
_FIELD = re.compile(r"([^\[\].]+)(?:\[\d+\])?")


def pattern_fields(pattern: str) -> list[str]:
    """Columns used by a file pattern; a field may take one character of its value
    (``{id[0]}``: seti's ``train/{id[0]}/{id}.npy``), nothing else of it.

    >>> pattern_fields("images/{label_free}/{id}.png")
    ['label_free', 'id']
    >>> pattern_fields("train/{image_id[0]}/{image_id[1]}/{image_id}.png")
    ['image_id', 'image_id', 'image_id']
    """
    fields = []
    for _, f, _, _ in Formatter().parse(pattern):
        if f is None:
            continue
        m = _FIELD.fullmatch(f)
        if m is None:
            raise SplitError(f"file pattern {pattern!r}: field {{{f}}} is not a column name "
                             "(or a column with one character's index, as {id[0]})")
        fields.append(m.group(1))
    return fields


def file_fields(plan: SplitPlan) -> list[str] | None:
    """Columns besides the id the first pass must keep for the split's per-row files (None:
    the split has no per-row files)."""
    files = getattr(plan.split, "files", None)
    if files is None:
        return None
    fields = pattern_fields(files.pattern)
    dest = pattern_fields(files.dest) if files.dest else fields
    bad = [f for f in dest if f in plan.hidden_columns]
    if bad:
        raise SplitError(f"files.{'dest' if files.dest else 'pattern'} "
                         f"{files.dest or files.pattern!r} uses target column(s) {bad}: public "
                         "file paths would reveal the test labels (set files.dest to a path "
                         "made of other columns)")
    return list(dict.fromkeys(f for f in [*fields, *dest] if f != "id"))


def _place_file(src: Path, dst: Path, link: bool, strip: str = "") -> str:
    dst.parent.mkdir(parents=True, exist_ok=True)
    src = src.resolve()  # a hard link to a symbolic link would publish the symbolic link
    if strip == "id3":
        copy_without_id3(src, dst)
        return "copied"
    if link and stat.S_IMODE(src.stat().st_mode) == PUBLIC_FILE_MODE:
        try:
            os.link(src, dst)
            return "linked"
        except OSError:
            pass  # another file system or links not allowed: copy instead
    shutil.copyfile(src, dst)
    return "copied"


def _row_path(pattern: str, values: dict[str, object], row_id: object) -> str:
    """A row's raw path; a field without a value is refused ("train/{sub}" with no sub would
    name the whole folder of every row)."""
    empty = [f for f, v in values.items() if not v]
    if empty:
        raise SplitError(f"row {row_id!r} has no value in {empty}, which files.pattern "
                         f"{pattern!r} needs")
    return pattern.format(**values)


def _members(src: Path, rel: str, raw_resolved: Path,
             exclude: Sequence[str] = ()) -> list[tuple[Path, str]]:
    """The files of a row: ``src`` itself, or every file under the folder ``src`` (with its
    path as the pattern names it) but those whose name matches an ``exclude`` pattern,
    refusing one that resolves outside the raw folder."""
    if not src.is_dir():
        return [(src, rel)]
    out = []
    for f in sorted(src.rglob("*")):
        if f.is_dir() or any(fnmatch.fnmatchcase(f.name, x) for x in exclude):
            continue
        f_rel = f"{rel}/{f.relative_to(src).as_posix()}"
        if not f.resolve().is_relative_to(raw_resolved):
            raise SplitError(f"file {f_rel!r} resolves outside the raw data ({f.resolve()}); "
                             "refused")
        out.append((f, f_rel))
    return out


def _place_row(src: Path, dst: Path, raw_resolved: Path, files: FilesSpec) -> str:
    """Place a row's file, or its folder file by file ("linked" when every file was)."""
    if not src.is_dir():
        return _place_file(src, dst, files.link, files.strip)
    dst.mkdir(parents=True, exist_ok=True)
    how = "linked"
    for f, _ in _members(src, "", raw_resolved, files.exclude):
        if _place_file(f, dst / f.relative_to(src), files.link, files.strip) == "copied":
            how = "copied"
    return how


def copy_row_files(raw_root: Path, keys: pl.DataFrame, mask: np.ndarray, plan: SplitPlan,
                   out: Path, test_order: np.ndarray,
                   refuse: Callable[[Path, str], None] | None = None) -> FilesReport:
    """Link or copy each row's file into public/train/ or public/test/, writing a manifest.

    The manifest lists train rows in table order, then test rows in the public test order
    (``test_order`` permutes the test rows, as in public/test.csv). ``refuse(path, label)``
    raises for a raw file that must not be published.
    """
    files = getattr(plan.split, "files", None)
    if files is None:
        raise SplitError("internal: copy_row_files without a files spec")
    fields = pattern_fields(files.pattern)
    dest_fields = pattern_fields(files.dest) if files.dest else fields
    ids = keys[plan.id_column]
    values = {f: (ids if f == "id" else keys[f]) for f in {*fields, *dest_fields}}
    counts = {"linked": 0, "copied": 0, "shared": 0}
    placed: dict[str, str] = {}
    missing: list[str] = []
    test_rows: list[tuple[str, str]] = []
    raw_resolved = raw_root.resolve()
    with open(out / PUBLIC_DIR / MANIFEST_FILE, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", "split", "path"])
        for i in range(ids.len()):
            rel = _row_path(files.pattern, {f: values[f][i] for f in fields}, ids[i])
            src = _row_file(raw_root, raw_resolved, rel)
            if src is None:
                missing.append(rel)
                continue
            if refuse is not None:
                for f, f_rel in _members(src, rel, raw_resolved, files.exclude):
                    refuse(f, f_rel)
            public = files.dest.format(**{f: values[f][i] for f in dest_fields}) \
                if files.dest else rel
            clean = safe_relpath(public, "file path")
            split_dir = TEST_FILES_DIR if mask[i] else TRAIN_FILES_DIR
            dst_rel = f"{split_dir}/{clean.as_posix()}"
            dst = out / PUBLIC_DIR / dst_rel
            if dst_rel in placed:  # a file shared by several rows of one side: placed once
                if placed[dst_rel] != rel:
                    raise SplitError(f"files.dest gives {placed[dst_rel]!r} and {rel!r} the same "
                                     f"public path {dst_rel!r}")
                counts["shared"] += 1
            else:
                placed[dst_rel] = rel
                counts[_place_row(src, dst, raw_resolved, files)] += 1
            if mask[i]:
                test_rows.append((str(ids[i]), dst_rel))
            else:
                w.writerow([ids[i], "train", dst_rel])
        if missing:
            raise SplitError(
                f"{len(missing)} row file(s) named by files.pattern {files.pattern!r} are missing, "
                f"e.g. {missing[:5]}")
        for j in test_order.tolist():
            w.writerow([test_rows[j][0], "test", test_rows[j][1]])
    n_test = len(test_rows)
    return FilesReport(train=int(ids.len()) - n_test, test=n_test, **counts,
                       manifest=f"{PUBLIC_DIR}/{MANIFEST_FILE}")


#: Size of an ID3v1 tag (at the end of an MP3 file, starting with b"TAG") and of the
#: extended block that may precede it (starting with b"TAG+").
ID3V1_BYTES, ID3V1_EXT_BYTES = 128, 227


def _id3v1_start(fh: BinaryIO, start: int, size: int) -> int:
    """Offset of the ID3v1 tag (and its extended block) at the file's end (``size`` when it
    has none), never before ``start``."""
    fh.seek(max(start, size - ID3V1_BYTES - ID3V1_EXT_BYTES))
    tail = fh.read()
    end = size
    if len(tail) >= ID3V1_BYTES and tail[-ID3V1_BYTES:].startswith(b"TAG"):
        end -= ID3V1_BYTES
        if len(tail) >= ID3V1_BYTES + ID3V1_EXT_BYTES and \
                tail[-ID3V1_BYTES - ID3V1_EXT_BYTES:].startswith(b"TAG+"):
            end -= ID3V1_EXT_BYTES
    return max(end, start)


def _id3v2_end(fh: BinaryIO, size: int, label: str) -> int:
    """Offset just past the ID3v2 tags at the file's start (0 when it has none)."""
    pos = 0
    while True:
        fh.seek(pos)
        header = fh.read(10)
        if len(header) < 10 or header[:3] != b"ID3":
            return pos
        body = header[6:10]
        if any(b & 0x80 for b in body):
            raise SplitError(f"{label}: its ID3v2 tag has a malformed size; refused")
        length = (body[0] << 21) | (body[1] << 14) | (body[2] << 7) | body[3]
        length += 10 + (10 if header[5] & 0x10 else 0)  # header, and the footer if flagged
        if pos + length > size:
            raise SplitError(f"{label}: its ID3v2 tag runs past the end of the file; refused")
        pos += length


def copy_without_id3(src: Path, dst: Path) -> None:
    """Copy an MP3 file without its ID3v2 tags (start) and ID3v1 tag (end), streaming."""
    size = src.stat().st_size
    with open(src, "rb") as fh, open(dst, "wb") as out:
        start = _id3v2_end(fh, size, src.name)
        left = _id3v1_start(fh, start, size) - start
        fh.seek(start)
        while left > 0:
            block = fh.read(min(left, 1 << 20))
            if not block:
                break
            out.write(block)
            left -= len(block)


def _row_file(raw_root: Path, raw_resolved: Path, rel: str) -> Path | None:
    """The raw file (or folder: all its files follow the row) at ``rel`` (None when absent);
    refuses one that resolves outside the raw folder."""
    try:
        clean = safe_relpath(rel, "file path")
    except UnsafePathError as exc:
        raise SplitError(str(exc)) from None
    src = raw_root.joinpath(*clean.parts)
    if not (src.is_file() or src.is_dir()):
        return None
    if not src.resolve().is_relative_to(raw_resolved):
        raise SplitError(f"file {rel!r} resolves outside the raw data ({src.resolve()}); refused")
    return src

