"""Fixtures for difficulty tests: temporary metrics, in-memory leaderboards, the Lite facts."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from tambench.core import metrics as _registered  # noqa: F401  (registers every metric)
from tambench.core.leaderboard import Leaderboard, read_leaderboard_text
from tambench.core.metrics.base import METRICS, Metric

MakeMetric = Callable[..., Metric]

#: The 18 Lite tasks: (higher is better, value range) of their metrics, from the release's
#: graders (peer-benchmarks.md), with the release's tier cell (Modality/difficulty folder).
LITE_FACTS: dict[str, tuple[bool, tuple[float, float], str, str]] = {
    "mlsp-2013-birds": (True, (0.0, 1.0), "Audio", "easy"),
    "tensorflow-speech-recognition-challenge": (True, (0.0, 1.0), "Audio", "medium"),
    "cornell-birdcall-identification": (True, (0.0, 1.0), "Audio", "hard"),
    "ind": (True, (0.0, 1.0), "Graph", "easy"),
    "pst": (True, (0.0, 1.0), "Graph", "medium"),
    "aqa": (True, (0.0, 1.0), "Graph", "hard"),
    "denoising-dirty-documents": (False, (0.0, math.inf), "Image", "easy"),
    "statoil-iceberg-classifier-challenge": (False, (0.0, math.inf), "Image", "medium"),
    "image-matching-challenge-2024-hexathlon": (True, (0.0, 1.0), "Image", "hard"),
    "multi-modal-gesture-recognition": (False, (0.0, math.inf), "MultiModal", "easy"),
    "nextproductprediction": (True, (0.0, 1.0), "MultiModal", "medium"),
    "planttraits2024": (True, (-math.inf, 1.0), "MultiModal", "hard"),
    "new-york-city-taxi-fare-prediction": (False, (0.0, math.inf), "Tabular", "easy"),
    "binary-prediction-of-poisonous-mushrooms": (True, (-1.0, 1.0), "Tabular", "medium"),
    "stanford-covid-vaccine": (False, (0.0, math.inf), "Tabular", "hard"),
    "text-normalization-challenge-english-language": (True, (0.0, 1.0), "Text", "easy"),
    "lmsys-chatbot-arena": (False, (0.0, math.inf), "Text", "medium"),
    "eedi-mining-misconceptions-in-mathematics": (True, (0.0, 1.0), "Text", "hard"),
}


@pytest.fixture
def temp_metric() -> Iterator[MakeMetric]:
    """Register throw-away metrics by id for one test; they are removed afterwards."""
    added: list[str] = []

    def make(metric_id: str, *, higher_is_better: bool,
             value_range: tuple[float, float]) -> Metric:
        if metric_id in METRICS:
            raise RuntimeError(f"test metric id {metric_id!r} is already registered")
        METRICS.register(metric_id, Metric(
            id=metric_id, fn=lambda t, p: 0.0, higher_is_better=higher_is_better,
            lower_bound=value_range[0], upper_bound=value_range[1], kind="value",
            summary="temporary test metric",
        ))
        added.append(metric_id)
        return METRICS[metric_id]

    yield make
    for metric_id in added:
        METRICS.unregister(metric_id)


@pytest.fixture
def lite_metrics(temp_metric: MakeMetric) -> dict[str, Metric]:
    """A temporary metric per Lite task, with the direction and range of its real metric."""
    return {slug: temp_metric(f"test_tmp_lite_{slug}", higher_is_better=hib, value_range=rng)
            for slug, (hib, rng, _, _) in LITE_FACTS.items()}


def board(scores: Sequence[float | str]) -> Leaderboard:
    """A normalised leaderboard with one distinct team per score (a str is the raw cell)."""
    lines = ["rank,team,score,entries,submitted_at"]
    for i, s in enumerate(scores, start=1):
        lines.append(f"{i},team{i},{s if isinstance(s, str) else repr(float(s))},1,")
    return read_leaderboard_text("\n".join(lines) + "\n")


MODALITY_NAMES = {"MultiModal": "Multimodal"}
LITE_PLATFORMS = {"ind": "biendata", "pst": "biendata", "aqa": "biendata",
                  "nextproductprediction": "aicrowd"}


def lite_task_id(slug: str) -> str:
    """The catalogue id of a Lite release folder."""
    return f"{LITE_PLATFORMS.get(slug, 'kaggle')}/{slug}"


def write_lite_catalogue(root: Path, tam_lite_dir: Path, metrics: dict[str, Metric]) -> Path:
    """A catalogue of the 18 Lite tasks: real leaderboards (normalised), temporary metrics,
    the release's tiers as reference tiers ``tam-bench``."""
    from tambench.core.leaderboard import read_leaderboard, write_leaderboard
    from tambench.schema.io import save_taskspec
    from tambench.schema.taskspec import GradingSpec, TaskSpec

    for slug, (_, _, modality, tier) in LITE_FACTS.items():
        tid = lite_task_id(slug)
        spec = TaskSpec(
            id=tid, platform=tid.split("/")[0], title=slug, status="incomplete",
            modality=MODALITY_NAMES.get(modality, modality),
            grading=GradingSpec(metric=metrics[slug].id),
            reference_tiers={"tam-bench": tier},
        )
        folder = root / tid
        save_taskspec(spec, folder / "task.json")
        write_leaderboard(read_leaderboard(tam_lite_dir / slug / "leaderboard.csv"),
                          folder / "leaderboard.csv")
    return root


@pytest.fixture
def lite_catalogue(tmp_path: Path, tam_lite_dir: Path, lite_metrics: dict[str, Metric]) -> Path:
    """The 18 Lite tasks as a catalogue in tmp_path."""
    return write_lite_catalogue(tmp_path / "catalogue", tam_lite_dir, lite_metrics)
