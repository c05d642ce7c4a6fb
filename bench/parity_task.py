"""The parity cases graded through ``tambench grade --task`` on imported MLE-bench specs.

``tasks import mle-bench`` reads the MLE-bench checkout into a temporary catalogue; each case's
answers are written where the task reads them (``<data>/kaggle/<slug>/private/<answers_file>``,
as MLE-bench's preparers write them: pandas' CSV) and its submission beside them, and the case
is graded with ``tambench grade SUB --task kaggle/<slug> --json``, with no convention flag: the
spec carries them. A case whose answers MLE-bench keeps in another shape than a table of rows
(one row per box, JSON lines) is listed as not gradable through the task, with the reason.

Cases only this mode can hold (validation, not the metric, decides them) are built here:
respelt labels, probability rows that do not sum to one, and quoted line breaks in text.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from parity_cases import Case, Pair, label_cases, text_cases

from tambench.cli.main import main

LOGLOSS_RESCALED = ("MLE-bench refuses rows of probabilities that do not sum to 1; Kaggle's "
                    "multi-class log loss rescales each row before scoring (the evaluation "
                    "pages say so), as tambench does")


EMPTY_AS_NAN = ("MLE-bench reads the file with pandas, which turns an empty run-length cell "
                "into NaN, and refuses it; an empty mask is a valid prediction of a fragment "
                "without ink (an empty cell, as RFC 4180 writes an empty string)")
#: Departures that only appear once MLE-bench reads the files (case kind -> reason).
TASK_DEPARTURES: dict[str, dict[str, str]] = {
    "vesuvius-challenge-ink-detection": {"empty-prediction": EMPTY_AS_NAN,
                                         "both-empty": EMPTY_AS_NAN},
}


def import_catalogue(mlebench: Path, catalogue: Path) -> None:
    """``tambench tasks import mle-bench`` into ``catalogue``, quietly."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["tasks", "import", "mle-bench", str(mlebench), "--catalogue",
                     str(catalogue), "--json"])
    if code not in (0, 3):
        raise SystemExit(f"tasks import mle-bench failed with exit code {code}")


def task_spec(catalogue: Path, competition: str) -> dict[str, Any] | None:
    path = catalogue / "kaggle" / competition.lower() / "task.json"
    return json.loads(path.read_text()) if path.is_file() else None


def grade_via_task(competition: str, case: Case, catalogue: Path, data: Path,
                   work: Path) -> float | str:
    """The case graded by ``tambench grade --task``: a score, ``refused: ...`` for an invalid
    submission, ``skipped: ...`` when the task cannot read MLE-bench's answers as they are."""
    spec = task_spec(catalogue, competition)
    if spec is None or spec.get("grading") is None:
        return "skipped: the imported task has no grading"
    slug = competition.lower()
    g = spec["grading"]
    answers = data / "kaggle" / slug / "private" / g.get("answers_file", "answers.csv")
    answers.parent.mkdir(parents=True, exist_ok=True)
    if not isinstance(case.answers, pd.DataFrame):  # JSON lines, read through an answers format
        if answers.suffix != ".jsonl":
            return "skipped: MLE-bench's answers are not a table"
        answers.write_text("".join(json.dumps(r) + "\n" for r in case.answers))
    else:
        missing = [c for c in [*g["id_columns"], *(g.get("answers_target_columns")
                                                   or g["target_columns"])]
                   if c not in case.answers.columns]
        if missing:
            return f"skipped: MLE-bench's answers lack the task's columns {missing} (another shape)"
        case.answers.to_csv(answers, index=False)
    for name, frame in case.aux.get("_public", {}).items():  # public files the spec reads
        (data / "kaggle" / slug / "public").mkdir(parents=True, exist_ok=True)
        frame.to_csv(data / "kaggle" / slug / "public" / name, index=False)
    sub = work / f"{slug}.csv"
    case.submission.to_csv(sub, index=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["grade", str(sub), "--task", f"kaggle/{slug}", "--catalogue", str(catalogue),
              "--data-dir", str(data), "--json"])
    doc = json.loads(out.getvalue())
    if "error" in doc:
        return f"error: {doc['error']['message'][:120]}"
    if not doc["valid_submission"]:
        return f"refused: {(doc['errors'] or ['?'])[0][:120]}"
    return float(doc["score"])


