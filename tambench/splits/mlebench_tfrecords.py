"""MLE-bench split kind ``tfrecords``: the TFRecord files split, the rows follow their records.

Cassava's ``prepare.py`` lists the raw TFRecord files (sorted by name), splits that list with
``train_test_split``, reads the ids (a bytes feature of each ``tf.train.Example``) of the
records in the test files, and sends the table's rows holding those ids to the test side, the
others to training, in the table's order. Each side's TFRecord files are copied unchanged
under new names numbered in the split's order (the record count kept from the old name), each
row's image is copied into its side's folder, and the sample submission is the test rows with
the target set to a constant. The records are read by :mod:`tambench.splits.tfrecord` (no
TensorFlow), their checksums checked.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_categories import write_tables
from tambench.splits.mlebench_kinds import MleKind
from tambench.splits.mlebench_kindsettings import KindSettings, read_table
from tambench.splits.tfrecord import decode_example, read_records

if TYPE_CHECKING:
    pass


class TFRecordSettings(KindSettings):
    """The script's facts: where the records and the table are, how they are split, what is
    written."""

    records: str
    """Raw folder of the TFRecord files ("train_tfrecords")."""
    suffix: str = ".tfrec"
    """Only the files with this suffix are split."""
    id_feature: str
    """The records' bytes feature holding a row's id ("image_name")."""
    table: str
    """Raw table of the rows ("train.csv"), read by ``pd.read_csv``."""
    id_column: str
    """Its column holding the ids."""
    train_records_to: str
    """Name of the i-th training file: ``{i}`` and ``{length}`` (the part of the old name
    after its first ``-``), e.g. "public/train_tfrecords/ld_train{i:02d}-{length}.tfrec"."""
    test_records_to: str
    files: str
    """Raw folder of the per-row files, named by the ids ("train_images")."""


def record_files(raw_root: Path, settings: TFRecordSettings) -> list[Path]:
    """The raw TFRecord files in name order."""
    folder = resolve_inside(raw_root, settings.records, "MLE-bench TFRecord folder")
    if not folder.is_dir():
        raise SplitError(f"MLE-bench splits the TFRecord files of {settings.records}/; the raw "
                         "folder lacks it")
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix == settings.suffix)
    if len(files) < 2:
        raise SplitError(f"a split of the TFRecord files of {settings.records}/ needs at least "
                         f"2 {settings.suffix} files, got {len(files)}")
    return files


def record_ids(path: Path, feature: str) -> list[str]:
    """The ``feature`` (first bytes value, UTF-8) of each Example record of ``path``."""
    ids = []
    for n, data in enumerate(read_records(path)):
        try:
            values = decode_example(data).get(feature, [])
            first = values[0] if values else None
            if not isinstance(first, bytes):
                raise ValueError(f"it has no bytes feature {feature!r}")
            ids.append(first.decode("utf-8"))
        except ValueError as exc:
            raise SplitError(f"TFRecord file {path.name}, record {n}: not an Example with an "
                             f"id: {exc}") from exc
    return ids


def _renamed(paths: list[Path], template: str) -> dict[str, Path]:
    out = {}
    for i, path in enumerate(paths):
        parts = path.stem.split("-")
        if len(parts) < 2:
            raise SplitError(f"MLE-bench renames the TFRecord file {path.name} by the count "
                             "after its '-'; its name has none")
        out[template.format(i=i, length=parts[1])] = path
    return out


def _copy_files(raw_root: Path, out: Path, settings: TFRecordSettings, ids: list[Any],
                dest: str) -> None:
    target = resolve_inside(out, dest, "MLE-bench recipe folder")
    target.mkdir(parents=True, exist_ok=True)
    for name in ids:
        source = resolve_inside(raw_root, f"{settings.files}/{name}", "MLE-bench per-row file")
        if not source.is_file():
            raise SplitError(f"MLE-bench copies {settings.files}/{name}; the raw folder lacks it")
        shutil.copyfile(source, target / source.name)


def build(settings: TFRecordSettings, spec: TaskSpec, raw_root: Path,
          out: Path) -> dict[str, object]:
    """Write MLE-bench's split (see the module) from ``raw_root`` into ``out``."""
    from sklearn.model_selection import train_test_split

    files = record_files(raw_root, settings)
    train_files, test_files = train_test_split(files, test_size=settings.test_size,
                                               random_state=settings.random_state)
    test_ids = {i for path in test_files for i in record_ids(path, settings.id_feature)}
    frame = read_table(raw_root, settings.table, [settings.id_column])
    held = frame[settings.id_column].isin(test_ids)
    train, test = frame[~held], frame[held]
    write_tables(raw_root, out, {
        settings.train_to: train, settings.answers_to: test,
        settings.sample_to: test.assign(**settings.sample_values)}, settings.copies)
    renamed = {**_renamed(train_files, settings.train_records_to),
               **_renamed(test_files, settings.test_records_to)}
    for rel, path in renamed.items():
        target = resolve_inside(out, rel, "MLE-bench TFRecord file")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    _copy_files(raw_root, out, settings, list(train[settings.id_column]),
                settings.train_files_to)
    _copy_files(raw_root, out, settings, list(test[settings.id_column]), settings.test_files_to)
    return {"records": settings.records, "test_size": settings.test_size,
            "random_state": settings.random_state,
            "test_record_files": [p.name for p in test_files],
            "rows": len(frame), "train_rows": len(train), "test_rows": len(test),
            "unmatched_test_ids": len(test_ids - set(frame[settings.id_column].astype(str))),
            "files": [settings.train_to, settings.answers_to, settings.sample_to,
                      *sorted(renamed), *settings.copies],
            "omitted": {}}


KIND = MleKind(TFRecordSettings, build)
