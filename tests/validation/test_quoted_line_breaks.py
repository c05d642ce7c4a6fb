"""Text submissions whose values hold a quoted line break (RFC 4180, which pandas writes):
accepted by default for text-kind metrics, refused for labels and numbers; files are read in
parallel blocks, and read again with blocks found serially only when a quoted value spans
lines over several blocks."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from tambench.grading.grade import grade_submission
from tambench.schema.taskspec import GradingSpec, TaskSpec
from tambench.validation.reading import csvbody

N = 100_000  # about 3 MB: several parser blocks of 1 MiB


def _write(path: Path, rows: list[tuple[str, str]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")  # quotes a value holding a line break
    writer.writerow(["id", "y"])
    writer.writerows(rows)
    path.write_text(out.getvalue())


def _texts(n: int, every: int) -> list[str]:
    return [f"line {i} of a note" + (f"\nsecond line, {i}" if i % every == 0 else "")
            for i in range(n)]


def _spec(metric: str, **policy: Any) -> TaskSpec:
    return TaskSpec(id="kaggle/notes", platform="kaggle", grading=GradingSpec(
        metric=metric, id_columns=["id"], target_columns=["y"], value_policy=policy))


def _files(tmp_path: Path, truths: list[str], preds: list[str]) -> tuple[Path, Path]:
    answers, sub = tmp_path / "answers.csv", tmp_path / "submission.csv"
    ids = [f"n{i:06d}" for i in range(len(truths))]
    _write(answers, list(zip(ids, truths, strict=True)))
    _write(sub, list(zip(reversed(ids), reversed(preds), strict=True)))
    return answers, sub


@pytest.fixture
def serial_reads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each parse of a body found its blocks serially."""
    seen: list[bool] = []
    attempt = csvbody._BodyParser.attempt

    def spy(self: csvbody._BodyParser, as_float: Any) -> Any:
        seen.append(self.serial)
        return attempt(self, as_float)

    monkeypatch.setattr(csvbody._BodyParser, "attempt", spy)
    return seen


@pytest.mark.parametrize("metric", ["exact_match", "levenshtein_mean", "jaccard_words"])
def test_text_values_may_hold_quoted_line_breaks_over_many_blocks(
    metric: str, tmp_path: Path, serial_reads: list[bool]
) -> None:
    truths = _texts(N, every=97)
    preds = list(truths)
    for i in range(0, N, 10):  # a tenth of the rows differ, some of them multi-line
        preds[i] = preds[i].replace("note", "nite")
    answers, sub = _files(tmp_path, truths, preds)
    assert sub.stat().st_size > 2 * csvbody.MIN_BLOCK_BYTES
    report = grade_submission(sub, _spec(metric), answers)
    assert report.valid_submission, report.errors
    if metric == "exact_match":
        assert report.score == pytest.approx(0.9)
    elif metric == "levenshtein_mean":
        assert report.score == pytest.approx(0.1)  # one substitution in a tenth of the rows
    assert True in serial_reads  # the answers' and the submission's line breaks: serial


def test_text_without_quoted_line_breaks_keeps_the_parallel_read(
    tmp_path: Path, serial_reads: list[bool]
) -> None:
    truths = [f"plain, quoted text {i}" for i in range(N)]  # quoted (a comma), no break
    answers, sub = _files(tmp_path, truths, truths)
    report = grade_submission(sub, _spec("exact_match"), answers)
    assert report.valid_submission and report.score == 1.0
    assert serial_reads and not any(serial_reads)


def test_a_text_task_may_still_refuse_line_breaks(tmp_path: Path) -> None:
    truths = _texts(200, every=50)
    answers, sub = _files(tmp_path, [t.replace("\n", " ") for t in truths], truths)
    report = grade_submission(sub, _spec("exact_match", multiline_values=False), answers)
    assert not report.valid_submission
    assert report.errors == ["column `y`: 4 value(s) hold a line break (a quoted newline) in "
                             "rows [50, 100, 150, 200] (ids ['n000150', 'n000100', 'n000050', "
                             "'n000000']); expected one row per line"]


@pytest.mark.parametrize(("metric", "good", "bad", "message"), [
    ("accuracy", "cat", "cat\ndog", "hold a line break (a quoted newline)"),
    ("rmse", "1.5", "1\n5", "are not numbers"),
])
def test_labels_and_numbers_keep_the_refusal_over_many_blocks(
    metric: str, good: str, bad: str, message: str, tmp_path: Path
) -> None:
    truths = [good] * N
    preds = list(truths)
    preds[N // 2] = bad
    answers, sub = _files(tmp_path, truths, preds)
    report = grade_submission(sub, _spec(metric), answers)
    assert not report.valid_submission
    assert len(report.errors) == 1 and message in report.errors[0], report.errors
    assert f"ids ['n{N // 2:06d}']" in report.errors[0]
