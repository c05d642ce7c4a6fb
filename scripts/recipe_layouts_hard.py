"""Recipes and raw fixtures for the real downloads: the hard group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import page, tam

_POSE = [f"R{r}{c}" for r in range(3) for c in range(3)]


def _image_matching_2024() -> dict[str, Any]:
    """Image Matching Challenge 2024: poses of train/train_labels.csv, images per scene."""
    slug = "image-matching-challenge-2024"
    return {
        "sources": [
            *page(slug, "train/train_labels.csv (dataset, scene, image_name, rotation_matrix, "
                        "translation_vector, calibration_matrix; matrices flattened row-major, "
                        "';'-joined); train/<dataset>/images/<image_name>; test/<dataset>/"
                        "images and sample_submission.csv (image_path, dataset, scene, "
                        "rotation_matrix, translation_vector); the hidden test holds other "
                        "scenes"),
            *tam("Image/hard/input/Image Matching Challenge 2024 - Hexathlon.json",
                 "data_information: train/*/images, train/train_labels.csv with "
                 "rotation_matrix (3x3 row-major, ';'-separated) and translation_vector "
                 "(3 values, ';'-separated); the grader reads image_id, R00..R22, T0..T2"),
        ],
        "split": {"strategy": "group", "train_file": "train/train_labels.csv",
                  "id_column": "image_id", "target_columns": [*_POSE, "T0", "T1", "T2"],
                  "group_column": "scene", "test_size": 0.2,
                  "hidden_columns": {"calibration_matrix": "test"},
                  "transforms": [
                      {"op": "compose_id", "column": "image_id",
                       "template": "{dataset}_{image_name}"},
                      {"op": "split_values", "column": "rotation_matrix", "into": _POSE,
                       "separator": ";"},
                      {"op": "split_values", "column": "translation_vector",
                       "into": ["T0", "T1", "T2"], "separator": ";"}],
                  "files": {"pattern": "train/{dataset}/images/{image_name}",
                            "dest": "{image_id}"}},
        "fixture": {"rows": 120, "tables": [
            {"path": "train/train_labels.csv", "columns": {
                "dataset": "group:10:scene{g}", "scene": "group:10:scene{g}",
                "image_name": "seq:image_{i:03d}.png",
                "rotation_matrix": "joined:9:0.5:1.5", "translation_vector": "joined:3:-2:2",
                "calibration_matrix": "joined:9:0:900"}},
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "image_path": "seq:test/church/images/{i:05d}.png", "dataset": "const:church",
                "scene": "const:church", "rotation_matrix": "joined:9:0:1",
                "translation_vector": "joined:3:0:1"}},
        ], "files": [{"pattern": "train/{dataset}/images/{image_name}",
                      "table": "train/train_labels.csv", "size": 64}]},
    }


LAYOUTS: dict[str, dict[str, Any]] = {
    "kaggle/image-matching-challenge-2024-hexathlon": _image_matching_2024(),
    "kaggle/image-matching-challenge-2024": _image_matching_2024(),
}
