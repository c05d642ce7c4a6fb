"""Reading and writing TaskSpec files, with schema-version migration.

Version history:

* 0: the paper's release format (``schema.json``): the paper's seven fields, no id, no
  ``schema_version`` key. Migrated by :func:`from_paper`, which needs the task id.
* 1: the TaskSpec with one flat split model (every strategy's fields on it, many silently
  ignored); migrated by :func:`migrate_split_v1`.
* 2: the current TaskSpec: the split spec is one model per strategy (see
  :mod:`tambench.schema.splitspec`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tambench.core.bounded import load_json
from tambench.errors import SchemaVersionError, TaskSpecError
from tambench.fileio import write_text_atomic
from tambench.schema.taskspec import (
    SCHEMA_VERSION,
    DataInformation,
    MetricDescription,
    Provenance,
    TaskSpec,
)

#: The paper's fields, in the order its release writes them.
PAPER_FIELDS = (
    "task_type",
    "goal_description",
    "metric",
    "target_col",
    "data_information",
    "output_format",
    "special_instructions",
)


def is_paper_format(data: dict[str, Any]) -> bool:
    """True when ``data`` looks like a schema.json of the paper's release (version 0)."""
    return "schema_version" not in data and "id" not in data and set(PAPER_FIELDS) <= set(data)


def from_paper(data: dict[str, Any], task_id: str, **extra: Any) -> TaskSpec:
    """Convert a paper-format schema into a TaskSpec, keeping every paper field verbatim.

    Unknown keys are refused rather than dropped, so the conversion is lossless or fails.
    """
    unknown = sorted(set(data) - set(PAPER_FIELDS))
    if unknown:
        raise TaskSpecError(f"paper schema for {task_id} has unknown field(s) {unknown}")
    platform = task_id.split("/", 1)[0]
    try:
        fields: dict[str, Any] = {
            "task_type": data.get("task_type", ""),
            "goal_description": data.get("goal_description", ""),
            "metric": MetricDescription.model_validate(data.get("metric", {})),
            "target_col": data.get("target_col", ""),
            "data_information": DataInformation.model_validate(data.get("data_information", {})),
            "output_format": data.get("output_format", ""),
            "special_instructions": data.get("special_instructions", ""),
        }
        extra.setdefault("provenance", Provenance(mapper="paper-release"))
        spec = TaskSpec(id=task_id, platform=platform,
                        **{"status": "incomplete", **fields, **extra})
        if "status" not in extra:
            # The paper's schema carries no grading spec: the content decides the status,
            # by the one definition of completeness.
            # start-up: saves 1 ms (the completeness rules, for tambench grade)
            from tambench.schema.complete import status_for

            spec = spec.model_copy(update={"status": status_for(spec)})
        return spec
    except ValidationError as exc:
        raise TaskSpecError(f"paper schema for {task_id} does not validate:\n{exc}") from exc


def to_paper(spec: TaskSpec) -> dict[str, Any]:
    """The paper's seven fields of a TaskSpec, in the paper's layout."""
    dumped = spec.model_dump(mode="json", include=set(PAPER_FIELDS))
    return {k: dumped[k] for k in PAPER_FIELDS}


def _migrate_v0(data: dict[str, Any], task_id: str | None) -> dict[str, Any]:
    if task_id is None:
        raise TaskSpecError(
            "this file is in the paper's release format (no id, no schema_version); "
            "give the task id (<platform>/<slug>) to convert it"
        )
    return from_paper(data, task_id).model_dump(mode="json")


#: Defaults of the version-1 split model: a version-1 file written by tambench spells every
#: field out, so a field at its default says nothing and is dropped when migrating.
_V1_SPLIT_DEFAULTS: dict[str, Any] = {
    "test_size": 0.1, "seed": 0, "train_file": "", "id_column": "", "target_columns": [],
    "stratify_column": "", "group_column": "", "time_column": "", "time_cutoff": "",
    "last_k_periods": 0, "holdout": "", "holdout_column": "", "file_id_pattern": "",
    "file_base_strategy": "random", "official_answers_file": "", "official_test_file": "",
    "drop_columns": [], "test_order": "shuffled", "extra_public_files": [], "link_files": True,
}


