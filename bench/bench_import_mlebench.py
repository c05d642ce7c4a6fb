"""Measure ``tambench tasks import mle-bench`` on a real MLE-bench checkout.

Needs a checkout of github:openai/mle-bench (with or without ``git lfs pull``); nothing of it is
kept. The import runs twice through the real command:

1. into an empty catalogue: how many of the competitions whose metric tambench has come out
   complete with the right metric, how many complete with a wrong one, how many ids repeat;
2. into a copy of the bundled catalogue (merge, the default): no complete entry downgraded,
   no curated value changed, no duplicate id (``AI4Code`` must land on ``kaggle/ai4code``).

"The right metric" is :data:`TRUE_METRICS`: the metric each competition's own ``grade.py``
computes, named by tambench metric id (read by hand from MLE-bench's graders and the
competitions' evaluation pages; an id not registered yet is one being added). Accuracy over
free strings (text normalisation) is ``exact_match``: ``accuracy`` there is wrong.

Usage: python bench/bench_import_mlebench.py --tree /path/to/mle-bench [--json]
(a checkout, or a bare git directory, which is cloned to a temporary folder first)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

#: Competition -> (metric id, parameters that must match) of its official grader.
TRUE_METRICS: dict[str, tuple[str, dict[str, Any]]] = {
    # The evaluation page's per-image TP / (TP + FP + FN); grade.py scores image by image too,
    # with the organisers' per-class AP inside each image (no registered form computes that).
    "3d-object-detection-for-autonomous-vehicles": ("box3d_map", {"form": "image_precision"}),
    "AI4Code": ("kendall_tau_orders", {}),
    "aerial-cactus-identification": ("roc_auc", {}),
    "alaska2-image-steganalysis": ("weighted_auc_tpr", {}),
    "aptos2019-blindness-detection": ("qwk", {}),
    "billion-word-imputation": ("levenshtein_mean", {}),
    "bms-molecular-translation": ("levenshtein_mean", {}),
    "cassava-leaf-disease-classification": ("accuracy", {}),
    "cdiscount-image-classification-challenge": ("accuracy", {}),
    "chaii-hindi-and-tamil-question-answering": ("jaccard_words", {}),
    "champs-scalar-coupling": ("mean_log_mae", {}),
    "denoising-dirty-documents": ("rmse", {}),
    "detecting-insults-in-social-commentary": ("roc_auc", {}),
    "dog-breed-identification": ("multiclass_log_loss", {}),
    "dogs-vs-cats-redux-kernels-edition": ("log_loss", {}),
    "facebook-recruiting-iii-keyword-extraction": ("f1_micro_multilabel", {}),
    "freesound-audio-tagging-2019": ("lwlrap", {}),
    "google-quest-challenge": ("spearman_columnwise", {}),
    "google-research-identify-contrails-reduce-global-warming": ("global_dice", {}),
    "h-and-m-personalized-fashion-recommendations": ("map_at_k", {"k": 12}),
    "herbarium-2020-fgvc7": ("f1_macro", {}),
    "herbarium-2021-fgvc8": ("f1_macro", {}),
    "herbarium-2022-fgvc9": ("f1_macro", {}),
    "histopathologic-cancer-detection": ("roc_auc", {}),
    "hms-harmful-brain-activity-classification": ("kl_divergence", {}),
    "hotel-id-2021-fgvc8": ("map_at_k", {"k": 5, "relevant": "single"}),
    "hubmap-kidney-segmentation": ("dice", {}),
    "icecube-neutrinos-in-deep-ice": ("mean_angular_error", {}),
    "imet-2020-fgvc7": ("f1_micro_multilabel", {}),
    "inaturalist-2019-fgvc6": ("top1_error", {}),
    "invasive-species-monitoring": ("roc_auc", {}),
    "iwildcam-2019-fgvc6": ("f1_macro", {}),
    "iwildcam-2020-fgvc7": ("accuracy", {}),
    "jigsaw-toxic-comment-classification-challenge": ("roc_auc_columnwise", {}),
    "jigsaw-unintended-bias-in-toxicity-classification": ("jigsaw_bias_auc", {}),
    "kuzushiji-recognition": ("point_in_box_f1", {}),
    "leaf-classification": ("multiclass_log_loss", {}),
    "learning-agency-lab-automated-essay-scoring-2": ("qwk", {}),
    "lmsys-chatbot-arena": ("multiclass_log_loss", {}),
    "ml2021spring-hw2": ("accuracy", {}),
    "mlsp-2013-birds": ("roc_auc", {}),
    "movie-review-sentiment-analysis-kernels-only": ("accuracy", {}),
    "multi-modal-gesture-recognition": ("levenshtein_per_true", {}),
    "new-york-city-taxi-fare-prediction": ("rmse", {}),
    "nfl-player-contact-detection": ("mcc", {}),
    "nomad2018-predict-transparent-conductors": ("rmsle_columnwise", {}),
    "osic-pulmonary-fibrosis-progression": ("laplace_log_likelihood", {}),
    "paddy-disease-classification": ("accuracy", {}),
    "petfinder-pawpularity-score": ("rmse", {}),
    "plant-pathology-2020-fgvc7": ("roc_auc_columnwise", {}),
    "plant-pathology-2021-fgvc8": ("f1_micro_multilabel", {}),
    "plant-seedlings-classification": ("f1_micro", {}),
    "playground-series-s3e18": ("roc_auc_columnwise", {}),
    "predict-volcanic-eruptions-ingv-oe": ("mae", {}),
    "random-acts-of-pizza": ("roc_auc", {}),
    "ranzcr-clip-catheter-line-classification": ("roc_auc_columnwise", {}),
    "rsna-2022-cervical-spine-fracture-detection": (
        "weighted_multilabel_log_loss",
        {"weights": {"patient_overall": 7, **{f"C{i}": 1 for i in range(1, 8)}},
         "positive_weights": {"patient_overall": 14, **{f"C{i}": 2 for i in range(1, 8)}}}),
    "rsna-breast-cancer-detection": ("probabilistic_f1", {}),
    "rsna-miccai-brain-tumor-radiogenomic-classification": ("roc_auc", {}),
    "seti-breakthrough-listen": ("roc_auc", {}),
    "siim-covid19-detection": ("box_map", {}),
    "siim-isic-melanoma-classification": ("roc_auc", {}),
    "smartphone-decimeter-2022": ("haversine_p50_p95", {}),
    "spaceship-titanic": ("accuracy", {}),
    "spooky-author-identification": ("multiclass_log_loss", {}),
    "stanford-covid-vaccine": ("mcrmse", {}),
    "statoil-iceberg-classifier-challenge": ("log_loss", {}),
    "tabular-playground-series-dec-2021": ("accuracy", {}),
    "tabular-playground-series-may-2022": ("roc_auc", {}),
    "tensorflow-speech-recognition-challenge": ("accuracy", {}),
    "tensorflow2-question-answering": ("span_micro_f1", {}),
    "text-normalization-challenge-english-language": ("exact_match", {}),
    "text-normalization-challenge-russian-language": ("exact_match", {}),
    "tgs-salt-identification-challenge": ("iou_thresholds_map", {}),
    "the-icml-2013-whale-challenge-right-whale-redux": ("roc_auc", {}),
    "tweet-sentiment-extraction": ("jaccard_words", {}),
    "us-patent-phrase-to-phrase-matching": ("pearson", {}),
    "uw-madison-gi-tract-image-segmentation": ("dice_hausdorff_3d", {}),
    "ventilator-pressure-prediction": ("mae", {}),
    "vesuvius-challenge-ink-detection": ("rle_f_beta", {}),
    "vinbigdata-chest-xray-abnormalities-detection": ("box_map", {"iou_thresholds": [0.4]}),
    "whale-categorization-playground": ("map_at_k", {"k": 5, "relevant": "single"}),
}
#: Metric ids added for MLE-bench's bespoke graders; the competitions using them are the ones
#: whose metric tambench did not have when the importer was first measured (63 had one).
ADDED_FOR_MLE_BENCH = frozenset({
    "box_map", "box3d_map", "kendall_tau_orders", "weighted_auc_tpr", "levenshtein_mean",
    "spearman_columnwise", "f1_micro_multilabel", "jigsaw_bias_auc", "point_in_box_f1",
    "rmsle_columnwise", "probabilistic_f1", "haversine_p50_p95", "span_micro_f1",
    "dice_hausdorff_3d", "rle_f_beta",
})


def checkout(tree: Path, tmp: Path) -> Path:
    """A work tree for ``tree``: itself, or a clone of a bare git directory."""
    if (tree / "HEAD").is_file() and (tree / "objects").is_dir():
        target = tmp / "tree"
        subprocess.run(["git", "clone", "-q", str(tree), str(target)], check=False,
                       capture_output=True)
        return target
    return tree


def run_import(tree: Path, catalogue: Path, importer: str = "mle-bench"
               ) -> tuple[dict[str, Any], float]:
    """``tambench tasks import IMPORTER TREE --catalogue CAT --json`` through the CLI."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "tambench.cli.main", "tasks", "import", importer, str(tree),
         "--catalogue", str(catalogue), "--json"],
        capture_output=True, text=True, check=False, env={**os.environ, "NO_COLOR": "1"})
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 3):
        raise SystemExit(f"import failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout), elapsed


def _specs(catalogue: Path) -> dict[str, dict[str, Any]]:
    """Every task of a catalogue as loaded (fields a file leaves out get their defaults, so a
    file rewritten with them spelled out compares equal)."""
    from tambench.schema.io import load_taskspec

    out = {}
    for path in catalogue.glob("*/*/task.json"):
        data = load_taskspec(path).model_dump(mode="json")
        out[data["id"]] = data
    return out


def score_fresh(catalogue: Path) -> dict[str, Any]:
    """Counts of the import into an empty catalogue, against :data:`TRUE_METRICS`."""
    from tambench.core.metrics import METRICS

    specs = _specs(catalogue)
    has = {c for c, (m, _) in TRUE_METRICS.items() if m in METRICS}
    right, wrong, incomplete = [], [], []
    for comp, (metric, params) in sorted(TRUE_METRICS.items()):
        spec = specs.get(f"kaggle/{comp.lower()}")
        if spec is None or spec["status"] != "complete":
            incomplete.append(comp)
            continue
        g = spec["grading"]
        ok = g["metric"] == metric and all(
            g["metric_params"].get(k) == v for k, v in params.items())
        (right if ok else wrong).append((comp, g["metric"], metric))
    ids = [s["id"].lower() for s in specs.values()]
    earlier = {c for c in has if TRUE_METRICS[c][0] not in ADDED_FOR_MLE_BENCH}
    return {
        "competitions": len(TRUE_METRICS),
        "metric_registered": len(has),
        "complete_right_metric": len(right),
        "complete_right_among_registered": sum(1 for c, _, _ in right if c in has),
        "metric_registered_before_the_additions": len(earlier),
        "complete_right_among_those": sum(1 for c, _, _ in right if c in earlier),
        "complete_wrong_metric": [f"{c}: {got} (true {want})" for c, got, want in wrong],
        "incomplete_with_registered_metric": sorted(c for c in incomplete if c in has),
        "duplicate_ids": sorted({i for i in ids if ids.count(i) > 1}),
    }


def score_merge(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]],
                report: dict[str, Any]) -> dict[str, Any]:
    """What a merge into the bundled catalogue did to the curated entries."""
    downgraded = sorted(t for t, s in before.items()
                        if s["status"] == "complete" and after[t]["status"] != "complete")
    curated_changed = sorted(
        t for t, s in before.items() if s["status"] == "complete"
        and any(after[t][k] != s[k] for k in ("grading", "modality", "title", "metric")))
    lower = [t.lower() for t in after]
    return {
        "entries_before": len(before), "entries_after": len(after),
        "new_entries": sorted(set(after) - set(before)),
        "downgraded": downgraded, "curated_values_changed": curated_changed,
        "duplicate_ids": sorted({t for t in lower if lower.count(t) > 1}),
        "merged": len(report["merged"]), "conflicts": len(report["conflicts"]),
        "ai4code": "kaggle/ai4code" in after and "kaggle/AI4Code" not in after,
    }


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, required=True, help="an MLE-bench checkout")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args(argv)
    from tambench.tasks.catalogue import bundled_catalogue_dir

    with tempfile.TemporaryDirectory() as tmp:
        tree = checkout(args.tree, Path(tmp))
        fresh = Path(tmp) / "fresh"
        report, seconds = run_import(tree, fresh)
        fresh_counts = score_fresh(fresh)
        merged = Path(tmp) / "merged"
        shutil.copytree(bundled_catalogue_dir(), merged)
        before = _specs(merged)
        merge_report, _ = run_import(tree, merged)
        merge_counts = score_merge(before, _specs(merged), merge_report)
    out = {"load_average": os.getloadavg(), "seconds": round(seconds, 2),
           "read": report["read"], "failures": report["failures"],
           "fresh": fresh_counts, "merge_into_bundled": merge_counts}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        f = fresh_counts
        print(f"{report['read']} competitions read in {seconds:.1f} s (load {out['load_average']})")
        print(f"fresh catalogue: {f['complete_right_among_registered']} of the "
              f"{f['metric_registered']} whose metric is registered complete with the right "
              f"metric; {len(f['complete_wrong_metric'])} complete with a wrong one; duplicate "
              f"ids {f['duplicate_ids'] or 'none'}")
        print(f"  of the {f['metric_registered_before_the_additions']} whose metric tambench had "
              f"before the metrics added for MLE-bench: {f['complete_right_among_those']}")
        for line in f["complete_wrong_metric"]:
            print(f"  wrong: {line}")
        print(f"  incomplete although registered: {', '.join(f['incomplete_with_registered_metric'])}")
        m = merge_counts
        print(f"merge into the bundled catalogue: {m['merged']} merged, {m['conflicts']} conflicts "
              f"listed, {len(m['new_entries'])} new, downgraded {m['downgraded'] or 'none'}, "
              f"curated values changed {m['curated_values_changed'] or 'none'}, duplicate ids "
              f"{m['duplicate_ids'] or 'none'}, AI4Code on kaggle/ai4code: {m['ai4code']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
