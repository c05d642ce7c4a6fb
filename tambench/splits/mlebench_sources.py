"""The parts of MLE-bench's splits beyond a CSV table's rows, for
:mod:`tambench.splits.like_mlebench`: tables that are JSON lists of records or listings of
files, columns derived from the rows or numbered after the split, records written back as
JSON and the rows' files copied under MLE-bench's names (each described by its class in
:mod:`tambench.splits.mlebench_recipe`)."""

from __future__ import annotations

import json
import random
import shutil
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tambench._optional import require
from tambench.core.bounded import REPORT_BOUNDS, load_json
from tambench.errors import SplitError
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_recipe import (
    MleArgmax,
    MleArray,
    MleContains,
    MleDraw,
    MleGrid,
    MleJson,
    MleListing,
    MleNumber,
    MlePixels,
    MlePlace,
    MlePreassign,
    MleReplace,
    MleSwap,
    MleUnseen,
)
from tambench.splits.transforms import gray_pixels

if TYPE_CHECKING:
    import pandas as pd

#: The column of a listing's table holding each file's name.
FILE_COLUMN = "file"
#: The column of a recursive listing's table holding each file's path below the folder.
PATH_COLUMN = "path"


def load_records(raw_root: Path, rel: str) -> list[dict[str, Any]]:
    """A raw JSON table: a list of records (objects), as ``json.load`` reads it."""
    path = resolve_inside(raw_root, rel, "MLE-bench recipe table")
    try:
        doc = load_json(path, error=SplitError, bounds=REPORT_BOUNDS, source=rel)
    except OSError as exc:
        raise SplitError(f"cannot read {rel} as MLE-bench does: {exc}") from exc
    if not isinstance(doc, list) or not doc or not all(isinstance(r, dict) for r in doc):
        raise SplitError(f"{rel}: MLE-bench reads a non-empty JSON list of records (objects)")
    return doc


def records_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """The records as a table, one row a record (the row labels are their positions)."""
    pd = require("pandas", extra="mlebench", feature="prepare --like mle-bench")
    return pd.DataFrame(records)


def listing_frame(raw_root: Path, listing: MleListing) -> pd.DataFrame:
    """The listed files as a table (see :class:`MleListing`)."""
    pd = require("pandas", extra="mlebench", feature="prepare --like mle-bench")
    under = resolve_inside(raw_root, listing.under, "MLE-bench recipe listing")
    if not under.is_dir():
        raise SplitError(f"MLE-bench lists the files of {listing.under}/; the raw folder "
                         "lacks it")
    if listing.label_column is None:
        names = [p.name for p in sorted(under.glob("*" + listing.suffix))]
        frame = pd.DataFrame({FILE_COLUMN: names})
    elif listing.recursive:
        found = sorted((p for p in under.rglob("*" + listing.suffix) if p.is_file()),
                       key=lambda p: f"{p.parent.name}_{p.name}")
        frame = pd.DataFrame({FILE_COLUMN: [p.name for p in found],
                              listing.label_column: [p.parent.name for p in found],
                              PATH_COLUMN: [p.relative_to(under).as_posix() for p in found]})
    else:
        rows = [{FILE_COLUMN: name, listing.label_column: label}
                for label in sorted(p.name for p in under.iterdir())
                if (under / label).is_dir()
                for name in sorted(q.name for q in (under / label).iterdir())
                if name.endswith(listing.suffix)]
        frame = pd.DataFrame(rows, columns=[FILE_COLUMN, listing.label_column])
    if frame.empty:
        raise SplitError(f"MLE-bench splits the files *{listing.suffix} of {listing.under}/; "
                         "the raw folder has none")
    return frame


