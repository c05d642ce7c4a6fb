"""What a prepared task folder looks like on disk: modes, bytes, links, versioned files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tambench.errors import ReportVersionError, SourceError
from tambench.grading.check_split import CheckSplitReport
from tambench.splits.audit import AuditReport
from tambench.splits.checksums import ChecksumsFile
from tambench.splits.prepare import prepare_task
from tambench.splits.quarantine import Quarantine
from tambench.splits.report import SplitReport
from tests.splits.helpers import images, make_spec, tabular


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.lstat().st_mode)


def test_public_files_are_readable_by_everyone_and_private_ones_by_us_only(
        tmp_path: Path) -> None:
    images(tmp_path / "raw", n=120)
    for p in (tmp_path / "raw/images").iterdir():
        os.chmod(p, 0o600 if p.stem.endswith("7") else 0o644)
    old_umask = os.umask(0o077)  # a strict umask must not leak into the prepared modes
    try:
        res = prepare_task(make_spec("modes", {"strategy": "random", "train_file": "labels.csv",
                                               "files": {"pattern": "images/{id}.png"}}),
                           tmp_path / "raw", tmp_path / "data")
    finally:
        os.umask(old_umask)
    root = res.task_dir
    assert _mode(root) == 0o755
    for dirpath, _, filenames in os.walk(root / "public"):
        assert _mode(Path(dirpath)) == 0o755
        assert all(_mode(Path(dirpath) / n) == 0o644 for n in filenames)
    assert _mode(root / "private") == 0o700 and _mode(root / "private/answers.csv") == 0o600
    assert _mode(root / "split_report.json") == 0o644 and _mode(root / "checksums.json") == 0o644
    # raw files keep their modes: only 0644 files were linked, the others copied
    assert all(_mode(p) == (0o600 if p.stem.endswith("7") else 0o644)
               for p in (tmp_path / "raw/images").iterdir())
    assert res.report.files is not None and res.report.files.copied == 12


def test_every_public_table_is_utf8_without_bom_with_lf_line_ends(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    df = tabular(raw, n=300, n_classes=2)
    body = df.write_csv().replace("\n", "\r\n")
    (raw / "train.csv").write_bytes(b"\xef\xbb\xbf" + body.encode())
    res = prepare_task(make_spec("bytes", {"strategy": "random"}), raw, tmp_path / "data")
    for rel in ("public/train.csv", "public/test.csv", "public/sample_submission.csv",
                "private/answers.csv"):
        data = (res.task_dir / rel).read_bytes()
        assert not data.startswith(b"\xef\xbb\xbf") and b"\r" not in data, rel
    train = pl.read_csv(res.task_dir / "public/train.csv", infer_schema=False)
    assert train.columns == df.columns and train.height == 270


def test_a_link_out_of_the_raw_folder_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "elsewhere" / "answers.csv"
    secret.parent.mkdir()
    secret.write_text("id,label\n1,a\n")
    raw = tmp_path / "raw"
    tabular(raw, n=200)
    (raw / "extra").mkdir()
    os.symlink(secret, raw / "extra" / "stores.csv")
    spec = make_spec("links", {"strategy": "random", "train_file": "train.csv",
                               "extra_public_files": ["extra/stores.csv"]})
    with pytest.raises(SourceError, match=r"holds 1 link\(s\) pointing outside it: .*stores.csv"):
        prepare_task(spec, raw, tmp_path / "data")
    assert not (tmp_path / "data/kaggle/links").exists()
    os.unlink(raw / "extra" / "stores.csv")
    os.symlink(tmp_path / "elsewhere", raw / "more")  # a linked folder leads out as well
    with pytest.raises(SourceError, match="more ->"):
        prepare_task(make_spec("links", {"strategy": "random", "train_file": "train.csv"}), raw,
                     tmp_path / "data")


def test_a_link_inside_the_raw_folder_is_followed(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    tabular(raw, n=200)
    (raw / "copy").mkdir()
    os.symlink(raw / "train.csv", raw / "copy" / "table.csv")
    res = prepare_task(make_spec("inward", {"strategy": "random", "train_file": "copy/table.csv"}),
                       raw, tmp_path / "data")
    assert res.report.rows.train + res.report.rows.test == 200


def test_a_prepared_folder_holds_no_symbolic_link_even_from_linked_raw_files(
        tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    images(raw, n=120)
    (raw / "store").mkdir()
    for p in sorted((raw / "images").iterdir())[:40]:  # files reached through inward links
        p.rename(raw / "store" / p.name)
        os.symlink(raw / "store" / p.name, p)
    (raw / "store/stores.csv").write_text("store,city\n1,lyon\n2,nice\n")
    os.symlink(raw / "store/stores.csv", raw / "side.csv")
    res = prepare_task(make_spec("nolinks", {"strategy": "random", "train_file": "labels.csv",
                                             "files": {"pattern": "images/{id}.png"},
                                             "extra_public_files": ["side.csv"]}),
                       raw, tmp_path / "data")
    paths = list(res.task_dir.rglob("*"))
    assert len(paths) > 120 and not [p for p in paths if p.is_symlink()]
    assert all(p.resolve().is_relative_to(res.task_dir) for p in paths)
    (published,) = res.task_dir.rglob("img0000.png")
    assert published.read_bytes() == (raw / "store/img0000.png").read_bytes()
    assert (res.task_dir / "public/side.csv").read_text().startswith("store,city")


def test_a_hard_link_to_another_tasks_private_answers_is_refused(tmp_path: Path) -> None:
    tabular(tmp_path / "raw1", n=300)
    first = prepare_task(make_spec("first", {"strategy": "random"}), tmp_path / "raw1",
                         tmp_path / "data")
    raw = tmp_path / "raw2"
    tabular(raw, n=300)
    os.link(first.task_dir / "private/answers.csv", raw / "labels.csv")
    spec = make_spec("second", {"strategy": "random", "train_file": "train.csv",
                                "extra_public_files": ["labels.csv"]})
    with pytest.raises(SourceError, match="labels.csv is the private file .*answers.csv under "
                                          "another name"):
        prepare_task(spec, raw, tmp_path / "data")
    assert not (tmp_path / "data/kaggle/second").exists()


@pytest.mark.parametrize("model", [SplitReport, ChecksumsFile, AuditReport, CheckSplitReport,
                                   Quarantine])
def test_a_file_of_a_newer_format_version_is_refused(tmp_path: Path, model: type) -> None:
    path = tmp_path / "future.json"
    path.write_text(json.dumps({"schema_version": 2, "anything": "from the future"}))
    with pytest.raises(ReportVersionError, match="schema_version 2, but this tambench reads "
                                                 "versions up to 1; upgrade tambench"):
        model.read(path)


def test_the_split_report_reads_back_equal(tmp_path: Path) -> None:
    tabular(tmp_path / "raw", n=300)
    res = prepare_task(make_spec("back", {"strategy": "stratified", "seed": 2}),
                       tmp_path / "raw", tmp_path / "data")
    again = SplitReport.read(res.task_dir / "split_report.json")
    assert again == res.report and again.settings["stratify_columns"] == ["label"]
    assert np.isclose(again.rows.test_fraction, 0.1)


def test_files_left_out_of_a_rows_folder_are_never_published(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    rows = [(f"t{i}", f"d{i // 2}", f"{i * 0.1:.1f}") for i in range(40)]
    raw.mkdir()
    pl.DataFrame(rows, schema=["id", "trip", "label"], orient="row").write_csv(
        raw / "train.csv")
    for _, trip, _ in rows:
        folder = raw / "trips" / trip
        (folder / "log").mkdir(parents=True, exist_ok=True)
        (folder / "gnss.csv").write_text("t,x\n1,2\n")
        (folder / "ground_truth.csv").write_text("t,lat\n1,37.4\n")
        (folder / "log" / "span.nmea").write_text("$GPGGA,reference\n")
    spec = make_spec("trips", {"strategy": "group", "group_column": "trip", "train_file":
                               "train.csv", "files": {"pattern": "trips/{trip}", "dest": "{trip}",
                                                      "exclude": ["ground_truth.csv", "*.nmea"]}},
                     metric="rmse")
    res = prepare_task(spec, raw, tmp_path / "data")
    pub = res.task_dir / "public"
    placed = sorted(p.relative_to(pub).as_posix() for side in ("train", "test")
                    for p in (pub / side).rglob("*") if p.is_file())
    assert placed and all(p.endswith("/gnss.csv") for p in placed), placed[:4]
    assert {p.split("/")[0] for p in placed} == {"train", "test"}
    assert spec.split is not None and spec.split.model_dump()["files"]["exclude"] == [
        "ground_truth.csv", "*.nmea"]
