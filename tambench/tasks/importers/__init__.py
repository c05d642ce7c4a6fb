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

A board file an existing entry holds without a provenance record (placed by hand) is never
replaced: it is kept, and the imported board is listed as a conflict. Each entry is written
whole or not at all (:mod:`.staging`): an interrupted import (kill -9, Ctrl-C, a full disk)
leaves the entry it was writing as it was, and an entry the import does not change is not
rewritten (the report lists exactly the files it changed).
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
from tambench.core.leaderboard import Leaderboard, leaderboard_to_compact_csv
from tambench.core.registry import Registry
from tambench.errors import CatalogueError, ImportLayoutError, ReportVersionError
from tambench.fileio import locked_folder
from tambench.schema.io import dump_taskspec, load_taskspec
from tambench.schema.taskspec import SourcePage, TaskSpec
from tambench.tasks.importers.staging import EntryStage
from tambench.tasks.locate import catalogue_ids
from tambench.tasks.merge import FieldChange, merge_specs, still_unfilled

OnExisting = Literal["skip", "merge", "replace"]
ON_EXISTING: tuple[OnExisting, ...] = ("merge", "replace", "skip")
#: 2: ``files`` added, ``merged`` lists every changed entry (provenance parts too) and
#: ``unchanged`` only entries left byte for byte as they were.
IMPORT_REPORT_VERSION = 2


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
    """Existing entries whose files the import changed -> the fields it changed (filled,
    replaced, or provenance parts such as ``provenance.notes``; empty when only a file such
    as a page was added)."""
    unchanged: list[str] = Field(default_factory=list)
    """Existing entries the import left byte for byte as they were."""
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
    files: dict[str, list[str]] = Field(default_factory=dict)
    """Task id -> the files the import wrote or changed in its entry (an entry it did not
    change is in ``unchanged`` and has none)."""
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


def _write_pages(task: ImportedTask, stage: EntryStage, stamp: datetime) -> list[SourcePage]:
    pages: list[SourcePage] = []
    for page in task.pages:
        digest = hashlib.sha256(page.text.encode("utf-8")).hexdigest()
        rel = f"{PAGES_DIR}/{page.name}"
        if not stage.exists(rel):
            stage.write(rel, page_markdown(page, digest, stamp).encode("utf-8"))
        pages.append(SourcePage(kind=page.kind, url=page.url or page.source, sha256=digest,
                                fetched_at=stamp, path=rel))
    return pages


def _with_pages(spec: TaskSpec, pages: list[SourcePage]) -> TaskSpec:
    if not pages:
        return spec
    return spec.model_copy(update={"provenance": spec.provenance.model_copy(
        update={"pages": pages})})


def _board_files(task: ImportedTask) -> list[str]:
    return [LEADERBOARD_FILE, *(name for name, _ in task.extra_boards)]


def _store_board(task: ImportedTask, stage: EntryStage, spec: TaskSpec) -> None:
    if task.leaderboard is not None and spec.leaderboard is not None and \
            spec.leaderboard == task.spec.leaderboard:
        for name, board in ((LEADERBOARD_FILE, task.leaderboard), *task.extra_boards):
            stage.write(name, leaderboard_to_compact_csv(board).encode("utf-8"))


def _record(task_id: str, changes: list[FieldChange]) -> list[ChangeRecord]:
    return [ChangeRecord(task=task_id, field=c.field, existing=c.existing, imported=c.imported,
                         existing_source=c.existing_source, imported_source=c.imported_source)
            for c in changes]


@dataclass
class _Entry:
    """What writing one entry did, applied to the report once the entry is in place."""

    spec: TaskSpec
    fields: list[str] = field(default_factory=list)
    conflicts: list[ChangeRecord] = field(default_factory=list)
    replaced: list[ChangeRecord] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def _changed_fields(old: TaskSpec, new: TaskSpec) -> list[str]:
    """The fields (``provenance`` by part) whose values differ between two specs."""
    out = []
    for name in TaskSpec.model_fields:
        a, b = getattr(old, name), getattr(new, name)
        if name == "provenance":
            out += [f"provenance.{k}" for k in type(a).model_fields
                    if a.model_dump(mode="json")[k] != b.model_dump(mode="json")[k]]
        elif a != b:
            out.append(name)
    return out


def _hand_placed_board(task: ImportedTask, stage: EntryStage, old: TaskSpec | None
                       ) -> ChangeRecord | None:
    """A board file the entry holds without a provenance record (placed by hand): kept, the
    imported board and its record not written, the difference listed as a conflict."""
    if task.spec.leaderboard is None or (old is not None and old.leaderboard is not None):
        return None
    present = [name for name in _board_files(task) if stage.exists(name)]
    if not present:
        return None
    return ChangeRecord(task=old.id if old else task.spec.id, field="leaderboard",
                        existing=f"{', '.join(present)} placed by hand (no provenance "
                                 "record): kept",
                        imported=task.spec.leaderboard.model_dump(mode="json"))


