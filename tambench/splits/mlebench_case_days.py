"""MLE-bench split kind ``case_days``: cases split once, then late days moved to the test side.

UW-Madison GI tract's ``prepare.py`` reads a table whose ids are
``<case>_<day>_slice_<slice>``. It splits the cases (in the order they first appear) once with
``train_test_split``; each test case's rows are test rows. Then, for each training case with
more than ``days_kept`` days, the days after the first ``days_kept`` (ordered by the number
after the day's prefix) move to the test side. The rows keep the table's order on both sides.

Each case's folder is copied into ``public/train`` or ``public/test`` and a moved day's folder
into ``public/test``. The answers are the test rows with the target renamed and each row's
image width and height, read from the name of its slice's one image (``slice_<s>_<width>_
<height>_...``) and written as floats as the script's ``.loc`` assignments leave them. The
sample submission is the test rows with one constant prediction; the public test drops the
target. Every table is written by pandas' ``to_csv(index=False, na_rep="")``.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_kinds import MleKind

if TYPE_CHECKING:
    import pandas as pd

_FEATURE = "prepare --like mle-bench"
#: The columns the script adds to the table (and drops before writing it).
_ADDED = ("case", "day", "slice", "set")


class CaseDays(BaseModel):
    """The script's facts: its table, split, days kept and the files it writes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    id_column: str
    target: str
    answer: str
    """The target's name in the answers and the sample submission."""
    test_size: float = Field(gt=0, lt=1)
    random_state: int
    days_kept: int = Field(ge=1)
    day_prefix: str
    """A day is ``<prefix><number>``; the days are ordered by the number."""
    folders: str
    """The raw folder holding ``<case>/<case>_<day>/`` per case."""
    image: str
    """The glob of one row's image under ``folders``, of ``{case}``, ``{day}``, ``{slice}``."""
    size_columns: tuple[str, str]
    """The answers' width and height columns."""
    size_parts: tuple[int, int]
    """Where width and height are among the image name's ``_``-separated parts."""
    sample_value: str
    train_dir: str
    test_dir: str
    train_to: str
    test_to: str
    sample_to: str
    answers_to: str


def _read(raw_root: Path, s: CaseDays) -> pd.DataFrame:
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    path = resolve_inside(raw_root, s.table, "MLE-bench recipe table")
    try:
        with warnings.catch_warnings():  # pandas 3 deprecates the option MLE-bench gives
            warnings.filterwarnings("ignore", message=".*float_precision.*")
            frame = pd.read_csv(path, float_precision="round_trip")
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise SplitError(f"cannot read {s.table} as MLE-bench does: {exc}") from exc
    missing = [c for c in (s.id_column, s.target) if c not in frame.columns]
    if missing:
        raise SplitError(f"{s.table} lacks column(s) {missing}; it has {list(frame.columns)}")
    return frame


def _id_parts(frame: pd.DataFrame, s: CaseDays) -> pd.DataFrame:
    """Each row's case, day and slice, read from its id as the script reads them."""
    ids = frame[s.id_column]
    bad = [v for v in ids if not isinstance(v, str) or v.count("_") < 2]
    if bad:
        raise SplitError(f"{s.table}: {len(bad)} id(s) are not <case>_<day>_..._<slice>, "
                         f"e.g. {bad[0]!r}")
    pieces = ids.str.split("_")
    return frame.assign(case=pieces.str[0], day=pieces.str[1], slice=pieces.str[-1])


def _day_number(day: str, s: CaseDays) -> int:
    number = day[len(s.day_prefix):]
    if not day.startswith(s.day_prefix) or not number.isdigit():
        raise SplitError(f"{s.table}: the day {day!r} is not {s.day_prefix}<number>")
    return int(number)


def split_cases(frame: pd.DataFrame, s: CaseDays) -> tuple[Any, Any, dict[str, list[str]]]:
    """(is-test mask over the rows, the test cases, each training case's moved days)."""
    split = require("sklearn.model_selection", extra="mlebench", feature=_FEATURE)
    cases = frame["case"].unique()
    if len(cases) < 2:
        raise SplitError(f"{s.table}: MLE-bench splits the cases; it holds {len(cases)}")
    _, test_cases = split.train_test_split(cases, test_size=s.test_size,
                                           random_state=s.random_state)
    is_test = frame["case"].isin(set(test_cases))
    moved: dict[str, list[str]] = {}
    for case, days in frame[~is_test].groupby("case")["day"]:
        ordered = sorted(set(days), key=lambda d: _day_number(d, s))
        if len(ordered) > s.days_kept:
            moved[case] = ordered[s.days_kept:]
            is_test = is_test | (frame["case"].eq(case) & frame["day"].isin(moved[case]))
    return is_test, test_cases, moved


