"""MLE-bench's split per category of a JSON metadata file (the herbaria's, iNaturalist's).

The raw metadata pairs each image with its annotation; each category's pairs (in the order
the categories first appear) are split by their own ``train_test_split``, the test pairs of
all categories are then shuffled by Python's seeded ``random``, renumbered and renamed (their
ids and file names would give their category away), and each side's metadata, the answers and
the sample are written as MLE-bench's ``prepare.py`` writes them (recipe:
:class:`~tambench.splits.mlebench_recipe.MleCategories`).
"""

from __future__ import annotations

import json
import random
import shutil
import tarfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tambench._optional import require
from tambench.core.bounded import REPORT_BOUNDS, parse_json
from tambench.errors import SplitError
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_recipe import MleCategories, MleCategorySide

if TYPE_CHECKING:
    import pandas as pd

Pair = tuple[dict[str, Any], dict[str, Any]]  # (annotation, image)


def _metadata(raw_root: Path, recipe: MleCategories) -> dict[str, Any]:
    path = resolve_inside(raw_root, recipe.metadata, "MLE-bench recipe metadata")
    try:
        text = path.read_bytes().decode(recipe.encoding)
    except (OSError, UnicodeDecodeError) as exc:
        raise SplitError(f"cannot read {recipe.metadata} as MLE-bench does: {exc}") from exc
    doc = parse_json(text, recipe.metadata, error=SplitError, bounds=REPORT_BOUNDS)
    if not isinstance(doc, dict) or not all(
            isinstance(doc.get(k), list) for k in ("annotations", "images")):
        raise SplitError(f"{recipe.metadata}: MLE-bench reads an object with the lists "
                         "'annotations' and 'images'")
    if not doc["images"] or len(doc["annotations"]) != len(doc["images"]):
        raise SplitError(f"{recipe.metadata}: MLE-bench pairs each image with one annotation; "
                         f"{len(doc['images'])} images, {len(doc['annotations'])} annotations")
    return doc


def _by_category(doc: dict[str, Any], recipe: MleCategories) -> dict[Any, list[Pair]]:
    groups: dict[Any, list[Pair]] = {}
    for annotation, image in zip(doc["annotations"], doc["images"], strict=False):
        if not isinstance(annotation, dict) or not isinstance(image, dict):
            raise SplitError(f"{recipe.metadata}: annotations and images must be objects")
        if "category_id" not in annotation or annotation.get("image_id") != image.get(
                recipe.image_key):
            raise SplitError(f"{recipe.metadata}: annotation {annotation.get('id')!r} lacks a "
                             f"category_id or names another image than its image's "
                             f"{recipe.image_key!r}")
        groups.setdefault(annotation["category_id"], []).append((annotation, image))
    return groups


def split_per_category(doc: dict[str, Any], recipe: MleCategories
                       ) -> tuple[dict[Any, list[Pair]], list[Pair]]:
    """Each category's training pairs, and all test pairs shuffled, as MLE-bench splits."""
    split = require("sklearn.model_selection", extra="mlebench", feature="prepare --like mle-bench").train_test_split
    train: dict[Any, list[Pair]] = {}
    test: list[Pair] = []
    for category, pairs in _by_category(doc, recipe).items():
        n = len(pairs)
        if recipe.few and n == 1:
            kept, held = pairs, []
        elif recipe.few and n < 5:
            count = max(1, int(n * recipe.test_size))
            kept, held = pairs[:-count], pairs[-count:]
        else:
            try:
                kept, held = split(pairs, test_size=recipe.test_size,
                                   random_state=recipe.random_state)
            except ValueError as exc:
                raise SplitError(f"category {category!r} of {recipe.metadata} ({n} images) "
                                 f"cannot be split as MLE-bench splits it: {exc}") from exc
        train[category] = kept
        test.extend(held)
    random.Random(recipe.shuffle_seed).shuffle(test)
    return train, test


def _renamed(pairs: list[Pair], side: MleCategorySide, idx: int, n: int) -> Pair:
    annotation, image = (dict(p) for p in pairs[0])
    category = annotation["category_id"]
    try:
        fields = {"idx": idx, "idx_1000": idx // 1000, "n": n, "category": category,
                  "category_100": category // 100, "category_rest": category % 100,
                  "base": str(image.get("file_name")).split("/")[-1]}
        new_id = None if side.new_id is None else side.new_id.format(**fields)
        file_name = None if side.file_name is None else side.file_name.format(**fields)
    except (TypeError, ValueError) as exc:
        raise SplitError(f"category {category!r}: MLE-bench's new names need an integer "
                         f"category id ({exc})") from exc
    if new_id is not None:
        annotation["image_id"] = new_id
        image[side.id_field] = new_id
    if file_name is not None:
        image["file_name"] = file_name
    return annotation, image


