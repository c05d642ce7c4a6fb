"""Lazy imports of optional packages, failing with the exact install line."""

from __future__ import annotations

import importlib
from types import ModuleType

from tambench.errors import MissingDependencyError

#: Which extra provides each optional top-level module.
EXTRA_FOR_MODULE: dict[str, str] = {
    "playwright": "browser",
    "browser_use": "browser",
    "bs4": "browser",
    "lxml": "browser",
    "markdownify": "browser",
    "trafilatura": "browser",
    "langchain": "llm",
    "langchain_core": "llm",
    "langchain_openai": "llm",
    "openai": "llm",
    "kaggle": "kaggle",
    "kagglesdk": "kaggle",
    "py7zr": "kaggle",
    "PIL": "images",
    "ray": "ray",
    "aiohttp": "server",
    "pandas": "mlebench",
    "bson": "mlebench",
    "google_crc32c": "mlebench",
    "fastparquet": "mlebench",
}


def install_hint(extra: str) -> str:
    """The pip command that installs an extra, e.g. ``pip install 'tambench[browser]'``."""
    return f"pip install 'tambench[{extra}]'"


def require(module: str, *, extra: str | None = None, feature: str | None = None) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra to install.

    >>> require("json").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = extra or EXTRA_FOR_MODULE.get(top)
        what = f" for {feature}" if feature else ""
        hint = f"; install it with: {install_hint(extra)}" if extra else ""
        raise MissingDependencyError(
            f"the optional package {top!r} is needed{what} but is not installed{hint}"
        ) from exc
