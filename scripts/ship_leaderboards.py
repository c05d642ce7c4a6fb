"""Ship the real leaderboards of ../shared/data into the bundled catalogue, with reference tiers.

Development-time script, and the one place where data from ../shared enters the repository.
Re-runnable: a second run with the same inputs changes nothing.

For every row of ``../shared/data/leaderboards/index.csv`` whose slug is a catalogue entry
(matched case-insensitively on the slug, on any platform), it:

* converts the board to the compact form (``rank,score`` in final rank order, plus ``flag``
  for placeholder rows) and writes it as the entry's ``leaderboard.csv``
  (:func:`tambench.tasks.leaderboards.store_leaderboard`);
* records its provenance in ``task.json`` (``leaderboard``: source repository, commit, path,
  kind, rows, SHA-256 of the file as read) and the scale of its scores (metric, direction,
  bounds: :data:`BOARD_METRICS`, facts of each competition's official metric);
* stores MLE-bench's complexity label as ``reference_tiers["mle-bench"]`` (low / medium /
  high, as index.csv gives it) and the TAM-Bench release's tier as
  ``reference_tiers["tam-bench"]`` (:data:`TAM_RELEASE_TIERS`);
* fills ``n_teams`` from a private board when the entry has none. No curated field changes.

A slug of index.csv that is not in the catalogue stops the script (the data says it is one of
the paper's competitions). At the end it prints the bytes added and refuses to finish above
the 3 MB budget.

Usage: .venv/bin/python scripts/ship_leaderboards.py [--shared ../shared] [--catalogue DIR]
                                                     [--check]
``--check`` writes nothing and exits 1 when the catalogue differs from what a run would write.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from tambench.core.layout import LEADERBOARD_FILE, TASK_FILE
from tambench.core.leaderboard import leaderboard_to_compact_csv, read_leaderboard
from tambench.core.metrics import METRICS
from tambench.schema.io import dump_taskspec, load_taskspec, save_taskspec
from tambench.schema.taskspec import LeaderboardSource
from tambench.tasks.catalogue import bundled_catalogue_dir
from tambench.tasks.leaderboards import source_sha256, store_leaderboard

REPO = Path(__file__).resolve().parents[1]
BUDGET_BYTES = 3_000_000
INDEX_COLUMNS = {"slug", "repo", "commit", "path", "rows", "kind", "in_mle_bench",
                 "mle_bench_complexity", "notes"}

#: The TAM-Bench public release (github:JiaHangyi828/TAM-Bench): each Lite task sits in a
#: ``<Modality>/<tier>/`` folder; the folder's tier is the release's tier of the task.
TAM_RELEASE = "github:JiaHangyi828/TAM-Bench@c9e35ae8cc50dfdf6bcefe6ad64e7e07e3ac8b62"
TAM_RELEASE_TIERS: dict[str, str] = {
    "mlsp-2013-birds": "easy",
    "tensorflow-speech-recognition-challenge": "medium",
    "cornell-birdcall-identification": "hard",
    "ind": "easy",
    "pst": "medium",
    "aqa": "hard",
    "denoising-dirty-documents": "easy",
    "statoil-iceberg-classifier-challenge": "medium",
    "image-matching-challenge-2024-hexathlon": "hard",
    "multi-modal-gesture-recognition": "easy",
    "nextproductprediction": "medium",
    "planttraits2024": "hard",
    "new-york-city-taxi-fare-prediction": "easy",
    "binary-prediction-of-poisonous-mushrooms": "medium",
    "stanford-covid-vaccine": "hard",
    "text-normalization-challenge-english-language": "easy",
    "lmsys-chatbot-arena": "medium",
    "eedi-mining-misconceptions-in-mathematics": "hard",
}


@dataclass(frozen=True)
class Scale:
    """A board's metric, for metrics not registered yet: direction and bounds (None: open)."""

    higher_is_better: bool
    lower: float | None
    upper: float | None


_UNIT = Scale(True, 0.0, 1.0)

