"""Reading a grader's source as data (pycode, formulas, grader_reading) and settling a metric
from witnesses (witnesses). The graders below are written for these tests in the shape of
MLE-Dojo's ``metric.py`` files; none is ever imported or run."""

from __future__ import annotations

import pytest

from tambench.tasks.importers.grader_reading import departures, read_grader_source
from tambench.tasks.importers.pycode import read_grader
from tambench.tasks.importers.tree_files import read_prepare
from tambench.tasks.importers.witnesses import Reading, agreement, decide_metric

HEAD = """import numpy as np
import pandas as pd
from sklearn.metrics import {imports}


class M:
    def __init__(self, value: str = "y", higher_is_better: bool = {higher}):
        self.value = value
{extra}
    def evaluate(self, y_true, y_pred):
"""


def grader(body: str, imports: str = "accuracy_score", higher: bool = True,
           extra: str = "") -> str:
    lines = "".join(f"        {line}\n" for line in body.strip("\n").splitlines())
    return HEAD.format(imports=imports, higher=higher, extra=extra) + lines


CASES = [
    ("return accuracy_score(y_true[self.value], y_pred[self.value])", "accuracy", {}),
    ("return f1_score(y_true[self.value], y_pred[self.value], average='macro')", "f1_macro",
     {}),
    ("return cohen_kappa_score(y_true.y, y_pred.y, weights='quadratic')", "qwk", {}),
    ("return np.sqrt(mean_squared_error(y_true[self.value], y_pred[self.value]))", "rmse", {}),
    ("return mean_squared_error(y_true[self.value], y_pred[self.value])", "mse", {}),
    ("d = y_true[self.value] - y_pred[self.value]\nreturn np.sqrt(np.mean(d ** 2))", "rmse",
     {}),
    ("a = np.log1p(y_true[self.value])\nb = np.log(y_pred[self.value] + 1)\n"
     "return np.sqrt(np.mean((a - b) ** 2))", "rmsle", {}),
    ("return np.mean(np.abs(y_true[self.value] - y_pred[self.value]))", "mae", {}),
    ("scores = []\nfor col in ['a', 'b']:\n"
     "    scores.append(np.sqrt(np.mean((y_true[col] - y_pred[col]) ** 2)))\n"
     "return np.mean(scores)", "mcrmse", {}),
    ("aucs = []\nfor c in y_true.columns[1:]:\n    aucs.append(roc_auc_score(y_true[c], "
     "y_pred[c]))\nreturn np.mean(aucs)", "roc_auc_columnwise", {}),
    ("correct = (y_true[self.value] == y_pred[self.value]).sum()\n"
     "return correct / len(y_true)", "accuracy", {}),
    ("return (y_true[self.value] != y_pred[self.value]).mean()", "top1_error", {}),
    ("p = np.clip(y_pred[self.value], 1e-15, 1 - 1e-15)\nt = y_true[self.value]\n"
     "return -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p))", "log_loss", {}),
    ("return 2 * roc_auc_score(y_true[self.value], y_pred[self.value]) - 1",
     "normalized_gini", {}),
    ("scores = []\nfor i in range(len(y_true)):\n    preds = str(y_pred.iloc[i]).split()[:5]\n"
     "    s = 0.0\n    if y_true.iloc[i] in preds:\n"
     "        s = 1.0 / (preds.index(y_true.iloc[i]) + 1)\n    scores.append(s)\n"
     "return np.mean(scores)", "map_at_k", {"k": 5, "relevant": "single"}),
    ("out = []\nfor i in range(len(y_true)):\n    a = set(str(y_true.iloc[i]).split())\n"
     "    b = set(str(y_pred.iloc[i]).split())\n"
     "    out.append(len(a & b) / len(a | b))\nreturn np.mean(out)", "jaccard_words", {}),
    ("fpr, tpr, _ = roc_curve(y_true[self.value], y_pred[self.value])\n"
     "return auc(fpr, tpr)", "roc_auc", {}),
    ("t = y_true[self.value]\np = y_pred[self.value]\n"
     "return np.mean(np.where(np.abs(t) + np.abs(p) == 0, 0, "
     "200 * np.abs(t - p) / (np.abs(t) + np.abs(p))))", "smape", {}),
]


