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
* ``one_hot``: one 0/1 column per class of a label column, from the competition's class list;
* ``rename``: columns renamed;
* ``compose_id``: a new column joining other columns (``{sentence_id}_{token_id}``);
* ``hash_id``: a new opaque id column from other columns (ids that would reveal labels);
* ``row_number``: a new id column numbering the rows in the raw file's order (a training
  table without an id column);
* ``split_values``: one cell of joined values into one column per value (the Image Matching
  Challenge's ``rotation_matrix`` into R00..R22);
* ``join_list``: a JSON list cell joined into one text (AQA's ``pids``);
* ``split_last``: the last item of a delimited list moved into its own column (the next term
  of a sequence becomes the target);
* ``update_rows``: corrections the competition published in another raw file applied by key
  (rows whose correction is all empty dropped), counted in the split report;
* ``map_values``: values replaced by a stated mapping (true/false to 1/0);
* ``unpivot``: one row per key from columns spelled per key (Answer[A-D]Text);
* ``explode``: one row per item of JSON list columns, with its position;
* ``drop_rows``: rows dropped by a stated rule (empty cells, repeated values), counted in the
  split report;
* ``ragged_table``: the table is read from a text file whose lines have a varying number of
  fields (mlsp-2013-birds' ``rec_id,label,label,...``);
* ``join``: columns added from another raw table, matched on a key column;
* ``combine_ints``: a new integer column as a weighted sum of integer columns (an id
  ``rec_id * 100 + species``);
* ``pixels``: one row per pixel of each row's image (denoising-dirty-documents' answers,
  ``image_row_col`` ids with the pixel's intensity);
* ``group_members``: a new column listing the ids of every row of the same group (shopee's
  ``matches`` from ``label_group``);
* ``aggregate``: one row per key from one row per object (global-wheat's boxes become one
  ``PredictionString`` per image);
* ``bibliography``: one row per entry of each row's TEI XML bibliography, labelled 1 when
  its title matches one the row lists (PST's source papers);
* ``lines_table``: the table is a text file of one record a line, no header (billion-word's
  sentences);
* ``remove_word``: a new column holding a text with one inner word removed, chosen by a hash
  of the row's id (billion-word's test sentences).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    Field,
    PlainValidator,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from tambench.core.registry import Registry
from tambench.errors import TaskSpecError
from tambench.schema.transform_base import Transform
from tambench.schema.transforms_tables import (
    Baseline,
    Bibliography,
    CocoTable,
    ConcatFiles,
    GroupRows,
    LinesTable,
    Merge,
    NpyRle,
    NpyTable,
    RaggedTable,
    RemoveWord,
)


class FilesTable(Transform):
    """The table is the list of raw files matching a pattern, one row per file."""

    op: Literal["files_table"] = "files_table"
    """files_table: must be the first transform; the recipe's train_file is left empty."""

    builds_table: ClassVar[bool] = True

    pattern: str = Field(min_length=1)
    """Path of the files relative to the raw data, with ``{field}`` parts that become columns,
    e.g. "train/{label}.{num}.jpg" or "train/{label}/{image}". A field matches within one path
    part (no "/"), as much as it can (so "{stem}_{label}.aif" splits at the last "_"); the
    same field twice must match the same text."""

    path_column: str = "path"
    """Column that holds each file's path relative to the raw data."""


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
    """Multi-label cells: the separator between labels in one cell (e.g. ","; an empty cell
    has no label); empty: one label per cell."""

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


class RowNumber(Transform):
    """A new id column numbering the rows in the raw table's order, for tables whose rows have
    no id (amazon's and bioresponse's training tables, nextproductprediction's sessions); the
    split shuffles the test rows, so the number says nothing of a row's label."""

    op: Literal["row_number"] = "row_number"
    """row_number."""

    column: str = Field(min_length=1)
    """The new column."""

    start: int = Field(default=0, ge=0)
    """The first row's number."""

    template: str = "{n}"
    """Its text, with ``{n}`` the row's number, e.g. "session_{n}"."""

    @model_validator(mode="after")
    def _has_number(self) -> RowNumber:
        if "{n}" not in self.template:
            raise ValueError("row_number: the template must hold {n}")
        return self


class SplitValues(Transform):
    """One cell of joined values into one column per value: the Image Matching Challenge's
    ``rotation_matrix`` "r00;r01;...;r22" becomes R00..R22."""

    op: Literal["split_values"] = "split_values"
    """split_values."""

    column: str = Field(min_length=1)
    """The column of joined values."""

    into: list[str] = Field(min_length=2)
    """The new columns, in the values' order; every cell must hold exactly this many
    values (a row with more or fewer is an error naming it)."""

    separator: str = Field(min_length=1)
    """The text between two values, e.g. ";"."""

    keep: bool = False
    """Keep the joined column (false: it is removed, since it restates the new columns)."""

    def reads(self) -> list[str]:
        """The joined column."""
        return [self.column]


class JoinList(Transform):
    """A JSON list cell joined into one text: AQA's ``pids`` ["p1", "p2"] becomes "p1,p2",
    the line its answers hold."""

    op: Literal["join_list"] = "join_list"
    """join_list."""

    column: str = Field(min_length=1)
    """The column of JSON lists (replaced by the joined text)."""

    separator: str = Field(min_length=1)
    """The text put between two items, e.g. ","; an item holding it is an error."""

    def reads(self) -> list[str]:
        """The list column."""
        return [self.column]


class SplitLast(Transform):
    """The last item of a delimited list moved into a new column (integer-sequence-learning:
    the answer is the last term of ``Sequence``, which keeps the terms before it)."""

    op: Literal["split_last"] = "split_last"
    """split_last."""

    column: str = Field(min_length=1)
    """The list column; it keeps every item but the last (empty when it held one)."""

    into: str = Field(min_length=1)
    """The new column holding the last item."""

    separator: str = Field(default=",", min_length=1)
    """The text between items."""

    def reads(self) -> list[str]:
        """The list column."""
        return [self.column]


class UpdateRows(Transform):
    """Corrections published in another raw file, applied by key (novozymes'
    train_updates_20220929.csv): a row whose correction has every other column empty is
    dropped; otherwise its non-empty cells replace the row's."""

    op: Literal["update_rows"] = "update_rows"
    """update_rows."""

    file: str = Field(min_length=1)
    """The corrections table (relative path in the raw data); its columns are the key and
    columns of the table."""

    key: str = Field(min_length=1)
    """The column matching corrections to rows (unique in the corrections)."""

    def reads(self) -> list[str]:
        """The key."""
        return [self.key]


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


class Join(Transform):
    """Columns of another raw table added to every row by a key column, the key held once there
    and every row matched: ai4code's train_orders.csv gains the ``ancestor_id`` of
    train_ancestors.csv (its split's groups); mlsp-2013-birds' ``rec_id2filename.txt`` gives
    each recording's file name."""

    op: Literal["join"] = "join"
    """join."""

    file: str = Field(min_length=1)
    """The other table (CSV, or TSV by its suffix), relative to the raw data."""

    on: str = Field(min_length=1)
    """The key column, in both tables; the other table holds each key once."""

    columns: list[str] = Field(min_length=1)
    """Columns of the other table added (none may exist already); every row must find its key
    there."""

    @model_validator(mode="after")
    def _inside_raw(self) -> Join:
        parts = self.file.replace("\\", "/").split("/")
        if self.file.startswith("/") or ".." in parts:
            raise ValueError(f"join: file {self.file!r} must be a path inside the raw data")
        return self

    def reads(self) -> list[str]:
        """The key column."""
        return [self.on]



class CombineInts(Transform):
    """A new integer column: the sum of integer columns times their factors (mlsp-2013-birds'
    submission id ``rec_id * 100 + species``)."""

    op: Literal["combine_ints"] = "combine_ints"
    """combine_ints."""

    column: str = Field(min_length=1)
    """The new column."""

    terms: dict[str, int] = Field(min_length=1)
    """Column -> its factor, e.g. {"rec_id": 100, "species": 1}; a value that is not an integer
    is an error naming it."""

    def reads(self) -> list[str]:
        """The summed columns."""
        return list(self.terms)


class Pixels(Transform):
    """One row per pixel of each row's image, read in grayscale (requires Pillow, the
    ``images`` extra): denoising-dirty-documents' answers hold ``image_row_col`` ids with the
    cleaned image's intensity. The row's other columns are repeated on its pixels' rows."""

    op: Literal["pixels"] = "pixels"
    """pixels."""

    path_column: str = Field(default="path", min_length=1)
    """Column holding the image's path relative to the raw data."""

    id_column: str = Field(default="id", min_length=1)
    """The new id column."""

    id_template: str = Field(min_length=1)
    """The id's text: ``{row}`` and ``{col}`` are the pixel's 1-based row and column, other
    ``{column}`` parts come from the image's row, e.g. "{image}_{row}_{col}"; it must name
    both ``{row}`` and ``{col}``."""

    value_column: str = Field(default="value", min_length=1)
    """The new column holding the pixel's intensity divided by ``scale``."""

    scale: float = Field(default=255.0, gt=0)
    """Divisor of the 8-bit intensity (255: values from 0, black, to 1, white)."""

    @model_validator(mode="after")
    def _row_and_col(self) -> Pixels:
        if not {"row", "col"} <= set(self._fields()):
            raise ValueError("pixels: id_template must name both {row} and {col}")
        return self

    def _fields(self) -> list[str]:
        from string import Formatter

        return [f for _, f, _, _ in Formatter().parse(self.id_template) if f]

    def reads(self) -> list[str]:
        """The path column and the template's columns."""
        return [self.path_column, *[f for f in self._fields() if f not in ("row", "col")]]


class GroupMembers(Transform):
    """A new column listing, for each row, the members of its group, itself included (shopee's
    ``matches``: the posting ids sharing its ``label_group``). With a group split on the same
    column, a test row's list holds test rows only."""

    op: Literal["group_members"] = "group_members"
    """group_members."""

    column: str = Field(min_length=1)
    """The new column."""

    group_column: str = Field(min_length=1)
    """The column whose equal values make a group."""

    member_column: str = Field(min_length=1)
    """The column listed (sorted, joined by single spaces), e.g. the id."""

    def reads(self) -> list[str]:
        """The group and member columns."""
        return [self.group_column, self.member_column]


class Aggregate(Transform):
    """One row per key from rows of one object each: global-wheat-detection's train.csv (one
    box per row) becomes one row per image whose ``PredictionString`` lists its boxes."""

    op: Literal["aggregate"] = "aggregate"
    """aggregate."""

    key: str = Field(min_length=1)
    """The column whose rows are merged (the image)."""

    column: str = Field(min_length=1)
    """The new column: each row's item, in row order, joined by ``separator``."""

    template: str = Field(min_length=1)
    """A row's item, with ``{column}`` fields, e.g. "1.0 {bbox}". A cell written as a list of
    numbers ("[834.0, 222.0, 56.0, 36.0]") is spelled as its numbers separated by spaces."""

    separator: str = " "
    """Between items."""

    keep: list[str] = Field(default_factory=list)
    """Other columns kept; each must hold one value per key (else an error)."""

    skip_empty: bool = False
    """Leave out empty items, so a key whose rows are all empty gets an empty cell (airbus'
    images without a ship, whose one row has no run-length encoding); false: every row's
    item is joined. Written only when set."""

    @model_serializer(mode="wrap")
    def _omit_unset_skip(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out = handler(self)
        if isinstance(out, dict) and not out.get("skip_empty"):
            out.pop("skip_empty", None)
        return out

    def fields(self) -> list[str]:
        """The template's column names."""
        from string import Formatter

        return [f for _, f, _, _ in Formatter().parse(self.template) if f]

    def reads(self) -> list[str]:
        """The key, the template's and the kept columns."""
        return list(dict.fromkeys([self.key, *self.fields(), *self.keep]))


#: op -> transform model: the schema half of the "recipe transform" extension point (the
#: implementations are ``tambench.splits.transforms.TRANSFORMS``).
TRANSFORM_MODELS: Registry[type[Transform]] = Registry(
    "recipe transform", error=TaskSpecError, listed=False,
    hint="transforms are registered with tambench.splits.transforms.register_transform")

for _model in (FilesTable, OneHot, Rename, ComposeId, HashId, RowNumber, SplitLast, UpdateRows,
               MapValues, Unpivot, Explode, DropRows):
    TRANSFORM_MODELS.register(str(_model.model_fields["op"].default), _model)
for _other in (RaggedTable, CocoTable, NpyTable, GroupRows, Merge, Join, CombineInts, Pixels, GroupMembers, Aggregate,
               SplitValues, JoinList, Bibliography, LinesTable, RemoveWord, Baseline,
               ConcatFiles, NpyRle):
    TRANSFORM_MODELS.register(str(_other.model_fields["op"].default), _other)


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

