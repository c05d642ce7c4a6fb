"""Recipes and raw fixtures for the real downloads: the playground group (merged into fill_layouts).

Same entry format as :mod:`recipe_layouts` (sources, split, fixture), helpers imported from it.

The playground and tabular-playground competitions ship ``train.csv`` (the id, the features,
the target), ``test.csv`` (the same without the target) and ``sample_submission.csv`` at the
top of the download. MLE-Dojo's ``prepare.py`` for each is empty (the download is used as it
is); its ``info/description.txt`` names the files, the target and the submission's columns.
A fixture lists the id, some features in file order (the first ones and those the recipe
reads) and the target. Where the competition split its test off in time (later dates) or by
group (products unseen in training), the recipe does the same.
"""

from __future__ import annotations

from typing import Any

from recipe_layouts import DOJO_COMMIT, dojo, page

LAYOUTS: dict[str, dict[str, Any]] = {}

_BIN = "choice:0|1"


def _dojo_info(folder: str, detail: str) -> list[dict[str, str]]:
    """MLE-Dojo's copy of the competition's page (its description.txt) as the source."""
    return [{"source": "github:MLE-Dojo/MLE-Dojo", "commit": DOJO_COMMIT,
             "path": f"mledojo/competitions/{folder}/info/description.txt", "detail": detail}]


def _sources(slug: str, columns: list[str], in_dojo: bool, note: str) -> list[dict[str, str]]:
    shown = ", ".join(columns[:6]) + (", ..., " + columns[-1] if len(columns) > 6 else "")
    detail = ("train.csv, test.csv (without the target), sample_submission.csv at the top of "
              f"the download; train.csv columns {shown}" + (f"; {note}" if note else ""))
    out = page(slug, detail)
    if in_dojo:
        out += dojo(slug, "empty: the download is used as Kaggle gives it") + _dojo_info(
            slug, "the files, the target and the submission's header")
    return out


