"""Collections: named sets of a catalogue's tasks, selected by name.

A collection is a manifest in the catalogue's ``_collections/`` folder (the subset manifest
format, :mod:`tambench.tasks.manifests`, with ``# tambench collection manifest`` as its first
line). The bundled catalogue ships:

* ``paper``: the 150 competitions of the paper's catalogue (plus the release's own id of one
  of them);
* ``mle-bench``: the competitions of MLE-bench's registry;
* ``mle-dojo``: the competitions of MLE-Dojo.

A task may be in several collections; its entry is one folder whatever the collections.
``tambench tasks list --collection NAME`` and ``tambench subsets build --collection NAME``
select one; ``all`` is every entry of the catalogue.
"""

from __future__ import annotations

from pathlib import Path

from tambench.core.layout import COLLECTIONS_DIR
from tambench.errors import SubsetError
from tambench.tasks.manifests import Manifest, read_manifest

#: The name that selects every entry of a catalogue.
ALL = "all"
#: The collection ``subsets build`` uses when the catalogue has it and none is named.
DEFAULT_SUBSET_COLLECTION = "paper"


def collection_paths(catalogue: Path) -> dict[str, Path]:
    """Collection name -> its manifest, for every manifest of ``_collections/``."""
    folder = Path(catalogue) / COLLECTIONS_DIR
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.txt"))}


def read_collection(catalogue: Path, name: str) -> Manifest:
    """One collection by name (case-insensitive); an unknown name lists the valid ones."""
    paths = collection_paths(catalogue)
    for stem, path in paths.items():
        if stem.lower() == name.strip().lower():
            manifest = read_manifest(path)
            if manifest.header.get("collection") is None:
                raise SubsetError(f"{path} is a subset manifest, not a collection")
            return manifest
    valid = ", ".join([ALL, *paths])
    raise SubsetError(f"unknown collection {name!r}; this catalogue has: {valid}")


def collection_ids(catalogue: Path, name: str | None) -> set[str] | None:
    """The ids of a collection (None for no name, or ``all``: no restriction)."""
    if name is None or name.strip().lower() == ALL:
        return None
    return set(read_collection(catalogue, name).ids)


def collection_memberships(catalogue: Path) -> dict[str, list[str]]:
    """Task id -> the names of the collections that list it."""
    out: dict[str, list[str]] = {}
    for name, path in collection_paths(catalogue).items():
        for tid in read_manifest(path).ids:
            out.setdefault(tid, []).append(name)
    return out


def default_subset_collection(catalogue: Path) -> str:
    """The collection subsets are built from when none is named: ``paper`` when the
    catalogue has it, else ``all``."""
    return DEFAULT_SUBSET_COLLECTION if DEFAULT_SUBSET_COLLECTION in \
        collection_paths(catalogue) else ALL
