"""``tambench grade SUB --answers A --metric M ...`` says everything a task.json can say."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tambench.cli.main import main


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict | str]:
    rc = main(["grade", *args, "--json"])
    captured = capsys.readouterr()
    try:
        return rc, json.loads(captured.out)
    except json.JSONDecodeError:
        return rc, captured.err


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


COVID_HEADER = "id_seqpos,reactivity,deg_Mg_pH10,deg_pH10,deg_Mg_50C,deg_50C"


def test_unscored_submission_columns_and_a_scored_flag_are_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _write(tmp_path / "answers.csv", COVID_HEADER + ",keep\n"
                     "s_0,1,1,1,1,1,True\ns_1,2,2,2,2,2,True\ns_2,9,9,9,9,9,False\n")
    sub = _write(tmp_path / "sub.csv", COVID_HEADER + "\n"
                 "s_0,1.5,1,0,1,0\ns_1,2.5,2,0,2,0\ns_2,0,0,0,0,0\n")
    base = [str(sub), "--answers", str(answers), "--metric", "mcrmse", "--id-column", "id_seqpos",
            "--submission-header", COVID_HEADER, "--not-target", "deg_pH10",
            "--not-target", "deg_50C", "--scored-where", "keep|scored=True,1"]
    rc, report = _run(base, capsys)
    assert rc == 0 and isinstance(report, dict), report
    # scored rows 0 and 1: reactivity off by 0.5 (RMSE 0.5), the two other targets exact
    assert report["valid_submission"] and report["score"] == pytest.approx(0.5 / 3)
    rc, report = _run([*base[:-2], "--not-target", "keep"], capsys)  # every row counts
    assert isinstance(report, dict)
    # reactivity off by 0.5, 0.5, 9; the two other targets by 0, 0, 9
    assert report["score"] == pytest.approx((math.sqrt(81.5 / 3) + 2 * math.sqrt(81 / 3)) / 3)


def test_all_columns_but_the_id_are_the_targets_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _write(tmp_path / "answers.csv", "id,a,b,c\n1,1,0,0\n2,0,0,1\n")
    sub = _write(tmp_path / "sub.csv", "id,a,b,c\n1,0.5,0.25,0.25\n2,0.25,0.25,0.5\n")
    rc, report = _run([str(sub), "--answers", str(answers), "--metric", "multiclass_log_loss",
                       "--id-column", "id", "--metric-param", "eps=2.220446049250313e-16"],
                      capsys)
    assert rc == 0 and isinstance(report, dict)
    assert report["score"] == pytest.approx(-math.log(0.5))


def test_a_target_named_differently_in_the_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _write(tmp_path / "answers.csv", "id,truth\na,1\nb,3\n")
    sub = _write(tmp_path / "sub.csv", "id,pred\na,2\nb,3\n")
    rc, report = _run([str(sub), "--answers", str(answers), "--metric", "rmse", "--id-column",
                       "id", "--target-column", "pred", "--answers-target-column", "truth"],
                      capsys)
    assert rc == 0 and isinstance(report, dict)
    assert report["score"] == pytest.approx(math.sqrt(0.5))


def test_labels_from_a_public_file_and_from_flags_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _write(tmp_path / "private" / "answers.csv", "id,y\na,cat\nb,dog\n")
    train = _write(tmp_path / "public" / "train.csv", "id,label\nt1,cat\nt2,dog\nt3,fish\n")
    sub = _write(tmp_path / "sub.csv", "id,y\na,fish\nb,horse\n")
    common = [str(sub), "--answers", str(answers), "--metric", "accuracy", "--id-column", "id"]
    _, from_file = _run([*common, "--labels-from", f"{train}:label"], capsys)
    _, from_flags = _run([*common, "--label", "cat", "--label", "dog", "--label", "fish"], capsys)
    assert isinstance(from_file, dict) and isinstance(from_flags, dict)
    assert from_file["errors"] == from_flags["errors"] == [
        "column `y`: 1 unknown label(s) (1 of 1): ['horse'] in rows [2] (ids ['b']); allowed "
        "labels: ['cat', 'dog', 'fish']"
    ]


def test_the_grading_json_says_what_the_flags_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _write(tmp_path / "answers.csv", "id,toxic,insult\nc0,1,0\nc1,-1,-1\nc2,0,1\n")
    sub = _write(tmp_path / "sub.csv", "id,toxic,insult\nc0,0.9,0.1\nc1,0,1\nc2,0.2,0.8\n")
    common = [str(sub), "--answers", str(answers), "--metric", "roc_auc_columnwise",
              "--id-column", "id"]
    _, by_flag = _run([*common, "--unscored-marker", "-1"], capsys)
    spec = _write(tmp_path / "grading.json", json.dumps({"unscored_marker": "-1"}))
    _, by_file = _run([*common, "--grading", str(spec)], capsys)
    _, inline = _run([*common, "--grading", '{"unscored_marker": "-1"}'], capsys)
    assert isinstance(by_flag, dict) and by_flag["score"] == 1.0
    assert isinstance(by_file, dict) and isinstance(inline, dict)
    for report in (by_flag, by_file, inline):
        report.pop("created_at")
    assert by_file == by_flag == inline


def test_an_empty_string_is_a_marker_and_groups_keep_their_last_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _write(tmp_path / "answers.csv", "Patient_Week,Patient,Weeks,FVC,Confidence\n"
                     "A_1,A,1,2000,100\nA_2,A,2,2100,100\nA_3,A,3,,100\nB_1,B,1,3000,100\n")
    sub = _write(tmp_path / "sub.csv", "Patient_Week,FVC,Confidence\n"
                 "A_1,0,70\nA_2,2100,70\nA_3,0,70\nB_1,3000,70\n")
    rc, report = _run([str(sub), "--answers", str(answers), "--metric", "laplace_log_likelihood",
                       "--id-column", "Patient_Week", "--target-column", "FVC",
                       "--target-column", "Confidence", "--unscored-marker", "",
                       "--scored-last", "Patient:Weeks:1"], capsys)
    assert rc == 0 and isinstance(report, dict), report
    assert report["score"] == pytest.approx(-math.log(math.sqrt(2) * 70))  # A_2 and B_1, exact


def test_extra_ids_and_a_public_id_list_are_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _write(tmp_path / "private" / "answers.csv", "customer_id,prediction\nc2,a\n")
    sample = _write(tmp_path / "public" / "sample.csv", "customer_id,prediction\nc1,x\nc2,x\n")
    sub = _write(tmp_path / "sub.csv", "customer_id,prediction\nc1,z\nc2,a\n")
    rc, report = _run([str(sub), "--answers", str(answers), "--metric", "map_at_k",
                       "--id-column", "customer_id", "--extra-ids", "ignore",
                       "--ids-from", f"{sample}:customer_id"], capsys)
    assert rc == 0 and isinstance(report, dict) and report["score"] == 1.0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--normalize-truths", "softmax"], r"ad hoc grading spec is invalid: .*normalize_truths"),
        (["--empty-token", "-"], r"empty_token: applies to kinds"),
        (["--scored-last", "Patient:Weeks"], r"expected GROUP:ORDER:K"),
        (["--labels-from", "nocolumn"], r"expected FILE:COLUMN"),
        (["--grading", "[1, 2]"], r"expected a JSON object of GradingSpec fields"),
    ],
)
def test_flags_that_cannot_apply_are_refused_with_a_clear_message(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    answers = _write(tmp_path / "answers.csv", "id,y\na,1\n")
    sub = _write(tmp_path / "sub.csv", "id,y\na,1\n")
    rc = main(["grade", str(sub), "--answers", str(answers), "--metric", "rmse",
               "--id-column", "id", *flags])
    err = capsys.readouterr().err
    assert rc in (1, 2) and re.search(message, " ".join(err.split())), err


def test_metrics_json_says_which_parameters_name_answers_columns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["metrics", "--json"]) == 0
    listed = {m["id"]: m for m in json.loads(capsys.readouterr().out)}
    assert listed["mean_log_mae"]["answers_column_parameters"] == ["groups_column"]
    assert listed["rmse"]["answers_column_parameters"] == []
    assert all(set(m["answers_column_parameters"]) <= set(m["parameters"])
               for m in listed.values())
