"""Recipes and raw fixtures for the real downloads: the mlebench group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
"""

from __future__ import annotations

import json
from typing import Any

from recipe_layouts import mle

#: The identity columns jigsaw's bias metric reads (its grading's identities_columns).
_IDENTITIES = ["male", "female", "homosexual_gay_or_lesbian", "christian", "jewish", "muslim",
               "black", "white", "psychiatric_or_mental_illness"]
#: jigsaw's other identity columns (24 in all in its tables).
_MORE_IDENTITIES = ["asian", "atheist", "bisexual", "buddhist", "heterosexual", "hindu",
                    "intellectual_or_learning_disability", "latino", "other_disability",
                    "other_gender", "other_race_or_ethnicity", "other_religion",
                    "other_sexual_orientation", "physical_disability", "transgender"]
#: The other label columns of jigsaw's tables (toxicity subtypes, reactions, annotator counts).
_JIGSAW_LABELS = ["severe_toxicity", "obscene", "identity_attack", "insult", "threat",
                  "sexual_explicit", "identity_annotator_count", "toxicity_annotator_count"]
_JIGSAW_META = ["created_date", "publication_id", "parent_id", "article_id", "rating", "funny",
                "wow", "sad", "likes", "disagree"]
_SEEDLINGS = ["Black-grass", "Charlock", "Cleavers", "Common Chickweed", "Common wheat",
              "Fat Hen", "Loose Silky-bent", "Maize", "Scentless Mayweed", "Shepherds Purse",
              "Small-flowered Cranesbill", "Sugar beet"]
_RLE = "choice:1 4 10 2|3 5 40 7|7 9 20 1 60 3"
_SPINE = ["patient_overall", "C1", "C2", "C3", "C4", "C5", "C6", "C7"]
_BMS_PATH = "train/{image_id[0]}/{image_id[1]}/{image_id[2]}/{image_id}.png"
_CDISCOUNT = {"_id": "count:2", "category_id": "num:1000010600:1000010610", "imgs": "pictures:4"}
#: Natural Questions' simplified records (tensorflow2-question-answering), around annotations.
_NQ_TEXT = {"document_text": "text", "long_answer_candidates": "candidates:3",
            "question_text": "text"}
_NQ_IDS = {"document_url": "seq:https://en.wikipedia.org//w/index.php?title=Page_{i}",
           "example_id": "num:-9000000000000000000:9000000000000000000"}


def _coco(images: list[dict[str, Any]], annotations: list[dict[str, Any]],
          categories: int) -> str:
    """A COCO-style JSON (images, annotations, categories, info) as a download holds it."""
    return json.dumps({"annotations": annotations, "images": images,
                       "categories": [{"id": k, "name": f"species {k}"}
                                      for k in range(categories)],
                       "info": {"year": 2020}, "licenses": [{"id": 0, "name": "CC BY"}]})



def _coco_files(json_path: str, images: list[dict[str, Any]],
                annotations: list[dict[str, Any]], image_dir: str = "") -> dict[str, str]:
    """The fixture's extra files of a COCO-style download: the JSON at ``json_path`` and
    (when ``image_dir`` is given) each image, filed where its file_name says under it."""
    n_cats = 1 + max(int(a["category_id"]) for a in annotations)
    files = {f"{image_dir}{im['file_name']}": f"jpeg {k}" for k, im in enumerate(images)}
    return {json_path: _coco(images, annotations, n_cats), **(files if image_dir else {})}


def _herbarium(prefix: str, extra: str) -> dict[str, str]:
    """A herbarium 2020/2021 download: metadata.json (integer image ids, images filed under
    their category's folders, one annotation each with ``extra``) and the images."""
    cats = [k % 5 + 100 * (k % 2) for k in range(60)]
    images = [{"file_name": f"images/{c // 100:03d}/{c % 100:02d}/{1000 + k}.jpg",
               "height": 1000, "id": 1000 + k, "license": 0, "width": 680}
              for k, c in enumerate(cats)]
    anns = [{"category_id": c, "id": 1000 + k, "image_id": 1000 + k, extra: k % 3}
            for k, c in enumerate(cats)]
    return _coco_files(f"{prefix}metadata.json", images, anns, prefix)


def _herbarium_split(file: str, pattern: str, extra: str, **coco: str) -> dict[str, Any]:
    return {"strategy": "stratified", "id_column": "Id", "target_columns": ["Predicted"],
            "test_size": 0.2, "stratify_column": "Predicted",
            "transforms": [{"op": "coco_table", "file": file, **coco},
                           {"op": "hash_id", "column": "Id", "columns": ["id"]},
                           {"op": "rename", "columns": {"category_id": "Predicted"}}],
            "hidden_columns": {"id": "public", "file_name": "public",
                               "annotation_id": "public", extra: "test"},
            "files": {"pattern": pattern, "dest": "{Id}.jpg"}}


