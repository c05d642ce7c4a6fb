"""``tambench prepare TASK --raw DIR --like mle-bench``: MLE-bench's own split, row for row.

Runs made in MLE-bench's containers saw MLE-bench's split, and a study moving between the two
tools needs it. For a competition whose MLE-bench ``prepare.py`` is one
``train_test_split(table, test_size=SHARE, random_state=SEED)`` of a raw CSV table (the task's
recipe was read from that ``prepare.py``: ``split.train_file``, ``split.test_size``,
``split.seed``), the rows are assigned as scikit-learn's ``train_test_split`` assigns them, and
each file lists its rows in the order MLE-bench's file lists them:

* ``public/train.csv``: the training rows, in ``train_test_split``'s (shuffled) order;
* ``private/<answers file>``: the test rows, whole, in ``train_test_split``'s order (MLE-bench's
  answers file, named as its config names it);
* ``public/test.csv`` and ``public/sample_submission.csv``: the same test rows in that order,
  without the targets (the sample filled with :func:`~tambench.splits.write.placeholder`);
* per-row files (``split.files``) in ``public/train/`` and ``public/test/`` with
  ``public/files_manifest.csv`` (MLE-bench zips some of these folders; the files are the same).

Rows are counted as pandas reads the table (blank lines are skipped), since MLE-bench splits
the frame pandas gives; values keep their spelling. A task whose recipe did not come from
MLE-bench's ``prepare.py`` in this form (a group split, an absolute test count, a held-out file),
or whose ``prepare.py`` moves rows after the split (:data:`REWORKED`), is refused, naming why. ``split_report.json`` records ``"like": "mle-bench"`` and the settings.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

from tambench.core.layout import SPLIT_REPORT_FILE
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import (
    PRIVATE_DIR,
    PUBLIC_DIR,
    SAMPLE_FILE,
    TEST_FILE,
    TRAIN_FILE,
    SplitPlan,
    plan_split,
    resolve_inside,
    set_modes,
    task_dir,
)

#: The recipe source that shows MLE-bench's split, and how its reading describes a table split.
MLE_BENCH_SOURCE = "github:openai/mle-bench"
_TABLE_SPLIT = "read with ast, not run: train_file "
#: Competitions whose MLE-bench ``prepare.py`` (at 783b15a) moves rows after the table split,
#: so that its files do not hold train_test_split's rows in its order: refused, naming how.
REWORKED = {
    "google-quest-challenge": "it swaps a row between train and test when the test rows hold "
                              "one value of question_type_spelling",
    "siim-covid19-detection": "it sorts both sides by id after the split",
    "nomad2018-predict-transparent-conductors": "it renumbers the ids 1, 2, ... after the split",
}


def mle_bench_settings(spec: TaskSpec) -> tuple[str, float, int]:
    """(raw table, test share, seed) of MLE-bench's split of the task.

    Raises:
        SplitError: the task's recipe is not MLE-bench's one ``train_test_split`` of a raw
            table with a test share.
    """
    split = spec.split
    facts = spec.provenance.facts.get("split", [])
    read = next((f for f in facts if f.source == MLE_BENCH_SOURCE), None)
    why = None
    if split is None or read is None:
        why = "its split recipe was not read from MLE-bench's prepare.py"
    elif not read.detail.startswith(_TABLE_SPLIT) or "suggestion" in read.detail:
        why = f"MLE-bench's prepare.py does not split one raw table by rows ({read.detail})"
    elif "test_size" not in read.detail or split.strategy != "random":
        why = ("MLE-bench's prepare.py splits it by a fixed count, a train share or a variable, "
               f"not a literal test share ({read.detail})")
    elif spec.slug in REWORKED:
        why = f"MLE-bench's prepare.py moves rows after its split: {REWORKED[spec.slug]}"
    if why is not None or split is None:
        raise SplitError(f"task {spec.id} cannot be prepared --like mle-bench: {why}; prepare "
                         "it with `tambench prepare` (tambench's own split)")
    test_size = getattr(split, "test_size", None)
    train_file = getattr(split, "train_file", "")
    if not isinstance(test_size, float) or not train_file:
        raise SplitError(f"task {spec.id}: its recipe gives no train_file and test_size")
    return train_file, test_size, split.seed


def mle_bench_indices(n: int, test_size: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train rows, test rows) as ``train_test_split(frame, test_size=test_size,
    random_state=seed)`` returns them for a frame of ``n`` rows, in its order."""
    from sklearn.model_selection import train_test_split

    if n < 2:
        raise SplitError(f"a split needs at least 2 rows, got {n}")
    train, test = train_test_split(np.arange(n), test_size=test_size, random_state=seed)
    return np.asarray(train), np.asarray(test)


