"""The one reader of JSON and TOML inputs: every task file, config file, JSONL line, report
read back and model reply goes through here, within bounds.

What it guarantees, whatever the bytes (a task file from a shared catalogue, a line an agent
wrote, a reply a model sent):

* **size**: a file or text over ``max_bytes`` is refused before it is parsed;
* **encoding**: UTF-8, with or without a byte-order mark, and UTF-16 or UTF-32 *with* a
  byte-order mark (Windows editors write those; the mark makes them unambiguous) are decoded;
  anything else is refused naming the file, the byte and its line. UTF-16 without a mark is
  recognised and named as such;
* **depth**: arrays and objects nested more than ``max_depth`` levels are refused (the
  parser's own recursion is caught too, so no input reaches a RecursionError);
* **numbers**: integers of more than ``max_int_digits`` digits are refused (Python's own
  4,300-digit limit used to escape as a bare ValueError), and so are numbers that are not
  finite: ``NaN``, ``Infinity`` and literals beyond the float range such as ``1e400``, which
  Python's parser would read as infinity;
* **errors**: every refusal is one exception of the caller's class (``error=``; a
  :class:`~tambench.errors.TambenchError` subclass) whose message names the source, so a
  command that reads many files reports each bad one and goes on. Nothing malformed escapes
  as an "internal error".
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tambench.errors import MalformedInputError

#: Builds the exception raised for a refused input from its message.
ErrorClass = Callable[[str], Exception]


@dataclass(frozen=True)
class Bounds:
    """Limits of one kind of input."""

    max_bytes: int = 16 * 1024**2
    """Largest input, in bytes (UTF-8 for text given as a string)."""
    max_depth: int | None = 64
    """Deepest nesting of arrays and objects (tables in TOML); None: as deep as the parser
    itself goes (about 1,000 levels), never a RecursionError."""
    max_int_digits: int = 64
    """Longest integer, in decimal digits."""
    finite_floats: bool = True
    """Refuse number literals beyond the float range (``1e400``, read as infinity). False where
    the reader checks values itself and names the offending rows (a submission)."""


#: Task files, importer and protocol inputs, caches: a few KB in practice.
DEFAULT_BOUNDS = Bounds()
#: Settings files.
CONFIG_BOUNDS = Bounds(max_bytes=1024**2, max_depth=16)
#: One line of a JSONL file of submissions (MLE-bench's lines are a few hundred bytes).
LINE_BOUNDS = Bounds(max_bytes=1024**2, max_depth=16)
#: Reports tambench wrote and reads back (a batch of 100k runs is a few hundred MB).
REPORT_BOUNDS = Bounds(max_bytes=2 * 1024**3)

_BOMS = (  # longest first: the UTF-32-LE mark begins with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _size_check(n: int, source: str, bounds: Bounds, error: ErrorClass,
                whole: bool = True) -> None:
    if n > bounds.max_bytes:
        size = f"{n:,} bytes" if whole else "larger than that"
        raise error(f"{source} is over the limit of {bounds.max_bytes:,} bytes for this input "
                    f"({size})")


def decode_text(data: bytes, source: str, error: ErrorClass = MalformedInputError) -> str:
    """Text of ``data``: UTF-8 (a leading byte-order mark dropped), or UTF-16/UTF-32 when a
    byte-order mark says so. Anything else raises ``error`` naming ``source`` and the byte.

    >>> decode_text('{"a": 1}'.encode("utf-16"), "t.json")
    '{"a": 1}'
    >>> decode_text(b'{"a": "\\xe9"}', "t.json")
    Traceback (most recent call last):
    ...
    tambench.errors.MalformedInputError: t.json is not UTF-8 text: byte 0xe9 at offset 7 (line 1) cannot be decoded; save the file as UTF-8
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                name = codec.removesuffix("-sig").upper()
                raise error(f"{source} starts with a {name} byte-order mark but is not "
                            f"{name} text ({exc.reason} at byte {exc.start})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if _looks_like_utf16(data):
            raise error(f"{source} looks like UTF-16 text without a byte-order mark; save it "
                        "as UTF-8") from None
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{source} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset "
                    f"{exc.start} (line {line}) cannot be decoded; save the file as "
                    "UTF-8") from None
    nul = data.find(b"\x00")
    if nul >= 0:  # valid UTF-8, but never part of JSON or TOML text
        if _looks_like_utf16(data):
            raise error(f"{source} looks like UTF-16 text without a byte-order mark; save it "
                        "as UTF-8")
        line = data.count(b"\n", 0, nul) + 1
        raise error(f"{source} holds a NUL byte at offset {nul} (line {line}); it is not a "
                    "text file")
    return text