def derive(frame: pd.DataFrame, columns: dict[str, MleContains | MleReplace | MleArgmax]
           ) -> pd.DataFrame:
    """``frame`` with the derived columns added (see :class:`MleContains`,
    :class:`MleReplace`, :class:`MleArgmax`)."""
    for col, rule in columns.items():
        reads = rule.columns if isinstance(rule, MleArgmax) else [rule.of]
        missing = [c for c in reads if c not in frame.columns]
        if missing:
            raise SplitError(f"derived column {col}: the raw table lacks column(s) {missing}")
        if isinstance(rule, MleArgmax):
            best = np.argmax(frame[rule.columns].to_numpy(), axis=1)
            value: Any = np.asarray(rule.labels, dtype=object)[best]
        elif isinstance(rule, MleReplace):
            value = frame[rule.of].astype(str).str.replace(rule.old, rule.new, regex=False)
        else:
            hit = frame[rule.of].astype(str).str.contains(rule.text, regex=False)
            value = np.where(hit, rule.then, rule.otherwise)
        frame = frame.assign(**{col: value})
    return frame


def number(sides: dict[str, pd.DataFrame], numbers: list[MleNumber]) -> None:
    """Add each numbered column to its side in place (see :class:`MleNumber`)."""
    pd = require("pandas", extra="mlebench", feature="prepare --like mle-bench")
    for rule in numbers:
        side = sides[rule.rows]
        for col in (rule.per, rule.by_value):
            if col is not None and col not in side.columns:
                raise SplitError(f"numbered column {rule.column}: the rows lack column {col!r}")
        if rule.by_value is not None:
            codes: Any = pd.factorize(side[rule.by_value])[0] + rule.start
        elif rule.per is not None:
            codes = side.groupby(rule.per, sort=False, dropna=False).cumcount() + rule.start
        else:
            codes = np.arange(rule.start, rule.start + len(side))
        values = codes if rule.template is None else [rule.template.format(n=int(c))
                                                      for c in codes]
        sides[rule.rows] = side.assign(**{rule.column: values})


def _filled(template: str, row: dict[str, Any], what: str) -> str:
    try:
        return template.format(**row)
    except (KeyError, IndexError, ValueError) as exc:
        raise SplitError(f"{what} {template!r} names a column the rows lack or a wrong "
                         f"format: {exc}") from exc


def place(raw_root: Path, out: Path, sides: dict[str, pd.DataFrame],
          rules: list[MlePlace]) -> int:
    """Copy each side's files as the rules name them; how many were copied."""
    copied: set[Path] = set()
    for rule in rules:
        for row in sides[rule.rows].to_dict("records"):
            src = _filled(rule.src, row, "a file's raw path")
            source = resolve_inside(raw_root, src, "MLE-bench recipe file")
            target = resolve_inside(out, _filled(rule.to, row, "a file's name"),
                                    "MLE-bench recipe file")
            if target in copied:
                continue
            if not source.exists():
                raise SplitError(f"MLE-bench copies the raw file {src}; the raw folder "
                                 "lacks it")
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():  # a row's folder, copied whole (copytree)
                shutil.copytree(source, target, dirs_exist_ok=True)
            else:
                shutil.copyfile(source, target)
            copied.add(target)
    return len(copied)


def zip_folder(out: Path, archive: str, folder: str) -> None:
    """``folder`` (in ``out``) zipped into ``archive`` as MLE-bench's ``compress`` does: its
    files by their path inside it; the folder stays."""
    src = resolve_inside(out, folder, "MLE-bench recipe archive")
    dest = resolve_inside(out, archive, "MLE-bench recipe archive")
    if not src.is_dir():
        raise SplitError(f"MLE-bench zips {folder}/, which this recipe did not write")
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in src.rglob("*") if p.is_file()):
            zf.write(path, arcname=path.relative_to(src).as_posix())


def write_json(raw_root: Path, out: Path, records: list[dict[str, Any]],
               side: pd.DataFrame, spec: MleJson) -> None:
    """One side's records written back (see :class:`MleJson`)."""
    if not records:
        raise SplitError(f"{spec.to}: MLE-bench writes JSON records; the recipe's table is "
                         "not a JSON list of them")
    chosen = [records[i] for i in side.index]
    if spec.fields_of is not None:
        fields = list(load_records(raw_root, spec.fields_of)[0])
        missing = sorted({f for r in chosen for f in fields if f not in r})
        if missing:
            raise SplitError(f"{spec.to}: records lack the field(s) {missing[:5]} of "
                             f"{spec.fields_of}")
        chosen = [{f: r[f] for f in fields} for r in chosen]
    text = json.dumps(chosen, indent=spec.indent)
    path = resolve_inside(out, spec.to, "MLE-bench recipe file")
    if spec.plain:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if spec.archive is not None:
        archive_one(resolve_inside(out, spec.archive, "MLE-bench recipe archive"), path.name,
                    text.encode("utf-8"))