def migrate_split_v1(split: dict[str, Any]) -> dict[str, Any]:
    """A version-1 split dict in version 2's shape.

    Fields at their version-1 default are dropped; ``files`` becomes its base strategy with
    ``files: {pattern, link}``; ``holdout`` becomes ``holdout_value`` (with holdout_column) or
    ``holdout_file``; ``drop_columns`` becomes ``hidden_columns: {column: "public"}``. A field
    set to something but ignored by its strategy is kept, so that loading refuses it with the
    reason: such a file never got the split it declares.

    >>> migrate_split_v1({"strategy": "holdout", "holdout": "f4", "holdout_column": "fold",
    ...                   "test_size": 0.1, "group_column": ""})
    {'strategy': 'holdout_value', 'holdout_column': 'fold', 'holdout_value': 'f4'}
    """
    out = {k: v for k, v in split.items()
           if k == "strategy" or k not in _V1_SPLIT_DEFAULTS or v != _V1_SPLIT_DEFAULTS[k]}
    strategy = out.pop("strategy", "random")
    if strategy == "files":
        strategy = out.pop("file_base_strategy", "random")
        files: dict[str, Any] = {"pattern": out.pop("file_id_pattern", "")}
        if out.pop("link_files", True) is False:
            files["link"] = False
        out["files"] = files
    elif strategy == "holdout":
        holdout = out.pop("holdout", "")
        if "holdout_column" in out:
            strategy, out["holdout_value"] = "holdout_value", holdout
        else:
            strategy, out["holdout_file"] = "holdout_file", holdout
    dropped = out.pop("drop_columns", [])
    if dropped:
        out["hidden_columns"] = dict.fromkeys(dropped, "public")
    return {"strategy": strategy, **out}


def _migrate_v1(data: dict[str, Any], task_id: str | None) -> dict[str, Any]:
    out = dict(data)
    if isinstance(out.get("split"), dict):
        out["split"] = migrate_split_v1(out["split"])
    out["schema_version"] = 2
    return out


#: from-version -> function producing the next version's dict.
MIGRATIONS: dict[int, Callable[[dict[str, Any], str | None], dict[str, Any]]] = {
    0: _migrate_v0,
    1: _migrate_v1,
}


def migrate(data: dict[str, Any], task_id: str | None = None) -> dict[str, Any]:
    """Bring a TaskSpec dict of any known version up to :data:`SCHEMA_VERSION`."""
    version = 0 if is_paper_format(data) else data.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise SchemaVersionError(f"schema_version must be a non-negative integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"this task file has schema_version {version}, but this tambench reads versions up "
            f"to {SCHEMA_VERSION}; upgrade tambench to read it"
        )
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data, task_id)
        version = data.get("schema_version", version + 1)
    return data


def parse_taskspec(data: dict[str, Any], task_id: str | None = None, *, source: str = "") -> TaskSpec:
    """Validate a dict (any known schema version) into a TaskSpec."""
    where = f" in {source}" if source else ""
    if not isinstance(data, dict):
        raise TaskSpecError(f"a task spec must be a JSON object{where}, got {type(data).__name__}")
    data = migrate(data, task_id)
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as exc:
        raise TaskSpecError(f"invalid task spec{where}:\n{exc}") from exc


def load_taskspec(path: str | os.PathLike[str], task_id: str | None = None) -> TaskSpec:
    """Read a task file. A paper-format file needs ``task_id``.

    The file is read by the bounded loader (:mod:`tambench.core.bounded`): UTF-8, or UTF-16/32
    with a byte-order mark; anything malformed, too large, too deep or holding an over-long
    integer raises :class:`TaskSpecError` naming the file."""
    p = Path(path)
    try:
        data = load_json(p, error=TaskSpecError)
    except FileNotFoundError:
        raise TaskSpecError(f"task file not found: {p}") from None
    except IsADirectoryError:
        raise TaskSpecError(f"{p} is a folder; a task file is needed") from None
    return parse_taskspec(data, task_id, source=str(p))


def dump_taskspec(spec: TaskSpec) -> str:
    """Serialise a TaskSpec as stable, indented JSON (fields in declaration order)."""
    return spec.model_dump_json(indent=2, exclude_none=False) + "\n"


def save_taskspec(spec: TaskSpec, path: str | os.PathLike[str]) -> None:
    """Write a TaskSpec atomically."""
    write_text_atomic(path, dump_taskspec(spec))


def taskspec_json_schema() -> dict[str, Any]:
    """The JSON Schema of the TaskSpec, field docstrings included as descriptions."""
    return TaskSpec.model_json_schema()
