"""Recipe transforms: what a competition's raw tables need before they are split, as data.

A split recipe (``split.transforms``) lists transforms applied in order to the training table
(and, for the two-table strategies, to the official test and answers tables that hold the
columns a transform reads). Each transform is one model registered under its ``op`` in
:data:`TRANSFORM_MODELS`; its implementation is registered under the same name in
``tambench.splits.transforms.TRANSFORMS`` (a test checks both name the same operations).
Nothing in a recipe is code: every operation is one of these, with its parameters checked
when the task file loads.

Operations:

* ``files_table``: the table is built from the raw files' names (labels in file or folder
  names: ``train/{label}.{num}.jpg``, ``train/{label}/{name}``);
* ``coco_table``: the table is built from a COCO-style JSON, one row per image with its
  annotation's fields (herbarium's metadata.json, iNaturalist's train2019.json);
* ``npy_table``: the table is built from NumPy arrays with one item per row (features and
  labels in .npy files);
* ``one_hot``: one 0/1 column per class of a label column, from the competition's class list;
* ``rename``: columns renamed;
* ``compose_id``: a new column joining other columns (``{sentence_id}_{token_id}``);
* ``hash_id``: a new opaque id column from other columns (ids that would reveal labels);
* ``map_values``: values replaced by a stated mapping (true/false to 1/0);
* ``unpivot``: one row per key from columns spelled per key (Answer[A-D]Text);
* ``explode``: one row per item of JSON list columns, with its position;
* ``aggregate``: one row per group of rows (rsna-breast's images to one row per breast),
  stated columns joined, the others kept from the group's first row;
* ``join``: the columns of another raw CSV table added to each row by key (uw-madison's
  labels added to its slice images);
* ``drop_rows``: rows dropped by a stated rule (empty cells, repeated values), counted in the
  split report.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    Field,
    PlainValidator,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from tambench.core.fielddocs import DOCUMENTED
from tambench.core.registry import Registry
from tambench.errors import TaskSpecError


class Transform(BaseModel):
    """Base of the transform models (one per ``op``)."""

    model_config = DOCUMENTED

    op: str
    """The operation's name."""

    builds_table: ClassVar[bool] = False
    """The transform builds the training table (it must come first; train_file stays empty)."""

    def reads(self) -> list[str]:
        """Columns the transform reads (a table without them is left alone, except the
        training table, where they are required)."""
        return []


class FilesTable(Transform):
    """The table is the list of raw files matching a pattern, one row per file."""

    op: Literal["files_table"] = "files_table"
    """files_table: must be the first transform; the recipe's train_file is left empty."""

    pattern: str = Field(min_length=1)
    """Path of the files relative to the raw data, with ``{field}`` parts that become columns,
    e.g. "train/{label}.{num}.jpg" or "train/{label}/{image}". A field matches within one path
    part (no "/"), as much as it can (so "{stem}_{label}.aif" splits at the last "_"); the
    same field twice must match the same text."""

    path_column: str = "path"
    """Column that holds each file's path relative to the raw data."""

    builds_table: ClassVar[bool] = True


class CocoTable(Transform):
    """The table is a COCO-style JSON's ``images``, each with the fields of its one entry in
    ``annotations`` (its category): herbarium's metadata.json, iWildCam's annotations."""

    op: Literal["coco_table"] = "coco_table"
    """coco_table: must be the first transform; the recipe's train_file is left empty."""

    file: str = Field(min_length=1)
    """The JSON file in the raw data, e.g. "train/metadata.json"."""

    image_key: str = Field(default="id", min_length=1)
    """The images' field that the annotations' ``image_id`` names ("image_id" in herbarium
    2022's train_metadata.json)."""

    encoding: str = Field(default="utf-8", min_length=1)
    """The file's text encoding (herbarium 2020's metadata.json is latin-1)."""

    builds_table: ClassVar[bool] = True


class NpyTable(Transform):
    """The table is made of NumPy arrays holding one item per row (ml2021spring-hw2's
    train_11.npy features and train_label_11.npy labels): a 1-D array is one column, a 2-D
    array one column per position (``<name>_<j>``), and ``row_column`` numbers the rows."""

    op: Literal["npy_table"] = "npy_table"
    """npy_table: must be the first transform; the recipe's train_file is left empty."""

    arrays: dict[str, str] = Field(min_length=1)
    """Column (or column prefix, for a 2-D array) -> the .npy file in the raw data, e.g.
    {"feature": "timit_11/train_11.npy", "ClassId": "timit_11/train_label_11.npy"}."""

    row_column: str = Field(default="row", min_length=1)
    """Column holding each row's position in the arrays (0, 1, ...)."""

    builds_table: ClassVar[bool] = True


