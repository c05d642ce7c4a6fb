"""Fixed small inputs give fixed outputs: the test-id set, its order and every written byte.

The digests below were recorded from the split as first released; a change to how rows are
read, assigned or written that moves a single row or byte fails here. The inputs are built
from arithmetic alone (no random generator), so they cannot drift with a library version.
Re-recorded on purpose twice: the split reports when they became a versioned model that
records only the settings a strategy applied, and public/train.csv of the CRLF input when
every public table got LF line ends (it now equals the LF input's). Every other digest is the
first release's.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import tambench.splits.keys as keys_mod
import tambench.splits.lines as lines_mod
import tambench.splits.write as write_mod
from tambench.schema.io import parse_taskspec
from tambench.splits.prepare import prepare_task
from tests.splits.helpers import make_spec, read

N = 400


def _table(raw: Path, *, quoted: bool = False, crlf: bool = False,
           late_quote: bool = False) -> None:
    """id, two numbers, a city, a patient, a day, a fold, a tag set, a 0/1 flag and a label."""
    cities = ["paris", "lyon", "nice", "lille"]
    lines = ["id,x,y,city,patient,day,fold,tags,flag,label"]
    for i in range(N):
        city = cities[(i * 7) % 4]
        if (quoted and i % 9 == 0) or (late_quote and i == N - 3):
            city = f'"{city}, fr"'
        tags = " ".join(["a", "b", "c"][: 1 + (i * 5) % 3])
        x = f"{(i * 37) % 101 / 10:.2f}"
        y = "" if i % 31 == 0 else str((i * 13) % 17)
        lines.append(f"{i:05d},{x},{y},{city},p{(i * 11) % 40:02d},"
                     f"2021-02-{1 + (i * 3) % 28:02d},f{i % 5},{tags},{int(i % 7 < 2)},"
                     f"c{(i * i) % 3}")
    end = "\r\n" if crlf else "\n"
    raw.mkdir(parents=True, exist_ok=True)
    (raw / "train.csv").write_bytes((end.join(lines) + end).encode())
    (raw / "images").mkdir(exist_ok=True)
    for i in range(N):
        (raw / "images" / f"{i:05d}.png").write_bytes(f"png{i}".encode())


Case = tuple[dict[str, Any], dict[str, Any], dict[str, Any]]
CASES: dict[str, Case] = {
    "random": ({"strategy": "random", "test_size": 0.2, "seed": 7}, {}, {}),
    "random_crlf": ({"strategy": "random", "test_size": 0.2, "seed": 7}, {"crlf": True}, {}),
    "random_quoted": ({"strategy": "random", "test_size": 0.2, "seed": 7}, {"quoted": True},
                      {}),
    "random_late_quote": ({"strategy": "random"}, {"late_quote": True}, {}),
    "random_drop": ({"strategy": "random", "hidden_columns": {"fold": "public"}}, {}, {}),
    "random_original_order": ({"strategy": "random", "test_order": "original"}, {}, {}),
    "random_value_target": ({"strategy": "random"}, {}, {"metric": "rmse", "targets": ("x",)}),
    "random_probability_target": ({"strategy": "random"}, {},
                                  {"metric": "roc_auc", "targets": ("flag",)}),
    "stratified": ({"strategy": "stratified", "test_size": 0.25, "seed": 3}, {}, {}),
    "stratified_multilabel": ({"strategy": "stratified", "stratify_column": "tags"}, {}, {}),
    "group": ({"strategy": "group", "group_column": "patient"}, {}, {}),
    "time_auto": ({"strategy": "time", "time_column": "day"}, {}, {}),
    "time_cutoff": ({"strategy": "time", "time_column": "day", "time_cutoff": "2021-02-20"},
                    {}, {}),
    "holdout_column": ({"strategy": "holdout_value", "holdout_column": "fold",
                        "holdout_value": "f2"}, {}, {}),
    "files": ({"strategy": "group", "files": {"pattern": "images/{id}.png"},
               "train_file": "train.csv", "group_column": "patient"}, {}, {}),
}

#: Per case: sha256 of the test ids in public order, of each written file and of the report.
GOLDEN: dict[str, dict[str, str]] = {
    "files": {
        "test_ids": "759b32155fc65a7a",
        "public/train.csv": "a69ab0c51c34b4d6",
        "public/test.csv": "206c3c2b721de4bc",
        "public/sample_submission.csv": "dd74d2233c9da997",
        "private/answers.csv": "e46ff5c5987559ea",
        "public/files_manifest.csv": "39a21273d04f84b0",
        "split_report": "e6ef7151b0855b80",
    },
    "group": {
        "test_ids": "759b32155fc65a7a",
        "public/train.csv": "a69ab0c51c34b4d6",
        "public/test.csv": "206c3c2b721de4bc",
        "public/sample_submission.csv": "dd74d2233c9da997",
        "private/answers.csv": "e46ff5c5987559ea",
        "split_report": "2a4eb20640c3c29d",
    },
    "holdout_column": {
        "test_ids": "7e2e10090700fe14",
        "public/train.csv": "731d42265cd202df",
        "public/test.csv": "0c57019e038bb467",
        "public/sample_submission.csv": "070260feb127fdcc",
        "private/answers.csv": "ac04ed553be61aaf",
        "split_report": "a92e926d4a541b33",
    },
    "random": {
        "test_ids": "3357e26539ca8d55",
        "public/train.csv": "47f7fc7e9dc83f82",
        "public/test.csv": "8d55f526b71bd634",
        "public/sample_submission.csv": "385cbf20b97c625f",
        "private/answers.csv": "cb8730e086e2dd0f",
        "split_report": "bb36383d187fec06",
    },
    "random_crlf": {
        "test_ids": "3357e26539ca8d55",
        "public/train.csv": "47f7fc7e9dc83f82",
        "public/test.csv": "8d55f526b71bd634",
        "public/sample_submission.csv": "385cbf20b97c625f",
        "private/answers.csv": "cb8730e086e2dd0f",
        "split_report": "98d7d3d5ce137aa0",
    },
    "random_drop": {
        "test_ids": "c8df40d595699bb6",
        "public/train.csv": "a17abada7ea6870f",
        "public/test.csv": "ff764999e537fcba",
        "public/sample_submission.csv": "d6313a7ec93e2cca",
        "private/answers.csv": "a9b4ac1f57835678",
        "split_report": "00ba9f7baa4d2e02",
    },
    "random_late_quote": {
        "test_ids": "c8df40d595699bb6",
        "public/train.csv": "81feb7baf9391c4f",
        "public/test.csv": "c42b9781e7918c1a",
        "public/sample_submission.csv": "d6313a7ec93e2cca",
        "private/answers.csv": "a9b4ac1f57835678",
        "split_report": "262f7d52ad10641a",
    },
    "random_original_order": {
        "test_ids": "df54d164966e76fd",
        "public/train.csv": "cf9b05bb3de0475b",
        "public/test.csv": "7cd0b3aa42e846e9",
        "public/sample_submission.csv": "678521e2c379bb8f",
        "private/answers.csv": "f539d4fdf4f9dd48",
        "split_report": "aa7a3a0d0e192fa7",
    },
    "random_probability_target": {
        "test_ids": "c8df40d595699bb6",
        "public/train.csv": "cf9b05bb3de0475b",
        "public/test.csv": "eaca910841784dea",
        "public/sample_submission.csv": "79cdd76e17b6e205",
        "private/answers.csv": "04d7644929ce16bc",
        "split_report": "b07c36b5de8c3205",
    },
    "random_quoted": {
        "test_ids": "3357e26539ca8d55",
        "public/train.csv": "637dba81ba33eac1",
        "public/test.csv": "ffd5a648a9405ac1",
        "public/sample_submission.csv": "385cbf20b97c625f",
        "private/answers.csv": "cb8730e086e2dd0f",
        "split_report": "5f91f4eb456d7f16",
    },
    "random_value_target": {
        "test_ids": "c8df40d595699bb6",
        "public/train.csv": "cf9b05bb3de0475b",
        "public/test.csv": "761efb0adcac9412",
        "public/sample_submission.csv": "81b7bfa5d71a8b1f",
        "private/answers.csv": "de018106b2b57cb6",
        "split_report": "dfc1b8c93d630626",
    },
    "stratified": {
        "test_ids": "687b61fcd1ad7623",
        "public/train.csv": "09c02d9547a02b1a",
        "public/test.csv": "668b2c7b94aa28bb",
        "public/sample_submission.csv": "3f36f3b07b1d85d7",
        "private/answers.csv": "102af29277cf7c55",
        "split_report": "a04865ca3edb28b2",
    },
    "stratified_multilabel": {
        "test_ids": "e12d643765da2a0c",
        "public/train.csv": "5d6838298e7f7f9e",
        "public/test.csv": "b7786f436b8025f0",
        "public/sample_submission.csv": "73bed263e3b74bd6",
        "private/answers.csv": "baea98142297dbe3",
        "split_report": "7bf4b454dd44262b",
    },
    "time_auto": {
        "test_ids": "f868b2f957cd6638",
        "public/train.csv": "051b403d8f709efb",
        "public/test.csv": "1abf5f272c27c50c",
        "public/sample_submission.csv": "3b5315480facee8c",
        "private/answers.csv": "bd7e7dd9186b1176",
        "split_report": "ca589b8fc9c1f935",
    },
    "time_cutoff": {
        "test_ids": "d83c2d9e41deb268",
        "public/train.csv": "346ca0d2997438e7",
        "public/test.csv": "2f9441aa7f307ea0",
        "public/sample_submission.csv": "e89b7ffefad1179f",
        "private/answers.csv": "098be3e01b45437c",
        "split_report": "ecac6438c471a135",
    },
}

#: The cases above as a version-1 task file spelled them (every field written out).
V1_SPLITS: dict[str, dict[str, Any]] = {
    "random_drop": {"strategy": "random", "drop_columns": ["fold"]},
    "holdout_column": {"strategy": "holdout", "holdout_column": "fold", "holdout": "f2"},
    "files": {"strategy": "files", "file_id_pattern": "images/{id}.png",
              "train_file": "train.csv", "file_base_strategy": "group",
              "group_column": "patient"},
    "time_cutoff": {"strategy": "time", "time_column": "day", "time_cutoff": "2021-02-20"},
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


@pytest.mark.parametrize("small_steps", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fixed_input_gives_the_recorded_test_ids_and_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, small_steps: bool) -> None:
    if small_steps:  # many read blocks, test chunks and hash chunks: the same bytes
        monkeypatch.setattr(keys_mod, "KEY_BLOCK_BYTES", 97)
        monkeypatch.setattr(write_mod, "TEST_CHUNK_ROWS", 7)
        monkeypatch.setattr(keys_mod, "BATCH_ROWS", 13)
        monkeypatch.setattr(write_mod, "BATCH_ROWS", 13)
        monkeypatch.setattr(lines_mod, "BLOCK_BYTES", 101)
    split, shape, spec = CASES[case]
    _table(tmp_path / "raw", **shape)
    res = prepare_task(make_spec(f"gold-{case.replace('_', '-')}", split, **spec),
                       tmp_path / "raw", tmp_path / "data", run_audit=False)
    got = _fingerprint(res.task_dir, "files" in split)
    assert got == GOLDEN[case]


@pytest.mark.parametrize("case", sorted(V1_SPLITS))
def test_a_version_1_task_file_loads_as_the_same_split(case: str) -> None:
    from tambench.schema.io import _V1_SPLIT_DEFAULTS

    v2 = make_spec("v1", CASES[case][0])
    v1 = v2.model_dump(mode="json")
    v1["schema_version"] = 1
    v1["split"] = {**_V1_SPLIT_DEFAULTS, "id_column": "id", **V1_SPLITS[case]}
    assert parse_taskspec(v1).split == v2.split


def _coded(values: list[str | None]) -> keys_mod.CodedColumn:
    builder = keys_mod.CodeBuilder()
    for i in range(0, len(values), 5):  # several batches, as the first pass sees them
        builder.add(pl.Series("v", values[i : i + 5], dtype=pl.String).to_arrow())
    return builder.build()


@pytest.mark.parametrize("kind", [None, "label", "value", "probability"])
@pytest.mark.parametrize("values", [
    ["b", "a", "b", None, "a", "c", "a", "b"],          # a tie, broken by the smaller value
    ["1", "2", "10", "2.5", None, "7", "0.5", "3"],     # numbers: median and mean
    ["0.1", "0.9", "0.25", "1", "0", "0.5", None],      # probabilities
    ["x", None, None],
    [None, None],
    ["-0", "0", "nan", "1e3", "3"],
])
def test_codes_give_the_same_placeholder_and_balance_as_the_text_values(
        kind: str | None, values: list[str | None]) -> None:
    col = _coded(values)
    assert [col.values[int(c)] if c >= 0 else None for c in col.codes] == values
    rng = np.random.default_rng(len(values))
    for _ in range(5):
        mask = rng.random(len(values)) < 0.4
        train = pl.Series("v", values, dtype=pl.String).filter(pl.Series(~mask))
        test = pl.Series("v", values, dtype=pl.String).filter(pl.Series(mask))
        assert write_mod.coded_placeholder(col, ~mask, kind) == write_mod.placeholder(train, kind)
        assert write_mod.coded_balance(col, mask) == write_mod.class_balance(train, test)
