"""Recipes and raw fixtures for the real downloads: the tabular group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
Most layouts were read from MLE-Dojo's prepare.py of the competition (the files it unzips and
reads, the columns it renames); where that script is empty, from the competition's description
kept beside it (its file list) and the data page.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import DOJO_COMMIT, dojo


def dojo_info(folder: str, detail: str) -> list[dict[str, str]]:
    """The competition's description kept by MLE-Dojo (its data section) as the source."""
    return [{"source": "github:MLE-Dojo/MLE-Dojo", "commit": DOJO_COMMIT,
             "path": f"mledojo/competitions/{folder}/info/description.txt", "detail": detail}]


def _t(path: str, columns: dict[str, str], *, zipped: bool = False,
       **more: Any) -> dict[str, Any]:
    """A fixture table; ``zipped``: the download holds it as ``<path>.zip``."""
    return {"path": path, "columns": columns, **({"archive": f"{path}.zip"} if zipped else {}),
            **more}


def _simple(sources: list[dict[str, str]], split: dict[str, Any], train: dict[str, str],
            test: dict[str, str], sub: dict[str, str], *, zipped: bool = False,
            names: tuple[str, str, str] = ("train.csv", "test.csv", "sample_submission.csv"),
            extra: tuple[dict[str, Any], ...] = (), rows: int = 60,
            files: dict[str, str] | None = None) -> dict[str, Any]:
    """A download of a training table, a test table and a sample submission (each zipped when
    ``zipped``), plus ``extra`` tables and ``files`` (other files: path -> text); the recipe
    splits the training table."""
    tr, te, sa = names
    tables = [_t(tr, train, zipped=zipped), _t(te, test, zipped=zipped),
              _t(sa, sub, zipped=zipped), *extra]
    return {"sources": sources, "split": {"train_file": tr, **split},
            "fixture": {"rows": rows, "tables": tables, **({"extra": files} if files else {})}}


def _stratified(target: str, **more: Any) -> dict[str, Any]:
    return {"strategy": "stratified", "target_columns": [target], "stratify_column": target,
            "test_size": 0.1, **more}


def _random(target: str, **more: Any) -> dict[str, Any]:
    return {"strategy": "random", "target_columns": [target], "test_size": 0.1, **more}


def _covid(week: int) -> dict[str, Any]:
    where = ({"Province/State": "choice:|Hubei|New York", "Country/Region": "choice:China|US|Italy",
              "Lat": "float:-40:60", "Long": "float:-120:120"} if week == 1 else
             {"Province_State": "choice:|Hubei|New York", "Country_Region": "choice:China|US|Italy"})
    slug = f"covid19-global-forecasting-week-{week}"
    return _simple(
        dojo_info(slug, "train.csv (Id, the location, Date, ConfirmedCases, Fatalities), "
                        "test.csv (ForecastId, the location, Date) and submission.csv "
                        "(ForecastId, ConfirmedCases, Fatalities); the test is the dates after "
                        "the training data, so the later dates are the local test"),
        {"strategy": "time", "id_column": "ForecastId",
         "target_columns": ["ConfirmedCases", "Fatalities"], "time_column": "Date",
         "test_size": 0.2, "transforms": [{"op": "rename", "columns": {"Id": "ForecastId"}}]},
        {"Id": "seq:{i}", **where, "Date": "date:2020-01-22", "ConfirmedCases": "int:0:5000",
         "Fatalities": "int:0:300"},
        {"ForecastId": "seq:{i}", **where, "Date": "date:2020-03-12"},
        {"ForecastId": "seq:{i}", "ConfirmedCases": "const:1", "Fatalities": "const:1"},
        names=("train.csv", "test.csv", "submission.csv"))


def _cat_in_the_dat(slug: str) -> dict[str, Any]:
    features = {**{f"bin_{k}": "choice:0|1" for k in range(3)}, "bin_3": "choice:T|F",
                "bin_4": "choice:Y|N", "nom_0": "choice:Green|Blue|Red",
                "nom_5": "seq:{i:09x}", "ord_0": "int:1:3", "ord_1": "choice:Novice|Expert",
                "ord_5": "choice:kr|bF|Jc", "day": "int:1:7", "month": "int:1:12"}
    return _simple(
        dojo_info(slug, "train.csv (id, bin_*, nom_*, ord_*, day, month, target), test.csv, "
                        "sample_submission.csv (id, target)"),
        _stratified("target", id_column="id"),
        {"id": "seq:{i}", **features, "target": "choice:0|1"},
        {"id": "seq:{i}", **features}, {"id": "seq:{i}", "target": "const:0.5"})


