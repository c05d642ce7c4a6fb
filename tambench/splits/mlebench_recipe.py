"""MLE-bench's split of each competition, as data: ``mlebench_recipes.json``.

MLE-bench prepares a competition with its own ``prepare.py``. Where that script is one
``train_test_split`` of the rows of a raw CSV table (or of the groups of one of its columns),
followed by column selections and constant or seeded fills, its recipe is written here as
data (read from the script at the commit the file names, never run) and
:mod:`tambench.splits.like_mlebench` makes the same files. Every other MLE-bench competition
is listed under ``out`` with the reason its split cannot be made that way (answers reshaped
after a group split, several splits, files renamed...).

A recipe (:class:`MleRecipe`): the raw ``table`` and how pandas reads it (``sep``, ``dtype``,
``round_trip``: MLE-bench's ``read_csv`` helper reads floats round-trip, a bare
``pd.read_csv`` does not), rows dropped first (``exclude``), missing values filled
(``fillna``), the ``split`` (``test_size`` and ``train_size`` as ``train_test_split`` takes them,
or ``test_share_of_files``: the share the raw files matching a pattern would make, as
histopathologic's script computes it; ``groups``: the groups of a column are split, not the
rows, :class:`MleGroups`), the rows' ``order`` (``split``: shuffled as returned;
``table``: the table's order, where the script selects rows with ``isin``), ids renumbered
after the split (``renumber``), then each written file (:class:`MleFile`), tables filtered by
the training or test rows (:class:`MleFilter`), raw files copied unchanged (``copies``) and
the files of the script not made here, with why (``omitted``: none is one of the files
grading reads).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tambench.core.bounded import parse_json
from tambench.errors import MalformedInputError, SplitError

RECIPES_FILE = "mlebench_recipes.json"
#: In a file's ``keep`` list, the task's class columns (its split's ``target_columns``).
CLASSES_TOKEN = "@classes"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MleRandom(_Strict):
    """Seeded values, as the script draws them: ``uniform`` is NumPy's
    ``default_rng(seed).uniform(low, high, n)`` (rounded to ``round`` places), ``randint`` is
    ``RandomState(seed).randint(low, high, size=n)``."""

    random: Literal["uniform", "randint"]
    seed: int
    low: float
    high: float
    round: int | None = None


class MleMean(_Strict):
    """The mean of a column over the training rows (``new_train[column].mean()``)."""

    mean_of_train: str


class MleOneHot(_Strict):
    """One column per class (the task's ``target_columns``, in their order): 1 in the row's
    class, else 0, after the ``id`` column; the other columns dropped."""

    id: str
    target: str


class MleFile(_Strict):
    """One written file: the training or test rows, then ``join`` and ``copy_of`` (new
    columns), ``keep`` (columns in this order), ``drop``, ``rename``, ``one_hot``,
    ``first_by``, ``set`` (a column to a constant, seeded values or the training rows' mean,
    added at the end when new), ``fill_classes`` (every class column to a constant) and
    ``sort_by``; written as pandas writes ``to_csv(index=False, sep=sep,
    float_format=float_format)``, zipped alone as ``<to>.zip`` if ``zip``."""

    to: str
    rows: Literal["train", "test"]
    join: dict[str, list[str]] = Field(default_factory=dict)
    """New columns first: the listed columns' values as text joined by ``_``."""
    copy_of: dict[str, str] = Field(default_factory=dict)
    """Then new columns holding another column's values (new name -> column)."""
    keep: list[str] | None = None
    drop: list[str] = Field(default_factory=list)
    rename: dict[str, str] = Field(default_factory=dict)
    one_hot: MleOneHot | None = None
    first_by: str | None = None
    """One row per value of the column, sorted by it, each other column's first non-missing
    value (``groupby(column).first().reset_index()``)."""
    set: dict[str, bool | int | float | str | MleRandom | MleMean] = Field(default_factory=dict)
    fill_classes: int | float | None = None
    sort_by: str | None = None
    sep: str = ","
    float_format: str | None = None
    quote_nonnumeric: bool = False
    """Every value that is not a number quoted (``quoting=csv.QUOTE_NONNUMERIC``)."""
    index: bool = False
    """Written with the rows' labels in the raw table as a first, unnamed column
    (``to_csv(index=True)``)."""
    zip: bool = False


class MleFilter(_Strict):
    """Another raw table's rows whose ``column`` holds an id of the training (or test) rows,
    in that table's order (``isin``), optionally sorted."""

    to: str
    table: str
    column: str
    rows: Literal["train", "test"]
    sort_by: str | None = None


class MleGroups(_Strict):
    """The split is of the groups of ``column``, each group's rows going to one side.
    ``unique``: the values as ``frame[column].unique()`` lists them are split, and each side
    keeps its rows in the table's order (``isin``); ``groupby``: the groups as
    ``frame.groupby(column)`` lists them (sorted, missing values dropped) are split, and each
    side is their rows concatenated in the split's order."""

    column: str
    kind: Literal["unique", "groupby"]


class MleSplit(_Strict):
    groups: MleGroups | None = None
    test_size: float | int | None = None
    train_size: float | int | None = None
    test_share_of_files: str | None = None
    random_state: int

    @model_validator(mode="after")
    def _one_size(self) -> MleSplit:
        if self.test_share_of_files is not None and self.test_size is not None:
            raise ValueError("test_share_of_files and test_size are exclusive")
        if self.test_size is None and self.train_size is None and not self.test_share_of_files:
            raise ValueError("give test_size, train_size or test_share_of_files")
        return self


class MleRenumber(_Strict):
    """``column`` renumbered from ``start``: the training rows in their order, then the test
    rows continuing after them (``restart``: the test rows from ``start`` again)."""

    column: str
    start: int = 0
    restart: bool = False
    by_value: bool = False
    """Each side's distinct values numbered in the order they first appear (every row of a
    value gets its number), each side from ``start``."""


class MleRecipe(_Strict):
    table: str
    sep: str = ","
    dtype: dict[str, Literal["str", "int"]] = Field(default_factory=dict)
    round_trip: bool = True
    exclude: dict[str, list[str]] = Field(default_factory=dict)
    fillna: str | None = None
    split: MleSplit
    order: Literal["split", "table"] = "split"
    renumber: MleRenumber | None = None
    files: list[MleFile]
    filters: list[MleFilter] = Field(default_factory=list)
    copies: dict[str, str] = Field(default_factory=dict)
    omitted: dict[str, str] = Field(default_factory=dict)
    """Files MLE-bench's script also writes that are not made here, each with why."""


class MleRecipes(_Strict):
    source: str
    commit: str
    recipes: dict[str, MleRecipe]
    out: dict[str, str]

    @model_validator(mode="after")
    def _disjoint(self) -> MleRecipes:
        both = sorted(set(self.recipes) & set(self.out))
        if both:
            raise ValueError(f"listed both as a recipe and out: {both}")
        return self


@lru_cache(maxsize=1)
def load_recipes() -> MleRecipes:
    """The bundled recipes (validated once)."""
    text = resources.files("tambench.splits").joinpath(RECIPES_FILE).read_text("utf-8")
    try:
        return MleRecipes.model_validate(parse_json(text, RECIPES_FILE))
    except (ValidationError, ValueError, MalformedInputError) as exc:
        raise SplitError(f"{RECIPES_FILE} is invalid: {exc}") from exc


def recipe_for(slug: str, task_id: str) -> MleRecipe:
    """MLE-bench's recipe of competition ``slug``.

    Raises:
        SplitError: MLE-bench does not hold the competition, or its split is not one
            ``train_test_split`` of a table's rows (the reason named).
    """
    recipes = load_recipes()
    if slug in recipes.recipes:
        return recipes.recipes[slug]
    out = {k.lower(): v for k, v in recipes.out.items()}  # MLE-bench spells AI4Code so
    where = f"MLE-bench's prepare.py (openai/mle-bench at {recipes.commit[:7]})"
    why = (f"{where} cannot be reproduced this way: {out[slug.lower()]}"
           if slug.lower() in out else "MLE-bench does not hold this competition")
    raise SplitError(f"task {task_id} cannot be prepared --like mle-bench: {why}; prepare it "
                     "with `tambench prepare` (tambench's own split)")
