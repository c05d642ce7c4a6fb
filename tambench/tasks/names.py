"""Competition names as printed (in the paper, in release folders) -> task ids.

The paper's list prints most competitions by their Kaggle slug, some by their title, a few with
typos. :func:`task_id_for_name` maps a printed name to ``<platform>/<slug>``: an explicit entry
of :data:`KNOWN_NAMES` when there is one (verified platform, real slug, typo corrected), else
the slugified name on Kaggle, the default platform. The printed name itself is always kept by
the caller (as the title and in notes), never rewritten.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from tambench.schema.taskspec import make_task_id


@dataclass(frozen=True)
class NamedTask:
    """Where a printed name points, and why."""

    platform: str
    slug: str
    note: str = ""
    """Why this mapping differs from slugifying on Kaggle (empty when it does not)."""
    url: str = ""
    """The competition's page, when known."""

    @property
    def task_id(self) -> str:
        """``<platform>/<slug>``."""
        return make_task_id(self.platform, self.slug)


DEFAULT_PLATFORM = "kaggle"

_KDD24 = ("an Amazon KDD Cup 2024 track (Multi-Task Online Shopping Challenge for LLMs), "
          "hosted on AIcrowd")
_KDD23 = "a task of the Amazon KDD Cup 2023 (Multilingual Shopping Session Dataset), on AIcrowd"
_OGB = "an OGB Large-Scale Challenge dataset (KDD Cup 2021), hosted by OGB, not on Kaggle"
_LITE_SLUG = "named after the paper's public release folder"

#: Printed name -> where it points. Keys are the names exactly as printed.
KNOWN_NAMES: dict[str, NamedTask] = {
    # The paper's Lite tasks hosted off Kaggle, and their release file names.
    "WhoIsWho-IND": NamedTask("biendata", "ind", "WhoIsWho incorrect-assignment detection "
                              "(OAG-Challenge, KDD Cup 2024), on biendata"),
    "IND": NamedTask("biendata", "ind", "release file name of WhoIsWho-IND"),
    "PST": NamedTask("biendata", "pst", "paper source tracing (OAG-Challenge, KDD Cup 2024), "
                     "on biendata"),
    "AQA": NamedTask("biendata", "aqa", "academic question answering (OAG-Challenge, KDD Cup "
                     "2024), on biendata"),
    "NextProductPrediction": NamedTask("aicrowd", "nextproductprediction", _KDD23),
    "Next Product Title Generation": NamedTask("aicrowd", "next-product-title-generation", _KDD23),
    "Multi-Lingual Abilities": NamedTask("aicrowd", "multi-lingual-abilities", _KDD24),
    "Shopping Knowledge Reasoning": NamedTask("aicrowd", "shopping-knowledge-reasoning", _KDD24),
    "Understanding Shopping Concepts": NamedTask("aicrowd", "understanding-shopping-concepts",
                                                 _KDD24),
    "User Behavior Alignment": NamedTask("aicrowd", "user-behavior-alignment", _KDD24),
    "All-Around": NamedTask("aicrowd", "all-around", _KDD24),
    "OGB-LSC-MAG240M": NamedTask("ogb", "ogb-lsc-mag240m", _OGB),
    "OGB-LSC-PCQM4M": NamedTask("ogb", "ogb-lsc-pcqm4m", _OGB),
    "OGB-LSC-WikiKG90M": NamedTask("ogb", "ogb-lsc-wikikg90m", _OGB),
    # Kaggle competitions printed by title: the Lite ones keep the release's folder names.
    "Binary Prediction of Poisonous Mushrooms": NamedTask(
        "kaggle", "binary-prediction-of-poisonous-mushrooms",
        _LITE_SLUG + " (on Kaggle it is playground-series-s4e8)",
        "https://www.kaggle.com/competitions/playground-series-s4e8"),
    "Cornell Birdcall Identification": NamedTask(
        "kaggle", "cornell-birdcall-identification",
        _LITE_SLUG + " (on Kaggle it is birdsong-recognition)",
        "https://www.kaggle.com/competitions/birdsong-recognition"),
    "Image Matching Challenge 2024 - Hexathlon": NamedTask(
        "kaggle", "image-matching-challenge-2024-hexathlon",
        _LITE_SLUG + " (on Kaggle it is image-matching-challenge-2024)",
        "https://www.kaggle.com/competitions/image-matching-challenge-2024"),
    "Marinexplore and Cornell Whale Detection Challenge": NamedTask(
        "kaggle", "whale-detection-challenge", "printed by title; Kaggle slug"),
    "Rainforest Connection Species Audio Detection": NamedTask(
        "kaggle", "rfcx-species-audio-detection", "printed by title; Kaggle slug"),
    "BirdCLEF 2021 - Birdcall Identification": NamedTask(
        "kaggle", "birdclef-2021", "printed by title; Kaggle slug"),
    # Typos in the paper's list.
    "chahi-hindi-and-tamil-question-answering": NamedTask(
        "kaggle", "chaii-hindi-and-tamil-question-answering", "typo in the paper: 'chahi'"),
    "cdiscout-image-classification-challenge": NamedTask(
        "kaggle", "cdiscount-image-classification-challenge", "typo in the paper: 'cdiscout'"),
    # Printed names whose platform could not be confirmed: Kaggle is assumed, and said so.
    "Graph based Recommendation": NamedTask(
        "kaggle", "graph-based-recommendation", "platform not confirmed; Kaggle assumed"),
    "PMLDL": NamedTask("kaggle", "pmldl", "platform not confirmed; Kaggle assumed"),
}


def slugify(name: str) -> str:
    """Lower-case ASCII slug: runs of anything but letters and digits become one hyphen.

    >>> slugify("Binary Prediction of Poisonous Mushrooms")
    'binary-prediction-of-poisonous-mushrooms'
    >>> slugify("equity-post-HCT-survival-predictions")
    'equity-post-hct-survival-predictions'
    >>> slugify("BirdCLEF 2021 - Birdcall Identification")
    'birdclef-2021-birdcall-identification'
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    if not slug:
        raise ValueError(f"name {name!r} has no letters or digits to make a slug from")
    return slug


def resolve_name(name: str) -> NamedTask:
    """Where a printed competition name points (see the module docstring)."""
    key = name.strip()
    if key in KNOWN_NAMES:
        return KNOWN_NAMES[key]
    folded = {k.lower(): v for k, v in KNOWN_NAMES.items()}
    if key.lower() in folded:  # release folders and copies spell names in any case ("aqa")
        return folded[key.lower()]
    slug = slugify(key)
    note = "" if slug == key else f"slugified from the printed name {key!r}"
    return NamedTask(DEFAULT_PLATFORM, slug, note)


def task_id_for_name(name: str) -> str:
    """The task id of a printed name.

    >>> task_id_for_name("WhoIsWho-IND"), task_id_for_name("spaceship-titanic")
    ('biendata/ind', 'kaggle/spaceship-titanic')
    """
    return resolve_name(name).task_id


def default_url(platform: str, slug: str) -> str:
    """The usual overview address of a competition on a known platform, else ""."""
    if platform == "kaggle":
        return f"https://www.kaggle.com/competitions/{slug}"
    return ""
