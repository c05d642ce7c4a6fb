"""The model gateway (``--model-gateway``): a model API over TLS, served in plain HTTP inside.

The agent's SDK talks plain HTTP to ``http://127.0.0.1:4000/<name>/...`` inside the sandbox;
the sandbox's relay (:mod:`tambench.runs.inside`) passes each connection to a Unix socket, and
the forwarder here, outside, sends the request over TLS (certificates verified with the
system's trust store or certifi's, or the bundle named by ``TAMBENCH_GATEWAY_CA``) to the
gateway's upstream URL and streams the response back, counting its usage fields as the proxy does
(:func:`~tambench.runs.services.relay_response`). A request reaches only the upstream it names:
its path goes under the upstream's base path, its ``Host`` is the upstream's. The agent's own
headers (its ``Authorization`` key) are passed on untouched and never recorded.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import ssl
from collections.abc import Sequence
from urllib.parse import urlsplit

from tambench.errors import ConfigError
from tambench.runs.services import (
    Usage,
    forwarded_headers,
    read_head,
    relay_response,
    request_head,
)

#: The environment variable naming a CA bundle (PEM) to verify upstreams with.
CA_ENV = "TAMBENCH_GATEWAY_CA"
#: Largest request body the gateway reads (a model request with long context fits).
_BODY_MAX = 64 * 1024 * 1024
_HOST = re.compile(r"[a-z0-9.:-]+")
_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")


def parse_gateways(specs: Sequence[str], sandboxed: bool = True) -> tuple[tuple[str, str], ...]:
    """``(name, url)`` of each ``[NAME=]https://host[:port]/base`` (no name: the host's first
    label after ``api.``, e.g. ``openai`` for api.openai.com); a bad one, or any without a
    sandbox to serve it in, is a ConfigError."""
    if specs and not sandboxed:
        raise ConfigError("--model-gateway needs a sandbox (bubblewrap, docker or podman): "
                          "its port is served inside one")
    ca = os.environ.get(CA_ENV)
    if specs and ca and not os.path.isfile(ca):
        raise ConfigError(f"{CA_ENV}={ca!r}: no such CA bundle file")
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, url = spec.partition("=")
        if not sep or "://" in name:
            name, url = "", spec
        parts = urlsplit(url.strip())
        try:
            host_ok = _HOST.fullmatch(parts.hostname or "") is not None and parts.port != 0
        except ValueError:  # a port that is not a number
            host_ok = False
        if parts.scheme != "https" or not host_ok or parts.query or parts.fragment:
            raise ConfigError(f"--model-gateway {spec!r}: give an https:// URL of a model API "
                              "(e.g. https://api.openai.com/v1), no query")
        if parts.username is not None or parts.password is not None:
            raise ConfigError(f"--model-gateway: no credentials in the URL of {parts.hostname} "
                              "(the agent sends its own key)")
        if not name:
            labels = (parts.hostname or "").split(".")
            name = labels[1] if labels[0] == "api" and len(labels) > 2 else labels[0]
        name = name.strip().lower()
        if not _NAME.fullmatch(name) or name in out:
            raise ConfigError(f"--model-gateway: the name {name!r} is not a unique short name "
                              "(a letter, then letters, digits, - and _; give one as NAME=URL)")
        out[name] = url.strip().rstrip("/")
    return tuple(out.items())


def env_name(name: str) -> str:
    """``TAMBENCH_GATEWAY_<NAME>``: the variable giving a gateway's base URL to the agent."""
    return "TAMBENCH_GATEWAY_" + re.sub(r"[^A-Z0-9]", "_", name.upper())


class ModelGateway:
    """The handler of the gateway socket: ``/<name>/<path>`` to ``<upstream>/<path>``."""

    def __init__(self, routes: tuple[tuple[str, str], ...], usage: Usage) -> None:
        self.routes = dict(routes)
        self.usage = usage
        self.context = _tls_context()

    def __call__(self, client: socket.socket) -> None:
        head, body = read_head(client)
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = (lines[0].split(" ") + ["", ""])[:3]
        name, _, tail = target.removeprefix("/").partition("/")
        if not target.startswith("/") or name not in self.routes:
            _reply(client, "404 Not Found", f"no model gateway at {target[:200]!r}; the "
                   f"gateways are /{', /'.join(self.routes)}")
            return
        length = _content_length(lines[1:])
        if length is None or length > _BODY_MAX:
            _reply(client, "411 Length Required", "a request body needs a Content-Length "
                   f"of at most {_BODY_MAX} bytes")
            return
        while len(body) < length and (data := client.recv(65536)):
            body += data
        base = urlsplit(self.routes[name])
        host, port = base.hostname or "", base.port or 443
        headers = forwarded_headers(lines[1:], drop=("host",))
        path = f"{base.path}/{tail}"
        try:
            raw = socket.create_connection((host, port), timeout=30)
        except OSError as exc:  # refused, unknown host
            _reply(client, "502 Bad Gateway", f"cannot reach {base.netloc}: {exc}")
            return
        try:
            upstream = self.context.wrap_socket(raw, server_hostname=host)
        except OSError as exc:  # a certificate not trusted, a failed handshake
            raw.close()
            _reply(client, "502 Bad Gateway", f"cannot reach {base.netloc}: {exc}")
            return
        with upstream:
            upstream.settimeout(None)
            upstream.sendall(request_head(method, path, [f"Host: {base.netloc}", *headers])
                             + body[:length])
            relay_response(upstream, client, self.usage)


def _tls_context() -> ssl.SSLContext:
    """Verifying certificates with ``$TAMBENCH_GATEWAY_CA``, else the system's trust store
    (certifi's where the system has none)."""
    context = ssl.create_default_context(cafile=os.environ.get(CA_ENV) or None)
    if not context.cert_store_stats()["x509_ca"] and not os.environ.get(CA_ENV):
        with contextlib.suppress(ImportError):
            import certifi

            context.load_verify_locations(certifi.where())
    return context


def _content_length(headers: list[str]) -> int | None:
    """The request's Content-Length (0 when absent); None for a chunked or bad one."""
    length = 0
    for line in headers:
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key == "transfer-encoding":
            return None
        if key == "content-length":
            if not value.strip().isdigit():
                return None
            length = int(value.strip())
    return length


def _reply(client: socket.socket, status: str, text: str) -> None:
    client.sendall(f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
                   f"{text}\n".encode())
