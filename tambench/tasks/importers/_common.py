"""Helpers shared by the importers (file reading with clear errors)."""

from __future__ import annotations

from pathlib import Path

from tambench.core.leaderboard import Leaderboard, read_leaderboard
from tambench.errors import ImportLayoutError, LeaderboardError

LFS_POINTER_PREFIX = "version https://git-lfs.github.com/spec/"


def read_text(path: Path) -> str:
    """A UTF-8 text file of the imported tree (BOM removed)."""
    if path.is_symlink() or not path.is_file():
        raise ImportLayoutError(f"{path} is not a regular file")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportLayoutError(f"{path} is not UTF-8 text: {exc}") from exc


def read_optional_leaderboard(path: Path) -> tuple[Leaderboard | None, str | None]:
    """The leaderboard at ``path`` if there is one; else (None, why not).

    A Git LFS pointer (a clone made without ``git lfs pull``) is reported, not parsed.
    """
    if not path.exists():
        return None, f"no {path.name}"
    text = read_text(path)
    if text.startswith(LFS_POINTER_PREFIX):
        return None, f"{path.name} is a Git LFS pointer, not the file; run `git lfs pull` first"
    try:
        return read_leaderboard(path), None
    except LeaderboardError as exc:
        raise ImportLayoutError(f"{path}: {exc}") from exc
