"""Write the 18 Lite tasks' catalogue entries (task.json) from the paper's schemas plus our facts.

Run at development time only; the committed task.json files are self-contained and the package
never reads the shared folder::

    .venv/bin/python scripts/make_lite_tasks.py [--shared ../shared] [--check]

Each TaskSpec keeps the paper's seven fields verbatim (``schema.io.from_paper``) and adds what
the paper's schema lacks: title, URL, modality, field, leaderboard size, the grading spec and
provenance notes on the release's known defects. ``--check`` compares instead of writing and
exits 1 when a file differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tambench.core.leaderboard import read_leaderboard  # noqa: E402
from tambench.core.metrics import get_metric  # noqa: E402
from tambench.core.metrics.lite import POSE_COLUMNS  # noqa: E402
from tambench.schema.io import dump_taskspec, from_paper, write_text_atomic  # noqa: E402
from tambench.schema.taskspec import GradingSpec, Modality, Provenance  # noqa: E402

CATALOGUE = REPO / "tambench" / "tasks" / "catalogue"
KAGGLE = "https://www.kaggle.com/competitions/"
BIENDATA = "https://www.biendata.xyz/competition/"

COMMON_NOTE = "Built from the paper's public release (schema.json, grader facts)."
STRICT_IDS_NOTE = (
    "The release's grader skips unknown ids and averages over the submitted rows only, so "
    "missing rows go unpunished; tambench requires every id and averages over all of them."
)


def csv_grading(
    metric: str, ids: list[str], targets: list[str], header: list[str] | None = None, **params: Any
) -> dict[str, Any]:
    return {
        "metric": metric,
        "metric_params": params,
        "id_columns": ids,
        "target_columns": targets,
        "submission_format": "csv",
        "submission_header": header or [*ids, *targets],
        "answers_file": "answers.csv",
    }


def doc_grading(metric: str, fmt: str, **params: Any) -> dict[str, Any]:
    return {
        "metric": metric,
        "metric_params": params,
        "id_columns": [],
        "target_columns": [],
        "submission_format": fmt,
        "submission_header": [],
        "answers_file": f"answers.{fmt}",
    }


#: task id -> facts the paper's schema lacks.
FACTS: dict[str, dict[str, Any]] = {
    "kaggle/mlsp-2013-birds": {
        "title": "MLSP 2013 Bird Classification Challenge",
        "url": KAGGLE + "mlsp-2013-birds",
        "modality": Modality.AUDIO,
        "field": "ecology (bioacoustics)",
        "grading": csv_grading("roc_auc", ["Id"], ["Probability"]),
        "notes": ["Id = rec_id * 100 + species; answers hold 0/1 per (recording, species)."],
    },
    "kaggle/tensorflow-speech-recognition-challenge": {
        "title": "TensorFlow Speech Recognition Challenge",
        "url": KAGGLE + "tensorflow-speech-recognition-challenge",
        "modality": Modality.AUDIO,
        "field": "speech recognition",
        "grading": csv_grading("accuracy", ["fname"], ["label"]),
        "notes": ["Labels are compared as exact strings; unknown labels are rejected."],
    },
    "kaggle/cornell-birdcall-identification": {
        "title": "Cornell Birdcall Identification",
        "url": KAGGLE + "birdsong-recognition",
        "modality": Modality.AUDIO,
        "field": "ecology (bioacoustics)",
        "grading": csv_grading("rowwise_set_f1", ["row_id"], ["birds"], empty_token="nocall"),
        "notes": [
            "The competition's Kaggle slug is birdsong-recognition; the release names it "
            "cornell-birdcall-identification.",
            "Row-wise F1 over space-separated bird sets; 'nocall' is the empty set.",
        ],
    },
    "biendata/ind": {
        "title": "WhoIsWho-IND: Incorrect Assignment Detection (KDD Cup 2024 OAG-Challenge)",
        "url": BIENDATA + "ind_kdd_2024/",
        "modality": Modality.GRAPH,
        "field": "academic data mining",
        "grading": doc_grading("weighted_author_auc", "json"),
        "notes": [
            "Submission: JSON {author_id: {paper_id: score}}; a higher score means the paper is "
            "more likely CORRECTLY assigned. The release's schema says '0 for correct "
            "assignment, 1 for incorrect', which contradicts its grader (normal = 1, outlier "
            "= 0); tambench follows the grader.",
            "Answers: JSON {author_id: {paper_id: 1 (normal) | 0 (outlier)}}.",
        ],
    },
    "biendata/pst": {
        "title": "PST: Paper Source Tracing (KDD Cup 2024 OAG-Challenge)",
        "url": BIENDATA + "pst_kdd_2024/",
        "modality": Modality.GRAPH,
        "field": "academic data mining",
        "grading": doc_grading("mean_ap_per_paper", "json"),
        "notes": [
            "Submission: JSON {paper_id: [score in [0, 1] per reference, in the given "
            "reference order]}, the list form the release's grader reads; the schema's wording "
            "(a mapping from serial number to score) differs.",
            "Answers: JSON {paper_id: [1 for a source reference, else 0]}.",
            STRICT_IDS_NOTE,
        ],
    },
    "biendata/aqa": {
        "title": "AQA: Academic Question Answering (KDD Cup 2024 OAG-Challenge)",
        "url": BIENDATA + "aqa_kdd_2024/",
        "modality": Modality.GRAPH,
        "field": "academic search",
        "grading": doc_grading("map_at_k_lines", "txt", k=20, sep=","),
        "notes": [
            "Submission: plain text, line i lists up to 20 distinct comma-separated paper ids "
            "for question i, most relevant first; lines are matched by position.",
            "Answers: plain text, line i lists the relevant paper ids of question i.",
        ],
    },
    "kaggle/denoising-dirty-documents": {
        "title": "Denoising Dirty Documents",
        "url": KAGGLE + "denoising-dirty-documents",
        "modality": Modality.IMAGE,
        "field": "document image processing",
        "grading": csv_grading("rmse", ["id"], ["value"]),
        "notes": ["One row per pixel, id = image_row_col, intensities in [0, 1]."],
    },
    "kaggle/statoil-iceberg-classifier-challenge": {
        "title": "Statoil/C-CORE Iceberg Classifier Challenge",
        "url": KAGGLE + "statoil-iceberg-classifier-challenge",
        "modality": Modality.IMAGE,
        "field": "remote sensing",
        "grading": csv_grading("log_loss", ["id"], ["is_iceberg"]),
        "notes": ["Binary log loss with predictions clipped to [1e-15, 1 - 1e-15]."],
    },
    "kaggle/image-matching-challenge-2024-hexathlon": {
        "title": "Image Matching Challenge 2024 - Hexathlon",
        "url": KAGGLE + "image-matching-challenge-2024",
        "modality": Modality.IMAGE,
        "field": "computer vision (3D reconstruction)",
        "grading": csv_grading("pose_maa", ["image_id"], POSE_COLUMNS),
        "notes": [
            "The schema describes the competition's format (image_path, dataset, scene, "
            "rotation_matrix, translation_vector); the release's grader reads image_id and the "
            "12 columns R00..R22, T0..T2, which tambench follows.",
            "pose_maa: per image, rotation error (degrees) and camera-centre error (metres) "
            "against paired thresholds linspace(1, 10, 10) deg and geomspace(0.2, 5, 10) m; no "
            "similarity alignment; unregistered images must be submitted with some finite "
            "pose (NaN is rejected) and count as inaccurate.",
            STRICT_IDS_NOTE,
        ],
    },
    "kaggle/multi-modal-gesture-recognition": {
        "title": "Multi-modal Gesture Recognition",
        "url": KAGGLE + "multi-modal-gesture-recognition",
        "modality": Modality.MULTIMODAL,
        "field": "human-computer interaction",
        "grading": csv_grading("levenshtein_per_true", ["Id"], ["Sequence"]),
        "notes": [
            "The schema describes 'SessionID,label1,...,labelN'; the release's grader reads "
            "Id,Sequence with the gesture numbers space-separated, which tambench follows.",
        ],
    },
    "aicrowd/nextproductprediction": {
        "title": "Amazon KDD Cup 2023, Task 1: Next Product Recommendation",
        "url": "https://www.aicrowd.com/challenges/amazon-kdd-cup-23-multilingual-"
        "recommendation-challenge/problems/task-1-next-product-recommendation",
        "modality": Modality.MULTIMODAL,
        "field": "e-commerce",
        "grading": {**doc_grading("mrr_at_k", "txt", k=100)},
        "notes": [
            "The schema asks for a parquet file; tambench grades plain text, line i holding "
            "up to 100 space-separated product ids for session i, most confident first (lines "
            "are matched by position, as the release's grader matched rows).",
            "Answers: plain text, line i holding the next product id of session i.",
        ],
    },
    "kaggle/planttraits2024": {
        "title": "PlantTraits2024 - FGVC11",
        "url": KAGGLE + "planttraits2024",
        "modality": Modality.MULTIMODAL,
        "field": "ecology (plant traits)",
        "grading": csv_grading(
            "r2_mean_columnwise", ["id"], ["X4", "X11", "X18", "X26", "X50", "X3112"],
            clip_at_zero=True,
        ),
        "notes": [
            "Mean R^2 over the six traits with each trait's R^2 clipped at 0, as the release "
            "grades; its leaderboard holds negative scores (and a -3e40 junk row) that a "
            "clipped metric cannot produce.",
        ],
    },
    "kaggle/new-york-city-taxi-fare-prediction": {
        "title": "New York City Taxi Fare Prediction",
        "url": KAGGLE + "new-york-city-taxi-fare-prediction",
        "modality": Modality.TABULAR,
        "field": "transportation",
        "grading": csv_grading("rmse", ["key"], ["fare_amount"]),
        "notes": ["The leaderboard holds a 2.5e7 junk row."],
    },
    "kaggle/binary-prediction-of-poisonous-mushrooms": {
        "title": "Binary Prediction of Poisonous Mushrooms",
        "url": KAGGLE + "playground-series-s4e8",
        "modality": Modality.TABULAR,
        "field": "biology",
        "grading": csv_grading("mcc", ["id"], ["class"]),
        "notes": [
            "The competition's Kaggle slug is playground-series-s4e8 (Playground Series "
            "season 4, episode 8).",
            "Matthews correlation of the e/p labels.",
        ],
    },
    "kaggle/stanford-covid-vaccine": {
        "title": "OpenVaccine: COVID-19 mRNA Vaccine Degradation Prediction",
        "url": KAGGLE + "stanford-covid-vaccine",
        "modality": Modality.TABULAR,
        "field": "bioinformatics",
        "grading": csv_grading(
            "mcrmse",
            ["id_seqpos"],
            ["reactivity", "deg_Mg_pH10", "deg_Mg_50C"],
            ["id_seqpos", "reactivity", "deg_Mg_pH10", "deg_pH10", "deg_Mg_50C", "deg_50C"],
            scored_column="scored",
        ),
        "notes": [
            "Five target columns are required, three are scored (reactivity, deg_Mg_pH10, "
            "deg_Mg_50C).",
            "The answers carry a column 'scored': 1 for the sequence positions the "
            "competition scored (the first seq_scored positions), 0 for the others, which "
            "must be submitted but do not count.",
        ],
    },
    "kaggle/text-normalization-challenge-english-language": {
        "title": "Text Normalization Challenge - English Language",
        "url": KAGGLE + "text-normalization-challenge-english-language",
        "modality": Modality.TEXT,
        "field": "speech technology (text normalisation)",
        "grading": csv_grading("exact_match", ["id"], ["after"]),
        "notes": [
            "Accuracy of exact strings, registered as exact_match (kind text) so any string "
            "is a valid prediction rather than one of the answers' labels.",
        ],
    },
    "kaggle/lmsys-chatbot-arena": {
        "title": "LMSYS - Chatbot Arena Human Preference Predictions",
        "url": KAGGLE + "lmsys-chatbot-arena",
        "modality": Modality.TEXT,
        "field": "natural language processing",
        "grading": csv_grading(
            "multiclass_log_loss", ["id"], ["winner_model_a", "winner_model_b", "winner_tie"]
        ),
        "notes": ["Rows are clipped to [1e-15, 1 - 1e-15] and rescaled to sum to 1 (Kaggle)."],
    },
    "kaggle/eedi-mining-misconceptions-in-mathematics": {
        "title": "Eedi - Mining Misconceptions in Mathematics",
        "url": KAGGLE + "eedi-mining-misconceptions-in-mathematics",
        "modality": Modality.TEXT,
        "field": "education",
        "grading": csv_grading(
            "map_at_k", ["QuestionId_Answer"], ["MisconceptionId"], k=25, relevant="single"
        ),
        "notes": [
            "MAP@25 with one true misconception per row; up to 25 space-separated ids.",
            STRICT_IDS_NOTE,
        ],
    },
}


def build(shared: Path) -> dict[Path, str]:
    """task.json text for each Lite task, keyed by its path in the catalogue."""
    out: dict[Path, str] = {}
    for task_id, facts in FACTS.items():
        slug = task_id.split("/", 1)[1]
        folder = shared / "data" / "tam-lite" / slug
        paper = json.loads((folder / "schema.json").read_text(encoding="utf-8"))
        n_teams = len(read_leaderboard(folder / "leaderboard.csv"))
        grading = GradingSpec.model_validate(facts["grading"])
        get_metric(grading.metric).resolve_params(grading.metric_params)  # ids and params exist
        spec = from_paper(
            paper,
            task_id,
            title=facts["title"],
            url=facts["url"],
            modality=facts["modality"],
            field=facts["field"],
            n_teams=n_teams,
            grading=grading,
            provenance=Provenance(mapper="paper-release", notes=[COMMON_NOTE, *facts["notes"]]),
        )
        out[CATALOGUE / task_id / "task.json"] = dump_taskspec(spec)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    files = build(args.shared)
    stale = [p for p, text in files.items() if not p.is_file() or p.read_text() != text]
    if args.check:
        for p in stale:
            print(f"differs: {p.relative_to(REPO)}")
        return 1 if stale else 0
    for p in stale:
        write_text_atomic(p, files[p])
        print(f"wrote {p.relative_to(REPO)}")
    print(f"{len(files)} Lite tasks, {len(stale)} written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
