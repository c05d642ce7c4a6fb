"""Small trees in MLE-Dojo's and dslighting's real layouts, built at test time.

Folder layout, file names and CSV formats are the real trees' (MLE-Dojo at commit
667a8fd0e959eb47f140ce7e621f831fdb55e5dd, dslighting at d7b360545191900b5ab04eed64c3cf723fece8c2).
The leaderboard rows are short real excerpts, each constant naming the file it comes from.
The descriptions, graders (``metric.py``, ``grade.py``) and ``prepare.py`` files are written
here in the same shape; every Python file of a tree starts with code that leaves a
``CANARY_RAN`` file beside it if it is ever executed.
"""

from __future__ import annotations

import json
from pathlib import Path

CANARY = """import pathlib
pathlib.Path(__file__).with_name("CANARY_RAN").write_text("code from the imported tree ran")
"""

# --- real leaderboard excerpts (first five rows, rank,score as MLE-Dojo ships them) --------
#: mledojo/competitions/spaceship-titanic/info/private_leaderboard.csv (public is the same)
TITANIC_BOARD = "rank,score\n1,1.0\n2,0.96305\n3,0.82183\n4,0.8209\n5,0.82066\n"
#: mledojo/competitions/new-york-city-taxi-fare-prediction/info/private_leaderboard.csv
TAXI_BOARD = "rank,score\n1,1.38506\n2,1.60451\n3,2.07148\n4,2.59631\n5,2.77684\n"
#: mledojo/competitions/home-data-for-ml-course/info/private_leaderboard.csv
HOUSES_BOARD = ("rank,score\n1,5585.2858\n2,7469.51111\n3,11579.70233\n4,11602.83534\n"
                "5,11602.83535\n")
#: mledojo/competitions/inaturalist-2019-fgvc6/info/{private,public}_leaderboard.csv
SPECIES_PRIVATE = "rank,score\n1,0.10342\n2,0.11298\n3,0.12696\n4,0.13121\n5,0.13423\n"
SPECIES_PUBLIC = "rank,score\n1,0.10267\n2,0.11315\n3,0.12678\n4,0.13468\n5,0.13703\n"
#: dslighting/registry/aerial-cactus-identification/leaderboard.csv (Kaggle's export)
CACTUS_BOARD = ("scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore\n"
                "1.0000,2869568,True,2019-03-09 09:13:10,1.0000,True\n"
                "1.0000,2876647,True,2019-03-10 22:13:30,1.0000,True\n")
#: dslighting/registry/bike-sharing-demand/leaderboard.csv (invented: midnight, 1 day apart)
INVENTED_BOARD = ("scoreNullable,teamId,hasTeamName,submissionDate,score,hasScore\n"
                  "0.307826,123456,True,2021-01-01 00:00:00,0.307826,True\n"
                  "0.327519,234567,True,2021-01-02 00:00:00,0.327519,True\n")


def _grader(body: str, value: str, higher: bool, extra: str = "") -> str:
    return (CANARY + "import numpy as np\nimport pandas as pd\n"
            "from mledojo.metrics.base import CompetitionMetrics\n" + extra +
            "\n\nclass FixtureMetrics(CompetitionMetrics):\n"
            f"    def __init__(self, value: str = {value!r}, higher_is_better: bool = {higher}):\n"
            "        super().__init__(higher_is_better)\n        self.value = value\n\n"
            "    def evaluate(self, y_true: pd.DataFrame, y_pred: pd.DataFrame) -> float:\n"
            "        y_true = y_true.sort_values(by=y_true.columns[0]).reset_index(drop=True)\n"
            "        y_pred = y_pred.sort_values(by=y_pred.columns[0]).reset_index(drop=True)\n"
            + body)


def _description(title: str, evaluation: str, submission: str) -> str:
    return (f"Description\n\n{title} asks for predictions on held-out rows.\n\n"
            f"Evaluation\n\n{evaluation}\n\nSubmission File\n\n{submission}\n\n"
            "Dataset Description\n\ntrain.csv - the training rows\ntest.csv - the rows to "
            "predict\n")


