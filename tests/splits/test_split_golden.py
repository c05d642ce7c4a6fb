"""Fixed small inputs give fixed outputs: the test-id set, its order and every written byte.

The digests below were recorded from the split as first released; a change to how rows are
read, assigned or written that moves a single row or byte fails here. The inputs are built
from arithmetic alone (no random generator), so they cannot drift with a library version.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tambench.splits.prepare import prepare_task
from tests.splits.helpers import make_spec, read

N = 400


def _table(raw: Path, *, quoted: bool = False, crlf: bool = False) -> None:
    """id, two numbers, a city, a patient, a day, a fold, a multi-label tag set and a label."""
    cities = ["paris", "lyon", "nice", "lille"]
    lines = ["id,x,y,city,patient,day,fold,tags,label"]
    for i in range(N):
        city = cities[(i * 7) % 4]
        if quoted and i % 9 == 0:
            city = f'"{city}, fr"'
        tags = " ".join(["a", "b", "c"][: 1 + (i * 5) % 3])
        x = f"{(i * 37) % 101 / 10:.2f}"
        y = "" if i % 31 == 0 else str((i * 13) % 17)
        lines.append(f"{i:05d},{x},{y},{city},p{(i * 11) % 40:02d},"
                     f"2021-02-{1 + (i * 3) % 28:02d},f{i % 5},{tags},c{(i * i) % 3}")
    end = "\r\n" if crlf else "\n"
    raw.mkdir(parents=True, exist_ok=True)
    (raw / "train.csv").write_bytes((end.join(lines) + end).encode())
    (raw / "images").mkdir(exist_ok=True)
    for i in range(N):
        (raw / "images" / f"{i:05d}.png").write_bytes(f"png{i}".encode())


CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "random": ({"strategy": "random", "test_size": 0.2, "seed": 7}, {}),
    "random_crlf": ({"strategy": "random", "test_size": 0.2, "seed": 7}, {"crlf": True}),
    "random_quoted": ({"strategy": "random", "test_size": 0.2, "seed": 7}, {"quoted": True}),
    "random_drop": ({"strategy": "random", "drop_columns": ["fold"]}, {}),
    "random_original_order": ({"strategy": "random", "test_order": "original"}, {}),
    "stratified": ({"strategy": "stratified", "test_size": 0.25, "seed": 3}, {}),
    "stratified_multilabel": ({"strategy": "stratified", "stratify_column": "tags"}, {}),
    "group": ({"strategy": "group", "group_column": "patient"}, {}),
    "time_auto": ({"strategy": "time", "time_column": "day"}, {}),
    "time_cutoff": ({"strategy": "time", "time_column": "day", "time_cutoff": "2021-02-20"}, {}),
    "holdout_column": ({"strategy": "holdout", "holdout_column": "fold", "holdout": "f2"}, {}),
    "files": ({"strategy": "files", "file_id_pattern": "images/{id}.png",
               "train_file": "train.csv", "file_base_strategy": "group",
               "group_column": "patient"}, {}),
}

#: Per case: sha256 of the test ids in public order, of each written file and of the report.
GOLDEN: dict[str, dict[str, str]] = {
    "files": {
        "test_ids": "759b32155fc65a7a",
        "public/train.csv": "b92510988c341eb9",
        "public/test.csv": "0fc26beaad544234",
        "public/sample_submission.csv": "dd74d2233c9da997",
        "private/answers.csv": "e46ff5c5987559ea",
        "public/files_manifest.csv": "39a21273d04f84b0",
        "split_report": "911ee1260bd59f01",
    },
    "group": {
        "test_ids": "759b32155fc65a7a",
        "public/train.csv": "b92510988c341eb9",
        "public/test.csv": "0fc26beaad544234",
        "public/sample_submission.csv": "dd74d2233c9da997",
        "private/answers.csv": "e46ff5c5987559ea",
        "split_report": "e3f9792cac9f7ff7",
    },
    "holdout_column": {
        "test_ids": "7e2e10090700fe14",
        "public/train.csv": "7464b89ea0dc011c",
        "public/test.csv": "daa99ca308c2e83e",
        "public/sample_submission.csv": "070260feb127fdcc",
        "private/answers.csv": "ac04ed553be61aaf",
        "split_report": "7e266edba935df16",
    },
    "random": {
        "test_ids": "3357e26539ca8d55",
        "public/train.csv": "1603202a3802ca37",
        "public/test.csv": "db242ca102e7b5ba",
        "public/sample_submission.csv": "385cbf20b97c625f",
        "private/answers.csv": "cb8730e086e2dd0f",
        "split_report": "b56873b2e75f37b6",
    },
    "random_crlf": {
        "test_ids": "3357e26539ca8d55",
        "public/train.csv": "fba6a2101f333abf",
        "public/test.csv": "db242ca102e7b5ba",
        "public/sample_submission.csv": "385cbf20b97c625f",
        "private/answers.csv": "cb8730e086e2dd0f",
        "split_report": "03fc621d31698956",
    },
    "random_drop": {
        "test_ids": "c8df40d595699bb6",
        "public/train.csv": "ec497c64eeda79fe",
        "public/test.csv": "6f57c996057d78d6",
        "public/sample_submission.csv": "d6313a7ec93e2cca",
        "private/answers.csv": "a9b4ac1f57835678",
        "split_report": "76d2153ac74c3d7c",
    },
    "random_original_order": {
        "test_ids": "df54d164966e76fd",
        "public/train.csv": "d53442eba09124c1",
        "public/test.csv": "573ec987a45c5411",
        "public/sample_submission.csv": "678521e2c379bb8f",
        "private/answers.csv": "f539d4fdf4f9dd48",
        "split_report": "cde5a57279f5df4e",
    },
    "random_quoted": {
        "test_ids": "3357e26539ca8d55",
        "public/train.csv": "a865fffda9e16973",
        "public/test.csv": "993d8a6106bf3430",
        "public/sample_submission.csv": "385cbf20b97c625f",
        "private/answers.csv": "cb8730e086e2dd0f",
        "split_report": "08a6983578ea3ef9",
    },
    "stratified": {
        "test_ids": "687b61fcd1ad7623",
        "public/train.csv": "c52bca279ab7778f",
        "public/test.csv": "15b2021dca0e1aac",
        "public/sample_submission.csv": "3f36f3b07b1d85d7",
        "private/answers.csv": "102af29277cf7c55",
        "split_report": "11b3c61df909e059",
    },
    "stratified_multilabel": {
        "test_ids": "e12d643765da2a0c",
        "public/train.csv": "aa41417e153c6fe2",
        "public/test.csv": "1bd608d598b9e84f",
        "public/sample_submission.csv": "73bed263e3b74bd6",
        "private/answers.csv": "baea98142297dbe3",
        "split_report": "31964fc0f148cfdd",
    },
    "time_auto": {
        "test_ids": "f868b2f957cd6638",
        "public/train.csv": "6dc3a3bbc7048c0e",
        "public/test.csv": "0a5fcfeb56b56953",
        "public/sample_submission.csv": "3b5315480facee8c",
        "private/answers.csv": "bd7e7dd9186b1176",
        "split_report": "62949cee4460beb3",
    },
    "time_cutoff": {
        "test_ids": "d83c2d9e41deb268",
        "public/train.csv": "c4f109a401525f83",
        "public/test.csv": "9ee01ca78ce341f3",
        "public/sample_submission.csv": "e89b7ffefad1179f",
        "private/answers.csv": "098be3e01b45437c",
        "split_report": "103e01609bc77529",
    },
}

FILES = ["public/train.csv", "public/test.csv", "public/sample_submission.csv",
         "private/answers.csv"]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _fingerprint(task: Path, files: bool) -> dict[str, str]:
    ids = read(task / "public" / "test.csv")["id"].to_list()
    out = {"test_ids": _digest("\n".join(ids).encode())}
    for rel in [*FILES, *(["public/files_manifest.csv"] if files else [])]:
        out[rel] = _digest((task / rel).read_bytes())
    report = json.loads((task / "split_report.json").read_text(encoding="utf-8"))
    report["sample_submission"].pop("score")  # the grader's business, not the split's
    out["split_report"] = _digest(json.dumps(report, sort_keys=True).encode())
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_fixed_input_gives_the_recorded_test_ids_and_bytes(tmp_path: Path, case: str) -> None:
    split, shape = CASES[case]
    _table(tmp_path / "raw", **shape)
    res = prepare_task(make_spec(f"gold-{case.replace('_', '-')}", split), tmp_path / "raw",
                       tmp_path / "data", run_audit=False)
    got = _fingerprint(res.task_dir, split["strategy"] == "files")
    assert got == GOLDEN[case]
