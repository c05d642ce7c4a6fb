"""The malformed-submission corpus: every case of reliability.md section 2, generated at test time.

Four small tasks (a regression, a binary probability, a 3-class probability table that must
sum to 1, a closed label set) plus a JSON and a plain-text task. Each :class:`Case` builds one
submission file from the task's perfect submission and says what must happen: ``R`` (refused,
with a message matching ``match``), ``N`` (normalised, then scored as the perfect submission)
or ``S`` (scored, with a finite value).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tambench.schema.taskspec import GradingSpec, TaskSpec

# --- tasks ---------------------------------------------------------------------------------------

VALUE_IDS = ["0001", "0002", "NA", "None", "null", "x10", "x11", "500.0010", "7", "caf\u00e9"]
VALUE_Y = [1.5, 2.0, -3.25, 4.0, 0.0, 0.001, 7.0, 2.5, 9.0, 3.0]
PROB_IDS = [f"p{i}" for i in range(10)]
PROB_Y = [0, 1, 1, 0, 1, 0, 0, 1, 1, 0]
MULTI_IDS = [f"m{i}" for i in range(9)]
MULTI_CLS = ["a", "b", "c", "a", "b", "c", "a", "b", "c"]
LABEL_IDS = [f"l{i}" for i in range(9)]
LABELS = ["cat", "dog", "bird", "cat", "dog", "bird", "cat", "dog", "cat"]
#: The task's classes: "fish" is valid but absent from this test split.
LABEL_SET = ["bird", "cat", "dog", "fish"]
JSON_ANSWERS = {"paperA": [1, 0, 0], "paperB": [0, 1], "paperC": [1, 1, 0, 0]}
TXT_ANSWERS = ["q1,q2", "q3", "q4,q5,q6"]


@dataclass(frozen=True)
class TaskDef:
    """One small task: its grading spec, its answers text, and its perfect submission lines."""

    name: str
    grading: GradingSpec
    answers: str
    perfect_header: list[str]
    perfect_rows: list[list[str]]

    def spec(self) -> TaskSpec:
        return TaskSpec(id=f"test/{self.name}", platform="test", grading=self.grading)


def _csv(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join([",".join(header), *(",".join(r) for r in rows)]) + "\n"


def _tasks() -> dict[str, TaskDef]:
    value_rows = [[i, repr(y)] for i, y in zip(VALUE_IDS, VALUE_Y, strict=True)]
    prob_rows = [[i, str(y)] for i, y in zip(PROB_IDS, PROB_Y, strict=True)]
    multi_rows = [
        [i, *("1" if c == k else "0" for k in "abc")]
        for i, c in zip(MULTI_IDS, MULTI_CLS, strict=True)
    ]
    label_rows = [[i, y] for i, y in zip(LABEL_IDS, LABELS, strict=True)]
    return {
        "value": TaskDef(
            "value", GradingSpec(metric="rmse", id_columns=["id"], target_columns=["y"]),
            _csv(["id", "y"], value_rows), ["id", "y"], value_rows,
        ),
        "prob": TaskDef(
            "prob", GradingSpec(metric="roc_auc", id_columns=["id"], target_columns=["p"]),
            _csv(["id", "p"], prob_rows), ["id", "p"], prob_rows,
        ),
        "multi": TaskDef(
            "multi",
            GradingSpec(metric="multiclass_log_loss", metric_params={"renormalize": False},
                        id_columns=["id"], target_columns=["a", "b", "c"]),
            _csv(["id", "a", "b", "c"], multi_rows), ["id", "a", "b", "c"], multi_rows,
        ),
        "label": TaskDef(
            "label", GradingSpec(metric="accuracy", id_columns=["id"], target_columns=["y"],
                                 labels=LABEL_SET),
            _csv(["id", "y"], label_rows), ["id", "y"], label_rows,
        ),
        "json": TaskDef(
            "json",
            GradingSpec(metric="mean_ap_per_paper", submission_format="json",
                        answers_file="answers.json"),
            json.dumps(JSON_ANSWERS), [], [],
        ),
        "txt": TaskDef(
            "txt",
            GradingSpec(metric="map_at_k_lines", submission_format="txt",
                        answers_file="answers.txt"),
            "\n".join(TXT_ANSWERS) + "\n", [], [],
        ),
    }


TASKS = _tasks()


def perfect_text(task: TaskDef) -> str:
    """The answers themselves, written as a submission."""
    if task.name == "json":
        return json.dumps(JSON_ANSWERS)
    if task.name == "txt":
        return "\n".join(TXT_ANSWERS) + "\n"
    return _csv(task.perfect_header, task.perfect_rows)


def write_task(task: TaskDef, folder: Path) -> tuple[TaskSpec, Path]:
    """Write the task's answers into ``folder``; return (spec, answers path)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / task.grading.answers_file
    path.write_text(task.answers, encoding="utf-8")
    return task.spec(), path


