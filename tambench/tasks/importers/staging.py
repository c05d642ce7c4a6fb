"""Writing one catalogue entry whole or not at all.

An import never writes into an entry's folder. :class:`EntryStage` builds the entry's next
state in a hidden folder beside it (``.<slug>.staging-*``, which catalogue listings skip): the
entry's files hard-linked (copied where links are refused; every write replaces a file, never
changes one in place, so the entry's own files are never touched), then the import's files
written. Only when all of them are written is the stage swapped in for the entry (one atomic
exchange on Linux and macOS, see :func:`tambench.fileio.swap_folder`), and only if some file
differs: an entry the import does not change is not rewritten.

So a kill -9, a Ctrl-C or a full disk while an entry is written leaves the entry as it was; the
hidden stage it leaves is removed (or, after a crash between two renames, the previous folder
put back) the next time the entry is written. A failed write names the entry's file, not the
stage's.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from tambench.core.layout import safe_join
from tambench.fileio import (
    current_umask,
    fsync_dir,
    restore_folder,
    swap_folder,
    write_bytes_atomic,
)

STAGING_TAG = ".staging-"


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` (staged) holds what ``b`` (the entry's) holds."""
    if not os.path.lexists(b) or a.is_symlink() != b.is_symlink():
        return False
    if a.is_symlink():
        return os.readlink(a) == os.readlink(b)
    if os.path.samefile(a, b):
        return True
    if a.stat().st_size != b.stat().st_size:
        return False
    return a.read_bytes() == b.read_bytes()


class EntryStage:
    """The next state of one entry folder, built beside it (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.committed = False
        parent = self.folder.parent
        parent.mkdir(parents=True, exist_ok=True)
        restore_folder(self.folder, f".{self.folder.name}{STAGING_TAG}")
        self.path = Path(tempfile.mkdtemp(prefix=f".{self.folder.name}{STAGING_TAG}",
                                          dir=parent))
        try:
            if self.folder.is_dir():
                shutil.copytree(self.folder, self.path, symlinks=True, dirs_exist_ok=True,
                                copy_function=_link_or_copy)
                mode = stat.S_IMODE(self.folder.stat().st_mode)
            else:
                mode = 0o777 & ~current_umask()
            os.chmod(self.path, mode)
        except BaseException:
            self.discard()
            raise

    def exists(self, rel: str) -> bool:
        """Whether the entry (as staged) holds ``rel``."""
        return os.path.lexists(safe_join(self.path, rel, what="file name"))

    def write(self, rel: str, data: bytes) -> None:
        """Stage the file ``rel`` of the entry; a failure names the entry's file."""
        target = safe_join(self.path, rel, what="file name")
        try:
            write_bytes_atomic(target, data)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(self.folder / rel)) from exc

    def changed(self) -> list[str]:
        """Files of the staged entry that are new or differ from the entry's, sorted."""
        out = []
        for path in sorted(self.path.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                continue
            rel = path.relative_to(self.path).as_posix()
            if not _same_file(path, self.folder / rel):
                out.append(rel)
        return out

    def commit(self) -> None:
        """Swap the stage in for the entry (``committed`` is True from then on, while the
        previous state is removed)."""
        fsync_dir(self.path)
        previous = swap_folder(self.path, self.folder)
        self.committed = True
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)

    def discard(self) -> None:
        """Remove the stage; the entry stays as it was."""
        shutil.rmtree(self.path, ignore_errors=True)
