"""The layouts of the real downloads and the recipes written for them (data of fill_layouts).

Every entry names where its layout was read: MLE-bench's prepare.py for the competition (the
files it reads from ``raw``, the archives it extracts, the columns it drops or renames), else
TAM-Bench's task input (file names and columns) or the competition's data page.
"""

from __future__ import annotations

from typing import Any

MLE_COMMIT = "783b15af77404fbaffe7255b0c4a934b46153389"
TAM_COMMIT = "2bbdc1122f37ca967ccba2c467dd2e1575ee2f13"


def mle(slug: str, detail: str) -> list[dict[str, str]]:
    """MLE-bench's prepare.py of ``slug`` as the source."""
    return [{"source": "github:openai/mle-bench", "commit": MLE_COMMIT,
             "path": f"mlebench/competitions/{slug}/prepare.py", "detail": detail}]


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
