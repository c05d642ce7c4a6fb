"""bench/data/mledojo_rules.csv: MLE-Dojo's 202 competitions, each with a registered metric."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tambench.core.metrics import METRICS

TABLE = Path(__file__).resolve().parents[2] / "bench" / "data" / "mledojo_rules.csv"


def rows() -> list[dict[str, str]]:
    with TABLE.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_table_has_one_row_per_competition_with_a_rule() -> None:
    table = rows()
    slugs = [r["slug"] for r in table]
    assert len(slugs) == 202 and len(set(slugs)) == 202
    assert all(r["published_rule"].strip() and r["metric_py"].strip() for r in table)
    assert all(r["higher_is_better"] in ("true", "false") for r in table)


def test_every_row_names_a_registered_metric_whose_parameters_and_direction_fit() -> None:
    problems = []
    for r in rows():
        metric = METRICS.get(r["metric"]) if r["metric"] else None
        if metric is None:
            problems.append(f"{r['slug']}: no registered metric ({r['pending_metric']!r} pending)")
            continue
        try:
            metric.resolve_params(json.loads(r["metric_params"]))
        except Exception as exc:  # noqa: BLE001 - report every row's problem at once
            problems.append(f"{r['slug']}: {exc}")
        if metric.higher_is_better != (r["higher_is_better"] == "true"):
            problems.append(f"{r['slug']}: direction differs from {metric.id}'s")
    assert problems == []


def test_departures_are_the_rows_whose_metric_py_differs_from_the_rule() -> None:
    departed = {r["slug"] for r in rows() if r["departure"].strip()}
    # hand-checked: metric.py scales, skips, clips or computes another quantity than Kaggle
    assert departed == {
        "allstate-purchase-prediction-challenge", "conways-reverse-game-of-life-2020",
        "demand-forecasting-kernels-only", "dog-breed-identification",
        "flavours-of-physics-kernels-only", "freesound-audio-tagging-2019",
        "global-wheat-detection", "grupo-bimbo-inventory-demand", "home-data-for-ml-course",
        "imet-2020-fgvc7", "jigsaw-unintended-bias-in-toxicity-classification",
        "new-york-city-taxi-fare-prediction", "spooky-author-identification",
        "uw-madison-gi-tract-image-segmentation",
    }