#: The official metric of each competition with a board, by tambench metric id (the published
#: rule: the "Mean F1-Score" of facebook-recruiting-iii and plant-pathology-2021 is the mean of
#: each row's F1, rowwise_set_f1, where MLE-bench's grader computes a micro F1). A registered
#: id takes its scale from the registry; an id being added (not registered yet) carries its
#: scale here, and the script checks it against the registry once the id exists.
BOARD_METRICS: dict[str, tuple[str, Scale | None]] = {
    "3d-object-detection-for-autonomous-vehicles": ("box3d_map", _UNIT),
    "aerial-cactus-identification": ("roc_auc", None),
    "alaska2-image-steganalysis": ("weighted_auc_tpr", _UNIT),
    "aptos2019-blindness-detection": ("qwk", None),
    "aqa": ("map_at_k_lines", None),
    "binary-prediction-of-poisonous-mushrooms": ("mcc", None),
    "cassava-leaf-disease-classification": ("accuracy", None),
    "chaii-hindi-and-tamil-question-answering": ("jaccard_words", None),
    "champs-scalar-coupling": ("mean_log_mae", None),
    "cornell-birdcall-identification": ("rowwise_set_f1", None),
    "denoising-dirty-documents": ("rmse", None),
    "detecting-insults-in-social-commentary": ("roc_auc", None),
    "eedi-mining-misconceptions-in-mathematics": ("map_at_k", None),
    "facebook-recruiting-iii-keyword-extraction": ("rowwise_set_f1", None),
    "feedback-prize-english-language-learning": ("mcrmse", None),
    "freesound-audio-tagging-2019": ("lwlrap", None),
    "google-research-identify-contrails-reduce-global-warming": ("global_dice", None),
    "h-and-m-personalized-fashion-recommendations": ("map_at_k", None),
    "herbarium-2021-fgvc8": ("f1_macro", None),
    "herbarium-2022-fgvc9": ("f1_macro", None),
    "histopathologic-cancer-detection": ("roc_auc", None),
    "hms-harmful-brain-activity-classification": ("kl_divergence", None),
    "hotel-id-2021-fgvc8": ("map_at_k", None),
    "hubmap-kidney-segmentation": ("dice", None),
    "image-matching-challenge-2024-hexathlon": ("pose_maa", None),
    "inaturalist-2019-fgvc6": ("top1_error", None),
    "ind": ("weighted_author_auc", None),
    "invasive-species-monitoring": ("roc_auc", None),
    "jigsaw-toxic-comment-classification-challenge": ("roc_auc_columnwise", None),
    "jigsaw-unintended-bias-in-toxicity-classification": ("jigsaw_bias_auc", _UNIT),
    "kuzushiji-recognition": ("point_in_box_f1", _UNIT),
    "linking-writing-processes-to-writing-quality": ("rmse", None),
    "llm-detect-ai-generated-text": ("roc_auc", None),
    "lmsys-chatbot-arena": ("multiclass_log_loss", None),
    "ml2021spring-hw2": ("accuracy", None),
    "mlsp-2013-birds": ("roc_auc", None),
    "movie-review-sentiment-analysis-kernels-only": ("accuracy", None),
    "multi-modal-gesture-recognition": ("levenshtein_per_true", None),
    "new-york-city-taxi-fare-prediction": ("rmse", None),
    "nextproductprediction": ("mrr_at_k", None),
    "nfl-player-contact-detection": ("mcc", None),
    "nomad2018-predict-transparent-conductors": ("rmsle_columnwise", Scale(False, 0.0, None)),
    "osic-pulmonary-fibrosis-progression": ("laplace_log_likelihood", None),
    "paddy-disease-classification": ("accuracy", None),
    "petfinder-pawpularity-score": ("rmse", None),
    "plant-pathology-2021-fgvc8": ("rowwise_set_f1", None),
    "plant-seedlings-classification": ("f1_micro", None),
    "planttraits2024": ("r2_mean_columnwise", None),
    "playground-series-s3e18": ("roc_auc_columnwise", None),
    "playground-series-s3e24": ("roc_auc", None),
    "playground-series-s4e1": ("roc_auc", None),
    "playground-series-s4e2": ("accuracy", None),
    "playground-series-s4e3": ("roc_auc_columnwise", None),
    "predict-volcanic-eruptions-ingv-oe": ("mae", None),
    "pst": ("mean_ap_per_paper", None),
    "random-acts-of-pizza": ("roc_auc", None),
    "rsna-2022-cervical-spine-fracture-detection": ("weighted_multilabel_log_loss", None),
    "rsna-breast-cancer-detection": ("probabilistic_f1", _UNIT),
    "seti-breakthrough-listen": ("roc_auc", None),
    "siim-covid19-detection": ("box_map", _UNIT),
    "spaceship-titanic": ("accuracy", None),
    "spooky-author-identification": ("multiclass_log_loss", None),
    "stanford-covid-vaccine": ("mcrmse", None),
    "statoil-iceberg-classifier-challenge": ("log_loss", None),
    "tabular-playground-series-dec-2021": ("accuracy", None),
    "tabular-playground-series-may-2022": ("roc_auc", None),
    "tensorflow-speech-recognition-challenge": ("accuracy", None),
    "tensorflow2-question-answering": ("span_micro_f1", _UNIT),
    "text-normalization-challenge-english-language": ("exact_match", None),
    "text-normalization-challenge-russian-language": ("exact_match", None),
    "tgs-salt-identification-challenge": ("iou_thresholds_map", None),
    "the-icml-2013-whale-challenge-right-whale-redux": ("roc_auc", None),
    "us-patent-phrase-to-phrase-matching": ("pearson", None),
    "uw-madison-gi-tract-image-segmentation": ("dice_hausdorff_3d", _UNIT),
    "ventilator-pressure-prediction": ("mae", None),
    "vesuvius-challenge-ink-detection": ("rle_f_beta", _UNIT),
    "vinbigdata-chest-xray-abnormalities-detection": ("box_map", _UNIT),
    "whale-categorization-playground": ("map_at_k", None),
    "wsdm-cup-multilingual-chatbot-arena": ("accuracy", None),
}

