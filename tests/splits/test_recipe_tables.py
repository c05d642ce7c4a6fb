"""Recipe transforms that read other raw files: a table from a file of ragged lines, columns
joined from another table, integer ids combined from columns, one row per pixel of an image;
and the fixture kinds that generate such downloads."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tambench.errors import SplitError
from tambench.schema.transforms import TRANSFORM_MODELS
from tambench.splits.fixture import FixtureTable, RawFixture, generate
from tambench.splits.transforms import apply_transforms

SRC = [{"source": "test"}]


def _run(steps: list[dict[str, object]], raw: Path,
         frame: pl.DataFrame | None = None) -> pl.DataFrame:
    models = [TRANSFORM_MODELS[str(s["op"])].model_validate(s) for s in steps]
    start = (frame if frame is not None else pl.DataFrame()).lazy()
    out, _ = apply_transforms(models, start, raw, "t", required=True)
    return out.collect()


def _labels(raw: Path, text: str) -> None:
    raw.mkdir(parents=True, exist_ok=True)
    (raw / "labels.txt").write_text(text)
    (raw / "names.txt").write_text("rec_id,filename\n0,a\n1,b\n2,c\n3,d\n")


RAGGED = {"op": "ragged_table", "path": "labels.txt", "columns": ["rec_id"],
          "rest_column": "labels"}


def test_a_ragged_file_becomes_a_table_joined_one_hot_unpivoted_with_combined_ids(
        tmp_path: Path) -> None:
    _labels(tmp_path, "rec_id,[labels]\n0,1,2\n1,?\n2\n3,0\n")
    out = _run([RAGGED,
                {"op": "drop_rows", "column": "labels", "rule": "equals", "values": ["?"],
                 "reason": "hidden"},
                {"op": "join", "file": "names.txt", "on": "rec_id", "columns": ["filename"]},
                {"op": "one_hot", "column": "labels", "classes": ["0", "1", "2"],
                 "separator": ",", "prefix": "s"},
                {"op": "unpivot", "keys": ["0", "1", "2"], "key_column": "species",
                 "columns": {"p": "s{key}"}},
                {"op": "combine_ints", "column": "Id", "terms": {"rec_id": 100, "species": 1}}],
               tmp_path)
    got = sorted(out.select("Id", "filename", "p").rows(), key=lambda r: int(r[0]))
    assert got == [("0", "a", "0"), ("1", "a", "1"), ("2", "a", "1"),
                   ("200", "c", "0"), ("201", "c", "0"), ("202", "c", "0"),
                   ("300", "d", "1"), ("301", "d", "0"), ("302", "d", "0")]


@pytest.mark.parametrize(("data", "message"), [
    (b"rec_id,[labels]\n0,1\n\n2,3\n", "labels.txt, line 3 is blank"),
    (b"h\n0,1\n1\n", "line\\(s\\) \\[3\\] have fewer than 2"),
    (b"h\n", "has no data line"),
    (b"h\n0,1\n1,\xff\n", "labels.txt, line 3 is not UTF-8"),
])
def test_a_ragged_file_is_read_strictly(tmp_path: Path, data: bytes, message: str) -> None:
    (tmp_path / "labels.txt").write_bytes(data)
    step = {**RAGGED, "columns": ["rec_id", "x"]} if "fewer" in message else RAGGED
    with pytest.raises(SplitError, match=message):
        _run([step], tmp_path)


def test_a_table_builder_must_come_first_and_names_must_differ(tmp_path: Path) -> None:
    _labels(tmp_path, "h\n0,1\n")
    with pytest.raises(SplitError, match="ragged_table must be the first transform"):
        _run([{"op": "rename", "columns": {"a": "b"}}, RAGGED], tmp_path,
             pl.DataFrame({"a": ["1"]}))
    with pytest.raises(ValueError, match="column names repeat"):
        TRANSFORM_MODELS["ragged_table"].model_validate({**RAGGED, "rest_column": "rec_id"})


def test_a_join_needs_one_line_per_row(tmp_path: Path) -> None:
    _labels(tmp_path, "h\n0\n")
    join = {"op": "join", "file": "names.txt", "on": "rec_id", "columns": ["filename"]}
    frame = pl.DataFrame({"rec_id": ["0", "9"]})
    with pytest.raises(SplitError, match="rec_id value\\(s\\) \\['9'\\] have no line"):
        _run([join], tmp_path, frame)
    (tmp_path / "names.txt").write_text("rec_id,filename\n0,a\n0,b\n")
    with pytest.raises(SplitError, match="key 'rec_id' repeats in names.txt: \\['0'\\]"):
        _run([join], tmp_path, frame.head(1))
    (tmp_path / "names.txt").write_text("rec_id,filename\n0,a,extra\n")
    with pytest.raises(SplitError, match="line 2"):
        _run([join], tmp_path, frame.head(1))
    with pytest.raises(SplitError, match="has no column\\(s\\) \\['size'\\]"):
        _run([{**join, "columns": ["size"]}], tmp_path, frame.head(1))


def test_combined_ints_refuse_a_value_that_is_not_an_integer(tmp_path: Path) -> None:
    frame = pl.DataFrame({"a": ["1", "x"], "b": ["2", "3"]})
    with pytest.raises(SplitError, match="column 'a' holds \\['x'\\], not integers"):
        _run([{"op": "combine_ints", "column": "Id", "terms": {"a": 100, "b": 1}}], tmp_path,
             frame)


def _gray_png(path: Path, pixels: np.ndarray) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels.astype(np.uint8), mode="L").save(path)


PIXELS = {"op": "pixels", "id_template": "{image}_{row}_{col}"}


def test_pixels_gives_one_row_per_pixel_with_its_intensity(tmp_path: Path) -> None:
    _gray_png(tmp_path / "clean/7.png", np.array([[0, 255, 51], [102, 204, 255]]))
    _gray_png(tmp_path / "clean/9.png", np.array([[255]]))
    frame = pl.DataFrame({"image": ["7", "9"], "path": ["clean/7.png", "clean/9.png"]})
    out = _run([PIXELS], tmp_path, frame)
    assert out.columns == ["image", "path", "id", "value"]
    assert [(i, float(v)) for i, v in out.select("id", "value").rows()] == [
        ("7_1_1", 0.0), ("7_1_2", 1.0), ("7_1_3", 0.2), ("7_2_1", 0.4), ("7_2_2", 0.8),
        ("7_2_3", 1.0), ("9_1_1", 1.0)]
    (tmp_path / "clean/9.png").write_bytes(b"not an image")
    with pytest.raises(SplitError, match="cannot read the image 'clean/9.png'"):
        _run([PIXELS], tmp_path, frame)
    with pytest.raises(SplitError, match="image 'clean/5.png' not found"):
        _run([PIXELS], tmp_path, pl.DataFrame({"image": ["5"], "path": ["clean/5.png"]}))
    with pytest.raises(ValueError, match="must name both \\{row\\} and \\{col\\}"):
        TRANSFORM_MODELS["pixels"].model_validate({**PIXELS, "id_template": "{image}_{row}"})


def test_fixture_subsets_ragged_lines_and_png_files() -> None:
    from PIL import Image

    fixture = RawFixture.model_validate({"sources": SRC, "rows": 16, "tables": [
        {"path": "labels.txt", "ragged": True, "header": "rec_id,[labels]",
         "columns": {"rec_id": "seq:{i}", "labels": "subset:?:a|b|c"}},
        {"path": "names.csv", "virtual": True, "columns": {"name": "seq:n{i}"}}],
        "files": [{"pattern": "img/{name}.png", "table": "names.csv", "image": "5x3"}]})
    members = generate(fixture)[""]
    lines = members["labels.txt"].decode().splitlines()
    assert lines[0] == "rec_id,[labels]" and lines[4] == "3,?" and lines[12] == "11,?"
    sets = [line.split(",")[1:] for i, line in enumerate(lines[1:]) if i % 8 != 3]
    assert any(not s for s in sets) and any(len(s) > 1 for s in sets)
    assert all(set(s) <= {"a", "b", "c"} and len(set(s)) == len(s) for s in sets)
    with Image.open(io.BytesIO(members["img/n0.png"])) as im:
        assert im.size == (5, 3) and im.mode == "L"
    assert FixtureTable(path="x.csv", columns={"a": "int:0:1"}).ragged is False


def _mp3(tmp: Path, name: str, data: bytes) -> Path:
    path = tmp / name
    path.write_bytes(data)
    return path


def test_id3_tags_are_stripped_and_the_audio_kept_byte_for_byte(tmp_path: Path) -> None:
    from tambench.splits.files import copy_without_id3
    from tambench.splits.fixture import _tagged

    audio = bytes(range(256)) * 3
    tagged = _tagged("Alder Flycatcher (aldfly)", audio)
    assert b"aldfly" in tagged[:60] and tagged[-128:].startswith(b"TAG")
    two_tags = tagged[: len(tagged) - len(audio) - 128] + tagged
    for name, data in [("one.mp3", tagged), ("two.mp3", two_tags),
                       ("bare.mp3", audio), ("ext.mp3", tagged[:-128] + b"TAG+" + b"\0" * 223
                                             + tagged[-128:])]:
        copy_without_id3(_mp3(tmp_path, name, data), tmp_path / f"out-{name}")
        assert (tmp_path / f"out-{name}").read_bytes() == audio, name
    bad = b"ID3\x03\x00\x00\x00\x00\x7f\x7f" + audio  # a tag longer than the file
    with pytest.raises(SplitError, match="runs past the end of the file"):
        copy_without_id3(_mp3(tmp_path, "bad.mp3", bad), tmp_path / "out-bad.mp3")
    with pytest.raises(SplitError, match="malformed size"):
        copy_without_id3(_mp3(tmp_path, "bad2.mp3", b"ID3\x03\x00\x00\x80\x00\x00\x00" + audio),
                         tmp_path / "out-bad2.mp3")


def test_the_birdcall_recordings_leak_their_species_unless_their_tags_are_stripped(
        tmp_path: Path) -> None:
    from tambench.grading.grade import grade_submission
    from tambench.schema.io import load_taskspec
    from tambench.splits.fixture import make_download
    from tambench.splits.prepare import prepare_task

    folder = Path(__file__).resolve().parents[2] / \
        "tambench/tasks/catalogue/kaggle/cornell-birdcall-identification"
    spec = load_taskspec(folder / "task.json")
    download = make_download(RawFixture.read(folder / "raw_fixture.json"), tmp_path / "dl.zip")
    res = prepare_task(spec, download, tmp_path / "data", grader=grade_submission)
    assert res.audit.passed
    test_files = sorted((res.task_dir / "public/test").iterdir())
    assert test_files and all(not p.read_bytes().startswith(b"ID3") for p in test_files)
    assert spec.split is not None and spec.split.files is not None  # type: ignore[attr-defined]
    files = spec.split.files.model_copy(update={"strip": ""})  # type: ignore[attr-defined]
    leaky = spec.model_copy(update={"split": spec.split.model_copy(update={"files": files})})
    with pytest.raises(Exception, match="hold their row's target 'birds' in their bytes"):
        prepare_task(leaky, download, tmp_path / "data2", grader=grade_submission)


BASELINE = {"op": "baseline", "group": "Patient", "order": "Weeks",
            "columns": {"Weeks": "Base_Weeks", "FVC": "Base_FVC"}}


def test_each_groups_first_row_becomes_columns_of_its_later_rows(tmp_path: Path) -> None:
    visits = pl.DataFrame({"Patient": ["A", "B", "A", "A", "C", "B"],
                           "Weeks": ["5", "0", "-3", "12", "7", "2"],
                           "FVC": ["2100", "3000", "2000", "1900", "2500", "2950"]})
    models = [TRANSFORM_MODELS["baseline"].model_validate(BASELINE)]
    out, notes = apply_transforms(models, visits.lazy(), tmp_path, "train.csv", required=True)
    # A's first visit is week -3 (the third row); C has a single visit and no later row
    assert out.collect().rows() == [("A", "5", "2100", "-3", "2000"),
                                    ("A", "12", "1900", "-3", "2000"),
                                    ("B", "2", "2950", "0", "3000")]
    assert notes == ["train.csv: baseline: the first row of each of 3 'Patient' group(s) by "
                     "'Weeks' moved into ['Base_Weeks', 'Base_FVC'] of its later rows; 1 "
                     "group(s) of one row dropped"]


def test_a_baseline_needs_numbers_to_order_and_new_column_names(tmp_path: Path) -> None:
    visits = pl.DataFrame({"Patient": ["A", "A"], "Weeks": ["1", "x"], "FVC": ["1", "2"]})
    with pytest.raises(SplitError, match=r"'Weeks' is not a number in 1 row\(s\), e.g. data "
                                         r"row 2 \('x'\)"):
        _run([BASELINE], tmp_path, visits)
    taken = visits.with_columns(pl.lit("0").alias("Base_FVC"))
    with pytest.raises(SplitError, match=r"already has column\(s\) \['Base_FVC'\]"):
        _run([BASELINE], tmp_path, taken.with_columns(pl.lit("1").alias("Weeks")))
    with pytest.raises(ValueError, match="distinct new names"):
        TRANSFORM_MODELS["baseline"].model_validate({**BASELINE, "columns": {"FVC": "Weeks"}})


def test_concat_files_stacks_every_matching_table_with_the_pattern_fields(
        tmp_path: Path) -> None:
    for drive, phone, rows in (("d2", "pixel", "3,1.0\n"), ("d1", "pixel", "1,0.5\n2,0.6\n"),
                               ("d1", "mi8", "9,0.9\n")):
        folder = tmp_path / "train" / drive / phone
        folder.mkdir(parents=True)
        (folder / "ground_truth.csv").write_text("t,lat\n" + rows)
    (tmp_path / "train" / "d1" / "mi8" / "device_gnss.csv").write_text("t,x\n1,2\n")
    step = {"op": "concat_files", "pattern": "train/{drive}/{phone}/ground_truth.csv"}
    models = [TRANSFORM_MODELS["concat_files"].model_validate(step)]
    out, notes = apply_transforms(models, pl.LazyFrame(), tmp_path, "t", required=True)
    assert out.collect().rows() == [("9", "0.9", "d1", "mi8"), ("1", "0.5", "d1", "pixel"),
                                    ("2", "0.6", "d1", "pixel"), ("3", "1.0", "d2", "pixel")]
    assert notes == ["t: concat_files: 4 row(s) of 3 file(s) matching "
                     "'train/{drive}/{phone}/ground_truth.csv'"]
    (tmp_path / "train" / "d2" / "pixel" / "ground_truth.csv").write_text("t,lon\n3,1.0\n")
    with pytest.raises(SplitError, match=r"d2/pixel/ground_truth.csv has the columns "
                                         r"\['t', 'lon'\]; every file needs \['t', 'lat'\]"):
        _run([step], tmp_path)
    with pytest.raises(ValueError, match="needs a"):
        TRANSFORM_MODELS["concat_files"].model_validate({"op": "concat_files",
                                                         "pattern": "train/gt.csv"})


def test_npy_rle_encodes_each_rows_mask_down_the_columns_with_its_size(tmp_path: Path) -> None:
    for rec, mask in (("r1", [[1, 0, 0], [1, 1, 0]]), ("r2", [[0, 0, 0], [0, 0, 0]])):
        (tmp_path / rec).mkdir()
        np.save(tmp_path / rec / "mask.npy", np.array(mask, dtype=np.uint8)[:, :, None])
    step = {"op": "npy_rle", "pattern": "{record_id}/mask.npy", "into": "encoded_pixels",
            "empty": "-", "height_column": "height", "width_column": "width"}
    rows = pl.DataFrame({"record_id": ["r1", "r2"]})
    models = [TRANSFORM_MODELS["npy_rle"].model_validate(step)]
    out, notes = apply_transforms(models, rows.lazy(), tmp_path, "t", required=True)
    # column-major: (0,0)=1, (1,0)=2 run of 2; (1,1)=4 run of 1
    assert out.collect().rows() == [("r1", "1 2 4 1", "2", "3"), ("r2", "-", "2", "3")]
    assert notes == ["t: npy_rle: 2 mask(s) encoded into 'encoded_pixels', 1 empty"]
    np.save(tmp_path / "r2" / "mask.npy", np.zeros((2, 3, 2), dtype=np.uint8))
    with pytest.raises(SplitError, match=r"has the shape \(2, 3, 2\), not a 2-D mask"):
        _run([step], tmp_path, rows)


def test_a_fixture_writes_npy_masks() -> None:
    table = FixtureTable(path="meta.csv", columns={"record_id": "seq:r{i}"}, rows=8)
    fixture = RawFixture(sources=SRC, tables=[table], files=[
        {"pattern": "train/{record_id}/mask.npy", "table": "meta.csv", "npy": "3x4x1"}])
    members = generate(fixture)[""]
    arr = np.load(io.BytesIO(members["train/r0/mask.npy"]), allow_pickle=False)
    assert arr.shape == (3, 4, 1) and arr.dtype == np.uint8 and set(np.unique(arr)) <= {0, 1}
