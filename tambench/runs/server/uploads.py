"""An upload, streamed from a multipart form into a private temporary folder, within bounds.

The form is MLE-bench's: the file in the field ``file`` (``curl -F "file=@submission.csv"``),
and optionally the run in the field ``run``. What bounds a request:

* its declared size (``Content-Length``) is checked before a byte of the body is read; with
  ``Expect: 100-continue`` (curl sends it for large files) the client is refused before it
  sends the body;
* the file is written in chunks as they arrive, counted, and refused as soon as the count
  passes the cap: nothing beyond the cap is kept in memory or on disk;
* the whole body must arrive within a deadline (a client sending a byte a second is cut off);
* the file goes into a folder made for the request inside the server's private temporary
  folder (both 0700, the file 0600, created exclusively, links not followed); the caller
  removes the request's folder once the answer is built.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import BodyPartReader
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web import RequestPayloadError

from tambench.runs.server.config import UploadLimits
from tambench.validation.reading.files import COMPRESSED_SUFFIXES
from tambench.validation.reading.text import human_bytes

FILE_FIELD = "file"
RUN_FIELD = "run"
CHUNK_BYTES = 64 * 1024
#: What a client that sent no field ``file`` is told.
USE_FILE = ('send the submission in the field "file" '
            '(curl -X POST -F "file=@submission.csv" URL)')


class UploadRefused(Exception):
    """A request the server does not validate, with the HTTP status and what to tell."""

    def __init__(self, status: int, error: str, details: str) -> None:
        super().__init__(f"{status} {error}: {details}")
        self.status = status
        self.error = error
        self.details = details


@dataclass
class Upload:
    """A received upload."""

    path: Path
    """The file, in the request's private folder."""
    name: str
    """The name the client gave the file (for messages), cut to 200 characters."""
    run: str | None
    """The ``run`` form field, when sent."""


def too_large(limit: int, got: int | None = None) -> UploadRefused:
    """The refusal of an upload over ``limit`` bytes (``got``: its declared size)."""
    size = f"is {human_bytes(got)}" if got is not None else "is larger"
    return UploadRefused(
        413, "submission too large",
        f"the upload {size}; expected at most {human_bytes(limit)} (size cap, checked before "
        "the file is read)")


def check_request_headers(headers: Any, limit: int) -> None:
    """Refuse, before the body is read, a request declared over the cap, or whose body is
    compressed as a whole (``Content-Encoding``): that body would be expanded before it is
    counted, and no client of the form sends one (a compressed submission is a
    ``submission.csv.gz`` file in the form)."""
    check_declared_size(headers, limit)
    encoding = headers.get("Content-Encoding", "").strip().lower()
    if encoding not in ("", "identity"):
        raise UploadRefused(
            415, "unsupported media type",
            f"the request body is compressed (Content-Encoding: {encoding[:40]!r}), which is "
            "not read; send the form uncompressed, with a compressed submission as a file "
            "named .gz or .zip")


def check_declared_size(headers: Any, limit: int) -> None:
    """Refuse a request whose ``Content-Length`` is over the cap (or not a number)."""
    declared = headers.get("Content-Length")
    if declared is None:
        return
    try:
        size = int(declared)
    except ValueError:
        raise UploadRefused(400, "bad request", "Content-Length is not a number") from None
    if size > limit:
        raise too_large(limit, size)


def saved_name(client_name: str, base: str) -> str:
    """What an upload is saved as: ``base`` (``submission.csv``), with the client's ``.gz`` or
    ``.zip`` suffix when it has one; the client's name is never a path.

    >>> saved_name("../../x.csv.gz", "submission.csv"), saved_name("a.zip", "submission.csv")
    ('submission.csv.gz', 'submission.csv.zip')
    """
    lower = client_name.lower()
    return base + next((s for s in COMPRESSED_SUFFIXES if lower.endswith(s)), "")


def request_folder(root: Path) -> Path:
    """A new folder (0700) for one request inside the server's private folder."""
    return Path(tempfile.mkdtemp(prefix="req-", dir=root))