@pytest.mark.parametrize(("body", "metric", "params"), CASES, ids=[c[1] + str(i) for i, c in
                                                                 enumerate(CASES)])
def test_a_graders_formula_is_read_as_the_metric_it_computes(
    body: str, metric: str, params: dict[str, object]
) -> None:
    reading = read_grader_source(grader(body))
    assert reading.metric is not None, body
    assert (reading.metric.metric, reading.metric.params) == (metric, params)
    assert reading.target == ["y"] and reading.higher_is_better is True


def test_helpers_are_followed_and_init_defaults_read() -> None:
    source = grader("return float(np.mean([self._f1(a, b) for a, b in zip(y_true.t, y_pred.t)]))",
                    higher=True, extra="""
    def _f1(self, a, b):
        t, p = set(a.split()), set(b.split())
        if not t and not p:
            return 1.0
        hit = len(t & p)
        if hit == 0:
            return 0.0
        prec, rec = hit / len(p), hit / len(t)
        return 2 * prec * rec / (prec + rec)
""")
    reading = read_grader_source(source)
    assert reading.metric is not None and reading.metric.metric == "rowwise_set_f1"


@pytest.mark.parametrize("source", [
    "def evaluate(:\n",                                    # not Python
    "x = 1\n",                                             # no scoring class
    grader("return some_private_score(y_true, y_pred)"),   # an unknown function
    grader("return self.evaluate(y_true, y_pred)"),        # recursion, bounded
    "x = 1\n" * 100_000,                                   # larger than read
], ids=["syntax", "no-class", "unknown-call", "recursion", "too-large"])
def test_what_cannot_be_read_is_no_reading_never_a_guess(source: str) -> None:
    reading = read_grader_source(source)
    assert reading.metric is None
    assert reading.reading().metric is None and "metric.py" in reading.reading().witness


def test_reading_never_runs_the_source(tmp_path) -> None:  # type: ignore[no-untyped-def]
    canary = tmp_path / "ran"
    source = (f"open({str(canary)!r}, 'w').write('x')\n" +
              grader(f"open({str(canary)!r}, 'w').write('x')\nreturn accuracy_score(y_true, "
                     "y_pred)"))
    assert read_grader_source(source).metric is not None
    assert not canary.exists()


def test_literals_a_grader_shows_are_kept() -> None:
    g = read_grader(grader("cols = ['a', 'b']\ntop = str(y_pred.iloc[0]).split()[:12]\n"
                           "return accuracy_score(y_true.sort_values(by='row_id'), y_pred)"))
    assert ("a", "b") in g.string_lists and 12 in g.slices and "row_id" in g.column_literals


def test_departures_beyond_another_metric() -> None:
    clipped = read_grader_source(grader(
        "p = np.clip(y_pred[self.value], a_min=0, a_max=None)\n"
        "return np.sqrt(np.mean((np.log1p(p) - np.log1p(y_true[self.value])) ** 2))",
        higher=False))
    assert any("clips values to 0" in d for d in departures(clipped, "rmsle", {}))
    percent = read_grader_source(grader(
        "return (y_true[self.value] == y_pred[self.value]).mean() * 100"))
    assert percent.metric is not None and percent.metric.scale == 100.0
    assert any("multiplies the score by 100" in d for d in departures(percent, "accuracy", {}))
    unguarded = read_grader_source(grader(
        "t, p = y_true[self.value], y_pred[self.value]\n"
        "return 100 / len(t) * np.sum(2 * np.abs(p - t) / (np.abs(t) + np.abs(p)))",
        higher=False))
    assert any("0/0" in d for d in departures(unguarded, "smape", {}))
    rows = read_grader_source(grader(
        "p = np.clip(y_pred.iloc[:, 1:], 1e-15, 1 - 1e-15)\n"
        "return -(y_true.iloc[:, 1:] * np.log(p)).sum(axis=1).mean()", higher=False))
    assert any("rescale" in d for d in departures(rows, "multiclass_log_loss", {}))
    rescaled = read_grader_source(grader(
        "p = np.clip(y_pred.iloc[:, 1:], 1e-15, 1 - 1e-15)\np = p.div(p.sum(axis=1), axis=0)\n"
        "return -np.mean(np.sum(y_true.iloc[:, 1:] * np.log(p), axis=1))", higher=False))
    assert departures(rescaled, "multiclass_log_loss", {}) == []
    backwards = read_grader_source(grader("return accuracy_score(y_true, y_pred)", higher=False))
    assert any("higher_is_better=False" in d for d in departures(backwards, "accuracy", {}))


