"""Recipe transforms that build a whole table or reshape its rows (models; see
:mod:`tambench.schema.transforms` for the others and the registry).

* ``ragged_table``: the table is read from a text file whose lines hold varying fields;
* ``coco_table``: the table is a COCO-style JSON's images, each with its one annotation;
* ``npy_table``: the table is made of NumPy arrays holding one item per row;
* ``group_rows``: one row per distinct value of some columns, other columns joined or kept;
* ``merge``: the rows of another raw table joined on key columns, a row per match (unmatched
  rows dropped and counted), where ``join`` adds columns of a table holding each key once;
* ``bibliography``: one row per entry of each row's TEI XML bibliography, labelled by the
  titles the row lists (PST's source papers);
* ``lines_table``: the table is a text file of one record a line and no header;
* ``remove_word``: a new column holding a text with one inner word removed;
* ``baseline``: each group's first row given to the group's other rows as columns, then
  dropped;
* ``concat_files``: the table is the rows of every CSV file a pattern matches;
* ``npy_rle``: a new column holding the run-length encoding of each row's NumPy mask.
"""

from __future__ import annotations

from string import Formatter
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



class Bibliography(Transform):
    """One row per entry of each row's bibliography, read from the row's TEI XML document
    (GROBID's reading of a paper's PDF: PST's ``paper-xml/<paper id>.xml``), labelled 1 when
    the entry's title matches a title the row lists (PST's ``refs_trace``, the paper's
    sources), else 0: the labels the competition's organisers derived for its answers.

    An entry is a ``biblStruct`` whose ``xml:id`` is ``b<N>``; its title is the text of the
    ``title`` of its ``analytic`` part. The entries are numbered by N, from 0 to the last
    entry with such a title (the length of the competition's submission lists); a number
    without a titled entry gets a row with an empty title and label 0. Titles match when, in
    lower case, their similarity ratio (:class:`difflib.SequenceMatcher`, times 100,
    rounded) is at least ``min_ratio``. The row's other columns are repeated on its entries'
    rows; the titles column is removed (it restates the labels). A row whose document has
    no titled entry gives no row, and rows whose entries match no listed title are counted;
    both counts go to the split report."""

    op: Literal["bibliography"] = "bibliography"
    """bibliography."""

    pattern: str = Field(min_length=1)
    """Path of a row's TEI XML document in the raw data, with ``{column}`` fields, e.g.
    "paper-xml/{paper_id}.xml"."""

    titles_column: str = Field(min_length=1)
    """Column holding a JSON list of records, each with a ``title_field`` (PST's
    ``refs_trace``)."""

    title_field: str = Field(default="title", min_length=1)
    """The records' field holding a title."""

    min_ratio: int = Field(default=80, ge=1, le=100)
    """Smallest similarity (0-100) of two titles that match."""

    position_column: str = Field(default="ref_index", min_length=1)
    """New column holding the entry's number N."""

    title_column: str = Field(default="ref_title", min_length=1)
    """New column holding the entry's title."""

    label_column: str = Field(default="label", min_length=1)
    """New column holding 1 (the entry is one of the listed titles) or 0."""

    @model_validator(mode="after")
    def _distinct_names(self) -> Bibliography:
        names = [self.position_column, self.title_column, self.label_column]
        if len(set(names)) != 3 or self.titles_column in names:
            raise ValueError(f"bibliography: the new columns {names} must differ from each "
                             f"other and from {self.titles_column!r}")
        return self

    def fields(self) -> list[str]:
        """The pattern's column names."""
        return [f for _, f, _, _ in Formatter().parse(self.pattern) if f]

    def reads(self) -> list[str]:
        """The titles column and the pattern's columns."""
        return list(dict.fromkeys([self.titles_column, *self.fields()]))


class LinesTable(Transform):
    """The table is a text file holding one record a line and no header (billion-word-
    imputation's ``train_v2.txt``, one sentence a line): a row per line, the line (without
    its line break) in one column; a blank line or bytes that are not UTF-8 are refused,
    naming the file."""

    op: Literal["lines_table"] = "lines_table"
    """lines_table: must be the first transform; the recipe's train_file is left empty."""

    builds_table: ClassVar[bool] = True

    path: str = Field(min_length=1)
    """The file, relative to the raw data."""

    column: str = Field(default="text", min_length=1)
    """The column holding each line."""


