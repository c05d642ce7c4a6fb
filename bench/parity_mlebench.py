"""Parity of tambench's metrics with MLE-bench's graders on the same generated data.

For every competition of :data:`PAIRS`, builds perfect, random, partial and metric-specific
edge cases (bench/parity_cases.py), grades each with MLE-bench's own ``grade`` function and with
the registered tambench metric, and prints per competition how many cases agree (within 1e-6),
how many differ where MLE-bench departs from the competition's published rules (each departure
named with its reason: tambench follows the rules) and how many disagree otherwise.

MLE-bench is not a dependency and never used by tests: give the path of a checkout (a folder
holding ``mlebench/``) made by hand. Its graders need pandas, scikit-learn, scipy, Levenshtein,
shapely, pyquaternion and pycocotools; ``py7zr``, which only its data download uses, is stubbed
when absent.

Two modes (``--modes metric,task``, both by default): ``metric`` calls the registered metric
on each case's arrays; ``task`` imports the checkout with ``tambench tasks import mle-bench``
into a temporary catalogue and grades each case's files with ``tambench grade --task`` and no
convention flag (the imported spec carries them: bench/parity_task.py), against MLE-bench's
grade on the same files read with pandas, and adds the cases only validation decides
(respelt labels, probability rows that do not sum to one, quoted line breaks in text).

Usage::

    python bench/parity_mlebench.py --mlebench /path/to/mle-bench [--only AI4Code,...] [--json FILE]

Exit status 1 when any case disagrees without a documented departure.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import math
import os
import sys
import tempfile
import types
import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from parity_cases import (  # noqa: E402
    Case,
    Pair,
    ai4code_cases,
    binary_cases,
    cervical_cases,
    champs_cases,
    gnss_cases,
    icecube_cases,
    imet_cases,
    jigsaw_cases,
    kuzushiji_cases,
    label_cases,
    logloss_cases,
    lyft_cases,
    nomad_cases,
    quest_cases,
    qwk_cases,
    siim_cases,
    text_cases,
    tf2qa_cases,
    tweet_cases,
    uw_cases,
    value_cases,
    vesuvius_cases,
    vinbig_cases,
)
from parity_task import (  # noqa: E402
    TASK_DEPARTURES,
    grade_via_task,
    import_catalogue,
    task_pairs,
    task_spec,
)

from tambench.core.metrics import get_metric  # noqa: E402
from tambench.errors import InvalidSubmissionError  # noqa: E402

TOLERANCE = 1e-6

VOC_VS_SKLEARN = ("MLE-bench scores detections with scikit-learn's average_precision_score over "
                  "(hit, confidence) pairs that add each missed true box at confidence 0 and a "
                  "(0, 0) pair per empty image, not PASCAL VOC's interpolated AP")
COCO_XYXY = ("MLE-bench hands x_max/y_max to pycocotools as width/height and uses COCO's "
             "101-point AP with its own matching, not VOC 2010 at IoU > 0.4")
COCO_PERFECT = ("MLE-bench's COCO pipeline scores an exact copy of the answers below 1.0 (one "
                "class's AP falls below 1 with boxes read as x, y, width, height); an exact "
                "prediction is perfect under VOC")
PER_SAMPLE_3D = ("MLE-bench averages the organisers' mAP per sample (each sample's own classes); "
                 "the organisers' script and tambench compute it over the whole test set")
SUBMISSION_BINARISED = ("MLE-bench thresholds the submitted scores at 0.5 before every AUC; the "
                        "competition ranks raw scores")
MICRO_ON_BINARY = ("MLE-bench computes scikit-learn's micro F1 over both classes of a binary "
                   "'answered correctly' vector (that is accuracy); the rules define TP, FP and FN "
                   "over answers")
ABSENT_LABELS = ("MLE-bench binarises predictions with the answers' classes only, dropping "
                 "predicted labels absent from the answers instead of counting them as false "
                 "positives")
CLASSES_MERGED = ("MLE-bench merges the classes of a slice into one mask before the 3-D "
                  "Hausdorff distance and normalises by the unit-cube diagonal; tambench measures "
                  "each class's volume and divides by the volume's diagonal")
PER_EXAM = ("MLE-bench normalises the weighted loss per exam and averages exams (a forum "
            "implementation); the rules' weighted mean over all rows is tambench's default "
            "(groups_column reproduces the per-exam form)")
CONSTANT_COLUMN = ("MLE-bench returns NaN when a predicted column is constant (scipy's Spearman); "
                   "tambench scores that column 0")
CLIPPING = ("MLE-bench's scikit-learn clips probabilities at machine epsilon; Kaggle's log loss "
            "clips at 1e-15")
QWK_LABELS = ("scikit-learn's kappa spaces the ratings present by rank (a missing rating shrinks "
              "the distances); Kaggle's QWK weights (i - j)^2 over every rating in the range")
LOG_FLOOR = ("CHAMPS floors each type's MAE at 1e-9 before the log; MLE-bench's log(0) gives "
             "-inf for an exact type")
CONSTANT_PEARSON = ("MLE-bench returns NaN for a constant prediction (scipy's Pearson); tambench "
                    "scores it 0, never NaN")
EMPTY_BOTH = ("scikit-learn's F-beta of two empty masks is 0; an exact empty prediction is "
              "perfect (1.0) in tambench")


def _quest_classes(root: Path) -> list[str]:
    return _classes("google-quest-challenge")


def _classes(competition: str) -> list[str]:
    """A competition's class list from MLE-bench's ``classes.py`` (its package on sys.path)."""
    mod = importlib.import_module(f"mlebench.competitions.{competition}.classes")
    return list(mod.CLASSES)


def logloss_cases_for(id_col: str, target: str) -> Callable[[np.random.Generator], list[Case]]:
    """statoil's cases under another competition's column names."""

    def build(rng: np.random.Generator) -> list[Case]:
        out = []
        for c in logloss_cases(rng):
            sub = c.submission.rename(columns={"id": id_col, "is_iceberg": target})
            ans = c.answers.rename(columns={"id": id_col, "is_iceberg": target})
            out.append(Case(c.kind, c.y_true, c.y_pred, sub, ans, c.aux))
        return out

    return build


def _again(metric: str, case: Case, y_pred: Any = None, **params: Any) -> float:
    """Our metric on the case, with another prediction or parameters."""
    pred = case.y_pred if y_pred is None else y_pred
    with np.errstate(divide="ignore"):
        return get_metric(metric)(case.y_true, pred, **case.aux, **params)


def _imet_known_labels(case: Case) -> float:
    known = {x for cell in case.y_true for x in str(cell).split()}
    kept = np.array([" ".join(x for x in str(c).split() if x in known) for c in case.y_pred],
                    dtype=object)
    return _again("f1_micro_multilabel", case, kept)


def _tf2qa_accuracy(case: Case) -> float:
    hits = []
    for truth, pred in zip(case.y_true, case.y_pred, strict=True):
        accepted = set(str(truth).split())
        answered = bool(str(pred).strip())
        right = (pred in accepted) if answered else bool(accepted)
        hits.append(right == answered)
    return float(np.mean(hits))


def _qwk_by_rank(case: Case) -> float:
    present = sorted({int(v) for v in [*case.y_true, *case.y_pred]})
    rank = {v: str(i) for i, v in enumerate(present)}
    t = np.array([rank[int(v)] for v in case.y_true], dtype=object)
    p = np.array([rank[int(v)] for v in case.y_pred], dtype=object)
    return get_metric("qwk")(t, p)


def _quest_nan(case: Case) -> float:
    return math.nan if (np.ptp(case.y_pred, axis=0) == 0).any() else _again("spearman_columnwise", case)


def _lyft_per_sample(case: Case) -> float:
    metric = get_metric("box3d_map")
    return float(np.mean([metric(case.y_true[i : i + 1], case.y_pred[i : i + 1])
                          for i in range(len(case.y_true))]))


def _siim_pairs_ap(case: Case) -> float:
    """MLE-bench's SIIM scoring rebuilt with our parser and IoU: per class, (hit, confidence)
    pairs with each missed true box at confidence 0 and (0, 0) for an image with neither, then
    scikit-learn's non-interpolated average precision (the same sum as ``average_precision``)."""
    from tambench.core.metrics.boxes import BOX_2D, parse_objects
    from tambench.core.metrics.geometry import iou_2d
    from tambench.core.metrics.lite import average_precision

    truth = [parse_objects(c, BOX_2D) for c in case.y_true]
    pred = [parse_objects(c, BOX_2D) for c in case.y_pred]
    aps = []
    for cls in sorted({str(x) for t in truth for x in t.labels}):
        labels, scores = [], []
        for t, p in zip(truth, pred, strict=True):
            gt = t.values[t.labels == cls]
            mine = np.flatnonzero(p.labels == cls)
            mine = mine[np.argsort(-p.confidence[mine], kind="stable")]
            used = np.zeros(len(gt), dtype=bool)
            row: list[tuple[int, float]] = []
            for d in mine:
                iou = iou_2d(p.values[d : d + 1], gt)[0] if len(gt) else np.zeros(0)
                iou = np.where(used | (iou <= 0.5), 0.0, iou)
                if iou.size and iou.max() > 0.5:
                    used[int(np.argmax(iou))] = True
                    row.append((1, float(p.confidence[d])))
                else:
                    row.append((0, float(p.confidence[d])))
            row += [(1, 0.0)] * int((~used).sum())
            pairs_ = row or [(0, 0.0)]
            labels += [a for a, _ in pairs_]
            scores += [b for _, b in pairs_]
        aps.append(average_precision(np.array(labels), np.array(scores)))
    return float(np.mean(aps))


