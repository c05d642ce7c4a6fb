"""``prepare --like mle-bench`` of tensorflow2-question-answering: the split kind
``jsonl_chunks`` (each chunk of 1,000 JSON lines split on its own).

The expected files are built here from the raw lines with pandas, scikit-learn's
``train_test_split`` and ``json``, as the script does, and compared byte for byte. The digests
are of the ids of MLE-bench's own files, in their order: MLE-bench's ``prepare.py`` of the
competition (openai/mle-bench at 783b15a) run in a separate environment on the same generated
download (the task's ``raw_fixture_mlebench.json``)."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.core.layout import MLE_FIXTURE_FILE, RAW_FIXTURE_FILE
from tambench.errors import SplitError
from tambench.splits.mlebench_recipe import load_recipes
from tambench.tasks.catalogue import bundled_catalogue_dir
from tests.splits.test_like_mlebench import _generated, _made

SLUG = "tensorflow2-question-answering"
#: sha256 of "\n".join(example_id) of MLE-bench's private/gold_submission.csv (210 rows).
GOLD_IDS = "d1bad7325a1eac2b932f772b66ae652015eafe8d2886257f560a299c12ec20d7"
#: sha256 of "\n".join(example_id) of MLE-bench's public/simplified-nq-train.jsonl (945).
TRAIN_IDS = "256497f4591688dedcfdd019f650b4d03a6296b2f5c0b403f7e8fc80ef171937"
TRAIN = "simplified-nq-train.jsonl"
KEEP = ["example_id", "question_text", "document_text", "long_answer_candidates"]


def _digest(values: list[str]) -> str:
    return hashlib.sha256("\n".join(values).encode()).hexdigest()


def _answers(record: dict[str, Any]) -> tuple[str, str]:
    ann = record["annotations"][0]
    first = ann["short_answers"][0] if ann["short_answers"] else None
    short = (ann["yes_no_answer"] if ann["yes_no_answer"] != "NONE" else
             f"{first['start_token']}:{first['end_token']}" if first else "")
    span = ann["long_answer"]
    return short, "" if span["start_token"] == -1 else f"{span['start_token']}:{span['end_token']}"


def _expected(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """The script's files (train, private test, public test, gold) and the gold's values."""
    texts = dict.fromkeys(("train", "test", "public"), "")
    gold, values = ["example_id,PredictionString"], []
    for start in range(0, len(lines), 1000):
        chunk = pd.read_json(io.StringIO("\n".join(lines[start:start + 1000])), lines=True)
        chunk["example_id"] = chunk["example_id"].astype(str)
        train, test = train_test_split(chunk, test_size=0.1, random_state=0)
        for name, frame in (("train", train), ("test", test), ("public", test[KEEP])):
            texts[name] += frame.to_json(orient="records", lines=True)
        for pos in test.index:
            record = json.loads(lines[start + pos])
            short, long = _answers(record)
            gold += [f"{record['example_id']}_short,{short}", f"{record['example_id']}_long,{long}"]
            values += [short, long]
    texts["gold"] = "\n".join(gold) + "\n"
    return texts, values


def test_each_chunk_of_json_lines_is_split_on_its_own_with_answers_from_its_annotations(
        tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    task = _made(SLUG, raw, tmp_path)
    lines = (raw / TRAIN).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1050  # chunks of 1,000 and 50 lines
    texts, values = _expected(lines)
    assert (task / "public" / TRAIN).read_text() == texts["train"]
    assert (task / "private" / "test.jsonl").read_text() == texts["test"]
    assert (task / "public" / "simplified-nq-test.jsonl").read_text() == texts["public"]
    gold = (task / "private" / "gold_submission.csv").read_text()
    assert gold == texts["gold"]
    assert {"YES", ""} <= set(values) and any(":" in v for v in values)
    ids = [row.split(",")[0] for row in gold.splitlines()[1:]]
    assert len(ids) == 2 * (100 + 5) and _digest(ids) == GOLD_IDS
    sample = (task / "public" / "sample_submission.csv").read_text()
    assert sample == "example_id,PredictionString\n" + "".join(f"{i},\n" for i in ids)
    train_ids = [str(json.loads(row)["example_id"])
                 for row in (task / "public" / TRAIN).read_text().splitlines()]
    assert _digest(train_ids) == TRAIN_IDS
    # one split of the whole table would hold other records out: the chunks matter
    whole = pd.read_json(io.StringIO("\n".join(lines)), lines=True)
    _, held = train_test_split(whole, test_size=0.1, random_state=0)
    assert {f"{i}_long" for i in held["example_id"]} != set(ids[1::2])
    report = json.loads((task / "split_report.json").read_text())
    assert report["kind"] == "jsonl_chunks" and report["test_rows"] == 105


def _raw(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / TRAIN).write_text("".join(json.dumps(r) + "\n" for r in records))
    return raw


def _record(i: int, annotations: int = 1) -> dict[str, Any]:
    ann = {"yes_no_answer": "NONE", "short_answers": [], "annotation_id": i,
           "long_answer": {"start_token": 1, "candidate_index": 0, "end_token": 5}}
    return {"document_text": "a b c d e f", "long_answer_candidates": [],
            "question_text": f"q {i}", "annotations": [ann] * annotations,
            "document_url": "u", "example_id": i}


@pytest.mark.parametrize(("records", "why"), [
    ([_record(i, annotations=2) for i in range(10)], "exactly one annotation"),
    ([_record(i) for i in range(1001)], "chunk 1 of simplified-nq-train.jsonl (1 records)"),
    ([], "simplified-nq-train.jsonl; the raw folder lacks it"),
])
def test_records_the_script_cannot_split_are_refused_naming_them(
        tmp_path: Path, records: list[dict[str, Any]], why: str) -> None:
    raw = _raw(tmp_path, records)
    if not records:
        (raw / TRAIN).unlink()
    with pytest.raises(SplitError, match=why.replace("(", r"\(").replace(")", r"\)")):
        _made(SLUG, raw, tmp_path)
    assert not (tmp_path / "data" / "kaggle" / SLUG).exists()


def test_a_layout_fixture_checking_only_mle_benchs_split_belongs_to_one_it_makes() -> None:
    recipes = load_recipes()
    made = {*recipes.recipes, *recipes.per_category, *recipes.by_location, *recipes.special}
    folders = sorted(bundled_catalogue_dir().glob(f"*/*/{MLE_FIXTURE_FILE}"))
    assert {f.parent.name for f in folders} >= {SLUG, "cdiscount-image-classification-challenge"}
    for f in folders:
        assert f.parent.name in made, f  # prepare --like mle-bench makes it
        assert not (f.parent / RAW_FIXTURE_FILE).exists(), f  # one fixture per task