async def receive(request: Any, folder: Path, limits: UploadLimits, cap: int,
                  file_name: str) -> Upload:
    """Read the form of ``request`` into ``folder``, within ``cap`` bytes and the deadline.

    Raises:
        UploadRefused: not a multipart form with a file, too large, too slow, too many fields.
    """
    check_request_headers(request.headers, cap)
    if not request.content_type.startswith("multipart/"):
        raise UploadRefused(400, "bad request", f"expected a multipart/form-data body: {USE_FILE}")
    try:
        async with asyncio.timeout(limits.body_seconds):
            return await _read_form(request, folder, limits, cap, file_name)
    except TimeoutError:
        raise UploadRefused(
            408, "upload too slow",
            f"the upload did not arrive within {limits.body_seconds:g} s") from None
    except (ValueError, AssertionError, RuntimeError) as exc:  # a malformed form
        raise UploadRefused(400, "bad request",
                            f"the multipart form could not be read: {str(exc)[:200]}") from None
    except HttpProcessingError as exc:  # a part's headers: a NUL, a CR LF, a line too long
        raise UploadRefused(400, "bad request",
                            "the multipart form could not be read: a part's headers are "
                            f"malformed ({type(exc).__name__}: {_reason(exc)})") from None
    except RequestPayloadError as exc:  # a body that breaks its own framing
        raise UploadRefused(400, "bad request",
                            f"the request body could not be read: {_reason(exc)}") from None
    except (ConnectionError, asyncio.IncompleteReadError) as exc:  # the client went away
        raise UploadRefused(400, "upload interrupted",
                            f"the connection ended before the form did ({type(exc).__name__})"
                            ) from None


def _reason(exc: Exception) -> str:
    """What aiohttp says of a malformed header or body, on one line, without the client's
    bytes past a short quote."""
    text = " ".join(str(getattr(exc, "message", "") or exc).split())
    return text if len(text) <= 200 else f"{text[:200]}... (+{len(text) - 200} characters)"


async def _read_form(request: Any, folder: Path, limits: UploadLimits, cap: int,
                     file_name: str) -> Upload:
    reader = await request.multipart()
    path: Path | None = None
    name = ""
    run: str | None = None
    received = 0
    others: list[str] = []
    for _ in range(limits.max_parts):
        part = await reader.next()
        if part is None:
            break
        if not isinstance(part, BodyPartReader):  # a multipart inside the form
            raise UploadRefused(400, "bad request", "a form field is itself a multipart body "
                                f"(nested parts are not read): {USE_FILE}")
        if part.name == FILE_FIELD and path is None:
            name = (part.filename or file_name)[:200]
            path = folder / saved_name(name, file_name)
            received += await _save(part, path, cap - received, cap)
        elif part.name == RUN_FIELD and run is None:
            data = await _small_field(part, limits.max_field_bytes)
            received += len(data)
            run = data.decode("utf-8", errors="replace")
        else:
            others.append(repr(part.name[:40]) if part.name else "a part without a name")
            received += len(await _small_field(part, limits.max_field_bytes))
        if received > cap:
            raise too_large(cap)
    else:
        if await reader.next() is not None:
            raise UploadRefused(400, "bad request",
                                f"more than {limits.max_parts} form fields")
    if path is None:
        sent = f" (it holds {', '.join(others[:5])})" if others else ""
        raise UploadRefused(400, "bad request", f"no field \"file\" in the form{sent}: {USE_FILE}")
    return Upload(path=path, name=name, run=run)


async def _save(part: Any, path: Path, room: int, cap: int) -> int:
    """Write a file part to ``path`` chunk by chunk; its size. Refused past ``room`` bytes."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    written = 0
    try:
        while True:
            chunk = await part.read_chunk(CHUNK_BYTES)
            if not chunk:
                break
            written += len(chunk)
            if written > room:
                raise too_large(cap)
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return written


async def _small_field(part: Any, limit: int) -> bytes:
    """A form field other than the file, refused when longer than ``limit`` bytes."""
    data = bytearray()
    while True:
        chunk = await part.read_chunk(CHUNK_BYTES)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > limit:
            hint = "" if part.name == RUN_FIELD else f"; {USE_FILE}"
            raise UploadRefused(400, "bad request",
                                f"form field {str(part.name)[:40]!r} is longer than {limit} "
                                f"bytes{hint}")
