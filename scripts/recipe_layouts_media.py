"""Recipes and raw fixtures for the real downloads: the media group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import mle, page

_MLSP = "mlsp_contest_dataset/essential_data"
_BIRDS = "aldfly|ameavo|amebit|amecro|amegfi"
_SPECIES = [str(i) for i in range(19)]

LAYOUTS: dict[str, dict[str, Any]] = {
    "kaggle/cornell-birdcall-identification": {
        "sources": page("birdsong-recognition",
                        "train.csv (35 columns: rating, playback_used, ebird_code, ..., "
                        "filename, ..., species, ..., title, secondary_labels, ..., sci_name, "
                        "..., description, ..., xc_id, url, ..., primary_label, ..., recordist, "
                        "license), train_audio/<ebird_code>/<filename> (xeno-canto MP3s whose "
                        "ID3 tags name the species), test.csv (site, row_id, seconds, audio_id: "
                        "three example rows; the scored soundscapes are hidden in the "
                        "competition's notebooks), sample_submission.csv (row_id, birds), "
                        "example_test_audio/; the training recordings are the only labelled "
                        "audio, so a tenth of them become the test, one row per recording"),
        "split": {"strategy": "stratified", "stratify_column": "birds", "test_size": 0.1,
                  "train_file": "train.csv", "id_column": "row_id",
                  "target_columns": ["birds"],
                  "transforms": [{"op": "rename", "columns": {"ebird_code": "birds"}},
                                 {"op": "hash_id", "column": "row_id",
                                  "columns": ["filename"]}],
                  "hidden_columns": {c: "test" for c in (
                      "species", "title", "sci_name", "primary_label", "description",
                      "filename", "xc_id", "url")},
                  "files": {"pattern": "train_audio/{birds}/{filename}", "dest": "{row_id}.mp3",
                            "strip": "id3"}},
        "fixture": {"rows": 80, "tables": [
            {"path": "train.csv", "columns": {
                "rating": "float:0:5", "playback_used": "choice:no|yes",
                "ebird_code": f"choice:{_BIRDS}", "channels": "choice:1 (mono)|2 (stereo)",
                "date": "date:2013-05-25", "pitch": "choice:Not specified|both",
                "duration": "int:5:60", "filename": "seq:XC1{i:05d}.mp3",
                "speed": "choice:Not specified|both",
                "species": "choice:Alder Flycatcher|American Avocet|American Crow",
                "number_of_notes": "choice:Not specified|1-3", "title": "text",
                "secondary_labels": "const:[]", "bird_seen": "choice:yes|no",
                "sci_name": "text", "location": "text", "latitude": "float:20:60",
                "sampling_rate": "choice:48000 (Hz)|44100 (Hz)", "type": "choice:call|song",
                "elevation": "choice:Not specified|100 m", "description": "text",
                "bitrate_of_mp3": "choice:128000 (bps)|320000 (bps)", "file_type": "const:mp3",
                "volume": "choice:Not specified|both", "background": "text",
                "xc_id": "seq:1{i:05d}", "url": "seq:https://www.xeno-canto.org/1{i:05d}",
                "country": "choice:United States|Canada", "author": "text",
                "primary_label": "text", "longitude": "float:-120:-70",
                "length": "choice:Not specified|0-3(s)", "time": "choice:08:00|08:30",
                "recordist": "text", "license": "const:Creative Commons BY-SA 3.0"}},
            {"path": "test.csv", "rows": 3, "columns": {
                "site": "const:site_1", "row_id": "seq:site_1_41e6fe6504a34cf6_{i}",
                "seconds": "seq:{i}5", "audio_id": "const:41e6fe6504a34cf6"}},
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "row_id": "seq:site_1_41e6fe6504a34cf6_{i}", "birds": "const:nocall"}},
        ], "files": [
            {"pattern": "train_audio/{ebird_code}/{filename}", "table": "train.csv",
             "size": 48, "id3": "{species} ({ebird_code})"},
        ]},
    },
    "kaggle/denoising-dirty-documents": {
        "sources": mle("denoising-dirty-documents",
                       "the download holds train.zip (train/<n>.png, noisy), train_cleaned.zip "
                       "(train_cleaned/<n>.png, the same names cleaned), test.zip and "
                       "sampleSubmission.csv; a fifth of the training images become the test; "
                       "answers: one row per pixel of the cleaned test images, id "
                       "<image>_<row>_<col> (1-based), value the intensity / 255"),
        "split": {"strategy": "group", "group_column": "image", "test_size": 0.2,
                  "id_column": "id", "target_columns": ["value"],
                  "hidden_columns": {"path": "public"},
                  "transforms": [
                      {"op": "files_table", "pattern": "train_cleaned/{image}.png"},
                      {"op": "pixels", "path_column": "path", "id_column": "id",
                       "id_template": "{image}_{row}_{col}", "value_column": "value"}],
                  "files": {"pattern": "train/{image}.png", "dest": "{image}.png"}},
        "fixture": {"rows": 20, "tables": [
            {"path": "train_images.csv", "virtual": True, "columns": {"image": "seq:{i}"}},
            {"path": "test_images.csv", "virtual": True, "columns": {"image": "seq:1{i:02d}"}},
            {"path": "sampleSubmission.csv", "archive": "sampleSubmission.csv.zip",
             "columns": {"id": "seq:1_1_{i}", "value": "const:1"}},
        ], "files": [
            {"pattern": "train/{image}.png", "table": "train_images.csv", "archive": "train.zip",
             "image": "6x4"},
            {"pattern": "train_cleaned/{image}.png", "table": "train_images.csv",
             "archive": "train_cleaned.zip", "image": "6x4"},
            {"pattern": "test/{image}.png", "table": "test_images.csv", "archive": "test.zip",
             "image": "6x4"},
        ]},
    },
    "kaggle/mlsp-2013-birds": {
        "sources": mle("mlsp-2013-birds",
                       "extracts mlsp_contest_dataset.zip; essential_data/ holds CVfolds_2.txt "
                       "(rec_id, fold; fold 1 the competition's test), rec_id2filename.txt "
                       "(rec_id, filename), rec_labels_test_hidden.txt (header 'rec_id,"
                       "[labels]', then rec_id and 0-18 species ids per line, '?' for a test "
                       "recording), species_list.txt, src_wavs/<filename>.wav; answers Id = "
                       "rec_id * 100 + species, Probability 0/1 for the 19 species of each "
                       "test recording; a fifth of the labelled recordings become the test")
        + [{"source": "http://www.kaggle.com/c/mlsp-2013-birds/data",
            "detail": "the download: mlsp_contest_dataset.zip (essential_data: src_wavs/, "
                      "rec_id2filename.txt, species_list.txt with 19 species numbered 0-18, "
                      "CVfolds_2.txt, rec_labels_test_hidden.txt), README.txt, the "
                      "documentation PDF; the evaluation page maps (rec_id, species) to "
                      "Id = rec_id * 100 + species"}],
        "split": {"strategy": "group", "group_column": "rec_id", "test_size": 0.2,
                  "id_column": "Id", "target_columns": ["Probability"],
                  "transforms": [
                      {"op": "ragged_table", "path": f"{_MLSP}/rec_labels_test_hidden.txt",
                       "columns": ["rec_id"], "rest_column": "labels"},
                      {"op": "drop_rows", "column": "labels", "rule": "equals", "values": ["?"],
                       "reason": "the competition's own test recordings (fold 1) have no "
                                 "published labels"},
                      {"op": "join", "file": f"{_MLSP}/rec_id2filename.txt", "on": "rec_id",
                       "columns": ["filename"]},
                      {"op": "one_hot", "column": "labels", "classes": _SPECIES,
                       "separator": ",", "prefix": "species_"},
                      {"op": "unpivot", "keys": _SPECIES, "key_column": "species",
                       "columns": {"Probability": "species_{key}"}},
                      {"op": "combine_ints", "column": "Id",
                       "terms": {"rec_id": 100, "species": 1}}],
                  "files": {"pattern": f"{_MLSP}/src_wavs/{{filename}}.wav",
                            "dest": "{filename}.wav"},
                  "extra_public_files": [f"{_MLSP}/species_list.txt"]},
        "fixture": {"rows": 60, "tables": [
            {"path": f"{_MLSP}/CVfolds_2.txt", "archive": "mlsp_contest_dataset.zip",
             "member": f"{_MLSP}/CVfolds_2.txt",
             "columns": {"rec_id": "seq:{i}", "fold": "choice:0|1"}},
            {"path": f"{_MLSP}/rec_id2filename.txt", "archive": "mlsp_contest_dataset.zip",
             "member": f"{_MLSP}/rec_id2filename.txt",
             "columns": {"rec_id": "seq:{i}", "filename": "seq:PC1_20090606_{i:06d}"}},
            {"path": f"{_MLSP}/rec_labels_test_hidden.txt", "archive": "mlsp_contest_dataset.zip",
             "member": f"{_MLSP}/rec_labels_test_hidden.txt", "ragged": True,
             "header": "rec_id,[labels]",
             "columns": {"rec_id": "seq:{i}", "labels": "subset:?:" + "|".join(_SPECIES)}},
            {"path": f"{_MLSP}/species_list.txt", "archive": "mlsp_contest_dataset.zip",
             "member": f"{_MLSP}/species_list.txt", "rows": 19,
             "columns": {"class_id": "seq:{i}", "code": "seq:SP{i:02d}", "species": "text"}},
        ], "files": [
            {"pattern": f"{_MLSP}/src_wavs/{{filename}}.wav",
             "table": f"{_MLSP}/rec_id2filename.txt", "archive": "mlsp_contest_dataset.zip",
             "size": 64},
        ]},
    },
}
