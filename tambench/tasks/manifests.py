"""Subset manifests: sorted id lists with a ``#`` header, one file per subset.

Format::

    # tambench subset manifest
    # subset: lite
    # catalogue_index_sha256: 3f2a...
    # seed: 0
    # tiers: difficulty:calibrated
    # date: 2025-01-31
    # tasks: 18
    biendata/aqa  # Graph/hard
    ...

A collection manifest (a catalogue's ``_collections/<name>.txt``, see
:mod:`tambench.tasks.collections`) has the same format, with the first line
``# tambench collection manifest`` and its name under ``# collection:``.

Each id line may carry its cell after ``#`` (``Modality/tier``, or just the modality in the
paper's manifests); ``tambench subsets diff`` uses it to explain changes. Manifests live in a
catalogue's ``_subsets/`` folder; :func:`resolve_manifest` finds one by name (``lite`` finds
``lite.txt``, else the one manifest whose name ends in ``-lite``, such as ``paper-lite.txt``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tambench.core.layout import SUBSETS_DIR
from tambench.errors import SubsetError

MANIFEST_MAGIC = "# tambench subset manifest"
#: First line of a collection manifest (same format; its name is under ``collection``).
COLLECTION_MAGIC = "# tambench collection manifest"
_KIND_OF_MAGIC = {MANIFEST_MAGIC: "subset", COLLECTION_MAGIC: "collection"}


@dataclass(frozen=True)
class Manifest:
    """A subset manifest: header fields and the sorted ids (with their cells when known)."""

    name: str
    header: dict[str, str]
    cells: dict[str, str]
    """Task id -> cell label ("" when the line carries none)."""
    path: str = ""

    @property
    def ids(self) -> list[str]:
        """The ids, sorted."""
        return sorted(self.cells)


def render_manifest(name: str, header: dict[str, str], cells: dict[str, str],
                    kind: str = "subset") -> str:
    """Manifest text: magic line, ``subset`` (or ``collection``) then the other header
    fields, then sorted ids."""
    magic = next(m for m, k in _KIND_OF_MAGIC.items() if k == kind)
    lines = [magic, f"# {kind}: {name}"]
    lines += [f"# {k}: {v}" for k, v in header.items() if k not in {kind, "tasks"}]
    lines.append(f"# tasks: {len(cells)}")
    for tid in sorted(cells):
        lines.append(f"{tid}  # {cells[tid]}" if cells[tid] else tid)
    return "\n".join(lines) + "\n"


def parse_manifest(text: str, *, source: str = "(manifest)") -> Manifest:
    """Parse manifest text (format in the module docstring)."""
    lines = text.splitlines()
    kind = _KIND_OF_MAGIC.get(lines[0].strip()) if lines else None
    if kind is None:
        raise SubsetError(f"{source} is not a subset manifest; expected the first line "
                          f"{MANIFEST_MAGIC!r}, got {lines[0][:60] if lines else '(empty)'!r}")
    header: dict[str, str] = {}
    cells: dict[str, str] = {}
    previous = ""
    for lineno, raw in enumerate(lines[1:], start=2):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if cells:
                raise SubsetError(f"{source} line {lineno}: header line after the first id")
            key, sep, value = line[1:].partition(":")
            if not sep:
                raise SubsetError(f"{source} line {lineno}: header lines are '# key: value', "
                                  f"got {line!r}")
            header[key.strip()] = value.strip()
            continue
        tid, _, cell = line.partition("#")
        tid = tid.strip()
        if "/" not in tid or " " in tid:
            raise SubsetError(f"{source} line {lineno}: expected a task id <platform>/<slug>, "
                              f"got {tid!r}")
        if tid in cells:
            raise SubsetError(f"{source} line {lineno}: {tid} listed twice")
        if tid < previous:
            raise SubsetError(f"{source} line {lineno}: ids must be sorted; {tid} after "
                              f"{previous}")
        previous = tid
        cells[tid] = cell.strip()
    if kind not in header:
        raise SubsetError(f"{source} has no '# {kind}: <name>' header line")
    if "tasks" in header and header["tasks"] != str(len(cells)):
        raise SubsetError(f"{source} says tasks: {header['tasks']} but lists {len(cells)}")
    return Manifest(header[kind], header, cells, source)


def read_manifest(path: str | Path) -> Manifest:
    """Read a manifest file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SubsetError(f"manifest not found: {p}") from None
    return parse_manifest(text, source=str(p))


def manifest_paths(catalogue: Path) -> list[Path]:
    """Every manifest file of a catalogue, sorted by name."""
    folder = Path(catalogue) / SUBSETS_DIR
    return sorted(folder.glob("*.txt")) if folder.is_dir() else []


def resolve_manifest(catalogue: Path, name: str) -> Path:
    """The manifest a subset name refers to (see the module docstring).

    Raises :class:`~tambench.errors.SubsetError` naming the manifests there are when the name
    matches none, or several.
    """
    paths = manifest_paths(catalogue)
    stems = {p.stem: p for p in paths}
    key = name.strip().lower()
    if key in stems:
        return stems[key]
    matches = [p for s, p in stems.items() if s.lower().endswith(f"-{key}")]
    if len(matches) == 1:
        return matches[0]
    valid = ", ".join(sorted(stems)) or "(none)"
    if matches:
        raise SubsetError(f"subset {name!r} matches several manifests "
                          f"({', '.join(p.stem for p in matches)}); give the full name")
    raise SubsetError(f"unknown subset {name!r}; the catalogue's manifests are: {valid}")
