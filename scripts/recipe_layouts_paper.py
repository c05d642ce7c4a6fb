"""Recipes and raw fixtures for the real downloads: paper tasks whose data needs more than a
split of rows (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import MLE_COMMIT, dojo, mle, page

_OSIC = "osic-pulmonary-fibrosis-progression"
_HM = "h-and-m-personalized-fashion-recommendations"
_CUSTOMERS = "|".join(f"{k:064x}" for k in (0x3A1, 0x7F2, 0x0B3, 0xC44, 0x9D5, 0x2E6, 0x5F7,
                                            0x818))
_ARTICLE_COLUMNS = {
    "article_id": "int:108775015:959461001", "product_code": "int:108775:959461",
    "prod_name": "text", "product_type_no": "int:1:500", "product_type_name": "choice:Vest "
    "top|Trousers|Sweater", "product_group_name": "choice:Garment Upper body|Garment Lower "
    "body", "graphical_appearance_no": "int:1010001:1010029",
    "graphical_appearance_name": "choice:Solid|Stripe", "colour_group_code": "int:1:93",
    "colour_group_name": "choice:Black|White|Light Beige", "perceived_colour_value_id":
    "int:1:7", "perceived_colour_value_name": "choice:Dark|Light", "perceived_colour_master_id":
    "int:1:20", "perceived_colour_master_name": "choice:Black|White", "department_no":
    "int:1201:9989", "department_name": "choice:Jersey Basic|Trousers", "index_code":
    "choice:A|B|D", "index_name": "choice:Ladieswear|Menswear", "index_group_no": "int:1:26",
    "index_group_name": "choice:Ladieswear|Menswear", "section_no": "int:2:97",
    "section_name": "choice:Womens Everyday Basics|Mens Trousers", "garment_group_no":
    "int:1001:1025", "garment_group_name": "choice:Jersey Basic|Trousers", "detail_desc":
    "text"}

_GSDC = "smartphone-decimeter-2022"
_DRIVES = [f"2021-0{k}-{10 + k}-US-{'MTV' if k % 2 else 'SJC'}-{1 + k % 3}" for k in range(1, 9)]
_GROUND_TRUTH = {
    "MessageType": "const:Fix", "Provider": "const:GT", "LatitudeDegrees": "float:37.3:37.5",
    "LongitudeDegrees": "float:-122.1:-121.9", "AltitudeMeters": "float:-30:30",
    "SpeedMps": "float:0:30", "AccuracyMeters": "float:0.1:0.2",
    "BearingDegrees": "float:0:359", "UnixTimeMillis": "seq:16184{i:05d}000"}
_GNSS = {"MessageType": "const:Raw", "utcTimeMillis": "seq:16184{i:05d}000",
         "Svid": "int:1:32", "Cn0DbHz": "float:20:45", "RawPseudorangeMeters":
         "float:2e7:2.6e7", "SignalType": "choice:GPS_L1|GAL_E1",
         "WlsPositionXEcefMeters": "float:-2.7e6:-2.6e6"}


def _gsdc_tables() -> list[dict[str, Any]]:
    """Each trip folder's ground truth and phone measurements, and the sample submission."""
    tables: list[dict[str, Any]] = []
    for drive in _DRIVES:
        trip = f"train/{drive}/GooglePixel4"
        tables += [{"path": f"{trip}/ground_truth.csv", "rows": 12, "columns": _GROUND_TRUTH},
                   {"path": f"{trip}/device_gnss.csv", "rows": 8, "columns": _GNSS}]
    return [*tables, {"path": "sample_submission.csv", "rows": 8, "columns": {
        "tripId": "const:2022-04-25-US-OAK-2/GooglePixel4", "UnixTimeMillis":
        "seq:16509{i:05d}000", "LatitudeDegrees": "const:37.904611315634504",
        "LongitudeDegrees": "const:-86.48107806249548"}}]


_CONTRAILS = "google-research-identify-contrails-reduce-global-warming"
_BANDS = [f"band_{b:02d}.npy" for b in range(8, 17)]
_CONTRAIL_META = {"record_id": "seq:{i}00834164244036115", "projection_wkt": "const:PROJCS",
                  "row_min": "float:-1e6:1e6", "row_size": "const:2000.0",
                  "col_min": "float:-1e6:1e6", "col_size": "const:2000.0",
                  "timestamp": "float:1.55e9:1.6e9"}
