"""Every real page the extraction tests read, with what its Markdown must hold.

Pages live in ``../shared/data/real-pages`` (provenance in its README) and in
``tests/data/real-pages`` (provenance in that folder's README). Each entry names the platform
and page kind whose region the adapter path uses, the title both paths must show as a heading
(None for a fragment or an empty application shell), text both paths must keep, and the tags
the page shows (each must come out as a separate item). A page of a platform the project has
no adapter for (CodaLab: its pages are the organisers' HTML that the platform shows inside its
tabs) goes through the generic path only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tambench.acquisition.markdown import extract_markdown
from tambench.acquisition.pipeline import page_markdown
from tambench.acquisition.platforms import PLATFORMS, PageSpec, get_adapter

DATA = Path(__file__).resolve().parents[1] / "data"
LOCAL = DATA / "real-pages"


@dataclass(frozen=True)
class RealPage:
    """One saved page and what its Markdown must hold."""

    file: str
    platform: str
    kind: str
    title: str | None
    phrases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def paths(self) -> tuple[str, ...]:
        """The extraction paths the page goes through."""
        return ("adapter", "generic") if self.platform in PLATFORMS else ("generic",)

    @property
    def stem(self) -> str:
        return Path(self.file).stem

    def path(self, shared_dir: Path) -> Path:
        local = LOCAL / self.file
        return local if local.exists() else shared_dir / "data" / "real-pages" / self.file

    def html(self, shared_dir: Path) -> str:
        return self.path(shared_dir).read_text(encoding="utf-8")


PAGES: tuple[RealPage, ...] = (
    RealPage("kaggle/k_titanic_data_2017.html", "kaggle", "data",
             "Titanic: Machine Learning from Disaster", (
                 "training set (train.csv)", "We also include **gender_submission.csv**",
                 "### Data Dictionary", "| survival | Survival | 0 = No, 1 = Yes |",
                 "| embarked | Port of Embarkation |")),
    RealPage("kaggle/k_predictfuturesales_2019.html", "kaggle", "data", "Predict Future Sales", (
        "## File descriptions", "**sales_train.csv** - the training set. Daily historical data",
        "**sample_submission.csv** - a sample submission file in the correct format.",
        "**item_categories.csv**", "**item_cnt_day** - number of products sold")),
    RealPage("kaggle/k_nyctaxi.html", "kaggle", "data", "New York City Taxi Fare Prediction", (
        "# File descriptions", "**train.csv** - Input features and target `fare_amount` values",
        "**sample_submission.csv** - a sample submission file in the correct format",
        "`timestamp` value indicating when the taxi ride started", "## Target")),
    RealPage("kaggle/k_houseprices.html", "kaggle", "overview",
             "House Prices - Advanced Regression Techniques", (
                 "## Predict sales prices and practice feature engineering", "5,405 teams",
                 "0.18025")),
    RealPage("kaggle/k_storesales_2023.html", "kaggle", "overview",
             "Store Sales - Time Series Forecasting", (
                 "Use machine learning to predict grocery sales",
                 "### Best of Kaggle Notebooks #2 - Time Series", "728 teams")),
    RealPage("kaggle/k_titanic_submissions_2024.html", "kaggle", "overview",
             "Titanic - Machine Learning from Disaster", (
                 "Start here! Predict survival on the Titanic", "## Submissions", "0.76555")),
    RealPage("kaggle_rules_2015.html", "kaggle", "rules", "First Steps With Julia", (
        "# Competition Rules", "### One account per participant",
        "You may submit a maximum of 5 entries per day.", "End Date: **12/31/2015")),
    RealPage("kaggle/k_banana_writeups_raw_2025.html", "kaggle", "overview", None),
    RealPage("kaggle/k_leaderboard_2022_fragment.html", "kaggle", "leaderboard", None, (
        "#, Team, Members, Score, Entries, Last, Code", "1, no name", "1.00000")),
    RealPage("aicrowd/aicrowd_leaderboard_TEMPLATE_DERIVED.html", "aicrowd", "leaderboard",
             None, ("| Participants | Primary Score |", "[alice](/participants/alice)",
                    "Baseline random")),
    # CodaLab: the organisers' pages of real competitions, as the platform shows them in its tabs
    RealPage("codalab/clinicaltempeval2017_overview.html", "codalab", "overview", None, (
        "### New in 2017", "### Subtasks", "- TS: identifying the spans of time expressions",
        "  - docTimeRel=BEFORE, OVERLAP, BEFORE-OVERLAP or AFTER",
        "> April 23, 2014: The patient did not have any postoperative bleeding")),
    RealPage("codalab/clinicaltempeval2017_data.html", "codalab", "data", None, (
        "### Data Use Agreements", "### Releases of Annotations",
        "***Please apply for a data use agreement as soon as possible! The process may take "
        "some time.***",
        "The Clinical TempEval data is in [Anafora](https://github.com/weitechen/anafora) format.",
        "1. Annotators identified time and event expressions")),
    RealPage("codalab/clinicaltempeval2017_evaluation.html", "codalab", "evaluation", None, (
        "- TS, ES: precision, recall and F1", "1. Trial phase (identical to Clinical TempEval 2016):",
        "     - raw text from the train and dev sections of the source domain (colon cancer)",
        "### System Output Format",
        "- ID004_clinic_010\n  - ID004_clinic_010.Temporal-Relation.system.completed.xml")),
    RealPage("codalab/hateval2019_overview.html", "codalab", "overview",
             "Multilingual detection of hate speech against immigrants and women in Twitter "
             "(hatEval)", (
                 "## Important dates", "- January 10 2019: Evaluation begins",
                 "- **TASK A - Hate Speech Detection against Immigrants and Women:** a two-class",
                 "- Paolo Rosso\n  *prosso@dsic.upv.es*\n  Universidad Politecnica de Valencia")),
    RealPage("codalab/hateval2019_terms.html", "codalab", "rules", None, (
        "## Terms and conditions", "consent to the public release of your scores at the "
        "SemEval-2019 workshop", "You agree not to redistribute the test data except in the "
        "manner prescribed by its licence.")),
    RealPage("codalab/autodl2019_overview.html", "codalab", "overview", None, (
        "### Automated Deep Learning without ANY human intervention",
        "This is AutoDL challenge: the final challenge in [2019 AutoDL challenges series]"
        "(http://autodl.chalearn.org/)",
        "The final blind testing is scheduled to start Feb 14, 2020.")),
    RealPage("codalab/autodl2019_data.html", "codalab", "data", None, (
        "## Specification for text datasets", "| # | Name | num_train | num_test |",
        "| 1 | Munster | Image | HWR | 18 MB | [MNIST](http://yann.lecun.com/exdb/mnist/) |",
        "```\ncd autodl_starting_kit_stable\npython download_public_datasets.py\n```")),
    RealPage("codalab/autodl2019_evaluation.html", "codalab", "evaluation", None, (
        "## Competition protocol", "## Metrics",
        "All problems are **multi-label classification** problems.", "\n\n2 * AUC - 1\n\n",
        "# For each dataset, our evaluation program calls the model constructor\n# IMPORTANT:",
        "the **Area under Learning Curve (ALC)**")),
    RealPage("codalab/tass2018_task3_evaluation.html", "codalab", "evaluation", None, (
        "### Scenario 1: Only plain text is given (Subtasks A, B, C).",
        "plain text files input_<topic>.txt for a particular list of topics",
        "Besides this aggregated F1 score, individual F1 scores for each of the subtasks will "
        "also be reported.")),
    RealPage("codalab/alcon2019_data.html", "codalab", "data", None, (
        "# Dataset", "- csv files\n  - dataset/test/annotations.csv: a blank file",
        "\n\n  The first line is the header.", "  ```\n  ID,Unicode1,Unicode2,Unicode3\n",
        "- image files\n  - dataset/test/imgs/", "- starter kit\n  main.py and files")),
    RealPage("codalab/alcon2019_evaluation_jp.html", "codalab", "evaluation", None, (
        "# 評価と提出", "## 評価基準", "1. test-devフェーズ：テストセット中の最初の3000サンプルだけが評価されて，",
        '提出csvファイル名は"test_prediction.csv"でなければなりません．',
        "$ unzip -l yoursubmission.zip")),
    RealPage("codalab/smarts2022_rules.html", "codalab", "rules", None, (
        "## Competition Rules", "11. Prize Allocation:\n    - 1st Place: $6,000",
        "13. Upon being awarded a prize:\n    1. The prize winner must agree",
        "14. If a team wins a monetary prize")),
)

#: Navigation, chrome, consent and icon-font text the real pages hold outside their content.
NOISE = ("Skip to content", "Your Work", "Recently Viewed", "Recently Edited", "Bookmarks",
         "Active Events", "New Notebook", "emoji_events", "arrow_drop_down", "expand_more",
         "table_chart", "more_horiz", "check_circle", "open_in_new", "auto_awesome_motion",
         "note_alt", "I Understand and Accept", "You reached the end of the data",
         "About this file", "Data Sources", "Logout", "Forum (18 topics)", "Claim your personal",
         "uses cookies", "Got it", "Accept all cookies", "Challenges](/challenges)")
ICON_LINE = re.compile(r"^\W*(search|menu|info|code|list|clear|edit|explore|school|comment)\W*$")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def spec_of(page: RealPage) -> PageSpec:
    """The adapter's page spec for the page's kind (a leaderboard: its board's scope)."""
    adapter = get_adapter(page.platform)
    if page.kind == "leaderboard":
        scope = adapter.board.scope  # type: ignore[union-attr]
        return PageSpec(kind="leaderboard", url="", hooks=(), region=(scope,))
    return {s.kind: s for s in adapter.page_specs("x")}[page.kind]


def markdown(page: RealPage, shared_dir: Path, path: str) -> str:
    """The page's Markdown through the adapter path or the generic path."""
    html = page.html(shared_dir)
    if path == "adapter":
        return page_markdown(html, spec_of(page))
    return extract_markdown(html)


def heading_texts(md: str) -> list[str]:
    """The text of every Markdown heading (links reduced to their text)."""
    out = []
    for line in md.splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*$", line)
        if m:
            out.append(" ".join(_LINK.sub(r"\1", m.group(1)).split()))
    return out


def separate_items(md: str, tags: tuple[str, ...]) -> bool:
    """Whether the tags come out as separate items: one line of them joined by ", ", or one
    list item each."""
    joined = ", ".join(tags)
    if any(joined in _LINK.sub(r"\1", line) for line in md.splitlines()):
        return True
    items = {_LINK.sub(r"\1", ln.strip()[2:]).strip() for ln in md.splitlines()
             if ln.strip().startswith(("- ", "* "))}
    return all(t in items for t in tags)
