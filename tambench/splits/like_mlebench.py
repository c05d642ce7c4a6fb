"""``tambench prepare TASK --raw DIR --like mle-bench``: MLE-bench's own split, file for file.

Runs made in MLE-bench's containers saw MLE-bench's split, and a study moving between the two
tools needs it. For a competition whose MLE-bench ``prepare.py`` is one ``train_test_split`` of
the rows of a raw table (a CSV table, a JSON list of records, a listing of files, a NumPy
array), its recipe (:mod:`tambench.splits.mlebench_recipe`, data read from that script) says
which files it writes from the training and test rows. They are made here the way MLE-bench
makes them: the table read by pandas with the script's options, the rows split by
scikit-learn's ``train_test_split`` with the script's sizes and ``random_state``, and each file
written by pandas' ``to_csv(index=False)``, so that with the same pandas the bytes are the same:
the same rows in the same order in ``public/`` (train, test, sample submission) and
``private/`` (the answers), under MLE-bench's file names. Per-row files (images...) are copied
under MLE-bench's names where the recipe names them (``place``); otherwise they follow their
rows into ``public/train/`` and ``public/test/`` as the task's own split places them
(MLE-bench's folder names differ between competitions and some are zipped; the files are the
same). The parts beyond a CSV table's rows are in :mod:`tambench.splits.mlebench_sources`.

A split of the groups of a column (the column's values split once, each group's rows going to
one side) is made the same way, and a split per category of JSON metadata (the herbaria and
iNaturalist, :mod:`tambench.splits.mlebench_categories`) and iWildCam 2020's locations moved
in a loop (:mod:`tambench.splits.mlebench_locations`). A script that reads or writes more
than a table's rows (TFRecords, BSON, Parquet batches, drive folders, masks...) is a split kind
of its own (:mod:`tambench.splits.mlebench_kinds`). A competition whose script makes no single
split is refused, naming why (the recipes' ``out`` list). ``split_report.json`` records ``"like": "mle-bench"``
and the recipe's settings; no leakage audit is run (the split is MLE-bench's).
"""

from __future__ import annotations

import csv
import json
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tambench._optional import require
from tambench.core.layout import SPLIT_REPORT_FILE
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import plan_split, resolve_inside, set_modes, task_dir
from tambench.splits.mlebench_categories import build_per_category
from tambench.splits.mlebench_kinds import SpecialRecipe, build_special
from tambench.splits.mlebench_locations import build_by_location
from tambench.splits.mlebench_recipe import (
    CLASSES_TOKEN,
    MleCategories,
    MleFile,
    MleFilter,
    MleLinspace,
    MleLocations,
    MleMean,
    MleRandom,
    MleRecipe,
    recipe_for,
)
from tambench.splits.mlebench_sources import (
    archive_one,
    array_rows,
    arrays_frame,
    derive,
    draw_sources,
    grid_rows,
    listing_frame,
    load_records,
    number,
    pixel_answers,
    place,
    preassigned_split,
    records_frame,
    relabel_unseen,
    save_array,
    swap_first_rows,
    write_json,
    zip_folder,
)

if TYPE_CHECKING:
    import pandas as pd


def _pandas() -> Any:
    return require("pandas", extra="mlebench", feature="prepare --like mle-bench")


def _read(raw_root: Path, rel: str, recipe: MleRecipe, sep: str = ",") -> pd.DataFrame:
    pd = _pandas()
    path = resolve_inside(raw_root, rel, "MLE-bench recipe table")
    kwargs: dict[str, Any] = {"sep": sep}
    if recipe.round_trip:
        kwargs["float_precision"] = "round_trip"
    if recipe.dtype and rel == recipe.table:
        kwargs["dtype"] = {c: (str if t == "str" else int) for c, t in recipe.dtype.items()}
    try:
        with warnings.catch_warnings():  # pandas 3 deprecates the option MLE-bench still gives
            warnings.filterwarnings("ignore", message=".*float_precision.*")
            return pd.read_csv(path, **kwargs)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise SplitError(f"cannot read {rel} as MLE-bench does: {exc}") from exc


