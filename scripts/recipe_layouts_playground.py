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


def _sources(slug: str, columns: list[str], targets: list[str], in_dojo: bool,
             note: str) -> list[dict[str, str]]:
    shown = ", ".join(columns[:6]) + (", ..., " + columns[-1] if len(columns) > 6 else "")
    detail = ("train.csv, test.csv (without the target), sample_submission.csv at the top of "
              f"the download; train.csv columns {shown}; the target "
              + ", ".join(targets) + (f"; {note}" if note else ""))
    out = page(slug, detail)
    if in_dojo:
        out += dojo(slug, "empty: the download is used as Kaggle gives it") + _dojo_info(
            slug, "the files, the target and the submission's header")
    return out


def _task(slug: str, features: dict[str, str], targets: dict[str, str],
          sample: dict[str, str], *, idc: str = "id", split: dict[str, Any] | None = None,
          in_dojo: bool = True, note: str = "", sub_id: str = "",
          extra: list[dict[str, Any]] | None = None,
          after: dict[str, str] | None = None,
          ids: tuple[str, str] = ("seq:{i}", "seq:9{i:04d}")) -> dict[str, Any]:
    """One playground task: train.csv (``idc``, ``features``, ``targets``, then the features
    ``after`` them), test.csv (the same without ``targets``), sample_submission.csv
    (``sub_id`` or ``idc``, ``sample`` values); ``split`` holds the strategy and its fields
    (default: stratified for one class column, else random); ``ids`` the kinds of the
    training and test ids."""
    names = list(targets)
    if split is None:
        one_class = len(names) == 1 and targets[names[0]].startswith("choice:")
        split = ({"strategy": "stratified", "stratify_column": names[0]} if one_class
                 else {"strategy": "random"})
    if split["strategy"] in ("random", "stratified", "group"):
        split = {"test_size": 0.1, **split}
    train_id, test_id = ids
    columns = {idc: train_id, **features, **targets, **(after or {})}
    return {
        "sources": _sources(slug, list(columns), names, in_dojo, note),
        "split": {"train_file": "train.csv", "id_column": sub_id or idc,
                  "target_columns": names, **split},
        "fixture": {"tables": [
            {"path": "train.csv", "columns": columns},
            {"path": "test.csv", "columns": {idc: test_id, **features, **(after or {})}},
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

_PROGNOSIS = ("Lyme_disease|Tungiasis|Zika|Rabies|Dengue|West_Nile_fever|Malaria|"
              "Chikungunya|Plague|Yellow_Fever|Japanese_encephalitis")

LAYOUTS.update({
    "kaggle/playground-series-s3e1": _task(
        "playground-series-s3e1",
        {"MedInc": "float:0.5:15", "HouseAge": "float:1:52", "AveRooms": "float:1:20",
         "AveBedrms": "float:0.5:5", "Population": "float:3:30000", "AveOccup": "float:1:10",
         "Latitude": "float:32.5:42", "Longitude": "float:-124.3:-114.3"},
        {"MedHouseVal": "float:0.15:5"}, {"MedHouseVal": "2.01"}),
    "kaggle/playground-series-s3e10": _task(
        "playground-series-s3e10",
        {"Mean_Integrated": "float:5:190", "SD": "float:24:110", "EK": "float:-1.7:7.9",
         "Skewness": "float:-1.8:68", "Mean_DMSNR_Curve": "float:0.2:220",
         "SD_DMSNR_Curve": "float:7:110", "EK_DMSNR_Curve": "float:-3:34",
         "Skewness_DMSNR_Curve": "float:-2:1190"},
        {"Class": _BIN}, {"Class": "0.5"}),
    "kaggle/playground-series-s3e11": _task(
        "playground-series-s3e11",
        {"store_sales(in millions)": "float:0.5:22", "unit_sales(in millions)": "float:1:6",
         "total_children": "float:0:5", "num_children_at_home": "float:0:5",
         "avg_cars_at home(approx).1": "float:0:4", "gross_weight": "float:6:21.9",
         "recyclable_package": "float:0:1", "low_fat": "float:0:1",
         "units_per_case": "float:1:36", "store_sqft": "float:20319:39696",
         "coffee_bar": "float:0:1", "video_store": "float:0:1", "salad_bar": "float:0:1",
         "prepared_food": "float:0:1", "florist": "float:0:1"},
        {"cost": "float:50:150"}, {"cost": "99.615"}),
    "kaggle/playground-series-s3e12": _task(
        "playground-series-s3e12",
        {"gravity": "float:1.005:1.04", "ph": "float:4.76:7.94", "osmo": "int:187:1236",
         "cond": "float:5:38", "urea": "int:10:620", "calc": "float:0.17:14.34"},
        {"target": _BIN}, {"target": "0.5"}),
    "kaggle/playground-series-s3e13": _task(
        "playground-series-s3e13",
        {"sudden_fever": _BIN, "headache": _BIN, "mouth_bleed": _BIN, "nose_bleed": _BIN,
         "muscle_pain": _BIN, "joint_pain": _BIN, "lips_irritation": _BIN, "itchiness": _BIN,
         "ulcers": _BIN, "toenail_loss": _BIN, "speech_problem": _BIN,
         "bullseye_rash": _BIN},
        {"prognosis": "choice:" + _PROGNOSIS}, {"prognosis": "Dengue West_Nile_fever Malaria"},
        note="prognosis is one of 11 disease names; a submission lists three, space-separated"),
    "kaggle/playground-series-s3e14": _task(
        "playground-series-s3e14",
        {"clonesize": "choice:12.5|20.0|25.0|37.5", "honeybee": "float:0:0.75",
         "bumbles": "float:0:0.585", "andrena": "float:0:0.75", "osmia": "float:0:0.75",
         "MaxOfUpperTRange": "float:69.7:94.6", "AverageRainingDays": "float:0.06:0.56",
         "fruitset": "float:0.19:0.65", "fruitmass": "float:0.31:0.54",
         "seeds": "float:22:46.6"},
        {"yield": "float:1945:8969"}, {"yield": "6025.19"}),
    "kaggle/playground-series-s3e16": _task(
        "playground-series-s3e16",
        {"Sex": "choice:I|M|F", "Length": "float:0.19:2.04", "Diameter": "float:0.14:1.63",
         "Height": "float:0:2.83", "Weight": "float:0.06:80.1",
         "Shucked Weight": "float:0.03:42.2", "Viscera Weight": "float:0.01:21.5",
         "Shell Weight": "float:0.04:28.5"},
        {"Age": "int:1:29"}, {"Age": "10"}, ids=("seq:{i}", "seq:7405{i}"),
        note="synthetic Crab Age Prediction data; the page's example block shows the header "
             "id,yield of another competition, its text and files name the target Age"),
    "kaggle/playground-series-s3e17": _task(
        "playground-series-s3e17",
        {"Product ID": "choice:L50096|M14860|H29424", "Type": "choice:L|M|H",
         "Air temperature [K]": "float:295.3:304.4", "Process temperature [K]":
         "float:305.8:313.8", "Rotational speed [rpm]": "int:1181:2886",
         "Torque [Nm]": "float:3.8:76.6", "Tool wear [min]": "int:0:253"},
        {"Machine failure": _BIN}, {"Machine failure": "0.5"},
        after={c: _BIN for c in ("TWF", "HDF", "PWF", "OSF", "RNF")},
        note="the failure modes TWF, HDF, PWF, OSF, RNF follow the target in train.csv and "
             "are features of test.csv"),
})

_HORSE = {"surgery": "choice:yes|no", "age": "choice:adult|young", "hospital_number":
          "int:521399:5305629", "rectal_temp": "float:35.4:40.8", "pulse": "float:30:184",
          "respiratory_rate": "float:8:96", "temp_of_extremities": "choice:cool|normal|warm",
          "pain": "choice:depressed|mild_pain|extreme_pain|alert", "lesion_1": "int:0:41110",
          "lesion_2": "int:0:7111", "lesion_3": "choice:0|2209", "cp_data": "choice:no|yes"}
_CODE = {"loc": "float:1:3442", "v(g)": "float:1:404", "ev(g)": "float:1:165",
         "iv(g)": "float:1:402", "n": "float:0:8441", "v": "float:0:80843",
         "lOCode": "int:0:2824", "lOComment": "int:0:344", "lOBlank": "int:0:219",
         "locCodeAndComment": "int:0:43", "uniq_Op": "float:0:410", "uniq_Opnd": "float:0:1026",
         "total_Op": "float:0:5420", "total_Opnd": "float:0:3021",
         "branchCount": "float:1:503"}
_ATTRITION = {"Age": "int:18:60", "BusinessTravel": "choice:Travel_Rarely|Travel_Frequently|"
              "Non-Travel", "DailyRate": "int:107:3921", "Department": "choice:Research & "
              "Development|Sales|Human Resources", "DistanceFromHome": "int:1:29",
              "Education": "int:1:5", "EducationField": "choice:Life Sciences|Medical|Other",
              "EmployeeCount": "const:1", "Gender": "choice:Male|Female",
              "MonthlyIncome": "int:1010:19999", "OverTime": "choice:No|Yes",
              "YearsWithCurrManager": "int:0:17"}

LAYOUTS.update({
    "kaggle/playground-series-s3e19": _task(
        "playground-series-s3e19",
        {"date": "date:2017-01-01", "country": "choice:Argentina|Canada|Estonia|Japan|Spain",
         "store": "choice:Kaggle Learn|Kaggle Store|Kagglazon",
         "product": "choice:Using LLMs to Improve Your Coding|Using LLMs to Write Better"},
        {"num_sold": "int:2:479"}, {"num_sold": "100"},
        split={"strategy": "time", "time_column": "date", "test_size": 0.1},
        note="daily sales from 2017 to 2021; test.csv holds the year after (2022): the test "
             "rows are the latest dates"),
    "kaggle/playground-series-s3e2": _task(
        "playground-series-s3e2",
        {"gender": "choice:Male|Female|Other", "age": "float:0.08:82", "hypertension": _BIN,
         "heart_disease": _BIN, "ever_married": "choice:Yes|No",
         "work_type": "choice:Private|Self-employed|Govt_job|children|Never_worked",
         "Residence_type": "choice:Urban|Rural", "avg_glucose_level": "float:55:268",
         "bmi": "float:10:80", "smoking_status": "choice:never smoked|formerly smoked|smokes|"
         "Unknown"},
        {"stroke": _BIN}, {"stroke": "0.5"}),
    "kaggle/playground-series-s3e20": _task(
        "playground-series-s3e20",
        {"latitude": "float:-2.9:-0.5", "longitude": "float:28.2:31.5",
         "year": "choice:2019|2020|2021", "week_no": "int:0:52",
         "SulphurDioxide_SO2_column_number_density": "float:-0.0005:0.0042",
         "CarbonMonoxide_CO_column_number_density": "float:0.025:0.05",
         "Cloud_cloud_fraction": "float:0:1"},
        {"emission": "float:0:3167"}, {"emission": "81.94"}, idc="ID_LAT_LON_YEAR_WEEK",
        split={"strategy": "time", "time_column": "year", "last_k_periods": 1},
        note="the ids spell ID_<lat>_<lon>_<year>_<week>; train.csv holds 2019-2021, test.csv "
             "the weeks of 2022 after it: the test rows are the latest year"),
    "kaggle/playground-series-s3e22": _task(
        "playground-series-s3e22", _HORSE, {"outcome": "choice:died|euthanized|lived"},
        {"outcome": "lived"}),
    "kaggle/playground-series-s3e23": _task(
        "playground-series-s3e23", _CODE, {"defects": "choice:False|True"},
        {"defects": "0.5"},
        split={"strategy": "stratified", "stratify_column": "defects", "transforms": [
            {"op": "map_values", "column": "defects", "mapping": {"True": "1", "False": "0"}}]},
        note="defects spelled True/False; the submission gives the probability of True"),
    "kaggle/playground-series-s3e25": _task(
        "playground-series-s3e25",
        {"allelectrons_Total": "float:0:15300", "density_Total": "float:0:643",
         "allelectrons_Average": "float:0:67", "val_e_Average": "float:0:6",
         "atomicweight_Average": "float:0:167", "ionenergy_Average": "float:0:15.2",
         "el_neg_chi_Average": "float:0:3.4", "R_vdw_element_Average": "float:0:2.3",
         "R_cov_element_Average": "float:0:1.6", "zaratio_Average": "float:0:0.83",
         "density_Average": "float:0:10.9"},
        {"Hardness": "float:1:10"}, {"Hardness": "4.647"}),
    "kaggle/playground-series-s3e3": _task(
        "playground-series-s3e3", _ATTRITION, {"Attrition": _BIN}, {"Attrition": "0.5"},
        sub_id="EmployeeNumber",
        split={"strategy": "stratified", "stratify_column": "Attrition", "transforms": [
            {"op": "rename", "columns": {"id": "EmployeeNumber"}}]},
        note="train.csv and test.csv call the id id; the page's submission format (which "
             "the grading follows) calls it EmployeeNumber: the recipe renames it so that "
             "every file and the grading agree"),
    "kaggle/playground-series-s3e4": _task(
        "playground-series-s3e4",
        {"Time": "float:0:120580", **{f"V{k}": "float:-5:5" for k in range(1, 29)},
         "Amount": "float:0:3000"},
        {"Class": _BIN}, {"Class": "0.5"}),
    "kaggle/playground-series-s3e5": _task(
        "playground-series-s3e5",
        {"fixed acidity": "float:5:15.9", "volatile acidity": "float:0.18:1.58",
         "citric acid": "float:0:0.76", "residual sugar": "float:1.2:14",
         "chlorides": "float:0.012:0.41", "free sulfur dioxide": "float:1:68",
         "total sulfur dioxide": "float:6:289", "density": "float:0.99:1.0037",
         "pH": "float:2.74:4.01", "sulphates": "float:0.39:1.95", "alcohol": "float:8.4:14"},
        {"quality": "choice:3|4|5|6|7|8"}, {"quality": "5"}, idc="Id"),
    "kaggle/playground-series-s3e6": _task(
        "playground-series-s3e6",
        {"squareMeters": "int:89:6071993", "numberOfRooms": "int:1:100", "hasYard": _BIN,
         "hasPool": _BIN, "floors": "int:1:6000", "cityCode": "int:3:491100",
         "cityPartRange": "int:1:10", "numPrevOwners": "int:1:10", "made": "int:1990:10000",
         "isNewBuilt": _BIN, "hasStormProtector": _BIN, "basement": "int:0:91992",
         "attic": "int:1:96381", "garage": "int:4:9017", "hasStorageRoom": _BIN,
         "hasGuestRoom": "int:0:10"},
        {"price": "float:10313:10006771"}, {"price": "4634456.9"}),
    "kaggle/playground-series-s3e7": _task(
        "playground-series-s3e7",
        {"no_of_adults": "int:0:4", "no_of_children": "int:0:9",
         "no_of_weekend_nights": "int:0:6", "no_of_week_nights": "int:0:17",
         "type_of_meal_plan": "int:0:3", "required_car_parking_space": _BIN,
         "room_type_reserved": "int:0:6", "lead_time": "int:0:443",
         "arrival_year": "choice:2017|2018", "arrival_month": "int:1:12",
         "arrival_date": "int:1:31", "market_segment_type": "int:0:4",
         "avg_price_per_room": "float:0:540", "no_of_special_requests": "int:0:5"},
        {"booking_status": _BIN}, {"booking_status": "0.392"}),
    "kaggle/playground-series-s3e8": _task(
        "playground-series-s3e8",
        {"carat": "float:0.2:3.5", "cut": "choice:Premium|Very Good|Ideal|Good|Fair",
         "color": "choice:F|J|G|E|D|H|I", "clarity": "choice:VS2|SI2|VS1|SI1|IF|VVS2|VVS1|I1",
         "depth": "float:52:71", "table": "float:49:79", "x": "float:0:9.65",
         "y": "float:0:10.01", "z": "float:0:31.3"},
        {"price": "int:326:19366"}, {"price": "3969.155"}),
    "kaggle/playground-series-s3e9": _task(
        "playground-series-s3e9",
        {"CementComponent": "float:102:540", "BlastFurnaceSlag": "float:0:359",
         "FlyAshComponent": "float:0:200", "WaterComponent": "float:121:247",
         "SuperplasticizerComponent": "float:0:32", "CoarseAggregateComponent":
         "float:801:1145", "FineAggregateComponent": "float:594:992", "AgeInDays": "int:1:365"},
        {"Strength": "float:2:82"}, {"Strength": "35.45"}),
})

_ABALONE = {"Sex": "choice:F|I|M", "Length": "float:0.07:0.82", "Diameter": "float:0.05:0.65",
            "Height": "float:0:1.13", "Whole weight": "float:0:2.8",
            "Whole weight.1": "float:0:1.49", "Whole weight.2": "float:0:0.76",
            "Shell weight": "float:0:1"}
_FLOOD = ["MonsoonIntensity", "TopographyDrainage", "RiverManagement", "Deforestation",
          "Urbanization", "ClimateChange", "DamsQuality", "Siltation", "AgriculturalPractices",
          "Encroachments", "IneffectiveDisasterPreparedness", "DrainageSystems",
          "CoastalVulnerability", "Landslides", "Watersheds", "DeterioratingInfrastructure",
          "PopulationScore", "WetlandLoss", "InadequatePlanning", "PoliticalFactors"]
_STUDENTS = {"Marital status": "int:1:6", "Application mode": "int:1:53",
             "Application order": "int:0:9", "Course": "int:33:9991",
             "Daytime/evening attendance": _BIN, "Previous qualification": "int:1:43",
             "Previous qualification (grade)": "float:95:190", "Nacionality": "int:1:109",
             "Curricular units 2nd sem (grade)": "float:0:18.6",
             "Unemployment rate": "float:7.6:16.2", "Inflation rate": "float:-0.8:3.7",
             "GDP": "float:-4.06:3.51"}

LAYOUTS.update({
    "kaggle/playground-series-s4e4": _task(
        "playground-series-s4e4", _ABALONE, {"Rings": "int:1:29"}, {"Rings": "10"}),
    "kaggle/playground-series-s4e5": _task(
        "playground-series-s4e5", {c: "int:0:16" for c in _FLOOD},
        {"FloodProbability": "float:0.285:0.725"}, {"FloodProbability": "0.5"}),
    "kaggle/playground-series-s4e6": _task(
        "playground-series-s4e6", _STUDENTS, {"Target": "choice:Graduate|Dropout|Enrolled"},
        {"Target": "Graduate"}),
})


def _floats(names: list[str], lo: float = -3, hi: float = 3) -> dict[str, str]:
    return {n: f"float:{lo}:{hi}" for n in names}


_TITANIC = {"Pclass": "choice:1|2|3", "Name": "seq:Surname{i}, Given", "Sex":
            "choice:male|female", "Age": "float:0.08:87", "SibSp": "int:0:8",
            "Parch": "int:0:9", "Ticket": "seq:A/5 {i}", "Fare": "float:0.68:744",
            "Cabin": "seq:C{i}", "Embarked": "choice:S|C|Q"}
_FAILURES = {"product": "choice:A|B|C|D|E", "attribute_0": "choice:material_7|material_5",
             "attribute_1": "choice:material_8|material_5|material_6",
             "attribute_2": "int:5:9", "attribute_3": "int:5:9", "measurement_0": "int:0:29",
             "measurement_1": "int:0:29", "measurement_2": "int:0:24",
             **_floats([f"measurement_{k}" for k in range(3, 18)], 0, 2000)}
_BACTERIA = ("Streptococcus_pyogenes|Salmonella_enterica|Enterococcus_hirae|Escherichia_coli|"
             "Campylobacter_jejuni|Streptococcus_pneumoniae|Staphylococcus_aureus|"
             "Escherichia_fergusonii|Bacteroides_fragilis|Klebsiella_pneumoniae")
#: The 286 columns of feb-2022: A{a}T{t}G{g}C{c} with a + t + g + c = 10, in file order.
_SPECTRUM = [f"A{a}T{t}G{g}C{10 - a - t - g}" for a in range(11) for t in range(11 - a)
             for g in range(11 - a - t)]
_AIR = {"deg_C": "float:-1.3:46", "relative_humidity": "float:8.9:90",
        "absolute_humidity": "float:0.2:2.2",
        **_floats([f"sensor_{k}" for k in range(1, 6)], 200, 2700)}
_AIR_TARGETS = ["target_carbon_monoxide", "target_benzene", "target_nitrogen_oxides"]
_TIME_NOTE = "test.csv holds the period right after train.csv: the test rows are the latest "
_LATER = {"strategy": "time", "time_column": "date", "test_size": 0.1}

LAYOUTS.update({
    "kaggle/tabular-playground-series-apr-2021": _task(
        "tabular-playground-series-apr-2021", {}, {"Survived": _BIN}, {"Survived": "0"},
        idc="PassengerId", after=_TITANIC,
        note="Survived is the second column, the passenger's fields follow it"),
    "kaggle/tabular-playground-series-aug-2021": _task(
        "tabular-playground-series-aug-2021", _floats([f"f{k}" for k in range(100)]),
        {"loss": "int:0:42"}, {"loss": "6.8"}),
    "kaggle/tabular-playground-series-aug-2022": _task(
        "tabular-playground-series-aug-2022", _FAILURES, {"failure": _BIN}, {"failure": "0.5"},
        split={"strategy": "group", "group_column": "product", "test_size": 0.2},
        note="train.csv holds products A-E, test.csv products F-I: the test rows are one "
             "whole product of the five"),
    "kaggle/tabular-playground-series-feb-2021": _task(
        "tabular-playground-series-feb-2021",
        {**{f"cat{k}": "choice:A|B" for k in range(10)},
         **_floats([f"cont{k}" for k in range(14)], 0, 1)},
        {"target": "float:0:10.3"}, {"target": "0.5"}),
    "kaggle/tabular-playground-series-feb-2022": _task(
        "tabular-playground-series-feb-2022", _floats(_SPECTRUM, -0.01, 0.01),
        {"target": "choice:" + _BACTERIA}, {"target": "Escherichia_coli"}, idc="row_id",
        split={"strategy": "group", "group_column": "spectrum", "transforms": [
            {"op": "hash_id", "column": "spectrum", "columns": _SPECTRUM}],
            "hidden_columns": {"spectrum": "public"}},
        note="286 spectrum columns A0T0G0C10 ... A10T0G0C0; the target one of 10 bacteria; "
             "many rows repeat the spectrum of another row (with its label), so the test "
             "rows are whole groups of identical spectra"),
    "kaggle/tabular-playground-series-jan-2021": _task(
        "tabular-playground-series-jan-2021", _floats([f"cont{k}" for k in range(1, 15)], 0, 1),
        {"target": "float:0:10.3"}, {"target": "0.5"}),
    "kaggle/tabular-playground-series-jan-2022": _task(
        "tabular-playground-series-jan-2022", _JAN22, {"num_sold": "int:70:2884"},
        {"num_sold": "100"}, idc="row_id", split=_LATER,
        note=_TIME_NOTE + "dates (2015-2018 for training, 2019 to predict)"),
    "kaggle/tabular-playground-series-jul-2021": _task(
        "tabular-playground-series-jul-2021", _AIR,
        {t: "float:0.1:1400" for t in _AIR_TARGETS}, {t: "2.0" for t in _AIR_TARGETS},
        idc="date_time", ids=("date:2010-03-10", "date:2011-01-01"),
        split={"strategy": "time", "time_column": "date_time", "test_size": 0.1},
        note=_TIME_NOTE + "hours; the id is the hour date_time"),
    "kaggle/tabular-playground-series-mar-2021": _task(
        "tabular-playground-series-mar-2021",
        {**{f"cat{k}": "choice:A|B|C" for k in range(19)},
         **_floats([f"cont{k}" for k in range(11)], 0, 1)},
        {"target": _BIN}, {"target": "0.5"}),
    "kaggle/tabular-playground-series-mar-2022": _task(
        "tabular-playground-series-mar-2022",
        {"time": "date:1991-04-01", "x": "int:0:2", "y": "int:0:3",
         "direction": "choice:EB|NB|SB|WB|NE|SW|NW|SE"},
        {"congestion": "int:0:100"}, {"congestion": "50"}, idc="row_id",
        split={"strategy": "time", "time_column": "time", "test_size": 0.1},
        note=_TIME_NOTE + "times (the afternoon of 1991-09-30 to predict)"),
    "kaggle/tabular-playground-series-nov-2021": _task(
        "tabular-playground-series-nov-2021", _floats([f"f{k}" for k in range(100)]),
        {"target": _BIN}, {"target": "0.5"}),
    "kaggle/tabular-playground-series-oct-2021": _task(
        "tabular-playground-series-oct-2021",
        {**_floats([f"f{k}" for k in range(22)], 0, 1), "f22": _BIN,
         **{f"f{k}": _BIN for k in (242, 284)}},
        {"target": _BIN}, {"target": "0.5"},
        note="285 features f0 ... f284 (f22 and f242-f284 0/1)"),
    "kaggle/tabular-playground-series-sep-2021": _task(
        "tabular-playground-series-sep-2021", _floats([f"f{k}" for k in range(1, 119)], -10, 10),
        {"claim": _BIN}, {"claim": "0.5"}),
    "kaggle/tabular-playground-series-sep-2022": _task(
        "tabular-playground-series-sep-2022", _SALES, {"num_sold": "int:19:986"},
        {"num_sold": "100"}, idc="row_id", split=_LATER,
        note=_TIME_NOTE + "dates (2017-2020 for training, 2021 to predict)"),
})
