"""What the local site serves: competitions built from real texts, and bundled demo ones.

Two sources:

* :func:`load_description_competitions`: the competition texts of a folder of Markdown files
  (one per competition, ``# Overview`` then ``# Data``), split into the four pages a platform
  shows. Their leaderboards are synthetic (seeded), since the texts carry none.
* :func:`demo_competitions`: three competitions on real data shipped inside scikit-learn
  (breast cancer: binary, ROC AUC; wine: multiclass, accuracy; diabetes: regression, RMSE).
  Their private leaderboards are honest: simple scikit-learn models with different settings
  are trained on a seeded 80/20 split of the data and scored on the held-out 20%. Their data
  (``train.csv``, ``sample_submission.csv``) is downloadable from the site.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import random
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tambench.testing.fake_kaggle import FakeCompetition, FakeTeam

PAGE_KINDS = ("overview", "data", "evaluation", "rules")


@dataclass
class LeaderboardEntry:
    """One team on a site leaderboard."""

    team: str
    score: float
    entries: int
    last: str


@dataclass
class SiteCompetition:
    """One competition the site serves."""

    slug: str
    title: str
    pages: dict[str, str]
    """Page kind -> Markdown of that page."""
    higher_is_better: bool = True
    leaderboard_factory: Callable[[], list[LeaderboardEntry]] | None = None
    files: dict[str, Callable[[], bytes]] = field(default_factory=dict)
    """Downloadable file name -> function producing its bytes."""
    subtitle: str = ""
    """One line under the title."""
    category: str = "Featured"
    """Listing category (Kaggle style)."""
    metric_name: str = ""
    """The metric's name as the platform's API spells it."""
    file_notes: dict[str, str] = field(default_factory=dict)
    """Downloadable file name -> its one-line description."""
    tags: tuple[str, ...] = ()
    """Tags the overview shows (Kaggle style: a chip set)."""
    _leaderboard: list[LeaderboardEntry] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def page(self, kind: str, base: str) -> str:
        """The Markdown of one page, its download links pointing under ``base``."""
        return self.pages[kind].replace("{download_base}", base)

    def leaderboard(self) -> list[LeaderboardEntry]:
        """The private leaderboard, best first (computed once, whichever thread asks first)."""
        with self._lock:
            if self._leaderboard is None:
                self._leaderboard = (self.leaderboard_factory() if self.leaderboard_factory
                                     else [])
            return self._leaderboard


# --- competitions from real texts -----------------------------------------------------------

_RULES_HEADINGS = re.compile(
    r"timeline|prizes?|code requirements|code competition|rules|kernels? requirements", re.I
)
_EVAL_HEADINGS = re.compile(r"evaluation|submission (file|format|instructions)|metric", re.I)
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def _sections(md: str) -> list[tuple[int, str, list[str]]]:
    """(level, title, lines) for each heading; text before the first heading has level 0."""
    out: list[tuple[int, str, list[str]]] = [(0, "", [])]
    fence = False
    for line in md.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _HEADING.match(line)
        if m:
            out.append((len(m.group(1)), m.group(2).strip(), [line]))
        else:
            out[-1][2].append(line)
    return out


def split_description(md: str) -> dict[str, str]:
    """Split a competition text into overview, data, evaluation and rules pages.

    Top-level ``# Data`` / ``# Dataset Description`` sections form the data page; inside the
    rest, sections titled like evaluation or submission format (with their subsections) form
    the evaluation page, timeline/prizes/code requirements the rules page, everything else the
    overview.
    """
    pages: dict[str, list[str]] = {k: [] for k in PAGE_KINDS}
    top = "overview"
    owner: tuple[str, int] | None = None  # (kind, level) of the open evaluation/rules section
    for level, title, lines in _sections(md):
        if level == 1:
            top = "data" if re.search(r"data", title, re.I) else "overview"
            owner = None
            if top == "overview" and re.fullmatch(r"overview", title, re.I):
                continue  # the page itself is the overview; drop its redundant title
            pages[top].extend(lines)
            continue
        if top == "data":
            pages["data"].extend(lines)
            continue
        if owner is not None and level > owner[1]:
            pages[owner[0]].extend(lines)
            continue
        owner = None
        if level and _EVAL_HEADINGS.search(title):
            owner = ("evaluation", level)
        elif level and _RULES_HEADINGS.search(title):
            owner = ("rules", level)
        pages[owner[0] if owner else "overview"].extend(lines)
    out = {k: "\n".join(v).strip() + "\n" for k, v in pages.items()}
    if not out["rules"].strip():
        out["rules"] = "## Rules\n\nOne account per participant. No private sharing outside teams.\n"
    if not out["evaluation"].strip():
        out["evaluation"] = "## Evaluation\n\nSee the overview.\n"
    return out


def _title_of(slug: str) -> str:
    return " ".join(w.capitalize() for w in re.split(r"[-_]+", slug) if w)


def _synthetic_leaderboard(slug: str, seed: int, n: int) -> Callable[[], list[LeaderboardEntry]]:
    def build() -> list[LeaderboardEntry]:
        rng = random.Random(f"{seed}:{slug}")  # noqa: S311 - fixture data, not security
        best = rng.uniform(0.80, 0.99)
        scores = sorted((best - abs(rng.gauss(0, 0.08)) for _ in range(n)), reverse=True)
        start = date(2024, 3, 1)
        return [
            LeaderboardEntry(
                team=f"team-{rng.randrange(10**6):06d}",
                score=round(s, 5),
                entries=rng.randint(1, 120),
                last=(start + timedelta(days=rng.randint(0, 90))).isoformat(),
            )
            for s in scores
        ]

    return build


def load_description_competitions(folder: str | Path, *, seed: int = 0,
                                   teams: int = 120) -> list[SiteCompetition]:
    """One competition per ``*.md`` file of ``folder`` (sorted by name)."""
    comps = []
    for path in sorted(Path(folder).glob("*.md")):
        slug = path.stem
        text = path.read_text(encoding="utf-8")
        comps.append(SiteCompetition(
            slug=slug,
            title=_title_of(slug),
            pages=split_description(text),
            leaderboard_factory=_synthetic_leaderboard(slug, seed, teams),
            subtitle=f"A competition of the local site ({slug})",
        ))
    return comps


# --- demo competitions on scikit-learn's bundled data -------------------------------------


@dataclass(frozen=True)
class _DemoDef:
    slug: str
    title: str
    loader: str
    target: str
    task: str  # binary | multiclass | regression
    metric: str  # roc_auc | accuracy | rmse
    field: str
    blurb: str
    metric_name: str


_DEMOS = (
    _DemoDef(
        "breast-cancer-diagnosis", "Breast Cancer Diagnosis", "load_breast_cancer",
        "malignant", "binary", "roc_auc", "medicine",
        "Fine-needle aspirates of breast masses were digitised and 30 features of the cell "
        "nuclei were measured. Predict whether each mass is malignant.",
        "Area Under Receiver Operating Characteristic Curve",
    ),
    _DemoDef(
        "wine-cultivar-classification", "Wine Cultivar Classification", "load_wine",
        "cultivar", "multiclass", "accuracy", "food science",
        "A chemical analysis of wines grown in the same region of Italy by three different "
        "cultivators. Predict the cultivar of each wine from 13 measured constituents.",
        "Categorization Accuracy",
    ),
    _DemoDef(
        "diabetes-progression", "Diabetes Progression", "load_diabetes",
        "progression", "regression", "rmse", "medicine",
        "Ten baseline variables (age, sex, body mass index, average blood pressure and six "
        "blood serum measurements) were recorded for diabetes patients. Predict a quantitative "
        "measure of disease progression one year after baseline.",
        "Root Mean Squared Error",
    ),
)

DEMO_SLUGS = tuple(d.slug for d in _DEMOS)
#: The demo competitions, one per platform style, as ``acquire`` references.
DEMO_REFS = ("kaggle:breast-cancer-diagnosis", "aicrowd:wine-cultivar-classification",
             "biendata:diabetes-progression")


@lru_cache(maxsize=8)
def _load_frame(d: _DemoDef) -> tuple[list[str], np.ndarray, np.ndarray]:
    from sklearn import datasets

    bunch: Any = getattr(datasets, d.loader)()
    names = [re.sub(r"[^a-z0-9]+", "_", str(n).lower()).strip("_") for n in bunch.feature_names]
    x = np.asarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target)
    if d.loader == "load_breast_cancer":
        y = 1 - y  # scikit-learn codes malignant as 0; the competition predicts "malignant"
    return names, x, y


def _fmt(v: float) -> str:
    return repr(round(float(v), 6))


def _train_csv(d: _DemoDef) -> bytes:
    names, x, y = _load_frame(d)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", *names, d.target])
    # scikit-learn lists some datasets by class: number the rows in a seeded shuffle, or the
    # ids would give the labels away (the leakage audit refuses such a split)
    for i, row in enumerate(np.random.default_rng(0).permutation(len(y)).tolist()):
        target = _fmt(y[row]) if d.task == "regression" else str(int(y[row]))
        w.writerow([f"{d.slug[:3]}_{i:04d}", *(_fmt(v) for v in x[row]), target])
    return buf.getvalue().encode()


def _sample_submission(d: _DemoDef) -> bytes:
    _, _, y = _load_frame(d)
    default = {"binary": "0.5", "multiclass": "0", "regression": _fmt(float(np.mean(y)))}[d.task]
    lines = ["id," + d.target] + [f"{d.slug[:3]}_{i:04d},{default}" for i in range(0, 5)]
    return ("\n".join(lines) + "\n").encode()


def _baseline_models(task: str) -> list[tuple[str, Any]]:
    from sklearn.dummy import DummyClassifier, DummyRegressor
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    models: list[tuple[str, Any]] = []
    if task == "regression":
        models.append(("dummy-mean", DummyRegressor(strategy="mean")))
        models.append(("dummy-median", DummyRegressor(strategy="median")))
        for a in (0.01, 0.1, 1.0, 10.0, 100.0):
            models.append((f"ridge-a{a:g}", make_pipeline(StandardScaler(), Ridge(alpha=a))))
        for k in (1, 3, 5, 10, 20, 40):
            models.append((f"knn-k{k}", make_pipeline(StandardScaler(),
                                                      KNeighborsRegressor(n_neighbors=k))))
        for depth in (1, 2, 3, 4, 6, None):
            models.append((f"tree-d{depth}", DecisionTreeRegressor(max_depth=depth,
                                                                   random_state=0)))
        for n, s in ((10, 0), (25, 1), (50, 2)):
            models.append((f"forest-n{n}-s{s}", RandomForestRegressor(
                n_estimators=n, random_state=s, n_jobs=1)))
        return models
    models.append(("dummy-prior", DummyClassifier(strategy="prior")))
    models.append(("dummy-stratified", DummyClassifier(strategy="stratified", random_state=0)))
    models.append(("gaussian-nb", GaussianNB()))
    for c in (0.001, 0.01, 0.1, 1.0, 10.0):
        models.append((f"logreg-c{c:g}", make_pipeline(StandardScaler(),
                                                       LogisticRegression(C=c, max_iter=2000))))
    for k in (1, 3, 5, 15, 40):
        models.append((f"knn-k{k}", make_pipeline(StandardScaler(),
                                                  KNeighborsClassifier(n_neighbors=k))))
    for depth in (1, 2, 3, 5, None):
        models.append((f"tree-d{depth}", DecisionTreeClassifier(max_depth=depth,
                                                                 random_state=0)))
    for n, s in ((10, 0), (25, 1), (50, 2)):
        models.append((f"forest-n{n}-s{s}", RandomForestClassifier(
            n_estimators=n, random_state=s, n_jobs=1)))
    return models


def _score(d: _DemoDef, model: Any, x_te: np.ndarray, y_te: np.ndarray) -> float:
    from sklearn.metrics import accuracy_score, mean_squared_error, roc_auc_score

    if d.metric == "roc_auc":
        return float(roc_auc_score(y_te, model.predict_proba(x_te)[:, 1]))
    if d.metric == "accuracy":
        return float(accuracy_score(y_te, model.predict(x_te)))
    return float(math.sqrt(mean_squared_error(y_te, model.predict(x_te))))


def _baseline_leaderboard(d: _DemoDef, seed: int) -> Callable[[], list[LeaderboardEntry]]:
    def build() -> list[LeaderboardEntry]:
        from sklearn.model_selection import train_test_split

        _, x, y = _load_frame(d)
        strat = None if d.task == "regression" else y
        x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.2, random_state=seed,
                                                  stratify=strat)
        rng = random.Random(f"{seed}:{d.slug}")  # noqa: S311 - fixture data
        start = date(2024, 2, 1)
        rows = []
        for name, model in _baseline_models(d.task):
            model.fit(x_tr, y_tr)
            rows.append(LeaderboardEntry(
                team=f"baseline-{name}",
                score=round(_score(d, model, x_te, y_te), 6),
                entries=rng.randint(1, 25),
                last=(start + timedelta(days=rng.randint(0, 60))).isoformat(),
            ))
        higher = d.metric != "rmse"
        rows.sort(key=lambda r: (-r.score if higher else r.score, r.team))
        return rows

    return build


_METRIC_TEXT = {
    "roc_auc": (
        "Submissions are evaluated on the area under the ROC curve between the predicted "
        "probability and the observed target."
    ),
    "accuracy": (
        "Submissions are evaluated on their classification accuracy, the fraction of wines "
        "whose cultivar is predicted correctly."
    ),
    "rmse": (
        "Submissions are scored on the root mean squared error (RMSE) between the predicted "
        "and the observed progression:\n\n"
        "$$\\textrm{RMSE} = \\sqrt{\\frac{1}{n} \\sum_{i=1}^{n} (y_i - \\hat{y}_i)^2}$$"
    ),
}

_TASK_TAGS = {"binary": "Binary Classification", "multiclass": "Multiclass Classification",
              "regression": "Regression"}

_PREDICT_TEXT = {
    "binary": "a probability that the mass is malignant (`{t}` = 1)",
    "multiclass": "the cultivar (0, 1 or 2) in column `{t}`",
    "regression": "the disease progression in column `{t}`",
}


def _demo_pages(d: _DemoDef, base_path: str) -> dict[str, str]:
    names, x, y = _load_frame(d)
    sample = _sample_submission(d).decode().strip().splitlines()[:4]
    predict = _PREDICT_TEXT[d.task].format(t=d.target)
    overview = (
        f"## Description\n\n{d.blurb}\n\n"
        f"This is a {d.task} task on tabular data in the field of {d.field}.\n\n"
        "## Timeline\n\n- **Start Date** - January 15, 2024\n"
        "- **Final Submission Deadline** - April 15, 2024\n\n"
        "## Acknowledgements\n\nThe data is distributed with scikit-learn "
        f"(`sklearn.datasets.{d.loader}`).\n"
    )
    evaluation = (
        f"## Evaluation\n\n{_METRIC_TEXT[d.metric]}\n\n### Submission File\n\n"
        f"For each `id` in the test set, you must predict {predict}. The file should contain "
        "a header and have the following format:\n\n```\n" + "\n".join(sample) + "\n...\n```\n"
    )
    cols = ", ".join(f"`{n}`" for n in names[:6]) + (", ..." if len(names) > 6 else "")
    data = (
        "## Dataset Description\n\n"
        f"The data has {len(y)} rows and {len(names)} numeric features ({cols}).\n\n"
        "### Files\n\n"
        f"- **train.csv** - the training set; `id` identifies a row and `{d.target}` is the "
        "target ([download](" + f"{base_path}/download/train.csv" + "))\n"
        "- **sample_submission.csv** - a sample submission file in the correct format "
        "([download](" + f"{base_path}/download/sample_submission.csv" + "))\n\n"
        "### Columns\n\n| column | description |\n| --- | --- |\n"
        "| `id` | row identifier |\n"
        + "".join(f"| `{n}` | numeric feature |\n" for n in names)
        + f"| `{d.target}` | the target to predict |\n"
    )
    rules = (
        "## Rules\n\n1. One account per participant.\n"
        "2. External data is not allowed; use only the files provided.\n"
        "3. Submissions must be produced by code that runs without internet access.\n"
    )
    return {"overview": overview, "data": data, "evaluation": evaluation, "rules": rules}


def demo_competitions(*, seed: int = 0) -> list[SiteCompetition]:
    """The bundled demo competitions (data from scikit-learn), leaderboards computed lazily."""
    comps = []
    for d in _DEMOS:
        comps.append(SiteCompetition(
            slug=d.slug,
            title=d.title,
            pages=_demo_pages(d, "{download_base}"),
            higher_is_better=d.metric != "rmse",
            leaderboard_factory=_baseline_leaderboard(d, seed),
            files={
                "train.csv": functools.partial(_train_csv, d),
                "sample_submission.csv": functools.partial(_sample_submission, d),
            },
            subtitle=d.blurb.split(". ")[-1].rstrip("."),
            category="Playground",
            metric_name=d.metric_name,
            file_notes={"train.csv": "the training set, with the target",
                        "sample_submission.csv": "a sample submission in the correct format"},
            tags=("Tabular", _TASK_TAGS[d.task], d.field.title()),
        ))
    return comps


def as_fake_kaggle(comp: SiteCompetition) -> FakeCompetition:
    """The competition as the local fake of Kaggle's API knows it (same leaderboard)."""
    teams = [FakeTeam(team_id=10_000 + i, team_name=e.team, score=repr(e.score),
                      submitted=datetime.fromisoformat(e.last + "T12:00:00"))
             for i, e in enumerate(comp.leaderboard())]
    return FakeCompetition(
        slug=comp.slug, title=comp.title, category=comp.category,
        metric=comp.metric_name or "Custom Metric", tags=["tabular"], teams=teams,
        files={name: make() for name, make in comp.files.items()},
        file_descriptions=dict(comp.file_notes),
    )
