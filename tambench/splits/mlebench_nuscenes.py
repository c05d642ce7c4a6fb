"""MLE-bench split kind ``nuscenes_logs``: a nuScenes-format dataset split by its logs (Lyft
3D Object Detection for Autonomous Vehicles).

The metadata are JSON lists of records naming each other by token (``log``, ``scene``,
``sample``, ``sample_data``, ``ego_pose``, ``calibrated_sensor``, ``sample_annotation``,
``instance``, and the fixed lists ``attribute``, ``category``, ``sensor``, ``visibility``,
``map``), the table one row per sample (its token, its objects). As MLE-bench's
``prepare.py`` does, the logs' tokens are split by ``train_test_split``, and everything follows
them, each record to the side of its log:

* samples by their ``scene_token`` (the dataset's scenes share their log's token), scenes by
  their ``log_token``; the table's rows by their sample, written by ``to_csv(index=False)``
  (training rows to ``train_to``; test rows to ``answers`` with a ``confidence`` before each
  object's tokens, and to ``sample`` with empty predictions);
* sample_data by their sample; per side, the calibrated sensors its sample_data name (each
  once, in first use order) and their ego poses (one per sample_data, in that order);
* sample annotations by their sample, instances by their annotations (training side only:
  the test side has no labels);
* ``map.json``: the one map record with the test logs' tokens on *both* sides (the script
  copies the list of maps, not the record, so its second assignment is the one written);
* the fixed lists and the raw files of ``copies`` copied unchanged; each sample_data's file
  (its ``filename``'s name, by ``fileformat``) copied from its raw folder to its side's.

Every table is written back by ``json.dump``, records and fields in the raw order, so that
the bytes are MLE-bench's. What MLE-bench's script asserts (every record on one side, every
calibration and ego pose used, one map) is checked and raised as a SplitError naming it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_categories import copy_raw_file
from tambench.splits.mlebench_kinds import MleKind
from tambench.splits.mlebench_sources import load_records

if TYPE_CHECKING:
    import pandas as pd

_FEATURE = "prepare --like mle-bench"
Records = list[dict[str, Any]]


class FileFolders(BaseModel):
    """Where the files of one ``fileformat`` are read and written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    raw: str = Field(min_length=1)
    """The raw folder holding them, by file name ("train_images")."""
    to: str = Field(min_length=1)
    """The folder they are copied to, ``{side}`` being train or test ("public/{side}_images")."""


class NuscenesLogs(BaseModel):
    """The settings of a ``nuscenes_logs`` split (see the module)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metadata: str = Field(min_length=1)
    """The raw folder of the JSON tables ("train_data")."""
    table: str = Field(min_length=1)
    """The raw table of one row per sample ("train.csv")."""
    id_column: str = Field(min_length=1)
    """Its column of sample tokens."""
    target_column: str = Field(min_length=1)
    """Its column of objects."""
    object_tokens: int = Field(gt=0)
    """Tokens per object in a target cell (split on single spaces)."""
    confidence: str
    """The token the answers put before each object."""
    test_size: float = Field(gt=0, lt=1)
    random_state: int
    train_to: str = Field(min_length=1)
    answers: str = Field(min_length=1)
    sample: str = Field(min_length=1)
    train_data: str = Field(min_length=1)
    """The folder of the training side's tables ("public/train_data")."""
    test_data: str = Field(min_length=1)
    """The folder of the test side's tables."""
    fixed: list[str]
    """The tables copied unchanged to both sides ("attribute.json", ...)."""
    files: dict[str, FileFolders] = Field(min_length=1)
    """``fileformat`` -> its folders; a sample_data of another format is an error."""
    copies: dict[str, str] = Field(default_factory=dict)
    """Destination -> raw file, copied unchanged (the map raster)."""


def _table(s: NuscenesLogs, raw_root: Path, name: str) -> Records:
    return load_records(raw_root, f"{s.metadata}/{name}.json")


def _field(records: Records, key: str, table: str) -> list[Any]:
    """The ``key`` of every record: a token (text or number)."""
    lacking = [k for k, r in enumerate(records)
               if not isinstance(r.get(key), (str, int, float)) or isinstance(r[key], bool)]
    if lacking:
        raise SplitError(f"{table}.json: record {lacking[0]} (of {len(lacking)}) has no "
                         f"{key!r} token, which MLE-bench's split reads")
    return [r[key] for r in records]


def _sides(records: Records, key: str, table: str, train: set[Any], test: set[Any]
           ) -> tuple[Records, Records]:
    """The records whose ``key`` is on the training side, then those on the test side; one on
    neither is an error."""
    out: tuple[Records, Records] = ([], [])
    for record, value in zip(records, _field(records, key, table), strict=True):
        if value not in train and value not in test:
            raise SplitError(f"{table}.json: {key} {value!r} belongs to no log of the split")
        out[value not in train].append(record)
    return out


