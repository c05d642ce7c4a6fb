"""MLE-bench's split of notebooks by whole ancestor groups (kind ``ancestors``: AI4Code).

On Kaggle a notebook may be a fork of another; the raw ancestry table gives each notebook its
ancestor. As MLE-bench's ``prepare.py`` does, the table is read by pandas (``round_trip``
floats), shuffled once (``sample(frac=1, random_state=...)``), and its rows grouped by ancestor
in the order the ancestors first appear; walking the groups in that order, a group goes whole to
the test side while it fits in the fixed test count, else to the training side, and the test
side must then hold exactly that count. Each notebook's JSON file is copied to its side; the
cell orders are split by the same ids (answers in ``private/``), the shuffled ancestry table is
published without the test notebooks, and the sample submission gives each test notebook's
cells in the order its JSON file lists them. Every check of the script is made, each failing
as a :class:`~tambench.errors.SplitError` naming what does not fit.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require
from tambench.core.bounded import load_json
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_kinds import MleKind
from tambench.splits.mlebench_kindsettings import read_table

if TYPE_CHECKING:
    import pandas as pd

_FEATURE = "prepare --like mle-bench"


class AncestorsSettings(BaseModel):
    """The script's facts (``special`` entry of kind ``ancestors``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ancestors: str
    """The raw ancestry table ("train_ancestors.csv")."""
    orders: str
    """The raw answers table ("train_orders.csv")."""
    id_column: str
    group_column: str
    random_state: int
    """The shuffle's seed."""
    test_count: int = Field(gt=0)
    """Notebooks held out, exactly."""
    notebooks: str
    """A notebook's raw file, ``{<id_column>}`` its id ("train/{id}.json")."""
    train_to: str
    test_to: str
    """Where a training or test notebook's file is copied ("public/test/{id}.json")."""
    orders_to: str
    """The training notebooks' rows of the answers table ("public/train_orders.csv")."""
    answers: str
    """The test notebooks' rows ("private/test_orders.csv")."""
    ancestors_to: str
    """The shuffled ancestry table without the test notebooks ("public/train_ancestors.csv")."""
    sample: str
    sample_column: str
    """The sample submission's column of cell ids ("cell_order")."""
    cells_key: str
    """The notebook JSON object whose keys are its cell ids, in order ("cell_type")."""


def split_notebooks(frame: pd.DataFrame, settings: AncestorsSettings
                    ) -> tuple[pd.DataFrame, Any]:
    """(the shuffled table, its test rows' mask): whole groups taken while they fit."""
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    shuffled = frame.sample(frac=1, random_state=settings.random_state).reset_index(drop=True)
    groups = shuffled[settings.group_column]
    if groups.isna().any():
        raise SplitError(f"{settings.ancestors}: {int(groups.isna().sum())} notebook(s) have no "
                         f"{settings.group_column}; MLE-bench groups every notebook by it")
    codes, _ = pd.factorize(groups)  # the groups in the order they first appear
    taken = np.zeros(int(codes.max()) + 1 if len(codes) else 0, dtype=bool)
    count = 0
    for group, size in enumerate(np.bincount(codes)):
        if count + size <= settings.test_count:
            taken[group] = True
            count += int(size)
    if count != settings.test_count:
        why = (f"{settings.ancestors} has only {len(frame)}" if len(frame) < settings.test_count
               else f"the groups taken in the shuffled order add up to {count}")
        raise SplitError(f"MLE-bench holds out exactly {settings.test_count} notebooks in whole "
                         f"{settings.group_column} groups; {why}")
    return shuffled, taken[codes]


