"""The layouts of the real downloads and the recipes written for them (data of fill_layouts).

Every entry names where its layout was read: MLE-bench's prepare.py for the competition (the
files it reads from ``raw``, the archives it extracts, the columns it drops or renames), else
TAM-Bench's task input (file names and columns) or the competition's data page.
"""

from __future__ import annotations

from typing import Any

MLE_COMMIT = "783b15af77404fbaffe7255b0c4a934b46153389"
TAM_COMMIT = "2bbdc1122f37ca967ccba2c467dd2e1575ee2f13"
DOJO_COMMIT = "667a8fd0e959eb47f140ce7e621f831fdb55e5dd"


def mle(slug: str, detail: str) -> list[dict[str, str]]:
    """MLE-bench's prepare.py of ``slug`` as the source."""
    return [{"source": "github:openai/mle-bench", "commit": MLE_COMMIT,
             "path": f"mlebench/competitions/{slug}/prepare.py", "detail": detail}]


def dojo(folder: str, detail: str) -> list[dict[str, str]]:
    """MLE-Dojo's prepare.py of the competition in ``folder`` (its own spelling) as the source."""
    return [{"source": "github:MLE-Dojo/MLE-Dojo", "commit": DOJO_COMMIT,
             "path": f"mledojo/competitions/{folder}/utils/prepare.py", "detail": detail}]


def tam(path: str, detail: str) -> list[dict[str, str]]:
    """A TAM-Bench task input as the source."""
    return [{"source": "github:JiaHangyi828/TAM-Bench", "commit": TAM_COMMIT, "path": path,
             "detail": detail}]


def page(slug: str, detail: str) -> list[dict[str, str]]:
    """The competition's data page as the source."""
    return [{"source": f"https://www.kaggle.com/competitions/{slug}/data", "detail": detail}]


def _playground(slug: str, target: str, features: dict[str, str]) -> dict[str, Any]:
    return {
        "sources": page(slug, "train.csv (id, features, the target), test.csv, "
                              "sample_submission.csv at the top of the download"),
        "split": {"strategy": "stratified", "train_file": "train.csv", "id_column": "id",
                  "target_columns": [target], "test_size": 0.1, "stratify_column": target},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"id": "seq:{i}", **features,
                                              target: "choice:0|1"}},
            {"path": "test.csv", "columns": {"id": "seq:{i}", **features}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:{i}", target: "const:0.5"}},
        ]},
    }


def _text_normalization(lang: str, slug: str) -> dict[str, Any]:
    return {
        "sources": mle(slug, f"extracts {lang}_train.csv.zip, {lang}_test_2.csv.zip and "
                             f"{lang}_sample_submission_2.csv.zip; splits the sentences of "
                             f"{lang}_train.csv (sentence_id, token_id, class, before, after); "
                             "answers id = sentence_id + '_' + token_id, after"),
        "split": {"strategy": "group", "train_file": f"{lang}_train.csv", "id_column": "id",
                  "target_columns": ["after"], "group_column": "sentence_id",
                  "test_size": 0.1, "hidden_columns": {"class": "test"},
                  "transforms": [{"op": "compose_id", "column": "id",
                                  "template": "{sentence_id}_{token_id}"}]},
        "fixture": {"rows": 80, "tables": [
            {"path": f"{lang}_train.csv", "archive": f"{lang}_train.csv.zip",
             "columns": {"sentence_id": "group:4:{g}", "token_id": "seq:{i}",
                         "class": "choice:PLAIN|PUNCT|DATE", "before": "text",
                         "after": "text"}},
            {"path": f"{lang}_test_2.csv", "archive": f"{lang}_test_2.csv.zip",
             "columns": {"sentence_id": "group:4:{g}", "token_id": "seq:{i}",
                         "before": "text"}},
            {"path": f"{lang}_sample_submission_2.csv",
             "archive": f"{lang}_sample_submission_2.csv.zip",
             "columns": {"id": "seq:0_{i}", "after": "text"}},
        ]},
    }


