"""A local forward proxy that enforces a URL policy on every request of a browser.

Chromium is pointed at it (``--proxy-server``, with ``<-loopback>`` in the bypass list so that
loopback goes through it too), so every request, every redirect hop and every subresource is
checked against the full :class:`~tambench.acquisition.urls.UrlPolicy` (scheme, host and port)
here; a refused one gets a 403 without any connection to its target. Page-level request
routing cannot do this alone: the browser follows redirects without asking it again.

Requests are forwarded as they came: method, headers, cookies and body unchanged, except the
hop-by-hop headers a proxy must drop (``Proxy-Connection``, ``Keep-Alive``, ``Connection``,
replaced by ``Connection: close``: one request per upstream connection). Answers come back
byte for byte, ``Set-Cookie`` included. ``CONNECT`` tunnels are opened only to allowed https
origins. A plain-HTTP answer larger than ``max_bytes``, or shorter than its declared length,
is recorded (:attr:`PolicyProxy.oversize`, :attr:`PolicyProxy.truncated`) for the fetcher to
report.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

from tambench.acquisition.urls import UrlPolicy
from tambench.errors import OffDomainError

_MAX_HEAD = 64 * 1024
_HOP_BY_HOP = ("proxy-connection:", "connection:", "keep-alive:", "proxy-authorization:")
#: A tunnel carries many answers (keep-alive), so its cap is this many times ``max_bytes``.
TUNNEL_FACTOR = 20


class PolicyProxy:
    """An HTTP proxy on 127.0.0.1 that forwards only what ``policy`` allows.

    ``policy`` may be replaced between pages; ``None`` refuses everything.
    """

    def __init__(self, policy: UrlPolicy | None, *, max_bytes: int = 0,
                 connect_timeout: float = 15.0) -> None:
        self.policy = policy
        self.max_bytes = max_bytes
        self.connect_timeout = connect_timeout
        self.refused: list[str] = []
        self.refusals: dict[str, str] = {}
        """URL -> why it was refused."""
        self.forwarded: list[str] = []
        self.oversize: list[str] = []
        self.truncated: list[str] = []
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    async def start(self) -> PolicyProxy:
        """Listen on a free port of 127.0.0.1."""
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def stop(self) -> None:
        """Stop listening and drop every connection still open."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def clear(self) -> None:
        """Forget what earlier pages recorded."""
        self.refused.clear()
        self.refusals.clear()
        self.forwarded.clear()
        self.oversize.clear()
        self.truncated.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            if len(head) <= _MAX_HEAD:
                await self._serve(head, reader, writer)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError,
                TimeoutError, OSError):
            pass
        finally:
            writer.close()
            if task is not None:
                self._tasks.discard(task)

    def _check(self, url: str) -> bool:
        try:
            if self.policy is None:
                raise OffDomainError(f"refused {url[:120]!r}: no page is being fetched")
            self.policy.check(url)
        except OffDomainError as exc:
            self.refused.append(url)
            self.refusals[url] = str(exc)
            return False
        self.forwarded.append(url)
        return True

    async def _serve(self, head: bytes, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        lines = head.decode("latin-1").split("\r\n")
        method, _, rest = lines[0].partition(" ")
        target, _, version = rest.rpartition(" ")
        tunnel = method.upper() == "CONNECT"
        url = f"https://{target}/" if tunnel else target
        if not self._check(url):
            writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close"
                         b"\r\n\r\n")
            await writer.drain()
            return
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        up_reader, up_writer = await asyncio.wait_for(
            asyncio.open_connection(parts.hostname or "", port), self.connect_timeout)
        try:
            if tunnel:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await writer.drain()
                cap = self.max_bytes * TUNNEL_FACTOR
                await asyncio.gather(_pipe(reader, up_writer, 0, None),
                                     _pipe(up_reader, writer, cap, lambda: self._over(url)))
                return
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            headers = [ln for ln in lines[1:] if ln and not ln.lower().startswith(_HOP_BY_HOP)]
            up_writer.write("\r\n".join([f"{method} {path} {version}", *headers,
                                         "Connection: close", "", ""]).encode("latin-1"))
            await _send_body(lines, reader, up_writer)
            await self._relay_answer(url, up_reader, writer, head_only=method.upper() == "HEAD")
        finally:
            up_writer.close()

    def _over(self, url: str) -> None:
        self.oversize.append(url)

    async def _relay_answer(self, url: str, up: asyncio.StreamReader,
                            writer: asyncio.StreamWriter, *, head_only: bool) -> None:
        head = await up.readuntil(b"\r\n\r\n")
        writer.write(head)
        lines = head.decode("latin-1").split("\r\n")
        status = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else ""
        bodiless = head_only or status in ("204", "304") or status.startswith("1")
        declared = None if bodiless else _content_length(lines)
        cap = self.max_bytes
        sent = 0
        while True:
            chunk = await up.read(65536)
            if not chunk:
                break
            sent += len(chunk)
            if cap and sent > cap:
                self.oversize.append(url)
                return
            writer.write(chunk)
            await writer.drain()
        if declared is not None and sent < declared:
            self.truncated.append(url)
        await writer.drain()


def _content_length(lines: list[str]) -> int | None:
    for ln in lines[1:]:
        name, _, value = ln.partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdigit():
            return int(value.strip())
    return None


async def _send_body(lines: list[str], reader: asyncio.StreamReader,
                     up: asyncio.StreamWriter) -> None:
    """Forward the request body exactly: by Content-Length, or chunk by chunk."""
    length = _content_length(lines)
    chunked = any(ln.lower().startswith("transfer-encoding:") and "chunked" in ln.lower()
                  for ln in lines[1:])
    if length:
        up.write(await reader.readexactly(length))
    elif chunked:
        while True:
            size_line = await reader.readuntil(b"\r\n")
            up.write(size_line)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                up.write(await reader.readuntil(b"\r\n"))  # the blank line ending the trailers
                break
            up.write(await reader.readexactly(size + 2))
    await up.drain()


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, cap: int,
                over: object) -> None:
    sent = 0
    try:
        while True:
            chunk = await src.read(65536)
            if not chunk:
                break
            sent += len(chunk)
            if cap and sent > cap:
                if callable(over):
                    over()
                break
            dst.write(chunk)
            await dst.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            if dst.can_write_eof():
                dst.write_eof()


@contextlib.asynccontextmanager
async def policy_proxy(policy: UrlPolicy | None, *, max_bytes: int = 0
                       ) -> AsyncIterator[PolicyProxy]:
    """``async with policy_proxy(policy) as proxy:`` a running :class:`PolicyProxy`."""
    proxy = await PolicyProxy(policy, max_bytes=max_bytes).start()
    try:
        yield proxy
    finally:
        await proxy.stop()
