"""``prepare --like mle-bench`` writes MLE-bench's split row for row: one test per split kind
on generated downloads (a table split by a share; a table whose rows carry files).

The expected digests are of the id column of MLE-bench's own files, in their order: they were
obtained by running MLE-bench's ``prepare.py`` of each competition (openai/mle-bench at
783b15a, in a separate environment) on the same generated downloads
(:mod:`tests.grading.mlebench_case`; the cactus images zipped as its download has them)."""

from __future__ import annotations

import csv
import hashlib
import json
import os
from pathlib import Path

import pytest

from tambench.cli.main import main
from tests.grading.mlebench_case import CACTUS, SPACESHIP, write_cactus_raw, write_raw

#: sha256 of "\n".join(ids) of MLE-bench's private/test.csv and public/train.csv.
SPACESHIP_TEST = "f33ebe72bff08e4032f0e89413306f3db17cf9ad900520ffc945f100a378a64e"
SPACESHIP_TRAIN = "37038fdc67e999bfc320a0175552f709a9b3b0e69705c421e183bbfc0dde24ad"
CACTUS_TEST = "919ba7a24bf651ce5271882b09dd1b94e632acec757eba08ddc5a87a662eaacd"
CACTUS_TRAIN = "f6e1712d59ec2d0f967e891e6f7816b05d59fc2901f6790252357f3e77751dc6"
#: sha256 of "\n".join(has_cactus) of MLE-bench's private/test.csv.
CACTUS_ANSWERS = "e0b0626e0542cbaf865f5e9cd1f5e856a517182ac2895576c1b7f18f19573796"


def _column(path: Path, name: str) -> list[str]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [row[name] for row in csv.DictReader(fh)]


def _digest(values: list[str]) -> str:
    return hashlib.sha256("\n".join(values).encode()).hexdigest()


def _prepare(task: str, raw: Path, data: Path, *extra: str) -> int:
    return main(["prepare", task, "--raw", str(raw), "--data-dir", str(data),
                 "--like", "mle-bench", *extra])


def test_a_table_split_by_a_share_is_mle_benchs(tmp_path: Path) -> None:
    write_raw(tmp_path / "downloads")
    data = tmp_path / "data"
    assert _prepare(f"kaggle/{SPACESHIP}", tmp_path / "downloads" / SPACESHIP / "raw", data) == 0
    task = data / "kaggle" / SPACESHIP
    test_ids = _column(task / "private" / "test.csv", "PassengerId")
    assert len(test_ids) == 40 and _digest(test_ids) == SPACESHIP_TEST
    assert _digest(_column(task / "public" / "train.csv", "PassengerId")) == SPACESHIP_TRAIN
    for public in ("test.csv", "sample_submission.csv"):  # the same rows, in the same order
        assert _column(task / "public" / public, "PassengerId") == test_ids
    with open(task / "public" / "test.csv", encoding="utf-8") as fh:
        assert fh.readline().strip() == "PassengerId,HomePlanet,Age"
    report = json.loads((task / "split_report.json").read_text())
    assert report["like"] == "mle-bench" and report["test_size"] == 0.1
    assert oct(os.stat(task / "private").st_mode & 0o777) == "0o700"
    # graded from there: the answers' own rows are a perfect submission
    sub = tmp_path / "submission.csv"
    sub.write_text("PassengerId,Transported\n" + "".join(
        f"{i},{t}\n" for i, t in zip(test_ids, _column(task / "private" / "test.csv",
                                                       "Transported"), strict=True)))
    assert main(["grade", str(sub), "--task", SPACESHIP, "--data-dir", str(data)]) == 0


def test_a_table_whose_rows_carry_files_is_mle_benchs(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    write_cactus_raw(raw)
    data = tmp_path / "data"
    assert _prepare(f"kaggle/{CACTUS}", raw, data) == 0
    task = data / "kaggle" / CACTUS
    test_ids = _column(task / "private" / "test.csv", "id")
    train_ids = _column(task / "public" / "train.csv", "id")
    assert (len(train_ids), len(test_ids)) == (202, 48)  # test_size 0.19 of 250
    assert _digest(test_ids) == CACTUS_TEST and _digest(train_ids) == CACTUS_TRAIN
    assert _digest(_column(task / "private" / "test.csv", "has_cactus")) == CACTUS_ANSWERS
    # the images follow their rows (MLE-bench zips the two folders; the files are the same)
    assert sorted(os.listdir(task / "public" / "test" / "train")) == sorted(test_ids)
    assert sorted(os.listdir(task / "public" / "train" / "train")) == sorted(train_ids)
    manifest = _column(task / "public" / "files_manifest.csv", "id")
    # training files in the table's order, then the test files in the public test order
    assert sorted(manifest[:202]) == sorted(train_ids) and manifest[202:] == test_ids


@pytest.mark.parametrize(("task", "why"), [
    ("kaggle/text-normalization-challenge-russian-language",
     "MLE-bench's prepare.py does not split one raw table by rows"),
    ("kaggle/hubmap-kidney-segmentation", "not a literal test share"),
    ("kaggle/siim-covid19-detection", "it sorts both sides by id after the split"),
    ("kaggle/spaceship-titanic", "a raw folder"),
])
def test_what_is_not_mle_benchs_table_split_is_refused_naming_why(
    tmp_path: Path, task: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "raw"
    if task != "kaggle/spaceship-titanic":
        raw.mkdir()
    else:
        raw.write_text("not a folder")
    assert _prepare(task, raw, tmp_path / "data") == 1
    err = capsys.readouterr().err
    assert why in err
    assert not (tmp_path / "data" / task).exists()