def _split_logs(s: NuscenesLogs, logs: Records) -> tuple[list[Any], list[Any]]:
    split = require("sklearn.model_selection", extra="mlebench", feature=_FEATURE)
    tokens = _field(logs, "token", "log")
    if len(set(map(str, tokens))) != len(tokens):
        raise SplitError("log.json: the logs' tokens are not unique")
    try:
        train, test = split.train_test_split(tokens, test_size=s.test_size,
                                             random_state=s.random_state)
    except ValueError as exc:
        raise SplitError(f"MLE-bench's split of log.json ({len(tokens)} logs): {exc}") from exc
    return list(train), list(test)


def _rows(s: NuscenesLogs, raw_root: Path, train: Records, test: Records
          ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table's training and test rows (by their sample), each side one row a sample."""
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    path = resolve_inside(raw_root, s.table, "MLE-bench recipe table")
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise SplitError(f"cannot read {s.table} as MLE-bench does: {exc}") from exc
    missing = [c for c in (s.id_column, s.target_column) if c not in frame.columns]
    if missing:
        raise SplitError(f"{s.table}: lacks column(s) {missing}; it has {list(frame.columns)}")
    ids = frame[s.id_column]
    rows = [frame[ids.isin([r["token"] for r in side])] for side in (train, test)]
    if len(rows[0]) + len(rows[1]) != len(frame):
        raise SplitError(f"{s.table}: {len(frame) - len(rows[0]) - len(rows[1])} row(s) name "
                         "no sample of sample.json")
    for side, samples, name in ((rows[0], train, "training"), (rows[1], test, "test")):
        if len(side) != len(samples):
            raise SplitError(f"{s.table}: {len(side)} {name} rows for {len(samples)} {name} "
                             "samples (MLE-bench wants one row per sample)")
    return rows[0], rows[1]


def _with_confidence(s: NuscenesLogs, row_id: object, cell: object) -> str:
    """A target cell with ``confidence`` before each object's tokens."""
    if not isinstance(cell, str):
        raise SplitError(f"{s.table}: row {row_id} has no {s.target_column} (MLE-bench "
                         "splits each test row's objects)")
    tokens = cell.split(" ")
    if len(tokens) % s.object_tokens:
        raise SplitError(f"{s.table}: row {row_id} has {len(tokens)} tokens in "
                         f"{s.target_column}, not {s.object_tokens} per object")
    out: list[str] = []
    for i in range(0, len(tokens), s.object_tokens):
        out += [s.confidence, *tokens[i:i + s.object_tokens]]
    return " ".join(out)


def _write_rows(s: NuscenesLogs, out: Path, train: pd.DataFrame, test: pd.DataFrame) -> None:
    answers = test.copy()
    answers[s.target_column] = [_with_confidence(s, i, c) for i, c in
                                zip(test[s.id_column], test[s.target_column], strict=True)]
    sample = test[[s.id_column]].copy()
    sample[s.target_column] = ""
    for rel, frame in ((s.train_to, train), (s.answers, answers), (s.sample, sample)):
        target = resolve_inside(out, rel, "MLE-bench recipe file")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(frame.to_csv(index=False, lineterminator="\n"), encoding="utf-8")


def _dump(out: Path, folder: str, name: str, records: Any) -> None:
    target = resolve_inside(out, f"{folder}/{name}", "MLE-bench recipe file")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(records), encoding="utf-8")


def _linked(records: Records, table: str, data: Records, key: str, once: bool) -> Records:
    """The records of ``table`` the sample_data name by ``key``, in the sample_data's order
    (``once``: each record the first time only)."""
    by_token = dict(zip(_field(records, "token", table), records, strict=True))
    out: Records = []
    seen: set[Any] = set()
    for token in _field(data, key, "sample_data"):
        if token not in by_token:
            raise SplitError(f"sample_data.json: {key} {token!r} is not in {table}.json")
        if once and token in seen:
            continue
        seen.add(token)
        out.append(by_token[token])
    return out


def _covered(records: Records, table: str, sides: tuple[Records, Records]) -> None:
    used = {id(r) for side in sides for r in side}
    unused = sum(id(r) not in used for r in records)
    if unused:
        raise SplitError(f"{table}.json: {unused} record(s) are named by no sample_data "
                         "(MLE-bench's split wants each on a side)")


def _sensor_tables(s: NuscenesLogs, raw_root: Path, out: Path,
                   data: tuple[Records, Records]) -> None:
    """calibrated_sensor (each once per side) and ego_pose (one per sample_data)."""
    for table, once in (("calibrated_sensor", True), ("ego_pose", False)):
        records = _table(s, raw_root, table)
        key = f"{table}_token"
        sides = (_linked(records, table, data[0], key, once),
                 _linked(records, table, data[1], key, once))
        _covered(records, table, sides)
        for folder, side in zip((s.train_data, s.test_data), sides, strict=True):
            _dump(out, folder, f"{table}.json", side)