def _image_sizes(raw_root: Path, test: pd.DataFrame, s: CaseDays) -> tuple[list[int], ...]:
    widths, heights = [], []
    folders = resolve_inside(raw_root, s.folders, "MLE-bench recipe folder")
    for case, day, piece in zip(test["case"], test["day"], test["slice"], strict=True):
        rel = s.image.format(case=case, day=day, slice=piece)
        parent, _, pattern = rel.rpartition("/")
        found = list(resolve_inside(folders, parent, "MLE-bench image").glob(pattern))
        if len(found) != 1:
            raise SplitError(f"MLE-bench reads one image {s.folders}/{rel} per test row; "
                             f"the raw folder has {len(found)}")
        parts = found[0].stem.split("_")
        try:
            widths.append(int(parts[s.size_parts[0]]))
            heights.append(int(parts[s.size_parts[1]]))
        except (IndexError, ValueError):
            raise SplitError(f"{found[0].name}: its name does not hold the image's width and "
                             "height where MLE-bench reads them") from None
    return widths, heights


def _check_days(raw_root: Path, frame: pd.DataFrame, s: CaseDays) -> None:
    """Each row's ``<case>/<case>_<day>/`` folder is in the raw folder (the script asserts it)."""
    folders = resolve_inside(raw_root, s.folders, "MLE-bench recipe folder")
    for case, day in frame[["case", "day"]].drop_duplicates().itertuples(index=False):
        if not resolve_inside(folders, f"{case}/{case}_{day}", "MLE-bench case").is_dir():
            raise SplitError(f"MLE-bench copies {s.folders}/{case}/{case}_{day}/ of the table's "
                             "rows; the raw folder lacks it")


def _copy_folders(raw_root: Path, out: Path, frame: pd.DataFrame, test_cases: Any,
                  moved: dict[str, list[str]], s: CaseDays) -> None:
    """Each case's folder into the train or test folder, then the moved days into test."""
    folders = resolve_inside(raw_root, s.folders, "MLE-bench recipe folder")
    held = set(test_cases)
    for case in frame["case"].unique():
        days = {f"{case}_{d}" for d in moved.get(case, [])}
        dest = s.test_dir if case in held else s.train_dir
        shutil.copytree(folders / case, resolve_inside(out, f"{dest}/{case}", "MLE-bench case"),
                        ignore=lambda _d, names, days=days: [n for n in names if n in days],
                        dirs_exist_ok=True)
        for name in sorted(days):
            shutil.copytree(folders / case / name,
                            resolve_inside(out, f"{s.test_dir}/{case}/{name}", "MLE-bench day"),
                            dirs_exist_ok=True)


def _write(frame: pd.DataFrame, out: Path, rel: str) -> None:
    path = resolve_inside(out, rel, "MLE-bench recipe file")
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, na_rep="")


def build(s: CaseDays, spec: TaskSpec, raw_root: Path, out: Path) -> dict[str, object]:
    """Write the split (see the module docstring); the report's figures."""
    del spec  # the settings say everything
    frame = _id_parts(_read(raw_root, s), s)
    is_test, test_cases, moved = split_cases(frame, s)
    _check_days(raw_root, frame, s)
    test = frame[is_test].copy()
    widths, heights = _image_sizes(raw_root, test, s)
    _copy_folders(raw_root, out, frame, test_cases, moved, s)
    width, height = s.size_columns
    test[width] = np.asarray(widths, dtype=np.float64)
    test[height] = np.asarray(heights, dtype=np.float64)
    train = frame[~is_test].drop(columns=list(_ADDED), errors="ignore")
    test = test.drop(columns=list(_ADDED), errors="ignore")
    sample = test.assign(**{s.target: s.sample_value}).drop(columns=[width, height])
    answers = test.rename(columns={s.target: s.answer})
    tables = {s.sample_to: sample.rename(columns={s.target: s.answer}),
              s.answers_to: answers, s.train_to: train,
              s.test_to: answers.drop(columns=[s.answer, width, height])}
    for rel, table in tables.items():
        _write(table, out, rel)
    return {"table": s.table, "test_size": s.test_size, "random_state": s.random_state,
            "cases": int(frame["case"].nunique()), "test_cases": len(test_cases),
            "moved_days": sum(len(d) for d in moved.values()),
            "rows": len(frame), "train_rows": len(train), "test_rows": len(test),
            "files": [*tables, s.train_dir, s.test_dir], "omitted": {}}


KIND = MleKind(CaseDays, build)
