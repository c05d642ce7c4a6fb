"""MLE-bench splits of their own kind: the "MLE-bench split kind" extension point.

Most of MLE-bench's ``prepare.py`` scripts are one ``train_test_split`` of a table's rows and are
written as :class:`~tambench.splits.mlebench_recipe.MleRecipe` data. A script whose split reads
or writes something else (the records of TFRecord or BSON files, Parquet batches, drive
folders, groups of JSON metadata...) is a *kind*: a module that defines the kind's settings (a
pydantic model) and a builder, registered here under the kind's name. Its competitions are
listed in ``mlebench_recipes.json`` under ``special``, each entry naming its ``kind`` beside the
kind's settings::

    "special": {"cassava-leaf-disease-classification": {"kind": "tfrecords", ...}}

A builder ``build(settings, spec, raw_root, out) -> report`` writes MLE-bench's files from the
raw folder into ``out`` (``public/`` and ``private/``, under MLE-bench's names) and returns the
report's figures (rows per side, files written); it raises :class:`~tambench.errors.SplitError`
naming what in the raw folder does not fit. A kind of one's own::

    MLE_KINDS.register("mykind", MleKind(MySettings, build_mykind))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from tambench.core.registry import Registry
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec

Builder = Callable[[Any, TaskSpec, Path, Path], dict[str, object]]


@dataclass(frozen=True)
class MleKind:
    """One kind: its settings' model and its builder."""

    settings: type[BaseModel]
    build: Builder


@dataclass(frozen=True)
class SpecialRecipe:
    """A competition's entry under ``special``: its kind's name, the kind, its settings."""

    name: str
    kind: MleKind
    settings: BaseModel


MLE_KINDS: Registry[MleKind] = Registry(
    "MLE-bench split kind", error=SplitError,
    hint="the kinds are registered in tambench.splits.mlebench_kinds")


def special_recipe(slug: str, entry: dict[str, Any]) -> SpecialRecipe:
    """Validate ``entry`` (from ``special``) with its kind's settings model.

    Raises:
        SplitError: the entry names no kind or an unknown one, or its settings do not fit.
    """
    fields = dict(entry)
    name = fields.pop("kind", None)
    if not isinstance(name, str):
        raise SplitError(f"MLE-bench recipe of {slug} under 'special' names no 'kind'")
    kind = MLE_KINDS[name]
    try:
        settings = kind.settings.model_validate(fields)
    except ValidationError as exc:
        raise SplitError(f"MLE-bench recipe of {slug} (kind {name!r}) is invalid: {exc}") from exc
    return SpecialRecipe(name, kind, settings)


def build_special(recipe: SpecialRecipe, spec: TaskSpec, raw_root: Path,
                  out: Path) -> dict[str, object]:
    """Write a special kind's split; the report (``kind`` and the builder's figures)."""
    return {"kind": recipe.name, **recipe.kind.build(recipe.settings, spec, raw_root, out)}


MLE_KINDS.register_lazy("nuscenes_logs", "tambench.splits.mlebench_nuscenes:KIND")
MLE_KINDS.register_lazy("bson", "tambench.splits.mlebench_bson:KIND")
MLE_KINDS.register_lazy("jsonl_chunks", "tambench.splits.mlebench_jsonl_chunks:KIND")
MLE_KINDS.register_lazy("tfrecords", "tambench.splits.mlebench_tfrecords:KIND")
MLE_KINDS.register_lazy("batches", "tambench.splits.mlebench_batches:KIND")
MLE_KINDS.register_lazy("case_days", "tambench.splits.mlebench_case_days:KIND")
MLE_KINDS.register_lazy("mask_records", "tambench.splits.mlebench_mask_records:KIND")
MLE_KINDS.register_lazy("drives", "tambench.splits.mlebench_drives:KIND")
MLE_KINDS.register_lazy("ancestors", "tambench.splits.mlebench_ancestors:KIND")