# --- cases ---------------------------------------------------------------------------------------

Builder = Callable[[TaskDef, Path], None]


@dataclass(frozen=True)
class Case:
    """One malformed (or odd but fine) submission and the behaviour it must get."""

    num: int
    """Row of the reliability table."""
    name: str
    task: str
    build: Builder
    want: str
    """R (refused), N (normalised, scores as perfect) or S (scored, finite)."""
    match: list[str] = field(default_factory=list)
    """Regexes each matching one of the refusal's problems (R)."""
    filename: str = "submission.csv"
    score: float | None = None
    """The score an S case must get, computed by hand (None: any finite score)."""
    links_private: bool = False
    """The submission is (a link to) a file of the private folder: the refusal depends on
    where the answers are, not on their values."""


def _text(fn: Callable[[TaskDef], str]) -> Builder:
    def build(task: TaskDef, path: Path) -> None:
        path.write_bytes(fn(task).encode("utf-8"))
    return build


def _bytes(fn: Callable[[TaskDef], bytes]) -> Builder:
    def build(task: TaskDef, path: Path) -> None:
        path.write_bytes(fn(task))
    return build


def _rows(task: TaskDef) -> list[list[str]]:
    return [list(r) for r in task.perfect_rows]


def _with(task: TaskDef, rows: list[list[str]], header: list[str] | None = None) -> str:
    return _csv(header or task.perfect_header, rows)


def _set(task: TaskDef, row: int, col: int, value: str) -> str:
    rows = _rows(task)
    rows[row][col] = value
    return _with(task, rows)


def _swap_header_case(task: TaskDef) -> str:
    return _with(task, _rows(task), ["id", "Y"])


def _symlink(task: TaskDef, path: Path) -> None:
    target = path.parent / "answers-copy.csv"
    target.write_text(perfect_text(task), encoding="utf-8")
    os.symlink(target, path)


def _fifo(task: TaskDef, path: Path) -> None:
    os.mkfifo(path)


def _directory(task: TaskDef, path: Path) -> None:
    path.mkdir()


def _private(task: TaskDef, path: Path) -> Path:
    """The case's private folder (build_case writes the answers there before the builder)."""
    return path.parent.parent / "private"


def _hard_link_to_answers(task: TaskDef, path: Path) -> None:
    os.link(_private(task, path) / task.grading.answers_file, path)


def _hard_link_to_private_file(task: TaskDef, path: Path) -> None:
    other = _private(task, path) / "test.csv"
    other.write_text(perfect_text(task), encoding="utf-8")
    os.link(other, path)


def _run_folder_linked_into_private(task: TaskDef, path: Path) -> None:
    path.parent.rmdir()
    os.symlink(_private(task, path), path.parent)
    path.write_text(perfect_text(task), encoding="utf-8")


def _huge(task: TaskDef, path: Path) -> None:
    with open(path, "wb") as fh:  # sparse: 3 GiB on paper, nothing on disk
        fh.write(b"id,y\n")
        fh.truncate(3 * 1024**3)


def _zip(task: TaskDef) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("submission.csv", perfect_text(task))
    return buf.getvalue()


def _utf16_nobom(task: TaskDef) -> bytes:
    return perfect_text(task).encode("utf-16-le")


def _latin1(task: TaskDef) -> bytes:
    rows = _rows(task)
    rows[1][0] = "caf\u00e9"
    return _with(task, rows).encode("latin-1")


def _shuffle(task: TaskDef) -> str:
    rows = _rows(task)
    return _with(task, rows[::-1][3:] + rows[::-1][:3])


def _reorder_cols(task: TaskDef) -> str:
    return _with(task, [[r[1], r[0]] for r in _rows(task)], ["y", "id"])