REPRODUCE: dict[str, Callable[[Case], float]] = {
    "siim-covid19-detection": _siim_pairs_ap,
    "3d-object-detection-for-autonomous-vehicles": _lyft_per_sample,
    "jigsaw-unintended-bias-in-toxicity-classification":
        lambda c: _again("jigsaw_bias_auc", c, (np.asarray(c.y_pred) >= 0.5).astype(float)),
    "imet-2020-fgvc7": _imet_known_labels,
    "rsna-2022-cervical-spine-fracture-detection":
        lambda c: _again("weighted_multilabel_log_loss", c, groups=c.answers["StudyInstanceUID"].to_numpy(object),
                         weights=CERVICAL_NEG, positive_weights=CERVICAL_POS),
    "tensorflow2-question-answering": _tf2qa_accuracy,
    "statoil-iceberg-classifier-challenge":
        lambda c: _again("log_loss", c, eps=float(np.finfo(np.float64).eps)),
    "aptos2019-blindness-detection": _qwk_by_rank,
    "champs-scalar-coupling": lambda c: _again("mean_log_mae", c, floor=0.0),
    "google-quest-challenge": _quest_nan,
    "us-patent-phrase-to-phrase-matching": lambda c: math.nan,
    "dogs-vs-cats-redux-kernels-edition":
        lambda c: _again("log_loss", c, eps=float(np.finfo(np.float64).eps)),
    "vesuvius-challenge-ink-detection": lambda c: 0.0 if not str(c.y_true[0]).strip() else math.nan,
}