def test_size_of(recipe: MleRecipe, raw_root: Path, rows: int) -> float | int | None:
    """The ``test_size`` given to ``train_test_split`` (a share of the raw files when the
    recipe counts them)."""
    other = recipe.split.test_share_of_records
    if other is not None:
        n_records = (array_rows(raw_root, other) if other.endswith(".npy")
                     else len(load_records(raw_root, other)))
        return n_records / (rows + n_records)
    pattern = recipe.split.test_share_of_files
    if pattern is None:
        return recipe.split.test_size
    n_files = sum(1 for p in raw_root.glob(pattern) if p.is_file())
    if n_files == 0:
        raise SplitError(f"MLE-bench sizes the test share by the raw files {pattern}; the raw "
                         "folder has none")
    return n_files / (rows + n_files)


def split_rows(frame: pd.DataFrame, recipe: MleRecipe, raw_root: Path
               ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(training rows, test rows, test groups) as MLE-bench's ``train_test_split`` returns
    them; the test groups (one row a value of a ``unique`` group split's column, in the
    split's order) are empty for another split."""
    from sklearn.model_selection import train_test_split

    groups = recipe.split.groups
    units: Any = frame
    if groups is not None:
        _check_columns(frame, [groups.column], recipe.table)
        units = (list(frame[groups.column].unique()) if groups.kind == "unique"
                 else [g for _, g in frame.groupby(groups.column)])
    what = "rows" if groups is None else f"groups of {groups.column}"
    if len(units) < 2:
        raise SplitError(f"a split needs at least 2 {what}, got {len(units)}")
    try:
        train, test = train_test_split(
            units, test_size=test_size_of(recipe, raw_root, len(units)),
            train_size=recipe.split.train_size, random_state=recipe.split.random_state)
    except ValueError as exc:  # sizes larger than the table
        raise SplitError(f"MLE-bench's split of {recipe.table} ({len(units)} {what}): {exc}"
                         ) from exc
    pd = _pandas()
    held = pd.DataFrame()
    if groups is not None and groups.kind == "unique":
        col = frame[groups.column]
        held = pd.DataFrame({groups.column: list(test)})
        train, test = frame[col.isin(train)], frame[col.isin(test)]
    elif groups is not None:
        train, test = pd.concat(train), pd.concat(test)
    if recipe.order == "table":
        train, test = train.sort_index(), test.sort_index()
    if recipe.renumber is not None:
        col, start = recipe.renumber.column, recipe.renumber.start
        if recipe.renumber.by_value:
            train, test = (side.assign(**{col: pd.factorize(side[col])[0] + start})
                           for side in (train, test))
        else:
            after = start if recipe.renumber.restart else start + len(train)
            train = train.assign(**{col: np.arange(start, start + len(train))})
            test = test.assign(**{col: np.arange(after, after + len(test))})
    return train, test, held


def _values(value: bool | int | float | str | MleRandom | MleMean, n: int,
            train: pd.DataFrame) -> Any:
    if isinstance(value, MleMean):
        _check_columns(train, [value.mean_of_train], "the training rows")
        return train[value.mean_of_train].mean()
    if not isinstance(value, MleRandom):
        return value
    if value.random == "randint":
        return np.random.RandomState(value.seed).randint(int(value.low), int(value.high), size=n)
    drawn = np.random.default_rng(value.seed).uniform(value.low, value.high, n)
    return drawn if value.round is None else drawn.round(value.round)


def _one_hot(frame: pd.DataFrame, id_col: str, target: str, classes: list[str]) -> pd.DataFrame:
    pd = _pandas()
    unknown = sorted(set(frame[target].astype(str)) - set(classes))
    if unknown:
        raise SplitError(f"{target} holds value(s) {unknown[:5]} that are not among the task's "
                         f"{len(classes)} classes")
    out = pd.DataFrame(0, index=frame.index, columns=[id_col, *classes])
    out[id_col] = frame[id_col]
    for cls in classes:
        out[cls] = (frame[target].astype(str) == cls).astype("int64")
    return out


def shape(frame: pd.DataFrame, spec: MleFile, classes: list[str],
          train: pd.DataFrame | None = None) -> pd.DataFrame:
    """The rows of one file, with its columns as the recipe makes them (``train``: the
    training rows, for a value computed from them; ``frame`` if not given)."""
    out = frame.copy() if spec.grid is None else grid_rows(frame, spec.grid)
    if spec.presort is not None:
        _check_columns(out, [spec.presort], spec.to)
        out = out.sort_values(by=spec.presort)
    for col, parts in spec.join.items():
        _check_columns(out, parts, spec.to)
        joined = out[parts[0]].astype(str)
        for part in parts[1:]:
            joined = joined + "_" + out[part].astype(str)
        out[col] = joined
    for col, template in spec.format.items():
        try:
            out[col] = [template.format(**row) for row in out.to_dict("records")]
        except (KeyError, IndexError, ValueError) as exc:
            raise SplitError(f"{spec.to}: the template {template!r} of column {col} names "
                             f"a column the rows lack or a wrong format: {exc}") from exc
    _check_columns(out, list(spec.copy_of.values()), spec.to)
    for col, source in spec.copy_of.items():
        out[col] = out[source]
    if spec.keep is not None:
        cols = [c for k in spec.keep for c in (classes if k == CLASSES_TOKEN else [k])]
        _check_columns(out, cols, spec.to)
        out = out[cols].copy()
    drop = [c for k in spec.drop for c in (classes if k == CLASSES_TOKEN else [k])]
    _check_columns(out, drop + spec.as_int, spec.to)
    out = out.drop(columns=drop)
    if spec.as_int:
        out = out.astype({c: "int64" for c in spec.as_int})
    if spec.unseen is not None:
        out = relabel_unseen(out, frame if train is None else train, spec.unseen)
    _check_columns(out, list(spec.rename), spec.to)
    out = out.rename(columns=spec.rename)
    if spec.one_hot is not None:
        _check_columns(out, [spec.one_hot.id, spec.one_hot.target], spec.to)
        out = _one_hot(out, spec.one_hot.id, spec.one_hot.target, classes)
    if spec.first_by is not None:
        by = [spec.first_by] if isinstance(spec.first_by, str) else spec.first_by
        _check_columns(out, by, spec.to)
        out = out.groupby(spec.first_by).first().reset_index()
    if spec.fillna is not None:
        out = out.fillna(spec.fillna)
    if spec.set_where is not None:
        rule = spec.set_where
        _check_columns(out, [rule.column, *rule.values], spec.to)
        out.loc[out[rule.column] == rule.equals, list(rule.values)] = list(rule.values.values())
    for col, value in spec.set.items():
        out[col] = _values(value, len(out), frame if train is None else train)
    if isinstance(spec.fill_classes, MleLinspace):
        low, high = spec.fill_classes.linspace
        out[classes] = np.tile(np.linspace(low, high, len(out))[:, None], (1, len(classes)))
    elif spec.fill_classes is not None:
        out[classes] = spec.fill_classes
    if spec.sort_by is not None:
        out = out.sort_values(by=spec.sort_by)
    return out


def _check_columns(frame: pd.DataFrame, cols: list[str], where: str) -> None:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise SplitError(f"{where}: the raw table lacks column(s) {missing}; it has "
                         f"{list(frame.columns)}")


def _write(frame: pd.DataFrame, out: Path, rel: str, sep: str = ",", zipped: bool = False,
           spec: MleFile | None = None) -> None:
    path = resolve_inside(out, rel, "MLE-bench recipe file")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = frame.to_csv(index=spec is not None and spec.index, sep=sep, lineterminator="\n",
                        float_format=None if spec is None else spec.float_format,
                        quoting=csv.QUOTE_NONNUMERIC if spec and spec.quote_nonnumeric
                        else csv.QUOTE_MINIMAL)
    if not zipped:
        path.write_text(text, encoding="utf-8")
        return
    suffix = "." + (spec.archive_format if spec is not None else "zip")
    archive_one(path.with_name(path.name + suffix), path.name, text.encode("utf-8"))


def _filtered(raw_root: Path, spec: MleFilter, recipe: MleRecipe,
              sides: dict[str, pd.DataFrame]) -> pd.DataFrame:
    table = derive(_read(raw_root, spec.table, recipe), dict(spec.derive))
    against = spec.against or spec.column
    where = spec.to or f"the rows of {spec.table}"
    _check_columns(table, [spec.column], where)
    _check_columns(sides[spec.rows], [against], where)
    key = table[spec.column] + spec.suffix if spec.suffix else table[spec.column]
    kept = table[key.isin(sides[spec.rows][against])]
    return kept if spec.sort_by is None else kept.sort_values(by=spec.sort_by)


def _copy_raw(raw_root: Path, out: Path, dest: str, src: str) -> None:
    source = resolve_inside(raw_root, src, "MLE-bench recipe copy")
    target = resolve_inside(out, dest, "MLE-bench recipe copy")
    if not source.exists():
        raise SplitError(f"MLE-bench copies raw {src} into {dest}; the raw folder lacks it")
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copyfile(source, target)


def _raw_column(spec: TaskSpec, frame: pd.DataFrame, column: str) -> list[str]:
    """A column the task's recipe reads, from MLE-bench's raw rows: itself, the raw column a
    ``rename`` gives it, or the text a ``compose_id`` builds it from."""
    steps = getattr(spec.split, "transforms", None) or []
    raw_name = {new: old for t in steps if getattr(t, "op", None) == "rename"
                for old, new in t.columns.items()}
    name = column if column in frame.columns else raw_name.get(column, column)
    if name in frame.columns:
        return frame[name].astype(str).tolist()
    for t in steps:
        if getattr(t, "op", None) == "compose_id" and t.column == column \
                and set(t.reads()) <= set(frame.columns):
            cells = frame[t.reads()].astype(str).fillna("")
            return [t.template.format(**row) for row in cells.to_dict("records")]
    raise SplitError(f"the task's per-row files need column {column!r}, which MLE-bench's raw "
                     "table does not hold")


def _row_files(spec: TaskSpec, raw_root: Path, frame: pd.DataFrame, test: pd.DataFrame,
               out: Path) -> int:
    """Per-row files placed as the task's split places them; how many rows carry one."""
    import polars as pl

    # start-up: saves 299 ms (polars)
    from tambench.splits.files import copy_row_files, file_fields
    if spec.split is None or getattr(spec.split, "files", None) is None:
        return 0
    plan = plan_split(spec)
    fields = file_fields(plan) or []
    keys = pl.DataFrame({c: _raw_column(spec, frame, c)
                         for c in dict.fromkeys([plan.id_column, *fields])})
    mask = frame.index.isin(test.index)
    position = {label: i for i, label in enumerate(frame.index[mask])}
    order = np.asarray([position[label] for label in test.index])  # table order -> public
    copy_row_files(raw_root, keys, np.asarray(mask), plan, out, order)
    return len(frame)


def _classes(spec: TaskSpec) -> list[str]:
    return list(getattr(spec.split, "target_columns", None) or [])


def _table(raw_root: Path, recipe: MleRecipe) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The table split, and its records when it is a JSON list of them."""
    if recipe.listing is not None:
        return derive(listing_frame(raw_root, recipe.listing), recipe.derive), []
    if recipe.table.endswith(".npy"):
        return derive(arrays_frame(raw_root, recipe.table, recipe.array_columns),
                      recipe.derive), []
    if recipe.table.endswith(".json"):
        records = load_records(raw_root, recipe.table)
        return derive(records_frame(records), recipe.derive), records
    return derive(_read(raw_root, recipe.table, recipe, recipe.sep), recipe.derive), []


def _parts(sides: dict[str, pd.DataFrame], spec: MleFile, classes: list[str]) -> pd.DataFrame:
    """A file's rows: its own, shaped, then each appended part's."""
    def rows_of(part: MleFile) -> pd.DataFrame:
        rows = sides[part.rows]
        if part.merge is None:
            return rows
        rule = part.merge
        _check_columns(rows, [rule.on], part.to)
        _check_columns(sides[rule.side], [rule.on, *rule.columns], part.to)
        return rows.merge(sides[rule.side][[rule.on, *rule.columns]], on=rule.on)

    frame = shape(rows_of(spec), spec, classes, sides["train"])
    if not spec.append:
        return frame
    pd = _pandas()
    return pd.concat([frame, *(shape(rows_of(a), a, classes, sides["train"])
                               for a in spec.append)], ignore_index=True)


def _write_all(spec: TaskSpec, recipe: MleRecipe, raw_root: Path, out: Path,
               sides: dict[str, pd.DataFrame], records: list[dict[str, Any]]) -> None:
    for flt in recipe.filters:
        kept = _filtered(raw_root, flt, recipe, sides)
        if flt.to is not None:
            _write(kept.drop(columns=list(flt.derive)), out, flt.to)
        if flt.side is not None:
            sides[flt.side] = kept
    for f in recipe.files:
        _write(_parts(sides, f, _classes(spec)), out, f.to, f.sep, f.zip, f)
    for js in recipe.json_files:
        write_json(raw_root, out, records, sides[js.rows], js)
    for arr in recipe.arrays:
        save_array(raw_root, out, sides[arr.rows], arr)
    for px in recipe.pixels:
        answers = pixel_answers(raw_root, sides[px.rows], px)
        _write(answers, out, px.to)
        if px.sample_to is not None:
            _write(answers.assign(**{px.value_column: px.sample_value}), out, px.sample_to)
    for dest, src in recipe.copies.items():
        _copy_raw(raw_root, out, dest, src)
    place(raw_root, out, sides, recipe.place)
    for archive, folder in recipe.zip_folders.items():
        zip_folder(out, archive, folder)


def build_like_mle_bench(spec: TaskSpec, raw_root: Path, out: Path) -> dict[str, object]:
    """Write MLE-bench's split of ``spec`` from ``raw_root`` into ``out``; return the report."""
    recipe = recipe_for(spec.slug, spec.id)
    if isinstance(recipe, MleCategories):
        return {"task_id": spec.id, "like": "mle-bench",
                **build_per_category(recipe, raw_root, out), "omitted": {}}
    if isinstance(recipe, MleLocations):
        return {"task_id": spec.id, "like": "mle-bench",
                **build_by_location(recipe, raw_root, out), "omitted": {}}
    if isinstance(recipe, SpecialRecipe):
        return {"task_id": spec.id, "like": "mle-bench",
                **build_special(recipe, spec, raw_root, out)}
    frame, records = _table(raw_root, recipe)
    for col, values in recipe.exclude.items():
        _check_columns(frame, [col], recipe.table)
        frame = frame[~frame[col].isin(values)]
    if recipe.fillna is not None:
        frame = frame.fillna(recipe.fillna)
    held = _pandas().DataFrame()
    if recipe.preassign is None:
        train, test, held = split_rows(frame, recipe, raw_root)
    else:
        train, test = preassigned_split(frame, recipe.preassign, recipe.split.test_size,
                                        recipe.split.random_state)
    sides = {"train": train, "test": test, "test_groups": held, "all": frame}
    if recipe.swap is not None:
        swap_first_rows(sides, recipe.swap)
    if recipe.draw is not None:
        draw_sources(sides, recipe.draw)
    number(sides, recipe.numbers)
    _write_all(spec, recipe, raw_root, out, sides, records)
    if not recipe.place:
        _row_files(spec, raw_root, frame, test, out)
    return {"task_id": spec.id, "like": "mle-bench", "table": recipe.table,
            "test_size": test_size_of(recipe, raw_root, len(frame)),
            "train_size": recipe.split.train_size, "random_state": recipe.split.random_state,
            "groups": None if recipe.split.groups is None else recipe.split.groups.model_dump(),
            "rows": len(frame), "train_rows": len(train), "test_rows": len(test),
            "files": [f.to + (f".{f.archive_format}" if f.zip else "") for f in recipe.files]
            + [f.to for f in recipe.json_files if f.plain]
            + [f.archive for f in recipe.json_files if f.archive]
            + [f.to for f in recipe.filters if f.to]
            + [p for f in recipe.pixels for p in (f.to, f.sample_to) if p]
            + [f.to for f in recipe.arrays]
            + list(recipe.copies) + list(recipe.zip_folders),
            "omitted": recipe.omitted}


def prepare_like_mle_bench(spec: TaskSpec, raw_root: Path, data_dir: Path) -> Path:
    """Prepare ``spec`` from a raw folder as MLE-bench does (see the module docstring) into
    ``<data_dir>/<platform>/<slug>``, replacing what was there; returns that folder.

    Raises:
        SplitError: MLE-bench's split of the task cannot be made this way, or the raw table
            does not fit its recipe.
    """
    # start-up: saves 12 ms (the split checksums)
    from tambench.splits.checksums import write_checksums

    # start-up: saves 509 ms (polars, pyarrow)
    from tambench.splits.prepare import _swap_into_place

    recipe_for(spec.slug, spec.id)  # refused before anything is written
    if not Path(raw_root).is_dir():
        raise SplitError(f"--like mle-bench reads a raw folder; {raw_root} is not one")
    final = task_dir(spec, Path(data_dir))
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.like-", dir=final.parent))
    try:
        report = build_like_mle_bench(spec, Path(raw_root), staging)
        (staging / SPLIT_REPORT_FILE).write_text(json.dumps(report, indent=2) + "\n")
        write_checksums(staging)
        set_modes(staging)
        _swap_into_place(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final