def _labels(s: NuscenesLogs, raw_root: Path, out: Path, train_ids: set[Any],
            test_ids: set[Any]) -> int:
    """sample_annotation and instance, the training side's written; the test annotations."""
    notes = _table(s, raw_root, "sample_annotation")
    train_notes, test_notes = _sides(notes, "sample_token", "sample_annotation", train_ids,
                                     test_ids)
    instances = _table(s, raw_root, "instance")
    train_inst, _ = _sides(instances, "token", "instance",
                           set(_field(train_notes, "instance_token", "sample_annotation")),
                           set(_field(test_notes, "instance_token", "sample_annotation")))
    _dump(out, s.train_data, "sample_annotation.json", train_notes)
    _dump(out, s.train_data, "instance.json", train_inst)
    return len(test_notes)


def _copy_file(raw_root: Path, src: str, dest: Path) -> None:
    """The raw file ``src`` copied to ``dest`` (its folder made and checked by the caller);
    a link is checked to stay inside the raw folder."""
    source = raw_root / src
    if source.is_symlink():
        source = resolve_inside(raw_root, src, "MLE-bench recipe file")
    if not source.is_file():
        raise SplitError(f"MLE-bench copies the raw file {src}; the raw folder lacks it")
    shutil.copyfile(source, dest)


def _copy_files(s: NuscenesLogs, raw_root: Path, out: Path, data: Records,
                test_ids: set[Any]) -> dict[str, int]:
    """Each sample_data's file copied to its side's folder; files per folder."""
    copied: dict[str, str] = {}
    counts: dict[str, int] = {}
    for datum in data:
        fmt, filename = str(datum.get("fileformat")), str(datum.get("filename"))
        if fmt not in s.files:
            raise SplitError(f"sample_data.json: fileformat {fmt!r} of {filename} is none of "
                             f"{sorted(s.files)}")
        name = Path(filename).name
        if not name.endswith(fmt) or name in (fmt, f".{fmt}"):
            raise SplitError(f"sample_data.json: {filename} is not a .{fmt} file")
        folder = s.files[fmt].to.format(side="test" if datum["sample_token"] in test_ids
                                        else "train")
        dest = f"{folder}/{name}"
        if dest in copied:
            if copied[dest] != filename:
                raise SplitError(f"sample_data.json: {filename} and {copied[dest]} are both "
                                 f"copied to {dest}")
            continue
        if folder not in counts:
            resolve_inside(out, folder, "MLE-bench recipe file").mkdir(parents=True,
                                                                     exist_ok=True)
            counts[folder] = 0
        _copy_file(raw_root, f"{s.files[fmt].raw}/{name}", out / dest)
        copied[dest] = filename
        counts[folder] += 1
    return counts


def build(settings: NuscenesLogs, spec: TaskSpec, raw_root: Path, out: Path
          ) -> dict[str, object]:
    """Write MLE-bench's log split of a nuScenes-format dataset (see the module); the
    report's figures."""
    s = settings
    logs = _table(s, raw_root, "log")
    train_logs, test_logs = _split_logs(s, logs)
    train_set, test_set = set(train_logs), set(test_logs)
    samples = _sides(_table(s, raw_root, "sample"), "scene_token", "sample", train_set,
                     test_set)
    train_rows, test_rows = _rows(s, raw_root, *samples)
    _write_rows(s, out, train_rows, test_rows)
    train_ids, test_ids = set(train_rows[s.id_column]), set(test_rows[s.id_column])
    raw_data = _table(s, raw_root, "sample_data")
    data = _sides(raw_data, "sample_token", "sample_data", train_ids, test_ids)
    scenes = _sides(_table(s, raw_root, "scene"), "log_token", "scene", train_set, test_set)
    maps = _table(s, raw_root, "map")
    if len(maps) != 1:
        raise SplitError(f"map.json: MLE-bench's split wants one map, not {len(maps)}")
    for k, folder in enumerate((s.train_data, s.test_data)):
        mine = (train_set, test_set)[k]
        _dump(out, folder, "log.json", [r for r in logs if r["token"] in mine])
        for name, sides in (("sample", samples), ("sample_data", data), ("scene", scenes)):
            _dump(out, folder, f"{name}.json", sides[k])
        _dump(out, folder, "map.json", [{**maps[0], "log_tokens": test_logs}])
        for name in s.fixed:
            copy_raw_file(raw_root, out, f"{s.metadata}/{name}", f"{folder}/{name}")
    _sensor_tables(s, raw_root, out, data)
    test_notes = _labels(s, raw_root, out, train_ids, test_ids)
    files = _copy_files(s, raw_root, out, raw_data, test_ids)
    for dest, src in s.copies.items():
        copy_raw_file(raw_root, out, src, dest)
    return {"table": s.table, "test_size": s.test_size, "random_state": s.random_state,
            "groups": {"column": "log", "kind": "unique"},
            "logs": len(logs), "train_logs": len(train_logs), "test_logs": len(test_logs),
            "rows": len(train_rows) + len(test_rows), "train_rows": len(train_rows),
            "test_rows": len(test_rows), "test_annotations": test_notes, "copied": files,
            "map_logs": "the test logs on both sides, as MLE-bench writes them",
            "files": [s.train_to, s.answers, s.sample, s.train_data, s.test_data,
                      *sorted(files), *s.copies], "omitted": {}}


KIND = MleKind(NuscenesLogs, build)
