"""Recipes and raw fixtures for the real downloads: the kaggle group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
Where MLE-Dojo's prepare.py of a competition is empty, the layout was read from the data
section of its description (``info/description.txt`` beside it) and the competition's data page.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import DOJO_COMMIT, dojo, page


def info(folder: str, detail: str) -> list[dict[str, str]]:
    """The data section of MLE-Dojo's description of the competition in ``folder``."""
    return [{"source": "github:MLE-Dojo/MLE-Dojo", "commit": DOJO_COMMIT,
             "path": f"mledojo/competitions/{folder}/info/description.txt", "detail": detail}]


_ELL = ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]
_ARENA = ["winner_model_a", "winner_model_b", "winner_tie"]

LAYOUTS: dict[str, dict[str, Any]] = {
    "kaggle/feedback-prize-english-language-learning": {
        "sources": info("feedback-prize-english-language-learning",
                        "train.csv (text_id, full_text, the six measures), test.csv (text_id, "
                        "full_text), sample_submission.csv; MLE-Dojo's prepare.py is empty")
        + page("feedback-prize-english-language-learning", "the same three files"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "text_id",
                  "target_columns": _ELL, "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "text_id": "seq:{i:012X}", "full_text": "text",
                **{m: "choice:1.0|2.5|3.0|3.5|4.5" for m in _ELL}}},
            {"path": "test.csv", "rows": 3, "columns": {"text_id": "seq:F{i:011X}",
                                                        "full_text": "text"}},
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "text_id": "seq:F{i:011X}", **{m: "const:3.0" for m in _ELL}}},
        ]},
    },
    "kaggle/llm-detect-ai-generated-text": {
        "sources": dojo("llm-detect-ai-generated-text",
                        "reads raw train_essays.csv (id, prompt_id, text, generated) and copies "
                        "train_prompts.csv (prompt_id, prompt_name, instructions, source_text); "
                        "public test keeps id, prompt_id, text; answers id, generated"),
        "split": {"strategy": "stratified", "train_file": "train_essays.csv", "id_column": "id",
                  "target_columns": ["generated"], "test_size": 0.1,
                  "stratify_column": "generated",
                  "extra_public_files": ["train_prompts.csv"]},
        "fixture": {"tables": [
            {"path": "train_essays.csv", "columns": {
                "id": "seq:{i:08x}", "prompt_id": "choice:0|1", "text": "text",
                "generated": "choice:0|1"}},
            {"path": "train_prompts.csv", "rows": 2, "columns": {
                "prompt_id": "seq:{i}", "prompt_name": "choice:Car-free cities|Does the "
                                                       "electoral college work?",
                "instructions": "text", "source_text": "text"}},
            {"path": "test_essays.csv", "rows": 3, "columns": {
                "id": "seq:t{i:07x}", "prompt_id": "choice:0|1", "text": "text"}},
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "id": "seq:t{i:07x}", "generated": "const:0.1"}},
        ]},
    },
    "kaggle/commonlitreadabilityprize": {
        "sources": info("commonlitreadabilityprize",
                        "train.csv (id, url_legal, license, excerpt, target, standard_error), "
                        "test.csv without target and standard_error; MLE-Dojo's prepare.py is "
                        "empty") + page("commonlitreadabilityprize", "the same three files"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["target"], "test_size": 0.1,
                  "hidden_columns": {"standard_error": "test"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i:09x}", "url_legal": "seq:https://simple.wikipedia.org/{i}",
                "license": "choice:CC BY 4.0|CC BY-SA 3.0", "excerpt": "text",
                "target": "float:-3.5:1.7", "standard_error": "float:0.4:0.65"}},
            {"path": "test.csv", "rows": 7, "columns": {
                "id": "seq:c{i:08x}", "url_legal": "seq:https://www.africanstorybook.org/{i}",
                "license": "const:CC BY 4.0", "excerpt": "text"}},
            {"path": "sample_submission.csv", "rows": 7, "columns": {
                "id": "seq:c{i:08x}", "target": "const:0"}},
        ]},
    },
    "kaggle/nlp-getting-started": {
        "sources": page("nlp-getting-started",
                        "train.csv (id, keyword, location, text, target), test.csv (id, "
                        "keyword, location, text), sample_submission.csv (id, target); "
                        "MLE-Dojo's prepare.py is empty"),
        "split": {"strategy": "stratified", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["target"], "test_size": 0.1, "stratify_column": "target"},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "keyword": "choice:ablaze|flood|earthquake",
                "location": "choice:London|NYC|Lagos", "text": "text", "target": "choice:0|1"}},
            {"path": "test.csv", "columns": {"id": "seq:9{i}", "keyword": "choice:flood",
                                             "location": "choice:Paris", "text": "text"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:9{i}",
                                                          "target": "const:0"}},
        ]},
    },
    "kaggle/tmdb-box-office-prediction": {
        "sources": info("tmdb-box-office-prediction",
                        "movies labeled with id, metadata (cast, crew, keywords, budget, "
                        "posters, release dates, ...), the worldwide revenue to predict; "
                        "MLE-Dojo's prepare.py is empty")
        + page("tmdb-box-office-prediction",
               "train.csv (id, belongs_to_collection, budget, genres, homepage, imdb_id, "
               "original_language, original_title, overview, popularity, poster_path, "
               "production_companies, production_countries, release_date, runtime, "
               "spoken_languages, status, tagline, title, Keywords, cast, crew, revenue), "
               "test.csv, sample_submission.csv (id, revenue)"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["revenue"], "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "belongs_to_collection": "const:",
                "budget": "int:0:200000000", "genres": "const:[{'id': 35, 'name': 'Comedy'}]",
                "homepage": "const:", "imdb_id": "seq:tt{i:07d}",
                "original_language": "choice:en|fr|hi", "original_title": "text",
                "overview": "text", "popularity": "float:0:50", "poster_path": "seq:/p{i}.jpg",
                "release_date": "choice:2/20/15|8/6/04|10/10/14", "runtime": "int:80:180",
                "status": "const:Released", "title": "text", "Keywords": "text",
                "cast": "text", "crew": "text", "revenue": "int:1:900000000"}},
            {"path": "test.csv", "columns": {"id": "seq:3{i:03d}", "budget": "int:0:9000",
                                             "title": "text"}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:3{i:03d}",
                                                          "revenue": "const:1000000"}},
        ]},
    },
    "kaggle/microsoft-malware-prediction": {
        "sources": info("microsoft-malware-prediction",
                        "one row per machine: MachineIdentifier, the telemetry columns, "
                        "HasDetections (train.csv only); MLE-Dojo's prepare.py is empty")
        + page("microsoft-malware-prediction",
               "train.csv, test.csv, sample_submission.csv (MachineIdentifier, "
               "HasDetections)"),
        "split": {"strategy": "stratified", "train_file": "train.csv",
                  "id_column": "MachineIdentifier", "target_columns": ["HasDetections"],
                  "test_size": 0.1, "stratify_column": "HasDetections"},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "MachineIdentifier": "seq:{i:032x}", "ProductName": "choice:win8defender|mse",
                "EngineVersion": "choice:1.1.15100.1|1.1.15200.1",
                "AppVersion": "choice:4.18.1807.18075|4.12.16299.15",
                "AvSigVersion": "choice:1.273.1735.0|1.263.48.0", "IsBeta": "const:0",
                "CountryIdentifier": "int:1:222", "Census_OSVersion": "choice:10.0.17134.228",
                "HasDetections": "choice:0|1"}},
            {"path": "test.csv", "columns": {"MachineIdentifier": "seq:f{i:031x}",
                                             "ProductName": "choice:win8defender"}},
            {"path": "sample_submission.csv", "columns": {
                "MachineIdentifier": "seq:f{i:031x}", "HasDetections": "const:0.5"}},
        ]},
    },
    "kaggle/see-click-predict-fix": {
        "sources": info("see-click-predict-fix",
                        "train.csv (id, latitude, longitude, summary, description, num_votes, "
                        "num_comments, num_views, source, created_time, tag_type), test.csv "
                        "without the three counts, issues of later dates; MLE-Dojo's "
                        "prepare.py is empty") + page("see-click-predict-fix",
                                                     "the same three files"),
        "split": {"strategy": "time", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["num_views", "num_votes", "num_comments"],
                  "time_column": "created_time", "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "latitude": "float:37.7:41.9", "longitude": "float:-122.3:-72.9",
                "summary": "text", "description": "text", "num_votes": "int:1:20",
                "num_comments": "int:0:5", "num_views": "int:0:90",
                "source": "choice:remote_api_created|city_initiated|Map Widget",
                "created_time": "date:2012-01-01", "tag_type": "choice:pothole|trash|graffiti"}},
            {"path": "test.csv", "columns": {"id": "seq:9{i}", "summary": "text",
                                             "created_time": "date:2013-05-01"}},
            {"path": "sample_submission.csv", "columns": {
                "id": "seq:9{i}", "num_views": "const:0", "num_votes": "const:1",
                "num_comments": "const:0"}},
        ]},
    },
    "kaggle/quora-insincere-questions-classification": {
        "sources": dojo("quora-insincere-questions-classification",
                        "reads raw train.csv (qid, question_text, target), test.csv; unzips "
                        "embeddings.zip; stratified on target; submission qid, prediction"),
        "split": {"strategy": "stratified", "train_file": "train.csv", "id_column": "qid",
                  "target_columns": ["prediction"], "test_size": 0.1,
                  "stratify_column": "prediction",
                  "transforms": [{"op": "rename", "columns": {"target": "prediction"}}]},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"qid": "seq:{i:020x}", "question_text": "text",
                                              "target": "choice:0|1"}},
            {"path": "test.csv", "columns": {"qid": "seq:f{i:019x}", "question_text": "text"}},
            {"path": "sample_submission.csv", "columns": {"qid": "seq:f{i:019x}",
                                                          "prediction": "const:0"}},
        ], "extra": {"embeddings.zip": "not read by the recipe"}},
    },
    "kaggle/quora-question-pairs": {
        "sources": dojo("quora-question-pairs",
                        "unzips train.csv.zip (id, qid1, qid2, question1, question2, "
                        "is_duplicate) and sample_submission.csv.zip (test_id, is_duplicate); "
                        "test.csv.zip holds test_id, question1, question2; answers test_id"),
        "split": {"strategy": "stratified", "train_file": "train.csv", "id_column": "test_id",
                  "target_columns": ["is_duplicate"], "test_size": 0.1,
                  "stratify_column": "is_duplicate",
                  "transforms": [{"op": "rename", "columns": {"id": "test_id"}}],
                  "hidden_columns": {"qid1": "test", "qid2": "test"}},
        "fixture": {"tables": [
            {"path": "train.csv", "archive": "train.csv.zip", "columns": {
                "id": "seq:{i}", "qid1": "seq:{i}1", "qid2": "seq:{i}2", "question1": "text",
                "question2": "text", "is_duplicate": "choice:0|1"}},
            {"path": "test.csv", "archive": "test.csv.zip", "columns": {
                "test_id": "seq:{i}", "question1": "text", "question2": "text"}},
            {"path": "sample_submission.csv", "archive": "sample_submission.csv.zip",
             "columns": {"test_id": "seq:{i}", "is_duplicate": "const:1"}},
        ]},
    },
}