def archive_one(dest: Path, member: str, data: bytes) -> None:
    """``data`` alone in the archive ``dest`` as ``member``: a 7z archive (py7zr, as
    MLE-bench writes them) when ``dest`` ends with ``.7z``, else a zip (deflated)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.suffix != ".7z":
        with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(member, data)
        return
    py7zr = require("py7zr", extra="mlebench", feature="prepare --like mle-bench (7z files)")
    with py7zr.SevenZipFile(dest, "w") as archive:
        archive.writestr(data, member)


def pixel_answers(raw_root: Path, side: pd.DataFrame, spec: MlePixels) -> pd.DataFrame:
    """One row a pixel of each side's image (see :class:`MlePixels`)."""

    pd = require("pandas", extra="mlebench", feature="prepare --like mle-bench")
    images = sorted((_filled(spec.src, row, "an image's raw path")
                     for row in side.to_dict("records")), key=lambda rel: Path(rel).name)
    if not images:
        raise SplitError(f"{spec.to}: no image to take the answers' pixels from")
    parts = []
    for rel in images:
        path = resolve_inside(raw_root, rel, "MLE-bench recipe image")
        if not path.is_file():
            raise SplitError(f"MLE-bench reads the answers' pixels from {rel}; the raw folder "
                             "lacks it")
        gray = gray_pixels(path, rel)
        h, w = gray.shape
        rows = np.repeat(np.arange(1, h + 1), w).astype(str)
        cols = np.tile(np.arange(1, w + 1), h).astype(str)
        ids = np.char.add(np.char.add(np.char.add(f"{Path(rel).stem}_", rows), "_"), cols)
        parts.append(pd.DataFrame({spec.id_column: ids.astype(object),
                                   spec.value_column: gray.ravel() / spec.scale}))
    return pd.concat(parts, ignore_index=True)


def swap_first_rows(sides: dict[str, pd.DataFrame], rule: MleSwap) -> None:
    """Exchange two rows' values between the sides in place (see :class:`MleSwap`)."""
    train, test = sides["train"].copy(), sides["test"].copy()
    if rule.column not in test.columns:
        raise SplitError(f"swap: the raw table lacks column {rule.column!r}")
    if test[rule.column].nunique() != 1:
        return
    others = train[train[rule.column] != rule.train_not].index
    if len(others) == 0:
        raise SplitError(f"swap: no training row has {rule.column} other than "
                         f"{rule.train_not!r}")
    held = test.iloc[0].copy()
    test.iloc[0] = train.loc[others[0]].copy()
    train.loc[others[0]] = held
    sides["train"], sides["test"] = train, test


def draw_sources(sides: dict[str, pd.DataFrame], rule: MleDraw) -> None:
    """Shuffle one side and draw each row's source in place (see :class:`MleDraw`)."""
    side = sides[rule.rows]
    rng = random.Random(rule.seed)
    order = list(range(len(side)))
    rng.shuffle(order)
    sources, labels = [], []
    for _ in order:
        if rng.choice([True, False]):
            sources.append(rule.first)
            labels.append(0)
        else:
            sources.append(rng.choice(rule.others))
            labels.append(1)
    sides[rule.rows] = side.iloc[order].assign(**{rule.source: sources, rule.label: labels})


def _array(raw_root: Path, rel: str) -> Any:
    path = resolve_inside(raw_root, rel, "MLE-bench recipe array")
    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise SplitError(f"cannot read {rel} as a NumPy array (.npy): {exc}") from exc


def array_rows(raw_root: Path, rel: str) -> int:
    """How many rows (first axis) the raw NumPy array ``rel`` holds."""
    array = _array(raw_root, rel)
    if array.ndim == 0:
        raise SplitError(f"{rel} is a single value, not an array of rows")
    return int(array.shape[0])


