"""Submission headers in the layouts real pages use, kept whether or not the metric is known."""

from __future__ import annotations

import pytest

from tambench.schema.mapping import map_pages, submission_header_of
from tambench.schema.mapping.headers import is_elided_header, parse_header

EVAL = "## Evaluation\n\nSubmissions are evaluated on accuracy.\n\n"


def _header(text: str) -> list[str]:
    return submission_header_of(map_pages({"all": text}, task_id="kaggle/h").spec)


@pytest.mark.parametrize(("submission", "header"), [
    # a cue other than "the following format", unfenced, columns with spaces and "/"
    ("Your file should be formatted like this:\n\nid,Answer A/B,Machine failure\n1,0,1\n2,1,0\n",
     ["id", "Answer A/B", "Machine failure"]),
    # every line wrapped in backticks
    ("The submission must have these lines:\n\n`row_id,target`\n`1,0`\n`2,1`\n",
     ["row_id", "target"]),
    # bare lines with no cue at all, under a submission heading
    ("id,price\n1,100\n2,200\n", ["id", "price"]),
    # the header inside a sentence
    ("The header of the file must be `image_id,label`, one row per test image.\n",
     ["image_id", "label"]),
    # spaces after commas, trailing Markdown line breaks
    ("The file should have the following format:\n\nid, Machine failure  \n1, 0.5  \n2, 0.1\n",
     ["id", "Machine failure"]),
    ("The submission file should have the following format:\n\nprediction_id,cancer\\\n"
     "0-L,0\\\n0-R,0.5\\\n", ["prediction_id", "cancer"]),
    # a quoted name and a fenced block
    ('```\nid,"sentence"\n1,"the cat"\n```\n', ["id", "sentence"]),
])
def test_header_layouts_are_read(submission: str, header: list[str]) -> None:
    assert _header(f"{EVAL}## Submission File\n\n{submission}") == header


def test_bare_heading_lines_and_no_cue_are_read_like_markdown_headings() -> None:
    text = ("Description\n\nPredict prices.\n\nEvaluation\n\nSubmissions are evaluated on RMSE."
            "\n\nSubmission File\n\nid,price\n1,100\n2,200\n")
    r = map_pages({"all": text}, task_id="kaggle/bare")
    assert r.spec.grading is not None and r.spec.grading.metric == "rmse"
    assert r.spec.grading.submission_header == ["id", "price"]


def test_a_table_code_block_in_the_evaluation_section_is_read_without_a_cue() -> None:
    text = "## Evaluation\n\nScored on MAE.\n\n```\nid,y\n1,0.5\n```\n"
    assert _header(text) == ["id", "y"]


def test_the_header_is_kept_when_the_metric_is_unknown() -> None:
    text = ("## Evaluation\n\nSubmissions are evaluated on the weighted MAE.\n\n## Submission "
            "File\n\n```\nId,Weekly_Sales\n1_1_2012,0\n```\n")
    r = map_pages({"all": text}, task_id="kaggle/wmae")
    assert r.spec.grading is None and submission_header_of(r.spec) == ["Id", "Weekly_Sales"]
    assert r.evidence["grading.submission_header"] == "Id,Weekly_Sales"
    assert r.spec.provenance.pending_grading is not None
    assert r.spec.provenance.pending_grading.target_columns == ["Weekly_Sales"]


def test_training_columns_in_the_data_section_are_not_taken_for_the_header() -> None:
    text = (f"{EVAL}## Data\n\ntrain.csv columns:\n\nid,feature_a,feature_b,target\n1,2,3,0\n")
    assert _header(text) == []


@pytest.mark.parametrize("line", [
    "For each id, predict the target",
    "tpr_thresholds = [0.0, 0.4, 1.0]",
    "def jaccard(str1, str2):",
    "1,0.5,0.25",
    "Session00001,2,12,3",
    "id,id",
    "Sites 1 and 2, site 3",
])
def test_prose_code_and_data_rows_are_not_headers(line: str) -> None:
    assert parse_header(line) is None


def test_an_elided_header_is_recognised_and_never_completed() -> None:
    assert is_elided_header("qa_id,question_asker_intent_understanding,...,answer_well_written")
    assert parse_header("id,a,...,z") is None
    text = f"{EVAL}## Submission File\n\nThe following format:\n\n```\nid,c1,c2,...,c99\n```\n"
    r = map_pages({"all": text}, task_id="kaggle/elided")
    assert submission_header_of(r.spec) == [] and "grading.submission_header" in r.unfilled
    assert any("elides columns" in n for n in r.spec.provenance.notes)