def copy_raw_file(raw_root: Path, out: Path, src: str, dst: str) -> None:
    """The raw file ``src`` copied to ``dst`` under ``out`` (both checked inside)."""
    source = resolve_inside(raw_root, src, "MLE-bench recipe file")
    if not source.is_file():
        raise SplitError(f"MLE-bench copies the raw file {src}; the raw folder lacks it")
    target = resolve_inside(out, dst, "MLE-bench recipe file")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def write_tables(raw_root: Path, out: Path, tables: dict[str, pd.DataFrame],
                 copies: dict[str, str]) -> None:
    """Each table written by ``to_csv(index=False)``, then the raw files copied unchanged."""
    for rel, frame in tables.items():
        target = resolve_inside(out, rel, "MLE-bench recipe file")
        target.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(target, index=False)
    for dest, src in copies.items():
        copy_raw_file(raw_root, out, src, dest)


def _tar_folder(out: Path, archive: str, folder: str) -> None:
    """``folder`` (under ``out``) put in the uncompressed tar ``archive``, then removed."""
    src = resolve_inside(out, folder, "MLE-bench recipe folder")
    target = resolve_inside(out, archive, "MLE-bench recipe archive")
    with tarfile.open(target, "w") as tar:
        for path in sorted(p for p in src.rglob("*") if p.is_file()):
            tar.add(path, arcname=str(path.relative_to(src)))
    shutil.rmtree(src)


def _sample_values(recipe: MleCategories, n: int) -> list[int]:
    if isinstance(recipe.sample_value, int):
        return [recipe.sample_value] * n
    seed, low, high = recipe.sample_value.reseeded_randint
    return [random.Random(seed).randint(low, high) for _ in range(n)]


def _write_side(raw_root: Path, out: Path, doc: dict[str, Any], groups: list[list[Pair]],
                side: MleCategorySide) -> list[Pair]:
    """Write one side's metadata and copy its files; its (annotation, image) pairs."""
    written: list[Pair] = []
    for group in groups:
        for n, pair in enumerate(group, start=1):
            new = _renamed([pair], side, len(written), n)
            src = side.src.format(file_name=pair[1].get("file_name"))
            dst = side.dst.format(new_file_name=new[1].get("file_name"))
            copy_raw_file(raw_root, out, src, dst)
            written.append(new)
    meta = {**doc, "annotations": [a for a, _ in written], "images": [i for _, i in written]}
    meta = {k: v for k, v in meta.items() if k not in side.drop}
    body = meta[side.only] if side.only is not None else meta
    target = resolve_inside(out, side.to, "MLE-bench recipe metadata")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        json.dump(body, f, indent=4, sort_keys=True)
    return written


def build_per_category(recipe: MleCategories, raw_root: Path, out: Path) -> dict[str, object]:
    """Write MLE-bench's per-category split from ``raw_root`` into ``out``; the report's
    figures."""
    pd = require("pandas", extra="mlebench", feature="prepare --like mle-bench")
    doc = _metadata(raw_root, recipe)
    train, test = split_per_category(doc, recipe)
    kept = _write_side(raw_root, out, doc, list(train.values()), recipe.train)
    held = _write_side(raw_root, out, doc, [[p] for p in test], recipe.test)
    ids = [image[recipe.test.id_field] for _, image in held]
    answers = pd.DataFrame({recipe.id_column: ids,
                            recipe.label_column: [a["category_id"] for a, _ in held]})
    sample = pd.DataFrame({recipe.id_column: ids,
                           recipe.label_column: _sample_values(recipe, len(ids))})
    write_tables(raw_root, out, {recipe.answers: answers, recipe.sample: sample},
                 recipe.copies)
    for archive, folder in recipe.tar_folders.items():
        _tar_folder(out, archive, folder)
    return {"table": recipe.metadata, "test_size": recipe.test_size,
            "random_state": recipe.random_state, "per_category": True,
            "rows": len(kept) + len(held), "train_rows": len(kept), "test_rows": len(held),
            "files": [recipe.train.to, recipe.test.to, recipe.answers, recipe.sample,
                      *recipe.copies, *recipe.tar_folders]}