def arrays_frame(raw_root: Path, table: str, columns: dict[str, str]) -> pd.DataFrame:
    """The split table of a NumPy array: one row a row of ``table``, the 1-D arrays
    ``columns`` as its columns."""
    pd = require("pandas", extra="mlebench", feature="prepare --like mle-bench")
    n = array_rows(raw_root, table)
    frame = pd.DataFrame(index=pd.RangeIndex(n))
    for col, rel in columns.items():
        values = _array(raw_root, rel)
        if values.shape != (n,):
            raise SplitError(f"{rel} holds shape {values.shape}; MLE-bench pairs it with the "
                             f"{n} rows of {table}")
        frame[col] = np.asarray(values)
    return frame


def save_array(raw_root: Path, out: Path, side: pd.DataFrame, spec: MleArray) -> None:
    """One side's rows of a raw array saved (see :class:`MleArray`)."""
    array = _array(raw_root, spec.src)
    if array.ndim == 0 or side.index.max() >= array.shape[0]:
        raise SplitError(f"{spec.src} has fewer rows than the split table")
    path = resolve_inside(out, spec.to, "MLE-bench recipe file")
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, array[np.asarray(side.index)])


def preassigned_split(frame: pd.DataFrame, rule: MlePreassign, test_size: float | int | None,
                      random_state: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(training rows, test rows), some assigned before the split (see
    :class:`MlePreassign`)."""
    from sklearn.model_selection import train_test_split

    if rule.column not in frame.columns:
        raise SplitError(f"the raw table lacks column {rule.column!r}")
    if frame[rule.column].isna().any():
        raise SplitError(f"column {rule.column} has empty cells; MLE-bench's assignment "
                         "needs a value in every row")
    side = np.full(len(frame), "undecided", dtype=object)
    position = {label: i for i, label in enumerate(frame.index)}
    rng = np.random.default_rng(rule.seed)
    for _, rows in frame.groupby(rule.column, sort=False):  # unique() order
        if len(rows) >= 2:
            chosen = rows.sample(2, random_state=rule.sample_state).index
            side[position[chosen[0]]], side[position[chosen[1]]] = "train", "test"
        else:
            side[position[rows.index[0]]] = rng.choice(
                ["train", "test"], replace=False, p=[1 - rule.share, rule.share])
    rest = frame[side == "undecided"]
    if len(rest) >= 2:
        try:
            kept, held = train_test_split(rest, test_size=test_size, random_state=random_state)
        except ValueError as exc:
            raise SplitError(f"MLE-bench's split of the {len(rest)} rows left: {exc}") from exc
        side[[position[i] for i in kept.index]] = "train"
        side[[position[i] for i in held.index]] = "test"
    elif len(rest):
        raise SplitError(f"a split needs at least 2 rows left, got {len(rest)}")
    return frame[side == "train"], frame[side == "test"]


def relabel_unseen(frame: pd.DataFrame, train: pd.DataFrame, rule: MleUnseen) -> pd.DataFrame:
    """``frame`` with the values of ``rule.column`` absent from ``train`` replaced."""
    for part in (frame, train):
        if rule.column not in part.columns:
            raise SplitError(f"the rows lack column {rule.column!r}")
    unseen = set(frame[rule.column]) - set(train[rule.column])
    out = frame.copy()
    out.loc[out[rule.column].isin(unseen), rule.column] = rule.value
    return out


def grid_rows(frame: pd.DataFrame, rule: MleGrid) -> pd.DataFrame:
    """The rows as a grid of values and steps (see :class:`MleGrid`)."""
    pd = require("pandas", extra="mlebench", feature="prepare --like mle-bench")
    for col in (rule.rows_of, rule.steps_of):
        if col not in frame.columns:
            raise SplitError(f"grid: the rows lack column {col!r}")
    steps = frame[rule.steps_of]
    if frame.empty or not pd.api.types.is_integer_dtype(steps):
        raise SplitError(f"grid: {rule.steps_of} must hold whole numbers in every row")
    span = range(int(steps.min()), int(steps.max()) + 1)
    cells = [(value, step) for value in frame[rule.rows_of].unique() for step in span]
    grid = pd.DataFrame(cells, columns=[rule.rows_of, rule.steps_of])
    return grid.merge(frame, on=[rule.rows_of, rule.steps_of], how="left")
