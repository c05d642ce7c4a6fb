"""``prepare --like mle-bench`` of AI4Code (kind ``ancestors``): a seeded shuffle of the
notebooks, then whole ancestor groups held out up to a fixed count, on the generated download
(its notebooks written here as JSON, as Kaggle gives them), against files built here with
pandas and the script's own walk over the groups."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tambench.errors import SplitError, UnsafePathError
from tambench.splits.mlebench_kinds import SpecialRecipe
from tambench.splits.mlebench_recipe import recipe_for
from tests.splits.test_like_mlebench import CATALOGUE, _csv, _generated, _made, _text

SPEC = CATALOGUE.get("kaggle/ai4code").spec


def _notebooks(raw: Path) -> dict[str, list[str]]:
    """Each training notebook written as JSON, its cells listed in an order of their own (not
    the answer's); ancestors regrouped into groups of 1 to 5 notebooks."""
    orders = pd.read_csv(raw / "train_orders.csv")
    cells = {}
    for i, (nid, order) in enumerate(zip(orders["id"], orders["cell_order"], strict=True)):
        listed = order.split()[::-1] + [f"c{i:07x}"]
        (raw / "train" / f"{nid}.json").write_text(json.dumps(
            {"cell_type": {c: "code" for c in listed}, "source": {c: "" for c in listed}}))
        cells[nid] = listed
    ancestors = pd.read_csv(raw / "train_ancestors.csv")
    sizes = [1, 5, 2, 1, 4, 3] * len(ancestors)
    group = [g for g, size in enumerate(sizes) for _ in range(size)][:len(ancestors)]
    ancestors["ancestor_id"] = [f"b{g:07x}" for g in group]
    ancestors.to_csv(raw / "train_ancestors.csv", index=False)
    return cells


def _made_with(raw: Path, out: Path, test_count: int) -> dict[str, object]:
    """The shipped recipe's split with another test count (the generated download holds 90
    notebooks, MLE-bench's count is 20000)."""
    recipe = recipe_for(SPEC.slug, SPEC.id)
    assert isinstance(recipe, SpecialRecipe)
    settings = recipe.settings.model_copy(update={"test_count": test_count})
    return recipe.kind.build(settings, SPEC, raw, out)


def test_whole_ancestor_groups_held_out_in_shuffled_order_up_to_the_count(
        tmp_path: Path) -> None:
    raw = _generated("ai4code", tmp_path)
    cells = _notebooks(raw)
    out = tmp_path / "out"
    report = _made_with(raw, out, 31)
    ancestors = pd.read_csv(raw / "train_ancestors.csv", dtype=str, keep_default_na=False)
    shuffled = ancestors.sample(frac=1, random_state=0).reset_index(drop=True)
    groups: dict[str, list[str]] = {}
    for nid, ancestor in zip(shuffled["id"], shuffled["ancestor_id"], strict=True):
        groups.setdefault(ancestor, []).append(nid)
    test: list[str] = []
    for members in groups.values():
        if len(test) + len(members) <= 31:
            test.extend(members)
    assert len(test) == 31 and report["test_rows"] == 31
    train = [n for n in shuffled["id"] if n not in test]
    assert sorted(p.stem for p in (out / "public" / "test").iterdir()) == sorted(test)
    assert sorted(p.stem for p in (out / "public" / "train").iterdir()) == sorted(train)
    assert (out / "public" / "test" / f"{test[0]}.json").read_bytes() == (
        raw / "train" / f"{test[0]}.json").read_bytes()
    orders = pd.read_csv(raw / "train_orders.csv", dtype=str)
    answers = orders[orders["id"].isin(test)]
    assert _text(out / "private" / "test_orders.csv") == _csv(answers)
    assert _text(out / "public" / "train_orders.csv") == _csv(orders[orders["id"].isin(train)])
    assert _text(out / "public" / "train_ancestors.csv") == _csv(
        shuffled[~shuffled["id"].isin(test)])
    sample = pd.DataFrame({"id": answers["id"],
                           "cell_order": [" ".join(cells[n]) for n in answers["id"]]})
    assert _text(out / "public" / "sample_submission.csv") == _csv(sample)


def test_a_count_the_groups_cannot_make_or_a_missing_notebook_is_refused(
        tmp_path: Path) -> None:
    raw = _generated("ai4code", tmp_path)
    with pytest.raises(SplitError, match="exactly 20000 notebooks .* has only 90"):
        _made("ai4code", raw, tmp_path)
    with pytest.raises(SplitError, match="exactly 31 notebooks .* add up to 30"):
        _made_with(raw, tmp_path / "a", 31)  # the generated groups are of 3 notebooks
    first = sorted((raw / "train").iterdir())[0]
    (tmp_path / "outside.json").write_text("{}")
    first.unlink()
    first.symlink_to(tmp_path / "outside.json")
    with pytest.raises(UnsafePathError, match=f"{first.name}.* resolves outside"):
        _made_with(raw, tmp_path / "c", 30)
    with pytest.raises(SplitError, match=r"raw notebook train/.*\.json; the raw folder lacks"):
        shutil.rmtree(raw / "train")
        _made_with(raw, tmp_path / "b", 30)
    assert not (tmp_path / "data" / "kaggle" / "ai4code").exists()


#: sha256 of MLE-bench's own files: its AI4Code prepare.py (openai/mle-bench at 783b15a) run
#: beside, with its test_size of 20000 changed to 31, on the raw folder the test below builds
#: (the generated download, its notebooks written by ``_notebooks``).
MLE_BENCH_AT_31 = {
    "private/test_orders.csv": "4b42593f28fa07b93aaf3cd1856121dfb5be8b73d4058eed0f68c8f2366f280e",
    "public/sample_submission.csv":
        "61b23905c6b0743515dc189527e974994a9da15a45f1478a38b3eff1c00b44d5",
    "public/train_ancestors.csv":
        "88376cb704917c276f54821dfe716bdc6db30348b9dfdeff2d5fc24121de5832",
    "public/train_orders.csv": "eb3652e1632f6a2d2a91f7ececfea78fd735747427e3edab3f350802f590afb3",
}


def test_the_files_are_mle_benchs_own(tmp_path: Path) -> None:
    raw = _generated("ai4code", tmp_path)
    _notebooks(raw)
    out = tmp_path / "out"
    _made_with(raw, out, 31)
    made = {rel: hashlib.sha256((out / rel).read_bytes()).hexdigest() for rel in MLE_BENCH_AT_31}
    assert made == MLE_BENCH_AT_31
    assert len(list((out / "public" / "test").iterdir())) == 31
