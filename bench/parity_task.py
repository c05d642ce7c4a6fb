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
    if not isinstance(case.answers, pd.DataFrame):
        return "skipped: MLE-bench's answers are not a table (JSON lines of annotations)"
    slug = competition.lower()
    g = spec["grading"]
    missing = [c for c in [*g["id_columns"], *(g.get("answers_target_columns")
                                               or g["target_columns"])]
               if c not in case.answers.columns]
    if missing:
        return f"skipped: MLE-bench's answers lack the task's columns {missing} (another shape)"
    answers = data / "kaggle" / slug / "private" / g.get("answers_file", "answers.csv")
    answers.parent.mkdir(parents=True, exist_ok=True)
    case.answers.to_csv(answers, index=False)
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
    ]
