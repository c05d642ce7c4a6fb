"""A text file's bytes and a CSV's layout, checked with precise messages, on files opened by
:mod:`.files`.

Everything here works on raw bytes before a parser sees them, so that a hostile or broken file
gets a message naming the problem (``line 1: ...``) instead of a parser's exception:

* :func:`check_encoding_head` recognises compressed files, archives and byte-order marks of
  encodings other than UTF-8; :func:`find_nul_lines` and :func:`invalid_utf8_lines` name the
  lines holding binary or non-UTF-8 bytes; :func:`decode_text_file` decodes a whole text (JSON
  or line) file after those checks.
* :func:`sniff_csv` runs the same byte checks, then reads the header line (encoding, ``sep=``
  preamble, ``#`` comments, quoting, delimiter, column cap) and whether data rows exist. The
  body is read by :mod:`.csvbody`.

Problems are raised as the error class the caller chooses: :class:`InvalidSubmissionError` for
submissions, :class:`TaskDataError` for our own answers files.
"""

from __future__ import annotations

import codecs
import csv
import mmap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from tambench.validation.reading.files import (
    COMPRESSED_FORMS,
    ErrorFactory,
    RawFile,
    submission_error,
)
from tambench.validation.reading.limits import DEFAULT_MAX_COLUMNS
from tambench.validation.reading.text import (
    MAX_EXAMPLES,
    clip,
    echo,
    echo_list,
    human_bytes,
)

#: The header line must end within this many bytes.
MAX_HEADER_BYTES = 4 * 1024**2
#: Bytes per step of the NUL scan (bounds the scan's temporary).
_NUL_SCAN_BYTES = 1 << 26
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
_KAGGLE_SUFFIXES = {magic: suffix for suffix, magics in COMPRESSED_FORMS.items()
                    for magic in magics}
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian BOM)"),
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian BOM)"),
    (b"\xfe\xff", "UTF-16 (big-endian BOM)"),
    (b"\xff\xfe", "UTF-16 (little-endian BOM)"),
)
UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class CsvLayout:
    """What sniffing learnt about a CSV file."""

    header: list[str]
    """Column names exactly as written (quotes removed)."""
    body_start: int
    """Byte offset of the first data line."""
    header_start: int
    """Byte offset of the header line (after a UTF-8 BOM, if any)."""
    has_data: bool
    """Whether any non-blank byte follows the header."""


@contextmanager
def _csv_field_limit(limit: int) -> Iterator[None]:
    """Python's csv module with its field limit set to ours (its default, 128 KiB, is not a
    limit of this reader), restored after."""
    before = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(before)


def _parse_header_line(text: str) -> list[str] | None:
    with _csv_field_limit(MAX_HEADER_BYTES):
        rows = list(csv.reader([text], strict=True))
    return rows[0] if len(rows) == 1 else None


def sniff_csv(
    raw: RawFile,
    expected: Sequence[str],
    *,
    max_columns: int = DEFAULT_MAX_COLUMNS,
    what: str = "submission",
    error: ErrorFactory = submission_error,
) -> CsvLayout:
    """Check a CSV file's bytes and header line; raise with every format problem found.

    Args:
        raw: the mapped file.
        expected: the expected header, used to recognise a wrong delimiter or a missing header.
        max_columns: column cap applied to the header before anything is parsed.
        what: "submission" or "answers", for messages.
        error: builds the exception raised.
    """
    start = _check_bytes(raw, what, error)
    nl, header_text = _header_line(raw, start, error)
    _check_preamble(header_text, expected, error)
    header = _parse_header(header_text, expected, max_columns, error)
    return CsvLayout(header=header, body_start=min(nl + 1, raw.size), header_start=start,
                     has_data=_has_data(raw, nl))


def _check_bytes(raw: RawFile, what: str, error: ErrorFactory,
                 expected: str = "; expected a header and data rows") -> int:
    """Emptiness, compression, encoding and NUL bytes; return where the text starts (after a
    UTF-8 byte-order mark). ``expected`` ends the message of an empty file."""
    if raw.size == 0:
        raise error([f"{what} file is empty (0 bytes){expected}"])
    start, problems = check_encoding_head(raw, what=what)
    if problems:
        raise error(problems)
    n_nul, nul_lines = find_nul_lines(raw, start)
    if n_nul:
        raise error([
            f"{what} file contains NUL bytes (binary data?) on line(s) {nul_lines}; expected "
            "plain UTF-8 text"
        ])
    return start