#: Boards whose index.csv file is not the final private board, and the file shipped instead.
BOARD_OVERRIDES: dict[str, tuple[str, LeaderboardSource]] = {
    "vesuvius-challenge-ink-detection": (
        "leaderboard_private_mledojo.csv",
        LeaderboardSource(
            source="github:MLE-Dojo/MLE-Dojo",
            commit="667a8fd0e959eb47f140ce7e621f831fdb55e5dd",
            path="mledojo/competitions/vesuvius-challenge-ink-detection/info/"
                 "private_leaderboard.csv",
            kind="private", rows=1, notes=[
                "MLE-bench's leaderboard.csv for this competition is Kaggle's public board; "
                "this is the private one, from MLE-Dojo"]),
    ),
}


def _scale_fields(slug: str) -> dict[str, object]:
    metric, scale = BOARD_METRICS[slug]
    if metric in METRICS:
        m = METRICS[metric]
        declared = Scale(m.higher_is_better, m.lower_bound if math.isfinite(m.lower_bound)
                         else None, m.upper_bound if math.isfinite(m.upper_bound) else None)
        if scale is not None and scale != declared:
            raise SystemExit(f"{slug}: the scale written here {scale} differs from the one "
                             f"{metric} declares {declared}; correct BOARD_METRICS")
        scale = declared
    if scale is None:
        raise SystemExit(f"{slug}: metric {metric!r} is not registered; give its scale in "
                         "BOARD_METRICS")
    return {"metric": metric, "higher_is_better": scale.higher_is_better,
            "lower_bound": scale.lower, "upper_bound": scale.upper}


def read_index(shared: Path) -> list[dict[str, str]]:
    """Rows of leaderboards/index.csv, checked."""
    path = shared / "data" / "leaderboards" / "index.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows or set(rows[0]) != INDEX_COLUMNS:
        raise SystemExit(f"{path}: expected columns {sorted(INDEX_COLUMNS)}")
    missing = sorted({r["slug"] for r in rows} - set(BOARD_METRICS))
    if missing:
        raise SystemExit(f"no metric recorded for {missing}; add them to BOARD_METRICS")
    return rows