def _read_table(path: Path) -> pl.DataFrame:
    """Every value as its text; rows as pandas counts them (blank lines skipped)."""
    try:
        frame = pl.read_csv(path, infer_schema=False)
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise SplitError(f"cannot read {path.name}: {exc}") from exc
    blank = pl.all_horizontal(pl.all().is_null())  # a blank line: every field null
    return frame.filter(~blank)


def _write(frame: pl.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.write_csv(path, line_terminator="\n")


def _sample(plan: SplitPlan, train: pl.DataFrame, test: pl.DataFrame) -> pl.DataFrame:
    """The test ids with a constant, label-free prediction from the training values."""
    from tambench.splits.write import placeholder

    def column(name: str) -> pl.Series:
        if name in plan.id_columns:
            return test[name]
        fill = placeholder(train[name], plan.metric_kind) if name in train.columns else ""
        return pl.Series(name, [fill] * test.height)

    return pl.DataFrame([column(c) for c in plan.submission_header])


def _row_files(raw_root: Path, frame: pl.DataFrame, test_idx: np.ndarray, plan: SplitPlan,
               out: Path) -> None:
    from tambench.splits.files import copy_row_files, file_fields

    if file_fields(plan) is None:
        return
    mask = np.zeros(frame.height, dtype=bool)
    mask[test_idx] = True
    test_order = np.searchsorted(np.sort(test_idx), test_idx)  # table order -> MLE-bench's
    copy_row_files(raw_root, frame, mask, plan, out, test_order)


def build_like_mle_bench(spec: TaskSpec, raw_root: Path, out: Path) -> dict[str, object]:
    """Write MLE-bench's split of ``spec`` from ``raw_root`` into ``out``; return the report."""
    train_file, test_size, seed = mle_bench_settings(spec)
    plan = plan_split(spec)
    frame = _read_table(resolve_inside(raw_root, train_file, "split.train_file"))
    missing = [c for c in plan.answer_columns if c not in frame.columns]
    if missing:
        raise SplitError(f"{train_file} lacks column(s) {missing}; it has {frame.columns}")
    train_idx, test_idx = mle_bench_indices(frame.height, test_size, seed)
    train, test = frame[train_idx], frame[test_idx]
    public = [c for c in frame.columns if c not in plan.dropped_columns]
    _write(train.select(public), out / PUBLIC_DIR / TRAIN_FILE)
    _write(test.select([c for c in public if c not in plan.withheld_from_test]),
           out / PUBLIC_DIR / TEST_FILE)
    _write(test, out / PRIVATE_DIR / plan.answers_file)  # as MLE-bench: the whole rows
    _write(_sample(plan, train, test), out / PUBLIC_DIR / SAMPLE_FILE)
    _row_files(raw_root, frame, test_idx, plan, out)
    return {"task_id": spec.id, "like": "mle-bench", "train_file": train_file,
            "test_size": test_size, "seed": seed, "rows": frame.height,
            "train_rows": int(train.height), "test_rows": int(test.height)}


def prepare_like_mle_bench(spec: TaskSpec, raw_root: Path, data_dir: Path) -> Path:
    """Prepare ``spec`` from a raw folder as MLE-bench does (see the module docstring) into
    ``<data_dir>/<platform>/<slug>``, replacing what was there; returns that folder.

    Raises:
        SplitError: the task's split is not MLE-bench's table split, or the raw table does
            not fit it.
    """
    from tambench.splits.checksums import write_checksums
    from tambench.splits.prepare import _swap_into_place

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
