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

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from tambench.schema.complete import completeness_problems, status_for
from tambench.schema.taskspec import TaskSpec

#: Fields never merged: identity and the version of the file.
_IDENTITY = frozenset({"schema_version", "id", "platform", "status"})


@dataclass(frozen=True)
class FieldChange:
    """One field of one entry: its value in the catalogue and in the import."""

    field: str
    existing: Any
    imported: Any


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
            safe.conflicts.extend(c for c in m.replaced if c not in safe.conflicts)
            safe.conflicts.append(FieldChange(
                "status", "complete", f"incomplete if replaced ({problems}); nothing replaced"))
            return safe
        status = "complete"  # a merge never downgrades; `tasks validate` names what it lacks
    merged = merged.model_copy(update={"status": status})
    return MergeResult(merged, m.filled, m.conflicts, m.replaced)