_CONTRAILS_ENTRY = {
    f"kaggle/{_CONTRAILS}": {
        "sources": [
            *mle(_CONTRAILS, "reads train_metadata.json (a list of records with record_id); "
                             "splits the training records, as many test records as "
                             "validation_metadata.json lists; answers record_id, "
                             "encoded_pixels (the run-length encoding of "
                             "train/<record_id>/human_pixel_masks.npy down each column, '-' "
                             "when empty), height, width; publishes band_08..16.npy of each "
                             "test record only, and validation/ with its metadata"),
            {"source": "github:openai/mle-bench", "commit": MLE_COMMIT,
             "path": f"mlebench/competitions/{_CONTRAILS}/description.md",
             "detail": "train/<record_id>/: band_{08-16}.npy (H x W x T), "
                       "human_individual_masks.npy (H x W x 1 x R, training set only), "
                       "human_pixel_masks.npy (H x W x 1, the ground truth); validation/ "
                       "the same without individual masks; {train|validation}_metadata.json; "
                       "sample_submission.csv (record_id, encoded_pixels, '-' for an empty "
                       "mask). Here both mask files are left out of every record's folder "
                       "(the training records' masks are in train.csv's encoded_pixels)"},
        ],
        "split": {"strategy": "random", "train_file": "train_metadata.json",
                  "id_column": "record_id", "target_columns": ["encoded_pixels"],
                  "test_size": 0.1,
                  "extra_public_files": ["validation", "validation_metadata.json"],
                  "transforms": [{"op": "npy_rle",
                                  "pattern": "train/{record_id}/human_pixel_masks.npy",
                                  "into": "encoded_pixels", "empty": "-",
                                  "height_column": "height", "width_column": "width"}],
                  "files": {"pattern": "train/{record_id}", "dest": "{record_id}",
                            "exclude": ["human_pixel_masks.npy",
                                        "human_individual_masks.npy"]}},
        "fixture": {"rows": 40, "tables": [
            {"path": "train_metadata.json", "columns": _CONTRAIL_META},
            {"path": "validation_metadata.json", "rows": 8, "columns": {
                **_CONTRAIL_META, "record_id": "seq:{i}0265329725449311"}},
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "record_id": "seq:{i}000834164244036115", "encoded_pixels": "const:-"}},
        ], "files": [
            *({"pattern": f"train/{{record_id}}/{name}", "table": "train_metadata.json",
               "npy": "4x4x2"} for name in _BANDS),
            {"pattern": "train/{record_id}/human_pixel_masks.npy",
             "table": "train_metadata.json", "npy": "4x4x1"},
            {"pattern": "train/{record_id}/human_individual_masks.npy",
             "table": "train_metadata.json", "npy": "4x4x1"},
            {"pattern": "validation/{record_id}/human_pixel_masks.npy",
             "table": "validation_metadata.json", "npy": "4x4x1"}]},
    },
}