def pairs(root: Path) -> list[Pair]:
    """Every compared competition."""
    quest = _quest_classes(root)
    return [
        Pair("siim-covid19-detection", "box_map", siim_cases, {"iou_thresholds": [0.5]},
             {"partial": VOC_VS_SKLEARN, "random": VOC_VS_SKLEARN, "random-2": VOC_VS_SKLEARN}),
        Pair("vinbigdata-chest-xray-abnormalities-detection", "box_map", vinbig_cases,
             {"iou_thresholds": [0.4]},
             {"perfect": COCO_PERFECT, "partial": COCO_XYXY, "random": COCO_XYXY}),
        Pair("3d-object-detection-for-autonomous-vehicles", "box3d_map", lyft_cases, {},
             {"partial": PER_SAMPLE_3D, "random": PER_SAMPLE_3D}),
        Pair("AI4Code", "kendall_tau_orders", ai4code_cases),
        Pair("alaska2-image-steganalysis", "weighted_auc_tpr",
             binary_cases("Id", "Label", scores=True)),
        Pair("billion-word-imputation", "levenshtein_mean", text_cases("id", "sentence", _sentence_maker())),
        Pair("bms-molecular-translation", "levenshtein_mean", text_cases("image_id", "InChI", _inchi_maker())),
        Pair("google-quest-challenge", "spearman_columnwise", lambda rng: quest_cases(rng, quest), {},
             {"constant-prediction-column": CONSTANT_COLUMN}),
        Pair("imet-2020-fgvc7", "f1_micro_multilabel", imet_cases, {},
             {"labels-absent-from-answers": ABSENT_LABELS, "random": ABSENT_LABELS,
              "partial": ABSENT_LABELS}),
        Pair("jigsaw-unintended-bias-in-toxicity-classification", "jigsaw_bias_auc", jigsaw_cases,
             {}, {"random": SUBMISSION_BINARISED, "partial": SUBMISSION_BINARISED}),
        Pair("kuzushiji-recognition", "point_in_box_f1", kuzushiji_cases),
        Pair("nomad2018-predict-transparent-conductors", "rmsle_columnwise", nomad_cases),
        Pair("rsna-2022-cervical-spine-fracture-detection", "weighted_multilabel_log_loss",
             cervical_cases, {"weights": CERVICAL_NEG, "positive_weights": CERVICAL_POS},
             {"random": PER_EXAM, "partial": PER_EXAM}),
        Pair("rsna-breast-cancer-detection", "probabilistic_f1",
             binary_cases("prediction_id", "cancer", scores=False)),
        Pair("smartphone-decimeter-2022", "haversine_p50_p95", gnss_cases),
        Pair("tensorflow2-question-answering", "span_micro_f1", tf2qa_cases, {},
             {"random": MICRO_ON_BINARY}),
        Pair("uw-madison-gi-tract-image-segmentation", "dice_hausdorff_3d", uw_cases, {},
             {"partial": CLASSES_MERGED, "random": CLASSES_MERGED}),
        Pair("vesuvius-challenge-ink-detection", "rle_f_beta", vesuvius_cases, {},
             {"both-empty": EMPTY_BOTH}),
        Pair("statoil-iceberg-classifier-challenge", "log_loss", logloss_cases, {},
             {"perfect": CLIPPING, "confident-wrong": CLIPPING}),
        Pair("aptos2019-blindness-detection", "qwk", qwk_cases, {}, {"absent-ratings": QWK_LABELS}),
        Pair("champs-scalar-coupling", "mean_log_mae", champs_cases, {}, {"perfect": LOG_FLOOR}),
        Pair("aerial-cactus-identification", "roc_auc", binary_cases("id", "has_cactus", scores=False)),
        Pair("histopathologic-cancer-detection", "roc_auc", binary_cases("id", "label", scores=False)),
        Pair("dogs-vs-cats-redux-kernels-edition", "log_loss", logloss_cases_for("id", "label"), {},
             {"perfect": CLIPPING, "confident-wrong": CLIPPING}),
        Pair("new-york-city-taxi-fare-prediction", "rmse",
             value_cases("key", ["fare_amount"], lambda r, n: r.gamma(2, 5, n), 2.0)),
        Pair("petfinder-pawpularity-score", "rmse",
             value_cases("Id", ["Pawpularity"], lambda r, n: r.integers(1, 101, n).astype(float), 10.0,
                         bounds=(1.0, 100.0))),
        Pair("predict-volcanic-eruptions-ingv-oe", "mae",
             value_cases("segment_id", ["time_to_eruption"], lambda r, n: r.uniform(1e5, 5e7, n), 1e6)),
        Pair("us-patent-phrase-to-phrase-matching", "pearson",
             value_cases("id", ["score"], lambda r, n: r.choice([0, 0.25, 0.5, 0.75, 1.0], n), 0.2),
             {}, {"constant": CONSTANT_PEARSON}),
        Pair("spaceship-titanic", "accuracy", label_cases("PassengerId", "Transported", ["True", "False"])),
        Pair("text-normalization-challenge-english-language", "exact_match",
             label_cases("id", "after", ["twenty one", "one", "Dr.", "sil"])),
        Pair("learning-agency-lab-automated-essay-scoring-2", "qwk",
             label_cases("essay_id", "score", [str(i) for i in range(1, 7)], numeric=True)),
        Pair("tweet-sentiment-extraction", "jaccard_words", tweet_cases),
        Pair("icecube-neutrinos-in-deep-ice", "mean_angular_error", icecube_cases),
    ]


