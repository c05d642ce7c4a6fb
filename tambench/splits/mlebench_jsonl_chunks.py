"""MLE-bench split kind ``jsonl_chunks``: a JSON-lines table split chunk by chunk
(tensorflow2-question-answering).

The script reads the raw JSON lines with pandas ``read_json(lines=True, chunksize=...)``, turns
the id column into text, and splits each chunk on its own by ``train_test_split``: each
chunk's training records, test records and test records reduced to ``test_keep`` are appended
to their files by ``to_json(orient="records", lines=True)``. The answers are then two rows per
test record, ``<id>_short`` and ``<id>_long``, from its one Natural Questions annotation: the
short answer is the ``yes_no_answer`` when it is not ``NONE``, else the first short answer's
``start:end`` tokens, else empty; the long answer is the long answer's ``start:end`` unless its
start is -1 (then empty). They are written by ``to_csv(index=False)`` beside a sample with
empty answers. A chunk at a time is held, so a large table is never read whole.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict, Field

from tambench._optional import require
from tambench.errors import SplitError
from tambench.schema.taskspec import TaskSpec
from tambench.splits.layout import resolve_inside
from tambench.splits.mlebench_categories import write_tables
from tambench.splits.mlebench_kinds import MleKind

_FEATURE = "prepare --like mle-bench (JSON lines in chunks)"


class ChunkedSplit(BaseModel):
    """The script's facts: the raw table, its chunks, the split, the files written and the
    answers' names (``annotations``: the records' annotation field; ``answer_column``: the
    answers' value column)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    chunksize: int = Field(gt=0)
    test_size: float = Field(gt=0, lt=1)
    random_state: int
    id_column: str
    train_to: str
    test_records_to: str
    test_to: str
    test_keep: list[str] = Field(min_length=1)
    annotations: str
    answers_to: str
    sample_to: str
    answer_column: str


def _span(span: Any, where: str) -> tuple[Any, Any]:
    if not isinstance(span, dict) or "start_token" not in span or "end_token" not in span:
        raise SplitError(f"{where}: a span needs start_token and end_token, got {span!r:.80}")
    return span["start_token"], span["end_token"]


def nq_answers(example_id: str, annotations: Any) -> tuple[Any, str]:
    """The short and the long answer of one record, as the script writes them."""
    where = f"record {example_id}"
    if not isinstance(annotations, list) or len(annotations) != 1 or not isinstance(
            annotations[0], dict):
        raise SplitError(f"{where}: MLE-bench reads exactly one annotation (an object), got "
                         f"{annotations!r:.80}")
    ann = annotations[0]
    missing = [k for k in ("yes_no_answer", "short_answers", "long_answer") if k not in ann]
    if missing:
        raise SplitError(f"{where}: its annotation lacks {missing}")
    short: Any = ""
    if ann["yes_no_answer"] != "NONE":
        short = ann["yes_no_answer"]
    elif len(ann["short_answers"]) > 0:
        start, end = _span(ann["short_answers"][0], where)
        short = f"{start}:{end}"
    start, end = _span(ann["long_answer"], where)
    return short, "" if start == -1 else f"{start}:{end}"


def _split_chunk(chunk: Any, settings: ChunkedSplit, number: int) -> tuple[Any, Any]:
    split = require("sklearn.model_selection", extra="mlebench", feature=_FEATURE)
    missing = [c for c in {settings.id_column, settings.annotations, *settings.test_keep}
               if c not in chunk.columns]
    if missing:
        raise SplitError(f"{settings.table}: chunk {number} lacks the field(s) "
                         f"{sorted(missing)} MLE-bench reads")
    chunk[settings.id_column] = chunk[settings.id_column].astype(str)
    try:
        train, test = split.train_test_split(chunk, test_size=settings.test_size,
                                             random_state=settings.random_state)
    except ValueError as exc:  # a last chunk too small to split
        raise SplitError(f"MLE-bench's split of chunk {number} of {settings.table} "
                         f"({len(chunk)} records): {exc}") from exc
    return train, test


def _chunks(settings: ChunkedSplit, raw_root: Path, stack: ExitStack) -> Any:
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    path = resolve_inside(raw_root, settings.table, "MLE-bench recipe table")
    if not path.is_file():
        raise SplitError(f"MLE-bench splits the JSON lines of {settings.table}; the raw "
                         "folder lacks it")
    try:
        return stack.enter_context(pd.read_json(path, orient="records", lines=True,
                                                chunksize=settings.chunksize))
    except ValueError as exc:
        raise SplitError(f"cannot read {settings.table} as MLE-bench does: {exc}") from exc


def _write_chunks(settings: ChunkedSplit, raw_root: Path, out: Path
                  ) -> tuple[list[dict[str, Any]], int, int]:
    """Each chunk split and appended to its files; the answers' rows and the row counts."""
    rows: list[dict[str, Any]] = []
    n_train = n_test = 0

    def opened(stack: ExitStack, rel: str) -> TextIO:
        target = resolve_inside(out, rel, "MLE-bench recipe file")
        target.parent.mkdir(parents=True, exist_ok=True)
        return stack.enter_context(open(target, "w", encoding="utf-8"))

    with ExitStack() as stack:
        files = [opened(stack, rel) for rel in (settings.train_to, settings.test_records_to,
                                                 settings.test_to)]
        reader = _chunks(settings, raw_root, stack)
        try:
            for number, chunk in enumerate(reader):
                train, test = _split_chunk(chunk, settings, number)
                for fh, frame in zip(files, (train, test, test[settings.test_keep]),
                                     strict=True):
                    fh.write(frame.to_json(orient="records", lines=True))
                for key, annotations in zip(test[settings.id_column],
                                            test[settings.annotations], strict=True):
                    short, long = nq_answers(key, annotations)
                    rows += [{settings.id_column: f"{key}_short", settings.answer_column: short},
                             {settings.id_column: f"{key}_long", settings.answer_column: long}]
                n_train, n_test = n_train + len(train), n_test + len(test)
        except ValueError as exc:  # a line that is not JSON
            raise SplitError(f"cannot read {settings.table} as MLE-bench does: {exc}") from exc
    return rows, n_train, n_test


def build(settings: ChunkedSplit, spec: TaskSpec, raw_root: Path,
          out: Path) -> dict[str, object]:
    """Write MLE-bench's chunked split (see the module) into ``out``; the report's figures."""
    pd = require("pandas", extra="mlebench", feature=_FEATURE)
    rows, n_train, n_test = _write_chunks(settings, raw_root, out)
    gold = pd.DataFrame(rows, columns=[settings.id_column, settings.answer_column])
    sample = gold.copy()
    sample[settings.answer_column] = ""
    write_tables(raw_root, out, {settings.answers_to: gold, settings.sample_to: sample}, {})
    return {"table": settings.table, "chunksize": settings.chunksize,
            "test_size": settings.test_size, "random_state": settings.random_state,
            "rows": n_train + n_test, "train_rows": n_train, "test_rows": n_test,
            "files": [settings.train_to, settings.test_records_to, settings.test_to,
                      settings.answers_to, settings.sample_to],
            "omitted": {}}


KIND = MleKind(ChunkedSplit, build)
