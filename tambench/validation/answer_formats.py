"""Answers kept in another benchmark's own format, read as the task's answers table: the
"answers format" extension point.

A task grades against a table (one row per id, its target columns). Where a benchmark's
prepared data keeps the answers in another shape, and the task reads that data as it is (a
``--data-dir`` of MLE-bench's ``prepared/private/`` folders, or ``prepare --like
mle-bench``), a format converts the file into that table when the answers are loaded, in
memory, the file left as it is. A format names the metric whose answers it gives and the
file's suffix; :func:`format_for` picks it for an answers file, so a task's own answers (a
CSV table) are never converted.

Built in: ``nq-jsonl``, the JSON lines of Natural Questions' annotations that MLE-bench keeps
as TensorFlow 2.0 Question Answering's answers (``test.jsonl``). Each record gives two rows,
``<example_id>_long`` (the long answer's ``start:end``, empty when there is none) and
``<example_id>_short`` (every short answer's ``start:end`` and the YES / NO answer,
space-separated: each is an accepted answer), the table ``span_micro_f1`` scores.
"""

from __future__ import annotations

import csv
import io
import mmap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from tambench.core.bounded import parse_json
from tambench.core.registry import Registry
from tambench.errors import MalformedInputError, TaskDataError
from tambench.validation.reading.files import RawFile


@dataclass(frozen=True)
class AnswerFormat:
    """One format: the metric its answers are for, the file suffix, the conversion (the
    file's bytes -> the answers table as CSV bytes; problems raise TaskDataError)."""

    metric: str
    suffix: str
    convert: Callable[[memoryview, Path], bytes]


ANSWER_FORMATS: Registry[AnswerFormat] = Registry(
    "answers format", error=TaskDataError,
    hint="the formats are registered in tambench.validation.answer_formats")


def format_for(metric_id: str, path: Path) -> AnswerFormat | None:
    """The format of an answers file of a task graded by ``metric_id``, or None (a table)."""
    suffix = Path(path).suffix.lower()
    for name in ANSWER_FORMATS.names():
        fmt = ANSWER_FORMATS[name]
        if fmt.metric == metric_id and fmt.suffix == suffix:
            return fmt
    return None


def converted(raw: RawFile, fmt: AnswerFormat) -> RawFile:
    """``raw`` read through ``fmt``: a file of the converted table's bytes (same path and
    identity, so messages and the private-file checks still name the file on disk)."""
    table = fmt.convert(raw.view(), raw.path)
    arrow = pa.allocate_buffer(len(table))
    if table:
        memoryview(arrow).cast("B")[:] = table
    return RawFile(path=raw.path, size=len(table), data=table, arrow=arrow,
                   identity=raw.identity)


def _lines(data: memoryview) -> Iterator[tuple[int, bytes]]:
    start, n = 0, len(data)
    obj = data.obj
    raw: bytes | mmap.mmap = (obj if isinstance(obj, (bytes, mmap.mmap)) and len(obj) == n
                              else bytes(data))  # the mapping itself: no copy of the file
    line = 0
    while start < n:
        end = raw.find(b"\n", start)
        end = n if end < 0 else end
        line += 1
        chunk = raw[start:end].strip()
        if chunk:
            yield line, chunk
        start = end + 1


def _span(answer: Any, where: str) -> str:
    try:
        start, end = int(answer["start_token"]), int(answer["end_token"])
    except (KeyError, TypeError, ValueError) as exc:
        raise TaskDataError(f"{where}: an answer without integer start_token and end_token "
                            f"({exc})") from None
    return "" if start < 0 else f"{start}:{end}"


def _nq_rows(record: Any, where: str) -> tuple[str, str, str]:
    """(example id, long answers, short answers) of one Natural Questions record."""
    try:
        example = str(record["example_id"])
        annotation = record["annotations"][0]
        shorts = [_span(a, where) for a in annotation["short_answers"]]
        yes_no = str(annotation["yes_no_answer"])
        long = _span(annotation["long_answer"], where)
    except (KeyError, IndexError, TypeError) as exc:
        raise TaskDataError(f"{where}: not a Natural Questions record with example_id and "
                            f"one annotation (long_answer, short_answers, yes_no_answer): "
                            f"missing {exc}") from None
    if yes_no not in ("NONE", "YES", "NO"):
        raise TaskDataError(f"{where}: yes_no_answer {yes_no!r} is not NONE, YES or NO")
    accepted = [s for s in shorts if s] + ([yes_no] if yes_no != "NONE" else [])
    return example, long, " ".join(accepted)


def nq_answers(data: memoryview, path: Path) -> bytes:
    """Natural Questions' JSON lines -> ``example_id,PredictionString`` rows (see above)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["example_id", "PredictionString"])
    seen: set[str] = set()
    for line, chunk in _lines(data):
        where = f"answers {path.name} line {line}"
        try:
            record = parse_json(chunk, where)
        except MalformedInputError as exc:
            raise TaskDataError(f"{where}: not JSON ({exc})") from None
        example, long, short = _nq_rows(record, where)
        if example in seen:
            raise TaskDataError(f"{where}: example_id {example} appears twice")
        seen.add(example)
        writer.writerow([f"{example}_long", long])
        writer.writerow([f"{example}_short", short])
    if not seen:
        raise TaskDataError(f"answers {path.name} holds no record")
    return out.getvalue().encode()


ANSWER_FORMATS.register("nq-jsonl", AnswerFormat("span_micro_f1", ".jsonl", nq_answers))
