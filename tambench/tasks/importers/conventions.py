"""Grading conventions of known Kaggle competitions, applied to imported task specs.

An imported competition must grade through ``tambench grade --task`` with no flag: which answers
rows are scored, the token of an empty mask, the class labels and their other spellings, the
answers' names of the targets, the columns metric parameters read. :data:`CONVENTIONS` holds
them per Kaggle slug (lower case), each entry with the source it was read from: the
competition's published evaluation rules (as MLE-bench's ``description.md`` keeps them) and
the layout of MLE-bench's prepared answers (its ``prepare.py`` and ``grade.py``, read as
data), so an imported task reads MLE-bench's answers files as they are.

:func:`apply_conventions` is what an importer calls (the MLE-bench importer does; an importer
of another benchmark that holds the same competitions calls it the same way)::

    grading, notes = apply_conventions("spaceship-titanic", decided_grading)

An entry's fields replace the imported ones (the table is curated; the importer's reading of
a description is a guess), each replacement named in the notes; an entry naming the id or
target columns replaces the imported submission header too (by its own, or the ids and the
targets). An entry with ``metric``,
``id_columns`` and ``target_columns`` builds the grading an import left unset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from tambench.schema.taskspec import GradingSpec

#: The published rule of MLE-bench's prepared answers, cited by many entries.
MLE_ANSWERS = "MLE-bench's prepare.py writes the private answers with these columns"


@dataclass(frozen=True)
class Convention:
    """GradingSpec fields of one competition and where they come from."""

    fields: dict[str, Any]
    source: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    """What the task still cannot do with MLE-bench's answers as they are."""
    departures: dict[str, str] = field(default_factory=dict)
    """How a benchmark's own grader departs from the published rule, by the benchmark its
    importer reads (``"mle-dojo"``: its ``metric.py``), where that importer's own reading of
    the grader cannot see it; the task follows the published rule and names the departure."""


def _digits(lo: int, hi: int) -> list[str]:
    return [str(i) for i in range(lo, hi + 1)]


JIGSAW_IDENTITIES = ["male", "female", "homosexual_gay_or_lesbian", "christian", "jewish",
                     "muslim", "black", "white", "psychiatric_or_mental_illness"]
HMS_VOTES = ["seizure_vote", "lpd_vote", "gpd_vote", "lrda_vote", "grda_vote", "other_vote"]
SPEECH_LABELS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go",
                 "silence", "unknown"]
PADDY_LABELS = ["bacterial_leaf_blight", "bacterial_leaf_streak", "bacterial_panicle_blight",
                "blast", "brown_spot", "dead_heart", "downy_mildew", "hispa", "normal",
                "tungro"]
#: The 80 label columns of freesound-audio-tagging-2019's sample submission, in its order (the
#: class list MLE-bench's ``vocabulary.py`` and MLE-Dojo's ``utils/prepare.py`` hold, which
#: MLE-bench's preparer checks against the sample submission's header).
FREESOUND_2019_LABELS = """
Accelerating_and_revving_and_vroom Accordion Acoustic_guitar Applause Bark Bass_drum Bass_guitar
Bathtub_(filling_or_washing) Bicycle_bell Burping_and_eructation Bus Buzz Car_passing_by Cheering
Chewing_and_mastication Child_speech_and_kid_speaking Chink_and_clink Chirp_and_tweet Church_bell
Clapping Computer_keyboard Crackle Cricket Crowd Cupboard_open_or_close Cutlery_and_silverware
Dishes_and_pots_and_pans Drawer_open_or_close Drip Electric_guitar Fart Female_singing
Female_speech_and_woman_speaking Fill_(with_liquid) Finger_snapping Frying_(food) Gasp Glockenspiel
Gong Gurgling Harmonica Hi-hat Hiss Keys_jangling Knock Male_singing Male_speech_and_man_speaking
Marimba_and_xylophone Mechanical_fan Meow Microwave_oven Motorcycle Printer Purr
Race_car_and_auto_racing Raindrop Run Scissors Screaming Shatter Sigh Sink_(filling_or_washing)
Skateboard Slam Sneeze Squeak Stream Strum Tap Tick-tock Toilet_flush
Traffic_noise_and_roadway_noise Trickle_and_dribble Walk_and_footsteps Water_tap_and_faucet
Waves_and_surf Whispering Writing Yell Zipper_(clothing)
""".split()
#: A value policy for rules that only rank the submitted scores (any finite number is valid).
ANY_SCORE = {"probability_range": "any"}

