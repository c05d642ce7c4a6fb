"""Recipes and raw fixtures for the real downloads: the tabular group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.
Most layouts were read from MLE-Dojo's prepare.py of the competition (the files it unzips and
reads, the columns it renames); where that script is empty, from the competition's description
kept beside it (its file list) and the data page.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import DOJO_COMMIT, dojo, page


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
            extra: tuple[dict[str, Any], ...] = (), rows: int = 60) -> dict[str, Any]:
    """A download of a training table, a test table and a sample submission (each zipped when
    ``zipped``), plus ``extra`` tables; the recipe splits the training table."""
    tr, te, sa = names
    tables = [_t(tr, train, zipped=zipped), _t(te, test, zipped=zipped),
              _t(sa, sub, zipped=zipped), *extra]
    return {"sources": sources, "split": {"train_file": tr, **split},
            "fixture": {"rows": rows, "tables": tables}}


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
}