LAYOUTS: dict[str, dict[str, Any]] = {
    "kaggle/spaceship-titanic": {
        "sources": mle("spaceship-titanic", "splits raw train.csv (PassengerId, ..., "
                                            "Transported) 9:1"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "PassengerId",
                  "target_columns": ["Transported"], "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "PassengerId": "seq:{i:04d}_01", "HomePlanet": "choice:Earth|Europa|Mars",
                "CryoSleep": "choice:True|False", "Cabin": "seq:B/{i}/P",
                "Destination": "choice:TRAPPIST-1e|55 Cancri e", "Age": "int:1:80",
                "VIP": "choice:True|False", "RoomService": "float:0:900",
                "Name": "text", "Transported": "choice:True|False"}},
            {"path": "test.csv", "columns": {"PassengerId": "seq:{i:04d}_02",
                                             "HomePlanet": "choice:Earth|Mars", "Age": "int:1:80"}},
            {"path": "sample_submission.csv", "columns": {"PassengerId": "seq:{i:04d}_02",
                                                          "Transported": "const:False"}},
        ]},
    },
    "kaggle/new-york-city-taxi-fare-prediction": {
        "sources": mle("new-york-city-taxi-fare-prediction",
                       "splits raw train.csv (key, fare_amount, pickup_datetime, 4 coordinates, "
                       "passenger_count); copies GCP-Coupons-Instructions.rtf"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "key",
                  "target_columns": ["fare_amount"], "test_size": 0.1,
                  "extra_public_files": ["GCP-Coupons-Instructions.rtf"]},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "key": "seq:2015-01-27 13:08:24.00000{i}", "fare_amount": "float:2.5:60",
                "pickup_datetime": "date:2012-01-01", "pickup_longitude": "float:-74.1:-73.7",
                "pickup_latitude": "float:40.6:40.9", "dropoff_longitude": "float:-74.1:-73.7",
                "dropoff_latitude": "float:40.6:40.9", "passenger_count": "int:1:6"}},
            {"path": "test.csv", "columns": {"key": "seq:t{i}", "pickup_datetime":
                                             "date:2015-01-01", "passenger_count": "int:1:6"}},
            {"path": "sample_submission.csv", "columns": {"key": "seq:t{i}",
                                                          "fare_amount": "const:11.35"}},
        ], "extra": {"GCP-Coupons-Instructions.rtf": "{\\rtf1 coupons}"}},
    },
    "kaggle/binary-prediction-of-poisonous-mushrooms": {
        "sources": tam("Tabular/medium/input/Binary Prediction of Poisonous Mushrooms.json",
                       "train.csv (id, features, class e/p), test.csv without class; "
                       "submission id,class"),
        "split": {"strategy": "stratified", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["class"], "test_size": 0.1, "stratify_column": "class"},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "class": "choice:e|p", "cap-diameter": "float:1:20",
                "cap-shape": "choice:x|f|b|s", "cap-color": "choice:n|w|y|g",
                "stem-height": "float:1:15", "season": "choice:a|u|w|s"}},
            {"path": "test.csv", "columns": {"id": "seq:{i}", "cap-diameter": "float:1:20"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:{i}", "class": "const:e"}},
        ]},
    },
    "kaggle/lmsys-chatbot-arena": {
        "sources": mle("lmsys-chatbot-arena", "splits raw train.csv (id, model_a, model_b, "
                                              "prompt, response_a, response_b, winner_model_a, "
                                              "winner_model_b, winner_tie) 9:1; public test keeps "
                                              "id, prompt, response_a, response_b"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["winner_model_a", "winner_model_b", "winner_tie"],
                  "test_size": 0.1,
                  "hidden_columns": {"model_a": "test", "model_b": "test"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "model_a": "choice:gpt-4|llama-2|claude-2",
                "model_b": "choice:gpt-4|llama-2|claude-2", "prompt": "text",
                "response_a": "text", "response_b": "text",
                "winner_model_a": "onehot:winner", "winner_model_b": "onehot:winner",
                "winner_tie": "onehot:winner"}},
            {"path": "test.csv", "columns": {"id": "seq:{i}", "prompt": "text",
                                             "response_a": "text", "response_b": "text"}},
            {"path": "sample_submission.csv", "columns": {
                "id": "seq:{i}", "winner_model_a": "const:0.33", "winner_model_b": "const:0.33",
                "winner_tie": "const:0.34"}},
        ]},
    },
    "kaggle/text-normalization-challenge-english-language":
        _text_normalization("en", "text-normalization-challenge-english-language"),
    "kaggle/text-normalization-challenge-russian-language":
        _text_normalization("ru", "text-normalization-challenge-russian-language"),
    "kaggle/planttraits2024": {
        "sources": tam("MultiModal/hard/input/planttraits2024.txt",
                       "train.csv (id, WORLDCLIM_BIO*, SOIL_*, MODIS_*/VOD_*, X*_mean, X*_sd) "
                       "and train_images/<id>.jpeg; submission id and the six traits"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "test_size": 0.1,
                  "transforms": [{"op": "rename", "columns": {
                      f"X{t}_mean": f"X{t}" for t in (4, 11, 18, 26, 50, 3112)}}],
                  "hidden_columns": {f"X{t}_sd": "test" for t in (4, 11, 18, 26, 50, 3112)},
                  "files": {"pattern": "train_images/{id}.jpeg", "dest": "{id}.jpeg"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "WORLDCLIM_BIO1_annual_mean_temperature": "float:-5:30",
                "SOIL_clay_0.5cm_mean": "float:0:500",
                **{f"X{t}_mean": "float:0.1:10" for t in (4, 11, 18, 26, 50, 3112)},
                **{f"X{t}_sd": "float:0:1" for t in (4, 11, 18, 26, 50, 3112)}}},
            {"path": "test.csv", "columns": {"id": "seq:t{i}",
                                             "WORLDCLIM_BIO1_annual_mean_temperature":
                                                 "float:-5:30"}},
            {"path": "sample_submission.csv", "columns": {
                "id": "seq:t{i}", **{f"X{t}": "const:1.0" for t in (4, 11, 18, 26, 50, 3112)}}},
        ], "files": [{"pattern": "train_images/{id}.jpeg", "table": "train.csv"}]},
    },
    "kaggle/aerial-cactus-identification": {
        "sources": mle("aerial-cactus-identification",
                       "splits raw train.csv (id, has_cactus) with test_size 0.19; extracts "
                       "train.zip and copies train/<id> per row"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["has_cactus"], "test_size": 0.19,
                  "files": {"pattern": "train/{id}"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"id": "seq:{i:032x}.jpg",
                                              "has_cactus": "choice:0|1"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:t{i:031x}.jpg",
                                                          "has_cactus": "const:0.5"}},
        ], "files": [{"pattern": "train/{id}", "table": "train.csv", "archive": "train.zip"}]},
    },
    "kaggle/aptos2019-blindness-detection": {
        "sources": mle("aptos2019-blindness-detection",
                       "splits raw train.csv (id_code, diagnosis) 9:1; copies "
                       "train_images/<id_code>.png per row"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id_code",
                  "target_columns": ["diagnosis"], "test_size": 0.1,
                  "files": {"pattern": "train_images/{id_code}.png", "dest": "{id_code}.png"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"id_code": "seq:{i:012x}",
                                              "diagnosis": "choice:0|1|2|3|4"}},
            {"path": "test.csv", "columns": {"id_code": "seq:t{i:011x}"}},
            {"path": "sample_submission.csv", "columns": {"id_code": "seq:t{i:011x}",
                                                          "diagnosis": "const:0"}},
        ], "files": [{"pattern": "train_images/{id_code}.png", "table": "train.csv"}]},
    },
    "kaggle/dogs-vs-cats-redux-kernels-edition": {
        "sources": mle("dogs-vs-cats-redux-kernels-edition",
                       "extracts train.zip (train/cat.<n>.jpg, train/dog.<n>.jpg: the label is "
                       "in the file name) and test.zip; splits the train images 9:1; answers "
                       "id,label with label 1 for dog"),
        "split": {"strategy": "stratified", "id_column": "id", "target_columns": ["label"],
                  "test_size": 0.1, "stratify_column": "label",
                  "transforms": [
                      {"op": "files_table", "pattern": "train/{animal}.{num}.jpg"},
                      {"op": "hash_id", "column": "id", "columns": ["path"]},
                      {"op": "one_hot", "column": "animal", "classes": ["dog", "cat"]},
                      {"op": "rename", "columns": {"dog": "label"}}],
                  "hidden_columns": {"num": "public", "path": "public", "cat": "public"},
                  "files": {"pattern": "{path}", "dest": "{id}.jpg"}},
        "fixture": {"tables": [
            {"path": "sample_submission.csv", "columns": {"id": "seq:{i}", "label": "const:0.5"}},
            {"path": "names.csv", "virtual": True, "columns": {"animal": "choice:cat|dog",
                                                              "num": "seq:{i}"}},
        ], "files": [
            {"pattern": "train/{animal}.{num}.jpg", "table": "names.csv", "archive": "train.zip"},
            {"pattern": "test/{num}.jpg", "table": "names.csv", "archive": "test.zip"}]},
    },
}


