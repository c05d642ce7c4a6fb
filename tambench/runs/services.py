"""The harness's services for one run, served outside the sandbox on Unix sockets.

The sandbox has no network of its own; its first process (:mod:`tambench.runs.inside`)
relays 127.0.0.1 ports to these sockets, which are bound into it:

* the validation endpoint (localhost:5000 inside): relayed to the validation server, which
  the harness runs on its own loopback from the task's public files only;
* the proxy to allowed hosts (``--allow-host``; localhost:3128 inside, given to the agent as
  ``HTTP_PROXY``/``HTTPS_PROXY``): ``CONNECT host:port`` opens a tunnel, and a plain request
  in absolute form (``POST http://host/v1/chat/completions``) is forwarded; any other host is
  refused with 403. The ``usage`` fields of OpenAI-compatible JSON responses (and of streamed
  ``data:`` events) that pass through in plain form are added up per model; a tunnel's
  content is encrypted and only its bytes are counted.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tambench.core.bounded import parse_json
from tambench.errors import MalformedInputError

_CHUNK = 65536
#: Bytes of a plain response kept for reading its usage fields.
_KEEP = 16 * 1024 * 1024
_HEADER_MAX = 64 * 1024


class UnixService:
    """Accept connections on a Unix socket; each is handled in its own thread."""

    def __init__(self, path: Path, handle: Callable[[socket.socket], None]) -> None:
        self.path = path
        self._handle = handle
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        path.chmod(0o600)
        self._server.listen(64)
        self._closed = False
        threading.Thread(target=self._accept, name=f"tambench-{path.name}", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with contextlib.suppress(OSError), client:
            self._handle(client)

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        with contextlib.suppress(OSError):
            self.path.unlink()


def copy_stream(src: socket.socket, dst: socket.socket,
                count: Callable[[int], None] | None = None) -> None:
    """Copy ``src`` to ``dst`` until ``src`` ends (or either fails), then end ``dst``'s side.
    (The sandbox's own relay, :mod:`tambench.runs.inside`, has its copy: nothing of tambench
    is mounted there.)"""
    try:
        while data := src.recv(_CHUNK):
            dst.sendall(data)
            if count is not None:
                count(len(data))
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


def pipe_both(a: socket.socket, b: socket.socket, count: Callable[[int], None] | None = None) -> None:
    """Copy both ways until both sides are done."""
    t = threading.Thread(target=copy_stream, args=(b, a, count), daemon=True)
    t.start()
    copy_stream(a, b, count)
    t.join()


def tcp_relay(host: str, port: int) -> Callable[[socket.socket], None]:
    """A handler relaying each connection to ``host:port``."""

    def handle(client: socket.socket) -> None:
        with socket.create_connection((host, port), timeout=30) as upstream:
            upstream.settimeout(None)
            pipe_both(client, upstream)

    return handle


def host_port(text: str, default_port: int) -> tuple[str, int]:
    """``("api.openai.com", 443)`` from ``"api.openai.com"`` or ``"api.openai.com:443"``."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or host.endswith(":"):  # no port, or a bare IPv6 address
        return text.strip().strip("[]").lower(), default_port
    return host.strip("[]").lower(), int(port)


class Usage:
    """Token use read from OpenAI-compatible responses, per model (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_model: dict[str, dict[str, int]] = defaultdict(
            lambda: {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0})
        self.tunnel_bytes = 0
        self.refused: list[str] = []

    def add(self, model: str, usage: dict[str, Any]) -> None:
        with self._lock:
            row = self.by_model[model or "unknown"]
            row["requests"] += 1
            for key in ("prompt_tokens", "completion_tokens"):
                value = usage.get(key)
                if isinstance(value, int) and value >= 0:
                    row[key] += value

    def add_tunnel(self, n: int) -> None:
        with self._lock:
            self.tunnel_bytes += n

    def refuse(self, target: str) -> None:
        with self._lock:
            if len(self.refused) < 100 and target not in self.refused:
                self.refused.append(target)

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            return {"models": {k: dict(v) for k, v in sorted(self.by_model.items())},
                    "tunnel_bytes": self.tunnel_bytes, "refused_hosts": list(self.refused)}


def usage_from_body(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(model, usage) of a JSON response, or of each ``data:`` event of a stream that has one.

    >>> usage_from_body(b'{"model": "m", "usage": {"prompt_tokens": 3, "completion_tokens": 2}}')
    [('m', {'prompt_tokens': 3, 'completion_tokens': 2})]
    """
    docs: list[Any] = []
    text = body.decode("utf-8", "replace").strip()
    if text.startswith("{"):
        with contextlib.suppress(MalformedInputError):
            docs.append(parse_json(text, "a model response"))
    else:
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip().startswith("{"):
                with contextlib.suppress(MalformedInputError):
                    docs.append(parse_json(line[5:], "a model response event"))
    return [(str(d.get("model", "")), d["usage"]) for d in docs
            if isinstance(d, dict) and isinstance(d.get("usage"), dict)]