def test_prepare_shows_its_sample_header_answers_raw_files_and_split() -> None:
    facts = read_prepare("""
import pandas as pd
def prepare(raw, public, private):
    train = pd.read_csv(raw / "train.csv")
    new_train, new_test = train_test_split(train, test_size=0.1, random_state=7)
    test_answer = new_test[["RefId", "IsBadBuy"]].copy()
    sample_submission = pd.DataFrame({"RefId": new_test["RefId"], "IsBadBuy": 0})
""")
    assert facts.sample_header == ["RefId", "IsBadBuy"]
    assert facts.answers_columns == ["RefId", "IsBadBuy"]
    assert facts.raw_files == ["train.csv"] and facts.split == {"test_size": 0.1,
                                                                "random_state": 7}


# --- witnesses --------------------------------------------------------------------------

D, C, T = "the description", "metric.py", "Kaggle's name"


def test_two_agreeing_witnesses_settle_and_the_specific_reading_is_kept() -> None:
    d = decide_metric(Reading(D, "log_loss"), Reading(C, "multiclass_log_loss"),
                      Reading(T, None))
    assert (d.metric, d.conflict, d.departure) == ("multiclass_log_loss", "", "")
    ambiguous = Reading(T, "f1", alternatives=("f1", "f1_micro", "f1_macro"))
    assert agreement(ambiguous, Reading(C, "f1_micro")) == "f1_micro"
    assert agreement(Reading(T, "x", settles=False), Reading(C, "x")) is None


def test_a_third_witness_reading_otherwise_makes_a_conflict() -> None:
    d = decide_metric(Reading(D, "rmse"), Reading(C, "rmse"), Reading(T, "mae"))
    assert d.metric is None and "agree on rmse" in d.conflict and "reads mae" in d.conflict


def test_description_and_kaggles_name_outvote_a_departing_grader() -> None:
    d = decide_metric(Reading(D, "rmse"), Reading(C, "mse", detail="mean_squared_error"),
                      Reading(T, "rmse"))
    assert d.metric == "rmse" and "computes mse" in d.departure


def test_a_grader_computing_only_the_general_metric_departs() -> None:
    d = decide_metric(Reading(D, "mean_log_mae"), Reading(C, "mae"), Reading(T, None))
    assert d.metric == "mean_log_mae" and "general mae" in d.departure
    same = decide_metric(Reading(D, "multiclass_log_loss"), Reading(C, "log_loss"),
                         Reading(T, None))
    assert same.metric == "multiclass_log_loss" and same.departure == ""


def test_grader_and_name_settle_when_the_description_reads_no_registered_metric() -> None:
    for described in (Reading(D, None), Reading(D, None, approximate=True)):
        d = decide_metric(described, Reading(C, "rmspe"), Reading(T, "rmspe"))
        assert d.metric == "rmspe"


@pytest.mark.parametrize(("readings", "why"), [
    ((Reading(D, "mae"), Reading(C, "r2"), Reading(T, None)), "the witnesses disagree"),
    ((Reading(D, "mae"), Reading(C, None), Reading(T, None)), "a single witness"),
    ((Reading(D, None), Reading(C, "mae"), Reading(T, None)), "a single witness"),
    ((Reading(D, "map_at_k", {"k": 5}), Reading(C, "map_at_k", {"k": 12}), Reading(T, None)),
     "different parameters (k: 5 vs 12)"),
])
def test_no_metric_is_chosen_without_agreement(readings: tuple[Reading, Reading, Reading],
                                               why: str) -> None:
    d = decide_metric(*readings)
    assert d.metric is None and why in d.conflict
    for r in readings:
        assert r.witness in d.conflict


