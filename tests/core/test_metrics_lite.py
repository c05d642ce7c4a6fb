"""The Lite tasks' own metrics: JSON and line submissions, pose accuracy, gesture distance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn import metrics as skm

from tambench.core.metrics import get_metric
from tambench.core.metrics import lite as L
from tambench.errors import InvalidSubmissionError, TaskDataError

ANSWERS_IND = {
    "a1": {"p1": 1, "p2": 1, "p3": 0, "p4": 0},
    "a2": {"p5": 1, "p6": 0, "p7": 1},
    "a3": {"p8": 1, "p9": 1},  # no outlier: no AUC, weight 0
}


def test_weighted_author_auc_weights_each_author_auc_by_its_outliers(rng=np.random.default_rng(3)) -> None:
    sub = {a: {p: float(rng.random()) for p in papers} for a, papers in ANSWERS_IND.items()}
    auc1 = skm.roc_auc_score([1, 1, 0, 0], [sub["a1"][p] for p in ["p1", "p2", "p3", "p4"]])
    auc2 = skm.roc_auc_score([1, 0, 1], [sub["a2"][p] for p in ["p5", "p6", "p7"]])
    expected = (2 * auc1 + 1 * auc2) / 3
    assert L.weighted_author_auc(ANSWERS_IND, sub) == pytest.approx(expected, rel=1e-12)


def test_weighted_author_auc_rewards_high_scores_for_correctly_assigned_papers() -> None:
    normal_high = {a: {p: float(v) for p, v in papers.items()} for a, papers in ANSWERS_IND.items()}
    outlier_high = {a: {p: 1.0 - v for p, v in papers.items()} for a, papers in normal_high.items()}
    assert L.weighted_author_auc(ANSWERS_IND, normal_high) == 1.0
    assert L.weighted_author_auc(ANSWERS_IND, outlier_high) == 0.0


def test_ind_submission_missing_and_unknown_ids_are_listed() -> None:
    sub = {
        "a1": {"p1": 0.5, "p2": 0.5, "p3": 0.5, "pX": 0.5},
        "a2": {"p5": 0.5, "p6": True, "p7": "high"},
        "zz": {},
    }
    with pytest.raises(InvalidSubmissionError) as err:
        L.weighted_author_auc(ANSWERS_IND, sub)
    text = str(err.value)
    assert "missing author ids (1): 'a3'" in text
    assert "unknown author ids (1): 'zz'" in text
    assert "missing papers (1): 'a1/p4'" in text
    assert "unknown papers (1): 'a1/pX'" in text
    assert "scores that are not finite numbers (2): 'a2/p6', 'a2/p7'" in text


def test_ind_submission_that_is_not_an_object_is_rejected() -> None:
    problems = get_metric("weighted_author_auc").check(ANSWERS_IND, [1, 2])
    assert problems == ["expected a JSON object {author_id: {paper_id: score}}, got a JSON list"]


def test_ind_answers_without_any_outlier_are_bad_task_data() -> None:
    with pytest.raises(TaskDataError, match="both normal and outlier"):
        L.weighted_author_auc({"a": {"p": 1}}, {"a": {"p": 0.3}})


def test_average_precision_matches_sklearn_with_ties(rng=np.random.default_rng(4)) -> None:
    for _ in range(20):
        y = rng.integers(0, 2, 30)
        y[0] = 1
        s = np.round(rng.random(30), 1)
        assert L.average_precision(y, s) == pytest.approx(
            skm.average_precision_score(y, s), rel=1e-12
        )


def test_mean_ap_per_paper_averages_over_papers_with_a_source() -> None:
    answers = {"x": [1, 0, 0, 1], "y": [0, 1], "z": [0, 0]}
    sub = {"x": [0.9, 0.8, 0.1, 0.4], "y": [0.2, 0.1], "z": [0.5, 0.5]}
    expected = (skm.average_precision_score([1, 0, 0, 1], [0.9, 0.8, 0.1, 0.4]) + 0.5) / 2
    assert L.mean_ap_per_paper(answers, sub) == pytest.approx(expected, rel=1e-12)


def test_pst_submission_problems_name_each_paper() -> None:
    answers = {"x": [1, 0], "y": [0, 1], "w": [1]}
    sub = {"x": [0.5], "y": [0.3, 1.5], "w": {"0": 1}, "extra": [1]}
    problems = get_metric("mean_ap_per_paper").check(answers, sub)
    assert problems == [
        "unknown paper ids (1): 'extra'",
        "papers whose value is not a list of scores (1): 'w'",
        "papers with the wrong number of reference scores (1): 'x (expected 2, got 1)'",
        "papers with scores that are not numbers in [0, 1] (1): 'y'",
    ]
    with pytest.raises(InvalidSubmissionError):
        L.mean_ap_per_paper(answers, sub)


def test_map_at_k_lines_scores_each_line_against_its_answer_line() -> None:
    answers = ["p1,p2", "p9", "p5"]
    lines = ["p1,p3,p2", "p4, p9", ",".join(f"q{i}" for i in range(20))]
    expected = ((1 + 2 / 3) / 2 + 1 / 2 + 0) / 3
    assert L.map_at_k_lines(answers, lines, k=20) == pytest.approx(expected, rel=1e-12)


def test_map_at_k_lines_rejects_wrong_line_count_long_lines_and_repeats() -> None:
    answers = ["a", "b", "c"]
    lines = ["a,a", ",".join(f"x{i}" for i in range(21)), "", "d"]
    problems = get_metric("map_at_k_lines").check(answers, lines, k=20, sep=",")
    assert problems == [
        "expected 3 lines (one per question), got 4",
        "empty lines (expected 1 to 20 ids) (1): '3'",
        "lines with more than 20 ids (1): '2'",
        "lines repeating an id (1): '1'",
    ]


def rotation_z(degrees: float) -> np.ndarray:
    a = math.radians(degrees)
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])


def pose_row(rot: np.ndarray, t: list[float]) -> list[float]:
    return [*rot.ravel().tolist(), *t]


def test_pose_maa_thresholds_rotation_and_camera_centre_errors() -> None:
    truth = [pose_row(np.eye(3), [0, 0, 0]), pose_row(np.eye(3), [1, 2, 3])]
    # Image 1: 5.5 degrees off -> accurate at rotation thresholds 6..10 (5 of 10 pairs).
    # Image 2: rotation exact, translation moves the centre by 0.3 m -> pairs whose
    # translation threshold exceeds 0.3 m: geomspace(0.2, 5, 10)[2:] (8 of 10).
    pred = [pose_row(rotation_z(5.5), [0, 0, 0]), pose_row(np.eye(3), [1, 2, 3.3])]
    assert L.pose_maa(truth, pred) == pytest.approx((0.5 + 0.8) / 2, rel=1e-12)


def test_pose_maa_compares_camera_centres_not_raw_translations() -> None:
    rot = rotation_z(90)
    t = [1.0, 0.0, 0.0]
    centre = -rot.T @ np.array(t)
    # Same camera centre and rotation, written with a different but equivalent translation.
    same = pose_row(rot, (-rot @ centre).tolist())
    assert L.pose_maa([pose_row(rot, t)], [same]) == 1.0
    assert L.ROTATION_THRESHOLDS_DEG[0] == 1.0 and L.ROTATION_THRESHOLDS_DEG[-1] == 10.0
    assert L.TRANSLATION_THRESHOLDS_M[0] == pytest.approx(0.2)
    assert L.TRANSLATION_THRESHOLDS_M[-1] == pytest.approx(5.0)


def test_levenshtein_per_true_divides_total_distance_by_total_true_gestures() -> None:
    t = ["1 2 3 4", "5"]
    p = ["1 3 4", "5 6 7"]
    assert L.levenshtein_per_true(t, p) == pytest.approx((1 + 2) / 5)
    with pytest.raises(TaskDataError, match="no true token"):
        L.levenshtein_per_true([""], ["1"])
