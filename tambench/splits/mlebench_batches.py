"""MLE-bench split kind ``batches``: a Parquet table's batches split, each batch's file copied
to its side.

IceCube's ``prepare.py`` reads the metadata table (``pd.read_parquet``), splits the values of
its batch column (in ``unique()`` order) with ``train_test_split``, and keeps each side's rows
in the table's order: the training rows and the test rows without their labels written back as
Parquet by pandas (with the engine the script names: ``fastparquet``, so that with the same
fastparquet the bytes are the same), the answers (id and labels) and a sample of constants as
CSV. Each raw batch file (``batch_<n>.parquet``: ``n`` after the name's last ``_``) is copied
unchanged into its batch's side; a batch of the split without its file is refused, as the
script's checks refuse it.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from tambench._optional import require
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_categories import write_tables
from tambench.splits.mlebench_kinds import MleKind
from tambench.splits.mlebench_kindsettings import KindSettings, pandas

if TYPE_CHECKING:
    import pandas as pd


class BatchSettings(KindSettings):
    """The script's facts: the table, its batch column, the split, what is written."""

    table: str
    """Raw Parquet table ("train_meta.parquet")."""
    batch_column: str
    id_column: str
    label_columns: list[str] = Field(min_length=1)
    """Dropped from the public test table; with the id, the answers' columns."""
    engine: Literal["fastparquet", "pyarrow"]
    """The Parquet writer the script gives pandas."""
    test_to: str
    batch_files: str
    """Glob of the raw batch files ("train/*.parquet")."""


def _read_table(raw_root: Path, settings: BatchSettings) -> pd.DataFrame:
    path = resolve_inside(raw_root, settings.table, "MLE-bench recipe table")
    if not path.is_file():
        raise SplitError(f"MLE-bench reads the raw table {settings.table}; the raw folder "
                         "lacks it")
    try:
        frame = pandas().read_parquet(path)
    except (OSError, ValueError) as exc:
        raise SplitError(f"cannot read {settings.table} as MLE-bench does: {exc}") from exc
    needed = [settings.batch_column, settings.id_column, *settings.label_columns]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise SplitError(f"{settings.table} lacks column(s) {missing}; it has "
                         f"{list(frame.columns)}")
    return frame


def _batch_of(path: Path) -> int:
    try:
        return int(path.stem.split("_")[-1])
    except ValueError:
        raise SplitError(f"MLE-bench reads a batch number after the last '_' of "
                         f"{path.name}; it has none") from None


def _copy_batches(raw_root: Path, out: Path, settings: BatchSettings,
                  sides: dict[str, list[Any]]) -> dict[str, int]:
    """Each batch file copied to its side; the count per side."""
    files = sorted(p for p in raw_root.glob(settings.batch_files) if p.is_file())
    wanted = {settings.train_files_to: set(sides["train"]),
              settings.test_files_to: set(sides["test"])}
    copied = dict.fromkeys(wanted, 0)
    for path in files:
        batch = _batch_of(path)
        for dest, batches in wanted.items():
            if batch in batches:
                target = resolve_inside(out, f"{dest}/{path.name}", "MLE-bench batch file")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
                copied[dest] += 1
    for dest, batches in wanted.items():
        if copied[dest] != len(batches):
            raise SplitError(f"MLE-bench copies one raw file ({settings.batch_files}) per "
                             f"batch into {dest}: {copied[dest]} file(s) for {len(batches)} "
                             "batches")
    return copied


def _write_parquet(frame: pd.DataFrame, out: Path, rel: str, engine: str) -> None:
    if engine == "fastparquet":
        require("fastparquet", extra="mlebench", feature="IceCube's Parquet files")
    target = resolve_inside(out, rel, "MLE-bench recipe file")
    target.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():  # pandas 3 deprecates the engine MLE-bench still gives
        warnings.filterwarnings("ignore", message=".*'fastparquet' engine is deprecated.*")
        frame.to_parquet(target, index=False, engine=engine)


def build(settings: BatchSettings, spec: TaskSpec, raw_root: Path,
          out: Path) -> dict[str, object]:
    """Write MLE-bench's split (see the module) from ``raw_root`` into ``out``."""
    from sklearn.model_selection import train_test_split

    frame = _read_table(raw_root, settings)
    batches = frame[settings.batch_column].unique()
    if len(batches) < 2:
        raise SplitError(f"a split of the batches of {settings.table} needs at least 2, got "
                         f"{len(batches)}")
    train_ids, test_ids = train_test_split(batches, test_size=settings.test_size,
                                           random_state=settings.random_state)
    column = frame[settings.batch_column]
    train = frame[column.isin(train_ids)].reset_index(drop=True)
    test = frame[column.isin(test_ids)].reset_index(drop=True)
    answers = test[[settings.id_column, *settings.label_columns]]
    _write_parquet(train, out, settings.train_to, settings.engine)
    _write_parquet(test.drop(columns=settings.label_columns), out, settings.test_to,
                   settings.engine)
    write_tables(raw_root, out, {settings.sample_to: answers.assign(**settings.sample_values),
                                 settings.answers_to: answers}, settings.copies)
    copied = _copy_batches(raw_root, out, settings,
                           {"train": list(train_ids), "test": list(test_ids)})
    return {"table": settings.table, "batch_column": settings.batch_column,
            "test_size": settings.test_size, "random_state": settings.random_state,
            "test_batches": [v.item() if hasattr(v, "item") else v for v in test_ids],
            "rows": len(frame), "train_rows": len(train), "test_rows": len(test),
            "batch_files": copied,
            "files": [settings.train_to, settings.test_to, settings.sample_to,
                      settings.answers_to, *settings.copies],
            "omitted": {}}


KIND = MleKind(BatchSettings, build)
