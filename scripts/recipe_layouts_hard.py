"""Recipes and raw fixtures for the real downloads: the hard group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import dojo, mle, page, tam

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


_KDD23 = "https://d3qvx1ggyg4lu1.cloudfront.net/showcase/task-1-getting-started"
_AQA = "https://www.biendata.xyz/competition/aqa_kdd_2024/"
_IND = "https://www.biendata.xyz/competition/ind_kdd_2024/"
_PST = "https://www.biendata.xyz/competition/pst_kdd_2024/"
_PST_CODE = "github:THUDM/paper-source-trace"

LAYOUTS: dict[str, dict[str, Any]] = {
    "aicrowd/nextproductprediction": {
        "sources": [
            {"source": _KDD23,
             "detail": "the challenge's getting-started notebook: the download holds "
                       "products_train.csv, sessions_train.csv and sessions_test_task1.csv "
                       "(read with pandas.read_csv); a session is prev_items, next_item, "
                       "locale; a product is id, locale, title, price, brand, color, size, "
                       "model, material, author, desc"},
            *tam("MultiModal/medium/input/NextProductPrediction.json",
                 "target next_item; sessions of six locales; Task 1 predicts DE, JP, UK"),
        ],
        "split": {"strategy": "random", "train_file": "sessions_train.csv",
                  "id_column": "session_id", "target_columns": ["next_item"],
                  "test_size": 0.1, "extra_public_files": ["products_train.csv"],
                  "transforms": [{"op": "row_number", "column": "session_id"}]},
        "fixture": {"rows": 80, "tables": [
            {"path": "products_train.csv", "columns": {
                "id": "seq:B0{i:08d}C", "locale": "choice:DE|JP|UK|ES|FR|IT", "title": "text",
                "price": "float:1:300", "brand": "choice:acme|zeta", "color": "choice:red|black",
                "size": "choice:S|M|L", "model": "seq:m{i}", "material": "choice:wood|steel",
                "author": "choice:|a. b.", "desc": "text"}},
            {"path": "sessions_train.csv", "columns": {
                "prev_items": "seq:['B0{i:08d}A' 'B0{i:08d}B']", "next_item": "seq:B0{i:08d}C",
                "locale": "choice:DE|JP|UK|ES|FR|IT"}},
            {"path": "sessions_test_task1.csv", "rows": 12, "columns": {
                "prev_items": "seq:['B1{i:08d}A']", "locale": "choice:DE|JP|UK"}},
        ]},
    },
    "biendata/ind": {
        "sources": [
            {"source": _IND, "detail": "train_author.json (author id -> name, normal_data, "
                                       "outliers: paper ids), ind_valid_author.json (author "
                                       "id -> name, papers), pid_to_info_all.json (paper id "
                                       "-> title, authors, venue, year, keywords, abstract), "
                                       "ind_valid_author_submit.json"},
            *tam("Graph/easy/input/IND.json",
                 "train train_author.json (author id, name, normal_data, outliers); test "
                 "ind_valid_author.json (papers of each author); the answer is a JSON object "
                 "author id -> paper id -> label"),
        ],
        "split": {"strategy": "group", "train_file": "train_author.json", "id_column": "id",
                  "target_columns": ["label"], "group_column": "author_id", "test_size": 0.2,
                  "answers_keys": ["author_id", "paper_id"],
                  "hidden_columns": {"position": "public"},
                  "extra_public_files": ["pid_to_info_all.json"],
                  "transforms": [
                      {"op": "rename", "columns": {"key": "author_id"}},
                      {"op": "unpivot", "keys": ["normal_data", "outliers"],
                       "key_column": "label", "columns": {"paper_id": "{key}"}},
                      {"op": "explode", "columns": ["paper_id"], "position_column": "position"},
                      {"op": "map_values", "column": "label",
                       "mapping": {"normal_data": "1", "outliers": "0"}},
                      {"op": "compose_id", "column": "id", "template": "{author_id}-{paper_id}"}]},
        "fixture": {"rows": 40, "tables": [
            {"path": "train_author.json", "keyed": "author", "columns": {
                "author": "seq:{i:024x}", "name": "text", "normal_data": "ids:4",
                "outliers": "ids:1"}},
            {"path": "ind_valid_author.json", "keyed": "author", "rows": 8, "columns": {
                "author": "seq:f{i:023x}", "name": "text", "papers": "ids:5"}},
        ], "extra": {"pid_to_info_all.json": '{"0a": {"title": "t", "year": 2020}}',
                     "ind_valid_author_submit.json": '{}'}},
    },
    "biendata/aqa": {
        "sources": [
            {"source": _AQA, "detail": "qa_train.txt and qa_valid_wo_ans.txt (one JSON "
                                       "object a line: question, body, and pids in the "
                                       "training file), pid_to_title_abs_new.json"},
            *tam("Graph/hard/input/AQA.json",
                 "train qa_train.txt (question, body, pids), test qa_valid_wo_ans.txt "
                 "(question, body); the answer of a question is a line of comma-separated "
                 "pids"),
        ],
        "split": {"strategy": "random", "train_file": "qa_train.txt", "id_column": "qid",
                  "target_columns": ["pids"], "test_size": 0.1,
                  "extra_public_files": ["pid_to_title_abs_new.json"],
                  "transforms": [{"op": "row_number", "column": "qid"},
                                 {"op": "join_list", "column": "pids", "separator": ","}]},
        "fixture": {"rows": 80, "tables": [
            {"path": "qa_train.txt", "lines": True, "columns": {
                "question": "text", "body": "text", "pids": "list"}},
            {"path": "qa_valid_wo_ans.txt", "lines": True, "rows": 12, "columns": {
                "question": "text", "body": "text"}},
        ], "extra": {"pid_to_title_abs_new.json":
                     '{"v0": {"title": "t0", "abstract": "a0"}}'}},
    },
    "biendata/pst": {
        "sources": [
            {"source": _PST, "detail": "PST.zip: paper_source_trace_train_ans.json (a list "
                                       "of papers: _id, title, authors, year, venue, "
                                       "references, refs_trace: the source papers' _id, "
                                       "title, authors, venue, year), paper_source_trace_"
                                       "valid_wo_ans.json (no refs_trace), "
                                       "paper_source_gen_by_rule.json, paper-xml/<_id>.xml "
                                       "(GROBID TEI of each paper), submission_example_"
                                       "valid.json ({_id: [score per reference]})"},
            {"source": _PST_CODE, "commit": "04474ea991542cdfdd40cdb35a4f1c970c31f364",
             "path": "bert.py",
             "detail": "the organisers' baseline: a paper's references are its TEI "
                       "biblStruct entries b<N> with an analytic title, listed b0 to the "
                       "last such entry (the submission's length); an entry is a source "
                       "when its lower-case title has a fuzzy ratio >= 80 with a refs_trace "
                       "title"},
            *tam("Graph/medium/input/PST.json",
                 "train paper_source_trace_train_ans.json, test paper_source_trace_valid_"
                 "wo_ans.json, XML full texts in paper-xml; scores per reference in [0, 1]"),
        ],
        "split": {"strategy": "group", "train_file": "paper_source_trace_train_ans.json",
                  "id_column": "ref_id", "target_columns": ["label"],
                  "group_column": "paper_id", "test_size": 0.2,
                  "answers_keys": ["paper_id", "ref_index"], "answers_list": True,
                  "transforms": [
                      {"op": "rename", "columns": {"_id": "paper_id"}},
                      {"op": "bibliography", "pattern": "paper-xml/{paper_id}.xml",
                       "titles_column": "refs_trace"},
                      {"op": "compose_id", "column": "ref_id",
                       "template": "{paper_id}_b{ref_index}"}],
                  "files": {"pattern": "paper-xml/{paper_id}.xml", "dest": "{paper_id}.xml"}},
        "fixture": {"rows": 40, "tables": [
            {"path": "paper_source_trace_train_ans.json", "columns": {
                "_id": "seq:{i:024x}", "title": "text", "authors": "list", "year":
                "int:2000:2023", "venue": "text", "references": "ids:6",
                "refs_trace": "titled:2"}},
            {"path": "paper_source_trace_valid_wo_ans.json", "rows": 8, "columns": {
                "_id": "seq:f{i:023x}", "title": "text", "authors": "list",
                "year": "int:2000:2023", "venue": "text", "references": "ids:6"}},
        ], "files": [{"pattern": "paper-xml/{_id}.xml",
                      "table": "paper_source_trace_train_ans.json", "tei": "refs_trace"}],
            "extra": {"paper_source_gen_by_rule.json": "[]",
                      "submission_example_valid.json": "{}"}},
    },
    "kaggle/billion-word-imputation": {
        "sources": [
            *mle("billion-word-imputation",
                 "extracts train_v2.txt.zip: train_v2.txt holds one sentence a line, no "
                 "header (words and punctuation separated by spaces); about 1% of the "
                 "sentences of more than two words go to the test, each with one random word "
                 "removed, never the first or the last; answers id, sentence (the whole "
                 "sentence); test_v2.txt.zip holds Kaggle's test (\"id\",\"sentence\")"),
            *page("billion-word-imputation",
                  "train_v2.txt, test_v2.txt (id, sentence with one word removed); the "
                  "submission is id, sentence with the word restored"),
        ],
        "split": {"strategy": "random", "id_column": "id", "target_columns": ["sentence"],
                  "test_size": 0.01,
                  "transforms": [
                      {"op": "lines_table", "path": "train_v2.txt", "column": "sentence"},
                      {"op": "row_number", "column": "id"},
                      {"op": "remove_word", "column": "sentence", "id_column": "id",
                       "into": "incomplete_sentence"}]},
        "fixture": {"rows": 800, "tables": [
            {"path": "train_v2.txt", "archive": "train_v2.txt.zip", "plain": True,
             "columns": {"sentence": "text"}},
            {"path": "test_v2.txt", "archive": "test_v2.txt.zip", "rows": 8,
             "columns": {"id": "seq:{i}", "sentence": "text"}},
        ]},
    },
    "kaggle/airbus-ship-detection": {
        "sources": [
            *dojo("airbus-ship-detection",
                  "reads train_ship_segmentations_v2.csv (ImageId, EncodedPixels: one row "
                  "per ship, one row with an empty EncodedPixels for an image without "
                  "ship) and the images train_v2/<ImageId>; splits the images; answers one "
                  "row per test image with its ships' encodings (empty: no ship); test_v2/ "
                  "and sample_submission_v2.csv are not used"),
            *page("airbus-ship-detection",
                  "train_v2/ and test_v2/ images, train_ship_segmentations_v2.csv, "
                  "sample_submission_v2.csv (ImageId, EncodedPixels); ships never overlap"),
        ],
        "split": {"strategy": "random", "train_file": "train_ship_segmentations_v2.csv",
                  "id_column": "ImageId", "target_columns": ["EncodedPixels"],
                  "test_size": 0.1,
                  "transforms": [
                      {"op": "aggregate", "key": "ImageId", "column": "EncodedPixels",
                       "template": "{EncodedPixels}", "separator": "|", "skip_empty": True}],
                  "files": {"pattern": "train_v2/{ImageId}"}},
        "fixture": {"rows": 120, "tables": [
            {"path": "train_ship_segmentations_v2.csv", "columns": {
                "ImageId": "group:2:{g:09x}.jpg", "EncodedPixels": "rle:2:3"}},
            {"path": "sample_submission_v2.csv", "rows": 8, "columns": {
                "ImageId": "seq:t{i:08x}.jpg", "EncodedPixels": "const:1 2"}},
        ], "files": [{"pattern": "train_v2/{ImageId}",
                      "table": "train_ship_segmentations_v2.csv", "size": 32}]},
    },
    "kaggle/image-matching-challenge-2024-hexathlon": _image_matching_2024(),
    "kaggle/image-matching-challenge-2024": _image_matching_2024(),
}