def _dup_replacing(task: TaskDef) -> str:
    rows = _rows(task)
    rows[3][0] = rows[2][0]  # 'None' replaced by a second 'NA'
    return _with(task, rows)


def _missing_row(task: TaskDef) -> str:
    return _with(task, _rows(task)[:3] + _rows(task)[4:])


def _extra_id(task: TaskDef) -> str:
    return _with(task, [*_rows(task), ["zzz", "1.0"]])


def _all_wrong(task: TaskDef) -> str:
    return _with(task, [[f"w{i}", r[1]] for i, r in enumerate(_rows(task))])


def _quoted_all(task: TaskDef) -> str:
    rows = [[f'"{c}"' for c in r] for r in _rows(task)]
    return _csv([f'"{h}"' for h in task.perfect_header], rows)


def _quoted_newline(task: TaskDef) -> str:
    rows = _rows(task)
    rows[5][0] = '"x\n10"'
    return _with(task, rows)


def _too_many(task: TaskDef) -> str:
    rows = _rows(task)
    rows[2] = [*rows[2], "9"]
    return _with(task, rows)


def _too_few(task: TaskDef) -> str:
    rows = _rows(task)
    rows[3] = rows[3][:1]
    return _with(task, rows)


def _no_header(task: TaskDef) -> str:
    return _csv(task.perfect_rows[0], task.perfect_rows[1:])


def _dup_cols(task: TaskDef) -> str:
    return _with(task, [[*r, r[1]] for r in _rows(task)], ["id", "y", "y"])


def _extra_col(task: TaskDef) -> str:
    return _with(task, [[*r, "x"] for r in _rows(task)], ["id", "y", "note"])


def _crlf_blank(task: TaskDef) -> str:
    return perfect_text(task).replace("\n", "\r\n") + "\r\n\r\n\n"


def _spaces_values(task: TaskDef) -> str:
    return _with(task, [[r[0], f"  {r[1]} "] for r in _rows(task)])


def _spaces_id(task: TaskDef) -> str:
    rows = _rows(task)
    rows[0][0] = " 0001"
    return _with(task, rows)


def _constant(task: TaskDef) -> str:
    return _with(task, [[r[0], "1.0"] for r in _rows(task)])


def _sci(task: TaskDef) -> str:
    rows = _rows(task)
    rows[5][1] = "1e-3"  # the answer is 0.001
    return _with(task, rows)


def _many_columns(task: TaskDef) -> str:
    header = ["id", "y", *(f"c{i}" for i in range(100_000))]
    return ",".join(header) + "\n"


MEGA = 1_000_000


def _ten_thousand_columns(task: TaskDef) -> str:
    header = ["id", "y", *(f"c{i}" for i in range(9998))]
    rows = [[*r, *("0" for _ in range(9998))] for r in _rows(task)]
    return _csv(header, rows)


def _long_quoted_row(task: TaskDef) -> str:
    # A row of 3 MB: longer than a parser block (1 MiB), shorter than the row limit (64 MiB).
    return _set(task, 3, 1, '"' + "z" * (3 * MEGA) + '"')


def _prob_rows(values: list[str]) -> Callable[[TaskDef], str]:
    def fn(task: TaskDef) -> str:
        rows = _rows(task)
        rows[1][1:] = values
        return _with(task, rows)
    return fn