CERVICAL_NEG = {"patient_overall": 7, **{f"C{i}": 1 for i in range(1, 8)}}
CERVICAL_POS = {"patient_overall": 14, **{f"C{i}": 2 for i in range(1, 8)}}


def _sentence_maker() -> Callable[[np.random.Generator], str]:
    from parity_cases import _sentence

    return _sentence


def _inchi_maker() -> Callable[[np.random.Generator], str]:
    from parity_cases import _inchi

    return _inchi


class _NumpyOneWhere(types.ModuleType):
    """numpy, except that ``where(condition)`` returns 0-d index arrays for single hits, as
    ``int(array_of_one)`` needs: numpy 2 refuses what numpy 1 accepted, and MLE-bench's
    VinBigData grader relies on it."""

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)

    @staticmethod
    def where(*args: Any) -> Any:
        out = np.where(*args)
        if len(args) == 1:
            return tuple(a.reshape(()) if a.size == 1 else a for a in out)
        return out


def load_grader(competition: str) -> Callable[..., Any]:
    """MLE-bench's ``grade`` of a competition (its package is on sys.path)."""
    module = importlib.import_module(f"mlebench.competitions.{competition}.grade")
    if competition == "vinbigdata-chest-xray-abnormalities-detection" and np.__version__ >= "2":
        module.np = _NumpyOneWhere("numpy")  # type: ignore[attr-defined]
    return module.grade


