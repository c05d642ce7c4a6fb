"""Merging an imported spec into an existing catalogue entry without destroying anything.

The default (:func:`merge_specs` with ``replace=False``) fills what the existing entry leaves
empty and keeps every value it has:

* a field that is empty in the entry (``None``, ``""``, an empty list or mapping, a model all
  of whose fields are empty) takes the imported value: a *fill*;
* a field holding a value that the import contradicts is a *conflict*: listed, not applied;
* ``grading`` is merged field by field only when both name the same metric; a different
  metric is one conflict (its columns and parameters belong to that other metric);
* mappings (``reference_tiers``, ``provenance.evidence``) merge key by key; ``provenance``
  notes, pages and the sources of each fact (``provenance.facts``) are appended when new; the entry's ``provenance.mapper`` stays;
* a title that only repeats the slug (as catalogue stubs have) counts as empty; a leaderboard
  record of the same file (same SHA-256) is the same board, and the entry's record stays;
* ``status`` follows the merged content (:func:`tambench.schema.complete.status_for`), but a
  complete entry never becomes incomplete.

``replace=True`` applies the conflicts too, each listed as a *replacement* (what changes,
from what to what), except one that would make a complete entry incomplete: that stays a
conflict. Nothing here writes files: :func:`tambench.tasks.importers.write_imported` does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel

from tambench.schema.complete import completeness_problems, status_for
from tambench.schema.taskspec import TaskSpec

#: Fields never merged: identity and the version of the file.
_IDENTITY = frozenset({"schema_version", "id", "platform", "status"})


@dataclass(frozen=True)
class FieldChange:
    """One field of one entry: its value in the catalogue and in the import, and where each
    came from (the first recorded source of the field, else the entry's mapper)."""

    field: str
    existing: Any
    imported: Any
    existing_source: str = ""
    imported_source: str = ""


#: Characters of one value in a change's line (the rest is counted, not shown).
CHANGE_VALUE_CHARS = 160


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "),
                      default=str)
    if len(text) <= CHANGE_VALUE_CHARS:
        return text
    return f"{text[:CHANGE_VALUE_CHARS]}... ({len(text) - CHANGE_VALUE_CHARS} more chars)"


def change_line(task: str, change: Any, *, replaced: bool) -> str:
    """One line for one conflict (or replacement): the field, both values (of two objects,
    only the keys whose values differ) and both sources.

    >>> c = FieldChange("grading", {"metric": "rmse", "id_columns": ["id"]},
    ...                 {"metric": "mae", "id_columns": ["id"]}, "github:a/b@1234567:x.yaml",
    ...                 "importer:mle-dojo")
    >>> change_line("kaggle/t", c, replaced=False)
    'conflict kaggle/t grading: kept {"metric": "rmse"} (github:a/b@1234567:x.yaml); the import has {"metric": "mae"} (importer:mle-dojo)'
    """
    old, new = change.existing, change.imported
    if isinstance(old, dict) and isinstance(new, dict):
        keys = [k for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k)]
        old, new = {k: old.get(k) for k in keys}, {k: new.get(k) for k in keys}
    was = f"{_brief(old)} ({change.existing_source or 'catalogue'})"
    now = f"{_brief(new)} ({change.imported_source or 'import'})"
    if replaced:
        return f"replaced {task} {change.field}: {was} -> {now}"
    return f"conflict {task} {change.field}: kept {was}; the import has {now}"


def _source(spec: TaskSpec, path: str) -> str:
    """The first recorded source of a field (its path, the field it belongs to, or one of its
    own fields), else the entry's mapper."""
    facts = spec.provenance.facts
    parts = path.split(".")
    inner = [k for k in facts if k.startswith(f"{path}.")]
    for key in [*(".".join(parts[:n]) for n in range(len(parts), 0, -1)), *inner]:
        if facts.get(key):
            f = facts[key][0]
            where = f"@{f.commit[:7]}" if f.commit else ""
            return f"{f.source}{where}:{f.path}" if f.path else f"{f.source}{where}"
    return spec.provenance.mapper or ""


def _with_sources(changes: list[FieldChange], existing: TaskSpec,
                  imported: TaskSpec) -> list[FieldChange]:
    return [replace(c, existing_source=_source(existing, c.field),
                    imported_source=_source(imported, c.field)) for c in changes]


@dataclass
class MergeResult:
    """The merged spec, and what the merge filled, kept and replaced."""

    spec: TaskSpec
    filled: list[str] = field(default_factory=list)
    conflicts: list[FieldChange] = field(default_factory=list)
    replaced: list[FieldChange] = field(default_factory=list)


def is_empty(value: Any) -> bool:
    """Whether a field value carries nothing (so a merge may fill it).

    >>> is_empty(""), is_empty([]), is_empty(None), is_empty(0), is_empty("x")
    (True, True, True, False, False)
    """
    if value is None:
        return True
    if isinstance(value, str | list | tuple | dict | set):
        return len(value) == 0
    if isinstance(value, BaseModel):
        return all(is_empty(getattr(value, name)) for name in type(value).model_fields
                   if name != "schema_version")
    return False


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


