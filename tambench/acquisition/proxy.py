"""A local forward proxy that enforces a URL policy on every request of a browser.

The browser agent drives its own Chromium over CDP, so the request interception of
:mod:`~tambench.acquisition.fetch` does not reach it, and browser-use's own allow-list
matches host names only (not ports). Chromium is therefore started with
``--proxy-server=<this proxy>`` and ``--proxy-bypass-list=<-loopback>`` (so loopback goes
through it too): every request, redirect hop and subresource is checked against the full
:class:`~tambench.acquisition.urls.UrlPolicy` (scheme, host and port) here, and refused ones
get a 403 without any connection to their target.

Plain HTTP requests are forwarded one per connection (``Connection: close``); ``CONNECT``
tunnels are opened only to allowed https origins.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

from tambench.acquisition.urls import UrlPolicy
from tambench.errors import OffDomainError

_MAX_HEAD = 64 * 1024


class PolicyProxy:
    """An HTTP proxy on 127.0.0.1 that forwards only what ``policy`` allows."""

    def __init__(self, policy: UrlPolicy) -> None:
        self.policy = policy
        self.refused: list[str] = []
        self.forwarded: list[str] = []
        self._server: asyncio.AbstractServer | None = None
        self.port = 0

    async def start(self) -> PolicyProxy:
        """Listen on a free port of 127.0.0.1."""
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):  # noqa: BLE001 - best-effort shutdown
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            writer.close()
            return
        try:
            await self._serve(head, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            with contextlib.suppress(Exception):  # noqa: BLE001 - the peer may be gone already
                writer.close()

    async def _serve(self, head: bytes, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        lines = head.decode("latin-1").split("\r\n")
        method, _, rest = lines[0].partition(" ")
        target, _, version = rest.rpartition(" ")
        if method.upper() == "CONNECT":
            url = f"https://{target}/"
        else:
            url = target
        try:
            self.policy.check(url)
        except OffDomainError:
            self.refused.append(url)
            writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close"
                         b"\r\n\r\n")
            await writer.drain()
            return
        self.forwarded.append(url)
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(host, port), 15)
        try:
            if method.upper() == "CONNECT":
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await writer.drain()
            else:
                path = parts.path or "/"
                if parts.query:
                    path += "?" + parts.query
                headers = [ln for ln in lines[1:] if ln and not ln.lower().startswith(
                    ("proxy-connection:", "connection:", "keep-alive:"))]
                new_head = "\r\n".join([f"{method} {path} {version}", *headers,
                                        "Connection: close", "", ""])
                up_writer.write(new_head.encode("latin-1"))
                await up_writer.drain()
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            with contextlib.suppress(Exception):  # noqa: BLE001 - best-effort close
                up_writer.close()


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while True:
            chunk = await src.read(65536)
            if not chunk:
                break
            dst.write(chunk)
            await dst.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):  # noqa: BLE001 - the other side may be closed
            if dst.can_write_eof():
                dst.write_eof()


@contextlib.asynccontextmanager
async def policy_proxy(policy: UrlPolicy) -> AsyncIterator[PolicyProxy]:
    """``async with policy_proxy(policy) as proxy:`` a running :class:`PolicyProxy`."""
    proxy = await PolicyProxy(policy).start()
    try:
        yield proxy
    finally:
        await proxy.stop()