#: slug -> (description, metric.py, prepare.py, private board, public board, Kaggle tags)
DOJO: dict[str, tuple[str, str, str, str, str, list[str]]] = {
    # all three witnesses agree
    "spaceship-titanic": (
        _description("Spaceship Titanic", "Submissions are evaluated on their classification "
                     "accuracy, the share of predicted labels that are correct.",
                     "The file has a header and this format:\n```\nPassengerId,Transported\n"
                     "0013_01,False\n0018_01,True\n```"),
        _grader("        return accuracy_score(y_true[self.value], y_pred[self.value])\n",
                "Transported", True, "from sklearn.metrics import accuracy_score\n"),
        CANARY, TITANIC_BOARD, TITANIC_BOARD, ["Tabular", "Binary Classification",
                                               "Categorization Accuracy"]),
    # metric.py departs (MSE) from the published rule (RMSE): the rule is taken
    "new-york-city-taxi-fare-prediction": (
        _description("Taxi fares", "Submissions are evaluated on the root mean squared error "
                     "(RMSE) between the predicted and the actual fares.",
                     "```\nkey,fare_amount\n2015-01-27 13:08:24.0000002,11.00\n```"),
        _grader("        return mean_squared_error(y_true[self.value], y_pred[self.value])\n",
                "fare_amount", False, "from sklearn.metrics import mean_squared_error\n"),
        CANARY, TAXI_BOARD, TAXI_BOARD, ["Tabular", "Regression", "Root Mean Squared Error"]),
    # three readings, no two agree: nothing is chosen
    "home-data-for-ml-course": (
        _description("House prices", "Submissions are evaluated on the root mean squared "
                     "logarithmic error (RMSLE) of the predicted sale prices.",
                     "```\nId,SalePrice\n1461,169000.1\n```"),
        _grader("        d = y_pred[self.value] - y_true[self.value]\n"
                "        return np.sqrt(np.mean(d ** 2))\n", "SalePrice", False),
        CANARY, HOUSES_BOARD, HOUSES_BOARD, ["Tabular", "Mean Absolute Error"]),
    # the description names no metric; metric.py and Kaggle's name agree; columns from
    # the sample submission prepare.py writes
    "inaturalist-2019-fgvc6": (
        _description("Species", "Your predictions are compared with the species of each "
                     "image.", "Predict one species per image."),
        _grader("        first = y_pred[self.value].apply(lambda s: str(s).split()[0])\n"
                "        return (first != y_true[self.value].astype(str)).mean()\n",
                "predicted", False),
        CANARY + "import pandas as pd\n\n\ndef prepare(raw, public, private):\n"
        "    test = pd.read_csv(raw / \"test.csv\")\n"
        "    sample_submission = pd.DataFrame({\"id\": test[\"id\"], \"predicted\": 0})\n"
        "    sample_submission.to_csv(public / \"sample_submission.csv\", index=False)\n",
        SPECIES_PRIVATE, SPECIES_PUBLIC, ["Image", "Multiclass Classification",
                                          "MeanBestErrorAtK"]),
    # the description and metric.py disagree and Kaggle names no metric: a conflict
    "tabular-fixture-conflict": (
        _description("A fixture", "Submissions are scored on the mean absolute error.",
                     "```\nid,target\n1,0.5\n```"),
        _grader("        return r2_score(y_true[self.value], y_pred[self.value])\n", "target",
                True, "from sklearn.metrics import r2_score\n"),
        CANARY, TAXI_BOARD, "", ["Tabular", "Custom Metric"]),
}


def build_dojo(root: Path) -> Path:
    """MLE-Dojo's repository layout with :data:`DOJO` and one unreadable folder."""
    comps = root / "mledojo" / "competitions"
    tags = {}
    for slug, (desc, metric, prepare, private, public, slug_tags) in DOJO.items():
        folder = comps / slug
        (folder / "info").mkdir(parents=True)
        (folder / "utils").mkdir()
        (folder / "info" / "description.txt").write_text(desc, encoding="utf-8")
        (folder / "utils" / "metric.py").write_text(metric, encoding="utf-8")
        (folder / "utils" / "prepare.py").write_text(prepare, encoding="utf-8")
        (folder / "info" / "private_leaderboard.csv").write_text(private, encoding="utf-8")
        if public:
            (folder / "info" / "public_leaderboard.csv").write_text(public, encoding="utf-8")
        tags[slug] = {"title": slug.replace("-", " ").title(), "tags": slug_tags,
                      "href": f"https://www.kaggle.com/competitions/{slug}"}
    broken = comps / "latin1-description"
    (broken / "info").mkdir(parents=True)
    (broken / "info" / "description.txt").write_bytes("Caf\xe9 scores".encode("latin-1"))
    (comps / "__init__.py").write_text(CANARY, encoding="utf-8")
    (comps / "registry.py").write_text(CANARY, encoding="utf-8")
    (root / "prepare").mkdir()
    (root / "prepare" / "mle.json").write_text(json.dumps(tags, indent=1), encoding="utf-8")
    (root / "prepare" / "dsbench.json").write_text("{}", encoding="utf-8")
    return root