def _mammograms(patients: int) -> str:
    """rsna-breast's train.csv: four images per patient (CC and MLO of each side), filed as
    train_images/<patient_id>/<image_id>.dcm (the fixture's virtual table names them)."""
    head = ("site_id,patient_id,image_id,laterality,view,age,cancer,biopsy,invasive,BIRADS,"
            "implant,density,machine_id,difficult_negative_case\n")
    rows = []
    for i in range(4 * patients):
        g, side, view = i // 4, "LR"[i % 4 // 2], ("CC", "MLO")[i % 2]
        cancer = int(g % 3 == 0 and side == "L")
        rows.append(f"{1 + g % 2},1{g:04d},{i},{side},{view},{50 + g % 30}.0,{cancer},{cancer},"
                    f"{cancer},{'' if cancer else 1},0,{'ABCD'[g % 4]},{(21, 49)[i % 2]},False\n")
    return head + "".join(rows)


def _chest_boxes(images: int) -> str:
    """vinbigdata's train.csv: one row per box and radiologist; "No finding" (class 14) rows
    have no box."""
    rows = ["image_id,class_name,class_id,rad_id,x_min,y_min,x_max,y_max\n"]
    for k in range(images):
        if k % 4 == 0:
            rows += [f"{k:032x},No finding,14,R{r},,,,\n" for r in (1, 2, 3)]
            continue
        for c, name in ((0, "Aortic enlargement"), (3, "Cardiomegaly"))[: 1 + k % 2]:
            rows += [f"{k:032x},{name},{c},R{r},{100 + 7 * k + r}.0,{200 + c}.0,"
                     f"{400 + 5 * k}.0,{600 + c}.0\n" for r in (8, 9)]
    return "".join(rows)


_TIMIT = "timit_11/timit_11/"
#: 11 frames of 39 MFCC features per row, and the 39 phoneme classes.
_FRAMES = {f"f{j}": "float:-3:3" for j in range(429)}
_PHONES = "choice:" + "|".join(str(k) for k in range(39))

_SLICE = "train/{case}/{case}_{day}/scans/slice_{slice}_{image_width}_{image_height}_{px}_{py}.png"


def _gi_tract(slices: int) -> str:
    """uw-madison's train.csv: three organ rows per slice (an empty segmentation: the organ is
    not in the slice); six slices per case, one per day (as the fixture's slices.csv), so that
    MLE-bench moves each training case's days after the fourth to its test side."""
    rows = ["id,class,segmentation\n"]
    for i in range(slices):
        for k, organ in enumerate(("large_bowel", "small_bowel", "stomach")):
            mask = "" if (i + k) % 3 == 0 else f"{100 + 7 * k} {5 + i}"
            rows.append(f"case{i // 6}_day{i}_slice_{i:04d},{organ},{mask}\n")
    return "".join(rows)


_HERB_SAMPLE = {"path": "sample_submission.csv", "rows": 10,
                "columns": {"Id": "seq:{i}", "Predicted": "const:0"}}

