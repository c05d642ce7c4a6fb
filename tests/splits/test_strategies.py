"""Every split strategy on generated, real-shaped data; determinism; layout; checksums."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tambench.errors import ChecksumMismatchError, SplitError
from tambench.grading.grade import grade_submission
from tambench.splits.checksums import compute_checksums
from tambench.splits.hashing import stable_hash, stable_hash_one
from tambench.splits.prepare import PrepareJob, prepare_many, prepare_task
from tambench.splits.report import SplitReport
from tests.splits.helpers import (
    FakeSource,
    grouped,
    images,
    make_spec,
    read,
    tabular,
    time_series,
)


def _pub(res, name: str) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    return read(res.task_dir / "public" / name)


def _answers(res) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    return read(res.task_dir / "private" / "answers.csv")


def test_vectorised_hash_equals_the_pure_python_reference_on_mixed_strings() -> None:
    values = ["", "a", "007", "héllo", "漢字", "x" * 70, "id_12345"]
    got = stable_hash(values, "42")
    assert [int(v) for v in got] == [stable_hash_one(v, "42") for v in values]


def test_random_split_hides_labels_and_keeps_exact_spelling(tmp_path: Path) -> None:
    df = tabular(tmp_path / "raw")
    res = prepare_task(make_spec("rnd", {"strategy": "random", "test_size": 0.2}),
                       tmp_path / "raw", tmp_path / "data")
    train, test, ans = _pub(res, "train.csv"), _pub(res, "test.csv"), _answers(res)
    assert (train.height, test.height) == (960, 240)
    assert "label" not in test.columns and ans.columns == ["id", "label"]
    assert set(train["id"]).isdisjoint(set(test["id"]))
    assert set(train["id"]) | set(test["id"]) == set(df["id"])
    assert train["id"][0] == "000000"  # leading zeros survive (no type inference)
    merged = test.join(ans, on="id").join(df, on="id", suffix="_raw")
    assert (merged["label"] == merged["label_raw"]).all()
    assert (merged["income"] == merged["income_raw"]).all()
    sample = _pub(res, "sample_submission.csv")
    assert sample.columns == ["id", "label"] and sample["id"].to_list() == test["id"].to_list()
    assert sample["label"].n_unique() == 1
    assert res.audit.passed
    rep = json.loads((res.task_dir / "split_report.json").read_text())
    assert rep["rows"] == {"train": 960, "test": 240, "test_fraction": 0.2}
    assert set(rep["class_balance"]["label"]["test"]) == {"c0", "c1", "c2"}
    assert rep["schema_version"] == 1 and rep["strategy"] == "random"
    assert rep["settings"] == {"test_size": 0.2, "seed": 0, "test_order": "shuffled"}


def test_same_inputs_give_byte_identical_outputs_and_row_order_does_not_matter(
        tmp_path: Path) -> None:
    df = tabular(tmp_path / "raw")
    shuffled = tmp_path / "raw2"
    shuffled.mkdir()
    df.sample(fraction=1.0, shuffle=True, seed=5).write_csv(shuffled / "train.csv")
    spec = make_spec("det", {"strategy": "stratified", "seed": 3})
    a = prepare_task(spec, tmp_path / "raw", tmp_path / "d1")
    b = prepare_task(spec, tmp_path / "raw", tmp_path / "d2")
    assert compute_checksums(a.task_dir) == compute_checksums(b.task_dir)
    c = prepare_task(spec, shuffled, tmp_path / "d3")
    assert set(_pub(c, "test.csv")["id"]) == set(_pub(a, "test.csv")["id"])
    assert (_pub(c, "test.csv")["id"].to_list() == _pub(a, "test.csv")["id"].to_list())
    other_seed = make_spec("det", {"strategy": "stratified", "seed": 4})
    d = prepare_task(other_seed, tmp_path / "raw", tmp_path / "d4")
    assert set(_pub(d, "test.csv")["id"]) != set(_pub(a, "test.csv")["id"])


def test_stratified_split_keeps_class_shares_within_one_row(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    labels = rng.choice(["a", "b", "c"], 2000, p=[0.7, 0.25, 0.05])
    raw = tmp_path / "raw"
    raw.mkdir()
    pl.DataFrame({"id": [str(i) for i in range(2000)], "x": rng.normal(size=2000).astype(str),
                  "label": labels}).write_csv(raw / "train.csv")
    res = prepare_task(make_spec("strat", {"strategy": "stratified", "test_size": 0.1}),
                       raw, tmp_path / "data")
    ans = _answers(res)
    for cls in ("a", "b", "c"):
        expected = (labels == cls).sum() * 0.1
        assert abs((ans["label"] == cls).sum() - expected) <= 1


def test_multilabel_stratification_is_by_the_label_set_whatever_the_token_order(
        tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    sets = ["x y", "y x", "z", "x"] * 100
    pl.DataFrame({"id": [f"d{i}" for i in range(400)], "f": ["1"] * 400,
                  "tags": sets}).write_csv(raw / "train.csv")
    spec = make_spec("ml", {"strategy": "stratified", "test_size": 0.25}, metric="exact_match",
                     targets=("tags",))
    res = prepare_task(spec, raw, tmp_path / "data", run_audit=False)
    ans = _answers(res)
    norm = ans["tags"].str.extract_all(r"\S+").list.sort().list.join(" ")
    counts = dict(zip(*np.unique(norm.to_numpy(), return_counts=True), strict=True))
    assert counts == {"x y": 50, "z": 25, "x": 25}


def test_group_split_puts_each_patient_on_one_side(tmp_path: Path) -> None:
    grouped(tmp_path / "raw")
    res = prepare_task(make_spec("grp", {"strategy": "group", "group_column": "patient",
                                         "test_size": 0.2}), tmp_path / "raw", tmp_path / "data")
    train, test = _pub(res, "train.csv"), _pub(res, "test.csv")
    assert set(train["patient"]).isdisjoint(set(test["patient"]))
    assert test.height == 240  # 12 whole patients of 20 recordings
    assert res.report.groups is not None
    assert res.report.groups.model_dump() == {"column": "patient", "train": 48, "test": 12,
                                              "shared": 0}
    assert res.report.settings == {"test_size": 0.2, "seed": 0, "test_order": "shuffled",
                                   "group_column": "patient"}
    assert res.audit.passed


def test_time_split_by_cutoff_and_by_last_k_periods(tmp_path: Path) -> None:
    time_series(tmp_path / "raw")
    spec = make_spec("ts", {"strategy": "time", "time_column": "date",
                            "time_cutoff": "2021-02-20"}, metric="rmse", targets=("sales",))
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    train, test = _pub(res, "train.csv"), _pub(res, "test.csv")
    assert train["date"].max() == "2021-02-19" and test["date"].min() == "2021-02-20"
    assert res.report.time is not None and res.report.time.test == ["2021-02-20", "2021-03-01"]
    assert "test_size" not in res.report.settings  # the cutoff decided, not a share of rows
    spec_k = make_spec("ts-k", {"strategy": "time", "time_column": "date", "last_k_periods": 7},
                       metric="rmse", targets=("sales",))
    res_k = prepare_task(spec_k, tmp_path / "raw", tmp_path / "data")
    assert _pub(res_k, "test.csv")["date"].n_unique() == 7
    assert _pub(res_k, "test.csv").height == 70
    sample = _pub(res_k, "sample_submission.csv")
    assert sample.columns == ["id", "sales"] and sample["sales"].n_unique() == 1
    assert res_k.audit.passed


def test_time_split_on_the_id_column_itself(tmp_path: Path) -> None:
    """One row per hour, the hour its id (tabular-playground-series-jul-2021)."""
    raw = tmp_path / "raw"
    raw.mkdir()
    hours = [str(np.datetime64("2010-03-10T18:00") + np.timedelta64(h, "h")).replace("T", " ")
             for h in range(100)]
    pl.DataFrame({"date_time": hours, "sales": [f"{h % 7}.5" for h in range(100)]}).write_csv(
        raw / "train.csv")
    spec = make_spec("ts-id", {"strategy": "time", "time_column": "date_time",
                               "test_size": 0.2}, metric="rmse", targets=("sales",),
                     id_col="date_time")
    res = prepare_task(spec, raw, tmp_path / "data")
    train, test = _pub(res, "train.csv"), _pub(res, "test.csv")
    assert (train.height, test.height) == (80, 20)
    assert sorted(test["date_time"]) == hours[80:] and max(train["date_time"].to_list()) < hours[80]


def test_time_split_whose_id_is_the_time_column(tmp_path: Path) -> None:
    # A signal sampled at fixed steps (ion switching): each row's time is its id.
    raw = tmp_path / "raw"
    raw.mkdir()
    n = 400
    pl.DataFrame({"time": [f"{(i + 1) / 10:.4f}" for i in range(n)],
                  "signal": [f"{np.sin(i):.4f}" for i in range(n)],
                  "open_channels": [str(i % 3) for i in range(n)]}).write_csv(raw / "train.csv")
    spec = make_spec("ion", {"strategy": "time", "time_column": "time", "test_size": 0.1},
                     metric="f1_macro", targets=("open_channels",), id_col="time")
    res = prepare_task(spec, raw, tmp_path / "data")
    train, test = _pub(res, "train.csv"), _pub(res, "test.csv")
    assert (train.height, test.height) == (360, 40)
    assert max(float(t) for t in train["time"]) < min(float(t) for t in test["time"])
    assert sorted(_answers(res)["time"]) == sorted(test["time"])
    assert res.audit.passed


def test_sample_of_an_item_order_metric_lists_each_rows_items_sorted(tmp_path: Path) -> None:
    # ai4code: a prediction orders exactly its notebook's cells, so no constant is valid.
    raw = tmp_path / "raw"
    raw.mkdir()
    rng = np.random.default_rng(3)
    orders = [" ".join(rng.permutation([f"{i:02d}c{k}" for k in range(2 + i % 4)]))
              for i in range(200)]
    pl.DataFrame({"id": [f"nb{i:03d}" for i in range(200)], "cell_order": orders}).write_csv(
        raw / "train.csv")
    spec = make_spec("orders", {"strategy": "random", "test_size": 0.2},
                     metric="kendall_tau_orders", targets=("cell_order",))
    res = prepare_task(spec, raw, tmp_path / "data", grader=grade_submission)
    sample, ans = _pub(res, "sample_submission.csv"), _answers(res)
    assert sample["id"].to_list() == ans["id"].to_list()
    assert [sorted(a.split()) for a in ans["cell_order"]] == [
        s.split() for s in sample["cell_order"]]
    assert sample["cell_order"].to_list() != ans["cell_order"].to_list()
    assert res.audit.passed


def test_holdout_by_column_value_and_by_named_file(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    df = tabular(raw, n=600)
    df = df.with_columns(pl.Series("fold", [str(i % 5) for i in range(600)]))
    df.write_csv(raw / "train.csv")
    res = prepare_task(make_spec("ho", {"strategy": "holdout_value", "holdout_column": "fold",
                                        "holdout_value": "4"}), raw, tmp_path / "data")
    assert set(_pub(res, "test.csv")["fold"]) == {"4"} and _pub(res, "test.csv").height == 120
    raw2 = tmp_path / "raw2"
    raw2.mkdir()
    df.filter(pl.col("fold") != "4").write_csv(raw2 / "train.csv")
    df.filter(pl.col("fold") == "4").write_csv(raw2 / "shard_4.csv")
    res2 = prepare_task(make_spec("ho2", {"strategy": "holdout_file", "train_file": "train.csv",
                                          "holdout_file": "shard_4.csv"}), raw2, tmp_path / "data")
    assert sorted(_pub(res2, "test.csv")["id"]) == sorted(_pub(res, "test.csv")["id"])
    assert "label" not in _pub(res2, "test.csv").columns
    assert res2.audit.passed


def test_official_strategy_reuses_published_test_labels(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    df = tabular(raw, n=500)
    df.head(400).write_csv(raw / "train.csv")
    df.tail(100).drop("label").write_csv(raw / "test.csv")
    df.tail(100).select("id", "label").sample(fraction=1.0, shuffle=True, seed=1).write_csv(
        raw / "solution.csv")
    spec = make_spec("off", {"strategy": "official", "train_file": "train.csv",
                             "official_test_file": "test.csv",
                             "official_answers_file": "solution.csv"})
    res = prepare_task(spec, raw, tmp_path / "data")
    assert _pub(res, "train.csv").height == 400
    merged = _answers(res).join(df, on="id", suffix="_raw")
    assert merged.height == 100 and (merged["label"] == merged["label_raw"]).all()


def test_official_strategy_refuses_answers_for_other_ids(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    df = tabular(raw, n=300)
    df.head(200).write_csv(raw / "train.csv")
    df.tail(100).drop("label").write_csv(raw / "test.csv")
    df.tail(99).select("id", "label").write_csv(raw / "solution.csv")
    spec = make_spec("off2", {"strategy": "official", "train_file": "train.csv",
                              "official_test_file": "test.csv",
                              "official_answers_file": "solution.csv"})
    with pytest.raises(SplitError, match="1 test id.*without an answer"):
        prepare_task(spec, raw, tmp_path / "data")


def test_files_strategy_links_each_file_to_its_side_with_a_manifest(tmp_path: Path) -> None:
    df = images(tmp_path / "raw")
    spec = make_spec("img", {"strategy": "stratified", "train_file": "labels.csv",
                             "files": {"pattern": "images/{id}.png"}, "test_size": 0.2})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    pub = res.task_dir / "public"
    test_ids = set(_pub(res, "test.csv")["id"])
    assert len(test_ids) == 30
    assert {p.stem for p in (pub / "test" / "images").iterdir()} == test_ids
    assert {p.stem for p in (pub / "train" / "images").iterdir()} == set(df["id"]) - test_ids
    some = next(iter(test_ids))
    assert (pub / "test/images" / f"{some}.png").read_bytes() == (
        tmp_path / "raw/images" / f"{some}.png").read_bytes()
    manifest = read(pub / "files_manifest.csv")
    assert manifest.height == 150 and set(manifest.filter(pl.col("split") == "test")["id"]) == \
        test_ids
    assert res.report.files is not None
    assert res.report.files.linked + res.report.files.copied == 150
    assert res.audit.passed


def test_files_strategy_names_missing_files_and_refuses_label_in_path(tmp_path: Path) -> None:
    images(tmp_path / "raw", n=40)
    (tmp_path / "raw/images/img0007.png").unlink()
    spec = make_spec("img2", {"strategy": "random", "train_file": "labels.csv",
                              "files": {"pattern": "images/{id}.png"}})
    with pytest.raises(SplitError, match=r"1 row file\(s\).*img0007"):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    bad = make_spec("img3", {"strategy": "random", "train_file": "labels.csv",
                             "files": {"pattern": "{label}/{id}.png"}})
    with pytest.raises(SplitError, match="reveal the test labels"):
        prepare_task(bad, tmp_path / "raw", tmp_path / "data")


def test_checksums_are_verified_on_later_runs_and_a_mismatch_shows_a_diff(
        tmp_path: Path) -> None:
    tabular(tmp_path / "raw", n=300)
    spec = make_spec("ck", {"strategy": "random"})
    first = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    assert prepare_task(spec, tmp_path / "raw", tmp_path / "data").status == "up_to_date"
    test_csv = first.task_dir / "public" / "test.csv"
    test_csv.write_text(test_csv.read_text() + "extra,row\n")
    with pytest.raises(ChecksumMismatchError, match=r"changed: public/test.csv \(recorded"):
        prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    rebuilt = prepare_task(spec, tmp_path / "raw", tmp_path / "data", force=True)
    assert rebuilt.status == "prepared" and rebuilt.changed is not None
    assert rebuilt.changed.ok  # the rebuild reproduced the recorded bytes exactly


def test_metric_auxiliary_columns_are_written_to_the_answers(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rng = np.random.default_rng(0)
    pl.DataFrame({"id": [str(i) for i in range(300)],
                  "type": rng.choice(["1JHC", "2JHH"], 300),
                  "y": [f"{v:.3f}" for v in rng.normal(size=300)]}).write_csv(raw / "train.csv")
    spec = make_spec("aux", {"strategy": "random"}, metric="mean_log_mae", targets=("y",))
    res = prepare_task(spec, raw, tmp_path / "data", run_audit=False)
    assert _answers(res).columns == ["id", "y", "type"]


def test_answers_columns_come_from_the_metric_including_column_lists(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rng = np.random.default_rng(1)
    pl.DataFrame({"id": [str(i) for i in range(400)],
                  "text": rng.choice(["a", "b", "c"], 400),
                  "male": rng.choice(["0", "1"], 400), "female": rng.choice(["0", "1"], 400),
                  "target": rng.choice(["0", "1"], 400)}).write_csv(raw / "train.csv")
    spec = make_spec("lists", {"strategy": "random"}, metric="jigsaw_bias_auc",
                     targets=("target",),
                     grading={"metric_params": {"identities_columns": ["male", "female"]}})
    res = prepare_task(spec, raw, tmp_path / "data", run_audit=False)
    assert _answers(res).columns == ["id", "target", "male", "female"]
    assert read(res.task_dir / "public/test.csv").columns == ["id", "text", "male", "female"]


def test_sample_submission_uses_the_grading_header(tmp_path: Path) -> None:
    tabular(tmp_path / "raw", n=300)
    spec = make_spec("hdr", {"strategy": "random"},
                     grading={"submission_header": ["id", "city", "label"]})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", run_audit=False)
    sample = _pub(res, "sample_submission.csv")
    assert sample.columns == ["id", "city", "label"]


def test_hidden_columns_leave_test_only_or_every_public_file(tmp_path: Path) -> None:
    tabular(tmp_path / "raw", n=300)
    spec = make_spec("hide", {"strategy": "random",
                              "hidden_columns": {"city": "test", "income": "public"}})
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    train, test, ans = _pub(res, "train.csv"), _pub(res, "test.csv"), _answers(res)
    assert "city" in train.columns and "city" not in test.columns
    assert "income" not in train.columns and "income" not in test.columns
    assert ans.columns == ["id", "label"]


def test_bad_specs_get_errors_naming_the_problem(tmp_path: Path) -> None:
    tabular(tmp_path / "raw", n=100)
    with pytest.raises(SplitError, match=r"lacks column\(s\) \['patient'\]"):
        prepare_task(make_spec("e1", {"strategy": "group", "group_column": "patient"}),
                     tmp_path / "raw", tmp_path / "data")
    dup = tmp_path / "dup"
    dup.mkdir()
    (dup / "train.csv").write_text("id,label\n1,a\n1,b\n2,a\n")
    with pytest.raises(SplitError, match="duplicated value"):
        prepare_task(make_spec("e2", {"strategy": "random"}), dup, tmp_path / "data")


def test_prepare_runs_a_fake_source_and_keeps_no_raw_files(tmp_path: Path) -> None:
    body = "id,x,label\n" + "".join(f"{i},{i % 7},{'ab'[i % 2]}\n" for i in range(200))
    src = FakeSource({"comp/train.csv": body.encode()})
    res = prepare_task(make_spec("fake", {"strategy": "random"}), src, tmp_path / "data")
    assert len(src.calls) == 1 and res.report.source_table == "comp/train.csv"
    leftovers = [p for p in (tmp_path / "data" / "kaggle").iterdir() if p.name.startswith(".")]
    assert leftovers == []


@pytest.mark.parametrize("kind", ["serial", "local"])
def test_prepare_many_runs_through_the_executor_and_reports_each_task(
        tmp_path: Path, kind: str) -> None:
    tabular(tmp_path / "a", n=200)
    grouped(tmp_path / "b", n_patients=10, per=10)
    jobs = [
        PrepareJob(make_spec("many-a", {"strategy": "random"}), str(tmp_path / "a"),
                   str(tmp_path / "data"), grader=grade_submission),
        PrepareJob(make_spec("many-b", {"strategy": "group", "group_column": "patient"}),
                   str(tmp_path / "b"), str(tmp_path / "data")),
        PrepareJob(make_spec("many-c", {"strategy": "random"}), str(tmp_path / "missing"),
                   str(tmp_path / "data")),
    ]
    outcomes = prepare_many(jobs, executor=kind, max_workers=2)
    assert [o.ok for o in outcomes] == [True, True, False]
    assert outcomes[2].error_type == "SourceError" and "does not exist" in outcomes[2].error
    assert outcomes[0].rows["test"] == 20
    assert os.path.isdir(outcomes[1].task_dir)
    scores = [SplitReport.read(Path(o.task_dir) / "split_report.json").sample_submission.score
              for o in outcomes[:2]]
    assert isinstance(scores[0], float) and scores[1] is None  # only job a was given a grader


def test_answers_named_targets_are_the_answers_columns_and_the_sample_fills_the_header(
        tmp_path: Path) -> None:
    """answers_target_columns: the raw table and the answers hold ``score``, the submission
    names it ``prediction`` (jigsaw's toxicity)."""
    raw = tmp_path / "raw"
    df = tabular(raw, n=300).rename({"label": "score"})
    df.write_csv(raw / "train.csv")
    spec = make_spec("named", {"strategy": "random", "test_size": 0.2}, targets=("prediction",),
                     grading={"answers_target_columns": ["score"],
                              "submission_header": ["id", "prediction"]})
    res = prepare_task(spec, raw, tmp_path / "data")
    answers = pl.read_csv(res.task_dir / "private" / "answers.csv", infer_schema=False)
    assert answers.columns == ["id", "score"] and answers.height == 60
    sample = _pub(res, "sample_submission.csv")
    assert sample.columns == ["id", "prediction"] and sample["prediction"].n_unique() == 1
    assert "score" not in _pub(res, "test.csv").columns


def test_files_by_a_character_of_the_id_and_folders_that_follow_their_row(
        tmp_path: Path) -> None:
    """seti's train/{id[0]}/{id}.npy, and a patient's folder of scans placed whole."""
    raw = tmp_path / "raw"
    df = images(raw, n=60)
    for i in df["id"]:
        (raw / "by_char" / i[3]).mkdir(parents=True, exist_ok=True)
        (raw / "by_char" / i[3] / f"{i}.npy").write_bytes(i.encode())
        (raw / "scans" / i / "FLAIR").mkdir(parents=True)
        for k in range(3):
            (raw / "scans" / i / "FLAIR" / f"Image-{k}.dcm").write_bytes(f"{i}-{k}".encode())
    spec = make_spec("chars", {"strategy": "random", "train_file": "labels.csv",
                               "files": {"pattern": "by_char/{id[3]}/{id}.npy"}})
    res = prepare_task(spec, raw, tmp_path / "data")
    some = _pub(res, "test.csv")["id"][0]
    assert (res.task_dir / "public/test/by_char" / some[3] / f"{some}.npy").read_bytes() == \
        some.encode() and res.audit.passed
    spec = make_spec("folders", {"strategy": "random", "train_file": "labels.csv",
                                 "files": {"pattern": "scans/{id}", "dest": "{id}"}})
    res = prepare_task(spec, raw, tmp_path / "data")
    test_ids = set(_pub(res, "test.csv")["id"])
    assert {p.name for p in (res.task_dir / "public/test").iterdir()} == test_ids
    some = sorted(test_ids)[0]
    placed = sorted((res.task_dir / "public/test" / some / "FLAIR").iterdir())
    assert [p.read_bytes() for p in placed] == [f"{some}-{k}".encode() for k in range(3)]
    assert res.report.files is not None and res.report.files.test == len(test_ids)
    assert res.audit.passed
    bad = make_spec("attr", {"strategy": "random", "train_file": "labels.csv",
                             "files": {"pattern": "scans/{id.upper}"}})
    with pytest.raises(SplitError, match=r"field \{id.upper\} is not a column name"):
        prepare_task(bad, raw, tmp_path / "data")


def test_a_row_without_the_value_its_file_pattern_needs_is_refused(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    df = images(raw, n=40).with_columns(pl.Series("sub", ["images"] * 39 + [""]))
    df.write_csv(raw / "labels.csv")
    spec = make_spec("nosub", {"strategy": "random", "train_file": "labels.csv",
                               "files": {"pattern": "{sub}/{id}.png"}})
    with pytest.raises(SplitError, match=r"row 'img0039' has no value in \['sub'\]"):
        prepare_task(spec, raw, tmp_path / "data")


def test_an_empty_mask_is_a_label_for_mask_metrics_only(tmp_path: Path) -> None:
    """tgs-salt's images without salt have an empty rle_mask: an empty mask, scored."""
    raw = tmp_path / "raw"
    raw.mkdir()
    masks = ["" if i % 3 == 0 else f"{i} 4" for i in range(90)]
    pl.DataFrame({"id": [f"m{i:03d}" for i in range(90)], "rle_mask": masks}).write_csv(
        raw / "train.csv")
    spec = make_spec("salt", {"strategy": "random", "test_size": 0.3}, metric="dice",
                     targets=("rle_mask",))
    res = prepare_task(spec, raw, tmp_path / "data", grader=grade_submission)
    answers = pl.read_csv(res.task_dir / "private" / "answers.csv", infer_schema=False)
    assert (answers["rle_mask"].fill_null("") == "").sum() > 0 and res.audit.passed
    label = make_spec("salt2", {"strategy": "random", "test_size": 0.3},
                      targets=("rle_mask",))
    with pytest.raises(SplitError, match="target column 'rle_mask' has no label in 30 row"):
        prepare_task(label, raw, tmp_path / "data")
