"""One registry shape for every extension point: metrics, platforms, split strategies,
protocols, difficulty methods, executors and run sandboxes.

An extension point is one :class:`Registry`. An entry is registered once, under a lower-case
name, either as the object itself or as a lazy ``"package.module:attribute"`` path that is
imported on first use (so that a platform needing a browser costs nothing until it is chosen).
Looking up an unknown name raises the registry's own error, listing the valid names and the
closest one. Every registry is listed by :func:`extension_points`, which the completeness test
walks.

>>> colours = Registry[str]("colour", error=KeyError, listed=False)
>>> colours.register("red", "#f00")
'#f00'
>>> colours["red"], colours.names()
('#f00', ['red'])
>>> colours["rde"]
Traceback (most recent call last):
...
KeyError: "unknown colour 'rde'; did you mean 'red'? valid: red"
"""

from __future__ import annotations

import difflib
import importlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_LAZY_PREFIX = "lazy:"
#: Unknown-name messages list every valid name up to this many.
MAX_LISTED = 15


class Registry(Mapping[str, T], Generic[T]):
    """Names -> entries of one extension point. Read like a mapping; extend with ``register``.

    Args:
        kind: what an entry is, for messages ("metric", "platform", "split strategy").
        error: exception class raised for an unknown name (a TambenchError subclass).
        loaders: modules imported before the first lookup; importing them registers the
            built-in entries (``("tambench.core.metrics.regression", ...)``).
        hint: appended to the unknown-name message, e.g. "`tambench metrics` lists them".
        listed: whether :func:`extension_points` lists this registry (False for examples).
    """

    def __init__(
        self,
        kind: str,
        *,
        error: Callable[[str], Exception],
        loaders: Sequence[str] = (),
        hint: str = "",
        listed: bool = True,
    ) -> None:
        self.kind = kind
        self._error = error
        self._loaders = tuple(loaders)
        self._loaded = not self._loaders
        self._loading = False
        self._lock = threading.RLock()
        self._hint = hint
        self._entries: dict[str, T | str] = {}
        if listed:
            if kind in _REGISTRIES:
                raise ValueError(f"a registry of {kind!r} already exists")
            _REGISTRIES[kind] = self

    # --- registration ------------------------------------------------------------------------

    def register(self, name: str, entry: T) -> T:
        """Register ``entry`` under ``name`` (once); returns the entry, so it can decorate."""
        self._claim(name)
        self._entries[name] = entry
        return entry

    def register_lazy(self, name: str, target: str) -> None:
        """Register ``"package.module:attribute"``, imported when ``name`` is first looked up."""
        if ":" not in target:
            raise ValueError(f"lazy {self.kind} {name!r}: expected 'module:attribute', got {target!r}")
        self._claim(name)
        self._entries[name] = _LAZY_PREFIX + target

    def unregister(self, name: str) -> None:
        """Remove ``name`` (for tests that register throw-away entries); unknown names are
        ignored."""
        self._entries.pop(name, None)

    def _claim(self, name: str) -> None:
        if not name or name != name.strip():
            raise ValueError(f"{self.kind} name {name!r} is empty or has surrounding spaces")
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} registered twice")

    # --- lookup ---------------------------------------------------------------------------------

    def _load(self) -> None:
        # Another thread's first lookup waits until the loaders are imported (a thread pool
        # grading its first runs), instead of seeing an empty registry.
        if self._loaded:
            return
        with self._lock:
            if self._loaded or self._loading:  # done, or this thread is importing them now
                return
            self._loading = True
            try:
                for module in self._loaders:
                    importlib.import_module(module)
            finally:
                self._loading = False
            self._loaded = True

    def __getitem__(self, name: str) -> T:
        """The entry called ``name``; an unknown name raises the registry's error."""
        self._load()
        try:
            entry = self._entries[name]
        except KeyError:
            raise self._error(self.unknown_message(name)) from None
        if isinstance(entry, str) and entry.startswith(_LAZY_PREFIX):
            module, _, attr = entry[len(_LAZY_PREFIX):].partition(":")
            resolved: T = getattr(importlib.import_module(module), attr)
            self._entries[name] = resolved
            return resolved
        return entry  # type: ignore[return-value]

    def get(self, name: str, default: Any = None) -> Any:
        """Mapping's ``get``: the entry, or ``default`` for an unknown name."""
        return self[name] if name in self else default

    def unknown_message(self, name: str) -> str:
        """The message for an unknown ``name``: the closest valid name and every valid one."""
        names = self.names()
        folded = {n.casefold(): n for n in names}  # "RMSE" is closest to "rmse", whatever case
        close = [folded[c] for c in difflib.get_close_matches(
            str(name).casefold(), list(folded), n=1, cutoff=0.6)]
        message = f"unknown {self.kind} {name!r}"
        if close:
            message += f"; did you mean {close[0]!r}?"
        if len(names) <= MAX_LISTED:
            message += f"{'' if close else ';'} valid: {', '.join(names) or '(none)'}"
        else:
            message += f"{'' if close else ';'} {len(names)} are registered"
        return f"{message} ({self._hint})" if self._hint else message

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        self._load()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self._load()
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self)} entries)"


_REGISTRIES: dict[str, Registry[Any]] = {}

#: Modules that create the project's registries; importing them makes every extension point
#: visible to :func:`extension_points`.
REGISTRY_MODULES: tuple[str, ...] = (
    "tambench.core.metrics",
    "tambench.core.llm",
    "tambench.executors",
    "tambench.protocols.base",
    "tambench.acquisition.platforms",
    "tambench.splits.strategies",
    "tambench.splits.transforms",
    "tambench.splits.mlebench_kinds",
    "tambench.validation.answer_formats",
    "tambench.tasks.importers",
    "tambench.difficulty.methods",
    "tambench.runs.sandbox",
)


def extension_points() -> dict[str, Registry[Any]]:
    """Every registry of the project, by kind (imports the modules that define them)."""
    for module in REGISTRY_MODULES:
        importlib.import_module(module)
    return dict(sorted(_REGISTRIES.items()))
