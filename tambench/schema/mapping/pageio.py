"""Reading a page file into text the mappers can use: any encoding, bounded size, clean errors.

Pages come from the open web and from other people's repositories: UTF-8 with or without a
byte-order mark, UTF-16, Windows-1252 or Latin-1 bytes, CRLF line ends, sometimes a compressed
or binary file under a ``.md`` name. :func:`decode_page` turns bytes into text or raises
:class:`~tambench.errors.SchemaMappingError` naming the file and the problem; it never lets a
decoding traceback through. The encoding it used is reported, so a mapping result can say
that a page was not UTF-8.
"""

from __future__ import annotations

import codecs
import stat
from dataclasses import dataclass
from pathlib import Path

from tambench.errors import SchemaMappingError

#: Largest page the mappers read, in bytes (and characters, for text handed in directly). Real
#: competition pages are under 200 kB; anything this big is not a description.
MAX_PAGE_BYTES = 8 * 1024 * 1024

#: Share of control characters (other than tab, newline, carriage return, form feed) above
#: which decoded bytes are treated as binary rather than text.
MAX_CONTROL_SHARE = 0.01

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip-compressed"),
    (b"PK\x03\x04", "a zip archive"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"7z\xbc\xaf", "a 7-zip archive"),
    (b"BZh", "bzip2-compressed"),
    (b"\xfd7zXZ", "xz-compressed"),
)
#: Fallbacks for bytes that are not UTF-8, in order; latin-1 decodes any byte.
_FALLBACKS = ("cp1252", "latin-1")
_ALLOWED_CONTROLS = frozenset("\t\n\r\f")


@dataclass(frozen=True)
class DecodedPage:
    """A page's text and how its bytes were read."""

    text: str
    encoding: str
    """The encoding used ("utf-8", "utf-16-le", "cp1252", ...)."""

    @property
    def note(self) -> str:
        """A provenance remark when the page was not plain UTF-8, else ""."""
        return "" if self.encoding == "utf-8" else f"page decoded as {self.encoding}"


def _utf16_without_bom(data: bytes) -> str | None:
    """The UTF-16 codec of BOM-less bytes whose odd or even bytes are mostly NUL."""
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even_nul = sample[0::2].count(0) / len(sample[0::2])
    odd_nul = sample[1::2].count(0) / len(sample[1::2])
    if odd_nul > 0.3 and even_nul < 0.05:
        return "utf-16-le"
    if even_nul > 0.3 and odd_nul < 0.05:
        return "utf-16-be"
    return None


def _choose_codec(data: bytes, name: str) -> tuple[bytes, str]:
    """(bytes without a BOM, codec) for the page, or a clean error for non-text bytes."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom):], codec
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise SchemaMappingError(f"{name} is {what}, not a text page; give its Markdown")
    if b"\x00" in data:
        codec_or_none = _utf16_without_bom(data)
        if codec_or_none is None:
            raise SchemaMappingError(f"{name} holds NUL bytes: a binary file, not a text page")
        return data, codec_or_none
    return data, "utf-8"


def decode_page(data: bytes, name: str = "page") -> DecodedPage:
    """Decode a page's bytes: a byte-order mark wins, then UTF-8, then Windows-1252, then
    Latin-1. Line ends become ``\\n``.

    Raises:
        SchemaMappingError: the page is too large, compressed, binary or not text.

    >>> decode_page("Évaluation: AUC".encode("cp1252")).encoding
    'cp1252'
    >>> decode_page(b"\\xef\\xbb\\xbf## Evaluation\\r\\nRMSE").text
    '## Evaluation\\nRMSE'
    """
    if len(data) > MAX_PAGE_BYTES:
        raise SchemaMappingError(
            f"{name} is {len(data):,} bytes; pages are read up to {MAX_PAGE_BYTES:,} bytes")
    body, codec = _choose_codec(data, name)
    candidates = (codec,) if codec != "utf-8" else ("utf-8", *_FALLBACKS)
    for candidate in candidates:
        try:
            text = body.decode(candidate)
        except UnicodeDecodeError:
            continue
        break
    else:
        raise SchemaMappingError(f"{name} cannot be decoded as {codec}: not a text page")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    check_text(text, name)
    return DecodedPage(text, candidate)


def check_text(text: str, name: str = "page") -> None:
    """Refuse text that is too long or is mostly control characters (binary data).

    Raises:
        SchemaMappingError: naming the page and the problem.
    """
    if len(text) > MAX_PAGE_BYTES:
        raise SchemaMappingError(
            f"{name} has {len(text):,} characters; pages are read up to {MAX_PAGE_BYTES:,}")
    sample = text[:65536]
    controls = sum(1 for ch in sample if ch < " " and ch not in _ALLOWED_CONTROLS)
    if sample and controls / len(sample) > MAX_CONTROL_SHARE:
        raise SchemaMappingError(f"{name} is mostly control characters: binary data, not a "
                                 "text page")


def read_page(path: Path) -> DecodedPage:
    """Read and decode one page file.

    Raises:
        SchemaMappingError: the file is missing, unreadable, too large or not text.
    """
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise SchemaMappingError(f"{path} is a folder, not a page file")
        if not stat.S_ISREG(st.st_mode):
            raise SchemaMappingError(f"{path} is not a regular file (a pipe or device?)")
        size = st.st_size
        if size > MAX_PAGE_BYTES:
            raise SchemaMappingError(
                f"{path} is {size:,} bytes; pages are read up to {MAX_PAGE_BYTES:,} bytes")
        data = path.read_bytes()
    except FileNotFoundError:
        raise SchemaMappingError(f"page file not found: {path}") from None
    except IsADirectoryError:
        raise SchemaMappingError(f"{path} is a folder, not a page file") from None
    except PermissionError:
        raise SchemaMappingError(f"page file {path} cannot be read (permission denied)") \
            from None
    return decode_page(data, str(path))