class RemoveWord(Transform):
    """A new column holding a text column with one word removed (billion-word-imputation's
    test sentences: the agent restores the word). Words are the runs of non-space characters,
    joined again by one space; the removed word is never the first or the last, and which one
    is decided by a salted SHA-256 of the row's id, so a row gets the same cut whatever the
    rows' order. A row with fewer than three words has no word to remove: it is dropped and
    counted in the split report."""

    op: Literal["remove_word"] = "remove_word"
    """remove_word."""

    column: str = Field(min_length=1)
    """The text column (left as it is)."""

    id_column: str = Field(min_length=1)
    """The row id whose hash picks the word."""

    into: str = Field(min_length=1)
    """The new column."""

    salt: str = "tambench"
    """Text mixed into the hash."""

    @model_validator(mode="after")
    def _new_column(self) -> RemoveWord:
        if self.into in (self.column, self.id_column):
            raise ValueError(f"remove_word: into {self.into!r} must be a new column")
        return self

    def reads(self) -> list[str]:
        """The text and id columns."""
        return [self.column, self.id_column]


class Baseline(Transform):
    """Each group's first row (the smallest value of a numeric order column) given to the
    group's other rows as columns of their own, then dropped: OSIC's baseline visit, whose
    week, FVC and Percent become ``Base_Weeks``, ``Base_FVC`` and ``Base_Percent`` of each
    later visit of the patient, as Kaggle's test.csv gives each test patient's first visit.
    The other rows keep the table's order; a group of one row has no later row and
    disappears. The split report counts the baseline rows and those groups."""

    op: Literal["baseline"] = "baseline"
    """baseline."""

    group: str = Field(min_length=1)
    """The column whose values make a group, e.g. "Patient"."""

    order: str = Field(min_length=1)
    """The numeric column ordering a group's rows, e.g. "Weeks" (a tie: the first in the
    table's order)."""

    columns: dict[str, str] = Field(min_length=1)
    """Column of the first row -> the new column holding its value on the group's other
    rows, e.g. {"FVC": "Base_FVC"}."""

    @model_validator(mode="after")
    def _new_columns(self) -> Baseline:
        names = list(self.columns.values())
        if len(set(names)) != len(names) or set(names) & {self.group, self.order,
                                                          *self.columns}:
            raise ValueError("baseline: the new columns must be distinct new names")
        return self

    def reads(self) -> list[str]:
        """The group, order and copied columns."""
        return list(dict.fromkeys([self.group, self.order, *self.columns]))


class ConcatFiles(Transform):
    """The table is the rows of every raw CSV file matching a pattern, one file after the
    other in sorted path order, each row with the pattern's fields as columns:
    smartphone-decimeter's ``train/<drive>/<phone>/ground_truth.csv`` become one table with
    ``drive`` and ``phone``. Every file has the same header; a field may not be one of its
    columns."""

    op: Literal["concat_files"] = "concat_files"
    """concat_files: must be the first transform; the recipe's train_file is left empty."""

    builds_table: ClassVar[bool] = True

    pattern: str = Field(min_length=1)
    """Path with ``{field}`` parts (each one path part), e.g.
    "train/{drive}/{phone}/ground_truth.csv"."""

    @model_validator(mode="after")
    def _has_fields(self) -> ConcatFiles:
        if not [f for _, f, _, _ in Formatter().parse(self.pattern) if f]:
            raise ValueError("concat_files: the pattern needs a {field}")
        return self


class NpyRle(Transform):
    """A new column holding the run-length encoding of each row's NumPy mask file (a 2-D
    array, or 3-D with one channel; a non-zero value is a mask pixel): pixels numbered from 1
    down each column, then column after column, runs written ``start length`` joined by
    spaces, as contrails' evaluation page encodes ``human_pixel_masks.npy``; the mask's
    height and width go into two more columns when named (the metric's image size)."""

    op: Literal["npy_rle"] = "npy_rle"
    """npy_rle."""

    pattern: str = Field(min_length=1)
    """A row's mask, with ``{column}`` fields, e.g. "train/{record_id}/human_pixel_masks.npy"."""

    into: str = Field(min_length=1)
    """The new column, e.g. "encoded_pixels"."""

    empty: str = ""
    """The cell of a mask without a pixel (contrails' "-")."""

    height_column: str = ""
    """A new column for the mask's height (empty: none)."""

    width_column: str = ""
    """A new column for the mask's width (empty: none)."""

    def reads(self) -> list[str]:
        """The pattern's fields."""
        return [f for _, f, _, _ in Formatter().parse(self.pattern) if f]