def _looks_like_utf16(data: bytes) -> bool:
    """Most of the first bytes at even (or odd) offsets are NUL: ASCII text in UTF-16."""
    head = data[:512]
    if len(head) < 4:
        return False
    even, odd = head[0::2].count(0), head[1::2].count(0)
    return max(even, odd) >= 0.4 * (len(head) // 2)


def read_bounded(path: str | os.PathLike[str], bounds: Bounds = DEFAULT_BOUNDS,
                 error: ErrorClass = MalformedInputError, source: str | None = None) -> bytes:
    """The bytes of a file, refused (``error``) past ``bounds.max_bytes`` without reading the
    rest. OSError (missing, unreadable) propagates for the caller to word."""
    with open(path, "rb") as fh:
        data = fh.read(bounds.max_bytes + 1)
    _size_check(len(data), source or str(path), bounds, error, whole=False)
    return data


_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_TO_SQUARE = bytes.maketrans(b"{}", b"[]")
#: Digits -> 9, exponent marks -> e, plus signs kept, anything else -> space.
_NUMBER_SHAPE = bytes(
    ord("9") if chr(b).isdigit() and b < 128 else ord("e") if b in b"eE"
    else b if b == ord("+") else ord(" ") for b in range(256))


def _json_depth_over(data: bytes, limit: int) -> bool:
    """Whether a valid JSON text nests arrays and objects more than ``limit`` deep, without
    recursion or a walk in Python: strings dropped, brackets kept, innermost pairs peeled
    one level per pass (at most ``limit`` passes, each a C-speed scan)."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    brackets = _JSON_STRING.sub(b"", data).translate(_TO_SQUARE, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"")
    return bool(brackets)


def _numbers_at_risk(data: bytes, bounds: Bounds) -> bool:
    """Whether a JSON text may hold an integer over the digit limit or a float beyond its
    range (a run of digits that long, or an exponent of three digits). Digits inside strings
    count too: a hit only means the parsed numbers are then checked one by one."""
    shape = data.translate(_NUMBER_SHAPE)
    if not bounds.finite_floats:
        return b"9" * (bounds.max_int_digits + 1) in shape
    run = b"9" * (min(bounds.max_int_digits, 308) + 1)
    return run in shape or b"e999" in shape or b"e+999" in shape


def _check_numbers(doc: Any, source: str, bounds: Bounds, error: ErrorClass) -> None:
    """Integer length and finite floats of a parsed document, without recursion."""
    max_bits = math.ceil(bounds.max_int_digits * math.log2(10))
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            stack.extend(node.values() if isinstance(node, dict) else node)
        elif isinstance(node, bool | str):
            continue
        elif isinstance(node, int):
            if node.bit_length() >= max_bits - 4 and len(str(abs(node))) > bounds.max_int_digits:
                raise error(f"{source} holds an integer of more than "
                            f"{bounds.max_int_digits} digits")
        elif isinstance(node, float) and bounds.finite_floats and not math.isfinite(node):
            raise error(f"{source} holds a number that is not finite (NaN, Infinity, "
                        "or a literal beyond the float range such as 1e400)")


def _check_depth(doc: Any, source: str, bounds: Bounds, error: ErrorClass) -> None:
    """Nesting of a parsed document (TOML's tables nest without brackets), without recursion."""
    if bounds.max_depth is None:
        return
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= bounds.max_depth:
            raise _too_deep(source, bounds, error)
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


def _too_deep(source: str, bounds: Bounds, error: ErrorClass) -> Exception:
    levels = "about 1,000" if bounds.max_depth is None else str(bounds.max_depth)
    return error(f"{source} is nested too deeply (more than {levels} levels of arrays and "
                 "objects)")


def _huge_int(exc: ValueError, source: str, bounds: Bounds, error: ErrorClass) -> Exception:
    """Python's own integer-length limit, worded with ours."""
    if "integer string conversion" in str(exc):
        return error(f"{source} holds an integer of more than "
                     f"{bounds.max_int_digits} digits")
    return error(f"{source} cannot be read: {exc}")


class _NotFinite(ValueError):
    """NaN or Infinity written as a JSON constant (not JSON, though Python reads it)."""


def _refuse_constant(name: str) -> Any:
    raise _NotFinite(f"{name} is not allowed (only finite numbers)")


def parse_json(text: str | bytes, source: str, *, error: ErrorClass = MalformedInputError,
               bounds: Bounds = DEFAULT_BOUNDS,
               object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """Parse one JSON document within ``bounds`` (see the module docstring); bytes are decoded
    by :func:`decode_text`. Every refusal raises ``error`` naming ``source``.

    >>> parse_json('{"n": [1, 2.5, "x"]}', "reply")
    {'n': [1, 2.5, 'x']}
    >>> parse_json("[" * 100 + "]" * 100, "line 3")
    Traceback (most recent call last):
    ...
    tambench.errors.MalformedInputError: line 3 is nested too deeply (more than 64 levels of arrays and objects)
    """
    if isinstance(text, bytes):
        _size_check(len(text), source, bounds, error)
        text = decode_text(text, source, error)
    elif len(text) > bounds.max_bytes // 4:  # a character is at most four UTF-8 bytes
        _size_check(len(text.encode("utf-8", "surrogatepass")), source, bounds, error)
    try:
        doc = json.loads(text, object_pairs_hook=object_pairs_hook,
                         parse_constant=_refuse_constant)
    except RecursionError:
        raise _too_deep(source, bounds, error) from None
    except json.JSONDecodeError as exc:
        raise error(f"{source} is not valid JSON: line {exc.lineno}, column "
                    f"{exc.colno}: {exc.msg}") from None
    except _NotFinite as exc:
        raise error(f"{source} is not valid JSON: {exc}") from None
    except ValueError as exc:  # Python's 4,300-digit integer limit
        raise _huge_int(exc, source, bounds, error) from None
    data = text.encode("utf-8", "surrogatepass")
    if bounds.max_depth is not None and _json_depth_over(data, bounds.max_depth):
        raise _too_deep(source, bounds, error)
    if _numbers_at_risk(data, bounds):
        _check_numbers(doc, source, bounds, error)
    return doc


def load_json(path: str | os.PathLike[str], *, error: ErrorClass = MalformedInputError,
              bounds: Bounds = DEFAULT_BOUNDS, source: str | None = None) -> Any:
    """Read and parse a JSON file within ``bounds``; ``source`` names it in messages (default:
    the path). OSError (missing, unreadable) propagates for the caller to word."""
    where = source or str(path)
    return parse_json(read_bounded(path, bounds, error, where), where, error=error,
                      bounds=bounds)


def parse_toml(text: str | bytes, source: str, *, error: ErrorClass = MalformedInputError,
               bounds: Bounds = CONFIG_BOUNDS) -> dict[str, Any]:
    """Parse one TOML document within ``bounds``; every refusal raises ``error`` naming
    ``source``.

    >>> parse_toml('executor = "serial"\\nmax_workers = 2\\n', "tambench.toml")
    {'executor': 'serial', 'max_workers': 2}
    """
    if isinstance(text, bytes):
        _size_check(len(text), source, bounds, error)
        text = decode_text(text, source, error)
    else:
        _size_check(len(text.encode("utf-8", "surrogatepass")), source, bounds, error)
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(source, bounds, error) from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{source} is not valid TOML: {exc}") from None
    except ValueError as exc:
        raise _huge_int(exc, source, bounds, error) from None
    _check_depth(doc, source, bounds, error)
    _check_numbers(doc, source, bounds, error)
    return doc


def load_toml(path: str | os.PathLike[str], *, error: ErrorClass = MalformedInputError,
              bounds: Bounds = CONFIG_BOUNDS, source: str | None = None) -> dict[str, Any]:
    """Read and parse a TOML file within ``bounds``; ``source`` names it in messages (default:
    the path). OSError propagates."""
    where = source or str(path)
    return parse_toml(read_bounded(path, bounds, error, where), where, error=error,
                      bounds=bounds)
