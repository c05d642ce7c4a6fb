"""The protocol registry: one entry shape for every sibling benchmark's scoring rules.

A protocol module defines ``PROTOCOL``, a :class:`SiblingProtocol` naming the benchmark, its
entry point (the function that scores what the benchmark produces), the registered metrics it
scores with and its user documentation; :data:`PROTOCOLS` lists them lazily, so a module is
imported only when its protocol is looked up. ``tambench protocol list`` prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tambench.core.registry import Registry
from tambench.errors import ProtocolError


@dataclass(frozen=True)
class SiblingProtocol:
    """One sibling benchmark's scoring rules."""

    name: str
    """Registry name and CLI subcommand, e.g. ``"mlalgo"``."""
    title: str
    """The benchmark's own name, e.g. ``"MLAlgo-Bench"``."""
    summary: str
    """One line: what is scored and how."""
    evaluate: Callable[..., Any]
    """The entry point scoring what the benchmark produces (a run, a results table, a folder)."""
    inputs: str
    """What :attr:`evaluate` takes, for ``tambench protocol list``."""
    doc: str
    """The user documentation, relative to the repository (``docs/protocols/<name>.md``)."""
    metrics: tuple[str, ...] = field(default=())
    """Registered metric ids the protocol scores with (``tambench metrics`` lists them)."""


#: Every protocol by name; entries are ``<module>:PROTOCOL``, imported on first lookup.
PROTOCOLS: Registry[SiblingProtocol] = Registry(
    "protocol", error=ProtocolError, hint="`tambench protocol list` lists them",
)
for _name in ("kagglebench", "mlagentbench", "mlalgo"):
    PROTOCOLS.register_lazy(_name, f"tambench.protocols.{_name}:PROTOCOL")


def get_protocol(name: str) -> SiblingProtocol:
    """Look a protocol up by name; an unknown name lists the valid ones.

    >>> get_protocol("mlalgo").title
    'MLAlgo-Bench'
    """
    return PROTOCOLS[name]
