"""A default split spec derived from a task's grading spec, for tasks acquired or imported
without one.

The rule is deliberately plain, and recorded in the task's provenance so a benchmark builder
reviews it: the grading spec's first id column is the split's id column and its target columns
are hidden; classification-style metrics (label and probability inputs on a single target)
stratify on that target so train and test keep the class balance; every other metric splits
random rows. 10% of rows go to test, the most common choice among published preparers, but
never fewer than ``min_test_rows`` when the table is small (the caller passes the row count
when it knows it).
"""

from __future__ import annotations

from tambench.core.metrics import get_metric
from tambench.schema.splitspec import DEFAULT_TEST_SIZE, RandomSplit, StratifiedSplit
from tambench.schema.taskspec import SubmissionFormat, TaskSpec

#: Below this many test rows a metric's value is too noisy to rank anyone by.
MIN_TEST_ROWS = 50


def suggest_split_spec(
    spec: TaskSpec, *, n_rows: int | None = None, seed: int = 0
) -> RandomSplit | StratifiedSplit | None:
    """A split spec for ``spec``, or None when the task cannot be split by rows.

    Tasks whose submissions are JSON or line files, or whose grading spec names no id or
    target column, need a hand-written split spec: None is returned for them.

    >>> from tambench.schema.taskspec import GradingSpec
    >>> s = TaskSpec(id="kaggle/x", platform="kaggle", grading=GradingSpec(
    ...     metric="accuracy", id_columns=["id"], target_columns=["label"]))
    >>> split = suggest_split_spec(s, n_rows=200)
    >>> (split.strategy, split.stratify_column, split.test_size)
    ('stratified', 'label', 0.25)
    """
    g = spec.grading
    if g is None or g.submission_format != SubmissionFormat.CSV:
        return None
    if not g.id_columns or not g.target_columns:
        return None
    metric = get_metric(g.metric)
    stratify = metric.kind in {"label", "probability"} and len(g.target_columns) == 1
    test_size = DEFAULT_TEST_SIZE
    if n_rows is not None and n_rows > 0 and n_rows * test_size < MIN_TEST_ROWS:
        test_size = min(0.5, MIN_TEST_ROWS / n_rows)
    id_column, targets = g.id_columns[0], list(g.target_columns)
    if stratify:
        return StratifiedSplit(test_size=test_size, seed=seed, id_column=id_column,
                               target_columns=targets, stratify_column=targets[0])
    return RandomSplit(test_size=test_size, seed=seed, id_column=id_column,
                       target_columns=targets)
