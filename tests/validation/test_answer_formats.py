"""Answers kept in another benchmark's format (MLE-bench's Natural Questions JSON lines), read as
the task's answers table when they are loaded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.errors import TaskDataError
from tambench.validation.answer_formats import ANSWER_FORMATS, format_for, nq_answers

SLUG = "tensorflow2-question-answering"


def _record(example: int | str, long: tuple[int, int], shorts: list[tuple[int, int]],
            yes_no: str = "NONE") -> dict[str, object]:
    return {"example_id": example, "document_text": "a b c", "annotations": [{
        "long_answer": {"start_token": long[0], "end_token": long[1], "candidate_index": 0},
        "short_answers": [{"start_token": s, "end_token": e} for s, e in shorts],
        "yes_no_answer": yes_no, "annotation_id": 1}]}


RECORDS = [
    _record(-7, (10, 40), [(12, 14), (20, 22)]),  # two accepted short answers
    _record("8", (5, 9), [], "YES"),
    _record(9, (-1, -1), []),  # no answer at all
]


def _jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_each_record_gives_its_long_and_short_rows_with_every_accepted_answer(
        tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "test.jsonl", RECORDS)
    table = nq_answers(memoryview(path.read_bytes()), path).decode()
    assert table.splitlines() == [
        "example_id,PredictionString",
        "-7_long,10:40", "-7_short,12:14 20:22",
        "8_long,5:9", "8_short,YES",
        "9_long,", "9_short,",
    ]
    assert format_for("span_micro_f1", path) is ANSWER_FORMATS["nq-jsonl"]
    assert format_for("span_micro_f1", tmp_path / "answers.csv") is None  # a table: as it is
    assert format_for("accuracy", path) is None


def _grade(sub: Path, answers: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    main(["grade", str(sub), "--answers", str(answers), "--metric", "span_micro_f1",
          "--id-column", "example_id", "--target-column", "PredictionString", "--json"])
    out = capsys.readouterr().out
    return dict(json.loads(out))


def test_a_second_accepted_short_answer_scores_as_right(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = _jsonl(tmp_path / "test.jsonl", RECORDS)
    sub = tmp_path / "submission.csv"
    sub.write_text("example_id,PredictionString\n-7_long,10:40\n-7_short,20:22\n8_long,5:9\n"
                   "8_short,YES\n9_long,\n9_short,\n")
    assert _grade(sub, answers, capsys)["score"] == 1.0
    sub.write_text("example_id,PredictionString\n-7_long,10:40\n-7_short,\n8_long,5:9\n"
                   "8_short,NO\n9_long,1:2\n9_short,\n")
    # TP 2 (two longs), FP 2 (NO, 1:2), FN 1 (the short of -7): 2*2 / (4 + 2 + 1)
    assert _grade(sub, answers, capsys)["score"] == pytest.approx(4 / 7)
    assert answers.read_text().startswith('{"example_id": -7')  # the file left as it is


@pytest.mark.parametrize(("line", "needle"), [
    ("not json", "line 2: not JSON"),
    (json.dumps({"example_id": 3}), "line 2: not a Natural Questions record"),
    (json.dumps(_record(3, (1, 2), [], "MAYBE")), "yes_no_answer 'MAYBE'"),
    (json.dumps(_record(-7, (1, 2), [])), "example_id -7 appears twice"),
])
def test_malformed_answers_are_our_datas_error_naming_the_line(
        tmp_path: Path, line: str, needle: str) -> None:
    path = tmp_path / "test.jsonl"
    path.write_text(json.dumps(RECORDS[0]) + "\n" + line + "\n")
    with pytest.raises(TaskDataError, match=needle):
        nq_answers(memoryview(path.read_bytes()), path)
    path.write_text("\n")
    with pytest.raises(TaskDataError, match="holds no record"):
        nq_answers(memoryview(path.read_bytes()), path)


def test_mle_benchs_prepared_answers_of_the_competition_grade_as_they_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """MLE-bench's layout (``<competition>/prepared/private/test.jsonl``), read by the
    catalogue's task with ``--data-dir``: its own gold submission scores 1.0."""
    private = tmp_path / "data" / SLUG / "prepared" / "private"
    public = private.parent / "public"
    private.mkdir(parents=True)
    public.mkdir()
    _jsonl(private / "test.jsonl", RECORDS)
    gold = tmp_path / "gold.csv"
    gold.write_text("example_id,PredictionString\n-7_long,10:40\n-7_short,12:14\n8_long,5:9\n"
                    "8_short,YES\n9_long,\n9_short,\n")
    shutil.copy(gold, public / "sample_submission.csv")
    main(["grade", str(gold), "--task", f"kaggle/{SLUG}", "--data-dir", str(tmp_path / "data"),
          "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["score"] == 1.0 and report["valid_submission"] is True