LAYOUTS: dict[str, dict[str, Any]] = {
    "kaggle/linking-writing-processes-to-writing-quality": {
        "sources": dojo("linking-writing-processes-to-writing-quality",
                        "reads train_scores.csv (id, score) and train_logs.csv (id, event_id, "
                        "down_time, ..., word_count: keystrokes, many per essay); splits the "
                        "essays of train_scores.csv; the logs carry no score"),
        "split": {"strategy": "random", "train_file": "train_scores.csv", "id_column": "id",
                  "target_columns": ["score"], "test_size": 0.2,
                  "extra_public_files": ["train_logs.csv"]},
        "fixture": {"tables": [
            _t("train_logs.csv", {
                "id": "group:4:{g:08x}", "event_id": "seq:{i}", "down_time": "int:0:90000",
                "up_time": "int:0:90000", "action_time": "int:0:300",
                "activity": "choice:Input|Remove/Cut|Nonproduction", "down_event": "choice:q|Space",
                "up_event": "choice:q|Space", "text_change": "choice:q| |NoChange",
                "cursor_position": "int:0:3000", "word_count": "int:0:500"}, rows=240),
            _t("train_scores.csv", {"id": "seq:{i:08x}", "score": "choice:1.0|2.5|3.5|4.0|6.0"}),
            _t("test_logs.csv", {"id": "group:2:t{g:07x}", "event_id": "seq:{i}",
                                 "down_time": "int:0:900", "activity": "choice:Input"}, rows=8),
            _t("sample_submission.csv", {"id": "seq:t{i:07x}", "score": "const:1.0"}, rows=8),
        ]},
    },
    "kaggle/airbnb-recruiting-new-user-bookings": _simple(
        dojo("airbnb-recruiting-new-user-bookings",
             "unzips the download's zips; reads train_users_2.csv (id, date_account_created, "
             "..., country_destination), test_users.csv, sessions.csv, countries.csv, "
             "age_gender_bkts.csv; answers id, country (renamed from country_destination). "
             "The competition's test users are the ones who signed up later, and "
             "date_first_booking is empty in them (it tells who booked)"),
        {"strategy": "time", "id_column": "id", "target_columns": ["country"],
         "time_column": "date_account_created", "test_size": 0.1,
         "hidden_columns": {"date_first_booking": "test"},
         "transforms": [{"op": "rename", "columns": {"country_destination": "country"}}],
         "extra_public_files": ["sessions.csv", "countries.csv", "age_gender_bkts.csv"]},
        {"id": "seq:u{i:09x}", "date_account_created": "date:2010-06-28",
         "timestamp_first_active": "int:20090319043255:20140630235824",
         "date_first_booking": "date:2010-08-02", "gender": "choice:MALE|FEMALE|-unknown-",
         "age": "int:18:80", "signup_method": "choice:facebook|basic", "signup_flow": "int:0:25",
         "language": "choice:en|fr", "affiliate_channel": "choice:direct|seo",
         "affiliate_provider": "choice:direct|google", "first_affiliate_tracked":
             "choice:untracked|linked", "signup_app": "choice:Web|iOS",
         "first_device_type": "choice:Mac Desktop|iPhone", "first_browser": "choice:Chrome|Safari",
         "country_destination": "choice:NDF|US|other|FR"},
        {"id": "seq:t{i:09x}", "date_account_created": "date:2014-07-01",
         "date_first_booking": "const:", "gender": "choice:MALE|FEMALE"},
        {"id": "seq:t{i:09x}", "country": "const:NDF"},
        zipped=True, names=("train_users_2.csv", "test_users.csv", "sample_submission_NDF.csv"),
        extra=(_t("sessions.csv", {"user_id": "seq:u{i:09x}", "action": "choice:lookup|search",
                                   "action_type": "choice:click|data", "device_type":
                                       "choice:Windows Desktop|iPhone",
                                   "secs_elapsed": "int:0:9000"}, zipped=True),
               _t("countries.csv", {"country_destination": "choice:AU|CA|DE|FR|US",
                                    "lat_destination": "float:-30:60",
                                    "distance_km": "float:0:16000"}, zipped=True, rows=10),
               _t("age_gender_bkts.csv", {"age_bucket": "choice:100+|95-99|90-94",
                                          "country_destination": "choice:AU|CA|US",
                                          "gender": "choice:male|female",
                                          "population_in_thousands": "float:0:3000",
                                          "year": "const:2015.0"}, zipped=True, rows=12))),
    "kaggle/allstate-claims-severity": _simple(
        dojo("allstate-claims-severity", "reads train.csv (id, cat1..cat116, cont1..cont14, "
                                         "loss) and test.csv; answers id, loss"),
        _random("loss", id_column="id"),
        {"id": "seq:{i}", "cat1": "choice:A|B", "cat116": "choice:LB|DP|GK",
         "cont1": "float:0:1", "cont14": "float:0:1", "loss": "float:5:20000"},
        {"id": "seq:t{i}", "cat1": "choice:A|B", "cont1": "float:0:1"},
        {"id": "seq:t{i}", "loss": "const:0"}),
    "kaggle/amazon-employee-access-challenge": _simple(
        dojo("amazon-employee-access-challenge",
             "reads train.csv (ACTION, RESOURCE, MGR_ID, ROLE_ROLLUP_1, ..., ROLE_CODE: no id "
             "column), test.csv (id, the same features) and sampleSubmission.csv; numbers the "
             "test rows as their id"),
        _stratified("ACTION", id_column="id",
                    transforms=[{"op": "row_number", "column": "id", "start": 1}]),
        {"ACTION": "choice:0|1", "RESOURCE": "int:0:300000", "MGR_ID": "int:0:300000",
         "ROLE_ROLLUP_1": "int:117000:118000", "ROLE_ROLLUP_2": "int:117000:118000",
         "ROLE_DEPTNAME": "int:117000:118000", "ROLE_TITLE": "int:117000:118000",
         "ROLE_FAMILY_DESC": "int:117000:300000", "ROLE_FAMILY": "int:3000:300000",
         "ROLE_CODE": "int:117000:118000"},
        {"id": "seq:{i}", "RESOURCE": "int:0:300000", "MGR_ID": "int:0:300000"},
        {"Id": "seq:{i}", "Action": "const:1"},
        names=("train.csv", "test.csv", "sampleSubmission.csv")),
    "kaggle/ashrae-energy-prediction": _simple(
        dojo("ashrae-energy-prediction",
             "reads train.csv (building_id, meter, timestamp, meter_reading) and test.csv "
             "(row_id, building_id, meter, timestamp); the download also holds "
             "building_metadata.csv, weather_train.csv, weather_test.csv. The competition "
             "tests the later years, so the later timestamps are the local test; row_id is "
             "composed of the reading's building, meter and time"),
        {"strategy": "time", "id_column": "row_id", "target_columns": ["meter_reading"],
         "time_column": "timestamp", "test_size": 0.1,
         "transforms": [{"op": "compose_id", "column": "row_id",
                         "template": "{building_id}_{meter}_{timestamp}"}],
         "extra_public_files": ["building_metadata.csv", "weather_train.csv"]},
        {"building_id": "int:0:1448", "meter": "choice:0|1|2|3",
         "timestamp": "date:2016-01-01", "meter_reading": "float:0:3000"},
        {"row_id": "seq:{i}", "building_id": "int:0:1448", "meter": "choice:0|1",
         "timestamp": "date:2017-01-01"},
        {"row_id": "seq:{i}", "meter_reading": "const:0"},
        extra=(_t("building_metadata.csv", {"site_id": "int:0:15", "building_id": "seq:{i}",
                                            "primary_use": "choice:Education|Office",
                                            "square_feet": "int:300:800000",
                                            "year_built": "int:1900:2017",
                                            "floor_count": "int:1:20"}),
               _t("weather_train.csv", {"site_id": "int:0:15", "timestamp": "date:2016-01-01",
                                        "air_temperature": "float:-20:40",
                                        "cloud_coverage": "int:0:9",
                                        "dew_temperature": "float:-30:26"}),
               _t("weather_test.csv", {"site_id": "int:0:15", "timestamp": "date:2017-01-01",
                                       "air_temperature": "float:-20:40"}))),
    "kaggle/benchmark-bond-trade-price-challenge": _simple(
        dojo("benchmark-bond-trade-price-challenge",
             "reads train.csv (id, bond_id, trade_price, weight, current_coupon, ..., "
             "curve_based_price_last10) and test.csv; answers id, trade_price"),
        _random("trade_price", id_column="id"),
        {"id": "seq:{i}", "bond_id": "int:1:800", "trade_price": "float:80:130",
         "weight": "float:0.1:10", "current_coupon": "float:0:10",
         "time_to_maturity": "float:0:30", "is_callable": "choice:0|1",
         "reporting_delay": "float:0:300", "trade_size": "int:10000:5000000",
         "trade_type": "choice:2|3|4", "curve_based_price": "float:80:130",
         "received_time_diff_last1": "float:0:9000", "trade_price_last1": "float:80:130",
         "curve_based_price_last10": "float:80:130"},
        {"id": "seq:t{i}", "bond_id": "int:1:800", "weight": "float:0.1:10",
         "current_coupon": "float:0:10"},
        {"id": "seq:t{i}", "trade_price": "const:100"},
        names=("train.csv", "test.csv", "random_forest_sample_submission.csv")),
    "kaggle/bioresponse": _simple(
        dojo("bioresponse", "reads train.csv (Activity, D1..D1776: no id column) and test.csv; "
                            "stratified split by Activity; adds an id, MoleculeId, to the test "
                            "rows"),
        _stratified("Activity", id_column="MoleculeId",
                    transforms=[{"op": "row_number", "column": "MoleculeId", "start": 1}]),
        {"Activity": "choice:0|1", "D1": "float:0:1", "D2": "float:0:1", "D3": "choice:0|1",
         "D1776": "choice:0|1"},
        {"D1": "float:0:1", "D2": "float:0:1", "D3": "choice:0|1", "D1776": "choice:0|1"},
        {"MoleculeId": "seq:{i}", "PredictedProbability": "const:0.5"},
        names=("train.csv", "test.csv", "svm_benchmark.csv")),
    "kaggle/bnp-paribas-cardif-claims-management": _simple(
        dojo("bnp-paribas-cardif-claims-management",
             "unzips train.csv.zip, test.csv.zip, sample_submission.csv.zip; train.csv (ID, "
             "target, v1..v131), stratified by target; answers ID, PredictedProb (target "
             "renamed)"),
        _stratified("PredictedProb", id_column="ID",
                    transforms=[{"op": "rename", "columns": {"target": "PredictedProb"}}]),
        {"ID": "seq:{i}", "target": "choice:0|1", "v1": "float:0:20", "v3": "choice:A|B|C",
         "v22": "choice:AGDF|YGJ|QKI", "v131": "float:0:20"},
        {"ID": "seq:t{i}", "v1": "float:0:20", "v3": "choice:A|C"},
        {"ID": "seq:t{i}", "PredictedProb": "const:0.5"}, zipped=True),
    "kaggle/cat-in-the-dat": _cat_in_the_dat("cat-in-the-dat"),
    "kaggle/cat-in-the-dat-ii": _cat_in_the_dat("cat-in-the-dat-ii"),
    "kaggle/covid19-global-forecasting-week-1": _covid(1),
    "kaggle/covid19-global-forecasting-week-2": _covid(2),
    "kaggle/covid19-global-forecasting-week-3": _covid(3),
    "kaggle/covid19-global-forecasting-week-4": _covid(4),
    "kaggle/demand-forecasting-kernels-only": _simple(
        dojo_info("demand-forecasting-kernels-only",
                  "train.csv (date, store, item, sales), test.csv (id, date, store, item), "
                  "sample_submission.csv (id, sales); the test is the three months after the "
                  "training data: later dates are the local test, ids composed of store, item "
                  "and date"),
        {"strategy": "time", "id_column": "id", "target_columns": ["sales"],
         "time_column": "date", "test_size": 0.1,
         "transforms": [{"op": "compose_id", "column": "id",
                         "template": "{store}_{item}_{date}"}]},
        {"date": "date:2013-01-01", "store": "int:1:10", "item": "int:1:50",
         "sales": "int:0:200"},
        {"id": "seq:{i}", "date": "date:2018-01-01", "store": "int:1:10", "item": "int:1:50"},
        {"id": "seq:{i}", "sales": "const:52"}),
    "kaggle/dont-overfit-ii": _simple(
        dojo_info("dont-overfit-ii", "train.csv (id, target, 0..299: 250 rows), test.csv, "
                                     "sample_submission.csv (id, target)"),
        _stratified("target", id_column="id", test_size=0.2),
        {"id": "seq:{i}", "target": "choice:0.0|1.0", "0": "float:-3:3", "1": "float:-3:3",
         "298": "float:-3:3", "299": "float:-3:3"},
        {"id": "seq:{i}", "0": "float:-3:3", "299": "float:-3:3"},
        {"id": "seq:{i}", "target": "const:0"}),
    "kaggle/facebook-recruiting-iv-human-or-bot": _simple(
        dojo("facebook-recruiting-iv-human-or-bot",
             "unzips train.csv.zip, test.csv.zip, bids.csv.zip; train.csv (bidder_id, "
             "payment_account, address, outcome); copies bids.csv (every bid, no label) to "
             "public; answers bidder_id, prediction (outcome renamed)"),
        _stratified("prediction", id_column="bidder_id",
                    transforms=[{"op": "rename", "columns": {"outcome": "prediction"}}],
                    extra_public_files=["bids.csv"]),
        {"bidder_id": "seq:{i:037x}", "payment_account": "seq:a{i:036x}",
         "address": "seq:b{i:036x}", "outcome": "choice:0.0|1.0"},
        {"bidder_id": "seq:t{i:036x}", "payment_account": "seq:c{i:036x}",
         "address": "seq:d{i:036x}"},
        {"bidder_id": "seq:t{i:036x}", "prediction": "const:0"}, zipped=True,
        extra=(_t("bids.csv", {"bid_id": "seq:{i}", "bidder_id": "group:2:{g:037x}",
                               "auction": "choice:ewmzr|aeqok", "merchandise":
                                   "choice:jewelry|mobile", "device": "choice:phone0|phone35",
                               "time": "int:9631916842105263:9772885210526315",
                               "country": "choice:us|in", "ip": "seq:10.0.{i}.1",
                               "url": "choice:vasstdc27m7nks3|a3d2de7675556553a"},
                  zipped=True, rows=120),)),
    "kaggle/flavours-of-physics-kernels-only": _simple(
        dojo("flavours-of-physics-kernels-only",
             "unzips training.csv.zip, test.csv.zip, sample_submission.csv.zip, "
             "check_agreement.csv.zip, check_correlation.csv.zip; training.csv (id, features, "
             "production, signal, mass, min_ANNmuon); the public test keeps the columns of the "
             "official test.csv (no production, signal, mass, min_ANNmuon); answers id, "
             "prediction (signal) with min_ANNmuon, which the metric filters on"),
        _stratified("prediction", id_column="id",
                    transforms=[{"op": "rename", "columns": {"signal": "prediction"}}],
                    hidden_columns={"production": "test", "mass": "test",
                                    "min_ANNmuon": "test"},
                    extra_public_files=["check_agreement.csv", "check_correlation.csv"]),
        {"id": "seq:{i}", "LifeTime": "float:0:0.01", "dira": "float:0.99:1",
         "FlightDistance": "float:0:100", "IP": "float:0:1", "VertexChi2": "float:0:15",
         "pt": "float:0:20000", "SPDhits": "int:0:600", "production": "choice:-1|1|2",
         "signal": "choice:0|1", "mass": "float:1700:1850", "min_ANNmuon": "float:0:1"},
        {"id": "seq:t{i}", "LifeTime": "float:0:0.01", "dira": "float:0.99:1"},
        {"id": "seq:t{i}", "prediction": "const:0.5"}, zipped=True,
        names=("training.csv", "test.csv", "sample_submission.csv"),
        extra=(_t("check_agreement.csv", {"id": "seq:a{i}", "LifeTime": "float:0:0.01",
                                          "signal": "choice:0|1", "weight": "float:-1:2"},
                  zipped=True),
               _t("check_correlation.csv", {"id": "seq:c{i}", "LifeTime": "float:0:0.01",
                                            "mass": "float:1700:1850"}, zipped=True))),
    "kaggle/forest-cover-type-kernels-only": _simple(
        dojo("forest-cover-type-kernels-only",
             "unzips train.csv.zip, test.csv.zip, sample_submission.csv.zip; train.csv (Id, "
             "Elevation, ..., Soil_Type40, Cover_Type), stratified by Cover_Type; answers Id, "
             "Cover_Type"),
        _stratified("Cover_Type", id_column="Id"),
        {"Id": "seq:{i}", "Elevation": "int:1800:3900", "Aspect": "int:0:360",
         "Slope": "int:0:52", "Hillshade_9am": "int:0:255", "Wilderness_Area1": "choice:0|1",
         "Soil_Type40": "choice:0|1", "Cover_Type": "choice:1|2|3|4|5|6|7"},
        {"Id": "seq:t{i}", "Elevation": "int:1800:3900", "Aspect": "int:0:360"},
        {"Id": "seq:t{i}", "Cover_Type": "const:1"}, zipped=True, rows=70),
    "kaggle/givemesomecredit": _simple(
        dojo("GiveMeSomeCredit",
             "reads cs-training.csv (an unnamed row-number column, SeriousDlqin2yrs, "
             "RevolvingUtilizationOfUnsecuredLines, age, ..., NumberOfDependents), names the "
             "unnamed column Id; cs-test.csv, sampleEntry.csv (Id, Probability); answers Id, "
             "Probability (SeriousDlqin2yrs)"),
        _stratified("Probability", id_column="Id",
                    transforms=[{"op": "rename", "columns": {
                        "": "Id", "SeriousDlqin2yrs": "Probability"}}]),
        {"": "seq:{i}", "SeriousDlqin2yrs": "choice:0|1",
         "RevolvingUtilizationOfUnsecuredLines": "float:0:2", "age": "int:21:100",
         "NumberOfTime30-59DaysPastDueNotWorse": "int:0:5", "DebtRatio": "float:0:5",
         "MonthlyIncome": "int:0:20000", "NumberOfOpenCreditLinesAndLoans": "int:0:20",
         "NumberOfTimes90DaysLate": "int:0:5", "NumberRealEstateLoansOrLines": "int:0:5",
         "NumberOfTime60-89DaysPastDueNotWorse": "int:0:5", "NumberOfDependents": "int:0:5"},
        {"": "seq:{i}", "SeriousDlqin2yrs": "const:", "age": "int:21:100"},
        {"Id": "seq:{i}", "Probability": "const:0.08"},
        names=("cs-training.csv", "cs-test.csv", "sampleEntry.csv")),
    "kaggle/grupo-bimbo-inventory-demand": _simple(
        dojo("grupo-bimbo-inventory-demand",
             "unzips the download's zips; train.csv (Semana, Agencia_ID, Canal_ID, Ruta_SAK, "
             "Cliente_ID, Producto_ID, Venta_uni_hoy, Venta_hoy, Dev_uni_proxima, Dev_proxima, "
             "Demanda_uni_equil: no id column); the public test keeps id and the six keys "
             "(sales and returns derive the demand); copies cliente_tabla.csv, "
             "producto_tabla.csv, town_state.csv. The competition tests the weeks after the "
             "training weeks"),
        {"strategy": "time", "id_column": "id", "target_columns": ["Demanda_uni_equil"],
         "time_column": "Semana", "last_k_periods": 1,
         "transforms": [{"op": "row_number", "column": "id"}],
         "hidden_columns": {"Venta_uni_hoy": "test", "Venta_hoy": "test",
                            "Dev_uni_proxima": "test", "Dev_proxima": "test"},
         "extra_public_files": ["cliente_tabla.csv", "producto_tabla.csv", "town_state.csv"]},
        {"Semana": "int:3:9", "Agencia_ID": "int:1110:1120", "Canal_ID": "choice:1|7",
         "Ruta_SAK": "int:3301:3310", "Cliente_ID": "int:15766:15800",
         "Producto_ID": "int:1212:1240", "Venta_uni_hoy": "int:0:20",
         "Venta_hoy": "float:0:200", "Dev_uni_proxima": "int:0:3", "Dev_proxima": "float:0:30",
         "Demanda_uni_equil": "int:0:20"},
        {"id": "seq:{i}", "Semana": "choice:10|11", "Agencia_ID": "int:1110:1120"},
        {"id": "seq:{i}", "Demanda_uni_equil": "const:7"}, zipped=True, rows=70,
        extra=(_t("cliente_tabla.csv", {"Cliente_ID": "seq:{i}", "NombreCliente":
                                        "choice:SIN NOMBRE|OXXO XINANTECATL"}, zipped=True),
               _t("producto_tabla.csv", {"Producto_ID": "seq:{i}", "NombreProducto":
                                         "choice:Pan Blanco 460g BIM 1278"}, zipped=True),
               _t("town_state.csv", {"Agencia_ID": "seq:{i}", "Town": "choice:2008 AG. LAGO",
                                     "State": "choice:MÉXICO, D.F."}, zipped=True))),
    "kaggle/home-data-for-ml-course": _simple(
        dojo("home-data-for-ml-course", "reads train.csv (Id, MSSubClass, ..., SaleCondition, "
                                        "SalePrice) and test.csv; answers Id, SalePrice"),
        _random("SalePrice", id_column="Id"),
        {"Id": "seq:{i}", "MSSubClass": "choice:20|60", "MSZoning": "choice:RL|RM",
         "LotFrontage": "int:21:313", "LotArea": "int:1300:215245", "Street": "choice:Pave|Grvl",
         "SaleCondition": "choice:Normal|Abnorml", "SalePrice": "int:34900:755000"},
        {"Id": "seq:t{i}", "MSSubClass": "choice:20|60", "LotArea": "int:1300:215245"},
        {"Id": "seq:t{i}", "SalePrice": "const:169277.05"},
        files={"data_description.txt": "MSSubClass: Identifies the type of dwelling\n"}),
    "kaggle/homesite-quote-conversion": _simple(
        dojo("homesite-quote-conversion",
             "unzips the download's zips; train.csv (QuoteNumber, Original_Quote_Date, "
             "QuoteConversion_Flag, Field6, ..., GeographicField64); answers QuoteNumber, "
             "QuoteConversion_Flag"),
        _stratified("QuoteConversion_Flag", id_column="QuoteNumber"),
        {"QuoteNumber": "seq:{i}", "Original_Quote_Date": "date:2013-08-16",
         "QuoteConversion_Flag": "choice:0|1", "Field6": "choice:B|F|J",
         "PersonalField7": "choice:N|Y", "GeographicField64": "choice:CA|IL|NJ|TX"},
        {"QuoteNumber": "seq:t{i}", "Original_Quote_Date": "date:2014-08-12",
         "Field6": "choice:B|F"},
        {"QuoteNumber": "seq:t{i}", "QuoteConversion_Flag": "const:0"}, zipped=True),
    "kaggle/icr-identify-age-related-conditions": _simple(
        dojo("icr-identify-age-related-conditions",
             "reads train.csv (Id, AB, AF, ..., EJ, ..., GL, Class), test.csv; the download "
             "also holds greeks.csv (Alpha..Epsilon per Id: Alpha names the Class, so it is "
             "not public) and sample_submission.csv (Id, class_0, class_1)"),
        {"strategy": "random", "id_column": "Id", "target_columns": ["class_0", "class_1"],
         "test_size": 0.2, "transforms": [{"op": "one_hot", "column": "Class",
                                           "classes": ["0", "1"], "prefix": "class_"}]},
        {"Id": "seq:{i:012x}", "AB": "float:0:7", "AF": "float:190:28700",
         "BN": "float:9:30", "EJ": "choice:A|B", "GL": "float:0:22", "Class": "choice:0|1"},
        {"Id": "seq:t{i:011x}", "AB": "float:0:7", "EJ": "choice:A|B"},
        {"Id": "seq:t{i:011x}", "class_0": "const:0.5", "class_1": "const:0.5"},
        extra=(_t("greeks.csv", {"Id": "seq:{i:012x}", "Alpha": "choice:A|B|D|G",
                                 "Beta": "choice:A|B|C", "Gamma": "choice:M|N|H",
                                 "Delta": "choice:A|B|C|D", "Epsilon": "date:2019-01-01"}),)),
    "kaggle/instant-gratification": _simple(
        dojo_info("instant-gratification",
                  "train.csv (id, 255 named features incl. wheezy-copper-turtle-magic, "
                  "target), test.csv, sample_submission.csv (id, target)"),
        _stratified("target", id_column="id"),
        {"id": "seq:{i:032x}", "muggy-smalt-axolotl-pembus": "float:-5:5",
         "dorky-peach-sheepdog-ordinal": "float:-5:5",
         "wheezy-copper-turtle-magic": "int:0:511",
         "dorky-cerise-fox-hashkey": "float:-5:5", "target": "choice:0|1"},
        {"id": "seq:t{i:031x}", "muggy-smalt-axolotl-pembus": "float:-5:5",
         "wheezy-copper-turtle-magic": "int:0:511"},
        {"id": "seq:t{i:031x}", "target": "const:0.5"}),
    "kaggle/kobe-bryant-shot-selection": {
        "sources": dojo("kobe-bryant-shot-selection",
                        "unzips data.csv.zip and sample_submission.csv.zip; data.csv holds every "
                        "shot (action_type, ..., shot_made_flag, ..., shot_id); the shots "
                        "without shot_made_flag are the competition's test; answers shot_id, "
                        "shot_made_flag"),
        "split": {**_stratified("shot_made_flag", id_column="shot_id"), "train_file": "data.csv",
                  "transforms": [{"op": "drop_rows", "column": "shot_made_flag",
                                  "rule": "empty", "reason": "the competition's test shots "
                                                            "have no label"}]},
        "fixture": {"rows": 80, "tables": [
            _t("data.csv", {
                "action_type": "choice:Jump Shot|Dunk Shot|Layup Shot",
                "combined_shot_type": "choice:Jump Shot|Dunk|Layup", "game_event_id":
                    "int:1:650", "game_id": "int:20000012:49900088", "lat": "float:33.2:34.1",
                "loc_x": "int:-250:248", "loc_y": "int:-44:791", "lon": "float:-118.5:-118",
                "minutes_remaining": "int:0:11", "period": "int:1:4", "playoffs":
                    "choice:0|1", "season": "choice:2000-01|2008-09", "seconds_remaining":
                    "int:0:59", "shot_distance": "int:0:79", "shot_made_flag": "choice:0.0|1.0|",
                "shot_type": "choice:2PT Field Goal|3PT Field Goal",
                "shot_zone_area": "choice:Center(C)|Left Side(L)", "shot_zone_basic":
                    "choice:Mid-Range|Restricted Area", "shot_zone_range": "choice:16-24 ft.",
                "team_id": "const:1610612747", "team_name": "const:Los Angeles Lakers",
                "game_date": "date:2000-10-31", "matchup": "choice:LAL @ POR|LAL vs. UTA",
                "opponent": "choice:POR|UTA", "shot_id": "seq:{i}"}, zipped=True),
            _t("sample_submission.csv", {"shot_id": "seq:{i}", "shot_made_flag": "const:0.5"},
               zipped=True, rows=20),
        ]},
    },
    "kaggle/liberty-mutual-group-property-inspection-prediction": _simple(
        dojo("liberty-mutual-group-property-inspection-prediction",
             "unzips train.csv.zip, test.csv.zip, sample_submission.csv.zip; train.csv (Id, "
             "Hazard, T1_V1..T2_V15); answers Id, Hazard"),
        _random("Hazard", id_column="Id"),
        {"Id": "seq:{i}", "Hazard": "int:1:69", "T1_V1": "int:1:19", "T1_V4": "choice:N|B|C",
         "T2_V15": "int:1:12"},
        {"Id": "seq:t{i}", "T1_V1": "int:1:19", "T1_V4": "choice:N|B"},
        {"Id": "seq:t{i}", "Hazard": "const:0"}, zipped=True),
    "kaggle/loan-default-prediction": _simple(
        dojo("loan-default-prediction",
             "reads the training table (train_v2.csv: id, f1..f778, loss) and the test table "
             "(test_v2.csv); answers id, loss"),
        _random("loss", id_column="id"),
        {"id": "seq:{i}", "f1": "int:1:200", "f2": "int:1:200", "f3": "float:0:30",
         "f776": "choice:0|1", "f777": "float:0:1", "f778": "int:0:100",
         "loss": "int:0:100"},
        {"id": "seq:t{i}", "f1": "int:1:200", "f778": "int:0:100"},
        {"id": "seq:t{i}", "loss": "const:0"}, zipped=True,
        names=("train_v2.csv", "test_v2.csv", "sampleSubmission.csv")),
    "kaggle/mercedes-benz-greener-manufacturing": _simple(
        dojo("mercedes-benz-greener-manufacturing",
             "unzips test.csv.zip, train.csv.zip, sample_submission.csv.zip; train.csv (ID, y, "
             "X0..X8, X10..X385); answers ID, y"),
        _random("y", id_column="ID", test_size=0.2),
        {"ID": "seq:{i}", "y": "float:72:265", "X0": "choice:k|az|t", "X8": "choice:o|x",
         "X10": "choice:0|1", "X385": "choice:0|1"},
        {"ID": "seq:t{i}", "X0": "choice:k|az", "X385": "choice:0|1"},
        {"ID": "seq:t{i}", "y": "const:100"}, zipped=True),
    "kaggle/poker-rule-induction": _simple(
        dojo("poker-rule-induction",
             "unzips train.csv.zip, test.csv.zip, sampleSubmission.csv.zip; train.csv (S1, C1, "
             "..., S5, C5, hand: no id column); numbers the test rows from 1 as their id; "
             "answers id, hand"),
        _stratified("hand", id_column="id",
                    transforms=[{"op": "row_number", "column": "id", "start": 1}]),
        {**{f"{k}{n}": ("int:1:4" if k == "S" else "int:1:13")
            for n in range(1, 6) for k in "SC"}, "hand": "choice:0|1|2|3"},
        {"id": "seq:{i}", **{f"{k}{n}": ("int:1:4" if k == "S" else "int:1:13")
                             for n in range(1, 6) for k in "SC"}},
        {"id": "seq:{i}", "hand": "const:0"}, zipped=True, rows=80,
        names=("train.csv", "test.csv", "sampleSubmission.csv")),
    "kaggle/porto-seguro-safe-driver-prediction": _simple(
        dojo_info("porto-seguro-safe-driver-prediction",
                  "train.csv (id, target, ps_ind_*, ps_reg_*, ps_car_*, ps_calc_*; -1 for "
                  "missing), test.csv, sample_submission.csv (id, target)"),
        _stratified("target", id_column="id"),
        {"id": "seq:{i}", "target": "choice:0|1", "ps_ind_01": "int:0:7",
         "ps_ind_02_cat": "int:-1:4", "ps_reg_01": "float:0:0.9", "ps_car_01_cat": "int:-1:11",
         "ps_calc_20_bin": "choice:0|1"},
        {"id": "seq:t{i}", "ps_ind_01": "int:0:7", "ps_calc_20_bin": "choice:0|1"},
        {"id": "seq:t{i}", "target": "const:0.0364"}),
    "kaggle/predicting-red-hat-business-value": _simple(
        dojo("predicting-red-hat-business-value",
             "unzips act_train.csv.zip, act_test.csv.zip, people.csv.zip, "
             "sample_submission.csv.zip; act_train.csv (people_id, activity_id, date, "
             "activity_category, char_1..char_10, outcome); copies people.csv; answers "
             "activity_id, outcome. The competition's test people are not in the training "
             "activities, so whole people go to the local test"),
        {"strategy": "group", "id_column": "activity_id", "target_columns": ["outcome"],
         "group_column": "people_id", "test_size": 0.1, "extra_public_files": ["people.csv"]},
        {"people_id": "group:3:ppl_{g}", "activity_id": "seq:act2_{i}",
         "date": "date:2022-07-01", "activity_category": "choice:type 1|type 2|type 4",
         "char_1": "choice:type 1|", "char_10": "choice:type 76|type 1|",
         "outcome": "choice:0|1"},
        {"people_id": "group:3:ppl_t{g}", "activity_id": "seq:act1_{i}",
         "date": "date:2022-07-01", "activity_category": "choice:type 1|type 4"},
        {"activity_id": "seq:act1_{i}", "outcome": "const:0"}, zipped=True, rows=90,
        names=("act_train.csv", "act_test.csv", "sample_submission.csv"),
        extra=(_t("people.csv", {"people_id": "group:1:ppl_{g}", "char_1": "choice:type 1|type 2",
                                 "group_1": "choice:group 17304|group 8688",
                                 "char_2": "choice:type 2|type 3", "date": "date:2021-06-29",
                                 "char_38": "int:0:100"}, zipped=True),)),
    "kaggle/prudential-life-insurance-assessment": _simple(
        dojo("prudential-life-insurance-assessment",
             "unzips train.csv.zip, test.csv.zip, sample_submission.csv.zip; train.csv (Id, "
             "Product_Info_1..7, Ins_Age, Ht, Wt, BMI, ..., Medical_Keyword_48, Response), split "
             "by Response; answers Id, Response"),
        _stratified("Response", id_column="Id"),
        {"Id": "seq:{i}", "Product_Info_1": "choice:1|2", "Product_Info_2": "choice:D3|A1|E1",
         "Ins_Age": "float:0:1", "Ht": "float:0:1", "Wt": "float:0:1", "BMI": "float:0:1",
         "Medical_Keyword_48": "choice:0|1", "Response": "choice:1|2|3|4|5|6|7|8"},
        {"Id": "seq:t{i}", "Product_Info_1": "choice:1|2", "BMI": "float:0:1"},
        {"Id": "seq:t{i}", "Response": "const:8"}, zipped=True, rows=80),
    "kaggle/pubg-finish-placement-prediction": _simple(
        dojo("pubg-finish-placement-prediction",
             "unzips train_V2.csv.zip and test_V2.csv.zip; train_V2.csv (Id, groupId, matchId, "
             "assists, ..., winPoints, winPlacePerc); answers Id, winPlacePerc. The "
             "competition's test matches are not in the training data, so whole matches go "
             "to the local test; one training player has no winPlacePerc"),
        {"strategy": "group", "id_column": "Id", "target_columns": ["winPlacePerc"],
         "group_column": "matchId", "test_size": 0.1,
         "transforms": [{"op": "drop_rows", "column": "winPlacePerc", "rule": "empty",
                         "reason": "a match of one player has no placement"}]},
        {"Id": "seq:{i:014x}", "groupId": "group:2:{g:014x}", "matchId": "group:6:m{g:013x}",
         "assists": "int:0:5", "boosts": "int:0:10", "damageDealt": "float:0:1000",
         "kills": "int:0:10", "matchType": "choice:squad-fpp|duo|solo",
         "walkDistance": "float:0:5000", "winPoints": "int:0:1800",
         "winPlacePerc": "float:0:1"},
        {"Id": "seq:t{i:013x}", "groupId": "group:2:t{g:013x}", "matchId": "group:6:t{g:013x}",
         "kills": "int:0:10"},
        {"Id": "seq:t{i:013x}", "winPlacePerc": "const:0.5"}, zipped=True, rows=120,
        names=("train_V2.csv", "test_V2.csv", "sample_submission_V2.csv")),
    "kaggle/rossmann-store-sales": _simple(
        dojo("rossmann-store-sales",
             "reads train.csv (Store, DayOfWeek, Date, Sales, Customers, Open, Promo, "
             "StateHoliday, SchoolHoliday: no id column) and test.csv (Id, the same without "
             "Sales and Customers); copies store.csv. The competition tests the six weeks after "
             "the training data, so later dates are the local test; Customers is hidden from "
             "the test rows, as in the competition"),
        {"strategy": "time", "id_column": "Id", "target_columns": ["Sales"],
         "time_column": "Date", "test_size": 0.1, "hidden_columns": {"Customers": "test"},
         "transforms": [{"op": "compose_id", "column": "Id", "template": "{Store}_{Date}"}],
         "extra_public_files": ["store.csv"]},
        {"Store": "int:1:1115", "DayOfWeek": "int:1:7", "Date": "date:2013-01-01",
         "Sales": "int:1000:20000", "Customers": "int:100:3000", "Open": "const:1",
         "Promo": "choice:0|1", "StateHoliday": "choice:0|a", "SchoolHoliday": "choice:0|1"},
        {"Id": "seq:{i}", "Store": "int:1:1115", "DayOfWeek": "int:1:7",
         "Date": "date:2015-08-01", "Open": "choice:0|1"},
        {"Id": "seq:{i}", "Sales": "const:0"},
        extra=(_t("store.csv", {"Store": "seq:{i}", "StoreType": "choice:a|b|c|d",
                                "Assortment": "choice:a|c", "CompetitionDistance":
                                    "int:20:75000", "Promo2": "choice:0|1"}),)),
    "kaggle/santander-customer-satisfaction": _simple(
        dojo_info("santander-customer-satisfaction",
                  "train.csv (ID, var3, var15, ..., var38, TARGET), test.csv, "
                  "sample_submission.csv (ID, TARGET)"),
        _stratified("TARGET", id_column="ID"),
        {"ID": "seq:{i}", "var3": "int:-999999:238", "var15": "int:5:105",
         "imp_ent_var16_ult1": "float:0:210000", "var38": "float:5163:22034738",
         "TARGET": "choice:0|1"},
        {"ID": "seq:t{i}", "var3": "int:0:238", "var38": "float:5163:22034738"},
        {"ID": "seq:t{i}", "TARGET": "const:0"}),
    "kaggle/santander-customer-transaction-prediction": _simple(
        dojo_info("santander-customer-transaction-prediction",
                  "train.csv (ID_code, target, var_0..var_199), test.csv, "
                  "sample_submission.csv (ID_code, target)"),
        _stratified("target", id_column="ID_code"),
        {"ID_code": "seq:train_{i}", "target": "choice:0|1", "var_0": "float:0:20",
         "var_1": "float:-15:10", "var_199": "float:-20:10"},
        {"ID_code": "seq:test_{i}", "var_0": "float:0:20", "var_199": "float:-20:10"},
        {"ID_code": "seq:test_{i}", "target": "const:0"}),
    "kaggle/santander-value-prediction-challenge": _simple(
        dojo_info("santander-value-prediction-challenge",
                  "train.csv (ID, target, 4991 columns named by hashes), test.csv, "
                  "sample_submission.csv (ID, target)"),
        _random("target", id_column="ID"),
        {"ID": "seq:{i:09x}", "target": "float:30000:40000000", "48df886f9": "float:0:2e7",
         "0deb4b6a8": "int:0:1000000", "9fc776466": "float:0:2e7"},
        {"ID": "seq:{i:08x}t", "48df886f9": "float:0:2e7", "9fc776466": "float:0:2e7"},
        {"ID": "seq:{i:08x}t", "target": "const:5944923.322036332"}),
    "kaggle/sberbank-russian-housing-market": _simple(
        dojo("sberbank-russian-housing-market",
             "unzips train.csv.zip, test.csv.zip, macro.csv.zip, sample_submission.csv.zip; "
             "sorts train.csv (id, timestamp, full_sq, ..., price_doc) by timestamp and tests "
             "the last months; copies macro.csv and data_dictionary.txt"),
        {"strategy": "time", "id_column": "id", "target_columns": ["price_doc"],
         "time_column": "timestamp", "test_size": 0.2,
         "extra_public_files": ["macro.csv", "data_dictionary.txt"]},
        {"id": "seq:{i}", "timestamp": "date:2011-08-20", "full_sq": "int:10:200",
         "life_sq": "int:5:150", "floor": "int:1:30", "product_type":
             "choice:Investment|OwnerOccupier", "sub_area": "choice:Bibirevo|Nagatinskij Zaton",
         "price_doc": "int:100000:100000000"},
        {"id": "seq:t{i}", "timestamp": "date:2015-07-01", "full_sq": "int:10:200"},
        {"id": "seq:t{i}", "price_doc": "const:7379175"}, zipped=True,
        extra=(_t("macro.csv", {"timestamp": "date:2010-01-01", "oil_urals": "float:40:120",
                                "gdp_quart": "float:9000:20000", "cpi": "float:300:500"},
                  zipped=True),),
        files={"data_dictionary.txt": "price_doc: sale price (this is the target variable)\n"}),
    "kaggle/titanic": _simple(
        dojo_info("titanic", "train.csv (PassengerId, Survived, Pclass, Name, Sex, Age, SibSp, "
                             "Parch, Ticket, Fare, Cabin, Embarked), test.csv, "
                             "gender_submission.csv (PassengerId, Survived)"),
        _stratified("Survived", id_column="PassengerId"),
        {"PassengerId": "seq:{i}", "Survived": "choice:0|1", "Pclass": "choice:1|2|3",
         "Name": "text", "Sex": "choice:male|female", "Age": "int:1:80", "SibSp": "int:0:5",
         "Parch": "int:0:4", "Ticket": "seq:A/5 {i}", "Fare": "float:0:500",
         "Cabin": "choice:|C85|E46", "Embarked": "choice:S|C|Q"},
        {"PassengerId": "seq:t{i}", "Pclass": "choice:1|2|3", "Name": "text",
         "Sex": "choice:male|female"},
        {"PassengerId": "seq:t{i}", "Survived": "choice:0|1"},
        names=("train.csv", "test.csv", "gender_submission.csv")),
    "kaggle/walmart-recruiting-store-sales-forecasting": _simple(
        dojo("walmart-recruiting-store-sales-forecasting",
             "unzips train.csv.zip, test.csv.zip, sampleSubmission.csv.zip, features.csv.zip; "
             "train.csv (Store, Dept, Date, Weekly_Sales, IsHoliday: no id column); answers Id "
             "(Store_Dept_Date, as in sampleSubmission.csv), Weekly_Sales; copies features.csv "
             "and stores.csv. The competition tests the weeks after the training weeks; "
             "IsHoliday stays (holiday weeks weigh 5 in the metric)"),
        {"strategy": "time", "id_column": "Id", "target_columns": ["Weekly_Sales"],
         "time_column": "Date", "test_size": 0.1,
         "transforms": [{"op": "compose_id", "column": "Id",
                         "template": "{Store}_{Dept}_{Date}"}],
         "extra_public_files": ["features.csv", "stores.csv"]},
        {"Store": "int:1:45", "Dept": "int:1:99", "Date": "date:2010-02-05",
         "Weekly_Sales": "float:-500:60000", "IsHoliday": "choice:False|True"},
        {"Store": "int:1:45", "Dept": "int:1:99", "Date": "date:2012-11-02",
         "IsHoliday": "choice:False|True"},
        {"Id": "seq:1_1_2012-11-{i:02d}", "Weekly_Sales": "const:0"}, zipped=True,
        names=("train.csv", "test.csv", "sampleSubmission.csv"),
        extra=(_t("features.csv", {"Store": "int:1:45", "Date": "date:2010-02-05",
                                   "Temperature": "float:-7:101", "Fuel_Price": "float:2:5",
                                   "MarkDown1": "float:0:90000", "CPI": "float:126:228",
                                   "IsHoliday": "choice:False|True"}, zipped=True),
               _t("stores.csv", {"Store": "seq:{i}", "Type": "choice:A|B|C",
                                 "Size": "int:34875:219622"}, rows=45))),
    "kaggle/acquire-valued-shoppers-challenge": {
        "sources": dojo("acquire-valued-shoppers-challenge",
                        "gunzips trainHistory.csv.gz (id, chain, offer, market, repeattrips, "
                        "repeater t/f, offerdate), testHistory.csv.gz, offers.csv.gz, "
                        "transactions.csv.gz (purchases before each customer's offer); answers "
                        "id, repeatProbability (repeater as 1/0); repeattrips leaves the test "
                        "rows. The competition's test offers came after the training offers"),
        "split": {"strategy": "time", "train_file": "trainHistory.csv", "id_column": "id",
                  "target_columns": ["repeatProbability"], "time_column": "offerdate",
                  "test_size": 0.2, "hidden_columns": {"repeattrips": "test"},
                  "transforms": [
                      {"op": "map_values", "column": "repeater", "mapping": {"t": "1", "f": "0"}},
                      {"op": "rename", "columns": {"repeater": "repeatProbability"}}],
                  "extra_public_files": ["offers.csv", "transactions.csv"]},
        "fixture": {"tables": [
            _t("trainHistory.csv", {"id": "seq:{i}", "chain": "int:2:526",
                                    "offer": "choice:1194044|1197502|1204576",
                                    "market": "int:1:96", "repeattrips": "int:0:5",
                                    "repeater": "choice:t|f", "offerdate": "date:2013-03-01"},
               archive="trainHistory.csv.gz"),
            _t("testHistory.csv", {"id": "seq:t{i}", "chain": "int:2:526",
                                   "offer": "choice:1230218|1221658", "market": "int:1:96",
                                   "offerdate": "date:2013-05-01"}, archive="testHistory.csv.gz"),
            _t("offers.csv", {"offer": "choice:1194044|1197502|1204576", "category":
                              "int:706:9909", "quantity": "int:1:2", "company": "int:104127141:"
                              "1089520383", "offervalue": "float:0.75:5", "brand": "int:875:"
                              "102504"}, archive="offers.csv.gz", rows=12),
            _t("transactions.csv", {"id": "group:4:{g}", "chain": "int:2:526",
                                    "dept": "int:0:99", "category": "int:0:9999",
                                    "company": "int:10000:1089520383", "brand": "int:0:108000",
                                    "date": "date:2012-03-02", "productsize": "float:0:100",
                                    "productmeasure": "choice:OZ|CT|LB",
                                    "purchasequantity": "int:1:4",
                                    "purchaseamount": "float:0:20"},
               archive="transactions.csv.gz", rows=160),
            _t("sampleSubmission.csv", {"id": "seq:t{i}", "repeatProbability": "const:0"},
               archive="sampleSubmission.csv.gz"),
        ]},
    },
    "kaggle/avazu-ctr-prediction": {
        "sources": dojo("avazu-ctr-prediction",
                        "gunzips train.gz, test.gz and sampleSubmission.gz (CSV tables without "
                        "an extension); train (id, click, hour YYMMDDHH, C1, banner_pos, "
                        "site_*, app_*, device_*, C14..C21); answers id, click. The "
                        "competition's test is the day after the ten training days, so the "
                        "later hours are the local test"),
        "split": {"strategy": "time", "train_file": "train", "id_column": "id",
                  "target_columns": ["click"], "time_column": "hour", "test_size": 0.1},
        "fixture": {"rows": 80, "tables": [
            _t("train", {"id": "seq:{i}000000000000", "click": "choice:0|1",
                         "hour": "int:14102100:14103023", "C1": "choice:1005|1002",
                         "banner_pos": "choice:0|1", "site_id": "choice:1fbe01fe|85f751fd",
                         "site_domain": "choice:f3845767|c4e18dd6",
                         "site_category": "choice:28905ebd|50e219e0",
                         "app_id": "choice:ecad2386|92f5800b", "app_domain": "choice:7801e8d9",
                         "app_category": "choice:07d7df22|0f2161f8",
                         "device_id": "choice:a99f214a|0f7c61dc", "device_ip": "seq:{i:08x}",
                         "device_model": "choice:44956a24|711ee120", "device_type": "choice:1|0",
                         "device_conn_type": "choice:0|2", "C14": "int:375:24052",
                         "C15": "choice:320|300", "C16": "choice:50|250", "C17": "int:112:2758",
                         "C18": "choice:0|1|2|3", "C19": "int:33:1959", "C20": "int:-1:100248",
                         "C21": "int:1:255"}, archive="train.gz"),
            _t("test", {"id": "seq:{i}111111111111", "hour": "int:14103100:14103123",
                        "C1": "choice:1005|1002", "banner_pos": "choice:0|1"},
               archive="test.gz"),
            _t("sampleSubmission", {"id": "seq:{i}111111111111", "click": "const:0.5"},
               archive="sampleSubmission.gz"),
        ]},
    },
    "kaggle/integer-sequence-learning": _simple(
        dojo("integer-sequence-learning",
             "unzips the download's zips; train.csv (Id, Sequence: the terms, comma-separated), "
             "test.csv, sample_submission.csv (Id, Last); the local test rows lose their last "
             "term, which the answers hold as Last"),
        _random("Last", id_column="Id", transforms=[
            {"op": "split_last", "column": "Sequence", "into": "Last", "separator": ","}]),
        {"Id": "seq:{i}", "Sequence": "ints:0:99:7"},
        {"Id": "seq:t{i}", "Sequence": "ints:0:99:5"},
        {"Id": "seq:t{i}", "Last": "const:0"}, zipped=True),
    "kaggle/novozymes-enzyme-stability-prediction": _simple(
        dojo("novozymes-enzyme-stability-prediction",
             "reads train.csv (seq_id, protein_sequence, pH, data_source, tm) and applies "
             "train_updates_20220929.csv (the same columns: rows with every value empty are "
             "void, the others correct swapped pH and tm); test.csv, sample_submission.csv "
             "(seq_id, tm), wildtype_structure_prediction_af2.pdb beside them; answers "
             "seq_id, tm"),
        _random("tm", id_column="seq_id", transforms=[
            {"op": "update_rows", "file": "train_updates_20220929.csv", "key": "seq_id"}],
            extra_public_files=["wildtype_structure_prediction_af2.pdb"]),
        {"seq_id": "seq:{i}", "protein_sequence": "seq:AAAAKAAALALLGEAPEVVDIWLPAE{i}",
         "pH": "float:2:11", "data_source": "choice:doi.org/10.1038/s41592-020-0801-4|",
         "tm": "float:25:130"},
        {"seq_id": "seq:{i}", "protein_sequence": "seq:VPVNPEPDATSVENVAEKTGSGDSQSDPIKADLEVKG{i}",
         "pH": "const:8", "data_source": "const:Novozymes"},
        {"seq_id": "seq:{i}", "tm": "const:0"},
        extra=(_t("train_updates_20220929.csv", {
            "seq_id": "seq:{i}", "protein_sequence": "choice:|AAAAKAAALALLGEAPEVVDIWLPAE",
            "pH": "choice:|7.0", "data_source": "const:", "tm": "choice:|48.4"}, rows=12),),
        files={"wildtype_structure_prediction_af2.pdb": "ATOM      1  N   VAL A   1\n"}),
}