def entry_dirs_by_slug(catalogue: Path) -> dict[str, Path]:
    """Lower-cased slug -> entry folder, refusing a slug found on two platforms."""
    out: dict[str, Path] = {}
    for task_file in sorted(catalogue.glob(f"*/*/{TASK_FILE}")):
        if task_file.parts[-3][0] in "_.":
            continue
        key = task_file.parent.name.lower()
        if key in out:
            raise SystemExit(f"slug {key!r} is on two platforms: {out[key]} and "
                             f"{task_file.parent}")
        out[key] = task_file.parent
    return out


def source_record(row: dict[str, str], shared: Path) -> tuple[Path, LeaderboardSource]:
    """The file to ship for one index row and its provenance (scale and notes included)."""
    slug = row["slug"]
    folder = shared / "data" / "leaderboards" / slug
    if slug in BOARD_OVERRIDES:
        name, base = BOARD_OVERRIDES[slug]
    else:
        name = LEADERBOARD_FILE
        base = LeaderboardSource(source=f"github:{row['repo']}", commit=row["commit"],
                                 path=row["path"], kind=row["kind"], rows=1)  # type: ignore[arg-type]
    path = folder / name
    fields = base.model_dump()
    fields.update(_scale_fields(slug), sha256=source_sha256(path.read_bytes()))
    return path, LeaderboardSource.model_validate(fields)


def ship_one(row: dict[str, str], entry: Path, shared: Path, *, write: bool) -> bool:
    """Ship one board and its reference tiers; returns whether anything changed."""
    path, record = source_record(row, shared)
    lb = read_leaderboard(path)
    record = record.model_copy(update={"rows": len(lb)})
    task_file = entry / TASK_FILE
    before_spec = dump_taskspec(load_taskspec(task_file))
    lb_file = entry / LEADERBOARD_FILE
    before_lb = lb_file.read_text(encoding="utf-8") if lb_file.is_file() else None
    if not write:
        spec = load_taskspec(task_file)
        return (before_lb != leaderboard_to_compact_csv(lb) or spec.leaderboard != record
                or spec.reference_tiers != _tiers(spec.reference_tiers, row))
    spec = store_leaderboard(entry, lb, record)
    tiers = _tiers(spec.reference_tiers, row)
    if tiers != spec.reference_tiers:
        save_taskspec(spec.model_copy(update={"reference_tiers": tiers}), task_file)
    return (dump_taskspec(load_taskspec(task_file)) != before_spec
            or lb_file.read_text(encoding="utf-8") != before_lb)


def _tiers(current: dict[str, str], row: dict[str, str]) -> dict[str, str]:
    tiers = dict(current)
    if row["mle_bench_complexity"]:
        tiers["mle-bench"] = row["mle_bench_complexity"]
    if row["slug"] in TAM_RELEASE_TIERS:
        tiers["tam-bench"] = TAM_RELEASE_TIERS[row["slug"]]
    return dict(sorted(tiers.items()))


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--catalogue", type=Path, default=bundled_catalogue_dir())
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 on a difference")
    args = ap.parse_args(argv)
    rows = read_index(args.shared)
    entries = entry_dirs_by_slug(args.catalogue)
    unknown = sorted(r["slug"] for r in rows if r["slug"].lower() not in entries)
    if unknown:
        raise SystemExit(f"index.csv slugs not in the catalogue: {unknown}")
    changed = [r["slug"] for r in rows
               if ship_one(r, entries[r["slug"].lower()], args.shared, write=not args.check)]
    total = sum((entries[r["slug"].lower()] / LEADERBOARD_FILE).stat().st_size for r in rows
                if (entries[r["slug"].lower()] / LEADERBOARD_FILE).is_file())
    print(f"{len(rows)} leaderboards; {len(changed)} "
          f"{'would change' if args.check else 'changed'}; {total:,} bytes of leaderboard.csv "
          f"(budget {BUDGET_BYTES:,})")
    for slug in changed:
        print(f"  {'differs' if args.check else 'wrote'}: {slug}")
    if total > BUDGET_BYTES:
        print(f"over the budget by {total - BUDGET_BYTES:,} bytes", file=sys.stderr)
        return 1
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