class _Places:
    """The files a template names with the notebooks' ids. Each folder is checked inside its
    root once (the real download holds 140,000 notebooks), a file that is a link on its own."""

    def __init__(self, id_column: str) -> None:
        self.id_column = id_column
        self.folders: dict[tuple[Path, str], Path] = {}

    def __call__(self, root: Path, template: str, value: Any) -> Path:
        rel = template.format_map({self.id_column: value})
        folder, _, name = rel.rpartition("/")
        if name in ("", ".", "..") or "\\" in name or "\x00" in name:
            raise SplitError(f"the notebook id {value!r} does not name a file ({rel!r})")
        key = (root, folder or ".")
        if key not in self.folders:
            self.folders[key] = resolve_inside(root, key[1], "MLE-bench notebook folder")
        path = self.folders[key] / name
        if path.is_symlink():
            resolve_inside(root, rel, "MLE-bench notebook")
        return path


def _copy_notebooks(raw_root: Path, out: Path, ids: list[Any], src: str, dst: str,
                    places: _Places) -> None:
    made: set[Path] = set()
    for value in ids:
        source, target = places(raw_root, src, value), places(out, dst, value)
        if not source.is_file():
            raise SplitError(f"MLE-bench copies the raw notebook "
                             f"{source.relative_to(raw_root).as_posix()}; the raw folder "
                             "lacks it")
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        shutil.copyfile(source, target)


def _cell_order(path: Path, rel: str, key: str) -> str:
    """A notebook's cell ids, in the order its JSON object ``key`` lists them."""
    try:
        doc = load_json(path, error=SplitError, source=rel)
    except OSError as exc:
        raise SplitError(f"cannot read the notebook {rel}: {exc}") from exc
    cells = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(cells, dict):
        raise SplitError(f"{rel}: MLE-bench reads the notebook's cell ids from its object "
                         f"{key!r}, which it lacks")
    return " ".join(cells)


def _write(frame: pd.DataFrame, out: Path, rel: str) -> None:
    path = resolve_inside(out, rel, "MLE-bench recipe file")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(frame.to_csv(index=False, lineterminator="\n"), encoding="utf-8")


def build(settings: AncestorsSettings, spec: TaskSpec, raw_root: Path,
          out: Path) -> dict[str, Any]:
    """Write MLE-bench's split of the notebooks (see the module docstring); the report's
    figures."""
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    ids = settings.id_column
    frame = read_table(raw_root, settings.ancestors, [ids, settings.group_column])
    shuffled, held = split_notebooks(frame, settings)
    train_ids = shuffled[ids][~held].tolist()
    test_ids = shuffled[ids][held].tolist()
    places = _Places(ids)
    _copy_notebooks(raw_root, out, train_ids, settings.notebooks, settings.train_to, places)
    _copy_notebooks(raw_root, out, test_ids, settings.notebooks, settings.test_to, places)
    orders = read_table(raw_root, settings.orders, [ids])
    answers = orders[orders[ids].isin(test_ids)]
    _write(orders[orders[ids].isin(train_ids)], out, settings.orders_to)
    _write(answers, out, settings.answers)
    _write(shuffled[~shuffled[ids].isin(test_ids)], out, settings.ancestors_to)
    cells = [_cell_order(places(out, settings.test_to, value),
                         settings.test_to.format_map({ids: value}), settings.cells_key)
             for value in answers[ids]]
    if len(cells) != len(test_ids):
        raise SplitError(f"{settings.orders} holds {len(cells)} of the {len(test_ids)} test "
                         "notebooks; MLE-bench's sample submission needs one row each")
    _write(pd.DataFrame({ids: answers[ids].tolist(), settings.sample_column: cells}), out,
           settings.sample)
    return {"table": settings.ancestors, "random_state": settings.random_state,
            "test_count": settings.test_count, "rows": len(frame),
            "train_rows": len(train_ids), "test_rows": len(test_ids),
            "files": [settings.orders_to, settings.answers, settings.ancestors_to,
                      settings.sample, *(Path(t).parent.as_posix()
                                         for t in (settings.train_to, settings.test_to))],
            "omitted": {}}


KIND = MleKind(AncestorsSettings, build)
