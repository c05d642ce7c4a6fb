"""MLE-bench split kind ``mask_records``: JSON metadata records split, answers from NumPy masks.

Contrails' ``prepare.py`` reads a JSON list of records (``train_metadata.json``) and splits it
with ``train_test_split``, as many test records as another JSON list holds
(``validation_metadata.json``). Each record names a raw folder ``<folder>/<id>/``. The answers
are one row a test record: its id, the run-length encoding of its mask array (the pixels equal
to the foreground value, numbered from 1 down each column; ``start length`` pairs, a token when
none) and the height and width of another of its arrays (``H x W x ...``). The training
records' listed files are copied into ``public/train/<id>/`` and the test records' into
``public/test/<id>/``; the training records are written back by ``json.dumps``; other raw files
and folders are copied as they are (a missing folder is made empty, as the script makes it).
The sample submission is the answers with each encoding drawn from a list by Python's
``random`` seeded as the script seeds it. Tables are written by pandas'
``to_csv(index=False)``.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_kinds import MleKind
from tambench.splits.mlebench_sources import load_records
from tambench.splits.transforms_tables import mask_rle

_FEATURE = "prepare --like mle-bench"


class MaskRecords(BaseModel):
    """The script's facts: the records, the split, the arrays read and the files written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    records: str
    test_count_of: str
    """A JSON list of records: the test side gets as many records as it holds."""
    random_state: int
    id_field: str
    folder: str
    """The raw folder holding ``<id>/`` per record."""
    mask: str
    foreground: int
    empty: str
    shape_of: str
    """The array (``H x W x ...``) whose first two sizes are the answers' height and width."""
    columns: tuple[str, str, str, str]
    """The answers' id, encoding, height and width columns."""
    train_files: list[str] = Field(min_length=1)
    test_files: list[str] = Field(min_length=1)
    train_dir: str
    test_dir: str
    records_to: str
    answers_to: str
    sample_to: str
    sample_choices: list[str] = Field(min_length=1)
    sample_seed: int
    copies: dict[str, str]
    """Destination -> raw file or folder, copied as it is."""
    empty_if_missing: list[str] = []
    """Copies of a raw folder made empty when the raw folder lacks it."""


def _record_dir(raw_root: Path, s: MaskRecords, record: dict[str, Any]) -> tuple[str, Path]:
    rid = record.get(s.id_field)
    if not isinstance(rid, (str, int)) or isinstance(rid, bool) or str(rid) in ("", ".", ".."):
        raise SplitError(f"{s.records}: a record's {s.id_field!r} is {rid!r}, not an id")
    return str(rid), resolve_inside(raw_root, f"{s.folder}/{rid}", "MLE-bench record folder")


def _load(path: Path, rel: str, *, header_only: bool = False) -> np.ndarray:
    if not path.is_file():
        raise SplitError(f"MLE-bench reads {rel}; the raw folder lacks it")
    try:
        return np.load(path, mmap_mode="r" if header_only else None, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise SplitError(f"cannot read {rel} as a NumPy array: {exc}") from None


def _answers(raw_root: Path, s: MaskRecords, test: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row a test record: id, the mask's encoding, the height and width."""
    rows = []
    id_col, code_col, height_col, width_col = s.columns
    for record in test:
        rid, folder = _record_dir(raw_root, s, record)
        mask = _load(folder / s.mask, f"{s.folder}/{rid}/{s.mask}")
        shape = _load(folder / s.shape_of, f"{s.folder}/{rid}/{s.shape_of}",
                      header_only=True).shape
        if len(shape) != 3:
            raise SplitError(f"{s.folder}/{rid}/{s.shape_of} has the shape {shape}; MLE-bench "
                             "reads its height, width and a third size")
        rows.append({id_col: record[s.id_field],
                     code_col: mask_rle(np.asarray(mask == s.foreground), s.empty),
                     height_col: shape[0], width_col: shape[1]})
    return rows


def _copy_files(raw_root: Path, out: Path, s: MaskRecords, records: list[dict[str, Any]],
                names: list[str], dest: str) -> None:
    for record in records:
        rid, folder = _record_dir(raw_root, s, record)
        target = resolve_inside(out, f"{dest}/{rid}", "MLE-bench record folder")
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            source = resolve_inside(folder, name, "MLE-bench record file")
            if not source.is_file():
                raise SplitError(f"MLE-bench copies {s.folder}/{rid}/{name}; the raw folder "
                                 "lacks it")
            shutil.copyfile(source, resolve_inside(target, name, "MLE-bench record file"))


def _copy_raw(raw_root: Path, out: Path, s: MaskRecords) -> None:
    for dest, src in s.copies.items():
        source = resolve_inside(raw_root, src, "MLE-bench recipe copy")
        target = resolve_inside(out, dest, "MLE-bench recipe copy")
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True)
        elif source.is_file():
            shutil.copyfile(source, target)
        elif dest in s.empty_if_missing:
            target.mkdir(exist_ok=True)
        else:
            raise SplitError(f"MLE-bench copies raw {src} into {dest}; the raw folder lacks it")


def build(s: MaskRecords, spec: TaskSpec, raw_root: Path, out: Path) -> dict[str, object]:
    """Write the split (see the module docstring); the report's figures."""
    del spec  # the settings say everything
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    split = require("sklearn.model_selection", extra="mlebench", feature=_FEATURE)
    records = load_records(raw_root, s.records)
    count = len(load_records(raw_root, s.test_count_of))
    if count >= len(records):
        raise SplitError(f"MLE-bench puts {count} records ({s.test_count_of}) on the test side; "
                         f"{s.records} holds only {len(records)}")
    train, test = split.train_test_split(records, test_size=count, random_state=s.random_state)
    answers = pd.DataFrame(_answers(raw_root, s, test))
    _copy_files(raw_root, out, s, train, s.train_files, s.train_dir)
    _copy_files(raw_root, out, s, test, s.test_files, s.test_dir)
    _copy_raw(raw_root, out, s)
    written = resolve_inside(out, s.records_to, "MLE-bench recipe file")
    written.parent.mkdir(parents=True, exist_ok=True)
    written.write_text(json.dumps(train), encoding="utf-8")
    draw = random.Random(s.sample_seed)
    sample = answers.assign(**{s.columns[1]: [draw.choice(s.sample_choices)
                                              for _ in range(len(answers))]})
    for rel, table in ((s.answers_to, answers), (s.sample_to, sample)):
        path = resolve_inside(out, rel, "MLE-bench recipe file")
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False)
    empty = int((answers[s.columns[1]] == s.empty).sum())
    return {"records": s.records, "test_count_of": s.test_count_of,
            "random_state": s.random_state, "rows": len(records), "train_rows": len(train),
            "test_rows": len(test), "empty_masks": empty,
            "files": [s.records_to, s.answers_to, s.sample_to, *s.copies, s.train_dir,
                      s.test_dir], "omitted": {}}


KIND = MleKind(MaskRecords, build)