# --- cases only validation decides ------------------------------------------------------------


def respelt(build: Callable[[np.random.Generator], list[Case]],
            spell: Callable[[str], Any]) -> Callable[[np.random.Generator], list[Case]]:
    """The perfect and partial cases of ``build`` with the submission's labels respelt."""

    def cases(rng: np.random.Generator) -> list[Case]:
        out = []
        for c in build(rng):
            if c.kind not in ("perfect", "partial"):
                continue
            sub = c.submission.copy()
            target = sub.columns[1]
            sub[target] = [spell(str(v)) for v in sub[target].astype(str)]
            out.append(Case(f"respelt-{c.kind}", c.y_true, c.y_pred, sub, c.answers, c.aux))
        return out

    return cases


def _bool_digit(v: str) -> int:
    return 1 if v == "True" else 0


def _as_float(v: str) -> float:
    return float(v)


def probability_rows(id_col: str, classes: list[str], *, counts: bool
                     ) -> Callable[[np.random.Generator], list[Case]]:
    """Rows that sum to 1, rows off by 10%, rows off by 1e-7 (within every tolerance)."""

    def build(rng: np.random.Generator) -> list[Case]:
        n, k = 120, len(classes)
        ids = list(range(1000, 1000 + n))
        truth = rng.integers(0, 6, (n, k)).astype(float) if counts else \
            np.eye(k)[rng.integers(0, k, n)]
        truth[truth.sum(axis=1) == 0, 0] = 1.0
        p = rng.random((n, k)) + 0.05
        p /= p.sum(axis=1, keepdims=True)
        off = p.copy()
        off[::7] *= 1.1
        near = p.copy()
        near[:, 0] += 1e-7

        def frame(m: np.ndarray) -> pd.DataFrame:
            return pd.DataFrame({id_col: ids, **{c: m[:, j] for j, c in enumerate(classes)}})

        return [Case(kind, truth, m, frame(m), frame(truth))
                for kind, m in (("rows-sum-to-1", p), ("rows-off-by-10%", off),
                                ("rows-off-by-1e-7", near))]

    return build


def _multiline(rng: np.random.Generator) -> str:
    words = ["the", "cat", "sat", "on", "a", "mat", ",", '"', "."]
    first = " ".join(rng.choice(words, int(rng.integers(2, 6))))
    return first + ("\n" + " ".join(rng.choice(words, 3)) if rng.random() < 0.3 else "")


def task_pairs(classes: Callable[[str], list[str]]) -> list[Pair]:
    """Pairs graded through the task only (their verdicts rest on validation)."""
    spaceship = label_cases("PassengerId", "Transported", ["True", "False"])
    essays = label_cases("essay_id", "score", [str(i) for i in range(1, 7)], numeric=True)
    aptos = label_cases("id_code", "diagnosis", [str(i) for i in range(5)], numeric=True)
    hms = ["seizure_vote", "lpd_vote", "gpd_vote", "lrda_vote", "grda_vote", "other_vote"]
    return [
        Pair("spaceship-titanic", "accuracy", respelt(spaceship, _bool_digit)),
        Pair("learning-agency-lab-automated-essay-scoring-2", "qwk", respelt(essays, _as_float)),
        Pair("aptos2019-blindness-detection", "qwk", respelt(aptos, _as_float)),
        Pair("hms-harmful-brain-activity-classification", "kl_divergence",
             probability_rows("eeg_id", hms, counts=True)),
        Pair("leaf-classification", "multiclass_log_loss",
             probability_rows("id", classes("leaf-classification"), counts=False), {},
             {"rows-off-by-10%": LOGLOSS_RESCALED}),
        Pair("spooky-author-identification", "multiclass_log_loss",
             probability_rows("id", ["EAP", "HPL", "MWS"], counts=False), {},
             {"rows-off-by-10%": LOGLOSS_RESCALED}),
        Pair("billion-word-imputation", "levenshtein_mean",
             text_cases("id", "sentence", _multiline)),
        *CONVENTION_PAIRS,
    ]