CONVENTIONS: dict[str, Convention] = {
    # --- which answers rows are scored --------------------------------------------------------
    "jigsaw-toxic-comment-classification-challenge": Convention(
        {"unscored_marker": "-1"},
        "Kaggle's data page: test_labels.csv marks with -1 the comments not used for scoring; "
        "MLE-bench's grade.py keeps the rows whose labels sum to 0 or more"),
    "ventilator-pressure-prediction": Convention(
        {"metric": "mae", "id_columns": ["id"], "target_columns": ["pressure"],
         "scored_rows": {"rule": "where", "column": "u_out", "scored": ["0"],
                         "unscored": ["1"]}},
        "evaluation page: the expiratory phase is not scored (MAE over rows with u_out = 0); "
        "MLE-bench's answers keep u_out"),
    "osic-pulmonary-fibrosis-progression": Convention(
        {"metric": "laplace_log_likelihood", "id_columns": ["Patient_Week"],
         "target_columns": ["FVC", "Confidence"], "unscored_marker": "",
         "submission_only_columns": {"Confidence": "70"},
         "scored_rows": {"rule": "last_per_group", "group_column": "Patient",
                         "order_column": "Weeks", "k": 3}},
        "evaluation page: scored on the final three FVC measurements of each patient, each "
        "prediction with its Confidence (the submission's own column: the answers hold the "
        "FVC; the sample gives 70, the metric's floor of sigma); "
        f"{MLE_ANSWERS} (Patient, Weeks, FVC empty in the weeks without a measurement)"),
    "stanford-covid-vaccine": Convention(
        {"metric": "mcrmse", "id_columns": ["id_seqpos"],
         "target_columns": ["reactivity", "deg_Mg_pH10", "deg_Mg_50C"],
         "submission_header": ["id_seqpos", "reactivity", "deg_Mg_pH10", "deg_pH10",
                               "deg_Mg_50C", "deg_50C"],
         "scored_rows": {"rule": "where", "column": ["keep", "scored"],
                         "scored": ["True", "1"]}},
        "evaluation page: MCRMSE over the three scored targets, the first 68 (or 91) positions "
        "of each sequence; the submission holds all five; MLE-bench's answers flag the scored "
        "positions in `keep`"),
    "h-and-m-personalized-fashion-recommendations": Convention(
        {"metric": "map_at_k", "metric_params": {"k": 12}, "id_columns": ["customer_id"],
         "target_columns": ["prediction"], "extra_ids": "ignore",
         "ids_from": {"file": "sample_submission.csv", "column": "customer_id"}},
        "evaluation page: MAP@12 over the customers who bought in the test week; the "
        "submission lists every customer of the sample submission"),
    # --- empty values, normalised truths, answers columns ---------------------------------------
    "google-research-identify-contrails-reduce-global-warming": Convention(
        {"metric": "global_dice", "id_columns": ["record_id"],
         "target_columns": ["encoded_pixels"], "empty_token": "-",
         "metric_params": {"height_column": "height", "width_column": "width"}},
        "evaluation page: an empty prediction is written '-'; global Dice; MLE-bench's answers "
        "hold height and width"),
    "hms-harmful-brain-activity-classification": Convention(
        {"metric": "kl_divergence", "id_columns": ["eeg_id"], "target_columns": HMS_VOTES,
         "normalize_truths": "row_sum"},
        "evaluation page: KL divergence between the predicted and the annotators' vote "
        "distributions, the predicted rows summing to one; the answers hold vote counts "
        "(MLE-bench divides each row by its sum)"),
    "jigsaw-unintended-bias-in-toxicity-classification": Convention(
        {"metric": "jigsaw_bias_auc", "id_columns": ["id"], "target_columns": ["prediction"],
         "answers_target_columns": ["toxicity"],
         "metric_params": {"identities_columns": JIGSAW_IDENTITIES}},
        f"evaluation page: bias AUCs over the nine identity subgroups; {MLE_ANSWERS} "
        "(toxicity and the identity columns)"),
    "rsna-2022-cervical-spine-fracture-detection": Convention(
        {"metric": "weighted_multilabel_log_loss", "id_columns": ["row_id"],
         "target_columns": ["fractured"],
         "metric_params": {"weights": {"patient_overall": 7, **{f"C{i}": 1 for i in range(1, 8)}},
                           "positive_weights": {"patient_overall": 14,
                                                **{f"C{i}": 2 for i in range(1, 8)}},
                           "labels_column": "prediction_type"}},
        "evaluation page: weighted log loss, vertebrae weighted 1 (2 when fractured), "
        f"patient_overall 7 (14); {MLE_ANSWERS} (prediction_type names each row's label)"),
    "uw-madison-gi-tract-image-segmentation": Convention(
        {"metric": "dice_hausdorff_3d", "id_columns": ["id", "class"],
         "target_columns": ["predicted"]},
        f"evaluation page: 0.4 x Dice + 0.6 x 3-D Hausdorff; {MLE_ANSWERS} (id, class, "
        "predicted, image_height, image_width)"),
    "vesuvius-challenge-ink-detection": Convention(
        {"metric": "rle_f_beta", "metric_params": {"beta": 0.5, "height_column": "height",
                                                   "width_column": "width"},
         "id_columns": ["Id"], "target_columns": ["Predicted"]},
        f"evaluation page: F0.5 over run-length masks; {MLE_ANSWERS} (width, height)"),
    "smartphone-decimeter-2022": Convention(
        {"metric": "haversine_p50_p95", "id_columns": ["tripId", "UnixTimeMillis"],
         "target_columns": ["LatitudeDegrees", "LongitudeDegrees"],
         "metric_params": {"groups_column": "tripId"}},
        "evaluation page: mean of the 50th and 95th percentile errors per phone, averaged; "
        "MLE-bench's sample submission and answers key rows by tripId and UnixTimeMillis"),
    "alaska2-image-steganalysis": Convention(
        {"value_policy": {"probability_range": "any"}},
        "evaluation page: the weighted AUC ranks the submitted Label scores, which may be any "
        "real number; MLE-bench scores them as they are"),
    "amazon-employee-access-challenge": Convention(
        {"value_policy": ANY_SCORE},
        "evaluation page (MLE-Dojo's info/description.txt): ACTION predictions need not be "
        "binary and may be any real value; the AUC only ranks them"),
    "stumbleupon": Convention(
        {"value_policy": ANY_SCORE},
        "evaluation page (MLE-Dojo's info/description.txt): any real-valued number may be "
        "submitted as a label prediction, the AUC being sensitive to the ranking only"),
    "3d-object-detection-for-autonomous-vehicles": Convention(
        {"metric": "box3d_map", "metric_params": {"form": "image_precision"},
         "id_columns": ["Id"], "target_columns": ["PredictionString"]},
        "evaluation page (MLE-bench's description.md, openai/mle-bench@783b15a): per image, "
        "TP / (TP + FP + FN) of 3-D boxes at each IoU threshold 0.50, 0.55, ..., 0.95, "
        "averaged over the thresholds, the score being the mean over the test images (an "
        "image without true boxes scores 0 for any prediction); columns Id, PredictionString. "
        "MLE-bench's grade.py also scores image by image over those thresholds, but within an "
        "image it takes the organisers' per-class average precision (mAP_evaluation.py) "
        "where the page counts TP / (TP + FP + FN); the page's rule is followed"),
    "detecting-insults-in-social-commentary": Convention(
        {"metric": "roc_auc", "id_columns": ["Comment"], "target_columns": ["Insult"],
         "submission_header": ["Insult", "Date", "Comment"]},
        "evaluation page: AUC of the insult probability, the predictions in the first column "
        "of the sample submission sample_submission_null.csv, whose header is Insult, Date, "
        "Comment (MLE-bench's prepare.py rebuilds it in that format, openai/mle-bench@783b15a); "
        "the file has no id column: MLE-bench's grade.py matches rows by Comment"),
    "freesound-audio-tagging-2019": Convention(
        {"metric": "lwlrap", "id_columns": ["fname"], "target_columns": FREESOUND_2019_LABELS},
        "evaluation page: label-weighted label-ranking average precision (lwlrap); header "
        "fname and the 80 labels in the sample submission's order (elided on the page; the list "
        "in MLE-bench's vocabulary.py, openai/mle-bench@783b15a, and MLE-Dojo's "
        "utils/prepare.py, MLE-Dojo/MLE-Dojo@667a8fd, which MLE-bench's preparer checks "
        "against sample_submission.csv)"),
    "flavours-of-physics-kernels-only": Convention(
        {"metric": "weighted_auc_tpr", "id_columns": ["id"], "target_columns": ["prediction"],
         "metric_params": {"tpr_thresholds": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0],
                           "weights": [2.0, 1.5, 1.0, 0.5, 0.0],
                           "filter_column": "min_ANNmuon", "filter_above": 0.4}},
        "evaluation page (MLE-Dojo's info/description.txt, MLE-Dojo/MLE-Dojo@667a8fd): ROC AUC "
        "weighted by true-positive-rate band (0-0.2: 2, 0.2-0.4: 1.5, 0.4-0.6: 1, 0.6-0.8: "
        "0.5, 0.8-1: 0) over the test rows with min_ANNmuon > 0.4; columns id, prediction",
        departures={"mle-dojo": "utils/metric.py rescales the weighted area so that a random "
                                "ranking scores 0 and integrates FPR over TPR on a grid, where "
                                "Kaggle's weighted AUC scores a random ranking 0.5"}),
    "home-data-for-ml-course": Convention(
        {"metric": "mae", "id_columns": ["Id"], "target_columns": ["SalePrice"]},
        "Kaggle's metric for this course competition is mean absolute error (its metric tag "
        "in MLE-Dojo's prepare/mle.json, and the leaderboard's MAE scale); the page copies "
        "House Prices' RMSE-of-logs text; columns Id, SalePrice",
        departures={"mle-dojo": "utils/metric.py computes RMSE on raw prices where Kaggle "
                                "scores MAE"}),
    "siim-covid19-detection": Convention(
        {"metric": "box_map", "metric_params": {"iou_thresholds": [0.5]}, "id_columns": ["id"],
         "target_columns": ["PredictionString"]},
        "evaluation page: mAP at IoU 0.5 over study and image rows; columns id, "
        "PredictionString"),
    "vinbigdata-chest-xray-abnormalities-detection": Convention(
        {"metric": "box_map", "metric_params": {"iou_thresholds": [0.4]},
         "id_columns": ["image_id"], "target_columns": ["PredictionString"]},
        "evaluation page: mAP at IoU > 0.4; submission columns image_id, PredictionString",
        ("MLE-bench's answers hold one row per box (image_id, class_id, x_min, ...): "
         "`tambench prepare` writes one PredictionString per image",)),
    "imet-2020-fgvc7": Convention(
        {"metric": "f1_micro_multilabel", "id_columns": ["id"],
         "target_columns": ["attribute_ids"]},
        "evaluation page: micro-averaged F1 over the attribute sets of each image",
        departures={"mle-dojo": "utils/metric.py binarises over the attributes of the answers "
                                "only, so predicted attributes absent from every answer row are "
                                "dropped instead of counted as false positives"}),
    "tensorflow2-question-answering": Convention(
        {"metric": "span_micro_f1", "id_columns": ["example_id"],
         "target_columns": ["PredictionString"]},
        "evaluation page: micro F1 over long and short answer spans",
        ("MLE-bench's answers are the JSON lines of the original annotations, read as one row "
         "per example and answer kind (the answers format nq-jsonl)",)),
    # --- free text graded by exact match ----------------------------------------------------
    "text-normalization-challenge-english-language": Convention(
        {"metric": "exact_match", "id_columns": ["id"], "target_columns": ["after"]},
        "evaluation page: the share of tokens whose normalised text is exactly right; the "
        "text is free, not a class"),
    "text-normalization-challenge-russian-language": Convention(
        {"metric": "exact_match", "id_columns": ["id"], "target_columns": ["after"]},
        "evaluation page: the share of tokens whose normalised text is exactly right; the "
        "text is free, not a class"),
    # --- class labels and their spellings -------------------------------------------------------
    "spaceship-titanic": Convention(
        {"labels": ["False", "True"], "label_equivalence": ["boolean"]},
        "evaluation page: Transported is True or False; MLE-bench's grader compares the values "
        "pandas reads, so 1 and 0 are True and False"),
    "aptos2019-blindness-detection": Convention(
        {"labels": _digits(0, 4), "label_equivalence": ["number"]},
        "evaluation page: diagnosis is an integer grade 0-4 (quadratic weighted kappa); "
        "MLE-bench compares numbers, so 3.0 is 3"),
    "learning-agency-lab-automated-essay-scoring-2": Convention(
        {"labels": _digits(1, 6), "label_equivalence": ["number"]},
        "evaluation page: score is an integer 1-6 (quadratic weighted kappa); MLE-bench "
        "compares numbers, so 3.0 is 3"),
    "cassava-leaf-disease-classification": Convention(
        {"labels": _digits(0, 4), "label_equivalence": ["number"]},
        "data page: label is the disease's integer code 0-4; MLE-bench compares numbers"),
    "movie-review-sentiment-analysis-kernels-only": Convention(
        {"labels": _digits(0, 4), "label_equivalence": ["number"]},
        "data page: Sentiment is 0 (negative) to 4 (positive); MLE-bench compares numbers"),
    "tabular-playground-series-dec-2021": Convention(
        {"labels": _digits(1, 7), "label_equivalence": ["number"]},
        "data page: Cover_Type is an integer class 1-7; MLE-bench compares numbers"),
    "nfl-player-contact-detection": Convention(
        {"labels": ["0", "1"], "label_equivalence": ["number", "boolean"]},
        "evaluation page: contact is 1 or 0 (Matthews correlation); MLE-bench compares the "
        "values pandas reads, so 1.0 and True are 1"),
    "tensorflow-speech-recognition-challenge": Convention(
        {"labels": SPEECH_LABELS},
        "evaluation page: the 12 labels (ten words, silence, unknown), written in lower case"),
    "paddy-disease-classification": Convention(
        {"labels": PADDY_LABELS},
        "data page: the nine diseases and normal, as train.csv writes them"),
    "iwildcam-2019-fgvc6": Convention(
        {"metric": "f1_macro", "id_columns": ["Id"], "target_columns": ["Category"]},
        "evaluation page: macro F1; submission columns Id, Category (MLE-bench's grader reads "
        "Category)"),
}


