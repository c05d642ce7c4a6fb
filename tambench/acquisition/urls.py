"""Which URLs a crawl may touch: one allow-list of origins per adapter, checked at every hop.

Every request the crawler makes (the page itself, each redirect hop, a meta refresh, the
scripts and XHR calls of a rendered page, robots.txt) passes :meth:`UrlPolicy.check` first.
Refused: schemes other than http/https (``file:``, ``data:``, ``javascript:`` ...), hosts not
on the allow-list, and any address in a private, link-local, multicast, reserved or
unspecified range. Loopback (127.0.0.0/8, ::1, ``localhost``) passes only when the policy was
built from a loopback base URL (the local competition site or a mirror on this machine).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from tambench.acquisition.retry import unreachable_message
from tambench.errors import OffDomainError, UnreachableHostError

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


def origin_of(url: str) -> str:
    """``scheme://host:port`` of a URL, with the default port made explicit.

    >>> origin_of("https://www.kaggle.com/competitions/x")
    'https://www.kaggle.com:443'
    >>> origin_of("http://127.0.0.1:8000/a?b=1")
    'http://127.0.0.1:8000'
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme, 0)
    except ValueError:
        raise OffDomainError(f"URL {url!r} has an invalid port") from None
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    return f"{scheme}://{host}:{port}"


def _ip_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _is_forbidden_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why an address is refused (None when it is a public unicast address)."""
    if ip.is_loopback:
        return "loopback"
    for name in ("is_link_local", "is_private", "is_multicast", "is_reserved", "is_unspecified"):
        if getattr(ip, name):
            return name.removeprefix("is_").replace("_", "-")
    return None


def is_loopback_url(url: str) -> bool:
    """Whether a URL names this machine (127.0.0.0/8, ::1 or localhost).

    >>> is_loopback_url("http://127.0.0.1:9000/"), is_loopback_url("https://kaggle.com/")
    (True, False)
    """
    host = (urlsplit(url).hostname or "").lower()
    if host in _LOOPBACK_NAMES:
        return True
    ip = _ip_of(host)
    return ip is not None and ip.is_loopback


@dataclass(frozen=True)
class UrlPolicy:
    """The origins a crawl may reach.

    Attributes:
        origins: allowed ``scheme://host:port`` strings (see :func:`origin_of`).
        allow_loopback: whether loopback addresses pass (only for a loopback base URL).
        resolve: whether host names are resolved and their addresses checked too (a
            public name that resolves into a private range is refused).
    """

    origins: frozenset[str]
    allow_loopback: bool = False
    resolve: bool = True
    refused: list[str] = field(default_factory=list, compare=False, hash=False)

    @classmethod
    def from_base_urls(cls, *base_urls: str, extra_hosts: tuple[str, ...] = ()) -> UrlPolicy:
        """A policy allowing the origins of ``base_urls`` (plus ``extra_hosts`` on https).

        Loopback is allowed exactly when every base URL is a loopback URL.
        """
        if not base_urls:
            raise OffDomainError("a URL policy needs at least one base URL")
        origins = {origin_of(u) for u in base_urls}
        origins |= {origin_of(f"https://{h}/") for h in extra_hosts}
        loop = all(is_loopback_url(u) for u in base_urls)
        return cls(origins=frozenset(origins), allow_loopback=loop, resolve=not loop)

    def check(self, url: str, *, referrer: str = "") -> str:
        """Return ``url`` if it may be fetched, else raise :class:`OffDomainError`.

        ``referrer`` (the page or hop that led here) is only used in the message.
        """
        via = f" (reached from {referrer})" if referrer else ""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS:
            self._refuse(url)
            raise OffDomainError(f"refused {url[:120]!r}{via}: scheme {scheme or '(none)'!r} "
                                 "is not http or https")
        host = (parts.hostname or "").lower()
        if not host:
            self._refuse(url)
            raise OffDomainError(f"refused {url[:120]!r}{via}: no host")
        origin = origin_of(url)
        if origin not in self.origins:
            self._refuse(url)
            raise OffDomainError(
                f"refused {url[:120]!r}{via}: origin {origin} is not on the allow-list "
                f"{sorted(self.origins)}"
            )
        ip = _ip_of(host)
        if ip is None and host in _LOOPBACK_NAMES:
            ip = ipaddress.ip_address("127.0.0.1")
        if ip is not None:
            self._check_ip(url, ip, via)
        elif self.resolve:
            for addr in _resolve(host):
                self._check_ip(url, addr, via)
        return url

    def check_redirect(self, from_url: str, location: str) -> str:
        """Resolve a redirect's ``Location`` against ``from_url`` and check the target."""
        target = urljoin(from_url, location)
        return self.check(target, referrer=from_url)

    def _check_ip(
        self, url: str, ip: ipaddress.IPv4Address | ipaddress.IPv6Address, via: str
    ) -> None:
        why = _is_forbidden_ip(ip)
        if why is None or (why == "loopback" and self.allow_loopback):
            return
        self._refuse(url)
        raise OffDomainError(f"refused {url[:120]!r}{via}: address {ip} is {why}")

    def _refuse(self, url: str) -> None:
        self.refused.append(url[:500])


def _resolve(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        infos = socket.getaddrinfo(host, None)
    except socket.gaierror as exc:  # no network, or no such host: not a policy refusal
        raise UnreachableHostError(f"{unreachable_message(host)} ({exc})") from None
    out = []
    for info in infos:
        ip = _ip_of(str(info[4][0]))
        if ip is not None:
            out.append(ip)
    return out