def _targets(task_id: str) -> list[str]:
    """The grading's target columns of a task (read from its task.json)."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tambench/tasks/catalogue" / task_id / "task.json"
    return list(json.loads(path.read_text(encoding="utf-8"))["grading"]["target_columns"])


_QUEST = _targets("kaggle/google-quest-challenge")
_SOUNDS = _targets("kaggle/freesound-audio-tagging-2019")
_PIZZA_LATER = ["giver_username_if_known", "number_of_upvotes_of_request_at_retrieval",
                "request_number_of_comments_at_retrieval", "requester_user_flair",
                "post_was_edited", "request_text"]

LAYOUTS.update({
    "kaggle/random-acts-of-pizza": {
        "sources": mle("random-acts-of-pizza",
                       "reads raw train.json and test.json (lists of records); public test "
                       "keeps only the fields of the official test.json (no *_at_retrieval, "
                       "giver_username_if_known, requester_user_flair, post_was_edited, "
                       "request_text); answers request_id, requester_received_pizza as 0/1"),
        "split": {"strategy": "stratified", "train_file": "train.json",
                  "id_column": "request_id", "target_columns": ["requester_received_pizza"],
                  "test_size": 0.1, "stratify_column": "requester_received_pizza",
                  "transforms": [{"op": "map_values", "column": "requester_received_pizza",
                                  "mapping": {"true": "1", "false": "0"}}],
                  "hidden_columns": {c: "test" for c in _PIZZA_LATER}},
        "fixture": {"tables": [
            {"path": "train.json", "columns": {
                "request_id": "seq:t3_{i:05x}", "request_title": "text",
                "request_text_edit_aware": "text",
                "requester_subreddits_at_request": "list",
                "requester_account_age_in_days_at_request": "float:0:900",
                "unix_timestamp_of_request": "int:1300000000:1380000000",
                **{c: "text" for c in _PIZZA_LATER},
                "requester_received_pizza": "bool"}},
            {"path": "test.json", "columns": {"request_id": "seq:t3_a{i:04x}",
                                              "request_title": "text"}},
            {"path": "sampleSubmission.csv", "columns": {"request_id": "seq:t3_a{i:04x}",
                                                         "requester_received_pizza": "const:0"}},
        ]},
    },
    "kaggle/siim-isic-melanoma-classification": {
        "sources": mle("siim-isic-melanoma-classification",
                       "reads raw train.csv (image_name, patient_id, sex, age_approx, "
                       "anatom_site_general_challenge, diagnosis, benign_malignant, target) and "
                       "jpeg/train/<image_name>.jpg; its public test keeps image_name, "
                       "patient_id, sex, age_approx, anatom_site_general_challenge only"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "image_name",
                  "target_columns": ["target"], "group_column": "patient_id",
                  "test_size": 0.1,
                  "hidden_columns": {"diagnosis": "test", "benign_malignant": "test"},
                  "files": {"pattern": "jpeg/train/{image_name}.jpg",
                            "dest": "{image_name}.jpg"}},
        "fixture": {"rows": 120, "tables": [
            {"path": "train.csv", "columns": {
                "image_name": "seq:ISIC_{i:07d}", "patient_id": "group:2:IP_{g:07d}",
                "sex": "choice:male|female", "age_approx": "int:20:80",
                "anatom_site_general_challenge": "choice:torso|head/neck|upper extremity",
                "diagnosis": "choice:unknown|nevus|melanoma",
                "benign_malignant": "choice:benign|malignant", "target": "choice:0|1"}},
            {"path": "test.csv", "columns": {"image_name": "seq:ISIC_9{i:06d}",
                                             "patient_id": "group:2:IP_9{g:06d}"}},
            {"path": "sample_submission.csv", "columns": {"image_name": "seq:ISIC_9{i:06d}",
                                                          "target": "const:0"}},
        ], "files": [{"pattern": "jpeg/train/{image_name}.jpg", "table": "train.csv"}]},
    },
    "kaggle/tabular-playground-series-may-2022": {
        "sources": mle("tabular-playground-series-may-2022",
                       "splits raw train.csv (id, f_00..f_30, target) with a fixed test size"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["target"], "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "f_00": "float:-3:3", "f_07": "int:0:10",
                "f_27": "seq:ABBAC{i}", "f_30": "int:0:2", "target": "choice:0|1"}},
            {"path": "test.csv", "columns": {"id": "seq:{i}", "f_00": "float:-3:3"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:{i}",
                                                          "target": "const:0.5"}},
        ]},
    },
    "kaggle/playground-series-s3e24": _playground(
        "playground-series-s3e24", "smoking",
        {"age": "int:20:80", "height(cm)": "int:140:190", "hemoglobin": "float:10:18"}),
    "kaggle/playground-series-s4e10": _playground(
        "playground-series-s4e10", "loan_status",
        {"person_age": "int:20:70", "person_income": "int:10000:200000",
         "loan_intent": "choice:EDUCATION|MEDICAL|VENTURE", "loan_grade": "choice:A|B|C"}),
    "kaggle/google-quest-challenge": {
        "sources": mle("google-quest-challenge",
                       "splits raw train.csv (qa_id, question and answer texts, users, url, "
                       "category, host, 30 target columns) 9:1"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "qa_id",
                  "target_columns": _QUEST, "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "qa_id": "seq:{i}", "question_title": "text", "question_body": "text",
                "question_user_name": "text", "answer": "text", "url": "seq:https://q/{i}",
                "category": "choice:TECHNOLOGY|LIFE_ARTS|SCIENCE", "host": "choice:a.com|b.com",
                **{t: "float:0:1" for t in _QUEST}}},
            {"path": "test.csv", "columns": {"qa_id": "seq:9{i}", "question_title": "text"}},
            {"path": "sample_submission.csv", "columns": {"qa_id": "seq:9{i}",
                                                          **{t: "const:0.5" for t in _QUEST}}},
        ]},
    },
    "kaggle/nomad2018-predict-transparent-conductors": {
        "sources": mle("nomad2018-predict-transparent-conductors",
                       "extracts train.csv.zip (train.csv: id, spacegroup, atom counts and "
                       "shares, lattice vectors and angles, formation_energy_ev_natom, "
                       "bandgap_energy_ev) and train.zip (train/<id>/geometry.xyz)"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["formation_energy_ev_natom", "bandgap_energy_ev"],
                  "test_size": 0.1,
                  "files": {"pattern": "train/{id}/geometry.xyz", "dest": "{id}/geometry.xyz"}},
        "fixture": {"tables": [
            {"path": "train.csv", "archive": "train.csv.zip", "columns": {
                "id": "seq:{i}", "spacegroup": "choice:12|33|167|194|206|227",
                "number_of_total_atoms": "int:10:80", "percent_atom_al": "float:0:1",
                "percent_atom_ga": "float:0:1", "lattice_vector_1_ang": "float:3:25",
                "formation_energy_ev_natom": "float:0:0.6", "bandgap_energy_ev": "float:0:5"}},
            {"path": "test.csv", "archive": "test.csv.zip", "columns": {
                "id": "seq:{i}", "spacegroup": "choice:12|33"}},
            {"path": "sample_submission.csv", "columns": {
                "id": "seq:{i}", "formation_energy_ev_natom": "const:0.1779",
                "bandgap_energy_ev": "const:1.8892"}},
        ], "files": [{"pattern": "train/{id}/geometry.xyz", "table": "train.csv",
                      "archive": "train.zip"}]},
    },
    "kaggle/freesound-audio-tagging-2019": {
        "sources": mle("freesound-audio-tagging-2019",
                       "one row per clip: fname, labels (comma-separated class names of the "
                       "80 in the sample submission); answers one 0/1 column per class") + page(
            "freesound-audio-tagging-2019", "train_curated.csv (fname, labels) and "
                                            "train_curated.zip (the clips)"),
        "split": {"strategy": "random", "train_file": "train_curated.csv",
                  "id_column": "fname", "target_columns": _SOUNDS, "test_size": 0.1,
                  "transforms": [{"op": "one_hot", "column": "labels", "classes": _SOUNDS,
                                  "separator": ","}],
                  "files": {"pattern": "train_curated/{fname}", "dest": "{fname}"}},
        "fixture": {"rows": 80, "tables": [
            {"path": "train_curated.csv", "columns": {
                "fname": "seq:{i:08x}.wav", "labels": "multi:" + "|".join(_SOUNDS)}},
            {"path": "sample_submission.csv", "columns": {
                "fname": "seq:t{i:07x}.wav", **{c: "const:0" for c in _SOUNDS}}},
        ], "files": [{"pattern": "train_curated/{fname}", "table": "train_curated.csv",
                      "archive": "train_curated.zip"}]},
    },
    "kaggle/the-icml-2013-whale-challenge-right-whale-redux": {
        "sources": mle("the-icml-2013-whale-challenge-right-whale-redux",
                       "unpacks train2.zip: train2/<YYYYMMDD>_<HHMMSS>_<s>_TRAIN<idx>_<label>.aif, "
                       "the label (0/1) in the file name; answers clip, probability"),
        "split": {"strategy": "stratified", "id_column": "clip",
                  "target_columns": ["probability"], "test_size": 0.1,
                  "stratify_column": "probability",
                  "transforms": [
                      {"op": "files_table", "pattern": "train2/{name}_{probability}.aif"},
                      {"op": "hash_id", "column": "key", "columns": ["path"]},
                      {"op": "compose_id", "column": "clip", "template": "{key}.aif"}],
                  "hidden_columns": {"name": "public", "path": "public", "key": "public"},
                  "files": {"pattern": "{path}", "dest": "{clip}"}},
        "fixture": {"tables": [
            {"path": "clips.csv", "virtual": True, "columns": {
                "name": "seq:20090328_{i:06d}_002s3ms_TRAIN{i}", "label": "choice:0|1"}},
            {"path": "sampleSubmission.txt", "columns": {
                "clip": "seq:20090330_{i:06d}_000s0ms_Test{i}.aif", "probability": "const:0"}},
        ], "files": [{"pattern": "train2/{name}_{label}.aif", "table": "clips.csv",
                      "archive": "train2.zip"}]},
    },
    "kaggle/iwildcam-2019-fgvc6": {
        "sources": mle("iwildcam-2019-fgvc6",
                       "splits raw train.csv (id, file_name, category_id, location, "
                       "date_captured, ...) by location; extracts train_images.zip; answers "
                       "renamed Id, Category"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "Id",
                  "target_columns": ["Category"], "group_column": "location",
                  "test_size": 0.1,
                  "transforms": [{"op": "rename", "columns": {"id": "Id",
                                                              "category_id": "Category"}}],
                  "files": {"pattern": "train_images/{file_name}", "dest": "{file_name}"}},
        "fixture": {"rows": 120, "tables": [
            {"path": "train.csv", "columns": {
                "category_id": "choice:0|1|3|8", "date_captured": "date:2012-03-01",
                "file_name": "seq:{i:08x}.jpg", "frame_num": "int:1:3", "id": "seq:{i:08x}",
                "location": "group:4:{g}", "rights_holder": "const:Justin Brown",
                "seq_id": "group:3:s{g}", "width": "const:1024", "height": "const:747"}},
            {"path": "sample_submission.csv", "columns": {"Id": "seq:t{i:07x}",
                                                          "Category": "const:0"}},
        ], "files": [{"pattern": "train_images/{file_name}", "table": "train.csv",
                      "archive": "train_images.zip"}]},
    },
    "kaggle/nfl-player-contact-detection": {
        "sources": mle("nfl-player-contact-detection",
                       "splits raw train_labels.csv (contact_id, game_play, datetime, step, "
                       "nfl_player_id_1, nfl_player_id_2, contact) by game_play; "
                       "train_player_tracking.csv and the other side tables are per game_play"),
        "split": {"strategy": "group", "train_file": "train_labels.csv",
                  "id_column": "contact_id", "target_columns": ["contact"],
                  "group_column": "game_play", "test_size": 0.1,
                  "extra_public_files": ["train_player_tracking.csv"]},
        "fixture": {"rows": 120, "tables": [
            {"path": "train_labels.csv", "columns": {
                "contact_id": "seq:58168_003392_{i}_47795_G", "game_play": "group:4:58168_{g}",
                "datetime": "date:2020-09-11", "step": "int:0:100",
                "nfl_player_id_1": "int:40000:50000", "nfl_player_id_2": "const:G",
                "contact": "choice:0|1"}},
            {"path": "train_player_tracking.csv", "columns": {
                "game_play": "group:4:58168_{g}", "nfl_player_id": "int:40000:50000",
                "step": "int:0:100", "x_position": "float:0:120", "speed": "float:0:9"}},
            {"path": "sample_submission.csv", "columns": {"contact_id": "seq:x_{i}",
                                                          "contact": "const:0"}},
        ]},
    },
})


_COMMANDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]
_OTHER_WORDS = ["bed", "bird", "cat", "dog", "eight", "five", "four", "happy", "house",
                "marvin", "nine", "one", "seven", "sheila", "six", "three", "tree", "two", "wow",
                "zero"]

LAYOUTS.update({
    "kaggle/statoil-iceberg-classifier-challenge": {
        "sources": mle("statoil-iceberg-classifier-challenge",
                       "extracts train.json.7z and test.json.7z; reads "
                       "data/processed/train.json (records: id, band_1, band_2, inc_angle, "
                       "is_iceberg); answers id, is_iceberg"),
        "split": {"strategy": "stratified",
                  "train_file": "train.json/data/processed/train.json", "id_column": "id",
                  "target_columns": ["is_iceberg"], "test_size": 0.2,
                  "stratify_column": "is_iceberg"},
        "fixture": {"tables": [
            {"path": "train.json", "archive": "train.json.7z",
             "member": "data/processed/train.json", "columns": {
                 "id": "seq:{i:08x}", "band_1": "list", "band_2": "list",
                 "inc_angle": "float:30:45", "is_iceberg": "choice:0|1"}},
            {"path": "test.json", "archive": "test.json.7z",
             "member": "data/processed/test.json", "columns": {
                 "id": "seq:t{i:07x}", "band_1": "list", "band_2": "list",
                 "inc_angle": "float:30:45"}},
            {"path": "sample_submission.csv", "archive": "sample_submission.csv.7z",
             "member": "sample_submission.csv", "columns": {
                 "id": "seq:t{i:07x}", "is_iceberg": "const:0.5"}},
        ]},
    },
    "kaggle/tensorflow-speech-recognition-challenge": {
        "sources": mle("tensorflow-speech-recognition-challenge",
                       "extracts train.7z: train/audio/<word>/<speaker>_nohash_<n>.wav, the word "
                       "in the folder name; answers fname, label among the ten commands, "
                       "silence and unknown (MLE-bench issue #63: unmapped words)"),
        "split": {"strategy": "group", "id_column": "fname", "target_columns": ["label"],
                  "group_column": "speaker", "test_size": 0.1,
                  "transforms": [
                      {"op": "files_table",
                       "pattern": "train/audio/{word}/{speaker}_nohash_{n}.wav"},
                      {"op": "compose_id", "column": "label", "template": "{word}"},
                      {"op": "map_values", "column": "label", "mapping": {
                          **{w: w for w in _COMMANDS}, **{w: "unknown" for w in _OTHER_WORDS}}},
                      {"op": "hash_id", "column": "key", "columns": ["path"]},
                      {"op": "compose_id", "column": "fname", "template": "clip_{key}.wav"}],
                  "hidden_columns": {"word": "public", "n": "public", "path": "public",
                                     "key": "public", "speaker": "public"},
                  "files": {"pattern": "{path}", "dest": "{fname}"}},
        "fixture": {"rows": 90, "tables": [
            {"path": "clips.csv", "virtual": True, "columns": {
                "word": "choice:" + "|".join(_COMMANDS + _OTHER_WORDS[:5]),
                "speaker": "group:3:{g:08x}", "n": "int:0:4"}},
            {"path": "sample_submission.csv", "columns": {"fname": "seq:clip_{i:09d}.wav",
                                                          "label": "const:silence"}},
        ], "files": [
            {"pattern": "train/audio/{word}/{speaker}_nohash_{n}.wav", "table": "clips.csv",
             "archive": "train.7z"}],
            "extra": {"LICENSE": "CC-BY-4.0"}},
    },
})


LAYOUTS.update({
    "kaggle/eedi-mining-misconceptions-in-mathematics": {
        "sources": tam("Text/hard/input/eedi-mining-misconceptions-in-mathematics.json",
                       "train.csv (QuestionId, ConstructId, ConstructName, CorrectAnswer, "
                       "SubjectId, SubjectName, QuestionText, Answer[A-D]Text, "
                       "Misconception[A-D]Id); rows to predict are QuestionId_Answer of the "
                       "wrong answers; misconception_mapping.csv names the misconceptions"),
        "split": {"strategy": "group", "train_file": "train.csv",
                  "id_column": "QuestionId_Answer", "target_columns": ["MisconceptionId"],
                  "group_column": "QuestionId", "test_size": 0.1,
                  "extra_public_files": ["misconception_mapping.csv"],
                  "transforms": [
                      {"op": "unpivot", "keys": ["A", "B", "C", "D"], "key_column": "Answer",
                       "columns": {"AnswerText": "Answer{key}Text",
                                   "MisconceptionId": "Misconception{key}Id"}},
                      {"op": "drop_rows", "column": "MisconceptionId", "rule": "empty",
                       "reason": "correct answers and distractors without a misconception "
                                 "are not scored"},
                      {"op": "compose_id", "column": "QuestionId_Answer",
                       "template": "{QuestionId}_{Answer}"}]},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "QuestionId": "seq:{i}", "ConstructId": "int:1:900", "ConstructName": "text",
                "SubjectId": "int:1:400", "SubjectName": "text",
                "CorrectAnswer": "choice:A|B|C|D", "QuestionText": "text",
                "AnswerAText": "text", "AnswerBText": "text", "AnswerCText": "text",
                "AnswerDText": "text", "MisconceptionAId": "int:0:2586",
                "MisconceptionBId": "int:0:2586", "MisconceptionCId": "int:0:2586",
                "MisconceptionDId": "int:0:2586"}},
            {"path": "test.csv", "rows": 8, "columns": {
                "QuestionId": "seq:{i}", "QuestionText": "text", "AnswerAText": "text"}},
            {"path": "misconception_mapping.csv", "columns": {
                "MisconceptionId": "seq:{i}", "MisconceptionName": "text"}},
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "QuestionId_Answer": "seq:{i}_A", "MisconceptionId": "const:1 2 3"}},
        ]},
    },
})


_DEG = ["reactivity", "deg_Mg_pH10", "deg_pH10", "deg_Mg_50C", "deg_50C"]

LAYOUTS.update({
    "kaggle/stanford-covid-vaccine": {
        "sources": mle("stanford-covid-vaccine",
                       "reads raw train.json as JSON lines (id, sequence, structure, "
                       "predicted_loop_type, signal_to_noise, SN_filter, seq_length, seq_scored, "
                       "the five label lists and their *_error lists); answers one row per "
                       "scored position: id_seqpos = id + '_' + position"),
        "split": {"strategy": "group", "train_file": "train.json", "id_column": "id_seqpos",
                  "target_columns": ["reactivity", "deg_Mg_pH10", "deg_Mg_50C"],
                  "group_column": "id", "test_size": 0.1,
                  "transforms": [
                      {"op": "explode", "columns": [*_DEG, *[f"{c}_error" for c in _DEG]],
                       "position_column": "seqpos"},
                      {"op": "compose_id", "column": "id_seqpos", "template": "{id}_{seqpos}"},
                      {"op": "compose_id", "column": "keep", "template": "1"}],
                  "hidden_columns": {"deg_pH10": "test", "deg_50C": "test",
                                     "signal_to_noise": "test", "SN_filter": "test",
                                     **{f"{c}_error": "test" for c in _DEG}}},
        "fixture": {"rows": 30, "tables": [
            {"path": "train.json", "lines": True, "columns": {
                "index": "seq:{i}", "id": "seq:id_{i:09x}", "sequence": "const:GGAAAGCU",
                "structure": "const:.....(((", "predicted_loop_type": "const:EEEEESSS",
                "signal_to_noise": "float:0:10", "SN_filter": "choice:0|1",
                "seq_length": "const:8", "seq_scored": "const:4",
                **{c: "floats:4" for c in _DEG}, **{f"{c}_error": "floats:4" for c in _DEG}}},
            {"path": "test.json", "lines": True, "columns": {
                "index": "seq:{i}", "id": "seq:id_t{i:08x}", "sequence": "const:GGAAAGCU"}},
            {"path": "sample_submission.csv", "columns": {
                "id_seqpos": "seq:id_t{i:08x}_0", **{c: "const:0.0" for c in _DEG}}},
        ]},
    },
})


_VOTES = ["seizure_vote", "lpd_vote", "gpd_vote", "lrda_vote", "grda_vote", "other_vote"]

LAYOUTS.update({
    "kaggle/movie-review-sentiment-analysis-kernels-only": {
        "sources": mle("movie-review-sentiment-analysis-kernels-only",
                       "extracts train.tsv.zip; reads train.tsv (tab-separated: PhraseId, "
                       "SentenceId, Phrase, Sentiment); public test keeps PhraseId, SentenceId, "
                       "Phrase"),
        "split": {"strategy": "group", "train_file": "train.tsv", "id_column": "PhraseId",
                  "target_columns": ["Sentiment"], "group_column": "SentenceId",
                  "test_size": 0.1},
        "fixture": {"rows": 90, "tables": [
            {"path": "train.tsv", "archive": "train.tsv.zip", "columns": {
                "PhraseId": "seq:{i}", "SentenceId": "group:3:{g}", "Phrase": "text",
                "Sentiment": "choice:0|1|2|3|4"}},
            {"path": "test.tsv", "archive": "test.tsv.zip", "columns": {
                "PhraseId": "seq:9{i}", "SentenceId": "group:3:9{g}", "Phrase": "text"}},
            {"path": "sampleSubmission.csv", "columns": {"PhraseId": "seq:9{i}",
                                                         "Sentiment": "const:2"}},
        ]},
    },
    "kaggle/hms-harmful-brain-activity-classification": {
        "sources": mle("hms-harmful-brain-activity-classification",
                       "reads raw train.csv (eeg_id, eeg_sub_id, eeg_label_offset_seconds, "
                       "spectrogram_id, spectrogram_sub_id, spectrogram_label_offset_seconds, "
                       "label_id, patient_id, expert_consensus, six *_vote counts; several "
                       "sub-samples per eeg_id) and train_eegs/<eeg_id>.parquet; public test "
                       "keeps spectrogram_id, eeg_id, patient_id"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "eeg_id",
                  "target_columns": _VOTES, "group_column": "patient_id", "test_size": 0.1,
                  "transforms": [{"op": "drop_rows", "column": "eeg_id", "rule": "repeated",
                                  "reason": "an eeg_id is one answers row: its first labelled "
                                            "sub-sample is kept"}],
                  "hidden_columns": {c: "test" for c in (
                      "eeg_sub_id", "eeg_label_offset_seconds", "spectrogram_sub_id",
                      "spectrogram_label_offset_seconds", "label_id", "expert_consensus")},
                  "files": {"pattern": "train_eegs/{eeg_id}.parquet",
                            "dest": "{eeg_id}.parquet"}},
        "fixture": {"rows": 120, "tables": [
            {"path": "train.csv", "columns": {
                "eeg_id": "group:2:{g}", "eeg_sub_id": "int:0:1",
                "eeg_label_offset_seconds": "float:0:40", "spectrogram_id": "group:4:{g}",
                "spectrogram_sub_id": "int:0:3", "spectrogram_label_offset_seconds":
                    "float:0:40", "label_id": "seq:{i}", "patient_id": "group:6:{g}",
                "expert_consensus": "choice:Seizure|LPD|GPD|LRDA|GRDA|Other",
                **{v: "onehot:votes" for v in _VOTES}}},
            {"path": "test.csv", "rows": 8, "columns": {
                "spectrogram_id": "seq:{i}", "eeg_id": "seq:9{i}", "patient_id": "seq:{i}"}},
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "eeg_id": "seq:9{i}", **{v: "const:0.1666" for v in _VOTES}}},
        ], "files": [{"pattern": "train_eegs/{eeg_id}.parquet", "table": "train.csv"}]},
    },
})


_BREEDS = _targets("kaggle/dog-breed-identification")
_LEAVES = _targets("kaggle/leaf-classification")
_TOXIC = _targets("kaggle/jigsaw-toxic-comment-classification-challenge")

LAYOUTS.update({
    "kaggle/spooky-author-identification": {
        "sources": mle("spooky-author-identification",
                       "splits raw train.csv (id, text, author); answers one column per "
                       "author (EAP, HPL, MWS)"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["EAP", "HPL", "MWS"], "test_size": 0.1,
                  "transforms": [{"op": "one_hot", "column": "author",
                                  "classes": ["EAP", "HPL", "MWS"]}]},
        "fixture": {"tables": [
            {"path": "train.csv", "archive": "train.zip", "columns": {
                "id": "seq:id{i:05d}", "text": "text", "author": "choice:EAP|HPL|MWS"}},
            {"path": "test.csv", "archive": "test.zip", "columns": {"id": "seq:id9{i:04d}",
                                                                   "text": "text"}},
            {"path": "sample_submission.csv", "archive": "sample_submission.zip", "columns": {
                "id": "seq:id9{i:04d}", "EAP": "const:0.4", "HPL": "const:0.3",
                "MWS": "const:0.3"}},
        ]},
    },
    "kaggle/dog-breed-identification": {
        "sources": mle("dog-breed-identification",
                       "splits raw labels.csv (id, breed) 9:1; copies train/<id>.jpg; answers "
                       "one column per breed (120)"),
        "split": {"strategy": "random", "train_file": "labels.csv", "id_column": "id",
                  "target_columns": _BREEDS, "test_size": 0.1,
                  "transforms": [{"op": "one_hot", "column": "breed", "classes": _BREEDS}],
                  "files": {"pattern": "train/{id}.jpg", "dest": "{id}.jpg"}},
        "fixture": {"tables": [
            {"path": "labels.csv", "columns": {"id": "seq:{i:032x}",
                                               "breed": "choice:" + "|".join(_BREEDS[:12])}},
            {"path": "sample_submission.csv", "columns": {
                "id": "seq:t{i:031x}", **{b: "const:0.0083" for b in _BREEDS}}},
        ], "files": [{"pattern": "train/{id}.jpg", "table": "labels.csv"}]},
    },
    "kaggle/histopathologic-cancer-detection": {
        "sources": mle("histopathologic-cancer-detection",
                       "splits raw train_labels.csv (id, label); copies train/<id>.tif"),
        "split": {"strategy": "stratified", "train_file": "train_labels.csv",
                  "id_column": "id", "target_columns": ["label"], "test_size": 0.1,
                  "stratify_column": "label",
                  "files": {"pattern": "train/{id}.tif", "dest": "{id}.tif"}},
        "fixture": {"tables": [
            {"path": "train_labels.csv", "columns": {"id": "seq:{i:040x}",
                                                     "label": "choice:0|1"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:f{i:039x}",
                                                          "label": "const:0"}},
        ], "files": [{"pattern": "train/{id}.tif", "table": "train_labels.csv"}]},
    },
    "kaggle/champs-scalar-coupling": {
        "sources": mle("champs-scalar-coupling",
                       "splits raw train.csv (id, molecule_name, atom_index_0, atom_index_1, "
                       "type, scalar_coupling_constant) by molecule_name; structures.csv holds "
                       "the atoms of every molecule"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["scalar_coupling_constant"],
                  "group_column": "molecule_name", "test_size": 0.1,
                  "extra_public_files": ["structures.csv"],
                  "files": {"pattern": "structures/{molecule_name}.xyz",
                            "dest": "{molecule_name}.xyz"}},
        "fixture": {"rows": 120, "tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "molecule_name": "group:4:dsgdb9nsd_{g:06d}",
                "atom_index_0": "int:0:20", "atom_index_1": "int:0:20",
                "type": "choice:1JHC|2JHH|3JHC", "scalar_coupling_constant": "float:-20:200"}},
            {"path": "structures.csv", "columns": {
                "molecule_name": "group:4:dsgdb9nsd_{g:06d}", "atom_index": "int:0:20",
                "atom": "choice:C|H|N|O", "x": "float:-3:3", "y": "float:-3:3",
                "z": "float:-3:3"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:9{i}",
                                                          "scalar_coupling_constant":
                                                              "const:0"}},
        ], "files": [{"pattern": "structures/{molecule_name}.xyz", "table": "train.csv"}]},
    },
    "kaggle/ventilator-pressure-prediction": {
        "sources": mle("ventilator-pressure-prediction",
                       "splits raw train.csv (id, breath_id, R, C, time_step, u_in, u_out, "
                       "pressure) by breath_id; rows with u_out 1 are not scored"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["pressure"], "group_column": "breath_id",
                  "test_size": 0.1},
        "fixture": {"rows": 120, "tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "breath_id": "group:8:{g}", "R": "choice:5|20|50",
                "C": "choice:10|20|50", "time_step": "float:0:3", "u_in": "float:0:100",
                "u_out": "choice:0|0|1", "pressure": "float:5:40"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:{i}",
                                                          "pressure": "const:0"}},
        ]},
    },
    "kaggle/tweet-sentiment-extraction": {
        "sources": mle("tweet-sentiment-extraction",
                       "splits raw train.csv (textID, text, selected_text, sentiment) 9:1; the "
                       "real table has one row without text"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "textID",
                  "target_columns": ["selected_text"], "test_size": 0.1,
                  "transforms": [{"op": "drop_rows", "column": "text", "rule": "empty",
                                  "reason": "a tweet without text has no span to select"}]},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "textID": "seq:{i:010x}", "text": "text", "selected_text": "text",
                "sentiment": "choice:neutral|negative|positive"}},
            {"path": "sample_submission.csv", "columns": {"textID": "seq:f{i:09x}",
                                                          "selected_text": "const:"}},
        ]},
    },
    "kaggle/chaii-hindi-and-tamil-question-answering": {
        "sources": mle("chaii-hindi-and-tamil-question-answering",
                       "splits raw train.csv (id, context, question, answer_text, "
                       "answer_start, language); the answers call answer_text PredictionString"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["PredictionString"], "test_size": 0.1,
                  "transforms": [{"op": "rename", "columns": {
                      "answer_text": "PredictionString"}}],
                  "hidden_columns": {"answer_start": "test"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i:09x}", "context": "text", "question": "text",
                "answer_text": "text", "answer_start": "int:0:500",
                "language": "choice:hindi|tamil"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:f{i:08x}",
                                                          "PredictionString": "const:"}},
        ]},
    },
    "kaggle/facebook-recruiting-iii-keyword-extraction": {
        "sources": mle("facebook-recruiting-iii-keyword-extraction",
                       "extracts Train.zip; splits Train.csv (Id, Title, Body, Tags)"),
        "split": {"strategy": "random", "train_file": "Train.csv", "id_column": "Id",
                  "target_columns": ["Tags"], "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "Train.csv", "archive": "Train.zip", "columns": {
                "Id": "seq:{i}", "Title": "text", "Body": "text",
                "Tags": "choice:php|c# .net|python pandas"}},
            {"path": "Test.csv", "archive": "Test.zip", "columns": {"Id": "seq:9{i}",
                                                                    "Title": "text"}},
        ]},
    },
    "kaggle/jigsaw-toxic-comment-classification-challenge": {
        "sources": mle("jigsaw-toxic-comment-classification-challenge",
                       "extracts train.csv.zip (id, comment_text, six 0/1 labels), test.csv.zip, "
                       "test_labels.csv.zip, sample_submission.csv.zip"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": _TOXIC, "test_size": 0.1},
        "fixture": {"rows": 80, "tables": [
            {"path": "train.csv", "archive": "train.csv.zip", "columns": {
                "id": "seq:{i:016x}", "comment_text": "text",
                **{t: "choice:0|1" for t in _TOXIC}}},
            {"path": "test.csv", "archive": "test.csv.zip", "columns": {
                "id": "seq:f{i:015x}", "comment_text": "text"}},
            {"path": "test_labels.csv", "archive": "test_labels.csv.zip", "columns": {
                "id": "seq:f{i:015x}", **{t: "choice:-1|0|1" for t in _TOXIC}}},
            {"path": "sample_submission.csv", "archive": "sample_submission.csv.zip",
             "columns": {"id": "seq:f{i:015x}", **{t: "const:0.5" for t in _TOXIC}}},
        ]},
    },
    "kaggle/leaf-classification": {
        "sources": mle("leaf-classification",
                       "extracts train.csv.zip (id, species, margin1..64, shape1..64, "
                       "texture1..64) and images.zip (images/<id>.jpg); answers one column "
                       "per species (99)"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": _LEAVES, "test_size": 0.1,
                  "transforms": [{"op": "one_hot", "column": "species", "classes": _LEAVES}],
                  "files": {"pattern": "images/{id}.jpg", "dest": "{id}.jpg"}},
        "fixture": {"tables": [
            {"path": "train.csv", "archive": "train.csv.zip", "columns": {
                "id": "seq:{i}", "species": "choice:" + "|".join(_LEAVES[:10]),
                "margin1": "float:0:0.1", "shape1": "float:0:0.01",
                "texture1": "float:0:0.1"}},
            {"path": "sample_submission.csv", "archive": "sample_submission.csv.zip",
             "columns": {"id": "seq:9{i}", **{s: "const:0.0101" for s in _LEAVES}}},
        ], "files": [{"pattern": "images/{id}.jpg", "table": "train.csv",
                      "archive": "images.zip"}]},
    },
})


_PLANTS = ["healthy", "multiple_diseases", "rust", "scab"]

LAYOUTS.update({
    "kaggle/learning-agency-lab-automated-essay-scoring-2": {
        "sources": mle("learning-agency-lab-automated-essay-scoring-2",
                       "splits raw train.csv (essay_id, full_text, score) 9:1"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "essay_id",
                  "target_columns": ["score"], "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"essay_id": "seq:{i:07x}", "full_text": "text",
                                              "score": "choice:1|2|3|4|5|6"}},
            {"path": "test.csv", "rows": 8, "columns": {"essay_id": "seq:f{i:06x}",
                                                        "full_text": "text"}},
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "essay_id": "seq:f{i:06x}", "score": "const:3"}},
        ]},
    },
    "kaggle/imet-2020-fgvc7": {
        "sources": mle("imet-2020-fgvc7",
                       "splits raw train.csv (id, attribute_ids: space-separated) 85:15; copies "
                       "labels.csv and train/<id>.png"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["attribute_ids"], "test_size": 0.15,
                  "extra_public_files": ["labels.csv"],
                  "files": {"pattern": "train/{id}.png", "dest": "{id}.png"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"id": "seq:{i:032x}",
                                              "attribute_ids": "choice:13 405|51|147 1092 2"}},
            {"path": "labels.csv", "columns": {"attribute_id": "seq:{i}",
                                               "attribute_name": "text"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:f{i:031x}",
                                                          "attribute_ids": "const:0 1 2"}},
        ], "files": [{"pattern": "train/{id}.png", "table": "train.csv"}]},
    },
    "kaggle/cassava-leaf-disease-classification": {
        "sources": mle("cassava-leaf-disease-classification",
                       "reads raw train.csv (image_id, label), train_images/<image_id> and "
                       "train_tfrecords/ld_train<NN>-<count>.tfrec (Examples: image, "
                       "image_name, target); copies label_num_to_disease_map.json"),
        "split": {"strategy": "stratified", "train_file": "train.csv", "id_column": "image_id",
                  "target_columns": ["label"], "test_size": 0.1, "stratify_column": "label",
                  "extra_public_files": ["label_num_to_disease_map.json"],
                  "files": {"pattern": "train_images/{image_id}", "dest": "{image_id}"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"image_id": "seq:{i}.jpg",
                                              "label": "choice:0|1|2|3|4"}},
            {"path": "sample_submission.csv", "columns": {"image_id": "seq:9{i}.jpg",
                                                          "label": "const:4"}},
        ], "files": [{"pattern": "train_images/{image_id}", "table": "train.csv"}],
            "records": [{"pattern": "train_tfrecords/ld_train{shard:02d}-{count}.tfrec",
                         "table": "train.csv", "shards": 16, "features": {
                             "image": "file:train_images/{image_id}",
                             "image_name": "bytes:image_id", "target": "int:label"}}],
            "extra": {"label_num_to_disease_map.json": "{\"0\": \"Cassava Bacterial Blight\"}"}},
    },
    "kaggle/invasive-species-monitoring": {
        "sources": mle("invasive-species-monitoring",
                       "extracts train.7z (train/<name>.jpg) and train_labels.csv.zip "
                       "(train_labels.csv: name, invasive)"),
        "split": {"strategy": "random", "train_file": "train_labels.csv", "id_column": "name",
                  "target_columns": ["invasive"], "test_size": 0.1,
                  "files": {"pattern": "train/{name}.jpg", "dest": "{name}.jpg"}},
        "fixture": {"tables": [
            {"path": "train_labels.csv", "archive": "train_labels.csv.zip", "columns": {
                "name": "seq:{i}", "invasive": "choice:0|1"}},
            {"path": "sample_submission.csv", "archive": "sample_submission.csv.zip",
             "columns": {"name": "seq:9{i}", "invasive": "const:0.5"}},
        ], "files": [{"pattern": "train/{name}.jpg", "table": "train_labels.csv",
                      "archive": "train.7z"}]},
    },
    "kaggle/plant-pathology-2020-fgvc7": {
        "sources": mle("plant-pathology-2020-fgvc7",
                       "splits raw train.csv (image_id, healthy, multiple_diseases, rust, scab: "
                       "one 1 per row) 9:1; copies images/<image_id>.jpg"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "image_id",
                  "target_columns": _PLANTS, "test_size": 0.1,
                  "files": {"pattern": "images/{image_id}.jpg", "dest": "{image_id}.jpg"}},
        "fixture": {"rows": 200, "tables": [
            {"path": "train.csv", "columns": {"image_id": "seq:Train_{i}",
                                              **{p: "onehot:disease" for p in _PLANTS}}},
            {"path": "sample_submission.csv", "columns": {
                "image_id": "seq:Test_{i}", **{p: "const:0.25" for p in _PLANTS}}},
        ], "files": [{"pattern": "images/{image_id}.jpg", "table": "train.csv"}]},
    },
    "kaggle/hotel-id-2021-fgvc8": {
        "sources": mle("hotel-id-2021-fgvc8",
                       "splits raw train.csv (image, chain, hotel_id, timestamp); copies "
                       "train_images/<chain>/<image>"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "image",
                  "target_columns": ["hotel_id"], "test_size": 0.1,
                  "files": {"pattern": "train_images/{chain}/{image}", "dest": "{image}"},
                  "hidden_columns": {"chain": "test"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "image": "seq:{i:016x}.jpg", "chain": "choice:0|1|5",
                "hotel_id": "choice:11|222|3333|4444", "timestamp": "date:2018-01-01"}},
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "image": "seq:f{i:015x}.jpg", "hotel_id": "const:36363 53586 18807"}},
        ], "files": [{"pattern": "train_images/{chain}/{image}", "table": "train.csv"}]},
    },
})


LAYOUTS.update({
    "kaggle/playground-series-s3e18": {
        "sources": mle("playground-series-s3e18",
                       "splits raw train.csv (id, descriptors, EC1..EC6) 9:1; its public test "
                       "drops all six EC labels, only EC1 and EC2 are scored"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["EC1", "EC2"], "test_size": 0.1,
                  "hidden_columns": {f"EC{k}": "test" for k in range(3, 7)}},
        "fixture": {"rows": 80, "tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "BertzCT": "float:0:1000", "Chi1": "float:0:20",
                "fr_COO": "int:0:4", **{f"EC{k}": "choice:0|1" for k in range(1, 7)}}},
            {"path": "test.csv", "columns": {"id": "seq:9{i}", "BertzCT": "float:0:1000"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:9{i}", "EC1": "const:0.5",
                                                          "EC2": "const:0.5"}},
        ]},
    },
    "kaggle/tabular-playground-series-dec-2021": {
        "sources": mle("tabular-playground-series-dec-2021",
                       "splits raw train.csv (Id, Elevation, ..., Soil_Type1..40, Cover_Type) "
                       "9:1"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "Id",
                  "target_columns": ["Cover_Type"], "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "Id": "seq:{i}", "Elevation": "int:1800:3900", "Aspect": "int:0:360",
                "Soil_Type1": "choice:0|1", "Cover_Type": "choice:1|2|3|4|5|6|7"}},
            {"path": "test.csv", "columns": {"Id": "seq:9{i}", "Elevation": "int:1800:3900"}},
            {"path": "sample_submission.csv", "columns": {"Id": "seq:9{i}",
                                                          "Cover_Type": "const:2"}},
        ]},
    },
    "kaggle/us-patent-phrase-to-phrase-matching": {
        "sources": mle("us-patent-phrase-to-phrase-matching",
                       "splits raw train.csv (id, anchor, target, context, score) 9:1"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["score"], "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i:016x}", "anchor": "text", "target": "text",
                "context": "choice:A47|B44|G06", "score": "choice:0.0|0.25|0.5|0.75|1.0"}},
            {"path": "test.csv", "columns": {"id": "seq:f{i:015x}", "anchor": "text"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:f{i:015x}",
                                                          "score": "const:0"}},
        ]},
    },
})


_PADDY = ["bacterial_leaf_blight", "bacterial_leaf_streak", "bacterial_panicle_blight", "blast",
          "brown_spot", "dead_heart", "downy_mildew", "hispa", "normal", "tungro"]
_RANZCR = _targets("kaggle/ranzcr-clip-catheter-line-classification")

LAYOUTS.update({
    "kaggle/paddy-disease-classification": {
        "sources": mle("paddy-disease-classification",
                       "splits raw train.csv (image_id, label, variety, age); images are "
                       "train_images/<label>/<image_id>: the folder names the label"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "image_id",
                  "target_columns": ["label"], "test_size": 0.25,
                  "files": {"pattern": "train_images/{label}/{image_id}", "dest": "{image_id}"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "image_id": "seq:{i:06d}.jpg", "label": "choice:" + "|".join(_PADDY[:5]),
                "variety": "choice:ADT45|KarnatakaPonni", "age": "int:45:80"}},
            {"path": "sample_submission.csv", "columns": {"image_id": "seq:2{i:05d}.jpg",
                                                          "label": "const:normal"}},
        ], "files": [{"pattern": "train_images/{label}/{image_id}", "table": "train.csv"}]},
    },
    "kaggle/petfinder-pawpularity-score": {
        "sources": mle("petfinder-pawpularity-score",
                       "splits raw train.csv (Id, 12 photo features, Pawpularity) 9:1; copies "
                       "train/<Id>.jpg"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "Id",
                  "target_columns": ["Pawpularity"], "test_size": 0.1,
                  "files": {"pattern": "train/{Id}.jpg", "dest": "{Id}.jpg"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "Id": "seq:{i:032x}", "Eyes": "choice:0|1", "Face": "choice:0|1",
                "Blur": "choice:0|1", "Pawpularity": "int:1:100"}},
            {"path": "sample_submission.csv", "columns": {"Id": "seq:f{i:031x}",
                                                          "Pawpularity": "const:50"}},
        ], "files": [{"pattern": "train/{Id}.jpg", "table": "train.csv"}]},
    },
    "kaggle/predict-volcanic-eruptions-ingv-oe": {
        "sources": mle("predict-volcanic-eruptions-ingv-oe",
                       "splits raw train.csv (segment_id, time_to_eruption) 9:1; copies "
                       "train/<segment_id>.csv (ten sensor signals)"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "segment_id",
                  "target_columns": ["time_to_eruption"], "test_size": 0.1,
                  "files": {"pattern": "train/{segment_id}.csv", "dest": "{segment_id}.csv"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"segment_id": "seq:{i}",
                                              "time_to_eruption": "int:6000:49000000"}},
            {"path": "sample_submission.csv", "columns": {"segment_id": "seq:9{i}",
                                                          "time_to_eruption": "const:0"}},
        ], "files": [{"pattern": "train/{segment_id}.csv", "table": "train.csv"}]},
    },
    "kaggle/plant-pathology-2021-fgvc8": {
        "sources": mle("plant-pathology-2021-fgvc8",
                       "splits raw train.csv (image, labels: space-separated) 8:2; copies "
                       "train_images/<image>"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "image",
                  "target_columns": ["labels"], "test_size": 0.2,
                  "files": {"pattern": "train_images/{image}", "dest": "{image}"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "image": "seq:{i:016x}.jpg",
                "labels": "choice:healthy|scab|frog_eye_leaf_spot complex|rust"}},
            {"path": "sample_submission.csv", "columns": {"image": "seq:f{i:015x}.jpg",
                                                          "labels": "const:healthy"}},
        ], "files": [{"pattern": "train_images/{image}", "table": "train.csv"}]},
    },
    "kaggle/whale-categorization-playground": {
        "sources": mle("whale-categorization-playground",
                       "splits raw train.csv (Image, Id: the whale, or new_whale); copies "
                       "train/<Image>"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "Image",
                  "target_columns": ["Id"], "test_size": 0.1,
                  "files": {"pattern": "train/{Image}", "dest": "{Image}"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "Image": "seq:{i:08x}.jpg", "Id": "choice:new_whale|w_f48451c|w_c3d896a"}},
            {"path": "sample_submission.csv", "columns": {"Image": "seq:f{i:07x}.jpg",
                                                          "Id": "const:new_whale w_1287fbc"}},
        ], "files": [{"pattern": "train/{Image}", "table": "train.csv"}]},
    },
    "kaggle/ranzcr-clip-catheter-line-classification": {
        "sources": mle("ranzcr-clip-catheter-line-classification",
                       "reads raw train.csv (StudyInstanceUID, 11 0/1 labels, PatientID) and "
                       "train/<uid>.jpg; train_annotations.csv holds the labels of annotated "
                       "images, the test ones too, so it is not published"),
        "split": {"strategy": "group", "train_file": "train.csv",
                  "id_column": "StudyInstanceUID", "target_columns": _RANZCR,
                  "group_column": "PatientID", "test_size": 0.1,
                  "files": {"pattern": "train/{StudyInstanceUID}.jpg",
                            "dest": "{StudyInstanceUID}.jpg"}},
        "fixture": {"rows": 240, "tables": [
            {"path": "train.csv", "columns": {
                "StudyInstanceUID": "seq:1.2.826.0.1.3680043.8.498.{i}",
                **{t: "choice:0|1" for t in _RANZCR}, "PatientID": "group:2:{g:09x}"}},
            {"path": "train_annotations.csv", "columns": {
                "StudyInstanceUID": "seq:1.2.826.0.1.3680043.8.498.{i}",
                "label": "choice:CVC - Normal|ETT - Normal", "data": "const:[[1, 2]]"}},
            {"path": "sample_submission.csv", "columns": {
                "StudyInstanceUID": "seq:9.{i}", **{t: "const:0" for t in _RANZCR}}},
        ], "files": [{"pattern": "train/{StudyInstanceUID}.jpg", "table": "train.csv"}]},
    },
})