def _ours(pair: Pair, case: Case) -> float | str:
    try:
        return get_metric(pair.metric)(case.y_true, case.y_pred, **case.aux, **pair.params)
    except InvalidSubmissionError as exc:
        return f"refused: {exc.problems[0][:80]}"


def _theirs(grade: Callable[..., Any], case: Case) -> float | str:
    sub = case.submission.copy()
    ans = case.answers.copy() if hasattr(case.answers, "copy") else case.answers
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            return float(grade(sub, ans))
    except Exception as exc:  # noqa: BLE001 - the reference's failures are reported, not ours
        name = type(exc).__name__
        return f"{'refused' if name == 'InvalidSubmissionError' else 'error'}: {name}: {str(exc)[:80]}"


def _same(a: float | str, b: float | str) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
            return (math.isnan(a) and math.isnan(b)) or a == b
        return abs(a - b) <= TOLERANCE * max(1.0, abs(b))
    return (isinstance(a, str) and isinstance(b, str) and a.startswith("refused")
            and b.startswith("refused"))


def _verdict(pair: Pair, case: Case, ours: float | str, theirs: float | str) -> str:
    if _same(ours, theirs):
        return "agree"
    if isinstance(theirs, str) and theirs.startswith("error"):
        return "reference error"
    if case.kind not in pair.departures:
        return "disagree"
    again = REPRODUCE.get(pair.competition)
    if again is None:
        return "departure"
    return "departure (reproduced)" if _same(float(again(case)), theirs) else "disagree"