def _task(slug: str, features: dict[str, str], targets: dict[str, str],
          sample: dict[str, str], *, idc: str = "id", split: dict[str, Any] | None = None,
          in_dojo: bool = True, note: str = "", sub_id: str = "",
          extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One playground task: train.csv (``idc``, ``features``, ``targets``), test.csv,
    sample_submission.csv (``sub_id`` or ``idc``, ``sample`` values); ``split`` holds the
    strategy and its fields (default: random for one numeric target, else stratified)."""
    names = list(targets)
    if split is None:
        one_class = len(names) == 1 and targets[names[0]].startswith("choice:")
        split = ({"strategy": "stratified", "stratify_column": names[0]} if one_class
                 else {"strategy": "random"})
    if split["strategy"] in ("random", "stratified", "group"):
        split = {**split, "test_size": 0.1}
    test_id = "seq:9{i:04d}"
    columns = {idc: "seq:{i}", **features, **targets}
    return {
        "sources": _sources(slug, list(columns), in_dojo, note),
        "split": {"train_file": "train.csv", "id_column": sub_id or idc,
                  "target_columns": names, **split},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": columns},
            {"path": "test.csv", "columns": {idc: test_id, **features}},
            {"path": "sample_submission.csv", "columns": {
                sub_id or idc: test_id, **{t: f"const:{v}" for t, v in sample.items()}}},
            *(extra or []),
        ]},
    }


_S4E3 = ["Pastry", "Z_Scratch", "K_Scatch", "Stains", "Dirtiness", "Bumps", "Other_Faults"]
_OBESITY = ("Insufficient_Weight|Normal_Weight|Overweight_Level_I|Overweight_Level_II|"
            "Obesity_Type_I|Obesity_Type_II|Obesity_Type_III")
_SALES = {"date": "date:2017-01-01", "country": "choice:Belgium|France|Germany|Italy",
          "store": "choice:KaggleMart|KaggleRama", "product": "choice:Kaggle Advanced Techniques|"
          "Kaggle Getting Started|Kaggle Recipe Book"}
_JAN22 = {"date": "date:2015-01-01", "country": "choice:Finland|Norway|Sweden",
          "store": "choice:KaggleMart|KaggleRama", "product": "choice:Kaggle Mug|Kaggle Hat|"
          "Kaggle Sticker"}

_BACKPACK = {"Brand": "choice:Jansport|Under Armour|Nike|Adidas|Puma",
            "Material": "choice:Leather|Canvas|Nylon|Polyester",
            "Size": "choice:Medium|Small|Large",
            "Compartments": "float:1:10", "Laptop Compartment": "choice:Yes|No",
            "Waterproof": "choice:No|Yes", "Style": "choice:Tote|Messenger|Backpack",
            "Color": "choice:Black|Green|Red|Blue|Gray|Pink",
            "Weight Capacity (kg)": "float:5:30"}

LAYOUTS.update({
    "kaggle/playground-series-s4e1": _task(
        "playground-series-s4e1",
        {"CustomerId": "int:15565701:15815690", "Surname": "choice:Okwudilichukwu|Hsia|Chu",
         "CreditScore": "int:350:850", "Geography": "choice:France|Spain|Germany",
         "Gender": "choice:Male|Female", "Age": "float:18:92", "Tenure": "int:0:10",
         "Balance": "float:0:250000", "NumOfProducts": "int:1:4", "HasCrCard": _BIN,
         "IsActiveMember": _BIN, "EstimatedSalary": "float:11:200000"},
        {"Exited": _BIN}, {"Exited": "0.5"}),
    "kaggle/playground-series-s4e12": _task(
        "playground-series-s4e12",
        {"Age": "float:18:64", "Gender": "choice:Female|Male", "Annual Income": "float:1:150000",
         "Marital Status": "choice:Married|Divorced|Single", "Number of Dependents": "int:0:4",
         "Education Level": "choice:Bachelor's|Master's|High School|PhD",
         "Occupation": "choice:Self-Employed|Employed|Unemployed",
         "Health Score": "float:2:60", "Location": "choice:Urban|Rural|Suburban",
         "Policy Type": "choice:Premium|Comprehensive|Basic", "Previous Claims": "int:0:9",
         "Vehicle Age": "int:0:19", "Credit Score": "int:300:849",
         "Insurance Duration": "int:1:9", "Policy Start Date": "seq:2023-12-23 15:21:39.{i}",
         "Customer Feedback": "choice:Poor|Average|Good", "Smoking Status": "choice:No|Yes",
         "Exercise Frequency": "choice:Weekly|Monthly|Daily|Rarely",
         "Property Type": "choice:House|Apartment|Condo"},
        {"Premium Amount": "float:20:4999"}, {"Premium Amount": "1102.5"}, in_dojo=False),
    "kaggle/playground-series-s4e2": _task(
        "playground-series-s4e2",
        {"Gender": "choice:Male|Female", "Age": "float:14:61", "Height": "float:1.45:1.98",
         "Weight": "float:39:165", "family_history_with_overweight": "choice:yes|no",
         "FAVC": "choice:yes|no", "FCVC": "float:1:3", "NCP": "float:1:4",
         "CAEC": "choice:Sometimes|Frequently|Always|no", "SMOKE": "choice:no|yes",
         "CH2O": "float:1:3", "SCC": "choice:no|yes", "FAF": "float:0:3", "TUE": "float:0:2",
         "CALC": "choice:Sometimes|no|Frequently",
         "MTRANS": "choice:Public_Transportation|Automobile|Walking|Motorbike|Bike"},
        {"NObeyesdad": "choice:" + _OBESITY}, {"NObeyesdad": "Normal_Weight"}),
    "kaggle/playground-series-s4e3": _task(
        "playground-series-s4e3",
        {"X_Minimum": "int:0:1705", "X_Maximum": "int:4:1713", "Y_Minimum": "int:6712:12987",
         "Y_Maximum": "int:6724:12987", "Pixels_Areas": "int:6:152655",
         "Steel_Plate_Thickness": "int:40:300", "Orientation_Index": "float:-0.99:0.99",
         "Luminosity_Index": "float:-0.99:0.64"},
        {t: _BIN for t in _S4E3}, {t: "0.5" for t in _S4E3},
        note="seven 0/1 fault columns, one prediction column each in the submission"),
    "kaggle/playground-series-s4e7": _task(
        "playground-series-s4e7",
        {"Gender": "choice:Male|Female", "Age": "int:20:85", "Driving_License": _BIN,
         "Region_Code": "float:0:52", "Previously_Insured": _BIN,
         "Vehicle_Age": "choice:1-2 Year|< 1 Year|> 2 Years", "Vehicle_Damage": "choice:Yes|No",
         "Annual_Premium": "float:2630:540165", "Policy_Sales_Channel": "float:1:163",
         "Vintage": "int:10:299"},
        {"Response": _BIN}, {"Response": "0.5"}, in_dojo=False),
    "kaggle/playground-series-s5e2": _task(
        "playground-series-s5e2",
        _BACKPACK,
        {"Price": "float:15:150"}, {"Price": "81.411"}, in_dojo=False,
        split={"strategy": "random", "extra_public_files": ["training_extra.csv"]},
        note="training_extra.csv: more training rows with the same columns, published as is",
        extra=[{"path": "training_extra.csv", "columns": {
            "id": "seq:5{i:05d}", **_BACKPACK, "Price": "float:15:150"}}]),
    "kaggle/playground-series-s5e5": _task(
        "playground-series-s5e5",
        {"Sex": "choice:male|female", "Age": "int:20:79", "Height": "float:126:222",
         "Weight": "float:36:132", "Duration": "float:1:30", "Heart_Rate": "float:67:128",
         "Body_Temp": "float:37.1:41.5"},
        {"Calories": "float:1:314"}, {"Calories": "88.283"}, in_dojo=False),
})