LAYOUTS: dict[str, dict[str, Any]] = {
    "kaggle/detecting-insults-in-social-commentary": {
        "sources": mle("detecting-insults-in-social-commentary",
                       "train.csv (Insult, Date, Comment) is the train set; "
                       "test_with_solutions.csv (Insult, Date, Comment, Usage) the test set, "
                       "its public test without Insult and Usage; comments are the ids"),
        "split": {"strategy": "holdout_file", "train_file": "train.csv",
                  "holdout_file": "test_with_solutions.csv", "id_column": "Comment",
                  "target_columns": ["Insult"], "hidden_columns": {"Usage": "test"},
                  "transforms": [{"op": "drop_rows", "column": "Comment", "rule": "repeated",
                                  "reason": "the comments are the ids: a comment repeated "
                                            "within a table is kept once"}]},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"Insult": "choice:0|1",
                                              "Date": "date:2012-05-28",
                                              "Comment": "seq:\"\"you are number {i}\"\""}},
            {"path": "test.csv", "columns": {"Date": "date:2012-06-20",
                                             "Comment": "seq:\"\"verification {i}\"\""}},
            {"path": "test_with_solutions.csv", "columns": {
                "Insult": "choice:0|1", "Date": "date:2012-06-01",
                "Comment": "seq:\"\"held out comment {i}\"\"",
                "Usage": "choice:PublicTest|PrivateTest"}},
            {"path": "sample_submission_null.csv", "columns": {
                "Insult": "const:0", "Date": "date:2012-06-20",
                "Comment": "seq:\"\"verification {i}\"\""}},
        ]},
    },
    "kaggle/jigsaw-unintended-bias-in-toxicity-classification": {
        "sources": mle("jigsaw-unintended-bias-in-toxicity-classification",
                       "train.csv is the train set; test_private_expanded.csv (45 columns: id, "
                       "comment_text, the metadata, toxicity and every label and identity "
                       "column) is the test set, its public test keeping id and comment_text; "
                       "train.csv names toxicity 'target'"),
        "split": {"strategy": "holdout_file", "train_file": "train.csv",
                  "holdout_file": "test_private_expanded.csv", "id_column": "id",
                  "target_columns": ["toxicity"],
                  "transforms": [{"op": "rename", "columns": {"target": "toxicity"}}],
                  "hidden_columns": {c: "test" for c in [*_JIGSAW_META, *_JIGSAW_LABELS,
                                                         *_IDENTITIES, *_MORE_IDENTITIES]}},
        "fixture": {"rows": 120, "tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "target": "float:0:1", "comment_text": "text",
                **{c: "float:0:1" for c in _JIGSAW_LABELS[:6]},
                **{c: "choice:0.0|0.5|1.0" for c in [*_IDENTITIES, *_MORE_IDENTITIES]},
                **{c: "int:0:5" for c in _JIGSAW_META[1:]},
                "created_date": "date:2015-09-29", "identity_annotator_count": "int:0:4",
                "toxicity_annotator_count": "int:4:10"}},
            {"path": "test.csv", "columns": {"id": "seq:7{i:06d}", "comment_text": "text"}},
            {"path": "test_public_expanded.csv", "columns": {
                "id": "seq:7{i:06d}", "comment_text": "text", "toxicity": "float:0:1"}},
            {"path": "test_private_expanded.csv", "columns": {
                "id": "seq:8{i:06d}", "comment_text": "text",
                "created_date": "date:2017-01-01",
                **{c: "int:0:5" for c in _JIGSAW_META[1:]},
                "toxicity": "float:0:1", **{c: "float:0:1" for c in _JIGSAW_LABELS[:6]},
                "identity_annotator_count": "int:0:4", "toxicity_annotator_count": "int:4:10",
                **{c: "choice:0.0|0.5|1.0" for c in [*_IDENTITIES, *_MORE_IDENTITIES]}}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:7{i:06d}",
                                                          "prediction": "const:0.0"}},
        ]},
    },
    "kaggle/hubmap-kidney-segmentation": {
        "sources": mle("hubmap-kidney-segmentation",
                       "splits raw train.csv (id, encoding: run-length glomeruli masks) 12:3; "
                       "copies train/<id>.tiff (the <id>.json and <id>-anatomical-structure.json "
                       "beside it hold the glomeruli polygons: labels, not copied here) and "
                       "HuBMAP-20-dataset_information.csv; answers id,predicted"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "img",
                  "target_columns": ["pixels"], "test_size": 0.2,
                  "transforms": [{"op": "rename", "columns": {"id": "img",
                                                              "encoding": "pixels"}}],
                  "extra_public_files": ["HuBMAP-20-dataset_information.csv"],
                  "files": {"pattern": "train/{img}.tiff", "dest": "{img}.tiff"}},
        "fixture": {"rows": 15, "tables": [
            {"path": "train.csv", "columns": {"id": "seq:{i:04x}e1a", "encoding": _RLE}},
            {"path": "HuBMAP-20-dataset_information.csv", "columns": {
                "image_file": "seq:{i:04x}e1a.tiff", "width_pixels": "int:20000:40000",
                "height_pixels": "int:20000:40000", "patient_number": "int:60000:70000",
                "sex": "choice:Male|Female", "age": "int:30:80"}},
            {"path": "sample_submission.csv", "rows": 5, "columns": {
                "id": "seq:{i:04x}ff", "predicted": "const:1 1"}},
        ], "files": [{"pattern": "train/{id}.tiff", "table": "train.csv"},
                     {"pattern": "train/{id}.json", "table": "train.csv"}]},
    },
    "kaggle/plant-seedlings-classification": {
        "sources": mle("plant-seedlings-classification",
                       "lists raw train/<species>/<file>.png (the species is the folder); "
                       "splits those rows with test_size 0.14; answers file,species; test "
                       "images copied as test/<file>"),
        "split": {"strategy": "stratified", "id_column": "file", "target_columns": ["species"],
                  "test_size": 0.14, "stratify_column": "species",
                  "transforms": [{"op": "files_table", "pattern": "train/{species}/{file}"}],
                  "hidden_columns": {"path": "public"},
                  "files": {"pattern": "{path}", "dest": "{file}"}},
        "fixture": {"rows": 96, "tables": [
            {"path": "sample_submission.csv", "columns": {"file": "seq:{i:09x}.png",
                                                          "species": "const:Sugar beet"}},
            {"path": "names.csv", "virtual": True, "columns": {
                "species": "choice:" + "|".join(_SEEDLINGS), "file": "seq:{i:09x}.png"}},
        ], "files": [{"pattern": "train/{species}/{file}", "table": "names.csv"},
                     {"pattern": "test/t{file}", "table": "names.csv"}]},
    },
    "kaggle/seti-breakthrough-listen": {
        "sources": mle("seti-breakthrough-listen",
                       "splits raw train_labels.csv (id, target) 9:1; copies train/<id[0]>/"
                       "<id>.npy per row (old_leaky_data/, which it also copies, is left out)"),
        "split": {"strategy": "random", "train_file": "train_labels.csv", "id_column": "id",
                  "target_columns": ["target"], "test_size": 0.1,
                  "files": {"pattern": "train/{id[0]}/{id}.npy", "dest": "{id[0]}/{id}.npy"}},
        "fixture": {"tables": [
            {"path": "train_labels.csv", "columns": {"id": "seq:{i:05x}0ce6d6f",
                                                     "target": "choice:0|1"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:{i:05x}1a2b3c4",
                                                          "target": "const:0.5"}},
            {"path": "old_leaky_data/train_labels_old.csv", "columns": {
                "id": "seq:{i:05x}0ce6d6f", "target": "choice:0|1"}},
        ], "files": [{"pattern": "train/{id[0]}/{id}.npy", "table": "train_labels.csv"},
                     {"pattern": "test/{id[0]}/{id}.npy", "table": "sample_submission.csv"}]},
    },
    "kaggle/bms-molecular-translation": {
        "sources": mle("bms-molecular-translation",
                       "splits raw train_labels.csv (image_id, InChI) 8:2; copies "
                       "train/<c0>/<c1>/<c2>/<image_id>.png (the id's first three characters) "
                       "and extra_approved_InChIs.csv"),
        "split": {"strategy": "random", "train_file": "train_labels.csv",
                  "id_column": "image_id", "target_columns": ["InChI"], "test_size": 0.2,
                  "extra_public_files": ["extra_approved_InChIs.csv"],
                  "files": {"pattern": _BMS_PATH, "dest": _BMS_PATH.removeprefix("train/")}},
        "fixture": {"tables": [
            {"path": "train_labels.csv", "columns": {
                "image_id": "seq:{i:03x}e3b2f0c1",
                "InChI": "choice:InChI=1S/C13H20OS/c1-9(2)8-15-13-6-5-10(3)7-12(13)11(4)14/"
                         "h5-7,9,11,14H,8H2,1-4H3|InChI=1S/H2O/h1H2|InChI=1S/CH4/h1H4"}},
            {"path": "extra_approved_InChIs.csv", "columns": {
                "InChI": "seq:InChI=1S/C{i}H4/h1H4"}},
            {"path": "sample_submission.csv", "columns": {"image_id": "seq:{i:03x}0c0ffee0",
                                                          "InChI": "const:InChI=1S/H2O/h1H2"}},
        ], "files": [{"pattern": _BMS_PATH, "table": "train_labels.csv"}]},
    },
    "kaggle/rsna-miccai-brain-tumor-radiogenomic-classification": {
        "sources": mle("rsna-miccai-brain-tumor-radiogenomic-classification",
                       "splits raw train_labels.csv (BraTS21ID, MGMT_value) 9:1; copies each "
                       "case's folder train/<BraTS21ID>/ (FLAIR, T1w, T1wCE, T2w DICOM series)"),
        "split": {"strategy": "random", "train_file": "train_labels.csv",
                  "id_column": "BraTS21ID", "target_columns": ["MGMT_value"], "test_size": 0.1,
                  "files": {"pattern": "train/{BraTS21ID}", "dest": "{BraTS21ID}"}},
        "fixture": {"tables": [
            {"path": "train_labels.csv", "columns": {"BraTS21ID": "seq:{i:05d}",
                                                     "MGMT_value": "choice:0|1"}},
            {"path": "sample_submission.csv", "columns": {"BraTS21ID": "seq:{i:05d}",
                                                          "MGMT_value": "const:0.5"}},
        ], "files": [{"pattern": f"train/{{BraTS21ID}}/{scan}/Image-{k}.dcm",
                      "table": "train_labels.csv"}
                     for scan in ("FLAIR", "T1w", "T1wCE", "T2w") for k in (1, 2)]},
    },
    "kaggle/rsna-2022-cervical-spine-fracture-detection": {
        "sources": mle("rsna-2022-cervical-spine-fracture-detection",
                       "splits the studies of raw train.csv (StudyInstanceUID, patient_overall, "
                       "C1..C7), a tenth of them for training; answers melted to one row per "
                       "study and prediction_type (row_id = StudyInstanceUID_prediction_type, "
                       "fractured); copies train_images/<StudyInstanceUID>/ (DICOM slices). "
                       "train_bounding_boxes.csv and segmentations/ hold fracture boxes and "
                       "vertebra masks of some studies: not published here"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "row_id",
                  "target_columns": ["fractured"], "group_column": "StudyInstanceUID",
                  "test_size": 0.9,
                  "transforms": [
                      {"op": "unpivot", "keys": _SPINE, "key_column": "prediction_type",
                       "columns": {"fractured": "{key}"}},
                      {"op": "compose_id", "column": "row_id",
                       "template": "{StudyInstanceUID}_{prediction_type}"}],
                  "files": {"pattern": "train_images/{StudyInstanceUID}",
                            "dest": "{StudyInstanceUID}"}},
        "fixture": {"rows": 40, "tables": [
            {"path": "train.csv", "columns": {
                "StudyInstanceUID": "seq:1.2.826.0.1.3680043.{i}",
                **{k: "choice:0|1" for k in _SPINE}}},
            {"path": "train_bounding_boxes.csv", "rows": 10, "columns": {
                "StudyInstanceUID": "seq:1.2.826.0.1.3680043.{i}", "x": "float:50:300",
                "y": "float:50:300", "width": "float:10:80", "height": "float:10:80",
                "slice_number": "int:100:300"}},
            {"path": "test.csv", "rows": 3, "columns": {
                "row_id": "seq:1.2.826.0.1.3680043.1019{i}_C1",
                "StudyInstanceUID": "seq:1.2.826.0.1.3680043.1019{i}",
                "prediction_type": "const:C1"}},
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "row_id": "seq:1.2.826.0.1.3680043.1019{i}_C1", "fractured": "const:0.5"}},
        ], "files": [{"pattern": f"train_images/{{StudyInstanceUID}}/{k}.dcm",
                      "table": "train.csv"} for k in (1, 2, 3)]
            + [{"pattern": "segmentations/{StudyInstanceUID}.nii",
                "table": "train_bounding_boxes.csv"}]},
    },
    "kaggle/tgs-salt-identification-challenge": {
        "sources": mle("tgs-salt-identification-challenge",
                       "extracts competition_data.zip (competition_data/train.csv: id, "
                       "rle_mask, empty for an image without salt; competition_data/train/"
                       "images/<id>.png and train/masks/<id>.png); splits train.csv with "
                       "test_size 0.25; copies the images (masks only for training rows: "
                       "not copied here) and depths.csv (id, z)"),
        "split": {"strategy": "random", "train_file": "competition_data/train.csv",
                  "id_column": "id", "target_columns": ["rle_mask"], "test_size": 0.25,
                  "extra_public_files": ["depths.csv"],
                  "files": {"pattern": "competition_data/train/images/{id}.png",
                            "dest": "{id}.png"}},
        "fixture": {"tables": [
            {"path": "competition_data/train.csv", "archive": "competition_data.zip",
             "member": "competition_data/train.csv",
             "columns": {"id": "seq:{i:05x}a2f4", "rle_mask": "choice:|" + _RLE[7:]}},
            {"path": "depths.csv", "columns": {"id": "seq:{i:05x}a2f4", "z": "int:50:950"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:{i:05x}0b1c",
                                                          "rle_mask": "const:1 1"}},
        ], "files": [{"pattern": f"competition_data/train/{kind}/{{id}}.png",
                      "table": "competition_data/train.csv", "archive": "competition_data.zip"}
                     for kind in ("images", "masks")]},
    },
    "kaggle/herbarium-2020-fgvc7": {
        "sources": mle("herbarium-2020-fgvc7",
                       "reads nybg2020/train/metadata.json (latin-1; images: id, file_name "
                       "images/<cat//100>/<cat%100>/<id>.jpg, ...; annotations: one per "
                       "image, category_id, region_id); splits each category 8:2; re-numbers "
                       "the test images (file names and ids give the category away); answers "
                       "Id,Predicted"),
        "split": _herbarium_split("nybg2020/train/metadata.json",
                                  "nybg2020/train/{file_name}", "region_id",
                                  encoding="latin-1"),
        "fixture": {"tables": [_HERB_SAMPLE],
                    "extra": _herbarium("nybg2020/train/", "region_id")},
    },
    "kaggle/herbarium-2021-fgvc8": {
        "sources": mle("herbarium-2021-fgvc8",
                       "reads train/metadata.json (images: id, file_name images/<cat//100>/"
                       "<cat%100>/<id>.jpg; annotations: category_id, institution_id); "
                       "splits each category 8:2; answers Id,Predicted"),
        "split": _herbarium_split("train/metadata.json", "train/{file_name}",
                                  "institution_id"),
        "fixture": {"tables": [_HERB_SAMPLE],
                    "extra": _herbarium("train/", "institution_id")},
    },
    "kaggle/herbarium-2022-fgvc9": {
        "sources": mle("herbarium-2022-fgvc9",
                       "reads train_metadata.json (images: image_id <cat>__<n>, file_name "
                       "<cat//100>/<cat%100>/<image_id>.jpg; annotations: genus_id, "
                       "institution_id, category_id, image_id) and train_images/; splits each "
                       "category 8:2; answers Id,Predicted"),
        "split": {**_herbarium_split("train_metadata.json", "train_images/{file_name}",
                                     "institution_id", image_key="image_id"),
                  "transforms": [
                      {"op": "coco_table", "file": "train_metadata.json",
                       "image_key": "image_id"},
                      {"op": "hash_id", "column": "Id", "columns": ["image_id"]},
                      {"op": "rename", "columns": {"category_id": "Predicted"}}],
                  "hidden_columns": {"image_id": "public", "file_name": "public",
                                     "genus_id": "test", "institution_id": "test"}},
        "fixture": {"tables": [_HERB_SAMPLE], "extra": _coco_files("train_metadata.json", [
            {"file_name": f"{k % 6:03d}/00/{k % 6:05d}__{k:03d}.jpg",
             "image_id": f"{k % 6:05d}__{k:03d}", "license": 0} for k in range(60)], [
            {"genus_id": k % 6 // 2, "institution_id": k % 4, "category_id": k % 6,
             "image_id": f"{k % 6:05d}__{k:03d}"} for k in range(60)], "train_images/")},
    },
    "kaggle/inaturalist-2019-fgvc6": {
        "sources": mle("inaturalist-2019-fgvc6",
                       "extracts train_val2019.tar.gz (train_val2019/<kingdom>/<category>/"
                       "<hash>.jpg); reads train2019.json (images: id, file_name, ...; "
                       "annotations: id, image_id, category_id); splits each category with "
                       "test_size 0.12; answers id,predicted"),
        "split": {"strategy": "stratified", "id_column": "id", "target_columns": ["predicted"],
                  "test_size": 0.12, "stratify_column": "predicted",
                  "transforms": [{"op": "coco_table", "file": "train2019.json"},
                                 {"op": "rename", "columns": {"id": "image_id",
                                                              "category_id": "predicted"}},
                                 {"op": "hash_id", "column": "id", "columns": ["image_id"]}],
                  "hidden_columns": {"image_id": "public", "file_name": "public",
                                     "annotation_id": "public"},
                  "files": {"pattern": "{file_name}", "dest": "{id}.jpg"}},
        "fixture": {"rows": 60, "tables": [
            {"path": "kaggle_sample_submission.csv", "rows": 10,
             "columns": {"id": "seq:{i}", "predicted": "const:0"}},
            {"path": "inat_images.csv", "virtual": True, "columns": {
                "folder": "group:10:train_val2019/Plants/{g}", "name": "seq:{i:032x}.jpg"}}],
            "extra": _coco_files("train2019.json", [
                {"id": k, "file_name": f"train_val2019/Plants/{k // 10}/{k:032x}.jpg",
                 "width": 800, "height": 600, "license": 1} for k in range(60)],
                [{"id": k, "image_id": k, "category_id": k // 10} for k in range(60)]) | {
                "val2019.json": json.dumps({"annotations": [], "images": [], "categories": [],
                                            "info": {"year": 2019}, "licenses": []})},
            "files": [{"pattern": "{folder}/{name}", "table": "inat_images.csv",
                       "archive": "train_val2019.tar.gz"}]},
    },
    "kaggle/iwildcam-2020-fgvc7": {
        "sources": mle("iwildcam-2020-fgvc7",
                       "reads iwildcam2020_train_annotations.json (images: id, file_name "
                       "<id>.jpg, location, seq_id, datetime, ...; annotations: id, image_id, "
                       "category_id, count) and train/<id>.jpg; splits by location, about "
                       "0.22 of the images in test; answers Id,Category"),
        "split": {"strategy": "group", "id_column": "Id", "target_columns": ["Predicted"],
                  "group_column": "location", "test_size": 0.22,
                  "transforms": [{"op": "coco_table",
                                  "file": "iwildcam2020_train_annotations.json"},
                                 {"op": "rename", "columns": {"id": "Id",
                                                              "category_id": "Predicted"}}],
                  "hidden_columns": {"annotation_id": "public", "count": "test"},
                  "files": {"pattern": "train/{file_name}", "dest": "{file_name}"}},
        "fixture": {"rows": 120, "tables": [
            {"path": "sample_submission.csv", "rows": 10, "columns": {
                "Id": "seq:{i:08x}-21bc-11ea-a13a-137349068a90", "Category": "const:0"}}],
            "extra": _coco_files("iwildcam2020_train_annotations.json", [
                {"id": f"{k:08x}-21bc-11ea-a13a-137349068a90", "file_name":
                 f"{k:08x}-21bc-11ea-a13a-137349068a90.jpg", "location": k // 10,
                 "seq_id": f"s{k // 3}", "datetime": f"2013-06-{k % 28 + 1:02d} 11:20:00",
                 "frame_num": k % 3 + 1, "seq_num_frames": 3, "width": 1920, "height": 1080}
                for k in range(120)], [
                {"id": f"a{k}", "image_id": f"{k:08x}-21bc-11ea-a13a-137349068a90",
                 "category_id": [0, 1, 3, 8][k % 4], "count": 1 + k % 2} for k in range(120)],
                "train/") | {
                "iwildcam2020_test_information.json": json.dumps({
                    "images": [], "categories": [{"id": k, "name": f"species {k}"}
                                                 for k in range(3)],
                    "info": {"year": 2020, "version": "test"}}),
                "iwildcam2020_megadetector_results.json": json.dumps({
                    "images": [], "detection_categories": {"1": "animal"},
                    "info": {"detector": "megadetector_v3"}})}},
    },
    "kaggle/rsna-breast-cancer-detection": {
        "sources": mle("rsna-breast-cancer-detection",
                       "splits the patients of raw train.csv (site_id, patient_id, image_id, "
                       "laterality, view, age, cancer, biopsy, invasive, BIRADS, implant, "
                       "density, machine_id, difficult_negative_case: one row per image) 9:1; "
                       "prediction_id = patient_id_laterality; answers one row per "
                       "prediction_id (prediction_id, cancer); copies train_images/"
                       "<patient_id>/<image_id>.dcm"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "prediction_id",
                  "target_columns": ["cancer"], "group_column": "patient_id",
                  "test_size": 0.1,
                  "transforms": [
                      {"op": "compose_id", "column": "prediction_id",
                       "template": "{patient_id}_{laterality}"},
                      {"op": "group_rows", "by": ["prediction_id"],
                       "join": {"image_id": " ", "view": " "}}],
                  "hidden_columns": {c: "test" for c in
                                     ("biopsy", "invasive", "BIRADS", "density",
                                      "difficult_negative_case")},
                  "files": {"pattern": "train_images/{patient_id}", "dest": "{patient_id}"}},
        "fixture": {"rows": 160, "tables": [
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "prediction_id": "seq:1{i:04d}_L", "cancer": "const:0.021"}},
            {"path": "mammograms.csv", "virtual": True, "columns": {
                "patient_id": "group:4:1{g:04d}", "image_id": "seq:{i}"}}],
            "extra": {"train.csv": _mammograms(40)},
            "files": [{"pattern": "train_images/{patient_id}/{image_id}.dcm",
                       "table": "mammograms.csv"}]},
    },
    "kaggle/icecube-neutrinos-in-deep-ice": {
        "sources": mle("icecube-neutrinos-in-deep-ice",
                       "splits the batches of raw train_meta.parquet (batch_id, event_id, "
                       "first_pulse_index, last_pulse_index, azimuth, zenith) 9:1; copies "
                       "train/batch_<batch_id>.parquet (the pulses of a batch's events) to "
                       "its side and sensor_geometry.csv; answers event_id, azimuth, zenith"),
        "split": {"strategy": "group", "train_file": "train_meta.parquet",
                  "id_column": "event_id", "target_columns": ["azimuth", "zenith"],
                  "group_column": "batch_id", "test_size": 0.1,
                  "extra_public_files": ["sensor_geometry.csv"],
                  "files": {"pattern": "train/batch_{batch_id}.parquet",
                            "dest": "batch_{batch_id}.parquet"}},
        "fixture": {"rows": 200, "tables": [
            {"path": "train_meta.parquet", "numbers": True, "columns": {
                "batch_id": "group:10:{g}", "event_id": "seq:{i}",
                "first_pulse_index": "int:0:100", "last_pulse_index": "int:100:200",
                "azimuth": "float:0:6.28", "zenith": "float:0:3.14"}},
            {"path": "test_meta.parquet", "rows": 10, "numbers": True, "columns": {
                "batch_id": "const:661", "event_id": "seq:2{i}",
                "first_pulse_index": "int:0:100", "last_pulse_index": "int:100:200"}},
            {"path": "sensor_geometry.csv", "columns": {
                "sensor_id": "seq:{i}", "x": "float:-500:500", "y": "float:-500:500",
                "z": "float:-500:500"}},
            {"path": "sample_submission.csv", "rows": 10, "columns": {
                "event_id": "seq:2{i}", "azimuth": "const:1", "zenith": "const:1"}},
        ], "files": [{"pattern": "train/batch_{batch_id}.parquet",
                      "table": "train_meta.parquet"}]},
    },
    "kaggle/vinbigdata-chest-xray-abnormalities-detection": {
        "sources": mle("vinbigdata-chest-xray-abnormalities-detection",
                       "splits the images of raw train.csv (image_id, class_name, class_id, "
                       "rad_id, x_min, y_min, x_max, y_max: one row per box and radiologist; "
                       "empty box for class 14, No finding) 9:1; answers keep the first box of "
                       "each image and class (the test set's labels were consensus ones), "
                       "written 'class 1.0 x_min y_min x_max y_max' with 0 0 1 1 for No "
                       "finding; copies train/<image_id>.dicom"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "image_id",
                  "target_columns": ["PredictionString"], "test_size": 0.1,
                  "transforms": [
                      {"op": "compose_id", "column": "finding",
                       "template": "{image_id}_{class_id}"},
                      {"op": "drop_rows", "column": "finding", "rule": "repeated",
                       "reason": "one box per image and finding, as the competition's "
                                 "consensus test labels (the first radiologist's is kept)"},
                      {"op": "compose_id", "column": "PredictionString",
                       "template": "{class_id} 1.0 {x_min} {y_min} {x_max} {y_max}",
                       "empty": {"x_min": "0", "y_min": "0", "x_max": "1", "y_max": "1"}},
                      {"op": "group_rows", "by": ["image_id"],
                       "join": {"PredictionString": " "}}],
                  "hidden_columns": {c: "public" for c in
                                     ("class_name", "class_id", "rad_id", "x_min", "y_min",
                                      "x_max", "y_max", "finding")},
                  "files": {"pattern": "train/{image_id}.dicom"}},
        "fixture": {"rows": 40, "tables": [
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "image_id": "seq:f{i:031x}", "PredictionString": "const:14 1 0 0 1 1"}},
            {"path": "images.csv", "virtual": True, "columns": {"image_id": "seq:{i:032x}"}}],
            "extra": {"train.csv": _chest_boxes(40)},
            "files": [{"pattern": "train/{image_id}.dicom", "table": "images.csv"}]},
    },
    "kaggle/ml2021spring-hw2": {
        "sources": mle("ml2021spring-hw2",
                       "loads timit_11/timit_11/train_11.npy (frames x 429 features) and "
                       "train_label_11.npy (one phoneme class per frame); splits the frames "
                       "with test_size 0.268 (the official test's share); answers Id (a new "
                       "number), ClassId"),
        "split": {"strategy": "stratified", "id_column": "Id", "target_columns": ["ClassId"],
                  "test_size": 0.268, "stratify_column": "ClassId",
                  "transforms": [
                      {"op": "npy_table", "arrays": {"feature": f"{_TIMIT}train_11.npy",
                                                     "ClassId": f"{_TIMIT}train_label_11.npy"}},
                      {"op": "hash_id", "column": "Id", "columns": ["row"]}],
                  "hidden_columns": {"row": "public"}},
        "fixture": {"rows": 195, "tables": [
            {"path": f"{_TIMIT}train_11.npy", "columns": _FRAMES},
            {"path": f"{_TIMIT}train_label_11.npy", "columns": {"label": _PHONES}},
            {"path": f"{_TIMIT}test_11.npy", "rows": 20, "columns": _FRAMES},
            {"path": "sampleSubmission.csv", "rows": 20, "columns": {"Id": "seq:{i}",
                                                                     "Class": "const:0"}},
        ]},
    },
    "kaggle/uw-madison-gi-tract-image-segmentation": {
        "sources": mle("uw-madison-gi-tract-image-segmentation",
                       "reads raw train.csv (id case<c>_day<d>_slice_<s>, class, segmentation: "
                       "three organ rows per slice); splits the cases 9:1; reads each test "
                       "slice's width and height from its image name train/<case>/<case>_<day>/"
                       "scans/slice_<s>_<width>_<height>_<px>_<py>.png; answers id, class, "
                       "predicted, image_width, image_height"),
        "split": {"strategy": "group", "id_column": "row", "target_columns": ["predicted"],
                  "group_column": "case", "test_size": 0.1,
                  "transforms": [
                      {"op": "files_table", "pattern": _SLICE},
                      {"op": "compose_id", "column": "id",
                       "template": "{case}_{day}_slice_{slice}"},
                      {"op": "merge", "file": "train.csv", "on": ["id"]},
                      {"op": "compose_id", "column": "row", "template": "{id}_{class}"},
                      {"op": "rename", "columns": {"segmentation": "predicted"}}],
                  "hidden_columns": {"path": "public"},
                  "files": {"pattern": "{path}",
                            "dest": _SLICE.removeprefix("train/")}},
        "fixture": {"rows": 60, "tables": [
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "id": "seq:case9_day9_slice_000{i}", "class": "const:stomach",
                "predicted": "const:"}},
            {"path": "slices.csv", "virtual": True, "columns": {
                "case": "group:6:case{g}", "day": "group:1:day{g}", "slice": "seq:{i:04d}",
                "image_width": "const:266", "image_height": "const:266",
                "px": "const:1.50", "py": "const:1.50"}}],
            "extra": {"train.csv": _gi_tract(60)},
            "files": [{"pattern": _SLICE, "table": "slices.csv"}]},
    },
    # No own recipe yet for these two layouts (a JSON-lines table of nested annotations, a BSON
    # file of products and their pictures): their fixtures check prepare --like mle-bench.
    "kaggle/tensorflow2-question-answering": {
        "sources": mle("tensorflow2-question-answering",
                       "reads raw simplified-nq-train.jsonl (JSON lines: document_text, "
                       "long_answer_candidates, question_text, annotations (one), document_url, "
                       "example_id, an int64) 1,000 lines at a time; simplified-nq-test.jsonl "
                       "has no annotations; sample_submission.csv (example_id with _short or "
                       "_long, PredictionString)"),
        "fixture": {"tables": [
            {"path": "simplified-nq-train.jsonl", "lines": True, "rows": 1050,
             "columns": _NQ_TEXT | {"annotations": "nq_annotation"} | _NQ_IDS},
            {"path": "simplified-nq-test.jsonl", "lines": True, "rows": 10,
             "columns": _NQ_TEXT | _NQ_IDS},
            {"path": "sample_submission.csv", "rows": 20, "columns": {
                "example_id": "seq:{i}_long", "PredictionString": "const:"}}]},
    },
    "kaggle/cdiscount-image-classification-challenge": {
        "sources": mle("cdiscount-image-classification-challenge",
                       "reads raw train.bson (one BSON document per product: _id, category_id, "
                       "imgs, a list of {picture: JPEG bytes}); train_example.bson is its first "
                       "100 products; test.bson has no category_id; copies category_names.csv "
                       "(category_id, category_level1, category_level2, category_level3)"),
        "fixture": {"tables": [
            {"path": "train.bson", "rows": 300, "columns": _CDISCOUNT},
            {"path": "train_example.bson", "rows": 100, "head_of": "train.bson",
             "columns": _CDISCOUNT},
            {"path": "test.bson", "rows": 20, "columns": {
                "_id": "count:7", "imgs": "pictures:4"}},
            {"path": "category_names.csv", "rows": 11, "columns": {
                "category_id": "seq:10000106{i:02d}", "category_level1": "choice:AUTO|MODE",
                "category_level2": "text", "category_level3": "text"}},
            {"path": "sample_submission.csv", "rows": 20, "columns": {
                "_id": "seq:{i}", "category_id": "const:1000010653"}}]},
    },
}
