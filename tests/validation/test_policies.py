"""Answer-file conventions of real competitions, declared in the GradingSpec, and label sets
that come from the task, never from the private answers.

Every expected score here is computed by hand in the test (or from the competition's formula
written out with numpy), not by calling the metric under test.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tambench.core.metrics import get_metric
from tambench.errors import (
    InvalidSubmissionError,
    MetricInputError,
    TaskDataError,
    TaskSpecError,
)
from tambench.grading.grade import grade_submission
from tambench.schema.taskspec import GradingSpec, TaskSpec
from tambench.validation.validate import load_answers, validate_submission
from tests.grading.corpus import CASES, LABEL_IDS, LABELS, TASKS, Case, build_case


def _task(tmp_path: Path, answers: str, public: dict[str, str] | None = None,
          **grading: Any) -> tuple[TaskSpec, Path]:
    """A task whose answers sit in ``private/`` beside ``public/`` (files in ``public``)."""
    (tmp_path / "private").mkdir(parents=True, exist_ok=True)
    (tmp_path / "public").mkdir(exist_ok=True)
    for name, text in (public or {}).items():
        (tmp_path / "public" / name).write_text(text)
    path = tmp_path / "private" / "answers.csv"
    path.write_text(answers)
    return TaskSpec(id="test/policy", platform="test", grading=GradingSpec(**grading)), path


def _grade(spec: TaskSpec, answers: Path, tmp_path: Path, text: str) -> Any:
    sub = tmp_path / "run" / "submission.csv"
    sub.parent.mkdir(parents=True, exist_ok=True)
    sub.write_text(text)
    return grade_submission(sub, spec, answers)


# --- label sets come from the task ---------------------------------------------------------------


def _label_answers(folder: Path, labels: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "answers.csv"
    path.write_text("id,y\n" + "".join(f"{i},{y}\n" for i, y in zip(LABEL_IDS, labels,
                                                                     strict=True)))
    return path


def _answer_variants(rng: np.random.Generator) -> list[list[str]]:
    """The label answers permuted, with a class removed, and with only one class left."""
    permuted = list(rng.permutation(LABELS))
    no_bird = ["cat" if y == "bird" else y for y in LABELS]
    only_dog = ["dog"] * len(LABELS)
    return [permuted, no_bird, only_dog]


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.task == "label" and not c.links_private], ids=lambda c: c.name
)
def test_validation_messages_ignore_which_classes_the_answers_hold(
    case: Case, tmp_path: Path
) -> None:
    spec, answers, sub = build_case(case, tmp_path / "a")
    original = grade_submission(sub, spec, answers)
    rng = np.random.default_rng(7)
    for k, labels in enumerate(_answer_variants(rng)):
        other = grade_submission(sub, spec, _label_answers(tmp_path / f"v{k}", labels))
        assert other.valid_submission == original.valid_submission
        assert other.errors == original.errors  # byte-identical messages


def test_labels_from_a_public_column_accept_a_class_absent_from_the_test_split(
    tmp_path: Path,
) -> None:
    train = "id,label\n" + "".join(f"t{i},{y}\n" for i, y in enumerate(
        ["cat", "dog", "bird", "fish", "fish"]))
    answers = "id,y\n" + "".join(f"{i},{y}\n" for i, y in zip(LABEL_IDS, LABELS, strict=True))
    spec, path = _task(tmp_path, answers, {"train.csv": train}, metric="accuracy",
                       id_columns=["id"], target_columns=["y"],
                       labels_from={"file": "train.csv", "column": "label"})
    rows = [[i, y] for i, y in zip(LABEL_IDS, LABELS, strict=True)]
    rows[0][1], rows[1][1] = "fish", "horse"
    report = _grade(spec, path, tmp_path, "id,y\n" + "".join(f"{i},{y}\n" for i, y in rows))
    assert report.errors == [
        "column `y`: 1 unknown label(s) (1 of 1): ['horse'] in rows [2] (ids ['l1']); allowed "
        "labels: ['bird', 'cat', 'dog', 'fish']"
    ]
    rows[1][1] = LABELS[1]
    report = _grade(spec, path, tmp_path, "id,y\n" + "".join(f"{i},{y}\n" for i, y in rows))
    assert report.valid_submission and report.score == pytest.approx(8 / 9)  # fish: wrong


def test_without_declared_labels_any_label_is_scored_and_none_is_listed(tmp_path: Path) -> None:
    answers = "id,y\na,cat\nb,dog\n"
    spec, path = _task(tmp_path, answers, metric="accuracy", id_columns=["id"],
                       target_columns=["y"])
    report = _grade(spec, path, tmp_path, "id,y\na,cat\nb,unicorn\n")
    assert report.valid_submission and report.score == 0.5


@pytest.mark.parametrize("policy", ["auto", "answers"])
def test_a_label_set_read_from_the_answers_is_refused_as_an_oracle(
    policy: str, tmp_path: Path
) -> None:
    spec, path = _task(tmp_path, "id,y\na,cat\n", metric="accuracy", id_columns=["id"],
                       target_columns=["y"], value_policy={"label_set": policy})
    with pytest.raises(TaskSpecError, match=r"label set read from the private answers would "
                                            r"tell agents which classes the test split holds"):
        load_answers(path, spec.grading, get_metric("accuracy"))  # type: ignore[arg-type]


def test_answers_with_a_label_outside_the_declared_ones_are_our_error(tmp_path: Path) -> None:
    spec, path = _task(tmp_path, "id,y\na,cat\nb,wolf\n", metric="accuracy",
                       id_columns=["id"], target_columns=["y"], labels=["cat", "dog"])
    with pytest.raises(TaskDataError, match=r"answers hold 1 label\(s\) that are not among the "
                                            r"task's declared labels, e.g. \['wolf'\]"):
        load_answers(path, spec.grading, get_metric("accuracy"))  # type: ignore[arg-type]


# --- declarations that do not apply are refused, naming the field --------------------------------


@pytest.mark.parametrize(
    ("metric", "grading", "message"),
    [
        ("exact_match", {"unscored_marker": "-1"},
         r"unscored_marker: applies to kinds \['label', 'probability', 'value'\] only \(any text "
         r"value is a legitimate truth\); metric `exact_match`"),
        ("rmse", {"empty_token": "-"},
         r"empty_token: applies to kinds \['mask', 'ranking', 'set', 'text'\] only; metric "
         r"`rmse` takes value"),
        ("rmse", {"normalize_truths": "row_sum"},
         r"normalize_truths: row_sum applies to kind probability with several target columns"),
        ("rmse", {"labels": ["a"]}, r"labels: applies to kind label only; metric `rmse`"),
        ("rmse", {"ids_from": {"file": "s.csv", "column": "id"}},
         r'ids_from: applies with extra_ids "ignore" only'),
        ("rmse", {"answers_target_columns": ["a", "b"]},
         r"answers_target_columns: names 2 column\(s\) for 1 target column\(s\)"),
        ("rmse", {"extra_ids": "ignore", "id_columns": []},
         r"extra_ids: ignore needs id columns"),
    ],
)
def test_a_convention_that_does_not_apply_is_refused_naming_the_field(
    metric: str, grading: dict[str, Any], message: str, tmp_path: Path
) -> None:
    fields = {"metric": metric, "id_columns": ["id"], "target_columns": ["y"], **grading}
    spec, path = _task(tmp_path, "id,y\na,1\n", **fields)
    with pytest.raises(TaskSpecError, match=message):
        load_answers(path, spec.grading, get_metric(metric))  # type: ignore[arg-type]


def test_conventions_on_a_json_task_are_refused(tmp_path: Path) -> None:
    grading = TASKS["json"].grading.model_copy(update={"unscored_marker": "x"})
    path = tmp_path / "answers.json"
    path.write_text("{}")
    with pytest.raises(TaskSpecError, match=r"unscored_marker: applies to CSV submissions only"):
        load_answers(path, grading, get_metric(grading.metric))


# --- contrails: "-" is an empty mask -------------------------------------------------------------


def test_an_empty_mask_token_is_an_empty_mask_in_answers_and_submissions(tmp_path: Path) -> None:
    answers = "record_id,encoded_pixels\nr1,1 4\nr2,-\nr3,10 2\n"
    spec, path = _task(tmp_path, answers, metric="global_dice", id_columns=["record_id"],
                       target_columns=["encoded_pixels"], empty_token="-")
    perfect = _grade(spec, path, tmp_path, answers)
    assert perfect.valid_submission and perfect.score == 1.0
    # r1 predicts pixels 3-6 (2 shared of 4 + 4), r2 nothing, r3 nothing: 2*2 / (6 + 4) = 0.4
    report = _grade(spec, path, tmp_path, "record_id,encoded_pixels\nr1,3 4\nr2,-\nr3,-\n")
    assert report.valid_submission and report.score == pytest.approx(0.4)
    no_token = _task(tmp_path / "b", answers, metric="global_dice", id_columns=["record_id"],
                     target_columns=["encoded_pixels"])
    with pytest.raises(TaskDataError, match=r"answers row 2: token 1 '-' is not a whole number"):
        _grade(*no_token, tmp_path / "b", answers)


# --- jigsaw-toxic: rows marked -1 are not scored -------------------------------------------------


def _auc(truth: np.ndarray, score: np.ndarray) -> float:
    """ROC-AUC as the share of (positive, negative) pairs ranked right, ties half."""
    pos, neg = score[truth == 1], score[truth == 0]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (pos.size * neg.size))


def test_rows_marked_unscored_are_left_out_of_the_metric(tmp_path: Path) -> None:
    truth = [[1, 0], [-1, -1], [0, 1], [1, 1], [-1, -1], [0, 0]]
    answers = "id,toxic,insult\n" + "".join(f"c{i},{a},{b}\n" for i, (a, b) in enumerate(truth))
    spec, path = _task(tmp_path, answers, metric="roc_auc_columnwise", id_columns=["id"],
                       target_columns=["toxic", "insult"], unscored_marker="-1")
    preds = [[0.9, 0.2], [0.0, 1.0], [0.3, 0.6], [0.6, 0.8], [1.0, 0.0], [0.4, 0.1]]
    text = "id,toxic,insult\n" + "".join(f"c{i},{a},{b}\n" for i, (a, b) in enumerate(preds))
    report = _grade(spec, path, tmp_path, text)
    keep = [0, 2, 3, 5]
    t, p = np.array(truth)[keep], np.array(preds)[keep]
    want = (_auc(t[:, 0], p[:, 0]) + _auc(t[:, 1], p[:, 1])) / 2
    assert report.valid_submission and report.score == pytest.approx(want)
    # the unscored rows must still be submitted, and hold valid values
    missing = "id,toxic,insult\n" + "".join(
        f"c{i},{a},{b}\n" for i, (a, b) in enumerate(preds) if i != 1)
    assert "missing ids: 1 answer id(s) have no row (1 of 1): ['c1']" in _grade(
        spec, path, tmp_path, missing).errors


def test_unscored_rows_change_no_message(tmp_path: Path) -> None:
    """Which rows are unscored is private: a bad value in one is reported like anywhere else."""
    rows = [[1, 0], [0, 1], [1, 1], [0, 0]]
    bad = "id,toxic,insult\nc0,2.0,0.1\nc1,0.5,0.5\nc2,0.5,nan\nc3,0.5,0.5\n"
    errors = []
    for marked in ([], [0], [2], [0, 2]):
        truth = [[-1, -1] if i in marked else r for i, r in enumerate(rows)]
        folder = tmp_path / f"m{len(errors)}"
        answers = "id,toxic,insult\n" + "".join(
            f"c{i},{a},{b}\n" for i, (a, b) in enumerate(truth))
        spec, path = _task(folder, answers, metric="roc_auc_columnwise", id_columns=["id"],
                           target_columns=["toxic", "insult"], unscored_marker="-1")
        errors.append(_grade(spec, path, folder, bad).errors)
    assert errors[0] and all(e == errors[0] for e in errors)


# --- hms: vote counts are normalised per row -----------------------------------------------------


def test_vote_counts_are_normalised_before_the_kl_divergence(tmp_path: Path) -> None:
    votes = [[3, 0, 1], [0, 0, 5], [2, 2, 0]]
    answers = "eeg_id,a_vote,b_vote,c_vote\n" + "".join(
        f"{i},{a},{b},{c}\n" for i, (a, b, c) in enumerate(votes))
    spec, path = _task(tmp_path, answers, metric="kl_divergence", id_columns=["eeg_id"],
                       target_columns=["a_vote", "b_vote", "c_vote"], normalize_truths="row_sum")
    preds = [[0.5, 0.25, 0.25], [0.1, 0.1, 0.8], [0.5, 0.5, 0.0]]
    text = "eeg_id,a_vote,b_vote,c_vote\n" + "".join(
        f"{i},{a},{b},{c}\n" for i, (a, b, c) in enumerate(preds))
    report = _grade(spec, path, tmp_path, text)
    eps = 1e-15
    want = 0.0
    for v, p in zip(votes, preds, strict=True):
        q = [x / sum(v) for x in v]
        want += sum(qi * math.log(qi / max(pi, eps)) for qi, pi in zip(q, p, strict=True)
                    if qi > 0)
    assert report.valid_submission and report.score == pytest.approx(want / 3, rel=1e-12)


def test_a_row_of_zero_votes_cannot_be_normalised(tmp_path: Path) -> None:
    spec, path = _task(tmp_path, "id,a,b\nx,0,0\ny,1,1\n", metric="kl_divergence",
                       id_columns=["id"], target_columns=["a", "b"], normalize_truths="row_sum")
    with pytest.raises(TaskDataError, match=r"1 scored answers row\(s\) sum to 0 or less"):
        load_answers(path, spec.grading, get_metric("kl_divergence"))  # type: ignore[arg-type]


def _kl_rows(rows: list[list[float]]) -> str:
    return "eeg_id,a,b,c\n" + "".join(f"{i},{a},{b},{c}\n" for i, (a, b, c) in enumerate(rows))


def test_normalised_truths_do_not_excuse_predicted_rows_that_do_not_sum_to_one(
    tmp_path: Path,
) -> None:
    spec, path = _task(tmp_path, _kl_rows([[3, 1, 0], [0, 2, 2], [1, 1, 1]]),
                       metric="kl_divergence", id_columns=["eeg_id"],
                       target_columns=["a", "b", "c"], normalize_truths="row_sum")
    off = _grade(spec, path, tmp_path, _kl_rows([[0.2, 0.2, 0.1], [0.5, 0.25, 0.25],
                                                  [0.4, 0.4, 0.4]]))
    assert not off.valid_submission and off.score is None
    assert off.errors == ["2 row(s) of probabilities do not sum to 1 (tolerance 0.0001); got "
                          "sums [0.5, 1.2] in rows [1, 3] (ids ['0', '2'])"]
    # within the stated tolerance (absolute, on each row's sum) the rows are accepted
    near = _grade(spec, path, tmp_path, _kl_rows([[0.50005, 0.25, 0.25], [0.1, 0.1, 0.8],
                                                  [0.3, 0.3, 0.4]]))
    assert near.valid_submission


def test_the_row_sum_rule_follows_each_probability_metric(tmp_path: Path) -> None:
    """kl_divergence reads rows as distributions; multiclass log loss rescales rows (Kaggle's
    rule) unless renormalize is false; column-wise AUC and label rankings read columns or
    orders, never sums; a task may require or waive the rule."""
    from tambench.core.metrics import list_metrics

    assert [m.id for m in list_metrics() if m.rows_are_distributions] == ["kl_divergence"]
    answers = "id,a,b\nx,1,0\ny,0,1\nz,1,0\n"
    text = "id,a,b\nx,0.9,0.3\ny,0.2,0.6\nz,0.7,0.1\n"  # sums 1.2, 0.8, 0.8
    refused = {"kl_divergence"}
    tried: set[str] = set()
    for m in list_metrics():
        if m.kind != "probability" or "identities_columns" in m.defaults:
            continue
        spec, path = _task(tmp_path / m.id, answers, metric=m.id, id_columns=["id"],
                           target_columns=["a", "b"])
        try:
            report = _grade(spec, path, tmp_path / m.id, text)
        except MetricInputError:  # a metric of one column: no rows to sum
            continue
        tried.add(m.id)
        summed = any("do not sum to 1" in e for e in report.errors)
        assert summed == (m.id in refused), (m.id, report.errors)
    assert {"kl_divergence", "multiclass_log_loss", "roc_auc_columnwise", "lwlrap"} <= tried
    for params, policy, want in (({"renormalize": False}, {}, True),
                                 ({}, {"row_sum": "require"}, True),
                                 ({}, {"row_sum": "ignore"}, False)):
        metric = "multiclass_log_loss" if params or policy.get("row_sum") == "require" \
            else "kl_divergence"
        spec, path = _task(tmp_path / "p", answers, metric=metric, metric_params=params,
                           id_columns=["id"], target_columns=["a", "b"], value_policy=policy)
        report = _grade(spec, path, tmp_path / "p", text)
        assert any("do not sum to 1" in e for e in report.errors) == want, (params, policy)


def test_a_registered_metric_that_reads_rows_as_distributions_gets_the_row_sum_rule(
    tmp_path: Path,
) -> None:
    from tambench.core.metrics import METRICS, register

    def total_variation(y_true: Any, y_pred: Any) -> float:
        """Mean total variation distance between true and predicted rows."""
        return float(np.abs(np.asarray(y_true) - np.asarray(y_pred)).sum(axis=1).mean() / 2)

    with pytest.raises(ValueError, match="only a probability metric can read rows"):
        register("test_tv_values", higher_is_better=False, value_range=(0.0, 1.0), kind="value",
                 rows_are_distributions=True)(total_variation)
    register("test_tv", higher_is_better=False, value_range=(0.0, 1.0), kind="probability",
             rows_are_distributions=True)(total_variation)
    try:
        answers = "id,a,b\nx,1,0\ny,0,1\n"
        spec, path = _task(tmp_path, answers, metric="test_tv", id_columns=["id"],
                           target_columns=["a", "b"])
        refused = _grade(spec, path, tmp_path / "bad", "id,a,b\nx,0.9,0.3\ny,0.2,0.6\n")
        assert not refused.valid_submission
        assert any("do not sum to 1" in e for e in refused.errors), refused.errors
        graded = _grade(spec, path, tmp_path / "good", "id,a,b\nx,0.9,0.1\ny,0.2,0.8\n")
        assert graded.valid_submission and graded.score == pytest.approx(0.15)
    finally:
        METRICS.unregister("test_tv")
    assert "test_tv_values" not in METRICS


# --- ventilator: only rows with u_out = 0 are scored ---------------------------------------------


def test_rows_are_scored_where_a_flag_column_says_so(tmp_path: Path) -> None:
    truth = [(1, 5.0, 0), (2, 7.0, 0), (3, 9.0, 1), (4, 4.0, 1), (5, 6.0, 0)]
    answers = "id,pressure,u_out\n" + "".join(f"{i},{p},{u}\n" for i, p, u in truth)
    spec, path = _task(tmp_path, answers, metric="mae", id_columns=["id"],
                       target_columns=["pressure"],
                       scored_rows={"rule": "where", "column": "u_out", "scored": ["0"],
                                    "unscored": ["1"]})
    text = "id,pressure\n1,6.0\n2,7.0\n3,100.0\n4,-50.0\n5,3.0\n"
    report = _grade(spec, path, tmp_path, text)
    assert report.valid_submission and report.score == pytest.approx((1.0 + 0.0 + 3.0) / 3)


def test_a_flag_value_in_neither_list_is_our_error(tmp_path: Path) -> None:
    spec, path = _task(tmp_path, "id,p,u_out\n1,1,0\n2,1,2\n", metric="mae", id_columns=["id"],
                       target_columns=["p"],
                       scored_rows={"rule": "where", "column": "u_out", "scored": ["0"],
                                    "unscored": ["1"]})
    with pytest.raises(TaskDataError, match=r"answers column 'u_out' holds 1 value\(s\) that are "
                                            r"neither scored \['0'\] nor unscored \['1'\]"):
        load_answers(path, spec.grading, get_metric("mae"))  # type: ignore[arg-type]


# --- stanford-covid-vaccine: MLE-bench's `keep` or the paper release's `scored` ------------------


@pytest.mark.parametrize(("column", "yes", "no"), [("keep", "True", "False"), ("scored", "1", "0")])
def test_the_scored_flag_is_read_under_either_spelling(
    column: str, yes: str, no: str, tmp_path: Path
) -> None:
    answers = f"id_seqpos,reactivity,deg,{column}\n" + "".join(
        f"s_{i},{i * 0.1:.1f},{1 - i * 0.1:.1f},{yes if i < 3 else no}\n" for i in range(5))
    spec, path = _task(tmp_path, answers, metric="mcrmse", id_columns=["id_seqpos"],
                       target_columns=["reactivity", "deg"],
                       scored_rows={"rule": "where", "column": ["keep", "scored"],
                                    "scored": ["1", "True", "true"],
                                    "unscored": ["0", "False", "false"]})
    text = "id_seqpos,reactivity,deg\n" + "".join(
        f"s_{i},{i * 0.1 + 0.2:.1f},{1 - i * 0.1:.1f}\n" for i in range(5))
    report = _grade(spec, path, tmp_path, text)
    # scored rows 0-2: reactivity off by 0.2 everywhere (RMSE 0.2), deg exact (0): mean 0.1
    assert report.valid_submission and report.score == pytest.approx(0.1)


# --- osic: the last 3 measured weeks of each patient ---------------------------------------------


def test_the_last_rows_of_each_group_are_scored_among_the_measured_ones(tmp_path: Path) -> None:
    # Patient A measured at weeks 0, 5, 9, 20 (not at 30); patient B at weeks 3 and 8 only.
    rows = [("A", 0, "2000"), ("A", 5, "2100"), ("A", 9, "2050"), ("A", 20, "1900"),
            ("A", 30, ""), ("B", 3, "3000"), ("B", 8, "2900"), ("B", 12, "")]
    answers = "Patient_Week,Patient,Weeks,FVC,Confidence\n" + "".join(
        f"{p}_{w},{p},{w},{f},100\n" for p, w, f in rows)
    spec, path = _task(tmp_path, answers, metric="laplace_log_likelihood",
                       id_columns=["Patient_Week"], target_columns=["FVC", "Confidence"],
                       unscored_marker="",
                       scored_rows={"rule": "last_per_group", "group_column": "Patient",
                                    "order_column": "Weeks", "k": 3})
    preds = {f"{p}_{w}": 2000.0 for p, w, _ in rows}
    text = "Patient_Week,FVC,Confidence\n" + "".join(f"{k},{v},70\n" for k, v in preds.items())
    report = _grade(spec, path, tmp_path, text)
    scored = [2100, 2050, 1900, 3000, 2900]  # A: weeks 5, 9, 20; B: both measured weeks
    sigma = 70.0
    want = np.mean([-math.sqrt(2) * min(abs(t - 2000.0), 1000) / sigma
                    - math.log(math.sqrt(2) * sigma) for t in scored])
    assert report.valid_submission and report.score == pytest.approx(want, rel=1e-12)


def test_a_submission_only_column_reaches_the_metric_without_an_answers_column(
    tmp_path: Path,
) -> None:
    # OSIC's answers hold FVC alone; the submission's Confidence is the metric's sigma.
    answers = "Patient_Week,Patient,Weeks,FVC\n" + "".join(
        f"A_{w},A,{w},{f}\n" for w, f in ((0, 2000), (5, 2100), (9, ""), (12, 1800)))
    spec, path = _task(tmp_path, answers, metric="laplace_log_likelihood",
                       id_columns=["Patient_Week"], target_columns=["FVC", "Confidence"],
                       submission_only_columns={"Confidence": "70"}, unscored_marker="",
                       scored_rows={"rule": "last_per_group", "group_column": "Patient",
                                    "order_column": "Weeks", "k": 3})
    text = "Patient_Week,FVC,Confidence\nA_0,2000,70\nA_5,2000,100\nA_9,1,1\nA_12,1800,200\n"
    report = _grade(spec, path, tmp_path, text)
    root2 = math.sqrt(2)
    want = np.mean([-math.log(root2 * 70), -root2 * 100 / 100 - math.log(root2 * 100),
                    -math.log(root2 * 200)])
    assert report.valid_submission and report.score == pytest.approx(want, rel=1e-12)
    # the confidence is still a column every submission must hold
    bad = _grade(spec, path, tmp_path, "Patient_Week,FVC\nA_0,2000\nA_5,2000\nA_9,1\n"
                 "A_12,1800\n")
    assert not bad.valid_submission and "Confidence" in " ".join(bad.errors)


@pytest.mark.parametrize(("only", "why"), [
    ({"Sigma": "70"}, "are not target columns"),
    ({"FVC": "1", "Confidence": "70"}, "not every target column"),
])
def test_submission_only_columns_are_some_of_the_targets(only: dict[str, str],
                                                          why: str) -> None:
    with pytest.raises(ValueError, match=why):
        GradingSpec(metric="laplace_log_likelihood", id_columns=["Patient_Week"],
                    target_columns=["FVC", "Confidence"], submission_only_columns=only)


def test_submission_only_columns_are_written_only_when_set() -> None:
    plain = GradingSpec(metric="rmse", id_columns=["id"], target_columns=["y"])
    assert "submission_only_columns" not in plain.model_dump()
    osic = GradingSpec(metric="laplace_log_likelihood", id_columns=["Patient_Week"],
                       target_columns=["FVC", "Confidence"],
                       submission_only_columns={"Confidence": "70"})
    assert osic.model_dump()["submission_only_columns"] == {"Confidence": "70"}
    assert osic.answers_targets() == ["FVC"]


# --- h-and-m: every customer listed, only buyers scored -----------------------------------------


def _hm(tmp_path: Path, with_universe: bool) -> tuple[TaskSpec, Path]:
    answers = "customer_id,prediction\nc2,a b\nc4,c\n"
    sample = "customer_id,prediction\n" + "".join(f"c{i},x\n" for i in range(1, 6))
    extra = {"ids_from": {"file": "sample_submission.csv", "column": "customer_id"}}
    return _task(tmp_path, answers, {"sample_submission.csv": sample}, metric="map_at_k",
                 metric_params={"k": 12}, id_columns=["customer_id"],
                 target_columns=["prediction"], extra_ids="ignore",
                 **(extra if with_universe else {}))


@pytest.mark.parametrize("with_universe", [False, True])
def test_ids_beyond_the_scored_ones_are_listed_but_not_scored(
    with_universe: bool, tmp_path: Path
) -> None:
    spec, path = _hm(tmp_path, with_universe)
    text = "customer_id,prediction\nc1,z\nc2,a q b\nc3,z\nc4,q c\nc5,z\n"
    report = _grade(spec, path, tmp_path, text)
    # c2: hits at 1 and 3 -> (1/1 + 2/3) / 2; c4: hit at 2 -> (1/2) / 1
    want = ((1 + 2 / 3) / 2 + 1 / 2) / 2
    assert report.valid_submission and report.score == pytest.approx(want)


def test_a_missing_scored_id_is_refused_without_naming_it(tmp_path: Path) -> None:
    spec, path = _hm(tmp_path, with_universe=False)
    report = _grade(spec, path, tmp_path, "customer_id,prediction\nc1,z\nc3,z\nc4,c\nc9,z\n")
    assert report.errors == [
        "missing ids: the submission has no row for some of the ids that are scored; expected "
        "a row for every test id (which ids are scored is not disclosed)"
    ]
    # the same message whichever scored id is missing, and for a missing unscored id nothing
    other = _grade(spec, path, tmp_path, "customer_id,prediction\nc2,z\nc3,z\n")
    assert other.errors == report.errors
    fine = _grade(spec, path, tmp_path, "customer_id,prediction\nc2,z\nc4,z\n")
    assert fine.valid_submission


def test_with_a_public_id_list_every_problem_is_named(tmp_path: Path) -> None:
    spec, path = _hm(tmp_path, with_universe=True)
    report = _grade(spec, path, tmp_path,
                    "customer_id,prediction\nc1,z\nc2,z\nc2,y\nc4,z\nc5,z\nzz,z\n")
    assert report.errors == [
        "6 rows; expected 5 (one per test id)",
        "unknown ids: 1 submitted id(s) are not test ids (1 of 1): ['zz']",
        "duplicated ids: 1 id(s) appear more than once (1 extra row(s)) (1 of 1): ['c2']",
        "missing ids: 1 test id(s) have no row (1 of 1): ['c3']",
    ]


def test_answers_ids_outside_the_public_id_list_are_our_error(tmp_path: Path) -> None:
    spec, path = _hm(tmp_path, with_universe=True)
    (tmp_path / "public" / "sample_submission.csv").write_text("customer_id,prediction\nc2,x\n")
    with pytest.raises(TaskDataError, match=r"ids_from: 1 answer id\(s\) are not in the public "
                                            r"id list"):
        load_answers(path, spec.grading, get_metric("map_at_k"))  # type: ignore[arg-type]


# --- a target named differently in answers and submission ----------------------------------------


def test_answers_may_name_the_target_differently(tmp_path: Path) -> None:
    spec, path = _task(tmp_path, "id,truth\na,1\nb,3\n", metric="rmse", id_columns=["id"],
                       target_columns=["pred"], answers_target_columns=["truth"])
    report = _grade(spec, path, tmp_path, "id,pred\na,2\nb,3\n")
    assert report.valid_submission and report.score == pytest.approx(math.sqrt(0.5))
    bad = _grade(spec, path, tmp_path, "id,truth\na,2\nb,3\n")
    assert re.match(r"column `pred` missing; expected \['id', 'pred'\]", bad.errors[0])


def test_scored_rows_reach_the_metric_in_answers_order_whatever_the_submission_order(
    tmp_path: Path,
) -> None:
    answers = "id,y,u\n" + "".join(f"r{i},{i},{i % 2}\n" for i in range(6))
    spec, path = _task(tmp_path, answers, metric="rmse", id_columns=["id"], target_columns=["y"],
                       scored_rows={"rule": "where", "column": "u", "scored": ["1"],
                                    "unscored": ["0"]})
    ans = load_answers(path, spec.grading, get_metric("rmse"))  # type: ignore[arg-type]
    assert ans.y_true.tolist() == [1.0, 3.0, 5.0]
    sub = tmp_path / "s.csv"
    sub.write_text("id,y\n" + "".join(f"r{i},{10 * i}\n" for i in (5, 2, 0, 4, 1, 3)))
    assert validate_submission(sub, ans).y_pred.tolist() == [10.0, 30.0, 50.0]
    with pytest.raises(InvalidSubmissionError):
        sub.write_text("id,y\n" + "".join(f"r{i},{10 * i}\n" for i in (5, 2, 0, 4, 1)))
        validate_submission(sub, ans)


# --- shipped Lite specs follow their competitions' rules ------------------------------------------


def _lite(task_id: str) -> TaskSpec:
    from tambench.schema.io import load_taskspec

    root = Path(__file__).resolve().parents[2] / "tambench" / "tasks" / "catalogue"
    return load_taskspec(root / task_id / "task.json")


def test_lmsys_log_loss_clips_at_float64_machine_epsilon_as_eps_auto_does() -> None:
    grading = _lite("kaggle/lmsys-chatbot-arena").grading
    assert grading is not None
    assert grading.metric_params["eps"] == np.finfo(np.float64).eps == 2.220446049250313e-16


@pytest.mark.parametrize(("column", "yes", "no"), [("keep", "True", "False"), ("scored", "1", "0")])
def test_stanford_covid_grades_mle_bench_and_paper_release_answers_alike(
    column: str, yes: str, no: str, tmp_path: Path
) -> None:
    spec = _lite("kaggle/stanford-covid-vaccine")
    header = "id_seqpos,reactivity,deg_Mg_pH10,deg_pH10,deg_Mg_50C,deg_50C"
    truth = [(0.5, 0.2, 0.1, 0.3, 0.4), (0.1, 0.3, 0.9, 0.2, 0.5), (7.0, 7.0, 7.0, 7.0, 7.0)]
    flags = [yes, yes, no]
    (tmp_path / "private").mkdir()
    answers = tmp_path / "private" / "answers.csv"
    answers.write_text(f"{header},{column}\n" + "".join(
        f"s_{i},{','.join(map(str, t))},{f}\n" for i, (t, f) in enumerate(zip(truth, flags,
                                                                             strict=True))))
    sub = tmp_path / "submission.csv"
    sub.write_text(header + "\n" + "".join(
        f"s_{i},{t[0] + 0.3},{t[1]},{t[2]},{t[3]},{t[4]}\n" for i, t in enumerate(truth[:2]))
        + "s_2,0,0,0,0,0\n")
    report = grade_submission(sub, spec, answers)
    # scored rows 0 and 1: reactivity off by 0.3 (RMSE 0.3), the two others exact: 0.3 / 3
    assert report.valid_submission and report.score == pytest.approx(0.1)


def test_speech_commands_accept_the_twelve_labels_and_nothing_else(tmp_path: Path) -> None:
    spec = _lite("kaggle/tensorflow-speech-recognition-challenge")
    (tmp_path / "private").mkdir()
    answers = tmp_path / "private" / "answers.csv"
    answers.write_text("fname,label\na.wav,yes\nb.wav,no\n")
    sub = tmp_path / "submission.csv"
    sub.write_text("fname,label\na.wav,silence\nb.wav,no\n")  # silence: absent, still valid
    assert grade_submission(sub, spec, answers).score == 0.5
    sub.write_text("fname,label\na.wav,bed\nb.wav,no\n")  # a training word outside the 12
    assert "unknown label(s) (1 of 1): ['bed']" in grade_submission(sub, spec, answers).errors[0]


# --- several auxiliary answers columns as one 2-D array ------------------------------------------


def test_a_list_of_answers_columns_reaches_the_metric_as_one_array(tmp_path: Path) -> None:
    # 8 comments; identity "a" on rows 0-3, "b" on rows 2-5 (empty cells: not mentioned).
    tox = [0.9, 0.1, 0.8, 0.0, 0.7, 0.2, 0.6, 0.3]
    a = ["1", "0", "1", "0.9", "", "", "0", "0"]
    b = ["", "", "1", "1", "1", "0.8", "", "0"]
    answers = "id,target,a,b\n" + "".join(
        f"r{i},{t},{x},{y}\n" for i, (t, x, y) in enumerate(zip(tox, a, b, strict=True)))
    spec, path = _task(tmp_path, answers, metric="jigsaw_bias_auc", id_columns=["id"],
                       target_columns=["target"],
                       metric_params={"identities_columns": ["a", "b"]})
    report = _grade(spec, path, tmp_path, "id,target\n" + "".join(
        f"r{i},{t}\n" for i, t in enumerate(tox)))
    assert report.valid_submission and report.score == 1.0  # every AUC is 1 for exact scores
    ans = load_answers(path, spec.grading, get_metric("jigsaw_bias_auc"))  # type: ignore[arg-type]
    assert ans.aux["identities"].shape == (8, 2) and "identities_columns" not in ans.params