LAYOUTS: dict[str, dict[str, Any]] = {
    f"kaggle/{_GSDC}": {
        "sources": [
            *mle(_GSDC, "the trips are train/<drive>/<phone>/ folders; the test drives are "
                        "split off (by date); the answers are the test trips' "
                        "ground_truth.csv (MessageType, Provider, LatitudeDegrees, "
                        "LongitudeDegrees, AltitudeMeters, SpeedMps, AccuracyMeters, "
                        "BearingDegrees, UnixTimeMillis) concatenated, tripId = "
                        "'<drive>-<phone>', with UnixTimeMillis, LatitudeDegrees, "
                        "LongitudeDegrees; each trip folder is published without its "
                        "ground_truth.csv; metadata/ is copied"),
            *dojo(_GSDC, "device_gnss.csv, device_imu.csv and supplemental/ (the phone's "
                         "logs) in every trip folder; ground_truth.csv in the training "
                         "trips; the reference locations were extracted from the reference "
                         "receiver's NMEA log. Here the trips are split by drive, and NMEA "
                         "files are left out of the trip folders with the ground truth"),
        ],
        "split": {"strategy": "group", "id_column": "row_id",
                  "target_columns": ["LatitudeDegrees", "LongitudeDegrees"],
                  "group_column": "drive", "test_size": 0.1,
                  "hidden_columns": {"AltitudeMeters": "test", "SpeedMps": "test",
                                     "AccuracyMeters": "test", "BearingDegrees": "test"},
                  "extra_public_files": ["metadata"],
                  "transforms": [
                      {"op": "concat_files",
                       "pattern": "train/{drive}/{phone}/ground_truth.csv"},
                      {"op": "compose_id", "column": "tripId", "template": "{drive}-{phone}"},
                      {"op": "compose_id", "column": "row_id",
                       "template": "{tripId}_{UnixTimeMillis}"}],
                  "files": {"pattern": "train/{drive}/{phone}", "dest": "{drive}/{phone}",
                            "exclude": ["ground_truth.csv", "*.nmea"]}},
        "fixture": {"rows": 12, "tables": _gsdc_tables(), "extra": {
            **{f"train/{d}/GooglePixel4/supplemental/span_log.nmea": "$GPGGA,reference"
               for d in _DRIVES},
            **{f"train/{d}/GooglePixel4/supplemental/gnss_log.txt": "# Raw,phone log"
               for d in _DRIVES},
            "metadata/raw_state_bit_map.json": '{"0": "CODE_LOCK"}'}},
    },
    "kaggle/kuzushiji-recognition": {
        "sources": [
            *mle("kuzushiji-recognition",
                 "extracts train_images.zip (<image_id>.jpg); splits raw train.csv (image_id, "
                 "labels: 'unicode x y width height' per character, joined by spaces) 9:1; "
                 "copies each image into public/train or public/test; publishes "
                 "unicode_translation.csv (Unicode, char); a submission gives 'unicode x y' "
                 "points, each to fall inside a true box of its character"),
            *page("kuzushiji-recognition",
                  "train.csv, train_images.zip, test_images.zip, unicode_translation.csv, "
                  "sample_submission.csv (image_id, labels); a page without a character has "
                  "an empty labels cell"),
        ],
        "split": {"strategy": "random", "train_file": "train.csv", "id_column": "image_id",
                  "target_columns": ["labels"], "test_size": 0.1,
                  "extra_public_files": ["unicode_translation.csv"],
                  "transforms": [{"op": "drop_rows", "column": "labels", "rule": "empty",
                                  "reason": "a page without a character has no box to score "
                                            "(the score is the F1 of points inside boxes)"}],
                  "files": {"pattern": "train_images/{image_id}.jpg",
                            "dest": "{image_id}.jpg"}},
        "fixture": {"rows": 80, "tables": [
            {"path": "train.csv", "columns": {
                "image_id": "seq:100241706_{i:05d}_1",
                "labels": "seq:U+306F {i} 1231 33 73 U+304C 275 1652 84 69 U+3044 1495 1218 "
                          "143 69"}},
            {"path": "unicode_translation.csv", "rows": 8, "columns": {
                "Unicode": "seq:U+{i:04X}", "char": "seq:c{i}"}},
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "image_id": "seq:test_{i:08x}", "labels": "const:U+003F 1 1 U+FF2F 2 2"}},
        ], "files": [{"pattern": "train_images/{image_id}.jpg", "table": "train.csv",
                      "archive": "train_images.zip"}]},
    },
    f"kaggle/{_HM}": {
        "sources": [
            *mle(_HM, "reads transactions_train.csv (t_dat, customer_id, article_id, price, "
                      "sales_channel_id: one row per article bought, a customer may buy one "
                      "article twice a day); the test is the transactions of the last days "
                      "(t_dat from the last date minus 7 days); answers customer_id, "
                      "prediction: each buying customer's article ids joined by spaces; "
                      "publishes the earlier transactions, articles.csv, customers.csv, "
                      "images/ and the raw sample_submission.csv (every customer)"),
            *page(_HM, "transactions_train.csv, articles.csv (article_id, product_code, "
                       "prod_name, ..., detail_desc), customers.csv (customer_id, FN, Active, "
                       "club_member_status, fashion_news_frequency, age, postal_code), "
                       "images/<first three digits>/<article_id>.jpg (not every article has "
                       "one), sample_submission.csv (customer_id, prediction); the task is "
                       "the 7 days after the training data; MAP@12 over the customers who "
                       "bought. Here the test is the last 7 dates of the transactions, "
                       "public/test.csv lists the customers who bought then (scored, as on "
                       "Kaggle, only they are) and the submission predicts for them"),
        ],
        "split": {"strategy": "time", "train_file": "transactions_train.csv",
                  "id_column": "transaction_id", "target_columns": ["article_id"],
                  "time_column": "t_dat", "last_k_periods": 7,
                  "hidden_columns": {"t_dat": "test", "price": "test",
                                     "sales_channel_id": "test"},
                  "extra_public_files": ["articles.csv", "customers.csv", "images"],
                  "transforms": [{"op": "row_number", "column": "transaction_id"}],
                  "answers_per": {"key": "customer_id", "column": "article_id",
                                  "into": "prediction"}},
        "fixture": {"rows": 120, "tables": [
            {"path": "articles.csv", "rows": 30, "columns": _ARTICLE_COLUMNS},
            {"path": "customers.csv", "rows": 8, "columns": {
                "customer_id": f"choice:{_CUSTOMERS}", "FN": "choice:1.0|", "Active":
                "choice:1.0|", "club_member_status": "choice:ACTIVE|PRE-CREATE",
                "fashion_news_frequency": "choice:NONE|Regularly", "age": "int:16:99",
                "postal_code": "seq:{i:064x}"}},
            {"path": "sample_submission.csv", "rows": 8, "columns": {
                "customer_id": f"choice:{_CUSTOMERS}",
                "prediction": "const:0706016001 0706016002 0372860001"}},
            {"path": "transactions_train.csv", "columns": {
                "t_dat": "group:6:20{g:02d}-09-20", "customer_id": f"choice:{_CUSTOMERS}",
                "article_id": "int:108775015:108775030", "price": "float:0.001:0.5",
                "sales_channel_id": "choice:1|2"}},
        ], "extra": {"images/010/0108775015.jpg": "JFIF", "images/010/0108775016.jpg": "JFIF"}},
    },
    f"kaggle/{_OSIC}": {
        "sources": [
            *mle(_OSIC, "reads train.csv (Patient, Weeks, FVC, Percent, Age, Sex, "
                        "SmokingStatus: one row per visit); splits the patients 9:1; a test "
                        "patient's first visit (smallest Weeks) is public; answers Patient_Week "
                        "= Patient + '_' + Weeks with FVC; copies train/<Patient>/ (the "
                        "patient's DICOM slices) into public/train/ or public/test/"),
            *dojo(_OSIC, "the same download: train.csv, test.csv (the baseline visit of five "
                         "patients), sample_submission.csv (Patient_Week, FVC, Confidence), "
                         "train/<Patient>/<n>.dcm, test/<Patient>/<n>.dcm"),
            {"source": "github:MLE-Dojo/MLE-Dojo", "commit": "667a8fd0e959eb47f140ce7e621f8"
             "31fdb55e5dd", "path": f"mledojo/competitions/{_OSIC}/info/description.txt",
             "detail": "test.csv holds only each patient's baseline measurement; the score is "
                       "the Laplace log likelihood of the last three FVC measurements of "
                       "each patient, with the submission's Confidence; Percent is computed "
                       "from FVC. Here the test rows are the later visits, each with its "
                       "patient's first visit as Base_ columns (Kaggle asked for every week "
                       "so as not to tell which weeks were measured: the weeks are public "
                       "here)"},
        ],
        "split": {"strategy": "group", "train_file": "train.csv", "id_column": "Patient_Week",
                  "target_columns": ["FVC"], "group_column": "Patient", "test_size": 0.1,
                  "hidden_columns": {"Percent": "test"},
                  "transforms": [
                      {"op": "compose_id", "column": "Patient_Week",
                       "template": "{Patient}_{Weeks}"},
                      {"op": "drop_rows", "column": "Patient_Week", "rule": "repeated",
                       "reason": "a patient measured twice in one week: the first "
                                 "measurement is kept (one answer per Patient_Week)"},
                      {"op": "baseline", "group": "Patient", "order": "Weeks",
                       "columns": {"Weeks": "Base_Weeks", "FVC": "Base_FVC",
                                   "Percent": "Base_Percent"}}],
                  "files": {"pattern": "train/{Patient}", "dest": "{Patient}"}},
        "fixture": {"rows": 160, "tables": [
            {"path": "train.csv", "columns": {
                "Patient": "group:8:ID00{g:03d}637202177411956430", "Weeks": "int:-5:133",
                "FVC": "int:800:4500", "Percent": "float:30:130", "Age": "int:49:88",
                "Sex": "choice:Male|Female",
                "SmokingStatus": "choice:Ex-smoker|Never smoked|Currently smokes"}},
            {"path": "test.csv", "rows": 5, "columns": {
                "Patient": "seq:ID00{i:03d}637202177411956431", "Weeks": "int:-5:20",
                "FVC": "int:800:4500", "Percent": "float:30:130", "Age": "int:49:88",
                "Sex": "choice:Male|Female",
                "SmokingStatus": "choice:Ex-smoker|Never smoked|Currently smokes"}},
            {"path": "sample_submission.csv", "rows": 10, "columns": {
                "Patient_Week": "seq:ID00{i:03d}637202177411956431_-12", "FVC": "const:2000",
                "Confidence": "const:100"}},
        ], "files": [{"pattern": f"train/{{Patient}}/{k}.dcm", "table": "train.csv"}
                     for k in (1, 2)]},
    },
    **_CONTRAILS_ENTRY,
}