# --- conventions the imported spec must carry ---------------------------------------------------


def _cases(kinds: dict[str, tuple[pd.DataFrame, pd.DataFrame]],
           public: dict[str, pd.DataFrame] | None = None) -> list[Case]:
    aux = {"_public": public} if public else {}
    return [Case(k, None, None, sub, ans, dict(aux)) for k, (sub, ans) in kinds.items()]


def jigsaw_toxic(rng: np.random.Generator) -> list[Case]:
    """Rows of -1 labels (not used for scoring) among the answers."""
    classes = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]
    n = 300
    ids = [f"{i:016x}" for i in range(n)]
    y = (rng.random((n, 6)) < 0.3).astype(int)
    y[:, 0] = np.r_[0, 1, rng.integers(0, 2, n - 2)]
    y[rng.random(n) < 0.3] = -1
    ans = pd.DataFrame({"id": ids, **{c: y[:, j] for j, c in enumerate(classes)}})
    scored = np.clip(y, 0, 1).astype(float)

    def sub(m: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"id": ids, **{c: m[:, j] for j, c in enumerate(classes)}})

    wild = scored.copy()
    wild[y[:, 0] == -1] = 1 - wild[y[:, 0] == -1]  # unscored rows wrong: no effect
    return _cases({"perfect": (sub(scored), ans), "random": (sub(rng.random((n, 6)).round(3)), ans),
                   "unscored-rows-wrong": (sub(wild), ans),
                   "partial": (sub(np.clip(scored + rng.normal(0, 0.4, (n, 6)), 0, 1).round(3)),
                               ans)})


def ventilator(rng: np.random.Generator) -> list[Case]:
    """Only the inspiratory phase (u_out = 0) is scored."""
    n = 400
    ids = np.arange(1, n + 1)
    u_out = (np.arange(n) % 80 >= 30).astype(int)
    pressure = rng.normal(15, 5, n).round(6)
    ans = pd.DataFrame({"id": ids, "breath_id": ids // 80, "pressure": pressure, "u_out": u_out})
    wild = np.where(u_out == 1, pressure + 100, pressure)

    def sub(p: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"id": ids, "pressure": p})

    return _cases({"perfect": (sub(pressure), ans), "expiration-wrong": (sub(wild), ans),
                   "partial": (sub(pressure + rng.normal(0, 1, n)), ans),
                   "random": (sub(rng.normal(15, 5, n)), ans)})


def osic(rng: np.random.Generator) -> list[Case]:
    """Blank FVC in the unmeasured weeks; the last three measured weeks of each patient."""
    rows = []
    for p in range(12):
        measured = set(rng.choice(np.arange(-5, 40), int(rng.integers(2, 7)), replace=False))
        for w in range(-5, 40):
            fvc = float(rng.integers(1500, 4000)) if w in measured else np.nan
            rows.append({"Patient": f"ID{p:05d}", "Weeks": w, "FVC": fvc,
                         "Patient_Week": f"ID{p:05d}_{w}", "Confidence": 100})
    ans = pd.DataFrame(rows)
    truth = ans["FVC"].fillna(2000.0).to_numpy()

    def sub(fvc: np.ndarray, conf: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"Patient_Week": ans["Patient_Week"], "FVC": fvc, "Confidence": conf})

    n = len(ans)
    return _cases({"perfect": (sub(truth, np.full(n, 70.0)), ans),
                   "partial": (sub(truth + rng.normal(0, 150, n), rng.uniform(60, 300, n)), ans),
                   "constant": (sub(np.full(n, 2500.0), np.full(n, 200.0)), ans)})