def _stage_entry(task: ImportedTask, stage: EntryStage, merge: OnExisting | None,
                 stamp: datetime) -> _Entry:
    """Write the entry's next state into ``stage``; ``merge`` is None for a new entry."""
    old = load_taskspec(stage.path / TASK_FILE) if merge is not None else None
    imported = _with_pages(task.spec, _write_pages(task, stage, stamp))
    kept = _hand_placed_board(task, stage, old)
    if kept is not None:
        imported = imported.model_copy(update={"leaderboard": None})
    if old is None:
        spec = TaskSpec.model_validate(imported.model_dump())
        spec = spec.model_copy(update={"provenance": spec.provenance.model_copy(
            update={"unfilled": still_unfilled(spec)})})
        entry = _Entry(spec)
    else:
        renamed = imported.model_copy(update={"id": old.id, "platform": old.platform})
        result = merge_specs(old, renamed, replace=merge == "replace")
        spec = result.spec
        entry = _Entry(spec, _changed_fields(old, spec), _record(old.id, result.conflicts),
                       _record(old.id, result.replaced))
    entry.conflicts += [kept] if kept is not None else []
    stage.write(TASK_FILE, dump_taskspec(spec).encode("utf-8"))
    _store_board(task, stage, spec)
    return entry


def _write_one(task: ImportedTask, catalogue: Path, existing: dict[str, str],
               on_existing: OnExisting, report: ImportReport, stamp: datetime) -> None:
    """Write one entry whole or not at all (:mod:`.staging`), then report it."""
    tid = existing.get(task.spec.id.lower())
    if tid is not None and on_existing == "skip":
        report.skipped.append(tid)
        return
    stage = EntryStage(safe_join(catalogue, tid or task.spec.id, what="task id"))
    try:
        entry = _stage_entry(task, stage, on_existing if tid is not None else None, stamp)
        entry.files = stage.changed()
        if entry.files:
            stage.commit()
        else:
            stage.discard()
    except BaseException:
        if not stage.committed:
            stage.discard()
            raise
        _report_entry(report, entry, tid)  # in place: stopped while its old state was removed
        raise
    _report_entry(report, entry, tid)


def _report_entry(report: ImportReport, entry: _Entry, tid: str | None) -> None:
    spec = entry.spec
    report.conflicts += entry.conflicts
    report.replaced += entry.replaced
    if tid is None:
        report.written.append(spec.id)
    elif entry.files:
        report.merged[spec.id] = entry.fields
    else:
        report.unchanged.append(spec.id)
    if entry.files:
        report.files[spec.id] = entry.files
    if spec.status == "complete":
        report.complete.append(spec.id)


class ImportInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`write_imported`: the entries before ``task`` were written whole,
    ``task`` was left as it was unless ``task_written`` (``report`` says what was written)."""

    def __init__(self, report: ImportReport, task: str) -> None:
        super().__init__(f"interrupted while writing {task}")
        self.report = report
        self.task = task
        self.task_written = task in report.files
        """The stop came once ``task`` was in place (while its old state was removed)."""


def write_imported(
    read: TreeRead | list[ImportedTask],
    catalogue: Path,
    *,
    on_existing: OnExisting = "merge",
    now: datetime | None = None,
) -> ImportReport:
    """Write imported tasks into a catalogue folder (see the module docstring).

    Raises:
        ImportInterrupted: Ctrl-C; every entry is either written whole or as it was.
        CatalogueError: a file could not be written (a full disk, a file too large): names
            the file; its entry is as it was, the entries before it are written whole.
    """
    if on_existing not in ON_EXISTING:
        raise ImportLayoutError(f"on_existing must be one of {ON_EXISTING}, got {on_existing!r}")
    tree = read if isinstance(read, TreeRead) else TreeRead(tasks=list(read))
    catalogue.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now(UTC)).replace(microsecond=0)
    report = ImportReport(catalogue=str(catalogue), read=len(tree.tasks), notes=list(tree.notes),
                          failures={f.where: f.message for f in tree.failures})
    seen: set[str] = set()
    with locked_folder(catalogue):
        existing = _existing_ids(catalogue)
        for task in tree.tasks:
            key = task.spec.id.lower()
            if key in seen:
                report.failures[task.spec.id] = "the tree holds this task twice; the first " \
                    "was kept"
                continue
            seen.add(key)
            if task.warnings:
                report.warnings[task.spec.id] = list(task.warnings)
            try:
                _write_one(task, catalogue, existing, on_existing, report, stamp)
            except KeyboardInterrupt:
                raise ImportInterrupted(report, task.spec.id) from None
            except OSError as exc:
                done = len(report.written) + len(report.merged) + len(report.unchanged)
                raise CatalogueError(
                    f"could not write {exc.filename or catalogue}: {exc.strerror or exc}; "
                    f"{task.spec.id} is left as it was ({done} entries before it were written "
                    "whole or left unchanged)") from exc
    return report


def read_tree(name: str, path: Path) -> TreeRead:
    """Run one importer's reader on a tree."""
    reader = IMPORTERS[name]
    if not Path(path).is_dir():
        raise ImportLayoutError(f"{path} is not a folder")
    return reader(Path(path))