def _header_line(raw: RawFile, start: int, error: ErrorFactory) -> tuple[int, str]:
    """(offset of the header's line feed, or the file size; the header line as text)."""
    nl = raw.data.find(b"\n", start, start + MAX_HEADER_BYTES + 1)
    if nl == -1:
        if raw.size - start > MAX_HEADER_BYTES:
            raise error([
                f"line 1: the header line is longer than {human_bytes(MAX_HEADER_BYTES)}; "
                "expected a short header row"
            ])
        nl = raw.size
    header_bytes = bytes(raw.data[start:nl]).rstrip(b"\r")
    try:
        return nl, header_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = header_bytes[exc.start : exc.start + 1].hex()
        raise error([
            f"line 1: byte 0x{bad} at position {exc.start + 1} is not valid UTF-8 "
            "(latin-1/cp1252 text?); expected UTF-8"
        ]) from None


def _check_preamble(header_text: str, expected: Sequence[str], error: ErrorFactory) -> None:
    """Refuse a ``sep=`` line, a comment or a blank line where the header should be."""
    stripped = header_text.strip()
    if stripped.lower().startswith("sep="):
        raise error([
            f"line 1: a `{clip(stripped)}` preamble line (a spreadsheet hint); expected the header "
            f"{echo_list(expected)} on line 1"
        ])
    if stripped.startswith("#"):
        raise error([
            f"line 1: a comment line starting with `#`; expected the header {echo_list(expected)} "
            "on line 1 (comments are not allowed)"
        ])
    if not stripped:
        raise error([f"line 1 is blank; expected the header {echo_list(expected)} on line 1"])


def _parse_header(
    header_text: str, expected: Sequence[str], max_columns: int, error: ErrorFactory
) -> list[str]:
    """The header's column names, after the column cap, quoting and delimiter checks."""
    n_fields_guess = header_text.count(",") + 1
    if n_fields_guess > max_columns:
        raise error([
            f"header has {n_fields_guess} columns; expected at most {max_columns} (column cap, "
            f"checked before parsing; expected columns {echo_list(expected, MAX_EXAMPLES)})"
        ])
    if header_text.count('"') % 2:
        raise error([
            "line 1: the header has an unterminated quote (or a quoted line break); expected "
            f"the header {echo_list(expected)} on one line"
        ])
    try:
        header = _parse_header_line(header_text)
    except csv.Error as exc:
        raise error([f"line 1: the header cannot be parsed as CSV ({exc})"]) from None
    if header is None:
        raise error([f"line 1: the header cannot be parsed as CSV; expected {echo_list(expected)}"])
    if len(expected) > 1 and len(header) == 1:
        for delim, name in ((";", "`;`"), ("\t", "tab"), ("|", "`|`")):
            if delim in header_text and len(header_text.split(delim)) > 1:
                raise error([
                    f"wrong delimiter: expected `,`, got {name} (line 1 is {echo(header_text)}); "
                    f"expected header {echo_list(expected)}"
                ])
    return header


def _has_data(raw: RawFile, nl: int) -> bool:
    """Whether any non-blank byte follows the header line."""
    rest = raw.data[nl + 1 : nl + 1 + 65536] if nl < raw.size else b""
    return bool(bytes(rest).strip()) or (
        nl + 1 + 65536 < raw.size  # a long body is certainly not blank
    )


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
    start = _check_bytes(raw, what, error, expected="")
    try:
        return codecs.decode(bytes(raw.data[start:]), "utf-8")
    except UnicodeDecodeError:
        raise error(invalid_utf8_lines(raw.data, start)) from None


def first_positions(header: list[str]) -> dict[str, int]:
    """Each column name's first position in a header (a repeated name is found at its first)."""
    pos: dict[str, int] = {}
    for i, name in enumerate(header):
        pos.setdefault(name, i)
    return pos