def compare(pair: Pair, grade: Callable[..., Any], case: Case) -> dict[str, Any]:
    """One case: both values and the verdict.

    agree: equal within 1e-6 (or both refuse); departure (reproduced): MLE-bench's number is
    what tambench computes once MLE-bench's documented deviation is applied; departure: a
    documented deviation not rebuilt here; reference error: MLE-bench's grader crashed;
    disagree: anything else.
    """
    ours, theirs = _ours(pair, case), _theirs(grade, case)
    verdict = _verdict(pair, case, ours, theirs)
    return {"competition": pair.competition, "metric": pair.metric, "case": case.kind,
            "tambench": ours, "mlebench": theirs, "verdict": verdict,
            "reason": pair.departures.get(case.kind) if verdict.startswith("departure") else None}


def _theirs_from_files(grade: Callable[..., Any], sub: Path, answers: Path) -> float | str:
    """MLE-bench's grade on the files as its CLI reads them (``pd.read_csv``; answers in JSON
    lines as a list of records, as its ``load_answers`` reads ``.jsonl``)."""
    import pandas as pd

    try:
        read = ([json.loads(line) for line in answers.read_text().splitlines() if line.strip()]
                if answers.suffix == ".jsonl" else pd.read_csv(answers))
        frames = pd.read_csv(sub), read
    except Exception as exc:  # noqa: BLE001 - pandas' refusal is MLE-bench's refusal
        return f"refused: {type(exc).__name__}: {str(exc)[:80]}"
    return _theirs(grade, Case("file", None, None, *frames))


def compare_task(pair: Pair, grade: Callable[..., Any], case: Case, where: Path
                 ) -> dict[str, Any]:
    """One case through ``tambench grade --task`` on the imported spec, against MLE-bench's
    grade on the same files; ``not gradable`` when the task cannot read MLE-bench's answers."""
    cat, data, work = where / "catalogue", where / "data", where / "work"
    work.mkdir(parents=True, exist_ok=True)
    ours = grade_via_task(pair.competition, case, cat, data, work)
    if isinstance(ours, str) and ours.startswith("skipped"):
        verdict, theirs = "not gradable", "-"
    else:
        spec = task_spec(cat, pair.competition) or {}
        answers = (data / "kaggle" / pair.competition.lower() / "private"
                   / spec["grading"].get("answers_file", "answers.csv"))
        theirs = _theirs_from_files(grade, work / f"{pair.competition.lower()}.csv", answers)
        on_files = TASK_DEPARTURES.get(pair.competition, {})
        if case.kind in on_files and not _same(ours, theirs):
            pair = replace(pair, departures={**pair.departures, **on_files})
            verdict = "departure"
        else:
            verdict = _verdict(pair, case, ours, theirs)
    return {"competition": pair.competition, "metric": pair.metric, "case": case.kind,
            "tambench": ours, "mlebench": theirs, "verdict": verdict,
            "reason": pair.departures.get(case.kind) if verdict.startswith("departure")
            else ours if verdict == "not gradable" else None}