class _Merger:
    """Field-by-field merge of two dumped specs (see the module docstring)."""

    def __init__(self, replace: bool) -> None:
        self.replace = replace
        self.filled: list[str] = []
        self.conflicts: list[FieldChange] = []
        self.replaced: list[FieldChange] = []

    def value(self, path: str, old: Any, new: Any) -> Any:
        if is_empty(new) or _plain(old) == _plain(new):
            return old
        if is_empty(old):
            self.filled.append(path)
            return new
        change = FieldChange(path, _plain(old), _plain(new))
        if self.replace:
            self.replaced.append(change)
            return new
        self.conflicts.append(change)
        return old

    def mapping(self, path: str, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        out = dict(old)
        for key, value in new.items():
            out[key] = self.value(f"{path}.{key}", old.get(key), value)
        return out

    def grading(self, old: Any, new: Any) -> Any:
        if new is None or old is None or old.metric != new.metric:
            return self.value("grading", old, new)
        merged = {name: getattr(old, name) if _is_default(new, name) else
                  self.value(f"grading.{name}", getattr(old, name), getattr(new, name))
                  for name in type(old).model_fields}
        return type(old).model_validate({k: _plain(v) for k, v in merged.items()})

    def provenance(self, old: Any, new: Any) -> Any:
        notes = list(dict.fromkeys([*old.notes, *new.notes]))
        paths = {p.path for p in old.pages}
        pages = [*old.pages, *[p for p in new.pages if p.path not in paths]]
        evidence = self.mapping("provenance.evidence", old.evidence, new.evidence)
        unfilled = list(dict.fromkeys([*old.unfilled, *new.unfilled]))
        facts = {key: [*old.facts.get(key, []),
                       *[s for s in new.facts.get(key, []) if s not in old.facts.get(key, [])]]
                 for key in dict.fromkeys([*old.facts, *new.facts])}
        return old.model_copy(update={"notes": notes, "pages": pages, "evidence": evidence,
                                      "unfilled": unfilled, "facts": facts})


#: Names ``provenance.unfilled`` uses that are not field paths, and the field they stand for.
_UNFILLED_FIELDS = {"pages": "provenance.pages", "dates": "start_date"}


def still_unfilled(spec: TaskSpec) -> list[str]:
    """The spec's ``unfilled`` entries whose field is still empty."""
    out = []
    for name in spec.provenance.unfilled:
        value: Any = spec
        for part in _UNFILLED_FIELDS.get(name, name).split("."):
            value = getattr(value, part, None)
        if is_empty(value):
            out.append(name)
    return out


def _is_default(model: BaseModel, name: str) -> bool:
    """Whether a model's field holds its declared default: an import that leaves a field at
    its default (``answers_file``, ``submission_format``) says nothing about it."""
    info = type(model).model_fields[name]
    if info.default_factory is not None:
        return bool(getattr(model, name) == info.default_factory())  # type: ignore[call-arg]
    return bool(getattr(model, name) == info.default)


def _placeholder_title(spec: TaskSpec) -> bool:
    """A title that only repeats the slug (catalogue stubs, release file names) carries
    nothing: it counts as empty on either side of a merge."""
    return spec.title.strip().lower() == spec.slug.lower()


def _same_board(old: Any, new: Any) -> bool:
    """Two leaderboard records of the same file (same bytes, or same row count when a record
    has no hash): the existing record is kept without a conflict."""
    if old is None or new is None:
        return False
    if old.sha256 and new.sha256:
        return bool(old.sha256 == new.sha256)
    return bool(old.rows == new.rows)


def merge_specs(existing: TaskSpec, imported: TaskSpec, *, replace: bool = False) -> MergeResult:
    """Merge ``imported`` into ``existing`` (see the module docstring)."""
    m = _Merger(replace)
    fields: dict[str, Any] = {}
    for name in TaskSpec.model_fields:
        old, new = getattr(existing, name), getattr(imported, name)
        if name == "title" and _placeholder_title(existing):
            old = ""
        if name == "title" and _placeholder_title(imported):
            new = ""
        if name == "leaderboard" and _same_board(old, new):
            new = old
        if name in _IDENTITY:
            fields[name] = old
        elif name == "grading":
            fields[name] = m.grading(old, new)
        elif name == "provenance":
            fields[name] = m.provenance(old, new)
        elif name == "reference_tiers":
            fields[name] = m.mapping(name, old, new)
        elif name == "title":  # a placeholder title on both sides stays the entry's
            fields[name] = m.value(name, old, new) or existing.title
        else:
            fields[name] = m.value(name, old, new)
    merged = TaskSpec.model_validate({k: _plain(v) for k, v in fields.items()})
    prov = merged.provenance.model_copy(update={"unfilled": still_unfilled(merged)})
    merged = merged.model_copy(update={"provenance": prov})
    status = status_for(merged)
    if existing.status == "complete" and status != "complete":
        if replace and m.replaced:
            # Undo the replacements that broke a complete entry: they become conflicts.
            problems = "; ".join(completeness_problems(merged))
            safe = merge_specs(existing, imported, replace=False)
            undone = _with_sources(m.replaced, existing, imported)
            safe.conflicts.extend(c for c in undone if c not in safe.conflicts)
            safe.conflicts.append(FieldChange(
                "status", "complete", f"incomplete if replaced ({problems}); nothing replaced"))
            return safe
        status = "complete"  # a merge never downgrades; `tasks validate` names what it lacks
    merged = merged.model_copy(update={"status": status})
    return MergeResult(merged, m.filled, _with_sources(m.conflicts, existing, imported),
                       _with_sources(m.replaced, existing, imported))
