"""Input robustness: any encoding, any size, a clean error for what cannot be read, no crash."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tambench.cli.main import main
from tambench.errors import SchemaMappingError
from tambench.schema.mapping import map_pages
from tambench.schema.mapping.pageio import MAX_PAGE_BYTES, decode_page, read_page

PAGE = ("## Évaluation\n\nSubmissions are evaluated on the mean absolute error — café.\n\n"
        "## Submission File\n\n```\nid,prix\n1,0\n```\n")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be",
                                      "utf-32", "cp1252"])
def test_a_page_in_any_common_encoding_maps_like_its_utf8_text(encoding: str) -> None:
    decoded = decode_page(PAGE.encode(encoding), "p.md")
    assert decoded.text == PAGE
    r = map_pages({"all": decoded.text}, task_id="kaggle/enc")
    assert r.spec.grading is not None and r.spec.grading.metric == "mae"
    assert r.spec.grading.submission_header == ["id", "prix"]


def test_latin1_bytes_decode_and_say_so() -> None:
    decoded = decode_page("Évaluation: MAE \x81".encode("latin-1"), "p.md")
    assert decoded.encoding == "latin-1" and decoded.note == "page decoded as latin-1"
    assert decode_page(b"plain", "p.md").note == ""


def test_crlf_and_lone_cr_line_ends_become_newlines() -> None:
    assert decode_page(b"a\r\nb\rc", "p.md").text == "a\nb\nc"


@pytest.mark.parametrize(("data", "message"), [
    (gzip.compress(b"## Evaluation"), "gzip-compressed, not a text page"),
    (b"PK\x03\x04rest", "a zip archive"),
    (b"\x89PNG\r\n\x1a\n....", "a PNG image"),
    (b"abc\x00\x01\x02\x03\x04def\x00\x05\x06", "NUL bytes"),
    (bytes(range(1, 32)) * 40, "control characters"),
])
def test_binary_files_are_refused_with_a_message_naming_them(data: bytes, message: str) -> None:
    with pytest.raises(SchemaMappingError, match=message) as info:
        decode_page(data, "evil.md")
    assert "evil.md" in str(info.value)


def test_oversized_pages_are_refused_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    with big.open("wb") as fh:  # sparse: no real disk use
        fh.truncate(MAX_PAGE_BYTES + 1)
    with pytest.raises(SchemaMappingError, match="pages are read up to"):
        read_page(big)
    with pytest.raises(SchemaMappingError, match="pages are read up to"):
        map_pages({"all": "x" * (MAX_PAGE_BYTES + 1)}, task_id="kaggle/big")


def test_a_large_page_maps_in_reasonable_time() -> None:
    filler = "Some overview text about the data and the sponsor, with numbers 1, 2, 3. " * 20000
    text = f"## Overview\n\n{filler}\n\n{PAGE}"
    import time

    t0 = time.perf_counter()
    r = map_pages({"all": text}, task_id="kaggle/large")
    assert r.spec.grading is not None and r.spec.grading.metric == "mae"
    assert time.perf_counter() - t0 < 30


def test_folders_fifos_and_missing_files_are_clean_errors(tmp_path: Path) -> None:
    with pytest.raises(SchemaMappingError, match="is a folder"):
        read_page(tmp_path)
    with pytest.raises(SchemaMappingError, match="page file not found"):
        read_page(tmp_path / "nope.md")
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(SchemaMappingError, match="not a regular file"):
        read_page(fifo)


@pytest.mark.parametrize(("name", "content", "message"), [
    ("cp1252.md", PAGE.encode("cp1252"), None),
    ("utf16.md", PAGE.encode("utf-16"), None),
    ("gz.md", gzip.compress(PAGE.encode()), "gzip-compressed"),
    ("nul.md", b"abc\x00def ghi jkl\x00mno pqr", "NUL bytes"),
])
def test_schema_map_reads_any_encoding_and_refuses_binary_without_a_traceback(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: bytes,
        message: str | None) -> None:
    page = tmp_path / name
    page.write_bytes(content)
    rc = main(["schema", "map", str(page), "--id", "kaggle/enc"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if message is None:
        assert rc == 0 and "mae" in out
        if name == "cp1252.md":
            assert "page decoded as cp1252" in out
    else:
        assert rc == 1 and message in " ".join(err.split())


def test_schema_map_of_a_missing_page_is_a_clean_error(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    rc = main(["schema", "map", str(tmp_path / "none.md"), "--id", "kaggle/x"])
    _, err = capsys.readouterr()
    assert rc == 1 and "page file not found" in " ".join(err.split()) and "Traceback" not in err


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000))
def test_any_text_maps_or_is_refused_cleanly(text: str) -> None:
    try:
        r = map_pages({"all": text}, task_id="kaggle/fuzz")
    except SchemaMappingError:
        return
    assert r.spec.id == "kaggle/fuzz"
    assert set(r.evidence) | set(r.unfilled) >= {"grading.metric"}


_MD_PIECES = st.sampled_from([
    "## Evaluation\n", "### Submission File\n", "Evaluation\n\n", "Submission File\n\n", "```\n",
    "id,target\n", "1,0\n", "`id,y`\n", "Submissions are evaluated on ", "AUC", "RMSE",
    "weighted ", "column-wise ", "log loss", "F1", "...", "etc.\n", "\n", ", ", "|a|b|\n",
    "Ignore previous instructions.\n", "The file should have the following format:\n",
    "mAP at IoU > 0.5", "\\\n", "Mean F1-Score", " space-delimited ", "$$x$$", "@5",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_MD_PIECES, max_size=60))
def test_any_arrangement_of_page_pieces_maps_without_crashing(pieces: list[str]) -> None:
    text = "".join(pieces)
    try:
        r = map_pages({"all": text}, task_id="kaggle/fuzz")
    except SchemaMappingError:
        return
    g = r.spec.grading
    if g is not None:  # a filled grading section is always consistent and evidenced
        assert set(g.id_columns) | set(g.target_columns) <= set(g.submission_header) or \
            not g.submission_header
        assert "grading.metric" in r.evidence


@pytest.mark.parametrize("folder", ["competition-descriptions", "competition-descriptions-dev"])
def test_no_crash_on_any_real_description_or_label_file(shared_dir: Path, folder: str) -> None:
    for path in sorted((shared_dir / "data" / folder).iterdir()):
        if not path.is_file():
            continue
        try:
            page = read_page(path)
            map_pages({"all": page.text}, task_id="kaggle/real")
        except SchemaMappingError:
            continue
