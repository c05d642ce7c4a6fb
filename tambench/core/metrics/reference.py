"""The metric reference: docs/metrics.md is generated from the registry by :func:`render_markdown`.

``tambench metrics --markdown > docs/metrics.md`` (or ``python -m
tambench.core.metrics.reference``) writes it; a test fails when the committed file differs,
so the page always says what the code does. Each entry shows the id, direction, value range,
input kind, parameters with their defaults, which parameters name answers columns, the
definition (the function's docstring without its examples) and the competitions whose
published metric it implements (:data:`METRIC_USAGE`).
"""

from __future__ import annotations

import inspect
import json
import math
from typing import Any

from tambench.core.metrics import list_metrics
from tambench.core.metrics.base import Metric

#: Competitions whose published metric each registered metric implements (with the parameters
#: given in its definition). Slugs as on the platform; one table, so a new task adds a line.
METRIC_USAGE: dict[str, tuple[str, ...]] = {
    "accuracy": ("tensorflow-speech-recognition-challenge", "tabular-playground-series-dec-2021"),
    "box3d_map": ("3d-object-detection-for-autonomous-vehicles",),
    "box_map": ("siim-covid19-detection", "vinbigdata-chest-xray-abnormalities-detection"),
    "dice": ("hubmap-kidney-segmentation",),
    "dice_hausdorff_3d": ("uw-madison-gi-tract-image-segmentation",),
    "exact_match": ("text-normalization-challenge-english-language",),
    "f1_micro_multilabel": ("imet-2020-fgvc7",),
    "global_dice": ("google-research-identify-contrails-reduce-global-warming",),
    "haversine_p50_p95": ("smartphone-decimeter-2022",),
    "iou_thresholds_map": ("tgs-salt-identification-challenge",),
    "jaccard_words": ("tweet-sentiment-extraction", "chaii-hindi-and-tamil-question-answering"),
    "jigsaw_bias_auc": ("jigsaw-unintended-bias-in-toxicity-classification",),
    "kendall_tau_orders": ("AI4Code",),
    "kl_divergence": ("hms-harmful-brain-activity-classification",),
    "laplace_log_likelihood": ("osic-pulmonary-fibrosis-progression",),
    "levenshtein_mean": ("billion-word-imputation", "bms-molecular-translation"),
    "levenshtein_per_true": ("multi-modal-gesture-recognition",),
    "log_loss": ("statoil-iceberg-classifier-challenge", "dogs-vs-cats-redux-kernels-edition"),
    "lwlrap": ("freesound-audio-tagging-2019",),
    "mae": ("predict-volcanic-eruptions-ingv-oe",),
    "map_at_k": ("eedi-mining-misconceptions-in-mathematics", "h-and-m-personalized-fashion-recommendations",
                 "whale-categorization-playground", "hotel-id-2021-fgvc8"),
    "map_at_k_lines": ("aqa",),
    "mcc": ("binary-prediction-of-poisonous-mushrooms", "nfl-player-contact-detection"),
    "mcrmse": ("stanford-covid-vaccine",),
    "mean_angular_error": ("icecube-neutrinos-in-deep-ice",),
    "mean_ap_per_paper": ("pst",),
    "mean_log_mae": ("champs-scalar-coupling",),
    "mrr_at_k": ("nextproductprediction",),
    "multiclass_log_loss": ("lmsys-chatbot-arena",),
    "pearson": ("us-patent-phrase-to-phrase-matching",),
    "point_in_box_f1": ("kuzushiji-recognition",),
    "pose_maa": ("image-matching-challenge-2024-hexathlon",),
    "probabilistic_f1": ("rsna-breast-cancer-detection",),
    "qwk": ("aptos2019-blindness-detection", "learning-agency-lab-automated-essay-scoring-2"),
    "r2_mean_columnwise": ("planttraits2024",),
    "rle_f_beta": ("vesuvius-challenge-ink-detection",),
    "rmse": ("denoising-dirty-documents", "new-york-city-taxi-fare-prediction",
             "petfinder-pawpularity-score"),
    "rmsle_columnwise": ("nomad2018-predict-transparent-conductors",),
    "roc_auc": ("mlsp-2013-birds",),
    "roc_auc_columnwise": ("plant-pathology-2020-fgvc7", "jigsaw-toxic-comment-classification-challenge"),
    "rowwise_set_f1": ("cornell-birdcall-identification",),
    "span_micro_f1": ("tensorflow2-question-answering",),
    "spearman_columnwise": ("google-quest-challenge",),
    "top1_error": ("inaturalist-2019-fgvc6",),
    "weighted_auc_tpr": ("alaska2-image-steganalysis",),
    "weighted_author_auc": ("ind",),
    "weighted_multilabel_log_loss": ("rsna-2022-cervical-spine-fracture-detection",),
}