class OneHot(Transform):
    """One 0/1 column per class of a label column (spooky's EAP/HPL/MWS from ``author``)."""

    op: Literal["one_hot"] = "one_hot"
    """one_hot."""

    column: str = Field(min_length=1)
    """The label column."""

    classes: list[str] = Field(min_length=2)
    """The competition's class list, in the submission's column order; a value outside it is
    an error naming it."""

    separator: str = ""
    """Multi-label cells: the separator between labels in one cell (e.g. ","); empty: one
    label per cell."""

    prefix: str = ""
    """Text put before each class to name its column."""

    keep: bool = False
    """Keep the label column (false: it is removed, since it restates the new columns)."""

    def reads(self) -> list[str]:
        """The label column."""
        return [self.column]


class Rename(Transform):
    """Columns renamed (the competition's answers call a column otherwise)."""

    op: Literal["rename"] = "rename"
    """rename."""

    columns: dict[str, str] = Field(min_length=1)
    """Old name -> new name."""

    def reads(self) -> list[str]:
        """The columns renamed."""
        return list(self.columns)


class ComposeId(Transform):
    """A column composed from others: ``{sentence_id}_{token_id}``."""

    op: Literal["compose_id"] = "compose_id"
    """compose_id."""

    column: str = Field(min_length=1)
    """The new column."""

    template: str = Field(min_length=1)
    """Its text, with ``{column}`` parts filled from each row, e.g. "{sentence_id}_{token_id}"."""

    empty: dict[str, str] = Field(default_factory=dict)
    """Column -> the text put where its cell is empty (vinbigdata's "No finding" rows have no
    box: {"x_max": "1"}); otherwise an empty cell puts nothing."""

    @model_serializer(mode="wrap")
    def _omit_no_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = handler(self)
        if isinstance(out, dict) and not self.empty:
            out.pop("empty", None)  # written only when set: recipes without it stay as they were
        return dict(out)

    @model_validator(mode="after")
    def _empty_names_template_columns(self) -> ComposeId:
        stray = sorted(set(self.empty) - set(self.reads()))
        if stray:
            raise ValueError(f"compose_id: empty names {stray}, which the template does not use")
        return self

    def reads(self) -> list[str]:
        """The columns the template names."""
        from string import Formatter

        return [f for _, f, _, _ in Formatter().parse(self.template) if f]


class HashId(Transform):
    """A new opaque id from other columns, so that ids reveal nothing (``cat.12`` names its
    label): the first 16 hex digits of a salted SHA-256 of the values."""

    op: Literal["hash_id"] = "hash_id"
    """hash_id."""

    column: str = Field(min_length=1)
    """The new column."""

    columns: list[str] = Field(min_length=1)
    """The columns whose values (joined) are hashed."""

    salt: str = "tambench"
    """Text mixed into the hash."""

    def reads(self) -> list[str]:
        """The hashed columns."""
        return list(self.columns)


class MapValues(Transform):
    """Values of a column replaced by a stated mapping (JSON's true/false to the 1/0 the
    competition's answers hold)."""

    op: Literal["map_values"] = "map_values"
    """map_values."""

    column: str = Field(min_length=1)
    """The column."""

    mapping: dict[str, str] = Field(min_length=1)
    """Old value -> new value; a value outside it is an error naming it."""

    def reads(self) -> list[str]:
        """The mapped column."""
        return [self.column]


class Unpivot(Transform):
    """One row per key from columns spelled per key (eedi's Answer[A-D]Text and
    Misconception[A-D]Id become one row per answer, with Answer, AnswerText, MisconceptionId);
    the other columns are repeated on each row."""

    op: Literal["unpivot"] = "unpivot"
    """unpivot."""

    keys: list[str] = Field(min_length=2)
    """The keys, e.g. ["A", "B", "C", "D"]."""

    key_column: str = Field(min_length=1)
    """The new column holding each row's key, e.g. "Answer"."""

    columns: dict[str, str] = Field(min_length=1)
    """New column -> the old columns' name with ``{key}``, e.g. {"AnswerText":
    "Answer{key}Text"}."""

    def reads(self) -> list[str]:
        """Every per-key column."""
        return [t.replace("{key}", k) for t in self.columns.values() for k in self.keys]


