"""Every real page the extraction tests read, with what its Markdown must hold.

Pages live in ``../shared/data/real-pages`` (provenance in its README) and in
``tests/data/real-pages`` (provenance in that folder's README). Each entry names the adapter
and page kind whose region the adapter path uses, the title both paths must show as a heading
(None for a fragment or an empty application shell), text both paths must keep, and the tags
the page shows (each must come out as a separate item).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tambench.acquisition.markdown import extract_markdown
from tambench.acquisition.pipeline import page_markdown
from tambench.acquisition.platforms import PageSpec, get_adapter

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
