"""MLE-bench's split of drive folders by their dates (kind ``drives``: smartphone-decimeter-2022).

The raw folder holds one folder per drive (``<year>-<month>-<day>-<place>``), each holding a
folder per phone (a trip) with the phone's logs and, in the training drives, the trip's ground
truth. As MLE-bench's ``prepare.py`` does, the drives' dates (the name's first three ``-``
parts, month and day zero-padded) are sorted and split once by scikit-learn's
``train_test_split``; every drive of a test date is copied whole into the public test folder,
the others into the public training folder. The answers are the test trips' ground truth files,
read by pandas in the order of their sorted paths (Python's path order, component by component:
it does not depend on the order in which the file system lists them) and concatenated, each row
given ``tripId`` = ``<drive>-<phone>``; those files are then removed from the public test
trips. The sample submission is the answers with constant coordinates. Every check of the
script is made, each failing as a :class:`~tambench.errors.SplitError` naming the drives.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_kinds import MleKind

if TYPE_CHECKING:
    import pandas as pd

_FEATURE = "prepare --like mle-bench"


class DrivesSettings(BaseModel):
    """The script's facts (``special`` entry of kind ``drives``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    drives: str
    """The raw folder holding one folder per drive ("train")."""
    test_size: float = Field(gt=0, lt=1)
    """``train_test_split``'s share of the dates."""
    random_state: int
    truth: str
    """The name of a trip's ground truth file ("ground_truth.csv")."""
    trip_column: str
    """The answers' trip column, ``<drive>-<phone>`` ("tripId")."""
    answer_columns: list[str] = Field(min_length=1)
    """The ground truth columns kept after the trip column, in order."""
    train_to: str
    """Where the training drives are copied ("public/train")."""
    test_to: str
    """Where the test drives are copied, without their ground truth ("public/test")."""
    answers: str
    """The answers file ("private/test.csv")."""
    sample: str
    """The sample submission: the answers with ``sample_values`` ("public/sample_submission.csv")."""
    sample_values: dict[str, float]
    copies: dict[str, str] = Field(default_factory=dict)
    """Output folder or file -> raw one, copied whole ("public/metadata": "metadata")."""


def drive_date(name: str) -> str:
    """The date of a drive folder's name, as the script reads it.

    >>> drive_date("2021-4-2-US-SJC-1")
    '2021-04-02'
    """
    parts = name.split("-")
    if len(parts) < 3 or not all(p.isdigit() for p in parts[:3]):
        raise SplitError(f"MLE-bench reads a date from each drive folder's name "
                         f"(<year>-<month>-<day>-...); {name!r} holds none")
    year, month, day = parts[:3]
    return f"{year}-{month.zfill(2)}-{day.zfill(2)}"


def split_drives(drives: list[str], settings: DrivesSettings) -> tuple[list[str], list[str]]:
    """(training drives, test drives), each sorted: the dates split as the script splits them."""
    split = require("sklearn.model_selection", extra="mlebench", feature=_FEATURE)
    dates = sorted({drive_date(d) for d in drives})
    if len(dates) < 2:
        raise SplitError(f"MLE-bench splits the drives' dates; {settings.drives}/ holds "
                         f"{len(drives)} drive folder(s) of {len(dates)} date(s), 2 at least "
                         "are needed")
    try:
        kept, held = split.train_test_split(dates, test_size=settings.test_size,
                                            random_state=settings.random_state)
    except ValueError as exc:
        raise SplitError(f"MLE-bench's split of {len(dates)} drive dates: {exc}") from exc
    if not kept or not held:
        raise SplitError(f"MLE-bench's split of {len(dates)} drive dates leaves a side empty")
    return ([d for d in drives if drive_date(d) in kept],
            [d for d in drives if drive_date(d) in held])


