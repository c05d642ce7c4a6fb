"""Compressed submissions as Kaggle accepts them (``submission.csv.gz``, a zip of one file),
decompressed in memory within bounds: bombs, lying sizes, several members, links and path
traversal are refused with a message, and nothing is ever written to disk."""

from __future__ import annotations

import gzip
import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

import tambench
from tambench.cli.main import main
from tambench.validation.reading import compressed
from tambench.validation.reading.limits import Limits
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import FIXED, make_env

TEXT = perfect_text(TASKS["value"]).encode()


def _zip(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in entries:
            zf.writestr(info, data)
    return out.getvalue()


def _link(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _grade(tmp_path: Path, name: str, data: bytes, **kw: object) -> tambench.GradeReport:
    cat, data_dir, _ = make_env(tmp_path)
    sub = tmp_path / "sub" / name
    sub.parent.mkdir(exist_ok=True)
    sub.write_bytes(data)
    return tambench.grade(sub, "test/value", catalogue=cat, data_dir=data_dir, now=FIXED,
                          **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "data"), [
    ("submission.csv.gz", gzip.compress(TEXT)),
    ("submission.csv.gz", gzip.compress(TEXT[:40]) + gzip.compress(TEXT[40:])),  # 2 members
    ("submission.zip", _zip([("submission.csv", TEXT)])),
    ("submission.csv.zip", _zip([("preds.csv", TEXT)])),
])
def test_kaggle_s_compressed_forms_grade_like_the_plain_file(
    tmp_path: Path, name: str, data: bytes,
) -> None:
    report = _grade(tmp_path, name, data)
    assert report.valid_submission and report.score == 0.0, report.errors
    assert report.submission_path.endswith(name)


@pytest.mark.parametrize(("name", "data", "message"), [
    ("submission.zip", _zip([("a.csv", TEXT), ("b.csv", TEXT)]),
     "holds 2 entries ('a.csv', 'b.csv'); expected exactly one file"),
    ("submission.zip", _zip([("submission.csv", TEXT), ("__MACOSX/._submission.csv", b"x")]),
     "holds 2 entries"),
    ("submission.zip", _zip([(_link("submission.csv"), b"/etc/passwd")]),
     "entry 'submission.csv' is a symbolic link"),
    ("submission.zip", _zip([("../../evil.csv", TEXT)]), "is not a plain file name"),
    ("submission.zip", _zip([("/abs/evil.csv", TEXT)]), "is not a plain file name"),
    ("submission.zip", _zip([("dir/", b"")]), "is not a regular file"),
    ("submission.zip", _zip([("notes.txt", TEXT)]), "expected a .csv file"),
    ("submission.zip", _zip([]), "holds 0 entries"),
    ("submission.zip", b"PK\x03\x04 not really a zip", "cannot be read as a zip"),
    ("submission.zip", TEXT, "named .zip but is not a zip archive"),
    ("submission.csv.gz", TEXT, "named .gz but is not gzip-compressed"),
    ("submission.csv.gz", gzip.compress(TEXT)[:-12], "truncated gzip stream"),
    ("submission.csv.gz", gzip.compress(TEXT) + b"junk", "byte(s) after its gzip stream"),
    ("submission.csv.gz", b"\x1f\x8b\x08\x00" + b"\xff" * 40, "is not valid gzip"),
])
def test_hostile_archives_are_refused_with_a_message(
    tmp_path: Path, name: str, data: bytes, message: str,
) -> None:
    report = _grade(tmp_path, name, data)
    assert not report.valid_submission and report.submission_exists
    assert any(message in e for e in report.errors), report.errors
    assert not (tmp_path / "evil.csv").exists() and not (tmp_path.parent / "evil.csv").exists()


@pytest.mark.parametrize("kind", ["gz", "zip"])
def test_decompression_bombs_stop_at_the_ratio_cap_without_expanding(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(compressed, "RATIO_FLOOR_BYTES", 1024**2)
    produced: list[int] = []
    real_add = compressed._Budget.add

    def counting(self: compressed._Budget, piece: bytes) -> None:
        produced.append(len(piece))
        real_add(self, piece)

    monkeypatch.setattr(compressed._Budget, "add", counting)
    bomb = TEXT + b"0" * (64 * 1024**2)  # 64 MB of one byte: ~1000-fold
    data = gzip.compress(bomb) if kind == "gz" else _zip([("submission.csv", bomb)])
    report = _grade(tmp_path, f"submission.csv.{kind}", data)
    assert not report.valid_submission
    assert any("a decompression bomb?" in e for e in report.errors), report.errors
    # stopped as soon as it passed 200 times its compressed size, never the whole 64 MB
    assert sum(produced) <= compressed.MAX_RATIO * len(data) + compressed._CHUNK
    assert sum(produced) < 32 * 1024**2


def test_the_size_cap_counts_the_bytes_produced_not_the_header(tmp_path: Path) -> None:
    big = TEXT + b"9" * 5000
    for name, data in (("submission.csv.gz", gzip.compress(big)),
                       ("submission.zip", _zip([("submission.csv", big)]))):
        report = _grade(tmp_path / name, name, data, limits=Limits(max_bytes=4000))
        assert any("expands past the size cap" in e or "over the size cap" in e
                   for e in report.errors), report.errors
    # a zip header that understates the size: the bytes produced are counted all the same
    liar = bytearray(_zip([("submission.csv", big)]))
    central = liar.rfind(b"PK\x01\x02")
    size_at = central + 24  # the central directory's uncompressed size field
    liar[size_at:size_at + 4] = (10).to_bytes(4, "little")
    report = _grade(tmp_path / "liar", "submission.zip", bytes(liar), limits=Limits(max_bytes=4000))
    assert not report.valid_submission and report.errors


def test_compressed_bytes_under_a_plain_name_say_how_they_would_be_read(tmp_path: Path) -> None:
    report = _grade(tmp_path, "submission.csv", gzip.compress(TEXT))
    (error,) = report.errors
    assert error.startswith("submission file is gzip-compressed (magic bytes 1f 8b)")
    assert error.endswith("or name it submission.csv.gz (compressed submissions are read by "
                          "their name)")


def test_grade_runs_reads_run_folders_holding_only_the_compressed_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cat, data, runs = make_env(tmp_path)
    for run, (name, blob) in {"r1": ("submission.csv.gz", gzip.compress(TEXT)),
                              "r2": ("submission.zip", _zip([("submission.csv", TEXT)])),
                              "r3": ("submission.zip", _zip([("a.csv", TEXT),
                                                              ("b.csv", TEXT)]))}.items():
        (runs / "a" / "value" / run).mkdir(parents=True)
        (runs / "a" / "value" / run / name).write_bytes(blob)
    before = sorted(p for p in tmp_path.rglob("*"))
    report = tambench.grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    assert [(r.run, r.status.value) for r in report.rows] == [
        ("r1", "graded_valid"), ("r2", "graded_valid"), ("r3", "invalid_submission")]
    assert report.rows[0].submission_path == "a/value/r1/submission.csv.gz"
    assert sorted(p for p in tmp_path.rglob("*")) == before  # decompressed in memory only
    sub = runs / "a" / "value" / "r1" / "submission.csv.gz"
    rc = main(["grade", str(sub), "--task", "test/value", "--catalogue", str(cat),
               "--data-dir", str(data)])
    assert rc == 0 and "test/value: rmse = 0.0" in capsys.readouterr().out
    assert os.listdir(runs / "a" / "value" / "r1") == ["submission.csv.gz"]


def _zip_of(method: int, text: bytes, name: str = "submission.csv") -> bytes:
    """A zip of one member compressed with ``method``, written a megabyte at a time."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as zf, zf.open(name, "w", force_zip64=True) as fh:
        for at in range(0, len(text), 1 << 20):
            fh.write(text[at:at + (1 << 20)])
    return out.getvalue()


def _unpack_peak(data: bytes, name: str = "submission.zip") -> tuple[int, str]:
    """The peak of Python's allocations (liblzma's and libbz2's included: Python gives them
    its allocator) while ``data`` is unpacked, and the refusal, if any."""
    import tracemalloc

    import pyarrow as pa

    from tambench.errors import InvalidSubmissionError
    from tambench.validation.reading.files import RawFile

    raw = RawFile(path=Path(name), size=len(data), data=data, arrow=pa.py_buffer(data))
    tracemalloc.start()
    try:
        compressed.unpack_submission(raw, max_bytes=1 << 30)
        refusal = ""
    except InvalidSubmissionError as exc:
        refusal = str(exc)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, refusal


def _held_at_most(packed: int) -> float:
    """docs/grading.md's bound on what decompressing ``packed`` bytes holds (with the floor
    the tests set to 1 MiB): the bytes let out, an LZMA dictionary no larger, one step of input,
    and half a megabyte for the rest (the zip's directory, the messages)."""
    let_out = max(1024**2, compressed.MAX_RATIO * packed) + compressed._CHUNK
    return 2 * let_out + compressed._CHUNK + 512 * 1024


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_zip_bomb_of_every_method_is_decompressed_a_megabyte_at_a_time(
    method: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bzip2 and LZMA members used to be expanded by whole blocks (zipfile's reader passes
    them no output limit): 32 MB of one byte compress to a few hundred bytes, and came out at
    once. Now every method stops at the ratio cap, holding what it let out (the documented
    bound), and for LZMA a dictionary no larger."""
    monkeypatch.setattr(compressed, "RATIO_FLOOR_BYTES", 1024**2)
    data = _zip_of(method, TEXT + b"0" * (32 * 1024**2))
    peak, refusal = _unpack_peak(data)
    assert "a decompression bomb?" in refusal, refusal
    assert peak < _held_at_most(len(data)), f"{peak / 1024**2:.1f} MiB held at once"


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_every_zip_method_grades_like_the_plain_file(tmp_path: Path, method: int) -> None:
    report = _grade(tmp_path, "submission.zip", _zip_of(method, TEXT))
    assert report.valid_submission and report.score == 0.0, report.errors


def _central(data: bytes, at: int, value: bytes) -> bytes:
    """``data`` with ``value`` written at offset ``at`` of its central directory's entry (the
    facts of an entry that reading trusts)."""
    out = bytearray(data)
    central = out.rfind(b"PK\x01\x02")
    out[central + at:central + at + len(value)] = value
    return bytes(out)


def test_a_lying_or_damaged_member_of_any_method_is_refused_by_name() -> None:
    big = TEXT + b"9" * 50_000
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        data = _zip_of(method, big)
        _, refusal = _unpack_peak(_central(data, 24, (100).to_bytes(4, "little")))
        assert "expands past the 100 bytes its header declares (stopped there)" in refusal
        _, refusal = _unpack_peak(_central(data, 16, b"\x00\x00\x00\x00"))
        assert "is damaged or truncated" in refusal and "CRC not matching" in refusal, refusal
        _, refusal = _unpack_peak(_central(data, 24, (len(big) + 1).to_bytes(4, "little")))
        assert "is damaged or truncated (its entry gives 48.9 KiB" in refusal, refusal
    deflate64 = _central(_zip_of(zipfile.ZIP_DEFLATED, TEXT), 10, (9).to_bytes(2, "little"))
    _, refusal = _unpack_peak(deflate64)
    assert "uses compression method 9 (deflate64), which is not read; expected stored, " \
        "deflate, bzip2 or LZMA" in refusal, refusal


def test_an_lzma_header_declaring_a_4_gib_dictionary_is_not_believed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(compressed, "RATIO_FLOOR_BYTES", 1024**2)
    data = bytearray(_zip_of(zipfile.ZIP_LZMA, TEXT + b"0" * (8 * 1024**2)))
    props = data.index(b"\x05\x00", data.index(b"submission.csv") + 14) + 2  # after the size
    data[props + 1:props + 5] = b"\xff\xff\xff\xff"
    peak, refusal = _unpack_peak(bytes(data))
    assert "a decompression bomb?" in refusal, refusal
    assert peak < _held_at_most(len(data)), f"{peak / 1024**2:.1f} MiB held at once"


def test_gzip_is_fed_to_zlib_a_megabyte_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """zlib was handed the whole file, and gave back the rest of it, copied, at every step
    (the whole input held twice, copied again and again); now it reads a megabyte at a time,
    member after member."""
    fed: list[int] = []
    real = compressed._Inflate.decompress

    def counting(self: compressed._Inflate, data: bytes | memoryview, n: int) -> bytes:
        fed.append(len(data))
        return real(self, data, n)

    monkeypatch.setattr(compressed._Inflate, "decompress", counting)
    noise = os.urandom(3 * 1024**2).hex().encode()  # 6 MB that compress about 2-fold
    data = gzip.compress(TEXT) + gzip.compress(noise)
    peak, refusal = _unpack_peak(data, "submission.csv.gz")
    assert refusal == "" and max(fed) <= compressed._CHUNK
    assert len(data) <= sum(fed) <= len(data) + compressed._CHUNK  # the second member's start
    assert peak < 2 * len(noise) + 2 * compressed._CHUNK  # the pieces, then the copy at the end
