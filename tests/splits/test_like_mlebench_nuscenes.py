"""``prepare --like mle-bench`` of a nuScenes-format dataset split by its logs (the
``nuscenes_logs`` kind: Lyft 3D Object Detection for Autonomous Vehicles), on the task's
generated download: the files compared with digests of MLE-bench's own output and with files
built here from ``train_test_split``, json and pandas, and bad metadata refused naming it."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from tambench.errors import SplitError
from tests.splits.test_like_mlebench import _csv, _generated, _made, _text

SLUG = "3d-object-detection-for-autonomous-vehicles"

#: MLE-bench's prepare.py of the competition at 783b15a, run on the same generated download
#: (pandas 3.1.1, scikit-learn 1.9.1): sha256 of each file the graders read, and one digest of
#: every file it writes (path, NUL, the file's sha256, in path order; 77 files).
MLE_BENCH = {
    "private/test.csv": "d86dd667c62610d10308f4b6ec91d69d7e9cfa43eb0e6819a72f6ae09e05b2e6",
    "public/train.csv": "6e71f09420ae21d0181d24698e94ca278e994ebfa40bb645db093875f3e94d94",
    "public/sample_submission.csv":
        "7399b9560ebe29259efc659a98407cdabb5629b0cf59156499738bb7bd341324",
}
MLE_BENCH_ALL = (77, "5d42a8a69bec70c8fc09c86f4b459bca564765ad7631e47ffe8c511ac6c19e4c")


def _digest_all(task: Path) -> tuple[int, str]:
    files = sorted(p for p in (*(task / "public").rglob("*"), *(task / "private").rglob("*"))
                   if p.is_file())
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(task).as_posix().encode() + b"\0"
                 + hashlib.sha256(p.read_bytes()).digest())
    return len(files), h.hexdigest()


def _records(raw: Path, name: str) -> list[dict[str, object]]:
    records = json.loads((raw / "train_data" / f"{name}.json").read_text())
    assert isinstance(records, list)
    return records


def test_the_logs_split_writes_mle_benchs_files(tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    task = _made(SLUG, raw, tmp_path)
    for rel, digest in MLE_BENCH.items():
        assert hashlib.sha256((task / rel).read_bytes()).hexdigest() == digest, rel
    assert _digest_all(task) == MLE_BENCH_ALL
    report = json.loads(_text(task / "split_report.json"))
    assert (report["kind"], report["train_logs"], report["test_logs"]) == ("nuscenes_logs", 6, 2)


def test_the_logs_split_is_the_scripts_built_independently(tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    task = _made(SLUG, raw, tmp_path)
    logs = _records(raw, "log")
    kept, held = train_test_split([r["token"] for r in logs], test_size=0.2, random_state=0)
    train_data, test_data = task / "public" / "train_data", task / "public" / "test_data"
    assert _text(test_data / "log.json") == json.dumps([r for r in logs if r["token"] in held])
    samples = _records(raw, "sample")
    held_samples = [r for r in samples if r["scene_token"] in held]
    assert _text(test_data / "sample.json") == json.dumps(held_samples)
    assert 0 < len(held_samples) < len(samples)
    table = pd.read_csv(raw / "train.csv")
    test = table[table["Id"].isin([r["token"] for r in held_samples])].copy()
    kept_ids = [r["token"] for r in samples if r["scene_token"] in kept]
    assert _text(task / "public" / "train.csv") == _csv(table[table["Id"].isin(kept_ids)])
    test["PredictionString"] = [
        " ".join(t for k in range(0, len(c.split()), 8) for t in ["1.0", *c.split()[k:k + 8]])
        for c in test["PredictionString"]]
    assert _text(task / "private" / "test.csv") == _csv(test)
    assert _text(task / "public" / "sample_submission.csv") == _csv(
        test[["Id"]].assign(PredictionString=""))
    one_map = _records(raw, "map")[0]
    for folder in (train_data, test_data):  # MLE-bench's shallow copy: the test logs twice
        assert json.loads(_text(folder / "map.json")) == [{**one_map, "log_tokens": held}]
    assert not (test_data / "sample_annotation.json").exists()
    data = {r["token"]: r for r in _records(raw, "sample_data")}
    test_files = {Path(r["filename"]).name for r in data.values()
                  if r["sample_token"] in set(test["Id"])}
    copied = {p.name for d in ("test_images", "test_lidar") for p in
              (task / "public" / d).iterdir()}
    assert copied == test_files and len(copied) == 3 * len(held_samples)


def test_metadata_that_does_not_fit_the_split_is_refused_naming_it(tmp_path: Path) -> None:
    raw = _generated(SLUG, tmp_path)
    samples = _records(raw, "sample")
    path = raw / "train_data" / "sample.json"
    path.write_text(json.dumps([*samples, {**samples[0], "scene_token": "f" * 64}]))
    with pytest.raises(SplitError, match=f"sample.json: scene_token '{'f' * 64}' belongs to no"):
        _made(SLUG, raw, tmp_path)
    path.write_text(json.dumps(samples))
    table = pd.read_csv(raw / "train.csv")
    table.loc[:, "PredictionString"] = table["PredictionString"] + " 1.5"
    (raw / "train.csv").write_text(_csv(table))
    with pytest.raises(SplitError, match="tokens in PredictionString, not 8 per object"):
        _made(SLUG, raw, tmp_path)
    table.loc[:, "PredictionString"] = table["PredictionString"].str.removesuffix(" 1.5")
    (raw / "train.csv").write_text(_csv(table))
    lidar = sorted((raw / "train_lidar").iterdir())[0]
    lidar.unlink()
    with pytest.raises(SplitError, match=re.escape(f"raw file train_lidar/{lidar.name}; the "
                                                   "raw folder lacks it")):
        _made(SLUG, raw, tmp_path)
    assert not (tmp_path / "data" / "kaggle" / SLUG).exists()
