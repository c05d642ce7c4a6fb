"""Strict raw input: a bad raw table is refused with its file and line, and leaves nothing behind.

Every case runs the real command (``tambench prepare``): a non-zero exit, a message naming a
file that exists and the line, no parser-internal wording, and no task folder (nor any
staging leftover) afterwards. The good twins (one trailing blank line, CRLF) are prepared.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from tambench.cli.main import main
from tambench.schema.io import save_taskspec
from tests.splits.helpers import make_spec

N = 120
HEADER = "id,x,label"


def _rows() -> list[str]:
    return [f"r{i:04d},{(i * 37) % 101},{'ab'[(i * 7 // 3) % 2]}" for i in range(N)]


def _sides(tmp_path: Path) -> tuple[int, int]:
    """Line numbers of a row that lands in train and of one that lands in test."""
    raw = tmp_path / "probe"
    raw.mkdir()
    (raw / "train.csv").write_text("\n".join([HEADER, *_rows()]) + "\n")
    task = tmp_path / "probe.json"
    save_taskspec(make_spec("probe", {"strategy": "random", "test_size": 0.25}), task)
    assert main(["prepare", str(task), "--raw", str(raw), "--data-dir",
                 str(tmp_path / "probe-data"), "--no-audit"]) == 0
    test_ids = set(pl.read_csv(tmp_path / "probe-data/kaggle/probe/public/test.csv")["id"])
    in_test = [i for i in range(N) if f"r{i:04d}" in test_ids]
    in_train = [i for i in range(N) if f"r{i:04d}" not in test_ids]
    return in_train[3] + 2, in_test[3] + 2  # line 1 is the header


def _replace(lines: list[str], line: int, text: str) -> list[str]:
    out = list(lines)
    out[line - 1] = text
    return out


Build = Callable[[list[str], int, int], tuple[bytes, str]]

#: case -> (build the file from its lines and the train/test line, what the message says)
CASES: dict[str, Build] = {
    "extra field in a train row": lambda ls, tr, te: (
        "\n".join(_replace(ls, tr, ls[tr - 1] + ",extra")).encode() + b"\n",
        f"line {tr} has 4 fields, expected 3"),
    "extra field in a test row": lambda ls, tr, te: (
        "\n".join(_replace(ls, te, ls[te - 1] + ",extra")).encode() + b"\n",
        f"line {te} has 4 fields, expected 3"),
    "missing field in a train row": lambda ls, tr, te: (
        "\n".join(_replace(ls, tr, ls[tr - 1].rsplit(",", 1)[0])).encode() + b"\n",
        f"line {tr} has 2 fields, expected 3"),
    "missing field in a test row": lambda ls, tr, te: (
        "\n".join(_replace(ls, te, ls[te - 1].rsplit(",", 1)[0])).encode() + b"\n",
        f"line {te} has 2 fields, expected 3"),
    "blank line inside the table": lambda ls, tr, te: (
        "\n".join(_replace(ls, te, "")).encode() + b"\n", f"line {te} is blank"),
    "two blank lines at the end": lambda ls, tr, te: (
        "\n".join(ls).encode() + b"\n\n\n", f"line {N + 2} is blank"),
    "two blank CRLF lines at the end": lambda ls, tr, te: (
        "\r\n".join(ls).encode() + b"\r\n\r\n\r\n", f"line {N + 2} is blank"),
    "empty label in a test row": lambda ls, tr, te: (
        "\n".join(_replace(ls, te, ls[te - 1].rsplit(",", 1)[0] + ",")).encode() + b"\n",
        f"target column 'label' has no label in 1 row(s) (line {te})"),
    "NaN label in a train row": lambda ls, tr, te: (
        "\n".join(_replace(ls, tr, ls[tr - 1].rsplit(",", 1)[0] + ",NaN")).encode() + b"\n",
        f"target column 'label' has no label in 1 row(s) (line {tr})"),
    "blank label": lambda ls, tr, te: (
        "\n".join(_replace(ls, te, ls[te - 1].rsplit(",", 1)[0] + ",  ")).encode() + b"\n",
        f"(line {te})"),
    "missing id": lambda ls, tr, te: (
        "\n".join(_replace(ls, te, "," + ls[te - 1].split(",", 1)[1])).encode() + b"\n",
        f"1 row(s) have no value in id column 'id' (line {te})"),
    "duplicated id": lambda ls, tr, te: (
        "\n".join(_replace(ls, te, ls[tr - 1].split(",", 1)[0] + ","
                           + ls[te - 1].split(",", 1)[1])).encode() + b"\n",
        f"1 duplicated value(s), e.g. ['{ls[tr - 1].split(',', 1)[0]}'] (lines "
        f"{min(tr, te)}, {max(tr, te)})"),
    # a quoted field spans lines 2-3, so the bad row sits one line further down
    "extra field in a quoted table": lambda ls, tr, te: (
        ("\n".join([ls[0], 'q0,"a\nb",a', *_replace(ls[1:], te - 1, ls[te - 1] + ",x")])
         + "\n").encode(), f"line {te + 2} has 4 fields, expected 3"),
    "a quote never closed": lambda ls, tr, te: (
        "\n".join(_replace(ls, te, ls[te - 1].replace(",", ',"', 1))).encode() + b"\n",
        f"line {te}: a quoted field is opened and never closed"),
    "bytes that are not UTF-8": lambda ls, tr, te: (
        "\n".join(ls[: te - 1]).encode() + b"\n" + ls[te - 1].encode() + b"\xff\n"
        + "\n".join(ls[te:]).encode() + b"\n", f"line {te} holds bytes that are not UTF-8"),
}


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, int]:
    return _sides(tmp_path_factory.mktemp("sides"))


def _run(tmp_path: Path, raw: Path, capsys: pytest.CaptureFixture[str],
         spec: dict[str, object] | None = None, metric: str = "accuracy") -> tuple[int, str]:
    task = tmp_path / "task.json"
    save_taskspec(make_spec("strict", spec or {"strategy": "random", "test_size": 0.25},
                            metric=metric), task)
    capsys.readouterr()
    rc = main(["prepare", str(task), "--raw", str(raw), "--data-dir", str(tmp_path / "data")])
    return rc, " ".join(capsys.readouterr().err.split())  # the console wraps long lines


def _assert_nothing_left(tmp_path: Path) -> None:
    platform = tmp_path / "data" / "kaggle"
    assert not (platform / "strict").exists()
    assert not platform.exists() or list(platform.iterdir()) == []


def _assert_named(err: str, path: Path) -> None:
    assert str(path) in err and path.exists()
    assert "staging" not in err and ".raw-" not in err
    assert "truncate_ragged_lines" not in err and "Consider" not in err


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_raw_table_is_refused_with_its_file_and_line_and_nothing_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], sides: tuple[int, int],
        case: str) -> None:
    data, message = CASES[case]([HEADER, *_rows()], *sides)
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "train.csv").write_bytes(data)
    rc, err = _run(tmp_path, raw, capsys)
    assert rc == 1
    assert message in err
    _assert_named(err, raw / "train.csv")
    _assert_nothing_left(tmp_path)


def test_an_empty_regression_target_is_refused_naming_the_raw_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rows = [f"{i},{i % 7},{i * 0.5}" for i in range(N)]
    rows[40] = "40,5,"
    (raw / "train.csv").write_text("id,x,label\n" + "\n".join(rows) + "\n")
    rc, err = _run(tmp_path, raw, capsys, metric="rmse")
    assert rc == 1 and "target column 'label' has no label in 1 row(s) (line 42)" in err
    _assert_named(err, raw / "train.csv")
    _assert_nothing_left(tmp_path)


def test_a_bad_table_inside_an_archive_is_named_as_a_member_of_that_archive(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [HEADER, *_rows()]
    lines[9] += ",extra"
    archive = tmp_path / "comp.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("data/train.csv", "\n".join(lines) + "\n")
    rc, err = _run(tmp_path, archive, capsys)
    assert rc == 1
    assert f"data/train.csv (in archive {archive}): 1 line(s)" in err
    assert "line 10 has 4 fields, expected 3" in err
    _assert_named(err, archive)
    _assert_nothing_left(tmp_path)


def test_official_answers_with_a_nan_label_are_refused_with_their_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rows = _rows()
    (raw / "train.csv").write_text("\n".join([HEADER, *rows[:80]]) + "\n")
    (raw / "test.csv").write_text("id,x\n" + "\n".join(r.rsplit(",", 1)[0] for r in rows[80:])
                                  + "\n")
    answers = ["id,label", *[f"{r.split(',')[0]},{r.rsplit(',', 1)[1]}" for r in rows[80:]]]
    answers[5] = answers[5].split(",")[0] + ",nan"
    (raw / "solution.csv").write_text("\n".join(answers) + "\n")
    rc, err = _run(tmp_path, raw, capsys, spec={
        "strategy": "official", "train_file": "train.csv", "official_test_file": "test.csv",
        "official_answers_file": "solution.csv"})
    assert rc == 1 and "target column 'label' has no label in 1 row(s) (line 6)" in err
    _assert_named(err, raw / "solution.csv")
    _assert_nothing_left(tmp_path)


@pytest.mark.parametrize(("eol", "tail"), [
    ("\n", ""), ("\n", "\n"), ("\n", "\n\n"), ("\r\n", "\r\n"), ("\r\n", "\r\n\r\n"),
    ("\r\n", ""), ("quoted", "\n\n")])
def test_a_final_newline_or_one_trailing_blank_line_is_accepted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], eol: str, tail: str) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rows = _rows()
    if eol == "quoted":  # a quoted field spanning two lines: the quote-aware reader
        rid, x, label = rows[0].split(",")
        rows[0] = f'{rid},"{x}\nnote",{label}'
        eol = "\n"
    (raw / "train.csv").write_text(eol.join([HEADER, *rows]) + tail, newline="")
    rc, err = _run(tmp_path, raw, capsys)
    assert rc == 0, err
    report = pl.read_csv(tmp_path / "data/kaggle/strict/public/train.csv").height + pl.read_csv(
        tmp_path / "data/kaggle/strict/public/test.csv").height
    assert report == N
