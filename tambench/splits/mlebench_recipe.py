"""MLE-bench's split of each competition, as data: ``mlebench_recipes.json``.

MLE-bench prepares a competition with its own ``prepare.py``. Where that script is one
``train_test_split`` of the rows of a raw table (a CSV table, a JSON list of records or a
sorted listing of files; or of the groups of one of its columns), followed by column
selections, constant or seeded fills, new numbers and renamed copies of the rows' files, its
recipe is written here as data (read from the script at the commit the file names, never run)
and :mod:`tambench.splits.like_mlebench` makes the same files. Every other MLE-bench
competition is listed under ``out`` with the reason its split cannot be made that way
(answers reshaped after a group split, several splits...).

A recipe (:class:`MleRecipe`): the raw ``table`` and how pandas reads it (``sep``, ``dtype``,
``round_trip``: MLE-bench's ``read_csv`` helper reads floats round-trip, a bare
``pd.read_csv`` does not; a ``.json`` table is a list of records, a ``.npy`` table a NumPy
array whose rows are split, with ``array_columns`` and ``arrays``, :class:`MleArray`; ``listing``: the table is
the raw files' names, :class:`MleListing`), new columns derived from the rows (``derive``,
:class:`MleContains`), rows dropped first (``exclude``), missing values filled
(``fillna``), the ``split`` (``test_size`` and ``train_size`` as ``train_test_split`` takes them,
or ``test_share_of_files``: the share the raw files matching a pattern would make, as
histopathologic's script computes it, or ``test_share_of_records``, the same of the records of
a JSON table; ``groups``: the groups of a column are split, not the rows, :class:`MleGroups`),
the rows' ``order`` (``split``: shuffled as returned; ``table``: the table's order, where the
script selects rows with ``isin``), ids renumbered after the split (``renumber``) and new
numbered columns of one side (``numbers``, :class:`MleNumber`), then each written file
(:class:`MleFile`), records written back as JSON (:class:`MleJson`), tables filtered by the
training or test rows (:class:`MleFilter`), the rows' files copied under MLE-bench's names
(``place``, :class:`MlePlace`), raw files copied unchanged (``copies``) and the files of the
script not made here, with why (``omitted``: none is one of the files grading reads).
A split per category of JSON metadata (the herbaria, iNaturalist) has its own recipe,
:class:`MleCategories`, listed under ``per_category``; iWildCam 2020's locations moved in a
loop, :class:`MleLocations`, under ``by_location``; the kinds of :mod:`mlebench_kinds` under
``special``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tambench.core.bounded import parse_json
from tambench.errors import MalformedInputError, SplitError
from tambench.splits.mlebench_kinds import SpecialRecipe, special_recipe

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


class MleLinspace(_Strict):
    """Evenly spaced values from ``low`` to ``high``, one a row (``np.linspace(low, high,
    n)``)."""

    linspace: tuple[float, float]


class MleSwap(_Strict):
    """When every test row holds one value of ``column``, the first test row and the first
    training row (in the split's order) whose ``column`` is not ``train_not`` exchange their
    values, each side keeping its row labels (as ``new_test.iloc[0] =
    new_train.loc[i]`` and back)."""

    column: str
    train_not: int | float | str


class MleDraw(_Strict):
    """After the split, one side's rows shuffled and each given a source drawn as MLE-bench
    draws them with Python's ``random`` seeded ``seed``: ``random.shuffle(rows)``, then per
    row ``random.choice([True, False])``; True: ``source`` column ``first``, ``label`` column
    0; False: ``random.choice(others)``, ``label`` 1."""

    rows: Literal["train", "test"]
    seed: int
    source: str
    label: str
    first: str
    others: list[str] = Field(min_length=1)


class MleOneHot(_Strict):
    """One column per class (the task's ``target_columns``, in their order): 1 in the row's
    class, else 0, after the ``id`` column; the other columns dropped."""

    id: str
    target: str


class MleMerge(_Strict):
    """The rows merged with the columns ``columns`` of a filter's ``side`` on the column ``on``
    (``merge(side[[on, *columns]], on=on)``: rows without a match dropped)."""

    side: str
    on: str
    columns: list[str]


class MleGrid(_Strict):
    """The rows become a grid: every value of ``rows_of`` (in ``unique()`` order) with every
    integer step of ``steps_of`` from its smallest to its largest value, merged with the rows
    on the two (``how="left"``: a step without a row gets empty cells)."""

    rows_of: str
    steps_of: str


class MleSetWhere(_Strict):
    """Where ``column`` equals ``equals``, the columns of ``values`` set to theirs
    (``out.loc[out[column] == equals, list(values)] = list(values.values())``)."""

    column: str
    equals: int | float | str
    values: dict[str, int | float | str]


class MleFile(_Strict):
    """One written file: the training or test rows, then ``merge``, ``grid``, ``presort``,
    ``join``,
    ``format`` and ``copy_of`` (new columns), ``keep`` (columns in this order), ``drop``, ``as_int``, ``unseen``, ``rename``,
    ``one_hot``, ``first_by``, ``fillna``, ``set_where``, ``set`` (a column to a constant,
    seeded values or the training rows' mean, added at the end when new), ``fill_classes``
    (every class column to a constant or evenly spaced values) and ``sort_by``; written as
    pandas writes ``to_csv(index=False, sep=sep, float_format=float_format)``, zipped alone as
    ``<to>.zip`` if ``zip`` (``<to>.7z`` with ``archive_format`` ``7z``)."""

    to: str
    rows: str
    """``train``, ``test``, ``test_groups`` (one row a test group of a ``unique`` group split,
    in the split's order: the group column alone) or a filter's ``side``."""
    merge: MleMerge | None = None
    """First of all: columns of another table merged in (see :class:`MleMerge`)."""
    grid: MleGrid | None = None
    """Then the rows made a grid (see :class:`MleGrid`)."""
    presort: str | None = None
    """Then the rows sorted by this column (``sort_values``), before ``first_by``."""
    join: dict[str, list[str]] = Field(default_factory=dict)
    """New columns first: the listed columns' values as text joined by ``_``."""
    copy_of: dict[str, str] = Field(default_factory=dict)
    """Then new columns holding another column's values (new name -> column)."""
    keep: list[str] | None = None
    drop: list[str] = Field(default_factory=list)
    """Columns dropped (``@classes``: the task's class columns)."""
    as_int: list[str] = Field(default_factory=list)
    """Columns made integers (``int(value)``: ``True`` -> 1)."""
    unseen: MleUnseen | None = None
    rename: dict[str, str] = Field(default_factory=dict)
    one_hot: MleOneHot | None = None
    first_by: str | list[str] | None = None
    """One row per value of the column (or combination of the columns), sorted by it, each
    other column's first non-missing value (``groupby(column).first().reset_index()``)."""
    fillna: int | float | str | None = None
    """Then missing values filled (``fillna(value)``)."""
    set_where: MleSetWhere | None = None
    set: dict[str, bool | int | float | str | MleRandom | MleMean] = Field(default_factory=dict)
    fill_classes: int | float | MleLinspace | None = None
    sort_by: str | None = None
    format: dict[str, str] = Field(default_factory=dict)
    """New columns filled from each row by a template (``"{label} 1 0 0 1 1"``), after
    ``join``."""
    append: list[MleFile] = Field(default_factory=list)
    """Further parts (each shaped alike from its own rows) written after this one's rows."""
    sep: str = ","
    float_format: str | None = None
    quote_nonnumeric: bool = False
    """Every value that is not a number quoted (``quoting=csv.QUOTE_NONNUMERIC``)."""
    index: bool = False
    """Written with the rows' labels in the raw table as a first, unnamed column
    (``to_csv(index=True)``)."""
    zip: bool = False
    archive_format: Literal["zip", "7z"] = "zip"


class MleFilter(_Strict):
    """Another raw table's rows whose ``column`` (followed by ``suffix``) holds an id of the
    training (or test) rows (their column ``against``, the same name by default), in that
    table's order (``isin``), optionally sorted; also the rows ``side`` names for the files
    (``rows``) when given."""

    to: str | None
    """None: not written, only a ``side``."""
    table: str
    column: str
    rows: Literal["train", "test", "all"]
    """``all``: every row of the split table."""
    sort_by: str | None = None
    suffix: str = ""
    against: str | None = None
    side: str | None = None
    derive: dict[str, MleReplace] = Field(default_factory=dict)
    """New columns of the other table, made first (``column`` may name one); the file is
    written without them, the ``side`` keeps them."""

    @model_validator(mode="after")
    def _used(self) -> MleFilter:
        if self.to is None and self.side is None:
            raise ValueError(f"filter of {self.table}: neither written nor a side")
        return self


class MleListing(_Strict):
    """The rows are files listed in the raw folder ``under``, one a row (its name in column
    ``file``), in MLE-bench's order: with no ``label_column``, the entries of ``under`` whose
    names end with ``suffix`` sorted by path (``sorted(under.glob("*" + suffix))``); with one,
    each sub-folder of ``under`` in sorted order (its name in ``label_column``), and within it
    the names ending with ``suffix``, sorted; with ``recursive`` too, every file below
    ``under`` ending with ``suffix``, its folder's name in ``label_column``, sorted by the text
    ``<label>_<name>``, its path below ``under`` in column ``path``."""

    under: str
    suffix: str
    label_column: str | None = None
    recursive: bool = False

    @model_validator(mode="after")
    def _labelled(self) -> MleListing:
        if self.recursive and self.label_column is None:
            raise ValueError("a recursive listing names its label_column")
        return self


class MleContains(_Strict):
    """A new column: ``then`` where column ``of`` contains the text ``text``, else
    ``otherwise`` (``int("dog" in name)``, ``"cat" if "cat" in name else "dog"``)."""

    of: str
    text: str
    then: int | str
    otherwise: int | str


class MleReplace(_Strict):
    """A new column: column ``of``'s text with every ``old`` replaced by ``new``."""

    of: str
    old: str
    new: str


class MleArgmax(_Strict):
    """A new column: the label (``labels``, in the order of ``columns``) of the column
    holding the row's largest value, the first on ties (``labels[row[columns].argmax()]``)."""

    columns: list[str] = Field(min_length=1)
    labels: list[str]

    @model_validator(mode="after")
    def _paired(self) -> MleArgmax:
        if len(self.columns) != len(self.labels):
            raise ValueError("argmax: one label per column")
        return self


class MleNumber(_Strict):
    """A new column on one side's rows: their position in the split's order from ``start``
    (counted within each value of ``per`` when given: ``cat.0, cat.1, dog.0...``), optionally
    formatted into text by ``template`` (``"Train_{n}"``)."""

    column: str
    rows: Literal["train", "test"]
    start: int = 0
    per: str | None = None
    by_value: str | None = None
    """Number the distinct values of this column in the order they first appear instead of
    the rows (every row of a value gets its number)."""
    template: str | None = None


class MlePlace(_Strict):
    """Each of one side's rows copies the raw file ``src`` to ``to`` (both templates filled
    from the row's columns, ``{column}``), as MLE-bench's script copies and renames them;
    rows naming the same ``to`` copy it once."""

    rows: Literal["train", "test", "test_groups"]
    src: str
    to: str


class MleJson(_Strict):
    """One side's records of a JSON table written back as MLE-bench writes them
    (``json.dump(records, indent=indent)``), each record reduced to the fields of the raw
    JSON table ``fields_of`` (its first record's keys, in their order) when given; also
    alone in ``archive`` when given (a zip as ``shutil.make_archive`` makes it, or a 7z
    archive when its name ends with ``.7z``), and only there when not ``plain``."""

    to: str
    rows: Literal["train", "test"]
    fields_of: str | None = None
    indent: int | None = None
    archive: str | None = None
    plain: bool = True

    @model_validator(mode="after")
    def _written(self) -> MleJson:
        if not self.plain and self.archive is None:
            raise ValueError(f"{self.to}: a file not written plain needs its archive")
        return self


class MlePixels(_Strict):
    """Answers of one row a pixel: the image ``src`` of each of one side's rows (a template
    filled from the row), in the order of the images' names, one row per pixel in reading order,
    id ``<image name without suffix>_<row>_<col>`` (from 1) and the gray intensity divided by
    ``scale`` (``np.array(Image.open(src).convert("L")) / scale``), written as pandas writes
    them; ``sample_to``: the same ids with every value ``sample_value``."""

    to: str
    rows: Literal["train", "test"]
    src: str
    id_column: str = "id"
    value_column: str = "value"
    scale: float = 255.0
    sample_to: str | None = None
    sample_value: int | float = 1


class MleArray(_Strict):
    """A raw NumPy array (``.npy``) indexed by one side's rows (their positions in the split
    table) and saved to ``to`` as ``np.save`` saves it."""

    to: str
    rows: Literal["train", "test"]
    src: str


class MlePreassign(_Strict):
    """Rows assigned before the split, value by value of ``column`` (in ``unique()``
    order): of a value's rows, when two or more, ``sample(2, random_state=sample_state)``
    gives one training row then one test row; a lone row goes to the test side with
    probability ``share`` (``default_rng(seed).choice(["train", "test"], replace=False,
    p=[1 - share, share])``). The rows left are then split as ``split`` says; each side
    keeps the table's order."""

    column: str
    sample_state: int
    seed: int
    share: float = Field(gt=0, lt=1)


class MleUnseen(_Strict):
    """In ``column``, every value the training rows do not hold becomes ``value``."""

    column: str
    value: str


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
    test_share_of_records: str | None = None
    """The share the records of this raw JSON table (or the rows of this NumPy array) would
    make beside the split table's (``len(test) / (len(train) + len(test))``)."""
    random_state: int

    @model_validator(mode="after")
    def _one_size(self) -> MleSplit:
        given = [x for x in (self.test_share_of_files, self.test_share_of_records,
                             self.test_size) if x is not None]
        if len(given) > 1:
            raise ValueError("test_share_of_files, test_share_of_records and test_size are "
                             "exclusive")
        if not given and self.train_size is None:
            raise ValueError("give test_size, train_size, test_share_of_files or "
                             "test_share_of_records")
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
    """The raw table split (a CSV file, a JSON list of records when ``.json``), or with
    ``listing`` a name for the table of listed files."""
    listing: MleListing | None = None
    array_columns: dict[str, str] = Field(default_factory=dict)
    """With a ``.npy`` table: the split table's columns, each a raw 1-D NumPy array of one
    value per row of the table (its rows are those of the array ``table``)."""
    derive: dict[str, MleContains | MleReplace | MleArgmax] = Field(default_factory=dict)
    sep: str = ","
    dtype: dict[str, Literal["str", "int"]] = Field(default_factory=dict)
    round_trip: bool = True
    exclude: dict[str, list[str]] = Field(default_factory=dict)
    fillna: str | None = None
    split: MleSplit
    order: Literal["split", "table"] = "split"
    renumber: MleRenumber | None = None
    swap: MleSwap | None = None
    preassign: MlePreassign | None = None
    draw: MleDraw | None = None
    numbers: list[MleNumber] = Field(default_factory=list)
    files: list[MleFile]
    json_files: list[MleJson] = Field(default_factory=list)
    pixels: list[MlePixels] = Field(default_factory=list)
    arrays: list[MleArray] = Field(default_factory=list)
    filters: list[MleFilter] = Field(default_factory=list)
    place: list[MlePlace] = Field(default_factory=list)
    """Per-row files copied as MLE-bench names them (the task's own placement otherwise)."""
    copies: dict[str, str] = Field(default_factory=dict)
    zip_folders: dict[str, str] = Field(default_factory=dict)
    """Written folders also zipped as MLE-bench zips them (archive -> folder)."""
    omitted: dict[str, str] = Field(default_factory=dict)
    """Files MLE-bench's script also writes that are not made here, each with why."""

    @model_validator(mode="after")
    def _groups_listed(self) -> MleRecipe:
        grouped = self.split.groups is not None and self.split.groups.kind == "unique"
        parts = [*self.files, *(a for f in self.files for a in f.append)]
        rows = ([f.rows for f in parts] + [p.rows for p in self.place]
                + [f.merge.side for f in parts if f.merge is not None])
        if not grouped and "test_groups" in rows:
            raise ValueError("a file of the test groups needs a unique group split")
        known = {"train", "test", "test_groups"} | {f.side for f in self.filters if f.side}
        unknown = sorted(set(rows) - known)
        if unknown:
            raise ValueError(f"files name rows {unknown}; known: {sorted(known)}")
        return self


class MleCategorySide(_Strict):
    """One side of a per-category split as MLE-bench writes it: the raw metadata less the
    keys ``drop`` (or only its list ``only``), with ``annotations`` and ``images`` the side's,
    dumped to ``to`` (``json.dump(indent=4, sort_keys=True)``). With ``new_id``, each image's
    ``id_field`` and its annotation's ``image_id`` become that template filled (``{idx}``: the
    image's place on its side, ``{idx_1000}``: that over 1000, ``{n}``: its place within its
    category from 1, ``{category}``, ``{category_100}``, ``{category_rest}``: its category id,
    over 100 and modulo 100). With ``file_name``, each image's ``file_name`` becomes that
    template filled (the same fields, and ``{base}``: the raw name's last part). Each image's raw file
    ``src`` (filled with its raw ``{file_name}``) is copied to ``dst`` (``{new_file_name}``)."""

    to: str
    drop: list[str] = Field(default_factory=list)
    only: str | None = None
    id_field: str = "id"
    new_id: str | None = None
    file_name: str | None = None
    src: str
    dst: str


class MleReseeded(_Strict):
    """Python's ``random.Random(seed).randint(low, high)``, seeded anew for each row (so one
    value), as iNaturalist's script fills its sample."""

    reseeded_randint: tuple[int, int, int]


class MleCategories(_Strict):
    """A split per category of a JSON metadata file (``annotations`` and ``images`` paired,
    the image's ``image_key`` equal to its annotation's ``image_id``): each category's pairs
    split by ``train_test_split(test_size, random_state)`` in order of first appearance (with
    ``few``: one pair all to training, fewer than five the last ``max(1, int(n * test_size))``
    to test), the test pairs of all categories then shuffled by ``random.Random(shuffle_seed)``.
    Answers ``id_column`` (the test image's id) and ``label_column`` (its category) are written
    to ``answers``, and with ``sample_value`` in place of the category to ``sample``; raw
    files are copied unchanged (``copies``: written -> raw) and written folders put in
    uncompressed tar archives in their place (``tar_folders``: archive -> folder)."""

    metadata: str
    encoding: str = "utf-8"
    image_key: str = "id"
    test_size: float
    few: bool = True
    random_state: int = 0
    shuffle_seed: int = 0
    train: MleCategorySide
    test: MleCategorySide
    answers: str
    sample: str
    id_column: str
    label_column: str
    sample_value: int | MleReseeded
    copies: dict[str, str] = Field(default_factory=dict)
    tar_folders: dict[str, str] = Field(default_factory=dict)


class MleLocations(_Strict):
    """A split of the images' ``group`` values (``unique()`` order) of a JSON ``metadata``
    file, then, as iWildCam 2020's script does, the last training value moved to test while
    the test images make less than ``test_size`` of all images plus the test images, and the
    last test value moved back while they make more. Each side's images and their annotations
    written by ``json.dump`` (training: the metadata's categories and info, to ``train_to``;
    test: those of ``test_information``, to ``test_to``); the test annotations' columns
    ``answer_columns`` renamed to ``answers``, the last one drawn by ``sample_random`` to
    ``sample``; image ``{id}`` copied from ``image_src`` to ``image_to`` (``{side}``)."""

    metadata: str
    test_information: str
    group: str
    test_size: float
    random_state: int
    train_to: str
    test_to: str
    answers: str
    answer_columns: dict[str, str]
    sample: str
    sample_random: MleRandom
    image_src: str
    image_to: str
    copies: dict[str, str] = Field(default_factory=dict)


class MleRecipes(_Strict):
    source: str
    commit: str
    recipes: dict[str, MleRecipe]
    per_category: dict[str, MleCategories] = Field(default_factory=dict)
    by_location: dict[str, MleLocations] = Field(default_factory=dict)
    special: dict[str, dict[str, Any]] = Field(default_factory=dict)  # mlebench_kinds
    out: dict[str, str]

    @model_validator(mode="after")
    def _disjoint(self) -> MleRecipes:
        kinds = [set(self.recipes), set(self.per_category), set(self.by_location),
                 set(self.special), set(self.out)]
        both = sorted({s for i, a in enumerate(kinds) for b in kinds[i + 1:] for s in a & b})
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


def recipe_for(slug: str, task_id: str
               ) -> MleRecipe | MleCategories | MleLocations | SpecialRecipe:
    """MLE-bench's recipe of competition ``slug``.

    Raises:
        SplitError: MLE-bench does not hold the competition, or its split is not one
            ``train_test_split`` of a table's rows (the reason named).
    """
    recipes = load_recipes()
    if slug in recipes.recipes:
        return recipes.recipes[slug]
    if slug in recipes.per_category:
        return recipes.per_category[slug]
    if slug in recipes.by_location:
        return recipes.by_location[slug]
    if slug.lower() in (special := {k.lower(): v for k, v in recipes.special.items()}):
        return special_recipe(slug, special[slug.lower()])
    out = {k.lower(): v for k, v in recipes.out.items()}  # MLE-bench spells AI4Code so
    where = f"MLE-bench's prepare.py (openai/mle-bench at {recipes.commit[:7]})"
    why = (f"{where} cannot be reproduced this way: {out[slug.lower()]}"
           if slug.lower() in out else "MLE-bench does not hold this competition")
    raise SplitError(f"task {task_id} cannot be prepared --like mle-bench: {why}; prepare it "
                     "with `tambench prepare` (tambench's own split)")
