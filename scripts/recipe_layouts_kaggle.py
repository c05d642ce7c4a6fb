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
_GRAPHEME = ["grapheme_root", "vowel_diacritic", "consonant_diacritic"]
_FISH = ["ALB", "BET", "DOL", "LAG", "NoF", "OTHER", "SHARK", "YFT"]
_SOIL = ["Ca", "P", "pH", "SOC", "Sand"]

LAYOUTS: dict[str, dict[str, Any]] = {
    "kaggle/ai4code": {
        "sources": dojo("AI4Code",
                        "reads train_ancestors.csv (id, ancestor_id, parent_id) and "
                        "train_orders.csv (id, cell_order: cell ids in order, space-separated); "
                        "test notebooks are whole ancestor groups (no fork of a test notebook "
                        "in train); copies train/<id>.json per notebook") + page(
            "AI4Code", "train/<id>.json, test/<id>.json, train_orders.csv, "
                       "train_ancestors.csv, sample_submission.csv (id, cell_order)"),
        "split": {"strategy": "group", "train_file": "train_orders.csv", "id_column": "id",
                  "target_columns": ["cell_order"], "group_column": "ancestor_id",
                  "test_size": 0.1,
                  "transforms": [{"op": "join", "file": "train_ancestors.csv", "on": "id",
                                  "columns": ["ancestor_id", "parent_id"]}],
                  "hidden_columns": {"ancestor_id": "test", "parent_id": "test"},
                  "files": {"pattern": "train/{id}.json", "dest": "{id}.json"}},
        "fixture": {"rows": 90, "tables": [
            {"path": "train_orders.csv", "columns": {
                "id": "seq:{i:014x}", "cell_order": "choice:1862f0a6 448eb224 2a9e43d6|"
                                                    "0a226b6a 8cb8d28a|9e2c0f5b 3d1f0e77 b8c1"}},
            {"path": "train_ancestors.csv", "columns": {
                "id": "seq:{i:014x}", "ancestor_id": "group:3:a{g:07x}",
                "parent_id": "const:"}},
            {"path": "sample_submission.csv", "rows": 4, "columns": {
                "id": "seq:f{i:013x}", "cell_order": "const:ddfd239c c6cd22db 1372ae9b"}},
        ], "files": [
            {"pattern": "train/{id}.json", "table": "train_orders.csv"},
            {"pattern": "test/{id}.json", "table": "sample_submission.csv"}]},
    },
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
                        "public test keeps id, prompt_id, text; answers id, generated; a fifth "
                        "of the essays is test: only 3 of the 1378 are generated, and that "
                        "share puts one of them in the test rows"),
        "split": {"strategy": "stratified", "train_file": "train_essays.csv", "id_column": "id",
                  "target_columns": ["generated"], "test_size": 0.2,
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
    "kaggle/word2vec-nlp-tutorial": {
        "sources": dojo("word2vec-nlp-tutorial",
                        "unzips labeledTrainData.tsv.zip (id, sentiment, review), "
                        "unlabeledTrainData.tsv.zip (id, review) and testData.tsv.zip; splits "
                        "the labeled reviews stratified on sentiment; copies the unlabeled ones")
        + page("word2vec-nlp-tutorial", "ids are <movie>_<rating>: the rating (1-4 negative, "
                                        "7-10 positive) gives the label away"),
        "split": {"strategy": "stratified", "train_file": "labeledTrainData.tsv",
                  "id_column": "id", "target_columns": ["sentiment"], "test_size": 0.1,
                  "stratify_column": "sentiment",
                  "transforms": [{"op": "hash_id", "column": "id", "columns": ["id"]}],
                  "extra_public_files": ["unlabeledTrainData.tsv"]},
        "fixture": {"tables": [
            {"path": "labeledTrainData.tsv", "archive": "labeledTrainData.tsv.zip",
             "columns": {"id": "seq:{i}_8", "sentiment": "choice:0|1", "review": "text"}},
            {"path": "unlabeledTrainData.tsv", "archive": "unlabeledTrainData.tsv.zip",
             "columns": {"id": "seq:{i}_0", "review": "text"}},
            {"path": "testData.tsv", "archive": "testData.tsv.zip",
             "columns": {"id": "seq:{i}_3", "review": "text"}},
            {"path": "sampleSubmission.csv", "columns": {"id": "seq:{i}_3",
                                                         "sentiment": "const:0"}},
        ]},
    },
    "kaggle/home-depot-product-search-relevance": {
        "sources": dojo("home-depot-product-search-relevance",
                        "unzips every archive of the download; splits train.csv (id, "
                        "product_uid, product_title, search_term, relevance), read as latin-1 "
                        "when it is not UTF-8 text; answers id, relevance")
        + page("home-depot-product-search-relevance",
               "train.csv.zip, test.csv.zip, product_descriptions.csv.zip (product_uid, "
               "product_description), attributes.csv.zip (product_uid, name, value), "
               "sample_submission.csv.zip, relevance_instructions.docx"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["relevance"], "test_size": 0.1, "encoding": "latin-1",
                  "extra_public_files": ["product_descriptions.csv", "attributes.csv",
                                         "relevance_instructions.docx"]},
        "fixture": {"tables": [
            {"path": "train.csv", "archive": "train.csv.zip", "encoding": "latin-1", "columns": {
                "id": "seq:{i}", "product_uid": "group:3:{g}",
                "product_title": "choice:Simpson Strong-Tie 12-Gauge Angle|"
                                 "Mueller 1/2 in. 90\u00b0 Elbow",
                "search_term": "text", "relevance": "choice:1|1.33|2|2.67|3"}},
            {"path": "test.csv", "archive": "test.csv.zip", "columns": {
                "id": "seq:9{i}", "product_uid": "group:3:{g}", "product_title": "text",
                "search_term": "text"}},
            {"path": "product_descriptions.csv", "archive": "product_descriptions.csv.zip",
             "columns": {"product_uid": "seq:{i}", "product_description": "text"}},
            {"path": "attributes.csv", "archive": "attributes.csv.zip", "columns": {
                "product_uid": "group:2:{g}", "name": "choice:Bullet01|MFG Brand Name",
                "value": "text"}},
            {"path": "sample_submission.csv", "archive": "sample_submission.csv.zip",
             "columns": {"id": "seq:9{i}", "relevance": "const:1"}},
        ], "extra": {"relevance_instructions.docx": "PK rating instructions"}},
    },
    "kaggle/stumbleupon": {
        "sources": dojo("stumbleupon",
                        "unzips raw_content.zip (raw_content/<urlid>); splits train.tsv (url, "
                        "urlid, boilerplate, alchemy_category, ..., label) stratified on label; "
                        "copies each row's raw_content/<urlid>; answers urlid, label")
        + page("stumbleupon", "train.tsv, test.tsv (tab-separated, every field quoted, '?' "
                              "where no data), raw_content.zip (one file per urlid), "
                              "sampleSubmission.csv"),
        "split": {"strategy": "stratified", "train_file": "train.tsv", "id_column": "urlid",
                  "target_columns": ["label"], "test_size": 0.1, "stratify_column": "label",
                  "files": {"pattern": "raw_content/{urlid}", "dest": "{urlid}"}},
        "fixture": {"tables": [
            {"path": "train.tsv", "quoted": True, "columns": {
                "url": "seq:http://www.bloomberg.com/news/{i}", "urlid": "seq:{i}",
                "boilerplate": "text", "alchemy_category": "choice:business|recreation|?",
                "alchemy_category_score": "float:0:1", "avglinksize": "float:0:5",
                "commonlinkratio_1": "float:0:1", "compression_ratio": "float:0:1",
                "framebased": "const:0", "is_news": "choice:1|?", "numberOfLinks": "int:1:900",
                "spelling_errors_ratio": "float:0:0.2", "label": "choice:0|1"}},
            {"path": "test.tsv", "quoted": True, "columns": {"url": "seq:http://www.x.com/{i}",
                                             "urlid": "seq:9{i}", "boilerplate": "text"}},
            {"path": "sampleSubmission.csv", "columns": {"urlid": "seq:9{i}",
                                                         "label": "const:0"}},
        ], "files": [{"pattern": "raw_content/{urlid}", "table": "train.tsv",
                      "archive": "raw_content.zip"}]},
    },
    "kaggle/afsis-soil-properties": {
        "sources": dojo("afsis-soil-properties",
                        "unzips train.zip (training.csv: PIDN, the m<wavenumber> spectra, "
                        "BSAN..TMFI, Depth, Ca, P, pH, SOC, Sand) and test.zip (sorted_test.csv); "
                        "answers PIDN and the five properties"),
        "split": {"strategy": "random", "train_file": "training.csv", "id_column": "PIDN",
                  "target_columns": _SOIL, "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "training.csv", "archive": "train.zip", "columns": {
                "PIDN": "seq:{i:08X}", "m7497.96": "float:0:2", "m7496.04": "float:0:2",
                "m599.76": "float:0:2", "BSAN": "float:-1:1", "CTI": "float:-1:1",
                "ELEV": "float:-1:1", "TMFI": "float:-1:1", "Depth": "choice:Topsoil|Subsoil",
                **{t: "float:-1:3" for t in _SOIL}}},
            {"path": "sorted_test.csv", "archive": "test.zip", "columns": {
                "PIDN": "seq:T{i:07X}", "m7497.96": "float:0:2", "Depth": "choice:Topsoil"}},
            {"path": "sample_submission.csv", "columns": {
                "PIDN": "seq:T{i:07X}", **{t: "const:0" for t in _SOIL}}},
        ]},
    },
    "kaggle/dont-call-me-turkey": {
        "sources": dojo("dont-call-me-turkey",
                        "reads train.json and test.json (lists of records: audio_embedding, "
                        "is_turkey, vid_id, start/end_time_seconds_youtube_clip); public test "
                        "drops is_turkey; answers vid_id, is_turkey"),
        "split": {"strategy": "stratified", "train_file": "train.json", "id_column": "vid_id",
                  "target_columns": ["is_turkey"], "test_size": 0.1,
                  "stratify_column": "is_turkey"},
        "fixture": {"tables": [
            {"path": "train.json", "columns": {
                "audio_embedding": "list", "end_time_seconds_youtube_clip": "int:10:400",
                "is_turkey": "choice:0|1", "start_time_seconds_youtube_clip": "int:0:390",
                "vid_id": "seq:kD{i:09d}"}},
            {"path": "test.json", "columns": {
                "audio_embedding": "list", "end_time_seconds_youtube_clip": "int:10:400",
                "start_time_seconds_youtube_clip": "int:0:390", "vid_id": "seq:pQ{i:09d}"}},
            {"path": "sample_submission.csv", "columns": {"vid_id": "seq:pQ{i:09d}",
                                                          "is_turkey": "const:0"}},
        ]},
    },
    "kaggle/kaggle-llm-science-exam": {
        "sources": dojo("kaggle-llm-science-exam",
                        "splits raw train.csv (id, prompt, A, B, C, D, E, answer); public test "
                        "drops answer") + page("kaggle-llm-science-exam",
                                               "sample_submission.csv (id, prediction: up to "
                                               "three letters, best first)"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["prediction"], "test_size": 0.1,
                  "transforms": [{"op": "rename", "columns": {"answer": "prediction"}}]},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "prompt": "text", **{c: "text" for c in "ABCDE"},
                "answer": "choice:A|B|C|D|E"}},
            {"path": "test.csv", "columns": {"id": "seq:{i}", "prompt": "text",
                                             **{c: "text" for c in "ABCDE"}}},
            {"path": "sample_submission.csv", "columns": {"id": "seq:{i}",
                                                          "prediction": "const:A B C"}},
        ]},
    },
    "kaggle/llm-classification-finetuning": {
        "sources": dojo("llm-classification-finetuning",
                        "splits raw train.csv (id, model_a, model_b, prompt, response_a, "
                        "response_b, winner_model_a, winner_model_b, winner_tie) 8:2; answers "
                        "id and the three winner columns"),
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "id",
                  "target_columns": _ARENA, "test_size": 0.1,
                  "hidden_columns": {"model_a": "test", "model_b": "test"}},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i}", "model_a": "choice:gpt-4-0613|llama-2-70b-chat|claude-2.1",
                "model_b": "choice:gpt-4-0613|llama-2-70b-chat|claude-2.1", "prompt": "text",
                "response_a": "text", "response_b": "text",
                **{c: "onehot:winner" for c in _ARENA}}},
            {"path": "test.csv", "rows": 3, "columns": {
                "id": "seq:9{i}", "prompt": "text", "response_a": "text",
                "response_b": "text"}},
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "id": "seq:9{i}", "winner_model_a": "const:0.333333",
                "winner_model_b": "const:0.333333", "winner_tie": "const:0.333333"}},
        ]},
    },
    "kaggle/20-newsgroups-ciphertext-challenge": {
        "sources": dojo("20-newsgroups-ciphertext-challenge",
                        "splits raw train.csv (Id, difficulty, ciphertext, target); answers "
                        "Id, Predicted") + page("20-newsgroups-ciphertext-challenge",
                                                "test.csv (Id, difficulty, ciphertext), "
                                                "sample_submission.csv (Id, Predicted)"),
        "split": {"strategy": "stratified", "train_file": "train.csv", "id_column": "Id",
                  "target_columns": ["Predicted"], "test_size": 0.1,
                  "stratify_column": "Predicted",
                  "transforms": [{"op": "rename", "columns": {"target": "Predicted"}}]},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {
                "Id": "seq:ID_{i:09x}", "difficulty": "choice:1|2|3|4", "ciphertext": "text",
                "target": "choice:0|5|11|19"}},
            {"path": "test.csv", "columns": {"Id": "seq:ID_f{i:08x}",
                                             "difficulty": "choice:1|2", "ciphertext": "text"}},
            {"path": "sample_submission.csv", "columns": {"Id": "seq:ID_f{i:08x}",
                                                          "Predicted": "const:0"}},
        ]},
    },
    "kaggle/liverpool-ion-switching": {
        "sources": info("liverpool-ion-switching",
                        "train.csv (time, signal, open_channels), test.csv (time, signal): "
                        "batches of 50 s sampled at 10 kHz, one row per 0.0001 s; MLE-Dojo's "
                        "prepare.py is empty") + page("liverpool-ion-switching",
                                                     "sample_submission.csv (time, "
                                                     "open_channels)"),
        "split": {"strategy": "time", "train_file": "train.csv", "id_column": "time",
                  "target_columns": ["open_channels"], "time_column": "time",
                  "test_size": 0.1},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": {"time": "seq:{i}.0001", "signal": "float:-5:13",
                                              "open_channels": "choice:0|1|2|3|10"}},
            {"path": "test.csv", "columns": {"time": "seq:5{i:02d}.0001",
                                             "signal": "float:-5:13"}},
            {"path": "sample_submission.csv", "columns": {"time": "seq:5{i:02d}.0001",
                                                          "open_channels": "const:0"}},
        ]},
    },
    "kaggle/the-nature-conservancy-fisheries-monitoring": {
        "sources": dojo("the-nature-conservancy-fisheries-monitoring",
                        "unzips train.zip: train/<class>/<image>.jpg, the folder names the fish "
                        "(ALB, BET, DOL, LAG, NoF, OTHER, SHARK, YFT); answers image and one "
                        "probability column per class") + page(
            "the-nature-conservancy-fisheries-monitoring",
            "test_stg1.zip (test_stg1/<image>.jpg), sample_submission_stg1.csv.zip"),
        "split": {"strategy": "random", "id_column": "image", "target_columns": _FISH,
                  "test_size": 0.1,
                  "transforms": [
                      {"op": "files_table", "pattern": "train/{fish}/{image}"},
                      {"op": "one_hot", "column": "fish", "classes": _FISH}],
                  "hidden_columns": {"path": "public"},
                  "files": {"pattern": "{path}", "dest": "{image}"}},
        "fixture": {"rows": 80, "tables": [
            {"path": "images.csv", "virtual": True, "columns": {
                "fish": "choice:" + "|".join(_FISH), "image": "seq:img_{i:05d}.jpg"}},
            {"path": "sample_submission_stg1.csv", "archive": "sample_submission_stg1.csv.zip",
             "columns": {"image": "seq:img_9{i:04d}.jpg",
                         **{f: "const:0.125" for f in _FISH}}},
        ], "files": [
            {"pattern": "train/{fish}/{image}", "table": "images.csv", "archive": "train.zip"},
            {"pattern": "test_stg1/{image}", "table": "images.csv",
             "archive": "test_stg1.zip"}]},
    },
    "kaggle/nbme-score-clinical-patient-notes": {
        "sources": dojo("nbme-score-clinical-patient-notes",
                        "splits raw train.csv (id, case_num, pn_num, feature_num, annotation, "
                        "location); copies features.csv (feature_num, case_num, feature_text) "
                        "and patient_notes.csv (pn_num, case_num, pn_history); answers id, "
                        "location") + page("nbme-score-clinical-patient-notes",
                                           "test.csv (id, case_num, pn_num, feature_num), "
                                           "sample_submission.csv (id, location); the id is "
                                           "<pn_num>_<feature_num>"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "id",
                  "target_columns": ["location"], "group_column": "pn_num",
                  "test_size": 0.1, "hidden_columns": {"annotation": "test"},
                  "extra_public_files": ["features.csv", "patient_notes.csv"]},
        "fixture": {"rows": 90, "tables": [
            {"path": "train.csv", "columns": {
                "id": "seq:{i:05d}_000", "case_num": "choice:0|1|2", "pn_num": "group:3:{g}",
                "feature_num": "choice:0|1|2", "annotation": "text",
                "location": "choice:['696 724']|[]|['668 693', '10 20;30 40']"}},
            {"path": "features.csv", "rows": 6, "columns": {
                "feature_num": "seq:{i}", "case_num": "choice:0|1", "feature_text": "text"}},
            {"path": "patient_notes.csv", "columns": {
                "pn_num": "seq:{i}", "case_num": "choice:0|1|2", "pn_history": "text"}},
            {"path": "test.csv", "rows": 5, "columns": {
                "id": "seq:9{i:04d}_000", "case_num": "const:0", "pn_num": "seq:9{i}",
                "feature_num": "const:0"}},
            {"path": "sample_submission.csv", "rows": 5, "columns": {
                "id": "seq:9{i:04d}_000", "location": "const:"}},
        ]},
    },
    "kaggle/wsdm-cup-multilingual-chatbot-arena": {
        "sources": dojo("wsdm-cup-multilingual-chatbot-arena",
                        "reads train.parquet (id, prompt, response_a, response_b, winner, "
                        "model_a, model_b, language) and test.parquet; splits the training "
                        "rows; answers id, winner (model_a or model_b)") + page(
            "wsdm-cup-multilingual-chatbot-arena",
            "test.parquet holds id, prompt, response_a, response_b (no model names); "
            "sample_submission.csv (id, winner)"),
        "split": {"strategy": "stratified", "train_file": "train.parquet", "id_column": "id",
                  "target_columns": ["winner"], "test_size": 0.1, "stratify_column": "winner",
                  "hidden_columns": {"model_a": "test", "model_b": "test"}},
        "fixture": {"tables": [
            {"path": "train.parquet", "columns": {
                "id": "seq:{i:064x}", "prompt": "text", "response_a": "text",
                "response_b": "text", "winner": "choice:model_a|model_b",
                "model_a": "choice:gpt-4o-2024-05-13|gemma-2-9b-it|qwen2-72b-instruct",
                "model_b": "choice:gpt-4o-2024-05-13|gemma-2-9b-it|qwen2-72b-instruct",
                "language": "choice:English|Russian|Chinese"}},
            {"path": "test.parquet", "rows": 3, "columns": {
                "id": "seq:f{i:063x}", "prompt": "text", "response_a": "text",
                "response_b": "text"}},
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "id": "seq:f{i:063x}", "winner": "const:model_a"}},
        ]},
    },
    "kaggle/yelp-recsys-2013": {
        "sources": dojo("yelp-recsys-2013",
                        "unzips yelp_training_set.zip (yelp_training_set/: review, business, "
                        "user and checkin files, JSON lines) and the test sets; splits the "
                        "reviews (votes, user_id, review_id, stars, date, text, type, "
                        "business_id); answers RecommendationId, Stars; it strips stars from "
                        "business files and average_stars from user files, which average the "
                        "held-out reviews too: those files are not published here"),
        "split": {"strategy": "random",
                  "train_file": "yelp_training_set/yelp_training_set_review.json",
                  "id_column": "RecommendationId", "target_columns": ["Stars"],
                  "test_size": 0.1,
                  "transforms": [{"op": "rename", "columns": {"review_id": "RecommendationId",
                                                              "stars": "Stars"}}],
                  "hidden_columns": {"text": "test", "votes": "test"},
                  "extra_public_files": ["yelp_training_set/yelp_training_set_checkin.json"]},
        "fixture": {"tables": [
            {"path": "yelp_training_set/yelp_training_set_review.json",
             "archive": "yelp_training_set.zip", "lines": True,
             "member": "yelp_training_set/yelp_training_set_review.json", "columns": {
                 "votes": "list", "user_id": "group:3:u{g:021d}", "review_id": "seq:r{i:021d}",
                 "stars": "choice:1|2|3|4|5", "date": "date:2011-01-26", "text": "text",
                 "type": "const:review", "business_id": "group:4:b{g:021d}"}},
            {"path": "yelp_training_set/yelp_training_set_business.json",
             "archive": "yelp_training_set.zip", "lines": True,
             "member": "yelp_training_set/yelp_training_set_business.json", "columns": {
                 "business_id": "seq:b{i:021d}", "name": "text", "city": "choice:Phoenix",
                 "stars": "float:1:5", "review_count": "int:3:800",
                 "categories": "list", "type": "const:business"}},
            {"path": "yelp_training_set/yelp_training_set_checkin.json",
             "archive": "yelp_training_set.zip", "lines": True,
             "member": "yelp_training_set/yelp_training_set_checkin.json", "columns": {
                 "business_id": "seq:b{i:021d}", "type": "const:checkin"}},
            {"path": "final_test_set/final_test_set_review.json", "archive": "final_test_set.zip",
             "member": "final_test_set/final_test_set_review.json", "lines": True,
             "columns": {"user_id": "seq:u{i:021d}", "business_id": "seq:b{i:021d}",
                         "type": "const:review"}},
            {"path": "sampleSubmission.csv", "columns": {"RecommendationId": "seq:{i}",
                                                         "Stars": "const:3.7"}},
        ]},
    },
    "kaggle/shopee-product-matching": {
        "sources": dojo("shopee-product-matching",
                        "splits raw train.csv (posting_id, image, image_phash, title, "
                        "label_group); public test drops label_group; a test row's matches are "
                        "the posting ids of its label_group among the test rows, itself "
                        "included; copies train_images/<image>") + page(
            "shopee-product-matching", "test.csv, test_images/, sample_submission.csv "
                                       "(posting_id, matches)"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "posting_id",
                  "target_columns": ["matches"], "group_column": "label_group",
                  "test_size": 0.1,
                  "transforms": [{"op": "group_members", "column": "matches",
                                  "group_column": "label_group",
                                  "member_column": "posting_id"}],
                  "hidden_columns": {"label_group": "test"},
                  "files": {"pattern": "train_images/{image}", "dest": "{image}"}},
        "fixture": {"rows": 90, "tables": [
            {"path": "train.csv", "columns": {
                "posting_id": "seq:train_{i:010d}", "image": "seq:{i:032x}.jpg",
                "image_phash": "seq:b94cb00ed3e5{i:04x}", "title": "text",
                "label_group": "group:3:{g}24986"}},
            {"path": "test.csv", "rows": 3, "columns": {
                "posting_id": "seq:test_{i:010d}", "image": "seq:f{i:031x}.jpg",
                "image_phash": "seq:e3cd72389f24{i:04x}", "title": "text"}},
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "posting_id": "seq:test_{i:010d}", "matches": "seq:test_{i:010d}"}},
        ], "files": [
            {"pattern": "train_images/{image}", "table": "train.csv"},
            {"pattern": "test_images/{image}", "table": "test.csv"}]},
    },
    "kaggle/global-wheat-detection": {
        "sources": dojo("global-wheat-detection",
                        "reads raw train.csv (image_id, width, height, bbox \"[x, y, w, h]\", "
                        "source: one row per box); splits the images; answers image_id, "
                        "PredictionString \"1.0 x y w h\" per box; copies train/<image_id>.jpg")
        + page("global-wheat-detection",
               "test images come from other regions than the training sources; images "
               "without a box are in train/ but not in train.csv"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "image_id",
                  "target_columns": ["PredictionString"], "group_column": "source",
                  "test_size": 0.15,
                  "transforms": [{"op": "aggregate", "key": "image_id",
                                  "column": "PredictionString", "template": "1.0 {bbox}",
                                  "keep": ["width", "height", "source"]}],
                  "files": {"pattern": "train/{image_id}.jpg", "dest": "{image_id}.jpg"}},
        "fixture": {"rows": 160, "tables": [
            {"path": "train.csv", "columns": {
                "image_id": "group:2:{g:09x}", "width": "const:1024", "height": "const:1024",
                "bbox": "choice:[834.0, 222.0, 56.0, 36.0]|[226.0, 548.0, 130.0, 58.0]|"
                        "[377.0, 504.0, 74.0, 160.0]",
                "source": "group:16:src_{g}"}},
            {"path": "images.csv", "virtual": True, "rows": 80, "columns": {
                "image_id": "seq:{i:09x}"}},
            {"path": "sample_submission.csv", "rows": 3, "columns": {
                "image_id": "seq:f{i:08x}", "PredictionString": "const:1.0 0 0 50 50"}},
        ], "files": [
            {"pattern": "train/{image_id}.jpg", "table": "images.csv"},
            {"pattern": "test/{image_id}.jpg", "table": "sample_submission.csv"}]},
    },

    "kaggle/bengaliai-cv19": {
        "sources": dojo("bengaliai-cv19",
                        "splits raw train.csv (image_id, grapheme_root, vowel_diacritic, "
                        "consonant_diacritic, grapheme) by image; the images are rows of "
                        "train_image_data_0..3.parquet (image_id, one column per pixel); "
                        "answers one row per image and component: row_id "
                        "<image_id>_<component>, target") + page(
            "bengaliai-cv19", "test.csv (row_id, image_id, component), "
                              "test_image_data_0..3.parquet, class_map.csv, "
                              "sample_submission.csv (row_id, target)"),
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "row_id",
                  "target_columns": ["target"], "group_column": "image_id",
                  "test_size": 0.1,
                  "transforms": [
                      {"op": "unpivot", "keys": _GRAPHEME, "key_column": "component",
                       "columns": {"target": "{key}"}},
                      {"op": "compose_id", "column": "row_id",
                       "template": "{image_id}_{component}"}],
                  "hidden_columns": {"grapheme": "test"},
                  "extra_public_files": ["class_map.csv"] + [
                      f"train_image_data_{k}.parquet" for k in range(4)]},
        "fixture": {"rows": 60, "tables": [
            {"path": "train.csv", "columns": {
                "image_id": "seq:Train_{i}", "grapheme_root": "choice:15|22|72|96",
                "vowel_diacritic": "choice:0|1|7", "consonant_diacritic": "choice:0|2|5",
                "grapheme": "seq:\u0995{i}"}},
            {"path": "class_map.csv", "rows": 6, "columns": {
                "component_type": "choice:grapheme_root|vowel_diacritic",
                "label": "seq:{i}", "component": "seq:\u0982{i}"}},
            {"path": "test.csv", "rows": 6, "columns": {
                "row_id": "seq:Test_{i}_consonant_diacritic", "image_id": "seq:Test_{i}",
                "component": "const:consonant_diacritic"}},
            {"path": "sample_submission.csv", "rows": 6, "columns": {
                "row_id": "seq:Test_{i}_consonant_diacritic", "target": "const:0"}},
        ], "extra": {f"train_image_data_{k}.parquet": "PAR1 image_id and pixel columns"
                     for k in range(4)}},
    },
}
