"""The recipe language: nested archives, JSON tables, tables from file names, derived columns,
dropped rows, shared per-row files and the answers columns grading reads."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tambench.errors import LeakageError, SplitError
from tambench.grading.grade import grade_submission
from tambench.schema.taskspec import TaskSpec
from tambench.schema.transforms import TRANSFORM_MODELS
from tambench.splits.prepare import prepare_task
from tambench.splits.transforms import TRANSFORMS, apply_transforms
from tambench.splits.unpack import unpack_nested
from tests.splits.helpers import make_spec, read


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _csv(n: int, label: str = "label") -> bytes:
    rows = "".join(f"r{i},{i * 0.5},{'ab'[i % 2]}\n" for i in range(n))
    return f"id,x,{label}\n{rows}".encode()


def test_both_registries_name_the_same_transforms() -> None:
    assert sorted(TRANSFORMS.names()) == sorted(TRANSFORM_MODELS.names())
    with pytest.raises(Exception, match="unknown recipe transform 'one_hott'"):
        make_spec("x", {"strategy": "random", "transforms": [{"op": "one_hott"}]})
    with pytest.raises(Exception, match="values go with rule 'equals'"):
        make_spec("x", {"strategy": "random", "transforms": [
            {"op": "drop_rows", "column": "x", "rule": "equals", "reason": "r"}]})


def test_a_zip_inside_a_zip_and_a_zipped_table_are_unpacked_where_the_recipe_names_them(
        tmp_path: Path) -> None:
    download = tmp_path / "dl.zip"
    images = _zip_bytes({"train/a.png": b"A", "train/b.png": b"B"})
    download.write_bytes(_zip_bytes({"train.csv.zip": _zip_bytes({"train.csv": _csv(40)}),
                                     "train.zip": images}))
    spec = make_spec("nested", {"strategy": "random", "test_size": 0.25,
                                "train_file": "train.csv"})
    res = prepare_task(spec, download, tmp_path / "data")
    assert res.report.source_table == "train.csv" and res.report.rows.test == 10
    assert res.audit.passed


def test_a_local_folder_is_unpacked_in_a_copy_and_never_changed(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    (raw / "Train.csv").mkdir(parents=True)  # left so by another unpacking tool
    (raw / "Train.csv" / "Train.csv").write_bytes(_csv(20))
    (raw / "images.zip").write_bytes(_zip_bytes({"images/p.png": b"P"}))
    before = sorted(p.relative_to(raw).as_posix() for p in raw.rglob("*"))
    work = tmp_path / "work"
    work.mkdir()
    root = unpack_nested(raw, work)
    assert root == work / "unpacked" and (root / "images" / "p.png").read_bytes() == b"P"
    assert sorted(p.relative_to(raw).as_posix() for p in raw.rglob("*")) == before
    spec = make_spec("folder", {"strategy": "random", "test_size": 0.25,
                                "train_file": "Train.csv"})
    res = prepare_task(spec, raw, tmp_path / "data")
    assert res.report.rows.train == 15 and res.audit.passed


def _pizza(raw: Path, n: int = 60) -> None:
    rng = np.random.default_rng(2)
    got = rng.random(n) < 0.3
    records = [{"request_id": f"t3_{i:04x}", "request_text": f"text {i}",
                "requester_subreddits_at_request": ["pizza", f"s{i % 4}"],
                "requester_received_pizza": bool(g),
                "giver_username_if_known": f"giver{i}" if g else "N/A"}
               for i, g in enumerate(got)]
    raw.mkdir(parents=True, exist_ok=True)
    (raw / "train.json").write_text(json.dumps(records))


def test_a_json_table_is_read_and_a_leaking_column_hidden_from_the_test_rows(
        tmp_path: Path) -> None:
    _pizza(tmp_path / "raw")
    split = {"strategy": "random", "test_size": 0.2, "train_file": "train.json",
             "hidden_columns": {"giver_username_if_known": "test"}}
    spec = make_spec("pizza", split, targets=("requester_received_pizza",), id_col="request_id")
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data")
    assert res.audit.passed
    test = read(res.task_dir / "public/test.csv")
    assert "giver_username_if_known" not in test.columns
    assert json.loads(test["requester_subreddits_at_request"][0])[0] == "pizza"
    answers = read(res.task_dir / "private/answers.csv")
    assert set(answers["requester_received_pizza"]) == {"true", "false"}
    # without hiding it, the audit catches the column (MLE-bench issue #108)
    spec2 = make_spec("pizza2", {**split, "hidden_columns": {}},
                      targets=("requester_received_pizza",), id_col="request_id")
    with pytest.raises(Exception, match="giver_username_if_known' is 'N/A' exactly"):
        prepare_task(spec2, tmp_path / "raw", tmp_path / "data")


def test_a_parquet_table_is_read_as_text_with_its_nested_values_as_json(
        tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    n = 50
    pl.DataFrame({"id": [f"{i:05d}" for i in range(n)], "turns": [[i, i + 1] for i in range(n)],
                  "score": [i / 4 for i in range(n)],
                  "winner": ["model_a" if i % 3 else "model_b" for i in range(n)]}).write_parquet(
        raw / "train.parquet")
    spec = make_spec("arena", {"strategy": "random", "test_size": 0.2,
                               "train_file": "train.parquet"}, targets=("winner",))
    res = prepare_task(spec, raw, tmp_path / "data")
    assert res.audit.passed
    train, test = read(res.task_dir / "public/train.csv"), read(res.task_dir / "public/test.csv")
    assert train.height + test.height == n and "winner" not in test.columns
    row = dict(zip(train.columns, train.row(0), strict=True))
    k = int(row["id"])
    assert row["id"] == f"{k:05d}" and json.loads(row["turns"]) == [k, k + 1]
    assert float(row["score"]) == k / 4


def _cats_and_dogs(raw: Path, n: int = 40) -> None:
    (raw / "train").mkdir(parents=True)
    for i in range(n):
        kind = "cat" if i % 2 else "dog"
        (raw / "train" / f"{kind}.{i}.jpg").write_bytes(b"\xff\xd8" + bytes([i]))


def test_labels_from_file_names_with_opaque_ids_and_public_names(tmp_path: Path) -> None:
    _cats_and_dogs(tmp_path / "raw")
    split = {"strategy": "random", "test_size": 0.25,
             "transforms": [
                 {"op": "files_table", "pattern": "train/{animal}.{num}.jpg"},
                 {"op": "hash_id", "column": "id", "columns": ["path"]},
                 {"op": "one_hot", "column": "animal", "classes": ["dog", "cat"],
                  "keep": True},
                 {"op": "rename", "columns": {"dog": "label"}}],
             "hidden_columns": {"path": "public", "animal": "public", "num": "public",
                                "cat": "public"},
             "files": {"pattern": "{path}", "dest": "{id}.jpg"}}
    spec = make_spec("dogs", split)
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", grader=grade_submission)
    assert res.audit.passed, res.audit.findings
    test = read(res.task_dir / "public/test.csv")
    assert test.columns == ["id"] and len(test["id"][0]) == 16
    files = sorted(p.name for p in (res.task_dir / "public/test").iterdir())
    assert files == sorted(f"{i}.jpg" for i in test["id"])
    assert res.report.recipe_notes == [
        "the files_table transform's table: files_table: 40 file(s) match "
        "'train/{animal}.{num}.jpg'"]
    answers = read(res.task_dir / "private/answers.csv")
    assert set(answers["label"]) == {"0", "1"}


def test_file_paths_made_of_labels_are_caught_by_the_audit(tmp_path: Path) -> None:
    _cats_and_dogs(tmp_path / "raw")
    split = {"strategy": "random", "transforms": [
        {"op": "files_table", "pattern": "train/{label}.{num}.jpg"}],
        "id_column": "path", "files": {"pattern": "{path}"}}
    with pytest.raises(LeakageError, match="the public paths of 100% of the test files name "
                                           "their row's target 'label'"):
        prepare_task(make_spec("dogs", split, id_col="path"), tmp_path / "raw",
                     tmp_path / "data")


def test_multi_label_one_hot_compose_id_and_dropped_rows_are_reported(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    labels = ["Bark", "Bark,Meow", "Meow", "Chirp", ""] * 8
    pl.DataFrame({"clip": [str(i // 3) for i in range(40)], "part": [str(i % 3) for i in range(40)],
                  "labels": labels}).write_csv(raw / "train_curated.csv")
    split = {"strategy": "random", "test_size": 0.25, "train_file": "train_curated.csv",
             "transforms": [
                 {"op": "drop_rows", "column": "labels", "rule": "empty",
                  "reason": "clips without a label"},
                 {"op": "compose_id", "column": "fname", "template": "{clip}_{part}.wav"},
                 {"op": "one_hot", "column": "labels", "classes": ["Bark", "Meow", "Chirp"],
                  "separator": ","}]}
    spec = make_spec("sounds", split, id_col="fname", targets=("Bark", "Meow", "Chirp"))
    res = prepare_task(spec, raw, tmp_path / "data")
    assert res.report.rows.train + res.report.rows.test == 32
    assert res.report.recipe_notes == [
        "train_curated.csv: drop_rows: 8 row(s) dropped (empty 'labels'): clips without a label"]
    cols = ["fname", "Bark", "Meow", "Chirp"]
    rows = pl.concat([read(res.task_dir / "public/train.csv").select(cols),
                      read(res.task_dir / "private/answers.csv").select(cols)])
    row = rows.filter(pl.col("fname") == "0_1.wav")
    assert row.row(0) == ("0_1.wav", "1", "1", "0")
    bad = {**split, "transforms": [{"op": "one_hot", "column": "labels",
                                    "classes": ["Bark", "Meow"], "separator": ","}]}
    with pytest.raises(SplitError, match="outside the class list"):
        prepare_task(make_spec("s2", bad, id_col="fname", targets=("Bark", "Meow")), raw,
                     tmp_path / "d2")


def test_a_file_shared_by_several_rows_is_placed_once(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    (raw / "structures").mkdir(parents=True)
    rows = []
    for m in range(12):
        (raw / "structures" / f"mol{m}.xyz").write_text(f"{m}\n")
        rows += [(f"{m}_{k}", f"mol{m}", f"{m + k}") for k in range(4)]
    pl.DataFrame(rows, schema=["id", "molecule_name", "label"], orient="row").write_csv(
        raw / "train.csv")
    split = {"strategy": "group", "group_column": "molecule_name", "test_size": 0.25,
             "files": {"pattern": "structures/{molecule_name}.xyz"}}
    res = prepare_task(make_spec("champs", split, metric="mae"), raw, tmp_path / "data")
    assert res.report.files is not None
    assert res.report.files.shared == 36 and res.report.files.linked + \
        res.report.files.copied == 12
    assert res.audit.passed


def test_the_answers_keep_the_column_scored_rows_reads(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    n = 80
    pl.DataFrame({"id": [str(i) for i in range(n)], "breath_id": [str(i // 8) for i in range(n)],
                  "u_out": [str(int(i % 8 > 4)) for i in range(n)],
                  "pressure": [f"{i * 0.1:.1f}" for i in range(n)]}).write_csv(raw / "train.csv")
    spec = TaskSpec.model_validate({
        "id": "kaggle/ventilator", "platform": "kaggle",
        "grading": {"metric": "mae", "id_columns": ["id"], "target_columns": ["pressure"],
                    "scored_rows": {"rule": "where", "column": "u_out", "scored": ["0"],
                                    "unscored": ["1"]}},
        "split": {"strategy": "group", "group_column": "breath_id", "test_size": 0.2}})
    res = prepare_task(spec, raw, tmp_path / "data", grader=grade_submission)
    assert read(res.task_dir / "private/answers.csv").columns == ["id", "pressure", "u_out"]
    assert res.audit.passed and res.report.sample_submission.score is not None


def test_old_recipes_load_unchanged_and_files_table_needs_no_train_file(
        tmp_path: Path) -> None:
    spec = make_spec("old", {"strategy": "random", "test_size": 0.1,
                             "files": {"pattern": "img/{id}.png", "link": True}})
    assert spec.split is not None
    dumped = spec.split.model_dump()
    # fields a recipe does not use are not written: recipes from before them keep their bytes
    assert "transforms" not in dumped and "sources" not in dumped
    assert "dest" not in dumped["files"]
    assert TaskSpec.model_validate(spec.model_dump()).split == spec.split
    _cats_and_dogs(tmp_path / "raw")
    both = make_spec("both", {"strategy": "random", "train_file": "train.csv", "transforms": [
        {"op": "files_table", "pattern": "train/{label}.{num}.jpg"}]})
    with pytest.raises(SplitError, match="leave train_file empty"):
        prepare_task(both, tmp_path / "raw", tmp_path / "data")


def test_a_7z_inside_the_download_is_unpacked_and_a_broken_one_refused(tmp_path: Path) -> None:
    import py7zr

    from tambench.errors import UnsafeArchiveError

    buf = io.BytesIO()
    with py7zr.SevenZipFile(buf, "w") as z:
        z.writestr(_csv(20), "data/processed/train.csv")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "train.csv.7z").write_bytes(buf.getvalue())
    work = tmp_path / "work"
    work.mkdir()
    root = unpack_nested(raw, work)
    assert (root / "train.csv" / "data/processed/train.csv").read_bytes() == _csv(20)
    (raw / "train.csv.7z").write_bytes(b"7z\xbc\xaf\x27\x1c" + b"\x00" * 40)
    with pytest.raises(UnsafeArchiveError, match="train.csv.7z is corrupt"):
        unpack_nested(raw, tmp_path / "work2")


def _apply(steps: list[dict[str, object]], frame: pl.DataFrame) -> pl.DataFrame:
    from tambench.schema.transforms import TRANSFORM_MODELS
    from tambench.splits.transforms import apply_transforms

    models = [TRANSFORM_MODELS[str(s["op"])].model_validate(s) for s in steps]
    out, _ = apply_transforms(models, frame.lazy(), Path("."), "t", required=True)
    return out.collect()


def test_unpivot_gives_one_row_per_key_and_explode_one_per_item() -> None:
    wide = pl.DataFrame({"q": ["1", "2"], "AText": ["a1", "a2"], "BText": ["b1", "b2"],
                         "AMis": ["7", ""], "BMis": ["", "9"]})
    long = _apply([{"op": "unpivot", "keys": ["A", "B"], "key_column": "Answer",
                    "columns": {"Text": "{key}Text", "Mis": "{key}Mis"}}], wide)
    assert long.sort(["q", "Answer"]).rows() == [
        ("1", "A", "a1", "7"), ("1", "B", "b1", ""), ("2", "A", "a2", ""), ("2", "B", "b2", "9")]
    seqs = pl.DataFrame({"id": ["s1", "s2"], "r": ["[0.5, 1]", "[2.25]"], "e": ["[1, 2]", "[3]"]})
    rows = _apply([{"op": "explode", "columns": ["r", "e"], "position_column": "pos"}], seqs)
    assert rows.rows() == [("s1", "0.5", "1", "0"), ("s1", "1", "2", "1"),
                           ("s2", "2.25", "3", "0")]
    uneven = seqs.with_columns(pl.Series("e", ["[1]", "[3]"]))
    with pytest.raises(SplitError, match="1 row\\(s\\) have lists of different lengths"):
        _apply([{"op": "explode", "columns": ["r", "e"], "position_column": "pos"}], uneven)


def test_join_adds_the_columns_of_another_raw_table_by_key(tmp_path: Path) -> None:
    from tambench.schema.transforms import TRANSFORM_MODELS
    from tambench.splits.transforms import apply_transforms

    (tmp_path / "train_ancestors.csv").write_text(
        "id,ancestor_id,parent_id\nn2,a1,\nn1,a1,n2\nn3,a7,\n", encoding="utf-8")
    orders = pl.DataFrame({"id": ["n1", "n2", "n3"], "cell_order": ["c b", "a", "d e"]})

    def join(frame: pl.DataFrame, **step: object) -> pl.DataFrame:
        model = TRANSFORM_MODELS["join"].model_validate(
            {"op": "join", "file": "train_ancestors.csv", "on": "id",
             "columns": ["ancestor_id"], **step})
        out, notes = apply_transforms([model], frame.lazy(), tmp_path, "t", required=True)
        assert notes == ["t: join: ['ancestor_id'] from train_ancestors.csv by id"]
        return out.collect()

    assert join(orders).rows() == [("n1", "c b", "a1"), ("n2", "a", "a1"), ("n3", "d e", "a7")]
    with pytest.raises(SplitError, match=r"id value\(s\) \['n9'\] have no line in train_ancestors.csv"):
        join(pl.concat([orders, pl.DataFrame({"id": ["n9"], "cell_order": ["x"]})]))
    with pytest.raises(SplitError, match=r"has no column\(s\) \['fork_of'\]"):
        join(orders, columns=["fork_of"])
    with pytest.raises(SplitError, match="already has column"):
        join(orders.with_columns(pl.lit("z").alias("ancestor_id")))
    (tmp_path / "twice.csv").write_text("id,ancestor_id\nn1,a\nn1,b\n", encoding="utf-8")
    with pytest.raises(SplitError, match=r"key 'id' repeats in twice.csv: \['n1'\]"):
        join(orders, file="twice.csv")
    with pytest.raises(SplitError, match="not found in the raw data"):
        join(orders, file="gone.csv")
    (tmp_path / "ragged.csv").write_text("id,ancestor_id\nn1,a,extra\n", encoding="utf-8")
    with pytest.raises(SplitError, match="line 2"):
        join(orders, file="ragged.csv")
    with pytest.raises(ValueError, match="must be a path inside the raw data"):
        TRANSFORM_MODELS["join"].model_validate(
            {"op": "join", "file": "../x.csv", "on": "id", "columns": ["a"]})


def test_group_members_lists_the_ids_of_each_rows_group() -> None:
    posts = pl.DataFrame({"posting_id": ["p3", "p1", "p2", "p4"],
                          "label_group": ["g1", "g1", "g2", "g1"]})
    out = _apply([{"op": "group_members", "column": "matches", "group_column": "label_group",
                   "member_column": "posting_id"}], posts)
    assert out.rows() == [("p3", "g1", "p1 p3 p4"), ("p1", "g1", "p1 p3 p4"),
                          ("p2", "g2", "p2"), ("p4", "g1", "p1 p3 p4")]
    with pytest.raises(SplitError, match="must differ"):
        _apply([{"op": "group_members", "column": "m", "group_column": "label_group",
                 "member_column": "label_group"}], posts)


def test_aggregate_merges_the_rows_of_one_key_into_one() -> None:
    boxes = pl.DataFrame({"image_id": ["b7", "a1", "b7", "b7"], "width": ["1024"] * 4,
                          "bbox": ["[834.0, 222.0, 56.0, 36.0]", "[1, 2, 3, 4]", "[0,0,5,5]",
                                   "[9e1, 1, 2, 3]"]})
    step = {"op": "aggregate", "key": "image_id", "column": "PredictionString",
            "template": "1.0 {bbox}", "keep": ["width"]}
    out = _apply([step], boxes)
    assert out.rows() == [
        ("b7", "1024", "1.0 834.0 222.0 56.0 36.0 1.0 0 0 5 5 1.0 9e1 1 2 3"),
        ("a1", "1024", "1.0 1 2 3 4")]
    assert _apply([{**step, "template": "{bbox}", "separator": "|", "keep": []}],
                  boxes.head(1))["PredictionString"].to_list() == ["834.0 222.0 56.0 36.0"]
    with pytest.raises(SplitError, match=r"\['width'\] hold several values for one image_id"):
        _apply([step], boxes.with_columns(pl.Series("width", ["1024", "1", "1024", "9"])))


def test_a_latin_1_table_is_read_when_the_recipe_names_its_encoding(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    lines = ["id,product_title,relevance"] + [
        f"{i},Angle {i}\u00b0 bracket,{1 + i % 3}" for i in range(40)]
    (raw / "train.csv").write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    split = {"strategy": "random", "test_size": 0.2, "train_file": "train.csv"}
    spec = make_spec("depot", {**split, "encoding": "latin-1"}, metric="rmse",
                     targets=("relevance",))
    res = prepare_task(spec, raw, tmp_path / "data")
    train = read(res.task_dir / "public/train.csv")
    assert res.audit.passed and train.height == 32
    assert train["product_title"][0] == f"Angle {train['id'][0]}\u00b0 bracket"
    with pytest.raises(SplitError, match="UTF-8"):
        prepare_task(make_spec("depot2", split, metric="rmse", targets=("relevance",)), raw,
                     tmp_path / "data")
    with pytest.raises(SplitError, match="not a known text encoding"):
        prepare_task(make_spec("depot3", {**split, "encoding": "latin-99"}, metric="rmse",
                               targets=("relevance",)), raw, tmp_path / "data")


def test_a_tsv_whose_header_is_quoted_is_read_with_its_quotes(tmp_path: Path) -> None:
    # stumbleupon's train.tsv quotes every field; its JSON boilerplate doubles its quotes.
    raw = tmp_path / "raw"
    raw.mkdir()
    rows = ['"url"\t"urlid"\t"boilerplate"\t"label"'] + [
        f'"http://a.com/{i}"\t"{i}"\t"{{""title"":""t\tab {i}""}}"\t"{i % 2}"' for i in range(40)]
    (raw / "train.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    spec = make_spec("evergreen", {"strategy": "random", "test_size": 0.2,
                                   "train_file": "train.tsv"}, targets=("label",), id_col="urlid")
    res = prepare_task(spec, raw, tmp_path / "data")
    train = read(res.task_dir / "public/train.csv")
    assert res.audit.passed and train.columns == ["url", "urlid", "boilerplate", "label"]
    k = train["urlid"][0]
    assert json.loads(train["boilerplate"][0], strict=False) == {"title": f"t\tab {k}"}
    assert train["url"][0] == f"http://a.com/{k}"


def test_split_values_gives_one_column_per_joined_value_and_refuses_a_short_cell() -> None:
    poses = pl.DataFrame({"img": ["a", "b"], "t": ["0.5;-1;2", " 3 ;4;5e-1"]})
    out = _apply([{"op": "split_values", "column": "t", "into": ["T0", "T1", "T2"],
                   "separator": ";"}], poses)
    assert out.rows() == [("a", "0.5", "-1", "2"), ("b", "3", "4", "5e-1")]
    kept = _apply([{"op": "split_values", "column": "t", "into": ["T0", "T1", "T2"],
                    "separator": ";", "keep": True}], poses)
    assert kept.columns == ["img", "t", "T0", "T1", "T2"]
    short = poses.with_columns(pl.Series("t", ["1;2;3", "1;2"]))
    with pytest.raises(SplitError, match=r"must hold 3 values joined by ';'.*row 1: '1;2'"):
        _apply([{"op": "split_values", "column": "t", "into": ["T0", "T1", "T2"],
                 "separator": ";"}], short)


def test_the_joined_fixture_kind_writes_n_numbers_in_range_joined_by_semicolons() -> None:
    from tambench.splits.fixture import RawFixture, generate

    fixture = RawFixture.model_validate({
        "sources": [{"source": "https://example.org/data", "detail": "d"}], "rows": 8,
        "tables": [{"path": "labels.csv", "columns": {"id": "seq:{i}",
                                                      "R": "joined:9:0.5:1.5"}}]})
    table = pl.read_csv(generate(fixture)[""]["labels.csv"], infer_schema=False)
    cells = [[float(v) for v in cell.split(";")] for cell in table["R"]]
    assert len(cells) == 8 and all(len(c) == 9 for c in cells)
    assert all(0.5 <= v <= 1.5 for c in cells for v in c)


def test_join_list_joins_json_lists_and_row_number_numbers_the_rows() -> None:
    qa = pl.DataFrame({"q": ["why", "how"], "pids": ['["p1", "p2"]', '["p9"]']})
    out = _apply([{"op": "join_list", "column": "pids", "separator": ","},
                  {"op": "row_number", "column": "qid", "template": "q{n}"}], qa)
    assert out.rows() == [("why", "p1,p2", "q0"), ("how", "p9", "q1")]
    with pytest.raises(SplitError, match="join_list: an item of column 'pids' holds"):
        _apply([{"op": "join_list", "column": "pids", "separator": ","}],
               qa.with_columns(pl.Series("pids", ['["a,b"]', "[]"])))
    with pytest.raises(SplitError, match="join_list: a cell is not a JSON list"):
        _apply([{"op": "join_list", "column": "pids", "separator": ","}],
               qa.with_columns(pl.Series("pids", ['{"a": 1}', "[]"])))
    with pytest.raises(Exception, match="must hold \\{n\\}"):
        make_spec("x", {"strategy": "random", "transforms": [
            {"op": "row_number", "column": "id", "template": "q"}]})


def _herbarium(raw: Path, n: int = 48, *, encoding: str = "latin-1") -> None:
    """A COCO-style metadata.json: images named under their category's folder."""
    images = [{"id": 1000 + i, "file_name": f"images/{i % 4:03d}/{1000 + i}.jpg",
               "height": 1000, "width": 680, "license": 0} for i in range(n)]
    annotations = [{"id": 1000 + i, "image_id": 1000 + i, "category_id": i % 4,
                    "region_id": i % 2} for i in range(n)]
    meta = {"annotations": annotations, "images": images, "info": {"year": 2020},
            "categories": [{"id": k, "name": f"Érable {k}"} for k in range(4)]}
    (raw / "train").mkdir(parents=True)
    (raw / "train/metadata.json").write_bytes(json.dumps(meta, ensure_ascii=False).encode(
        encoding))
    for im in images:
        path = raw / "train" / str(im["file_name"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"jpeg {im['id']}".encode())


def test_a_coco_json_is_the_table_one_row_per_image_with_its_category(tmp_path: Path) -> None:
    _herbarium(tmp_path / "raw")
    split = {"strategy": "stratified", "test_size": 0.25, "stratify_column": "Predicted",
             "transforms": [
                 {"op": "coco_table", "file": "train/metadata.json", "encoding": "latin-1"},
                 {"op": "hash_id", "column": "Id", "columns": ["id"]},
                 {"op": "rename", "columns": {"category_id": "Predicted"}}],
             "hidden_columns": {"id": "public", "file_name": "public",
                                "annotation_id": "public"},
             "files": {"pattern": "train/{file_name}", "dest": "{Id}.jpg"}}
    spec = make_spec("herb", split, id_col="Id", targets=("Predicted",))
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", grader=grade_submission)
    assert res.audit.passed, res.audit.findings
    test = read(res.task_dir / "public/test.csv")
    assert test.columns == ["height", "width", "license", "region_id", "Id"]
    assert test.height == 12
    answers = read(res.task_dir / "private/answers.csv")
    assert sorted(answers["Predicted"]) == sorted(["0", "1", "2", "3"] * 3)
    some = test["Id"][0]
    assert (res.task_dir / f"public/test/{some}.jpg").read_bytes().startswith(b"jpeg 10")
    assert res.report.recipe_notes == [
        "the coco_table transform's table: coco_table: 48 image(s) of 'train/metadata.json', "
        "48 annotated"]
    with pytest.raises(SplitError, match="coco_table: 'train/metadata.json' is not a COCO"):
        prepare_task(make_spec("herb2", {**split, "transforms": [
            {"op": "coco_table", "file": "train/metadata.json", "encoding": "latin-1",
             "image_key": "image_id"}]}, id_col="Id", targets=("Predicted",)),
            tmp_path / "raw", tmp_path / "data")


def test_a_coco_image_with_two_annotations_is_refused(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    meta = {"images": [{"id": i} for i in range(10)],
            "annotations": [{"image_id": i % 9, "category_id": 1} for i in range(10)]}
    (raw / "ann.json").write_text(json.dumps(meta))
    spec = make_spec("two", {"strategy": "random", "transforms": [
        {"op": "coco_table", "file": "ann.json"}]}, targets=("category_id",))
    with pytest.raises(SplitError, match="image '0' of 'ann.json' has several annotations"):
        prepare_task(spec, raw, tmp_path / "data")


def test_a_fixture_writes_tar_archives_inside_its_download(tmp_path: Path) -> None:
    import tarfile

    from tambench.splits.fixture import RawFixture, make_download

    fixture = RawFixture.model_validate({
        "sources": [{"source": "test"}], "rows": 8,
        "tables": [{"path": "train.csv", "columns": {"id": "seq:{i}", "label": "choice:a|b"}}],
        "files": [{"pattern": "train_val/{id}.jpg", "table": "train.csv",
                   "archive": "train_val.tar.gz"},
                  {"pattern": "extra/{id}.bin", "table": "train.csv", "archive": "extra.tar"}]})
    with zipfile.ZipFile(make_download(fixture, tmp_path / "d.zip")) as z:
        for name, mode in (("train_val.tar.gz", "r:gz"), ("extra.tar", "r:")):
            with tarfile.open(fileobj=io.BytesIO(z.read(name)), mode=mode) as t:
                assert len(t.getnames()) == 8 and t.getnames()[0].endswith("/0.jpg" if
                                                                             "gz" in mode
                                                                             else "/0.bin")


def test_group_rows_gives_one_row_per_group_joined_and_first_values_with_a_note() -> None:
    images = pl.DataFrame({"patient": ["p1", "p1", "p1", "p2", "p2"],
                           "side": ["L", "L", "R", "L", "L"],
                           "image": ["i1", "i2", "i3", "i4", "i5"],
                           "machine": ["m1", "m2", "m1", "m3", "m3"],
                           "cancer": ["0", "0", "1", "0", "0"]})
    step = {"op": "group_rows", "by": ["patient", "side"], "join": {"image": " "}}
    out = _apply([step], images)
    assert out.rows() == [("p1", "L", "i1 i2", "m1", "0"), ("p1", "R", "i3", "m1", "1"),
                          ("p2", "L", "i4 i5", "m3", "0")]
    _, notes = apply_transforms([TRANSFORM_MODELS["group_rows"].model_validate(step)],
                                images.lazy(), Path("."), "train.csv", required=True)
    assert notes == ["train.csv: group_rows: 5 row(s) into 3 by ['patient', 'side']; first "
                     "value kept where it differs: machine in 1 group(s)"]


def test_a_parquet_table_is_read_as_text_and_its_fixture_written(tmp_path: Path) -> None:
    from tambench.splits.fixture import RawFixture, make_download

    fixture = RawFixture.model_validate({
        "sources": [{"source": "test"}], "rows": 40,
        "tables": [{"path": "train_meta.parquet", "columns": {
            "batch_id": "group:10:{g}", "event_id": "seq:{i}", "azimuth": "float:0:6"}}]})
    download = make_download(fixture, tmp_path / "d.zip")
    with zipfile.ZipFile(download) as z:
        assert z.read("train_meta.parquet")[:4] == b"PAR1"
    raw = tmp_path / "raw"
    raw.mkdir()
    pl.DataFrame({"event_id": list(range(40)), "batch_id": [i // 10 for i in range(40)],
                  "azimuth": [i / 7 for i in range(40)]}).write_parquet(raw / "meta.parquet")
    spec = make_spec("pq", {"strategy": "group", "group_column": "batch_id",
                            "train_file": "meta.parquet", "test_size": 0.25},
                     id_col="event_id", targets=("azimuth",), metric="rmse")
    res = prepare_task(spec, raw, tmp_path / "data")
    test = read(res.task_dir / "public/test.csv")
    assert test.columns == ["event_id", "batch_id"] and test.height == 10
    answers = read(res.task_dir / "private/answers.csv")
    assert sorted(float(a) * 7 for a in answers["azimuth"]) == pytest.approx(
        sorted(float(e) for e in answers["event_id"]))
    (raw / "meta.parquet").write_text("event_id,batch_id\n1,2\n")
    with pytest.raises(SplitError, match="cannot read meta.parquet"):
        prepare_task(make_spec("pq2", spec.split.model_dump(), id_col="event_id",
                               targets=("azimuth",), metric="rmse"), raw, tmp_path / "data")


def test_compose_id_puts_stated_text_in_empty_cells() -> None:
    boxes = pl.DataFrame({"c": ["3", "14"], "x": ["10.5", None], "y": ["2", ""]})
    out = _apply([{"op": "compose_id", "column": "box", "template": "{c} 1.0 {x} {y}",
                   "empty": {"x": "0", "y": "1"}}], boxes)
    assert out["box"].to_list() == ["3 1.0 10.5 2", "14 1.0 0 1"]
    with pytest.raises(ValueError, match="empty names \\['z'\\], which the template"):
        _apply([{"op": "compose_id", "column": "box", "template": "{c}", "empty": {"z": "0"}}],
               boxes)


def test_npy_arrays_are_the_table_one_column_per_position(tmp_path: Path) -> None:
    raw = tmp_path / "raw" / "timit_11"
    raw.mkdir(parents=True)
    feats = np.arange(60 * 3, dtype=np.float32).reshape(60, 3) / 4
    np.save(raw / "train_11.npy", feats)
    np.save(raw / "train_label_11.npy", np.array([str(i % 3) for i in range(60)]))
    split = {"strategy": "stratified", "test_size": 0.25, "stratify_column": "ClassId",
             "transforms": [
                 {"op": "npy_table", "arrays": {"f": "timit_11/train_11.npy",
                                                "ClassId": "timit_11/train_label_11.npy"}},
                 {"op": "hash_id", "column": "Id", "columns": ["row"]}],
             "hidden_columns": {"row": "public"}}
    spec = make_spec("npy", split, id_col="Id", targets=("ClassId",))
    res = prepare_task(spec, tmp_path / "raw", tmp_path / "data", grader=grade_submission)
    assert res.audit.passed, res.audit.findings
    train = read(res.task_dir / "public/train.csv")
    assert train.columns == ["f_0", "f_1", "f_2", "ClassId", "Id"] and train.height == 45
    first = train.row(0)
    assert float(first[1]) == float(first[0]) + 0.25 and int(float(first[0]) * 4) // 3 % 3 == \
        int(first[3])
    np.save(raw / "train_label_11.npy", np.array(["0"] * 59))
    with pytest.raises(SplitError, match="npy_table: the arrays must be 1-D or 2-D with one "
                                         "item per row; rows \\{'f': 60, 'ClassId': 59\\}"):
        prepare_task(make_spec("npy2", split, id_col="Id", targets=("ClassId",)),
                     tmp_path / "raw", tmp_path / "data")


def test_a_fixture_writes_npy_tables_as_arrays(tmp_path: Path) -> None:
    from tambench.splits.fixture import RawFixture, make_download

    fixture = RawFixture.model_validate({
        "sources": [{"source": "test"}], "rows": 12,
        "tables": [{"path": "x.npy", "columns": {"a": "float:0:1", "b": "float:5:6"}},
                   {"path": "y.npy", "columns": {"label": "choice:3|7"}}]})
    with zipfile.ZipFile(make_download(fixture, tmp_path / "d.zip")) as z:
        x = np.load(io.BytesIO(z.read("x.npy")))
        y = np.load(io.BytesIO(z.read("y.npy")))
    assert x.shape == (12, 2) and x.dtype == np.float32 and (x[:, 1] >= 5).all()
    assert y.shape == (12,) and sorted(set(y.tolist())) == ["3", "7"]


def test_merge_adds_another_tables_columns_per_match_and_counts_the_unmatched(
        tmp_path: Path) -> None:
    (tmp_path / "labels.csv").write_text("id,organ,mask\ns1,stomach,1 2\ns1,bowel,\n"
                                         "s2,stomach,3 4\n")
    slices = pl.DataFrame({"id": ["s1", "s2", "s3"], "width": ["266", "310", "266"]})
    step = TRANSFORM_MODELS["merge"].model_validate({"op": "merge", "file": "labels.csv",
                                                    "on": ["id"]})
    out, notes = apply_transforms([step], slices.lazy(), tmp_path, "slices", required=True)
    assert out.collect().sort(["id", "organ"]).rows() == [
        ("s1", "266", "bowel", None), ("s1", "266", "stomach", "1 2"),
        ("s2", "310", "stomach", "3 4")]
    assert notes == ["slices: merge: 3 row(s) after joining 'labels.csv' on ['id']; 1 row(s) "
                     "without a match dropped"]
    bad = TRANSFORM_MODELS["merge"].model_validate({"op": "merge", "file": "labels.csv",
                                                   "on": ["width"]})
    with pytest.raises(SplitError, match="merge: 'labels.csv' has no column\\(s\\) \\['width'\\]"):
        apply_transforms([bad], slices.lazy(), tmp_path, "slices", required=True)


def test_a_sample_submission_keyed_by_several_id_columns_is_audited_by_them(
        tmp_path: Path) -> None:
    """uw-madison: rows are slice and organ; the submission names them by id and class."""
    raw = tmp_path / "raw"
    raw.mkdir()
    rows = [(f"s{i}", organ, f"{i + 1} {k + 1}") for i in range(40)
            for k, organ in enumerate(("bowel", "stomach"))]
    pl.DataFrame(rows, schema=["id", "class", "predicted"], orient="row").with_columns(
        pl.concat_str(["id", "class"], separator="_").alias("row")).write_csv(
        raw / "train.csv")
    spec = make_spec("organs", {"strategy": "group", "group_column": "id", "test_size": 0.25,
                                "id_column": "row"}, metric="dice", targets=("predicted",),
                     grading={"id_columns": ["id", "class"],
                              "submission_header": ["id", "class", "predicted"]})
    res = prepare_task(spec, raw, tmp_path / "data", grader=grade_submission)
    assert res.audit.passed, res.audit.findings
    sample = res.task_dir / "public/sample_submission.csv"
    answers = read(res.task_dir / "private/answers.csv")
    answers.select(["id", "class", "predicted"]).write_csv(sample)
    from tambench.splits.audit.run import audit_task

    report = audit_task(spec, res.task_dir)
    assert any("equals the answers on every row" in f for f in report.findings)
