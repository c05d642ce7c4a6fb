"""MLE-bench's split of camera locations moved between the sides until the test share is
reached (iWildCam 2020; recipe: :class:`~tambench.splits.mlebench_recipe.MleLocations`).

The images' locations are split once by ``train_test_split``; then, as the script does, the
last training location moves to the test side while the test images are fewer than the share
asked of all the images plus the test images (the script's own denominator), and the last test
location moves back while they are more. Each side's images and annotations are written back
by ``json.dump`` and the images copied, as MLE-bench's ``prepare.py`` writes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tambench._optional import require
from tambench.core.bounded import REPORT_BOUNDS, load_json
from tambench.errors import SplitError
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_categories import copy_raw_file, write_tables
from tambench.splits.mlebench_recipe import MleLocations

if TYPE_CHECKING:
    import pandas as pd

_FEATURE = "prepare --like mle-bench"


def _load(raw_root: Path, rel: str, keys: tuple[str, ...]) -> dict[str, Any]:
    path = resolve_inside(raw_root, rel, "MLE-bench recipe metadata")
    try:
        doc = load_json(path, error=SplitError, bounds=REPORT_BOUNDS, source=rel)
    except OSError as exc:
        raise SplitError(f"cannot read {rel} as MLE-bench does: {exc}") from exc
    if not isinstance(doc, dict) or any(k not in doc for k in keys):
        raise SplitError(f"{rel}: MLE-bench reads an object with the keys {list(keys)}")
    return doc


def move_locations(images: pd.DataFrame, recipe: MleLocations
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The training and test images, locations split then moved as the script moves them."""
    split = require("sklearn.model_selection", extra="mlebench", feature=_FEATURE)
    if recipe.group not in images.columns or "id" not in images.columns:
        raise SplitError(f"{recipe.metadata}: its images need the fields 'id' and "
                         f"{recipe.group!r}")
    kept, held = split.train_test_split(images[recipe.group].unique(),
                                        test_size=recipe.test_size,
                                        random_state=recipe.random_state)

    def share(test_groups: Any) -> float:
        test_rows = int(images[recipe.group].isin(test_groups).sum())
        return test_rows / (len(images) + test_rows)

    while share(held) < recipe.test_size and len(kept):
        kept, held = kept[:-1], np.append(held, kept[-1])
    while share(held) > recipe.test_size and len(held):
        held, kept = held[:-1], np.append(kept, held[-1])
    return (images[images[recipe.group].isin(kept)], images[images[recipe.group].isin(held)])


def _dump(out: Path, rel: str, doc: dict[str, Any]) -> None:
    target = resolve_inside(out, rel, "MLE-bench recipe file")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def build_by_location(recipe: MleLocations, raw_root: Path, out: Path) -> dict[str, object]:
    """Write MLE-bench's location split from ``raw_root`` into ``out``; the report's figures."""
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    meta = _load(raw_root, recipe.metadata, ("annotations", "images", "categories", "info"))
    info = _load(raw_root, recipe.test_information, ("categories", "info"))
    annotations = pd.DataFrame(meta["annotations"])
    images = pd.DataFrame(meta["images"])
    train, test = move_locations(images, recipe)
    if "image_id" not in annotations.columns:
        raise SplitError(f"{recipe.metadata}: its annotations need the field 'image_id'")
    train_ann = annotations[annotations["image_id"].isin(train["id"].unique())]
    test_ann = annotations[annotations["image_id"].isin(test["id"].unique())]
    categories = pd.DataFrame(meta["categories"]).to_dict(orient="records")
    _dump(out, recipe.train_to, {"annotations": train_ann.to_dict(orient="records"),
                                 "images": train.to_dict(orient="records"),
                                 "categories": categories, "info": meta["info"]})
    _dump(out, recipe.test_to, {
        "images": test.to_dict(orient="records"),
        "categories": pd.DataFrame(info["categories"]).to_dict(orient="records"),
        "info": info["info"]})
    answers = test_ann[list(recipe.answer_columns)].rename(columns=recipe.answer_columns)
    rnd = recipe.sample_random
    sample = answers.copy()
    sample[list(recipe.answer_columns.values())[-1]] = np.random.RandomState(rnd.seed).randint(
        int(rnd.low), int(rnd.high), size=len(sample))
    write_tables(raw_root, out, {recipe.answers: answers, recipe.sample: sample},
                 recipe.copies)
    for side, frame in (("train", train), ("test", test)):
        for image_id in frame["id"].unique():
            copy_raw_file(raw_root, out, recipe.image_src.format(id=image_id),
                  recipe.image_to.format(side=side, id=image_id))
    return {"table": recipe.metadata, "test_size": recipe.test_size,
            "random_state": recipe.random_state,
            "groups": {"column": recipe.group, "kind": "unique", "moved_to_share": True},
            "rows": len(images), "train_rows": len(train), "test_rows": len(test),
            "files": [recipe.train_to, recipe.test_to, recipe.answers, recipe.sample,
                      *recipe.copies]}