def conventions_for(slug: str) -> Convention | None:
    """The conventions of a Kaggle competition (slug compared in lower case), or None."""
    return CONVENTIONS.get(slug.lower())


def departure_of(slug: str, benchmark: str) -> str:
    """How ``benchmark``'s grader of a competition departs from its published rule, as the
    table records it (empty when it records none)."""
    entry = conventions_for(slug)
    return entry.departures.get(benchmark, "") if entry is not None else ""


SETTLED_BY_TABLE = "grading settled by tambench's conventions table (see the notes)"


def settled_by_table(warnings: list[str], unfilled: list[str], unset: str
                     ) -> tuple[list[str], list[str]]:
    """An importer's warnings and unfilled fields once the table built the grading its
    witnesses left unset: ``unset`` (the importer's phrase) now says the table settled it, and
    the grading fields are no longer unfilled."""
    return ([w.replace(unset, SETTLED_BY_TABLE) for w in warnings],
            [u for u in unfilled if not u.startswith("grading")])


def apply_conventions(slug: str, grading: GradingSpec | None
                      ) -> tuple[GradingSpec | None, list[str]]:
    """The grading with the competition's conventions applied, and notes saying what changed.

    A grading left unset is built when the entry names the metric and the columns; an entry
    that does not make a valid GradingSpec with the imported fields is reported, and the
    imported grading kept.
    """
    entry = conventions_for(slug)
    if entry is None:
        return grading, []
    base = grading.model_dump(exclude_defaults=True) if grading is not None else {}
    if grading is None and not {"metric", "id_columns", "target_columns"} <= set(entry.fields):
        return None, [f"grading conventions of {slug} not applied: the import set no grading "
                      "and the table does not name its metric and columns"]
    if grading is not None and entry.fields.get("metric", grading.metric) != grading.metric:
        base = {k: v for k, v in base.items() if k not in ("metric", "metric_params")}
    if any(k in entry.fields for k in ("id_columns", "target_columns")):
        base.pop("submission_header", None)  # read with the columns the table replaces
    fields = {**base, **entry.fields}
    if "submission_header" not in fields and fields.get("id_columns"):
        fields["submission_header"] = [*fields["id_columns"], *fields.get("target_columns", [])]
    changed = sorted(k for k, v in fields.items() if base.get(k) != v)
    try:
        out = GradingSpec.model_validate(fields)
    except ValidationError as exc:
        return grading, [f"grading conventions of {slug} not applied: {exc.errors()[0]['msg']}"]
    notes = [f"grading conventions of {slug} applied ({', '.join(changed) or 'no change'}) "
             f"from tambench's table; source: {entry.source}", *entry.notes]
    return out, notes