def test_weights_a_boolean_answers_column_stands_for_and_their_normalisation() -> None:
    holiday = read_grader_source(grader(
        "e = np.abs(y_true[self.value] - y_pred[self.value])\n"
        "w = np.where(y_true['IsHoliday'] == True, 5, 1)\n"
        "return np.sum(w * e) / np.sum(w)", higher=False))
    assert holiday.metric is not None and holiday.metric.metric == "weighted_mae"
    assert holiday.metric.params == {"weights_column": "IsHoliday",
                                     "weight_map": {"True": 5.0, "False": 1.0}}
    per_row = read_grader_source(grader(
        "e = np.abs(y_true[self.value] - y_pred[self.value])\n"
        "return np.sum(y_true['weight'] * e) / len(y_true)", higher=False))
    assert per_row.metric is not None and per_row.metric.params == {"divide_by": "n"}


def test_a_default_the_grader_sorts_rows_by_is_the_id_not_a_target() -> None:
    reading = read_grader_source(grader(
        "key = self.value\ny_true = y_true.sort_values(by=key)\n"
        "return accuracy_score(y_true.a, y_pred.a)"))
    assert reading.target == []


def test_the_submission_columns_are_checked_against_the_graders_target() -> None:
    from tambench.tasks.importers._common import Description
    from tambench.tasks.importers.dojo_grading import DojoGrading, submission_columns
    from tambench.tasks.importers.tree_files import PrepareFacts

    grader_reading = read_grader_source(grader("return accuracy_score(y_true, y_pred)"))
    as_id = Description(id_columns=["y"], target_columns=["Date"], header=["y", "Date"])
    d = DojoGrading()
    assert submission_columns(as_id, PrepareFacts(), grader_reading, d) is None
    assert any("reads as an id" in w for w in d.warnings)
    elsewhere = Description(id_columns=["id"], target_columns=["z"], header=["id", "z"])
    d = DojoGrading()
    found = submission_columns(elsewhere, PrepareFacts(sample_header=["id", "y"]),
                               grader_reading, d)
    assert found is not None and found.header == ["id", "y"] and found.target_columns == ["y"]
    d = DojoGrading()
    found = submission_columns(Description(), PrepareFacts(answers_columns=["rid", "y", "w"]),
                               grader_reading, d)
    assert found is not None and (found.id_columns, found.header) == (["rid"], ["rid", "y"])


def test_an_image_without_true_boxes_scored_0_departs_from_image_precision() -> None:
    from tambench.tasks.importers.formulas import CodeMetric
    from tambench.tasks.importers.grader_reading import GraderReading

    source = grader("return np.mean([self._image(t, p) for t, p in zip(y_true.s, y_pred.s)])",
                    extra="""
    def _image(self, truth, pred):
        gt_boxes = str(truth).split()
        if len(gt_boxes) == 0:
            return 0.0
        return len(set(gt_boxes) & set(str(pred).split())) / len(gt_boxes)
""")
    rule = {"form": "image_precision"}
    reading = GraderReading(metric=CodeMetric("box_map", "image precision", rule),
                            source=read_grader(source))
    assert any("without true boxes" in d for d in departures(reading, "box_map", rule))
    other = GraderReading(metric=CodeMetric("box_map", "image precision", rule),
                          source=read_grader(source.replace("gt_boxes", "pred_boxes")))
    assert not any("without true boxes" in d for d in departures(other, "box_map", rule))


def _hostile_doubling() -> str:
    return grader("x = y_true.a - y_pred.a\n" + "x = x + x\n" * 200 + "return np.mean(x)")


def _hostile_fan_out() -> str:
    helpers = "".join(
        f"\n    def h{i}(self, a):\n" + "".join(f"        a = self.h{i + 1}(a) + a\n"
                                              for _ in range(30)) + "        return a\n"
        for i in range(6))
    return grader("return self.h0(y_true.a)", extra=helpers + "\n    def h6(self, a):\n"
                  "        return a\n")


@pytest.mark.parametrize("source", [_hostile_doubling(), _hostile_fan_out(),
                                    grader("x = y_true.a\n" + "x = x - 1\n" * 5000 +
                                           "return np.mean(x)")],
                         ids=["doubling", "fan-out", "long-chain"])
def test_a_hostile_grader_is_read_in_bounded_work_and_recognised_as_nothing(source: str) -> None:
    reading = read_grader_source(source)
    assert reading.metric is None
