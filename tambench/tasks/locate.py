"""The one way a task reference becomes a task file: used by every command that takes a task.

A reference is, in this order:

1. a path to a task file (``.../task.json``; any other file is not a task);
2. a path to a task folder holding ``task.json``;
3. a task id ``<platform>/<slug>`` in the catalogue (the slug matched case-insensitively,
   since catalogue ids are lower-case slugs and platforms spell them in any case);
4. a bare slug (``spaceship-titanic``) when exactly one platform of the catalogue has it.

An unknown reference raises :class:`~tambench.errors.TaskNotFoundError` naming the closest
ids; a slug found on several platforms raises :class:`~tambench.errors.AmbiguousTaskError`
listing them. Ids never leave the catalogue (``..`` and absolute parts are refused).
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

from tambench.core.layout import TASK_FILE, safe_join
from tambench.errors import AmbiguousTaskError, TaskNotFoundError, UnsafePathError
from tambench.schema.io import load_taskspec
from tambench.schema.taskspec import TASK_ID_PATTERN, TaskSpec

_SLUG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def catalogue_ids(catalogue: Path) -> list[str]:
    """Every ``<platform>/<slug>`` folder of a catalogue that holds a task file, sorted."""
    root = Path(catalogue)
    if not root.is_dir():
        return []
    return sorted(
        f"{platform.name}/{slug.name}"
        for platform in root.iterdir()
        if platform.is_dir() and platform.name[0] not in "_."
        for slug in platform.iterdir()
        if slug.name[0] not in "_." and (slug / TASK_FILE).is_file()
    )


def _suggest(ref: str, ids: list[str]) -> str:
    keys = {i: i for i in ids} | {i.split("/", 1)[1]: i for i in ids}
    close = difflib.get_close_matches(ref.lower(), list(keys), n=3, cutoff=0.6)
    found = sorted({keys[c] for c in close})
    return f"; did you mean {', '.join(found)}?" if found else ""


def locate_task(ref: str | Path, catalogue: Path | None = None, *, ids_only: bool = False) -> Path:
    """The task file a reference names (see the module docstring for the forms accepted).

    Args:
        ref: a task file, a task folder, a task id or a bare slug.
        catalogue: where ids and slugs are looked up (default: the configured catalogue).
        ids_only: accept only ids and slugs, never a path (names found in agents' run folders,
            which must not reach files of the current directory).

    Raises:
        TaskNotFoundError: nothing matches; the message names the closest ids.
        AmbiguousTaskError: a bare slug exists on several platforms.
        UnsafePathError: an id that would leave the catalogue.
    """
    as_path = Path(ref) if ids_only else Path(os.path.expanduser(ref))
    if not ids_only and as_path.is_file() and as_path.suffix == ".json":
        return as_path
    if not ids_only and as_path.is_dir():
        if (as_path / TASK_FILE).is_file():
            return as_path / TASK_FILE
        raise TaskNotFoundError(f"folder {as_path} holds no {TASK_FILE}")
    if catalogue is None:
        # start-up: saves 3 ms (settings, for import tambench.api)
        from tambench.config import load_settings

        catalogue = load_settings().catalogue
    text = str(ref)
    if "/" in text:
        if not re.match(TASK_ID_PATTERN, text) or ".." in text.split("/"):
            raise UnsafePathError(
                f"task {text!r} is neither a task file, a task folder nor a task id "
                "<platform>/<slug> (ids may not contain '..')"
            )
        candidate = safe_join(catalogue, text, TASK_FILE, what="task id")
        if candidate.is_file():
            return candidate
    elif not _SLUG_RE.match(text):
        raise TaskNotFoundError(f"task {text!r} is neither a file, a task folder, an id nor a slug")
    ids = catalogue_ids(catalogue)
    wanted = text.lower()
    matches = [i for i in ids if (i.lower() if "/" in text else i.split("/", 1)[1].lower()) == wanted]
    if len(matches) == 1:
        return safe_join(catalogue, matches[0], TASK_FILE, what="task id")
    if len(matches) > 1:
        raise AmbiguousTaskError(
            f"task {text!r} is ambiguous: it matches {', '.join(matches)}; give the full id"
        )
    raise TaskNotFoundError(
        f"task {text!r} not found in catalogue {catalogue}{_suggest(text, ids)}"
    )


def load_task(ref: str | Path, catalogue: Path | None = None) -> TaskSpec:
    """The TaskSpec a reference names (:func:`locate_task`, then load and validate)."""
    return load_taskspec(locate_task(ref, catalogue))
