"""Importers: other benchmarks' folder layouts -> catalogue entries.

Each importer reads files only: JSON, text, CSV and YAML (``yaml.safe_load``). No code from the
imported tree is ever imported or run (MLE-bench's ``grade.py`` / ``prepare.py``, the paper's
``grade.py``): they are listed as skipped, at most.

An importer returns :class:`ImportedTask` records; :func:`write_imported` writes them into a
catalogue. An existing entry is skipped unless asked otherwise (``on_existing``): ``merge``
adds the reference tiers and a missing leaderboard to the existing spec and changes nothing
else; ``overwrite`` replaces it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from tambench.core.leaderboard import Leaderboard
from tambench.errors import ImportLayoutError
from tambench.schema.taskspec import SourcePage, TaskSpec

OnExisting = Literal["skip", "merge", "overwrite"]


@dataclass(frozen=True)
class ImportedPage:
    """A page to store under ``pages/`` with its provenance."""

    kind: str
    name: str
    text: str
    source: str
    """Where the text was read (a path inside the imported tree)."""
    url: str = ""


@dataclass(frozen=True)
class ImportedTask:
    """One task read from an imported tree."""

    spec: TaskSpec
    leaderboard: Leaderboard | None = None
    pages: tuple[ImportedPage, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass
class ImportReport:
    """What an import wrote, kept, and noticed."""

    written: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


#: Importer name -> "module:function" (loaded lazily).
IMPORTERS: dict[str, str] = {
    "tam-lite": "tambench.tasks.importers.tam_lite:read_tam_lite",
    "mle-bench": "tambench.tasks.importers.mle_bench:read_mle_bench",
}


def get_importer(name: str) -> Callable[[Path], list[ImportedTask]]:
    """The reader function of an importer."""
    try:
        target = IMPORTERS[name]
    except KeyError:
        raise ImportLayoutError(f"unknown importer {name!r}; known: {sorted(IMPORTERS)}") from None
    module, _, func = target.partition(":")
    fn: Callable[[Path], list[ImportedTask]] = getattr(importlib.import_module(module), func)
    return fn


def page_markdown(page: ImportedPage, sha256: str, fetched_at: datetime) -> str:
    """The stored page: a provenance header, then the text as read."""
    header = [
        "---",
        f"kind: {page.kind}",
        f"source: {page.source}",
        f"url: {page.url}",
        f"sha256: {sha256}",
        f"read_at: {fetched_at.isoformat()}",
        "---",
        "",
    ]
    return "\n".join(header) + page.text


def write_imported(
    tasks: list[ImportedTask],
    catalogue: Path,
    *,
    on_existing: OnExisting = "skip",
    now: datetime | None = None,
) -> ImportReport:
    """Write imported tasks into a catalogue folder."""
    import hashlib

    from tambench.core.layout import LEADERBOARD_FILE, PAGES_DIR, TASK_FILE
    from tambench.core.leaderboard import write_leaderboard
    from tambench.fileio import write_text_atomic
    from tambench.schema.io import load_taskspec, save_taskspec
    from tambench.tasks.catalogue import Catalogue

    if on_existing not in ("skip", "merge", "overwrite"):
        raise ImportLayoutError(f"on_existing must be skip, merge or overwrite, got "
                                f"{on_existing!r}")
    catalogue.mkdir(parents=True, exist_ok=True)
    cat = Catalogue(catalogue)
    report = ImportReport()
    stamp = (now or datetime.now(UTC)).replace(microsecond=0)
    for task in tasks:
        report.warnings.extend(f"{task.spec.id}: {w}" for w in task.warnings)
        folder = cat.entry_path(task.spec.id)
        task_file = folder / TASK_FILE
        lb_file = folder / LEADERBOARD_FILE
        if task_file.exists() and on_existing == "skip":
            report.skipped.append(task.spec.id)
            continue
        if task_file.exists() and on_existing == "merge":
            old = load_taskspec(task_file)
            tiers = {**old.reference_tiers, **task.spec.reference_tiers}
            save_taskspec(old.model_copy(update={"reference_tiers": tiers}), task_file)
            if task.leaderboard is not None and not lb_file.exists():
                write_leaderboard(task.leaderboard, lb_file)
            report.merged.append(task.spec.id)
            continue
        pages: list[SourcePage] = []
        for page in task.pages:
            digest = hashlib.sha256(page.text.encode("utf-8")).hexdigest()
            rel = f"{PAGES_DIR}/{page.name}"
            write_text_atomic(folder / rel, page_markdown(page, digest, stamp))
            pages.append(SourcePage(kind=page.kind, url=page.url or page.source, sha256=digest,
                                    fetched_at=stamp, path=rel))
        spec = task.spec
        if pages:
            prov = spec.provenance.model_copy(update={"pages": pages})
            spec = spec.model_copy(update={"provenance": prov})
        if task.leaderboard is not None:
            write_leaderboard(task.leaderboard, lb_file)
        elif lb_file.exists() and on_existing == "overwrite":
            lb_file.unlink()
        save_taskspec(TaskSpec.model_validate(spec.model_dump()), task_file)
        report.written.append(spec.id)
    return report


def read_tree(name: str, path: Path) -> list[ImportedTask]:
    """Run one importer's reader on a tree."""
    if not Path(path).is_dir():
        raise ImportLayoutError(f"{path} is not a folder")
    return get_importer(name)(Path(path))