class Explode(Transform):
    """One row per item of list columns (JSON lists of the same length in each row): the
    stanford-covid-vaccine sequences become one row per scored position."""

    op: Literal["explode"] = "explode"
    """explode."""

    columns: list[str] = Field(min_length=1)
    """The list columns, exploded together (their lengths must agree row by row)."""

    position_column: str = Field(min_length=1)
    """New column holding each item's position in its list (0, 1, ...)."""

    def reads(self) -> list[str]:
        """The list columns."""
        return list(self.columns)


class DropRows(Transform):
    """Rows dropped by a stated rule; how many is written into the split report."""

    op: Literal["drop_rows"] = "drop_rows"
    """drop_rows."""

    column: str = Field(min_length=1)
    """The column the rule reads."""

    rule: Literal["empty", "equals", "repeated"]
    """"empty": rows whose cell is missing or blank; "equals": rows whose cell is one of
    ``values``; "repeated": every row after the first with the same value (hms's sub-samples
    of one eeg_id)."""

    values: list[str] = Field(default_factory=list)
    """The values of the "equals" rule."""

    reason: str = Field(min_length=1)
    """Why (shown in the split report), e.g. "one training row has no text"."""

    @model_validator(mode="after")
    def _values_for_equals(self) -> DropRows:
        if (self.rule == "equals") != bool(self.values):
            raise ValueError("drop_rows: values go with rule 'equals' (and only with it)")
        return self

    def reads(self) -> list[str]:
        """The rule's column."""
        return [self.column]


class Aggregate(Transform):
    """One row per distinct value of the ``by`` columns (rsna-breast's images become one row
    per patient and laterality): each ``join`` column holds its rows' values joined in table
    order; every other column keeps the group's first value (columns whose values differ
    within a group are named, with the count, in the split report)."""

    op: Literal["aggregate"] = "aggregate"
    """aggregate."""

    by: list[str] = Field(min_length=1)
    """The columns whose values make a group, e.g. ["patient_id", "laterality"]."""

    join: dict[str, str] = Field(default_factory=dict)
    """Column -> separator of its joined values, e.g. {"image_id": " "}."""

    def reads(self) -> list[str]:
        """The group and joined columns."""
        return [*self.by, *self.join]


class Join(Transform):
    """The columns of another raw CSV table added to each row whose key columns match (a row
    per match: uw-madison's three organ rows per slice); rows without a match are dropped and
    counted in the split report."""

    op: Literal["join"] = "join"
    """join."""

    file: str = Field(min_length=1)
    """The CSV table in the raw data, e.g. "train.csv"."""

    on: list[str] = Field(min_length=1)
    """The key columns both tables hold, e.g. ["id"]."""

    def reads(self) -> list[str]:
        """The key columns."""
        return list(self.on)


#: op -> transform model: the schema half of the "recipe transform" extension point (the
#: implementations are ``tambench.splits.transforms.TRANSFORMS``).
TRANSFORM_MODELS: Registry[type[Transform]] = Registry(
    "recipe transform", error=TaskSpecError, listed=False,
    hint="transforms are registered with tambench.splits.transforms.register_transform")

for _model in (FilesTable, CocoTable, NpyTable, OneHot, Rename, ComposeId, HashId, MapValues, Unpivot, Explode,
               DropRows, Aggregate, Join):
    TRANSFORM_MODELS.register(str(_model.model_fields["op"].default), _model)


def _validate_transform(value: Any) -> Transform:
    if isinstance(value, Transform):
        return value
    if not isinstance(value, dict) or "op" not in value:
        raise PydanticCustomError("transform_type", "a transform is an object with an 'op'")
    op = str(value["op"])
    if op not in TRANSFORM_MODELS:
        raise PydanticCustomError("unknown_transform", "{message}",
                                  {"message": TRANSFORM_MODELS.unknown_message(op)})
    return TRANSFORM_MODELS[op].model_validate(value)


AnyTransform = Annotated[SerializeAsAny[Transform], PlainValidator(_validate_transform)]
"""A transform of any registered op, validated by its own model."""