def _answers(test_root: Path, test_drives: list[str], settings: DrivesSettings
             ) -> pd.DataFrame:
    """The test trips' ground truth, concatenated in the order of the sorted paths."""
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    frames = []
    for path in sorted(test_root.rglob(settings.truth)):
        drive, phone = path.parent.parent.name, path.parent.name
        where = path.relative_to(test_root).as_posix()
        if drive not in test_drives:
            raise SplitError(f"MLE-bench reads the ground truth as <drive>/<phone>/"
                             f"{settings.truth}; {where} is not in a phone folder of a drive")
        try:
            frame = pd.read_csv(path)
        except (OSError, ValueError, pd.errors.ParserError) as exc:
            raise SplitError(f"cannot read {where} as MLE-bench does: {exc}") from exc
        missing = [c for c in settings.answer_columns if c not in frame.columns]
        if missing:
            raise SplitError(f"{where} lacks the column(s) {missing} MLE-bench keeps")
        frame = frame.copy()
        frame.loc[:, settings.trip_column] = f"{drive}-{phone}"
        frames.append(frame[[settings.trip_column, *settings.answer_columns]])
    if not frames:
        raise SplitError(f"the test drives {test_drives} hold no {settings.truth}: MLE-bench's "
                         "answers are read from them")
    answers = pd.concat(frames, ignore_index=True)
    journeys = {"-".join(t.split("-")[:-1]) for t in answers[settings.trip_column]}
    if len(journeys) != len(test_drives):
        raise SplitError(f"MLE-bench expects the ground truth of every test drive, one drive "
                         f"per tripId without its last '-' part; {len(test_drives)} test drives "
                         f"give {len(journeys)} (a drive without {settings.truth}, or a phone "
                         "folder whose name holds '-')")
    return answers


def _copy(raw_root: Path, source: Path, target: Path, what: str) -> None:
    """``source`` copied whole, as ``copytree`` copies it (links followed), once every link
    in it is checked to stay inside the raw folder."""
    if not source.exists():
        raise SplitError(f"MLE-bench copies the raw {what}; the raw folder lacks it")
    for folder, dirs, files in os.walk(source):
        for name in (*dirs, *files):
            if os.path.islink(os.path.join(folder, name)):
                resolve_inside(raw_root, Path(folder, name).relative_to(raw_root).as_posix(),
                               "MLE-bench raw file")
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)


def _write(frame: pd.DataFrame, out: Path, rel: str) -> None:
    path = resolve_inside(out, rel, "MLE-bench recipe file")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(frame.to_csv(index=False, lineterminator="\n"), encoding="utf-8")


def _sample(answers: pd.DataFrame, values: dict[str, float]) -> pd.DataFrame:
    sample = answers.copy()
    for column, value in values.items():
        if column not in sample.columns:
            raise SplitError(f"the sample submission sets column {column}, which the answers "
                             f"lack (they have {list(sample.columns)})")
        try:
            sample.loc[:, column] = value
        except (TypeError, ValueError) as exc:
            raise SplitError(f"the sample submission's {column} = {value}: {exc}") from exc
    return sample


def build(settings: DrivesSettings, spec: TaskSpec, raw_root: Path,
          out: Path) -> dict[str, Any]:
    """Write MLE-bench's drive split (see the module docstring); the report's figures."""
    root = resolve_inside(raw_root, settings.drives, "MLE-bench drive folders")
    if not root.is_dir():
        raise SplitError(f"MLE-bench splits the drive folders of {settings.drives}/; the raw "
                         "folder lacks it")
    drives = sorted(p.name for p in root.glob("*") if p.is_dir())
    train, test = split_drives(drives, settings)
    for names, to in ((train, settings.train_to), (test, settings.test_to)):
        for name in names:
            _copy(raw_root, resolve_inside(root, name, "MLE-bench drive folder"),
                  resolve_inside(out, f"{to}/{name}", "MLE-bench drive folder"),
                  f"{settings.drives}/{name}")
    test_root = resolve_inside(out, settings.test_to, "MLE-bench drive folder")
    answers = _answers(test_root, test, settings)
    for path in list(test_root.rglob(settings.truth)):
        path.unlink()
    for dest, src in settings.copies.items():
        _copy(raw_root, resolve_inside(raw_root, src, "MLE-bench recipe copy"),
              resolve_inside(out, dest, "MLE-bench recipe copy"), src)
    train_truths = sum(1 for _ in resolve_inside(out, settings.train_to, "MLE-bench drive "
                                                 "folder").rglob(settings.truth))
    if train_truths < len(train):
        raise SplitError(f"MLE-bench expects a {settings.truth} per training drive at least; "
                         f"{len(train)} training drives hold {train_truths}")
    _write(answers, out, settings.answers)
    _write(_sample(answers, settings.sample_values), out, settings.sample)
    return {"drives": len(drives), "test_size": settings.test_size,
            "random_state": settings.random_state, "train_drives": len(train),
            "test_drives": test, "test_rows": len(answers),
            "files": [settings.answers, settings.sample, settings.train_to, settings.test_to,
                      *settings.copies],
            "omitted": {}}


KIND = MleKind(DrivesSettings, build)
