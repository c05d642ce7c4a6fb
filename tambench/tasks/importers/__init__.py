"""Importers: other benchmarks' folder layouts -> catalogue entries.

Each importer reads files only: JSON, text, CSV and YAML (``yaml.safe_load``). No code from the
imported tree is ever imported or run (MLE-bench's ``grade.py`` / ``prepare.py``, the paper's
``grade.py``): they are listed as skipped, at most.

An importer (one entry of :data:`IMPORTERS`) returns a :class:`TreeRead`: one
:class:`ImportedTask` per task it could read, and one :class:`ImportFailure` per folder it
could not (an unreadable folder never aborts the import). :func:`write_imported` writes the
tasks into a catalogue. An existing entry (ids compared case-insensitively) is, by
``on_existing``:

* ``merge`` (default): filled where it is empty, curated values kept, conflicts listed
  (:mod:`tambench.tasks.merge`);
* ``replace``: merged, and conflicting values replaced, each replacement listed; a complete
  entry is never made incomplete;
* ``skip``: left alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tambench.core.layout import LEADERBOARD_FILE, PAGES_DIR, TASK_FILE, safe_join
from tambench.core.leaderboard import Leaderboard
from tambench.core.registry import Registry
from tambench.errors import ImportLayoutError, ReportVersionError
from tambench.fileio import write_text_atomic
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.schema.taskspec import SourcePage, TaskSpec
from tambench.tasks.locate import catalogue_ids
from tambench.tasks.merge import FieldChange, merge_specs

OnExisting = Literal["skip", "merge", "replace"]
ON_EXISTING: tuple[OnExisting, ...] = ("merge", "replace", "skip")
IMPORT_REPORT_VERSION = 1


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
    extra_boards: tuple[tuple[str, Leaderboard], ...] = ()
    """Further boards written beside the task's own, in the compact form: (file name, board),
    e.g. the public board beside the private one. Their provenance is in the task's
    leaderboard notes; they are written only when the task's board is the imported one."""


@dataclass(frozen=True)
class ImportFailure:
    """A folder (or file) of the tree that could not be read as a task, and why."""

    where: str
    message: str


