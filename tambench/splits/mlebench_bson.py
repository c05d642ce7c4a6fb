"""MLE-bench split kind ``bson``: the documents of a BSON file split by their ids (Cdiscount).

The script reads each document's id and label from the raw BSON file into a table, splits its
rows once by ``train_test_split``, sorts the test rows by id and writes them as the answers
(``to_csv(index=False)``) beside a sample submission holding one constant label. It then
writes, in the raw file's order, each training document to the training file, its first
``head_rows`` ones also to a small example file, and each test document without its label to
the test file: every document decoded and encoded again by pymongo's ``bson``, as the script
does, so that with the same pymongo the bytes are the same. The raw file is read twice (ids,
then documents), never held whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_categories import write_tables
from tambench.splits.mlebench_kinds import MleKind

_FEATURE = "prepare --like mle-bench (BSON files)"


class BsonSplit(BaseModel):
    """The script's facts: the raw file, the id and label fields, the split and the files
    written (``copies``: MLE-bench's name -> raw file copied unchanged)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    id_column: str
    target: str
    test_size: float = Field(gt=0, lt=1)
    random_state: int
    answers_to: str
    sample_to: str
    sample_value: int
    train_to: str
    test_to: str
    head_to: str
    head_rows: int = Field(gt=0)
    copies: dict[str, str] = Field(default_factory=dict)


def _documents(raw_root: Path, rel: str) -> Iterator[dict[str, Any]]:
    """The raw file's documents in order, decoded as the script decodes them."""
    bson = require("bson", extra="mlebench", feature=_FEATURE)
    path = resolve_inside(raw_root, rel, "MLE-bench recipe table")
    if not path.is_file():
        raise SplitError(f"MLE-bench splits the BSON file {rel}; the raw folder lacks it")
    with open(path, "rb") as fh:
        try:
            yield from bson.decode_file_iter(fh)
        except bson.errors.InvalidBSON as exc:
            raise SplitError(f"{rel} is not a BSON file MLE-bench can read: {exc}") from exc


def _id_table(settings: BsonSplit, raw_root: Path) -> Any:
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    records = []
    for k, doc in enumerate(_documents(raw_root, settings.table)):
        missing = [f for f in (settings.id_column, settings.target) if f not in doc]
        if missing:
            raise SplitError(f"{settings.table}: document {k} lacks the field(s) {missing} "
                             "MLE-bench reads")
        records.append({settings.id_column: doc[settings.id_column],
                        settings.target: doc[settings.target]})
    if len(records) < 2:
        raise SplitError(f"{settings.table}: a split needs at least 2 documents, got "
                         f"{len(records)}")
    return pd.DataFrame(records)


def _write_documents(settings: BsonSplit, raw_root: Path, out: Path, train_ids: set[Any],
                     test_ids: set[Any]) -> None:
    bson = require("bson", extra="mlebench", feature=_FEATURE)

    def opened(stack: ExitStack, rel: str) -> BinaryIO:
        target = resolve_inside(out, rel, "MLE-bench recipe file")
        target.parent.mkdir(parents=True, exist_ok=True)
        return stack.enter_context(open(target, "wb"))

    with ExitStack() as stack:
        train, test, head = (opened(stack, rel)
                             for rel in (settings.train_to, settings.test_to, settings.head_to))
        in_head = 0
        for doc in _documents(raw_root, settings.table):
            key = doc[settings.id_column]
            if key in train_ids:
                data = bson.encode(doc)
                train.write(data)
                if in_head < settings.head_rows:
                    head.write(data)
                    in_head += 1
            if key in test_ids:
                doc.pop(settings.target, None)
                test.write(bson.encode(doc))


def build(settings: BsonSplit, spec: TaskSpec, raw_root: Path, out: Path) -> dict[str, object]:
    """Write MLE-bench's split of the BSON file (see the module) into ``out``; the report."""
    split = require("sklearn.model_selection", extra="mlebench", feature=_FEATURE)
    frame = _id_table(settings, raw_root)
    try:
        train, answers = split.train_test_split(frame, test_size=settings.test_size,
                                                random_state=settings.random_state)
    except ValueError as exc:
        raise SplitError(f"MLE-bench's split of {settings.table} ({len(frame)} documents): "
                         f"{exc}") from exc
    answers = answers.sort_values(by=settings.id_column)
    sample = answers[[settings.id_column]].assign(**{settings.target: settings.sample_value})
    write_tables(raw_root, out, {settings.answers_to: answers, settings.sample_to: sample},
                 settings.copies)
    _write_documents(settings, raw_root, out, set(train[settings.id_column]),
                     set(answers[settings.id_column]))
    return {"table": settings.table, "test_size": settings.test_size,
            "random_state": settings.random_state, "rows": len(frame),
            "train_rows": len(train), "test_rows": len(answers),
            "files": [settings.answers_to, settings.sample_to, settings.train_to,
                      settings.test_to, settings.head_to, *settings.copies],
            "omitted": {}}


KIND = MleKind(BsonSplit, build)