def no_canary(root: Path) -> bool:
    return not any(root.rglob("CANARY_RAN"))


# --- dslighting's registry -----------------------------------------------------------------

def _dsl_config(cid: str, grader: str | None, extra: str = "") -> str:
    text = (f"id: {cid}\nname: {cid.replace('-', ' ').title()}\ncompetition_type: simple\n"
            f"awards_medals: false\nprizes: null\ndescription: description.md\n{extra}"
            f"dataset:\n  answers: {cid}/prepared/private/test.csv\n"
            f"  sample_submission: {cid}/prepared/public/sample_submission.csv\n")
    if grader is not None:
        text += f"grader:\n  name: {grader}\n  grade_fn: grade:grade\n"
    return text + f"preparer: mlebench.competitions.{cid}.prepare:prepare\n"


CACTUS_DESCRIPTION = """# Aerial Cactus Identification

Tell from each 32 x 32 aerial image (a jpg photo) whether it shows a columnar cactus; the images are in train/ and test/.

## Evaluation

Submissions are evaluated on area under the ROC curve between the predicted probability and
the observed target.

## Submission File

```
id,has_cactus
000940378805c44108d287872b2f04ce.jpg,0.5
```
"""
BIKES_DESCRIPTION = """# Bike Sharing Demand

Predict hourly bike rentals from a tabular dataset of dates and weather.

## Evaluation

Submissions are evaluated on the Root Mean Squared Logarithmic Error (RMSLE).

## Submission Format

```
datetime,count
2011-01-20 00:00:00,0
```
"""
DABENCH_DESCRIPTION = """# DABench Task 7 - Compute the median age.

## Submission Format

Submit a single-row CSV with columns `id,answer`.

## Evaluation

Submissions are evaluated on **exact match** with the ground truth answer.
"""
SERIES_DESCRIPTION = """# Handwriting Time Series Classification

You are solving a time series classification task on tabular sensor readings.

## Evaluation

Submissions are evaluated on accuracy.

## Submission Format

```
id,label
0,3
```
"""
REGISTRY_README = """# Registry

#### 1. DSAgentBench datasets (time series)

| id | name | metric |
|----|------|--------|
| handwriting | Handwriting Time Series Classification | Accuracy |

#### 2. DABench datasets
"""


def build_dslighting(root: Path) -> Path:
    """dslighting's repository layout: a Kaggle competition with its real board, one with an
    invented board, a DABench task, a README-listed dataset, a helper folder, a bad config."""
    reg = root / "dslighting" / "registry"
    specs = {
        "aerial-cactus-identification": ("auc-roc", CACTUS_DESCRIPTION, CACTUS_BOARD, ""),
        "bike-sharing-demand": ("rmsle", BIKES_DESCRIPTION, INVENTED_BOARD,
                                "task_type: kaggle\n"),
        "dabench-7-median-age": ("exact_match", DABENCH_DESCRIPTION, INVENTED_BOARD, ""),
        "handwriting": ("accuracy", SERIES_DESCRIPTION, "", ""),
    }
    for cid, (grader, desc, board, extra) in specs.items():
        folder = reg / cid
        folder.mkdir(parents=True)
        (folder / "config.yaml").write_text(_dsl_config(cid, grader, extra), encoding="utf-8")
        (folder / "description.md").write_text(desc, encoding="utf-8")
        if board:
            (folder / "leaderboard.csv").write_text(board, encoding="utf-8")
        for script in ("grade.py", "prepare.py"):
            (folder / script).write_text(CANARY, encoding="utf-8")
    helper = reg / "instant_gratification"
    helper.mkdir()
    (helper / "grade.py").write_text(CANARY, encoding="utf-8")
    bad = reg / "broken-config"
    bad.mkdir()
    (bad / "config.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    (bad / "description.md").write_text("# Broken\n", encoding="utf-8")
    (reg / "README.md").write_text(REGISTRY_README, encoding="utf-8")
    (reg / "__init__.py").write_text(CANARY, encoding="utf-8")
    return root
