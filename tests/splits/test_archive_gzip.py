"""Lone gzip files in a download (trainHistory.csv.gz, avazu's train.gz): unpacked beside the
archive under its name without ``.gz``, with the size and ratio caps and a named error."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from tambench.errors import UnsafeArchiveError
from tambench.splits.archive import ArchiveLimits, is_archive, safe_extract
from tambench.splits.unpack import archive_stem, unpack_nested


def test_gzip_files_become_their_one_file_and_tar_gz_keeps_its_stem(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    table = b"id,chain,repeater\n86246,205,t\n86252,205,f\n"
    (raw / "trainHistory.csv.gz").write_bytes(gzip.compress(table))
    (raw / "train.gz").write_bytes(gzip.compress(b"id,click\n1,0\n"))
    (raw / "scans").mkdir()
    scan = gzip.compress(b"nifti bytes")
    (raw / "scans" / "a1.nii.gz").write_bytes(scan)
    assert archive_stem("train.gz") == "train"
    assert archive_stem("x.tar.gz") == "x"
    root = unpack_nested(raw, tmp_path / "work")
    assert sorted(p.name for p in root.iterdir()) == ["scans", "train", "trainHistory.csv"]
    assert (root / "scans" / "a1.nii.gz").read_bytes() == scan, "per-row files stay gzipped"
    assert (root / "trainHistory.csv").read_bytes() == table
    assert (root / "train").read_bytes() == b"id,click\n1,0\n"
    assert (raw / "trainHistory.csv.gz").is_file(), "the user's folder is never changed"


def test_a_gzip_bomb_and_a_file_past_the_total_cap_are_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "zeros.csv.gz"
    bomb.write_bytes(gzip.compress(b"0" * 2_000_000))
    assert is_archive(bomb)
    limits = ArchiveLimits(ratio_floor_bytes=1024, max_ratio=50)
    with pytest.raises(UnsafeArchiveError, match="zeros.csv.gz expands more than 50-fold"):
        safe_extract(bomb, tmp_path / "out", limits)
    assert not any((tmp_path / "out").iterdir()), "a partial file is removed"
    big = tmp_path / "big.csv.gz"
    big.write_bytes(gzip.compress(os.urandom(5000)))
    with pytest.raises(UnsafeArchiveError, match="big.csv.gz expands to more than 1000 bytes"):
        safe_extract(big, tmp_path / "out2", ArchiveLimits(max_total_bytes=1000))


def test_a_corrupt_gzip_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "test.csv.gz"
    bad.write_bytes(b"\x1f\x8b" + b"not deflate data at all" * 10)
    with pytest.raises(UnsafeArchiveError, match="archive test.csv.gz is corrupt"):
        safe_extract(bad, tmp_path / "out")
    assert not any((tmp_path / "out").iterdir())


def test_a_gzipped_table_in_a_folder_is_unpacked_only_when_the_recipe_names_it(
        tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    (raw / "pcqm4m_kddcup2021" / "raw").mkdir(parents=True)
    table = b"idx,smiles,homolumogap\n0,CCO,5.1\n1,CC,\n"
    (raw / "pcqm4m_kddcup2021" / "raw" / "data.csv.gz").write_bytes(gzip.compress(table))
    (raw / "pcqm4m_kddcup2021" / "raw" / "other.csv.gz").write_bytes(gzip.compress(table))
    kept = unpack_nested(raw, tmp_path / "work0")
    assert kept == raw, "an unnamed gzipped table in a folder is kept as it is"
    root = unpack_nested(raw, tmp_path / "work1",
                         named=frozenset({"pcqm4m_kddcup2021/raw/data.csv"}))
    inner = root / "pcqm4m_kddcup2021" / "raw"
    assert sorted(p.name for p in inner.iterdir()) == ["data.csv", "other.csv.gz"]
    assert (inner / "data.csv").read_bytes() == table