@dataclass
class TreeRead:
    """What an importer read from a tree."""

    tasks: list[ImportedTask] = field(default_factory=list)
    failures: list[ImportFailure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Remarks about the tree as a whole (e.g. no complexity labels found)."""


Reader = Callable[[Path], TreeRead]

#: Importer name -> reader ("module:function", loaded on first use).
IMPORTERS: Registry[Reader] = Registry(
    "task importer", error=ImportLayoutError, hint="`tambench tasks import --help` lists them")
IMPORTERS.register_lazy("tam-lite", "tambench.tasks.importers.tam_lite:read_tam_lite")
IMPORTERS.register_lazy("mle-bench", "tambench.tasks.importers.mle_bench:read_mle_bench")
IMPORTERS.register_lazy("mle-dojo", "tambench.tasks.importers.mle_dojo:read_mle_dojo")


class _Report(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChangeRecord(_Report):
    """One field of one task whose value the import did not (or did) change."""

    task: str
    field: str
    existing: Any
    imported: Any
    existing_source: str = ""
    """Where the catalogue's value came from (its first recorded source, else the mapper)."""
    imported_source: str = ""
    """Where the import's value came from."""


class ImportReport(_Report):
    """What an import wrote, merged, kept and noticed (``tambench tasks import --json``)."""

    schema_version: int = IMPORT_REPORT_VERSION
    catalogue: str = ""
    read: int = 0
    written: list[str] = Field(default_factory=list)
    """New entries."""
    merged: dict[str, list[str]] = Field(default_factory=dict)
    """Existing entries -> the fields the import filled."""
    unchanged: list[str] = Field(default_factory=list)
    """Existing entries the import had nothing to add to."""
    skipped: list[str] = Field(default_factory=list)
    conflicts: list[ChangeRecord] = Field(default_factory=list)
    """Curated values the import contradicts, kept (listed, not applied)."""
    replaced: list[ChangeRecord] = Field(default_factory=list)
    """Values replaced (``replace`` only)."""
    complete: list[str] = Field(default_factory=list)
    """Tasks written or merged that are complete after the import."""
    warnings: dict[str, list[str]] = Field(default_factory=dict)
    """Task id (or tree path) -> what the importer noticed about it."""
    failures: dict[str, str] = Field(default_factory=dict)
    """Folders that could not be imported -> why."""
    notes: list[str] = Field(default_factory=list)

    @classmethod
    def parse(cls, data: dict[str, Any]) -> ImportReport:
        """Load a stored report, refusing a newer version."""
        version = data.get("schema_version", IMPORT_REPORT_VERSION)
        if not isinstance(version, int) or version > IMPORT_REPORT_VERSION:
            raise ReportVersionError(f"import report version {version!r} is newer than this "
                                     f"tambench reads ({IMPORT_REPORT_VERSION}); upgrade tambench")
        return cls.model_validate(data)


def page_markdown(page: ImportedPage, sha256: str, fetched_at: datetime) -> str:
    """The stored page: a provenance header, then the text as read."""
    header = ["---", f"kind: {page.kind}", f"source: {page.source}", f"url: {page.url}",
              f"sha256: {sha256}", f"read_at: {fetched_at.isoformat()}", "---", ""]
    return "\n".join(header) + page.text


def _existing_ids(catalogue: Path) -> dict[str, str]:
    """Lower-cased id -> the id as the catalogue spells it."""
    out: dict[str, str] = {}
    for tid in catalogue_ids(catalogue):
        out.setdefault(tid.lower(), tid)
    return out


def _write_pages(task: ImportedTask, folder: Path, stamp: datetime) -> list[SourcePage]:
    pages: list[SourcePage] = []
    for page in task.pages:
        digest = hashlib.sha256(page.text.encode("utf-8")).hexdigest()
        rel = f"{PAGES_DIR}/{page.name}"
        target = safe_join(folder, rel, what="page name")
        if not target.exists():
            write_text_atomic(target, page_markdown(page, digest, stamp))
        pages.append(SourcePage(kind=page.kind, url=page.url or page.source, sha256=digest,
                                fetched_at=stamp, path=rel))
    return pages


def _with_pages(spec: TaskSpec, pages: list[SourcePage]) -> TaskSpec:
    if not pages:
        return spec
    return spec.model_copy(update={"provenance": spec.provenance.model_copy(
        update={"pages": pages})})


def _store_board(task: ImportedTask, folder: Path, spec: TaskSpec) -> None:
    from tambench.core.leaderboard import write_compact_leaderboard

    if task.leaderboard is not None and spec.leaderboard is not None and \
            spec.leaderboard == task.spec.leaderboard:
        write_compact_leaderboard(task.leaderboard, folder / LEADERBOARD_FILE)
        for name, board in task.extra_boards:
            write_compact_leaderboard(board, safe_join(folder, name, what="board file name"))


def _record(task_id: str, changes: list[FieldChange]) -> list[ChangeRecord]:
    return [ChangeRecord(task=task_id, field=c.field, existing=c.existing, imported=c.imported,
                         existing_source=c.existing_source, imported_source=c.imported_source)
            for c in changes]


def _write_one(task: ImportedTask, catalogue: Path, existing: dict[str, str],
               on_existing: OnExisting, report: ImportReport, stamp: datetime) -> None:
    tid = existing.get(task.spec.id.lower())
    if tid is not None and on_existing == "skip":
        report.skipped.append(tid)
        return
    folder = safe_join(catalogue, tid or task.spec.id, what="task id")
    imported = _with_pages(task.spec, _write_pages(task, folder, stamp))
    if tid is None:
        spec = TaskSpec.model_validate(imported.model_dump())
        report.written.append(spec.id)
    else:
        old = load_taskspec(folder / TASK_FILE)
        renamed = imported.model_copy(update={"id": old.id, "platform": old.platform})
        result = merge_specs(old, renamed, replace=on_existing == "replace")
        spec = result.spec
        report.conflicts += _record(old.id, result.conflicts)
        report.replaced += _record(old.id, result.replaced)
        if result.filled or result.replaced:
            report.merged[old.id] = result.filled + [c.field for c in result.replaced]
        else:
            report.unchanged.append(old.id)
    save_taskspec(spec, folder / TASK_FILE)
    _store_board(task, folder, spec)
    if spec.status == "complete":
        report.complete.append(spec.id)


def write_imported(
    read: TreeRead | list[ImportedTask],
    catalogue: Path,
    *,
    on_existing: OnExisting = "merge",
    now: datetime | None = None,
) -> ImportReport:
    """Write imported tasks into a catalogue folder (see the module docstring)."""
    if on_existing not in ON_EXISTING:
        raise ImportLayoutError(f"on_existing must be one of {ON_EXISTING}, got {on_existing!r}")
    tree = read if isinstance(read, TreeRead) else TreeRead(tasks=list(read))
    catalogue.mkdir(parents=True, exist_ok=True)
    existing = _existing_ids(catalogue)
    stamp = (now or datetime.now(UTC)).replace(microsecond=0)
    report = ImportReport(catalogue=str(catalogue), read=len(tree.tasks), notes=list(tree.notes),
                          failures={f.where: f.message for f in tree.failures})
    seen: set[str] = set()
    for task in tree.tasks:
        key = task.spec.id.lower()
        if key in seen:
            report.failures[task.spec.id] = "the tree holds this task twice; the first was kept"
            continue
        seen.add(key)
        if task.warnings:
            report.warnings[task.spec.id] = list(task.warnings)
        _write_one(task, catalogue, existing, on_existing, report, stamp)
    return report


def read_tree(name: str, path: Path) -> TreeRead:
    """Run one importer's reader on a tree."""
    reader = IMPORTERS[name]
    if not Path(path).is_dir():
        raise ImportLayoutError(f"{path} is not a folder")
    return reader(Path(path))