def _stub_missing(names: list[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)


def run(root: Path, only: set[str] | None, seeds: int, mode: str) -> list[dict[str, Any]]:
    """Every case of every pair: ``metric`` calls the registered metric on the case's arrays;
    ``task`` grades the case's files through ``tambench grade --task`` on the specs
    ``tasks import mle-bench`` made (and runs the pairs only validation decides)."""
    sys.path.insert(0, str(root))
    _stub_missing(["py7zr"])
    rows = []
    chosen = pairs(root) + (task_pairs(_classes) if mode == "task" else [])
    with tempfile.TemporaryDirectory(prefix="parity-task-") as tmp:
        if mode == "task":
            import_catalogue(root, Path(tmp) / "catalogue")
        for pair in chosen:
            if only and pair.competition not in only:
                continue
            grade = load_grader(pair.competition)
            for seed in range(seeds):
                for case in pair.build(np.random.default_rng(seed)):
                    row = (compare_task(pair, grade, case, Path(tmp)) if mode == "task"
                           else compare(pair, grade, case))
                    rows.append({**row, "seed": seed, "mode": mode})
    return rows


KINDS = ("agree", "departure (reproduced)", "departure", "reference error", "not gradable",
         "disagree")


def _listing(rows: list[dict[str, Any]], title: str, keep: Callable[[dict[str, Any]], bool],
             field: str) -> None:
    """``- competition: text`` once per distinct pair of the rows ``keep`` selects."""
    found = sorted({(r["competition"], r[field]) for r in rows if keep(r)})
    if found:
        print(f"\n{title}")
        for comp, text in found:
            print(f"- {comp}: {text}")


def report(rows: list[dict[str, Any]]) -> None:
    by_comp: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_comp.setdefault(r["competition"], []).append(r)
    print(f"\n== mode {rows[0]['mode'] if rows else '-'}: {len(rows)} cases")
    print(f"{'competition':50} {'metric':28} {'cases':>5} {'agree':>5} {'dep+rep':>7} "
          f"{'dep':>4} {'ref.err':>7} {'n/a':>4} {'disagree':>8}  "
          f"(load avg {os.getloadavg()[0]:.2f})")
    for comp, rs in by_comp.items():
        n = [sum(1 for r in rs if r["verdict"] == v) for v in KINDS]
        print(f"{comp:50} {rs[0]['metric']:28} {len(rs):5} {n[0]:5} {n[1]:7} {n[2]:4} {n[3]:7} "
              f"{n[4]:4} {n[5]:8}")
    t = [sum(1 for r in rows if r["verdict"] == v) for v in KINDS]
    print(f"{'TOTAL':79} {len(rows):5} {t[0]:5} {t[1]:7} {t[2]:4} {t[3]:7} {t[4]:4} {t[5]:8}")
    _listing(rows, "Not gradable through the task with MLE-bench's answers as they are:",
             lambda r: r["verdict"] == "not gradable", "reason")
    _listing(rows, "Departures (MLE-bench differs from the published rule; tambench follows "
             "the rule):", lambda r: bool(r["reason"]) and r["verdict"].startswith("departure"),
             "reason")
    _listing(rows, "MLE-bench grader errors:", lambda r: r["verdict"] == "reference error",
             "mlebench")
    bad = [r for r in rows if r["verdict"] == "disagree"]
    if bad:
        print("\nDisagreements:")
        for r in bad:
            print(f"- {r['competition']} [{r['case']}, seed {r['seed']}]: tambench {r['tambench']}, "
                  f"MLE-bench {r['mlebench']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlebench", type=Path, required=True,
                        help="an MLE-bench checkout (the folder holding mlebench/)")
    parser.add_argument("--only", default="", help="comma-separated competition ids")
    parser.add_argument("--seeds", type=int, default=3, help="data seeds per competition")
    parser.add_argument("--json", type=Path, default=None, help="write every case here")
    parser.add_argument("--modes", default="metric,task",
                        help="metric: the registered metric on each case's arrays; task: the "
                             "case's files through `tambench grade --task` on the specs "
                             "`tasks import mle-bench` makes of the checkout (no flag given)")
    args = parser.parse_args()
    if not (args.mlebench / "mlebench" / "competitions").is_dir():
        parser.error(f"{args.mlebench} holds no mlebench/competitions/ folder")
    only = {c.strip() for c in args.only.split(",") if c.strip()} or None
    rows = []
    for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
        if mode not in ("metric", "task"):
            parser.error(f"--modes: unknown mode {mode!r} (metric, task)")
        found = run(args.mlebench.resolve(), only, args.seeds, mode)
        report(found)
        rows += found
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str) + "\n")
    return 1 if any(r["verdict"] == "disagree" for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