def read_head(sock: socket.socket) -> tuple[bytes, bytes]:
    """The request head (up to the blank line) and what was read past it."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(_CHUNK)
        if not data:
            raise ConnectionError("closed before the request head ended")
        buf += data
        if len(buf) > _HEADER_MAX:
            raise ConnectionError("request head too long")
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head, rest


class AllowHostProxy:
    """The handler of the proxy socket: only ``allowed`` hosts, usage counted."""

    def __init__(self, allowed: list[str], usage: Usage) -> None:
        self.allowed = {host_port(h, 0) for h in allowed}
        self.usage = usage

    def permits(self, host: str, port: int) -> bool:
        return (host, port) in self.allowed or (host, 0) in self.allowed

    def __call__(self, client: socket.socket) -> None:
        head, rest = read_head(client)
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = (lines[0].split(" ") + ["", ""])[:3]
        if method.upper() == "CONNECT":
            host, port = host_port(target, 443)
        else:
            url = urlsplit(target)
            host, port = (url.hostname or "").lower(), url.port or (443 if url.scheme == "https" else 80)
            if url.scheme != "http":
                client.sendall(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"
                               b"only absolute http:// requests and CONNECT are proxied\n")
                return
        if not self.permits(host, port):
            self.usage.refuse(f"{host}:{port}")
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n"
                           + f"{host}:{port} is not an allowed host of this run\n".encode())
            return
        with socket.create_connection((host, port), timeout=30) as upstream:
            upstream.settimeout(None)
            if method.upper() == "CONNECT":
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    upstream.sendall(rest)
                pipe_both(client, upstream, self.usage.add_tunnel)
                return
            self._forward(client, upstream, lines, rest)

    def _forward(self, client: socket.socket, upstream: socket.socket, lines: list[str],
                 rest: bytes) -> None:
        """One plain request, sent as HTTP/1.0; its response's body is read for usage fields."""
        method, target, _ = lines[0].split(" ", 2)
        url = urlsplit(target)
        path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        upstream.sendall(request_head(method, path, forwarded_headers(lines[1:])) + rest)
        # the rest of the request body, as the client sends it
        sender = threading.Thread(target=copy_stream, args=(client, upstream), daemon=True)
        sender.start()
        relay_response(upstream, client, self.usage)


#: Request headers that concern one hop only; ``accept-encoding`` too, so that responses come
#: uncompressed and their usage fields can be read.
_HOP = ("connection", "proxy-connection", "keep-alive", "proxy-authorization", "te",
        "transfer-encoding", "upgrade", "accept-encoding")


def forwarded_headers(lines: list[str], drop: tuple[str, ...] = ()) -> list[str]:
    """The header lines of a request to pass on: not the hop-by-hop ones nor ``drop``."""
    return [h for h in lines if h.split(":", 1)[0].strip().lower() not in (*_HOP, *drop)]


def request_head(method: str, path: str, headers: list[str]) -> bytes:
    """An HTTP/1.0 request head: the response then ends with the connection (no chunked
    coding to undo)."""
    return (f"{method} {path} HTTP/1.0\r\n".encode("latin-1")
            + "".join(f"{h}\r\n" for h in headers).encode("latin-1")
            + b"Connection: close\r\n\r\n")


def relay_response(upstream: socket.socket, client: socket.socket, usage: Usage) -> None:
    """Pass the response on as it comes (streamed events too), then count its usage fields."""
    kept = bytearray()
    while data := upstream.recv(_CHUNK):
        client.sendall(data)
        if len(kept) < _KEEP:
            kept += data
    _, _, body = bytes(kept).partition(b"\r\n\r\n")
    for model, fields in usage_from_body(body):
        usage.add(model, fields)

