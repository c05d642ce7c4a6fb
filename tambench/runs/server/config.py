"""Where the validation server listens and what it accepts.

It listens on 127.0.0.1 port 5000 (MLE-bench's address) unless told otherwise. An address
that is not a loopback address is refused unless the caller asked for it explicitly (``--host``
on the command line, ``allow_remote=True`` from Python): a setting read from the environment or
a config file cannot open the validator to other machines by itself.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field
from pathlib import Path

from tambench.errors import ConfigError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5000


@dataclass(frozen=True)
class UploadLimits:
    """What one request may cost the server."""

    max_bytes: int | None = None
    """Largest upload (the file part and the other form fields together); None: the task's
    submission size cap (``max(256 MiB, 8 x the public reference)``)."""
    body_seconds: float = 60.0
    """Time allowed for the whole request body to arrive."""
    header_seconds: float = 10.0
    """Time allowed for the request line and headers (and an idle kept-alive connection)."""
    max_parts: int = 8
    """Form fields per request."""
    max_field_bytes: int = 1024
    """Largest form field other than the file (the run name)."""
    workers: int = 2
    """Validations run at once (threads); more wait for one to finish."""
    max_pending: int = 32
    """Requests being received or validated at once; more are answered 503 at once."""
    stop_seconds: float = 2.0
    """Time a stop (SIGTERM, Ctrl-C) gives requests in progress to finish; then an upload
    still arriving is ended and its folder removed (a container stop kills after 10 s)."""


@dataclass(frozen=True)
class ServerConfig:
    """How to run the server."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    allow_remote: bool = False
    """Whether ``host`` may be other than a loopback address (an explicit ``--host``)."""
    runs_dir: Path | None = None
    """Where validations are counted: ``<runs_dir>/<run>/validations.json``; None: not
    written."""
    run: str | None = None
    """The run a request counts for when it names none."""
    tmp_dir: Path | None = None
    """Where the server's private temporary folder is made (default: the system's)."""
    limits: UploadLimits = field(default_factory=UploadLimits)


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` stands for is a loopback address (an empty host, which
    means every interface, is not).

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0"), is_loopback("")
    (True, True, False, False)
    """
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    addresses = {str(info[4][0]) for info in infos}
    return bool(addresses) and all(
        ipaddress.ip_address(a.split("%", 1)[0]).is_loopback for a in addresses)


def check_bind_address(host: str, *, allow_remote: bool, source: str = "") -> None:
    """Refuse an address beyond this machine that was not asked for explicitly.

    Raises:
        ConfigError: ``host`` is not a loopback address and ``allow_remote`` is false.
    """
    if allow_remote or is_loopback(host):
        return
    origin = f" (from {source})" if source else ""
    raise ConfigError(
        f"refusing to listen on {host!r}{origin}: it is not a loopback address, so other "
        "machines could reach the validator; give --host on the command line to serve beyond "
        "this machine"
    )