def contrails(rng: np.random.Generator) -> list[Case]:
    """'-' is an empty mask in the answers and in submissions."""
    from parity_cases import rle

    h = w = 16
    ids, truth, near = [], [], []
    for i in range(40):
        m = np.zeros(h * w, dtype=bool)
        if rng.random() < 0.6:
            s = int(rng.integers(0, h * w - 20))
            m[s : s + int(rng.integers(3, 20))] = True
        ids.append(str(1000 + i))
        truth.append(rle(m) or "-")
        shifted = np.roll(m, int(rng.integers(-2, 3)))
        near.append(rle(shifted) or "-")
    ans = pd.DataFrame({"record_id": ids, "encoded_pixels": truth, "height": h, "width": w})

    def sub(cells: list[str]) -> pd.DataFrame:
        return pd.DataFrame({"record_id": ids, "encoded_pixels": cells})

    return _cases({"perfect": (sub(truth), ans), "partial": (sub(near), ans),
                   "all-empty": (sub(["-"] * len(ids)), ans)})


def h_and_m(rng: np.random.Generator) -> list[Case]:
    """Every customer listed (the public sample's), only buyers scored."""
    customers = [f"{i:064x}" for i in range(200)]
    buyers = sorted(rng.choice(customers, 60, replace=False))
    items = [f"0{int(x):09d}" for x in rng.integers(10**8, 10**9, 40)]
    truth = {c: " ".join(rng.choice(items, int(rng.integers(1, 5)), replace=False)) for c in buyers}
    ans = pd.DataFrame({"customer_id": buyers, "prediction": [truth[c] for c in buyers]})
    sample = pd.DataFrame({"customer_id": customers, "prediction": " ".join(items[:12])})

    def sub(guess: Callable[[str], str]) -> pd.DataFrame:
        return pd.DataFrame({"customer_id": customers, "prediction": [guess(c) for c in customers]})

    popular = " ".join(items[:12])
    return _cases({"perfect": (sub(lambda c: truth.get(c, popular)), ans),
                   "popular": (sub(lambda c: popular), ans),
                   "random": (sub(lambda c: " ".join(rng.choice(items, 12, replace=False))), ans)},
                  {"sample_submission.csv": sample})


def stanford_covid(rng: np.random.Generator) -> list[Case]:
    """Three scored targets of five, at the positions `keep` marks."""
    targets = ["reactivity", "deg_Mg_pH10", "deg_pH10", "deg_Mg_50C", "deg_50C"]
    ids = [f"id_{s:05x}_{p}" for s in range(10) for p in range(40)]
    n = len(ids)
    t = rng.normal(0.5, 0.3, (n, 5)).round(10)
    keep = np.array([int(i.rsplit("_", 1)[1]) < 25 for i in ids])
    ans = pd.DataFrame({"id_seqpos": ids, **{c: t[:, j] for j, c in enumerate(targets)
                                             if c in ("reactivity", "deg_Mg_pH10", "deg_Mg_50C")},
                        "keep": keep})

    def sub(m: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({"id_seqpos": ids, **{c: m[:, j] for j, c in enumerate(targets)}})

    wild = t.copy()
    wild[~keep] += 5
    return _cases({"perfect": (sub(t), ans), "unkept-wrong": (sub(wild), ans),
                   "partial": (sub(t + rng.normal(0, 0.1, t.shape)), ans)})


CONVENTION_PAIRS = [
    Pair("jigsaw-toxic-comment-classification-challenge", "roc_auc_columnwise", jigsaw_toxic),
    Pair("ventilator-pressure-prediction", "mae", ventilator),
    Pair("osic-pulmonary-fibrosis-progression", "laplace_log_likelihood", osic),
    Pair("google-research-identify-contrails-reduce-global-warming", "global_dice", contrails),
    Pair("h-and-m-personalized-fashion-recommendations", "map_at_k", h_and_m),
    Pair("stanford-covid-vaccine", "mcrmse", stanford_covid),
]
