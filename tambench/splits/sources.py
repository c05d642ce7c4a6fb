"""Where raw competition data comes from: a local folder, an archive, or the Kaggle API.

A source is anything with :meth:`RawSource.fetch`: given an empty working folder it returns a
folder holding the raw files (it may be the working folder, or for a local folder the folder
itself). The split code only ever sees that folder.

The Kaggle client is optional (``pip install 'tambench[kaggle]'``); :class:`KaggleSource` uses
the one client module, :mod:`tambench.acquisition.kaggle_client`, which imports it only when a
download starts (importing it authenticates).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from tambench.acquisition.kaggle_client import KaggleClient
from tambench.acquisition.retry import RetryPolicy
from tambench.errors import SourceError
from tambench.splits.archive import ArchiveLimits, is_archive, safe_extract


@runtime_checkable
class RawSource(Protocol):
    """A provider of one competition's raw files."""

    def describe(self) -> str:
        """A short human-readable name, e.g. "folder /data/raw" or "kaggle:titanic"."""
        ...

    def fetch(self, workdir: Path) -> Path:
        """Make the raw files available and return the folder holding them.

        ``workdir`` is an empty folder the source may write into.
        """
        ...


@dataclass(frozen=True)
class LocalFolderSource:
    """Raw files already unpacked in a folder (used in place, never modified).

    A symbolic link inside the folder that points outside it is refused: it would publish
    the rows of a file the folder does not hold (another task's private answers, say).
    """

    path: Path

    def describe(self) -> str:
        """Name of the source."""
        return f"folder {self.path}"

    def fetch(self, workdir: Path) -> Path:
        """Return the folder itself, after checking that no link in it leads out of it."""
        if not self.path.is_dir():
            raise SourceError(f"raw data folder {self.path} does not exist")
        root = self.path.resolve()
        outward = links_out_of(root)
        if outward:
            shown = "; ".join(f"{link} -> {target}" for link, target in outward[:5])
            more = f" (first 5 of {len(outward)})" if len(outward) > 5 else ""
            raise SourceError(
                f"raw data folder {root} holds {len(outward)} link(s) pointing outside it: "
                f"{shown}{more}; copy those files into the folder (or remove the links)")
        return root


def links_out_of(root: Path) -> list[tuple[Path, Path]]:
    """Symbolic links under ``root`` (files or folders, not followed) whose target is outside
    ``root``, with their resolved targets. Folder entries are read once (no extra stat per
    file), so a folder of 100,000 files costs a fraction of a second."""
    found: list[tuple[Path, Path]] = []
    stack = [root]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_symlink():
                    target = Path(entry.path).resolve()
                    if target != root and not target.is_relative_to(root):
                        found.append((Path(entry.path), target))
                elif entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
    return sorted(found)


@dataclass(frozen=True)
class ArchiveSource:
    """Raw files in a zip or tar archive, extracted safely into the working folder."""

    path: Path
    limits: ArchiveLimits = field(default_factory=ArchiveLimits)

    def describe(self) -> str:
        """Name of the source."""
        return f"archive {self.path}"

    def fetch(self, workdir: Path) -> Path:
        """Extract the archive into ``workdir/raw`` and return that folder."""
        if not self.path.is_file():
            raise SourceError(f"raw data archive {self.path} does not exist")
        out = workdir / "raw"
        safe_extract(self.path, out, self.limits)
        return out


@dataclass(frozen=True)
class PrivateFiles:
    """The private files of every prepared task under a data dir, by device and inode.

    A raw file that is one of them under another name (a hard link: nothing in the raw folder
    shows where it leads) would publish private answers; :meth:`refuse` stops it.
    """

    inodes: dict[tuple[int, int], Path] = field(default_factory=dict)

    @classmethod
    def under(cls, data_dir: Path) -> PrivateFiles:
        """Collect ``<data_dir>/<platform>/<slug>/private/*``."""
        found: dict[tuple[int, int], Path] = {}
        for private in Path(data_dir).glob("*/*/private"):
            if private.is_symlink() or not private.is_dir():
                continue
            for dirpath, _, filenames in os.walk(private):
                for name in filenames:
                    p = Path(dirpath) / name
                    st = p.lstat()
                    found[(st.st_dev, st.st_ino)] = p
        return cls(found)

    def refuse(self, path: Path, label: str) -> None:
        """Raise :class:`SourceError` when ``path`` is one of the private files."""
        if not self.inodes:
            return
        st = path.stat()
        private = self.inodes.get((st.st_dev, st.st_ino))
        if private is not None:
            raise SourceError(f"{label} is the private file {private} under another name (a hard "
                              "link); refused: it would publish private answers")


def open_source(raw: str | Path) -> RawSource:
    """A folder or archive source for a local path."""
    p = Path(os.path.expanduser(raw))  # left as it is without a home directory
    if p.is_dir():
        return LocalFolderSource(p)
    if p.is_file():
        if not is_archive(p):
            raise SourceError(f"{p} is a file but neither a zip nor a tar archive")
        return ArchiveSource(p)
    raise SourceError(f"raw data {p} does not exist (expected a folder or an archive)")


# --- Kaggle ----------------------------------------------------------------------------------


@dataclass
class KaggleSource:
    """A Kaggle competition's files, downloaded with the kaggle client and extracted safely.

    The client is :class:`tambench.acquisition.kaggle_client.KaggleClient`: transient failures
    (connection errors, timeouts, 408/429/5xx) are retried with exponential backoff and jitter,
    honouring Retry-After; "you must accept this competition's rules" raises
    :class:`~tambench.errors.RulesNotAcceptedError` at once with the URL to accept them.
    """

    slug: str
    retries: int = 4
    """Retries after the first attempt (transient failures only)."""

    backoff_s: float = 2.0
    """First backoff delay; doubles each retry."""

    max_backoff_s: float = 60.0
    """Cap on one backoff delay (a longer Retry-After is still honoured)."""

    limits: ArchiveLimits = field(default_factory=ArchiveLimits)
    sleep: Callable[[float], None] = time.sleep
    api_factory: Callable[[], Any] | None = None
    """Builds the underlying client object (default: the official client, authenticated)."""

    attempts: int = 0
    """How many download attempts the last :meth:`fetch` made."""

    def describe(self) -> str:
        """Name of the source."""
        return f"kaggle:{self.slug}"

    def download(self, dest: Path) -> Path:
        """Download the competition's files into ``dest`` (its own folder); return the zip."""
        client = KaggleClient(
            self.api_factory() if self.api_factory is not None else None,
            policy=RetryPolicy(retries=self.retries, backoff_base=self.backoff_s,
                               backoff_max=self.max_backoff_s),
            sleep=self.sleep,
        )
        try:
            return client.download_files(self.slug, dest)
        finally:
            self.attempts = client.attempts

    def fetch(self, workdir: Path) -> Path:
        """Download into ``workdir/download`` and extract into ``workdir/raw``."""
        archive = self.download(workdir / "download")
        out = workdir / "raw"
        safe_extract(archive, out, self.limits)
        return out
