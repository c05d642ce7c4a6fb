"""The row_number, split_last and update_rows transforms: an id for a training table that has
none, a target taken from the end of a list, corrections published in another raw file."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tambench.errors import SplitError
from tambench.splits.prepare import prepare_task
from tests.splits.helpers import make_spec, read


def _no_id_table(raw: Path, n: int = 40) -> None:
    raw.mkdir(parents=True)
    pl.DataFrame({"ACTION": [str(i % 2) for i in range(n)],
                  "RESOURCE": [str(1000 + 7 * i) for i in range(n)]}).write_csv(raw / "train.csv")


def test_rows_are_numbered_in_the_raw_order_and_keep_their_values(tmp_path: Path) -> None:
    _no_id_table(tmp_path / "raw")
    split = {"strategy": "random", "test_size": 0.25, "train_file": "train.csv",
             "transforms": [{"op": "row_number", "column": "id", "start": 1}]}
    res = prepare_task(make_spec("amazon", split, targets=("ACTION",), metric="roc_auc"),
                       tmp_path / "raw", tmp_path / "data")
    rows = pl.concat([read(res.task_dir / "public/train.csv").select("id", "RESOURCE"),
                      read(res.task_dir / "public/test.csv").select("id", "RESOURCE")])
    numbered = {int(i): int(r) for i, r in rows.iter_rows()}
    assert sorted(numbered) == list(range(1, 41))
    assert all(r == 1000 + 7 * (i - 1) for i, r in numbered.items())
    answers = read(res.task_dir / "private/answers.csv")
    assert answers.height == 10 and set(answers.columns) == {"id", "ACTION"}


def test_a_column_already_there_is_refused(tmp_path: Path) -> None:
    _no_id_table(tmp_path / "raw")
    split = {"strategy": "random", "train_file": "train.csv",
             "transforms": [{"op": "row_number", "column": "RESOURCE"}]}
    with pytest.raises(SplitError, match="row_number: the table already has a column "
                                         "'RESOURCE'"):
        prepare_task(make_spec("amazon", split, id_col="RESOURCE", targets=("ACTION",),
                               metric="roc_auc"), tmp_path / "raw", tmp_path / "data")


def test_split_last_moves_a_sequences_last_term_into_the_target(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    seqs = [",".join(str(k * (i + 1)) for k in range(1, 3 + i % 4)) for i in range(40)]
    seqs[5] = "42"
    pl.DataFrame({"Id": [str(i) for i in range(40)], "Sequence": seqs}).write_csv(
        raw / "train.csv")
    split = {"strategy": "random", "test_size": 0.25, "train_file": "train.csv",
             "transforms": [{"op": "split_last", "column": "Sequence", "into": "Last"}]}
    res = prepare_task(make_spec("seq", split, id_col="Id", targets=("Last",)), raw,
                       tmp_path / "data")
    test = read(res.task_dir / "public/test.csv")
    answers = read(res.task_dir / "private/answers.csv")
    train = read(res.task_dir / "public/train.csv")
    assert test.columns == ["Id", "Sequence"] and answers.columns == ["Id", "Last"]
    whole = dict(zip([str(i) for i in range(40)], seqs, strict=True))
    rows = [*test.join(answers, on="Id").iter_rows(), *train.select("Id", "Sequence", "Last")
            .iter_rows()]
    assert len(rows) == 40
    for i, head, last in rows:
        assert ",".join([*([head] if head else []), last]) == whole[i]
    assert ("5", None, "42") in rows or ("5", "", "42") in rows


def test_split_last_refuses_empty_lists_naming_the_way_out(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "train.csv").write_text("Id,Sequence\n" + "".join(
        f"{i},\"1,{i}\"\n" for i in range(20)) + "20,\n")
    split = {"strategy": "random", "train_file": "train.csv",
             "transforms": [{"op": "split_last", "column": "Sequence", "into": "Last"}]}
    with pytest.raises(SplitError, match=r"split_last: 1 row\(s\) have an empty 'Sequence'.*"
                                         "drop_rows"):
        prepare_task(make_spec("seq", split, id_col="Id", targets=("Last",)), raw,
                     tmp_path / "data")


def _enzymes(raw: Path, updates: str) -> None:
    raw.mkdir()
    pl.DataFrame({"seq_id": [str(i) for i in range(40)],
                  "protein_sequence": [f"AAK{'G' * (i % 5)}L{i}" for i in range(40)],
                  "pH": ["7.0"] * 40, "tm": [f"{40 + i}.5" for i in range(40)]}).write_csv(
        raw / "train.csv")
    (raw / "train_updates.csv").write_text(updates)


def test_update_rows_applies_published_corrections_and_drops_the_emptied_rows(
        tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    _enzymes(raw, "seq_id,protein_sequence,pH,tm\n3,,,\n7,AAKGGL7,47.5,7.0\n9,,,99.0\n")
    split = {"strategy": "random", "test_size": 0.25, "train_file": "train.csv",
             "transforms": [{"op": "update_rows", "file": "train_updates.csv",
                             "key": "seq_id"}]}
    res = prepare_task(make_spec("enzymes", split, id_col="seq_id", targets=("tm",),
                                 metric="spearman"), raw, tmp_path / "data")
    assert res.report.recipe_notes == [
        "train.csv: update_rows: 2 row(s) corrected and 1 dropped (all-empty corrections) "
        "from train_updates.csv"]
    pub = res.task_dir / "public"
    test = read(pub / "test.csv").join(read(res.task_dir / "private/answers.csv"), on="seq_id")
    rows = {r[0]: r[1:] for r in pl.concat([read(pub / "train.csv"), test.select(
        "seq_id", "protein_sequence", "pH", "tm")]).iter_rows()}
    assert len(rows) == 39 and "3" not in rows
    assert rows["7"] == ("AAKGGL7", "47.5", "7.0")
    assert rows["9"] == ("AAKGGGGL9", "7.0", "99.0")
    assert rows["8"] == ("AAKGGGL8", "7.0", "48.5")
    assert "train_updates.csv" not in {p.name for p in pub.iterdir()}


def test_update_rows_refuses_a_key_corrected_twice_or_an_unknown_column(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    _enzymes(raw, "seq_id,pH,tm\n7,47.5,7.0\n7,,1.0\n")
    split = {"strategy": "random", "train_file": "train.csv",
             "transforms": [{"op": "update_rows", "file": "train_updates.csv",
                             "key": "seq_id"}]}
    spec = make_spec("enzymes", split, id_col="seq_id", targets=("tm",), metric="spearman")
    with pytest.raises(SplitError, match="train_updates.csv corrects some 'seq_id' more than "
                                         "once"):
        prepare_task(spec, raw, tmp_path / "data")
    (raw / "train_updates.csv").write_text("seq_id,melting\n7,1.0\n")
    with pytest.raises(SplitError, match=r"train_updates.csv has column\(s\) \['melting'\]"):
        prepare_task(spec, raw, tmp_path / "data2")
