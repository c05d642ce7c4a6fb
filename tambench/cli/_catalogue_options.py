"""Options the catalogue commands share: the catalogue folder, a date, and a collection by
name."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import typer


def parse_day(text: str | None, option: str) -> date | None:
    """``text`` as a date, or a usage error naming the option (None stays None)."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"expected a date YYYY-MM-DD, got {text!r}",
                                 param_hint=option) from None


def collection_option_ids(root: Path, name: str | None) -> set[str] | None:
    """The members of ``--collection NAME`` (None: every entry); an unknown name is a usage
    error listing the catalogue's collections."""
    from tambench.errors import SubsetError
    from tambench.tasks.collections import collection_ids

    try:
        return collection_ids(root, name)
    except SubsetError as exc:
        raise typer.BadParameter(str(exc), param_hint="--collection") from None


def catalogue_root(catalogue: Path | None) -> Path:
    """``--catalogue``, else the configured catalogue."""
    from tambench.config import load_settings

    return load_settings(catalogue=catalogue).catalogue


def import_catalogue(catalogue: Path | None) -> Path:
    """Where an import writes: ``--catalogue``, else the configured catalogue, but never the
    installed package's own catalogue by default."""
    from tambench.config import bundled_catalogue

    root = catalogue_root(catalogue)
    if catalogue is None and root.resolve() == bundled_catalogue().resolve():
        raise typer.BadParameter(
            "give the catalogue to import into (--catalogue DIR, or `catalogue` in the "
            "config): an import never writes into the installed package's catalogue by default",
            param_hint="--catalogue")
    return root