HEADER = """# Metrics

Generated from the metric registry by `tambench metrics --markdown`; do not edit by hand (a
test compares this file with the registry). Every metric declares its direction and value
range at registration; ranking reads them from here, never from a leaderboard's order.
Parameters ending in `_column` / `_columns` name columns of the ANSWERS file that the grader
reads and passes to the metric as arrays (see `tambench/core/metrics/base.py`).
"""


def _number(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


def definition(metric: Metric) -> str:
    """The function's docstring up to its first ``>>>`` example, dedented."""
    lines = inspect.cleandoc(metric.fn.__doc__ or metric.summary).splitlines()
    cut = next((i for i, line in enumerate(lines) if line.lstrip().startswith(">>>")), len(lines))
    return "\n".join(lines[:cut]).rstrip()


def _params(metric: Metric) -> str:
    if not metric.defaults:
        return "none"
    return ", ".join(f"`{k}`={json.dumps(v, sort_keys=True)}" for k, v in metric.defaults.items())


def entry(metric: Metric) -> str:
    """One metric's section."""
    columns = ", ".join(f"`{c}`" for c in metric.column_parameters) or "none"
    used = ", ".join(METRIC_USAGE.get(metric.id, ())) or "(no competition listed)"
    rows = [
        f"## `{metric.id}`",
        "",
        "| | |",
        "|---|---|",
        f"| direction | {metric.direction} is better |",
        f"| range | [{_number(metric.lower_bound)}, {_number(metric.upper_bound)}], best "
        f"{_number(metric.best_value)} |",
        f"| input kind | {metric.kind} |",
        f"| parameters | {_params(metric)} |",
        f"| answers-column parameters | {columns} |",
        f"| used by | {used} |",
        "",
        definition(metric),
        "",
    ]
    return "\n".join(rows)


def render_markdown(metrics: list[Metric] | None = None) -> str:
    """docs/metrics.md: the header, an index and one section per metric, sorted by id."""
    ms = list_metrics() if metrics is None else metrics
    index = "\n".join(f"- [`{m.id}`](#{m.id}): {m.summary}" for m in ms)
    body = "\n".join(entry(m) for m in ms)
    return f"{HEADER}\n{index}\n\n{body}"


def as_json(metric: Metric) -> dict[str, Any]:
    """One metric as ``tambench metrics --json`` prints it."""
    return {
        "id": metric.id,
        "direction": metric.direction,
        "lower_bound": None if math.isinf(metric.lower_bound) else metric.lower_bound,
        "upper_bound": None if math.isinf(metric.upper_bound) else metric.upper_bound,
        "bounded": metric.bounded,
        "kind": metric.kind,
        "parameters": dict(metric.defaults),
        "answers_column_parameters": list(metric.column_parameters),
        "summary": metric.summary,
        "used_by": list(METRIC_USAGE.get(metric.id, ())),
    }


if __name__ == "__main__":
    print(render_markdown(), end="")
