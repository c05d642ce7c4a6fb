"""Recipe transforms that build a whole table or reshape its rows (models; see
:mod:`tambench.schema.transforms` for the others and the registry).

* ``ragged_table``: the table is read from a text file whose lines hold varying fields;
* ``coco_table``: the table is a COCO-style JSON's images, each with its one annotation;
* ``npy_table``: the table is made of NumPy arrays holding one item per row;
* ``group_rows``: one row per distinct value of some columns, other columns joined or kept;
* ``merge``: the rows of another raw table joined on key columns, a row per match (unmatched
  rows dropped and counted), where ``join`` adds columns of a table holding each key once.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from tambench.schema.transform_base import Transform


class RaggedTable(Transform):
    """The table is read from a text file whose lines hold a varying number of comma-separated
    fields (no quoting): the first fields are named columns, the others are joined into one
    list column. mlsp-2013-birds' ``rec_labels_test_hidden.txt`` holds ``rec_id`` then the
    recording's species (none, several, or ``?`` for a hidden test recording)."""

    op: Literal["ragged_table"] = "ragged_table"
    """ragged_table: must be the first transform; the recipe's train_file is left empty."""

    builds_table: ClassVar[bool] = True

    path: str = Field(min_length=1)
    """The file, relative to the raw data."""

    columns: list[str] = Field(min_length=1)
    """Names of the leading fields every line must have, e.g. ["rec_id"]."""

    rest_column: str = Field(min_length=1)
    """Column holding the remaining fields of each line, joined by ``separator`` (empty when
    the line has none)."""

    separator: str = Field(default=",", min_length=1)
    """Text joining the remaining fields in ``rest_column``."""

    header: bool = True
    """The first line is a header (skipped)."""

    @model_validator(mode="after")
    def _distinct_names(self) -> RaggedTable:
        names = [*self.columns, self.rest_column]
        if len(set(names)) != len(names):
            raise ValueError(f"ragged_table: column names repeat: {names}")
        return self


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


class GroupRows(Transform):
    """One row per distinct value of the ``by`` columns (rsna-breast's images become one row
    per patient and laterality): each ``join`` column holds its rows' values joined in table
    order; every other column keeps the group's first value (columns whose values differ
    within a group are named, with the count, in the split report)."""

    op: Literal["group_rows"] = "group_rows"
    """group_rows."""

    by: list[str] = Field(min_length=1)
    """The columns whose values make a group, e.g. ["patient_id", "laterality"]."""

    join: dict[str, str] = Field(default_factory=dict)
    """Column -> separator of its joined values, e.g. {"image_id": " "}."""

    def reads(self) -> list[str]:
        """The group and joined columns."""
        return [*self.by, *self.join]


class Merge(Transform):
    """The columns of another raw CSV table added to each row whose key columns match (a row
    per match: uw-madison's three organ rows per slice); rows without a match are dropped and
    counted in the split report."""

    op: Literal["merge"] = "merge"
    """merge."""

    file: str = Field(min_length=1)
    """The CSV table in the raw data, e.g. "train.csv"."""

    on: list[str] = Field(min_length=1)
    """The key columns both tables hold, e.g. ["id"]."""

    def reads(self) -> list[str]:
        """The key columns."""
        return list(self.on)