CASES: list[Case] = [
    Case(1, "utf8_bom", "value", _bytes(lambda t: b"\xef\xbb\xbf" + perfect_text(t).encode()), "N"),
    Case(2, "utf16_bom", "value", _bytes(lambda t: perfect_text(t).encode("utf-16")), "R",
         [r"encoded as UTF-16 \(little-endian BOM\); expected UTF-8"]),
    Case(2, "utf16_without_bom", "value", _bytes(_utf16_nobom), "R",
         [r"looks UTF-16 encoded without a byte-order mark"]),
    Case(3, "latin1_byte", "value", _bytes(_latin1), "R",
         [r"line 3: byte 0xe9 at position 4 is not valid UTF-8"]),
    Case(4, "semicolon_delimiter", "value",
         _text(lambda t: perfect_text(t).replace(",", ";")), "R",
         [r"wrong delimiter: expected `,`, got `;`"]),
    Case(4, "tab_delimiter", "value", _text(lambda t: perfect_text(t).replace(",", "\t")), "R",
         [r"wrong delimiter: expected `,`, got tab"]),
    Case(5, "all_fields_quoted", "value", _text(_quoted_all), "N"),
    Case(6, "quoted_newline_in_id", "value", _text(_quoted_newline), "R",
         [r"1 id\(s\) hold a line break \(a quoted newline\): rows \[6\]"]),
    Case(7, "row_with_too_many_fields", "value", _text(_too_many), "R",
         [r"^line 4: 3 fields, expected 2$"]),
    Case(7, "row_with_too_few_fields", "value", _text(_too_few), "R",
         [r"^line 5: 1 field, expected 2$"]),
    Case(8, "no_header", "value", _text(_no_header), "R",
         [r"no header row: line 1 \(\['0001', '1.5'\]\) looks like data; expected the header "
          r"\['id', 'y'\]"]),
    Case(9, "header_case_differs", "value", _text(_swap_header_case), "R",
         [r"column `y` missing; expected \['id', 'y'\], got \['id', 'Y'\] \(got `Y`: names are "
          r"case- and space-sensitive\)"]),
    Case(9, "header_spaces_differ", "value",
         _text(lambda t: _with(t, _rows(t), ["id", " y"])), "R",
         [r"column `y` missing; expected \['id', 'y'\], got \['id', ' y'\]"]),
    Case(10, "duplicate_column_names", "value", _text(_dup_cols), "R",
         [r"duplicate column name\(s\) \['y'\]; expected each of \['id', 'y'\] once"]),
    Case(11, "extra_column", "value", _text(_extra_col), "R",
         [r"unexpected column\(s\) \(1 of 1\): \['note'\]; expected exactly \['id', 'y'\]"]),
    Case(12, "columns_reordered", "value", _text(_reorder_cols), "N"),
    Case(13, "rows_shuffled", "value", _text(_shuffle), "N"),
    Case(14, "duplicate_id_replacing_a_missing_one", "value", _text(_dup_replacing), "R",
         [r"duplicated ids: 1 id\(s\) appear more than once \(1 extra row\(s\)\) \(1 of 1\): "
          r"\['NA'\]", r"missing ids: 1 answer id\(s\) have no row \(1 of 1\): \['None'\]"]),
    Case(15, "missing_row", "value", _text(_missing_row), "R",
         [r"^9 rows; expected 10 \(one per answer id\)$", r"missing ids: .*\['None'\]"]),
    Case(16, "unknown_extra_id", "value", _text(_extra_id), "R",
         [r"^11 rows; expected 10", r"unknown ids: 1 submitted id\(s\) are not answer ids "
          r"\(1 of 1\): \['zzz'\]"]),
    Case(17, "every_id_wrong_same_length", "value", _text(_all_wrong), "R",
         [r"unknown ids \(no submitted id matches any answer id\): 10 submitted",
          r"missing ids: 10 answer id\(s\)"]),
    Case(18, "zero_padded_id_written_as_number", "value",
         _text(lambda t: _set(t, 0, 0, "1")), "R",
         [r"unknown ids: .*\['1'\]", r"near misses, submitted vs expected: '1' vs '0001'$"]),
    Case(18, "integer_id_written_as_float", "value", _text(lambda t: _set(t, 8, 0, "7.0")), "R",
         [r"unknown ids: .*\['7.0'\]", r": '7.0' vs '7'$"]),
    Case(19, "ids_na_none_null_are_ids", "value", _text(perfect_text), "N"),
    Case(20, "unicode_lookalike_id", "value", _text(lambda t: _set(t, 5, 0, "\u0445" + "10")),
         "R", [r"unknown ids: .*\['\u044510'\]", r"missing ids: .*\['x10'\]"]),
    Case(20, "non_nfc_id", "value", _text(lambda t: _set(t, 9, 0, "cafe\u0301")), "R",
         [r"unknown ids", r"near misses.*'caf\u00e9'"]),
    Case(21, "empty_cell", "value", _text(lambda t: _set(t, 2, 1, "")), "R",
         [r"column `y`: 1 empty cell\(s\) in rows \[3\] \(ids \['NA'\]\); expected a number"]),
    Case(21, "empty_label_cell", "label", _text(lambda t: _set(t, 4, 1, "")), "R",
         [r"column `y`: 1 empty cell\(s\) in rows \[5\] \(ids \['l4'\]\)"]),
    Case(22, "nan_value", "value", _text(lambda t: _set(t, 1, 1, "NaN")), "R",
         [r"column `y`: 1 value\(s\) are NaN or infinite in rows \[2\] \(ids \['0002'\]\)"]),
    Case(22, "plus_inf_value", "value", _text(lambda t: _set(t, 1, 1, "inf")), "R",
         [r"NaN or infinite in rows \[2\]"]),
    Case(22, "minus_inf_value", "value", _text(lambda t: _set(t, 6, 1, "-Infinity")), "R",
         [r"NaN or infinite in rows \[7\]"]),
    Case(23, "probability_above_one", "prob", _text(lambda t: _set(t, 2, 1, "1.5")), "R",
         [r"column `p`: 1 probability is outside \[0, 1\]; got \[1.5\] in rows \[3\]"]),
    Case(23, "probability_below_zero", "prob", _text(lambda t: _set(t, 0, 1, "-0.1")), "R",
         [r"outside \[0, 1\]; got \[-0.1\]"]),
    Case(24, "probability_rows_not_summing_to_one", "multi",
         _text(_prob_rows(["0.5", "0.4", "0.3"])), "R",
         [r"1 row\(s\) of probabilities do not sum to 1 \(tolerance 0.0001\); got sums \[1.2\] "
          r"in rows \[2\]"]),
    Case(25, "negative_probabilities_summing_to_one", "multi",
         _text(_prob_rows(["-0.5", "1.5", "0"])), "R",
         [r"column `a`: 1 probability is outside \[0, 1\]", r"column `b`: 1 probability"]),
    Case(26, "unknown_class_label", "label", _text(lambda t: _set(t, 3, 1, "horse")), "R",
         [r"column `y`: 1 unknown label\(s\) \(1 of 1\): \['horse'\] in rows \[4\] \(ids "
          r"\['l3'\]\); allowed labels: \['bird', 'cat', 'dog', 'fish'\]$"]),
    Case(26, "valid_class_absent_from_the_test_split", "label",
         _text(lambda t: _set(t, 3, 1, "fish")), "S", score=8 / 9),
    Case(27, "scientific_notation", "value", _text(_sci), "N"),
    Case(28, "constant_prediction", "value", _text(_constant), "S"),
    Case(29, "header_only", "value", _text(lambda t: "id,y\n"), "R",
         [r"no data rows \(header only\); expected 10 rows"]),
    Case(29, "zero_bytes", "value", _bytes(lambda t: b""), "R",
         [r"submission file is empty \(0 bytes\)"]),
    Case(30, "crlf_and_trailing_blank_lines", "value", _text(_crlf_blank), "N"),
    Case(31, "spaces_around_numbers", "value", _text(_spaces_values), "N"),
    Case(31, "spaces_around_an_id", "value", _text(_spaces_id), "R",
         [r"unknown ids: .*\[' 0001'\]", r"near misses.*: ' 0001' vs '0001'$"]),
    Case(32, "gzip_named_csv", "value", _bytes(lambda t: gzip.compress(perfect_text(t).encode())),
         "R", [r"submission file is gzip-compressed \(magic bytes 1f 8b\)"]),
    Case(32, "zip_named_csv", "value", _bytes(_zip), "R",
         [r"submission file is a zip archive \(magic bytes 50 4b 03 04\)"]),
    Case(33, "multi_gigabyte_file", "value", _huge, "R",
         [r"submission file is 3.0 GiB; expected at most .* \(size cap, checked before parsing\)"]),
    Case(33, "hundred_thousand_columns", "value", _text(_many_columns), "R",
         [r"header has 100002 columns; expected at most 10000 \(column cap"]),
    Case(34, "sep_preamble", "value", _text(lambda t: "sep=,\n" + perfect_text(t)), "R",
         [r"line 1: a `sep=,` preamble line"]),
    Case(34, "comment_line_first", "value", _text(lambda t: "# made by agent\n" + perfect_text(t)),
         "R", [r"line 1: a comment line starting with `#`"]),
    Case(34, "comment_line_inside", "label",
         _text(lambda t: perfect_text(t).replace("l3,cat\n", "# note\nl3,cat\n")), "R",
         [r"unknown ids: .*\['# note'\]|line 5: 1 field, expected 2 \(a comment line\?\)"]),
    Case(35, "nul_bytes", "value", _bytes(lambda t: perfect_text(t).encode().replace(b"x10", b"x\x0010")),
         "R", [r"contains NUL bytes \(binary data\?\) on line\(s\) \[7\]"]),
    Case(36, "formula_in_a_value_cell", "value",
         _text(lambda t: _set(t, 0, 1, "=cmd|'/C calc'!A0")), "R",
         [r"column `y`: 1 value\(s\) are not numbers; expected decimal numbers, got "
          r"\[\"=cmd\|'/C calc'!A0\"\]"]),
    Case(36, "formula_as_a_label", "label", _text(lambda t: _set(t, 0, 1, "=cmd|'/C calc'!A0")),
         "R", [r"unknown label\(s\) .*=cmd"]),
    Case(37, "symlink_to_answers", "value", _symlink, "R",
         [r"submission 'submission.csv' is a symbolic link; expected a regular file"]),
    Case(37, "fifo", "value", _fifo, "R", [r"is a FIFO \(named pipe\); expected a regular file"]),
    Case(37, "directory", "value", _directory, "R", [r"is a directory; expected a regular file"]),
    Case(37, "hard_link_to_answers", "value", _hard_link_to_answers, "R",
         [r"^submission 'submission.csv' is the answers file under another name \(a hard link: "
          r"same device and inode\); expected the agent's own file$"], links_private=True),
    Case(37, "hard_link_to_another_private_file", "label", _hard_link_to_private_file, "R",
         [r"^submission 'submission.csv' is a file of the task's private folder under another "
          r"name \(a hard link"], links_private=True),
    Case(37, "run_folder_linked_into_private", "value", _run_folder_linked_into_private, "R",
         [r"^submission 'submission.csv' resolves into the task's private folder; expected the "
          r"agent's own file"], links_private=True),
    Case(39, "float_id_losing_digits", "value", _text(lambda t: _set(t, 7, 0, "500.001")), "R",
         [r"unknown ids: .*\['500.001'\]", r": '500.001' vs '500.0010'$"]),
    # structured formats
    Case(0, "json_not_parseable", "json", _text(lambda t: '{"paperA": [0.9, 0.1'), "R",
         [r"submission is not valid JSON: line 1, column \d+"], "submission.json"),
    Case(22, "json_nan_constant", "json",
         _text(lambda t: '{"paperA": [NaN, 0, 0], "paperB": [0, 1], "paperC": [1, 1, 0, 0]}'),
         "R", [r"submission is not valid JSON: NaN is not allowed"], "submission.json"),
    Case(15, "json_missing_key", "json",
         _text(lambda t: json.dumps({"paperA": [1, 0, 0], "paperB": [0, 1]})), "R",
         [r"missing paper"], "submission.json"),
    Case(16, "json_extra_key", "json",
         _text(lambda t: json.dumps({**JSON_ANSWERS, "paperZ": [1]})), "R",
         [r"unknown paper"], "submission.json"),
    Case(1, "json_with_bom", "json",
         _bytes(lambda t: b"\xef\xbb\xbf" + json.dumps(JSON_ANSWERS).encode()), "N",
         [], "submission.json"),
    Case(15, "txt_missing_line", "txt", _text(lambda t: "q1,q2\nq3\n"), "R",
         [r"expected 3 lines"], "submission.txt"),
    Case(30, "txt_crlf_and_trailing_blank_lines", "txt",
         _text(lambda t: "q1,q2\r\nq3\r\nq4,q5,q6\r\n\r\n"), "N", [], "submission.txt"),
    Case(35, "txt_nul_bytes", "txt", _bytes(lambda t: b"q1,q2\nq\x003\nq4\n"), "R",
         [r"NUL bytes .* on line\(s\) \[2\]"], "submission.txt"),
    # beyond the table: huge values are quoted cut to a bound, with a count of what was cut
    Case(41, "one_megabyte_id", "value", _text(lambda t: _set(t, 4, 0, "r" * MEGA)), "R",
         [rf"unknown ids: 1 submitted id\(s\) are not answer ids \(1 of 1\): \['r{{80}}'\.\.\. "
          rf"\(\+{MEGA - 80} characters\)\]$",
          r"missing ids: 1 answer id\(s\) have no row \(1 of 1\): \['null'\]"]),
    Case(41, "one_megabyte_cell_that_is_not_a_number", "value",
         _text(lambda t: _set(t, 1, 1, "9" * 40 + "x" * MEGA)), "R",
         [rf"column `y`: 1 value\(s\) are not numbers; expected decimal numbers, got "
          rf"\['9{{40}}x{{40}}'\.\.\. \(\+{MEGA - 40} characters\)\] in rows \[2\] "
          rf"\(ids \['0002'\]\)$"]),
    Case(41, "one_megabyte_label", "label", _text(lambda t: _set(t, 0, 1, "c" * MEGA)), "R",
         [rf"column `y`: 1 unknown label\(s\) \(1 of 1\): \['c{{80}}'\.\.\. \(\+{MEGA - 80} "
          r"characters\)\] in rows \[1\] \(ids \['l0'\]\)"]),
    Case(41, "one_megabyte_column_name", "value",
         _text(lambda t: _with(t, [[*r, "1"] for r in _rows(t)], ["id", "y", "n" * MEGA])), "R",
         [rf"unexpected column\(s\) \(1 of 1\): \['n{{80}}'\.\.\. \(\+{MEGA - 80} "
          r"characters\)\]; expected exactly \['id', 'y'\]"]),
    Case(41, "one_megabyte_json_key", "json",
         _text(lambda t: json.dumps({**JSON_ANSWERS, "k" * MEGA: [1]})), "R",
         [r"unknown paper"], "submission.json"),
    Case(33, "ten_thousand_columns_under_the_cap", "value", _text(_ten_thousand_columns), "R",
         [r"^unexpected column\(s\) \(5 of 9998\): \['c0', 'c1', 'c2', 'c3', 'c4', \.\.\.\]; "
          r"expected exactly \['id', 'y'\]"]),
    Case(43, "row_longer_than_a_parser_block", "value", _text(_long_quoted_row), "R",
         [rf"column `y`: 1 value\(s\) are not numbers; .*\(\+{3 * MEGA - 80} characters\)"]),
    Case(1, "bom_before_the_first_data_row", "value",
         _bytes(lambda t: perfect_text(t).encode().replace(b"\n0001,", b"\n\xef\xbb\xbf0001,")),
         "R", [r"unknown ids: 1 submitted id\(s\) are not answer ids \(1 of 1\): \['\\ufeff0001'\]",
               r"near misses, submitted vs expected: '\\ufeff0001' vs '0001'$"]),
    Case(1, "bom_before_a_later_row", "value",
         _bytes(lambda t: perfect_text(t).encode().replace(b"\nx10,", b"\n\xef\xbb\xbfx10,")),
         "R", [r"unknown ids: 1 submitted id\(s\) are not answer ids \(1 of 1\): \['\\ufeffx10'\]",
               r"near misses, submitted vs expected: '\\ufeffx10' vs 'x10'$"]),
    Case(42, "json_duplicate_key", "json",
         _text(lambda t: '{"paperA": [1, 0, 0], "paperB": [0, 1], "paperA": [0, 0, 1], '
                         '"paperC": [1, 1, 0, 0]}'), "R",
         [r"^submission JSON gives 1 key\(s\) a second time in the same object \(1 of 1\): "
          r"\['paperA'\]; expected each key once"], "submission.json"),
    Case(42, "json_duplicate_key_nested", "json",
         _text(lambda t: '{"paperA": [1, 0, 0], "paperB": [{"x": 1, "x": 2}], '
                         '"paperC": [1, 1, 0, 0]}'), "R",
         [r"a second time in the same object \(1 of 1\): \['x'\]"], "submission.json"),
]


def build_case(case: Case, folder: Path) -> tuple[TaskSpec, Path, Path]:
    """Write the case's task and submission into ``folder``: (spec, answers, submission)."""
    task = TASKS[case.task]
    spec, answers = write_task(task, folder / "private")
    sub = folder / "run" / case.filename
    sub.parent.mkdir(parents=True, exist_ok=True)
    case.build(task, sub)
    return spec, answers, sub


def build_perfect(task_name: str, folder: Path) -> tuple[TaskSpec, Path, Path]:
    """The task with its perfect submission."""
    task = TASKS[task_name]
    spec, answers = write_task(task, folder / "private")
    ext = task.grading.submission_format.value
    sub = folder / "run" / f"submission.{ext}"
    sub.parent.mkdir(parents=True, exist_ok=True)
    sub.write_text(perfect_text(task), encoding="utf-8")
    return spec, answers, sub
