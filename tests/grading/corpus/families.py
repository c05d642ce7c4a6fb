"""An adversarial corpus per metric family: label, probability, value, ranking, set, text, mask
and structured (JSON and line files).

Every CSV family meets the same 40 file, format, column, row and id attacks (built from its
perfect submission), then attacks on its own values. Expected outcomes are written here and,
for submissions that are scored, computed by small reference implementations of each metric's
published definition (not by the metrics under test):

* ``R``: refused; every regex in ``match`` matches one of the problems.
* ``N``: normalised; scores exactly as the perfect submission.
* ``S``: scored; the score equals ``score`` (computed here).
* ``M``: reported as a missing submission.

``pending`` names cases whose intended outcome depends on work outside the grader's
validation (a metric's own arithmetic); the tests mark them xfail(strict), so they fail loudly
the day that work lands and the marker must go.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tambench.schema.taskspec import GradingSpec, TaskSpec

MEGA = 1_000_000
Rows = list[list[str]]
Scorer = Callable[[list[str], list[str]], float]


# --- reference scores (the published definitions, written out) ----------------------------------


def ref_accuracy(t: list[str], p: list[str]) -> float:
    return sum(a == b for a, b in zip(t, p, strict=True)) / len(t)


def ref_auc(t: list[str], p: list[str]) -> float:
    """Share of (positive, negative) pairs ranked right, ties counting half."""
    pos = [float(s) for y, s in zip(t, p, strict=True) if y == "1"]
    neg = [float(s) for y, s in zip(t, p, strict=True) if y == "0"]
    wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


def ref_rmse(t: list[str], p: list[str]) -> float:
    return math.sqrt(sum((float(a) - float(b)) ** 2 for a, b in zip(t, p, strict=True)) / len(t))


def ref_map3(t: list[str], p: list[str]) -> float:
    """MAP@3 (Kaggle's apk): the first 3 predictions count, a repeat of an earlier one is no
    hit but keeps its position; rows with an empty true set are left out."""
    scores = []
    for truth, ranking in zip(t, p, strict=True):
        rel = set(truth.split())
        if not rel:
            continue
        top = ranking.split()[:3]
        hits, total = 0, 0.0
        for i, item in enumerate(top, start=1):
            if item in rel and item not in top[: i - 1]:
                hits += 1
                total += hits / i
        scores.append(total / min(len(rel), 3))
    return sum(scores) / len(scores)


def ref_set_f1(t: list[str], p: list[str]) -> float:
    """Row-wise F1 of label sets, "nocall" being the empty set; two empty sets score 1."""
    total = 0.0
    for a, b in zip(t, p, strict=True):
        ts, ps = set(a.split()) - {"nocall"}, set(b.split()) - {"nocall"}
        total += 1.0 if not ts and not ps else 2 * len(ts & ps) / (len(ts) + len(ps))
    return total / len(t)


def _scaled_rmse(errors: list[float]) -> float:
    """RMSE of the errors, scaled by the largest so that no square overflows."""
    m = max(abs(e) for e in errors)
    return m * math.sqrt(sum((e / m) ** 2 for e in errors) / len(errors))


def _pixels(rle: str) -> set[int]:
    numbers = [int(x) for x in rle.split()]
    return {s + i for s, n in zip(numbers[0::2], numbers[1::2], strict=True) for i in range(n)}


def ref_dice(t: list[str], p: list[str]) -> float:
    """Mean row Dice of run-length masks; two empty masks score 1."""
    total = 0.0
    for a, b in zip(t, p, strict=True):
        ta, pb = _pixels(a), _pixels(b)
        total += 1.0 if not ta and not pb else 2 * len(ta & pb) / (len(ta) + len(pb))
    return total / len(t)


# --- families -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """A task of one metric family: its spec, answers and a reference scorer."""

    name: str
    grading: GradingSpec
    ids: list[str]
    truths: list[str]
    score: Scorer | None = None

    @property
    def header(self) -> list[str]:
        return [*self.grading.id_columns, *self.grading.target_columns]

    def spec(self) -> TaskSpec:
        return TaskSpec(id=f"corpus/{self.name}", platform="corpus", grading=self.grading)

    def rows(self) -> Rows:
        return [[i, y] for i, y in zip(self.ids, self.truths, strict=True)]


def _g(metric: str, **kw: object) -> GradingSpec:
    return GradingSpec(metric=metric, id_columns=["id"], target_columns=["y"], **kw)  # type: ignore[arg-type]


FAMILIES: dict[str, Family] = {
    "label": Family("label", _g("accuracy", labels=["a", "b", "c", "d"]),
                    [f"L{i}" for i in range(8)], ["a", "b", "c", "a", "b", "c", "a", "b"],
                    ref_accuracy),
    "probability": Family("probability", _g("roc_auc"), [f"P{i}" for i in range(8)],
                          ["1", "0", "1", "0", "1", "0", "0", "1"], ref_auc),
    "value": Family("value", _g("rmse"), [f"V{i}" for i in range(8)],
                    ["1.5", "-2", "0", "3.25", "100", "0.001", "7", "-0.5"], ref_rmse),
    "ranking": Family("ranking", _g("map_at_k", metric_params={"k": 3}),
                      [f"K{i}" for i in range(6)], ["x y", "z", "x", "y z w", "w", "x w"],
                      ref_map3),
    "set": Family("set", _g("rowwise_set_f1", metric_params={"empty_token": "nocall"}),
                  [f"S{i}" for i in range(6)], ["amecro", "nocall", "a b", "b", "c a", "nocall"],
                  ref_set_f1),
    "text": Family("text", _g("exact_match"), [f"T{i}" for i in range(6)],
                   ["one", "two words", "", "caf\u00e9", "x y z", "12"], ref_accuracy),
    "mask": Family("mask", _g("dice", empty_token="-"), [f"M{i}" for i in range(6)],
                   ["1 3", "5 2 10 1", "-", "2 2", "-", "100 4"], ref_dice),
}


# --- cases ---------------------------------------------------------------------------------------

Builder = Callable[[Family, Path], None]


@dataclass(frozen=True)
class FamilyCase:
    """One submission for one family and the outcome it must get."""

    family: str
    name: str
    build: Builder
    want: str
    match: list[str] = field(default_factory=list)
    score: float | None = None
    pending: str = ""
    filename: str = "submission.csv"

    @property
    def id(self) -> str:
        return f"{self.family}-{self.name}"


def csv_text(header: list[str], rows: Rows) -> str:
    return "\n".join([",".join(header), *(",".join(r) for r in rows)]) + "\n"


def perfect(f: Family) -> str:
    return csv_text(f.header, f.rows())


def _text(fn: Callable[[Family], str]) -> Builder:
    def build(f: Family, path: Path) -> None:
        path.write_bytes(fn(f).encode("utf-8"))
    return build


def _bytes(fn: Callable[[Family], bytes]) -> Builder:
    def build(f: Family, path: Path) -> None:
        path.write_bytes(fn(f))
    return build


def _rows(fn: Callable[[Rows], Rows], header: list[str] | None = None) -> Builder:
    """A submission made of the perfect rows changed by ``fn``."""
    def build(f: Family, path: Path) -> None:
        path.write_text(csv_text(header or f.header, fn(f.rows())), encoding="utf-8")
    return build


def _cell(row: int, value: str) -> Builder:
    def change(rows: Rows) -> Rows:
        rows[row][1] = value
        return rows
    return _rows(change)


def _id(row: int, value: str) -> Callable[[Rows], Rows]:
    def change(rows: Rows) -> Rows:
        rows[row][0] = value
        return rows
    return change


def _private(path: Path) -> Path:
    return path.parent.parent / "private"


def _symlink(f: Family, path: Path) -> None:
    target = path.parent / "elsewhere.csv"
    target.write_text(perfect(f), encoding="utf-8")
    os.symlink(target, path)


def _hard_link(f: Family, path: Path) -> None:
    (answers,) = list(_private(path).iterdir())
    os.link(answers, path)


def _sparse(f: Family, path: Path) -> None:
    with open(path, "wb") as fh:
        fh.write(b"id,y\n")
        fh.truncate(3 * 1024**3)


def _zip(f: Family) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("submission.csv", perfect(f))
    return buf.getvalue()


def _latin1(f: Family) -> bytes:
    return csv_text(f.header, _id(1, "caf\u00e9")(f.rows())).encode("latin-1")


def _nothing(f: Family, path: Path) -> None:
    """No file at all."""


def _generic() -> list[tuple[str, Builder, str, list[str]]]:
    """(name, builder, want, patterns) of the attacks every CSV family meets."""
    shuffled: Callable[[Rows], Rows] = lambda r: r[::-1][2:] + r[::-1][:2]  # noqa: E731
    return [
        ("utf8_bom", _bytes(lambda f: b"\xef\xbb\xbf" + perfect(f).encode()), "N", []),
        ("utf16_bom", _bytes(lambda f: perfect(f).encode("utf-16")), "R",
         [r"encoded as UTF-16 \(little-endian BOM\); expected UTF-8"]),
        ("utf16_without_bom", _bytes(lambda f: perfect(f).encode("utf-16-le")), "R",
         [r"looks UTF-16 encoded without a byte-order mark"]),
        ("latin1_byte", _bytes(_latin1), "R", [r"line 3: byte 0xe9 .* is not valid UTF-8"]),
        ("semicolons", _text(lambda f: perfect(f).replace(",", ";")), "R",
         [r"wrong delimiter: expected `,`, got `;`"]),
        ("tabs", _text(lambda f: perfect(f).replace(",", "\t")), "R",
         [r"wrong delimiter: expected `,`, got tab"]),
        ("all_quoted", _text(lambda f: csv_text([f'"{h}"' for h in f.header],
                                                [[f'"{c}"' for c in r] for r in f.rows()])),
         "N", []),
        ("quoted_newline_in_id", _rows(_id(2, '"x\ny"')), "R", [r"line break"]),
        ("too_many_fields", _rows(lambda r: [*r[:2], [*r[2], "9"], *r[3:]]), "R",
         [r"^line 4: 3 fields, expected 2$"]),
        ("too_few_fields", _rows(lambda r: [*r[:3], r[3][:1], *r[4:]]), "R",
         [r"^line 5: 1 field, expected 2$"]),
        ("no_header", _text(lambda f: csv_text(f.rows()[0], f.rows()[1:])), "R",
         [r"no header row|column `y` missing"]),
        ("header_case", _rows(lambda r: r, ["id", "Y"]), "R",
         [r"column `y` missing; .*\(got `Y`: names are case- and space-sensitive\)"]),
        ("duplicate_column", _text(lambda f: csv_text(["id", "y", "y"],
                                                      [[*r, r[1]] for r in f.rows()])), "R",
         [r"duplicate column name\(s\) \['y'\]"]),
        ("extra_column", _text(lambda f: csv_text(["id", "y", "note"],
                                                  [[*r, "x"] for r in f.rows()])), "R",
         [r"unexpected column\(s\) \(1 of 1\): \['note'\]"]),
        ("columns_reordered", _text(lambda f: csv_text(["y", "id"],
                                                       [[r[1], r[0]] for r in f.rows()])), "N", []),
        ("rows_shuffled", _rows(shuffled), "N", []),
        ("duplicate_for_missing", _rows(lambda r: [*r[:3], [r[2][0], r[3][1]], *r[4:]]), "R",
         [r"duplicated ids: 1 id\(s\)", r"missing ids: 1 answer id\(s\)"]),
        ("missing_row", _rows(lambda r: r[:-1]), "R", [r"rows; expected", r"missing ids"]),
        ("unknown_extra_row", _rows(lambda r: [*r, ["zz", r[0][1]]]), "R",
         [r"unknown ids: 1 submitted id\(s\) are not answer ids \(1 of 1\): \['zz'\]"]),
        ("every_id_wrong", _rows(lambda r: [[f"w{k}", x[1]] for k, x in enumerate(r)]), "R",
         [r"no submitted id matches any answer id"]),
        ("id_with_a_space", _rows(lambda r: _id(0, r[0][0] + " ")(r)), "R",
         [r"near misses, submitted vs expected: '\w+ ' vs '\w+'$"]),
        ("id_in_other_case", _rows(lambda r: _id(0, r[0][0].lower())(r)), "R",
         [r"unknown ids", r"near misses"]),
        ("header_only", _text(lambda f: ",".join(f.header) + "\n"), "R",
         [r"no data rows \(header only\)"]),
        ("empty_file", _bytes(lambda f: b""), "R", [r"file is empty \(0 bytes\)"]),
        ("crlf_and_blank_lines", _text(lambda f: perfect(f).replace("\n", "\r\n") + "\r\n\n"),
         "N", []),
        ("gzip", _bytes(lambda f: gzip.compress(perfect(f).encode())), "R", [r"gzip-compressed"]),
        ("zip", _bytes(_zip), "R", [r"a zip archive"]),
        ("sep_preamble", _text(lambda f: "sep=,\n" + perfect(f)), "R", [r"preamble line"]),
        ("comment_first", _text(lambda f: "# hi\n" + perfect(f)), "R", [r"a comment line"]),
        ("nul_byte", _bytes(lambda f: perfect(f).encode().replace(b"\n", b"\n\x00", 1)), "R",
         [r"contains NUL bytes"]),
        ("symlink", _symlink, "R", [r"is a symbolic link; expected a regular file"]),
        ("fifo", lambda f, p: os.mkfifo(p), "R", [r"is a FIFO"]),
        ("directory", lambda f, p: p.mkdir(), "R", [r"is a directory"]),
        ("hard_link_to_answers", _hard_link, "R", [r"is the answers file under another name"]),
        ("one_megabyte_id", _rows(_id(1, "q" * MEGA)), "R",
         [rf"\['q{{80}}'\.\.\. \(\+{MEGA - 80} characters\)\]"]),
        ("bom_before_first_row", _bytes(lambda f: perfect(f).encode().replace(
            b"\n", b"\n\xef\xbb\xbf", 1)), "R", [r"unknown ids: .*\\ufeff"]),
        ("sparse_3_gib", _sparse, "R", [r"file is 3.0 GiB; expected at most"]),
        ("ten_thousand_and_one_columns", _text(lambda f: ",".join(
            ["id", "y", *(f"c{i}" for i in range(9999))]) + "\n"), "R",
         [r"header has 10001 columns; expected at most 10000"]),
        ("no_file", _nothing, "M", []),
        ("every_row_twice", _rows(lambda r: r + r), "R",
         [r"rows; expected", r"duplicated ids: \d+ id\(s\)"]),
    ]


#: Text-to-number attacks shared by the numeric families: (name, cell, want, pattern).
NUMBER_ATTACKS: list[tuple[str, str, str, str]] = [
    ("nan", "NaN", "R", r"NaN or infinite"),
    ("inf", "inf", "R", r"NaN or infinite"),
    ("minus_infinity", "-Infinity", "R", r"NaN or infinite"),
    ("overflow_to_inf", "1e400", "R", r"NaN or infinite"),
    ("empty", "", "R", r"empty cell"),
    ("text", "abc", "R", r"not numbers"),
    ("hex_float", "0x1p-1", "R", r"not numbers"),
    ("decimal_comma", '"0,5"', "R", r"not numbers"),
    ("unicode_digits", "\u0661", "R", r"not numbers"),
    ("vulgar_fraction", "\u00bd", "R", r"not numbers"),
    ("underscore_digits", "1_0", "R", r"not numbers"),
    ("formula", "=1+1", "R", r"not numbers"),
    ("one_megabyte_number", "9" * MEGA, "R", r"NaN or infinite"),
]


def _numeric_cases(fam: str, valid: list[tuple[str, str]]) -> list[FamilyCase]:
    """Attacks on a numeric cell (row 1) plus spellings that are valid numbers."""
    f = FAMILIES[fam]
    out = [FamilyCase(fam, f"cell_{n}", _cell(1, v), w, [p]) for n, v, w, p in NUMBER_ATTACKS]
    for name, value in valid:
        pred = [r[1] for r in f.rows()]
        pred[1] = value.strip().strip('"')
        out.append(FamilyCase(fam, f"cell_{name}", _cell(1, value), "S",
                              score=f.score(f.truths, pred) if f.score else None))
    return out


def _values(fam: str, name: str, pred: list[str]) -> FamilyCase:
    """A valid submission predicting ``pred``, scored by the family's reference."""
    f = FAMILIES[fam]
    rows = [[i, p] for i, p in zip(f.ids, pred, strict=True)]
    truths = [(t if t != "-" else "") for t in f.truths] if fam == "mask" else f.truths
    preds = [(p if p != "-" else "") for p in pred] if fam == "mask" else pred
    return FamilyCase(fam, name, _rows(lambda _r, rows=rows: [list(r) for r in rows]), "S",
                      score=f.score(truths, preds) if f.score else None)


def _specific() -> list[FamilyCase]:
    big = '"' + "w " * (MEGA // 2) + '"'
    cases = [
        # label
        FamilyCase("label", "unknown_label", _cell(0, "e"), "R",
                   [r"^column `y`: 1 unknown label\(s\) \(1 of 1\): \['e'\] in rows \[1\] \(ids "
                    r"\['L0'\]\); allowed labels: \['a', 'b', 'c', 'd'\]$"]),
        FamilyCase("label", "label_case", _cell(0, "A"), "R", [r"unknown label\(s\).*\['A'\]"]),
        FamilyCase("label", "label_with_space", _cell(0, " a"), "R",
                   [r"unknown label\(s\).*\[' a'\]"]),
        FamilyCase("label", "empty_label", _cell(0, ""), "R", [r"1 empty cell\(s\)"]),
        FamilyCase("label", "quoted_comma_label", _cell(0, '"a,b"'), "R",
                   [r"unknown label\(s\).*\['a,b'\]"]),
        FamilyCase("label", "one_megabyte_label", _cell(0, "a" * MEGA), "R",
                   [rf"\['a{{80}}'\.\.\. \(\+{MEGA - 80} characters\)\]"]),
        FamilyCase("label", "formula_label", _cell(0, "=HYPERLINK(1)"), "R",
                   [r"unknown label\(s\)"]),
        _values("label", "valid_class_absent_from_answers", ["d", *FAMILIES["label"].truths[1:]]),
        _values("label", "every_row_the_absent_class", ["d"] * 8),
        _values("label", "all_wrong", ["b", "c", "a", "b", "c", "a", "b", "c"]),
        # probability
        FamilyCase("probability", "above_one", _cell(0, "1.0000001"), "R", [r"outside \[0, 1\]"]),
        FamilyCase("probability", "below_zero", _cell(0, "-0.0001"), "R", [r"outside \[0, 1\]"]),
        *_numeric_cases("probability", [("plus_sign", "+0.5"), ("leading_dot", ".5"),
                                        ("trailing_dot", "1."), ("spaces", "  0.25 "),
                                        ("exponent", "5E-1"), ("negative_zero", "-0"),
                                        ("underflow", "1e-400")]),
        _values("probability", "constant", ["0.5"] * 8),
        _values("probability", "reversed", ["0", "1", "0", "1", "0", "1", "1", "0"]),
        # value
        *_numeric_cases("value", [("plus_sign", "+2"), ("exponent", "-2e0"),
                                  ("long_digits", "-2.00000000000000000000000001"),
                                  ("spaces", " -2 "), ("huge", "1e150")]),
        FamilyCase("value", "squares_overflow", _cell(1, "1e300"), "S",
                   score=_scaled_rmse([1e300 - (-2.0)]
                                      + [0.0] * (len(FAMILIES["value"].truths) - 1))),
        _values("value", "constant", ["0"] * 8),
        # ranking
        _values("ranking", "more_than_k", ["x y a b c", "z", "x", "y z w", "w", "x w"]),
        _values("ranking", "repeated_items", ["x x y", "z z", "x", "y z w", "w", "x w"]),
        _values("ranking", "empty_ranking", ["", "z", "x", "y z w", "w", "x w"]),
        _values("ranking", "unknown_items", ["q r s", "z", "x", "y z w", "w", "x w"]),
        FamilyCase("ranking", "tab_separated", _cell(0, '"x\ty"'), "S", score=1.0),
        FamilyCase("ranking", "one_megabyte_ranking", _cell(3, big), "S",
                   score=ref_map3(FAMILIES["ranking"].truths,
                                  ["x y", "z", "x", "w", "w", "x w"])),
        # set
        _values("set", "empty_cell_is_empty_set", ["amecro", "", "a b", "b", "c a", ""]),
        _values("set", "nocall_with_birds", ["amecro nocall", "nocall", "a b", "b", "c a", "x"]),
        _values("set", "duplicates_and_order", ["amecro amecro", "nocall", "b a", "b", "a c",
                                                "nocall"]),
        _values("set", "unknown_codes", ["zzz", "nocall", "a b", "b", "c a", "nocall"]),
        FamilyCase("set", "one_megabyte_set", _cell(2, big), "S",
                   score=ref_set_f1(FAMILIES["set"].truths,
                                    ["amecro", "nocall", "w", "b", "c a", "nocall"])),
        # text
        _values("text", "spaces_differ", ["one ", "two  words", "", "caf\u00e9", "x y z", "12"]),
        _values("text", "nfd_is_not_nfc", ["one", "two words", "", "cafe\u0301", "x y z", "12"]),
        _values("text", "number_spelling", ["one", "two words", "", "caf\u00e9", "x y z", "12.0"]),
        # RFC 4180: a quoted line break is part of a text value (pandas writes one)
        FamilyCase("text", "quoted_newline_in_text", _cell(1, '"two\nwords"'), "S",
                   score=5 / 6),
        FamilyCase("text", "quoted_crlf_in_text", _cell(4, '"x y\r\nz"'), "S", score=5 / 6),
        FamilyCase("label", "quoted_newline_in_label", _cell(1, '"b\nb"'), "R",
                   [r"^column `y`: 1 value\(s\) hold a line break \(a quoted newline\) in rows "
                    r"\[2\] \(ids \['L1'\]\); expected one row per line$"]),
        FamilyCase("value", "quoted_newline_in_number", _cell(1, '"-2\n5"'), "R",
                   [r"column `y`: 1 value\(s\) are not numbers"]),
        FamilyCase("text", "one_megabyte_text", _cell(0, "o" * MEGA), "S", score=5 / 6),
        # mask
        _values("mask", "shifted_runs", ["2 3", "5 2 10 1", "-", "2 2", "-", "100 4"]),
        _values("mask", "empty_token_everywhere", ["-"] * 6),
        _values("mask", "empty_cell_is_empty_mask", ["1 3", "5 2 10 1", "", "2 2", "", "100 4"]),
        FamilyCase("mask", "odd_token_count", _cell(0, "1 3 5"), "R", [r"run-length"]),
        FamilyCase("mask", "letters", _cell(0, "a b"), "R", [r"run-length"]),
        FamilyCase("mask", "zero_start", _cell(0, "0 3"), "R", [r"run-length|start"]),
        FamilyCase("mask", "zero_length", _cell(0, "1 0"), "R", [r"run-length|length"]),
        FamilyCase("mask", "overlapping_runs", _cell(1, "5 3 6 2"), "R", [r"overlap"]),
        FamilyCase("mask", "unsorted_runs", _cell(1, "10 1 5 2"), "R", [r"sorted|overlap"]),
        FamilyCase("mask", "plus_sign_token", _cell(0, "+1 3"), "R", [r"run-length|token"]),
        FamilyCase("mask", "underscore_token", _cell(0, "1_0 3"), "R", [r"run-length|token"]),
        FamilyCase("mask", "unicode_digit_token", _cell(0, "\u0661 3"), "R",
                   [r"run-length|token"]),
        FamilyCase("mask", "beyond_int64", _cell(0, "99999999999999999999 1"), "R",
                   [r"run-length|token"]),
        FamilyCase("mask", "wrapping_lengths", _cell(0, "1 9223372036854775807 5 9223372036854775807"),
                   "R", [r"run-length|token|overlap"]),
    ]
    return cases


def _structured() -> list[FamilyCase]:
    """JSON (mean_ap_per_paper) and line-file (map_at_k_lines) attacks."""
    good = {"p1": [1, 0, 0], "p2": [0, 1]}

    def js(text: str) -> Builder:
        return _text(lambda f: text)

    cases: list[tuple[str, Builder, str, list[str]]] = [
        ("json_perfect_with_bom", _bytes(lambda f: b"\xef\xbb\xbf" + json.dumps(good).encode()),
         "N", []),
        ("json_truncated", js('{"p1": [1, 0'), "R", [r"not valid JSON: line 1"]),
        ("json_nan", js('{"p1": [NaN, 0, 0], "p2": [0, 1]}'), "R", [r"NaN is not allowed"]),
        ("json_infinity", js('{"p1": [Infinity, 0, 0], "p2": [0, 1]}'), "R",
         [r"Infinity is not allowed"]),
        ("json_duplicate_key", js('{"p1": [1, 0, 0], "p1": [0, 0, 1], "p2": [0, 1]}'), "R",
         [r"gives 1 key\(s\) a second time"]),
        ("json_missing_key", js('{"p1": [1, 0, 0]}'), "R", [r"missing paper"]),
        ("json_extra_key", js('{"p1": [1, 0, 0], "p2": [0, 1], "p9": [1]}'), "R",
         [r"unknown paper"]),
        ("json_top_level_list", js("[1, 2]"), "R", [r"object|dict|top level"]),
        ("json_nested_deep", js("[" * 100_000 + "]" * 100_000), "R",
         [r"nested too deeply|not valid JSON|object|top level"]),
        ("json_utf16", _bytes(lambda f: json.dumps(good).encode("utf-16")), "R",
         [r"encoded as UTF-16"]),
        ("json_gzip", _bytes(lambda f: gzip.compress(json.dumps(good).encode())), "R",
         [r"gzip-compressed"]),
        ("json_empty", _bytes(lambda f: b""), "R", [r"empty \(0 bytes\)"]),
        ("json_nul", _bytes(lambda f: json.dumps(good).encode() + b"\x00"), "R",
         [r"NUL bytes"]),
        ("json_latin1", _bytes(lambda f: '{"p1": [1, 0, 0], "p2": [0, 1], "caf\u00e9": 1}'
                               .encode("latin-1")), "R", [r"not valid UTF-8"]),
        ("json_one_megabyte_key", js(json.dumps({**good, "k" * MEGA: [1]})), "R",
         [r"unknown paper"]),
        ("json_symlink", _symlink, "R", [r"symbolic link"]),
        ("json_hard_link", _hard_link, "R", [r"answers file under another name"]),
        ("json_no_file", _nothing, "M", []),
        ("json_wrong_list_length", js('{"p1": [1, 0], "p2": [0, 1]}'), "R",
         [r"wrong number of reference scores"]),
        ("json_string_score", js('{"p1": ["1", 0, 0], "p2": [0, 1]}'), "R",
         [r"not numbers in \[0, 1\]"]),
        ("json_score_above_one", js('{"p1": [1.5, 0, 0], "p2": [0, 1]}'), "R",
         [r"not numbers in \[0, 1\]"]),
        ("json_number_overflowing_to_inf", js('{"p1": [1e400, 0, 0], "p2": [0, 1]}'), "R",
         [r"not numbers in \[0, 1\]"]),
        ("json_null_value", js('{"p1": null, "p2": [0, 1]}'), "R", [r"not a list"]),
        ("json_object_value", js('{"p1": {"a": 1}, "p2": [0, 1]}'), "R", [r"not a list"]),
        ("json_trailing_garbage", js('{"p1": [1, 0, 0], "p2": [0, 1]} x'), "R",
         [r"not valid JSON: line 1, column \d+: Extra data"]),
        ("json_comment", js('{"p1": [1, 0, 0], // hi\n "p2": [0, 1]}'), "R", [r"not valid JSON"]),
        ("json_single_quotes", js("{'p1': [1, 0, 0], 'p2': [0, 1]}"), "R", [r"not valid JSON"]),
        ("json_keys_reordered", js('{"p2": [0, 1], "p1": [1, 0, 0]}'), "N", []),
    ]
    out = [FamilyCase("structured", n, b, w, m, filename="submission.json")
           for n, b, w, m in cases]
    # Scored by hand: p1 ranks its source second (AP 1/2), p2 first (AP 1): MAP 0.75.
    out += [FamilyCase("structured", "json_scored_by_hand",
                       js('{"p1": [0.2, 0.9, 0.1], "p2": [0.3, 0.8]}'), "S", score=0.75,
                       filename="submission.json"),
            FamilyCase("structured", "json_integer_scores", js('{"p1": [1, 0, 0], "p2": [0, 1]}'),
                       "S", score=1.0, filename="submission.json")]
    lines: list[tuple[str, Builder, str, list[str]]] = [
        ("txt_crlf", js("a,b\r\nc\r\n"), "N", []),
        ("txt_missing_line", js("a,b\n"), "R", [r"expected 2 lines .*got 1"]),
        ("txt_extra_line", js("a,b\nc\nd\n"), "R", [r"expected 2 lines .*got 3"]),
        ("txt_empty", _bytes(lambda f: b""), "R", [r"empty \(0 bytes\)"]),
        ("txt_blank_only", js("\n\n\n"), "R", [r"expected 2 lines .*got 0"]),
        ("txt_nul", _bytes(lambda f: b"a,b\n\x00c\n"), "R", [r"NUL bytes .*\[2\]"]),
        ("txt_utf16", _bytes(lambda f: "a,b\nc\n".encode("utf-16")), "R", [r"UTF-16"]),
        ("txt_latin1", _bytes(lambda f: "a,b\ncaf\u00e9\n".encode("latin-1")), "R",
         [r"line 2: byte 0xe9"]),
        ("txt_zip", _bytes(lambda f: _zip(FAMILIES["value"])), "R", [r"a zip archive"]),
        ("txt_fifo", lambda f, p: os.mkfifo(p), "R", [r"FIFO"]),
        ("txt_swapped_lines", js("c\na,b\n"), "S", []),
        ("txt_no_file", _nothing, "M", []),
    ]
    out += [FamilyCase("lines", n, b, w, m, score=0.0 if w == "S" else None,
                       filename="submission.txt") for n, b, w, m in lines]
    return out


STRUCTURED_TASKS: dict[str, tuple[GradingSpec, str, str]] = {
    "structured": (GradingSpec(metric="mean_ap_per_paper", submission_format="json",
                               answers_file="answers.json"),
                   json.dumps({"p1": [1, 0, 0], "p2": [0, 1]}),
                   json.dumps({"p1": [1, 0, 0], "p2": [0, 1]})),
    "lines": (GradingSpec(metric="map_at_k_lines", submission_format="txt",
                          answers_file="answers.txt", metric_params={"k": 20, "sep": ","}),
              "a,b\nc\n", "a,b\nc\n"),
}


def all_cases() -> list[FamilyCase]:
    """Every case: the generic attacks on every CSV family, then each family's own."""
    out = [FamilyCase(fam, n, b, w, m) for fam in FAMILIES for n, b, w, m in _generic()]
    return out + _specific() + _structured()


CASES = all_cases()


def family_of(case: FamilyCase) -> str:
    """The metric family a case belongs to (line files are structured)."""
    return "structured" if case.family == "lines" else case.family


def build(case: FamilyCase, folder: Path) -> tuple[TaskSpec, Path, Path, Path]:
    """Write the case's task into ``folder``: (spec, answers, submission, perfect submission)."""
    private, run = folder / "private", folder / "run"
    private.mkdir(parents=True)
    run.mkdir()
    if case.family in STRUCTURED_TASKS:
        grading, answers_text, perfect_text = STRUCTURED_TASKS[case.family]
        spec = TaskSpec(id=f"corpus/{case.family}", platform="corpus", grading=grading)
        f = None
    else:
        f = FAMILIES[case.family]
        grading, answers_text, perfect_text = f.grading, perfect(f), perfect(f)
        spec = f.spec()
    answers = private / grading.answers_file
    answers.write_text(answers_text, encoding="utf-8")
    best = folder / f"perfect.{grading.submission_format.value}"
    best.write_text(perfect_text, encoding="utf-8")
    sub = run / case.filename
    case.build(f or FAMILIES["value"], sub)
    return spec, answers, sub, best


def judge(case: FamilyCase, folder: Path) -> tuple[str, str]:
    """Grade the case and say how it went: ("right", ""), or ("crash" | "silent score" |
    "wrong refusal" | "wrong score" | "refused", detail)."""
    import re

    from tambench.grading.grade import grade_submission
    from tambench.validation.reading.text import MAX_MESSAGE_CHARS

    spec, answers, sub, best = build(case, folder)
    try:
        report = grade_submission(sub, spec, answers)
    except Exception as exc:  # noqa: BLE001 - the figure counts crashes; tests re-raise
        return "crash", f"{type(exc).__name__}: {exc}"[:300]
    if any(len(e) > MAX_MESSAGE_CHARS for e in report.errors):
        return "wrong refusal", "a message over the length bound"
    if case.want == "M":
        ok = not report.submission_exists and not report.valid_submission
        return ("right", "") if ok else ("wrong refusal", str(report.errors))
    if case.want == "R":
        if report.valid_submission or report.score is not None:
            return "silent score", f"scored {report.score}"
        missing = [p for p in case.match if not any(re.search(p, e) for e in report.errors)]
        return ("right", "") if report.errors and not missing else (
            "wrong refusal", f"{missing} not in {report.errors}")
    if not report.valid_submission or report.score is None or not math.isfinite(report.score):
        return "refused", str(report.errors)
    want = case.score
    if case.want == "N":
        want = grade_submission(best, spec, answers).score
    if want is not None and not math.isclose(report.score, want, rel_tol=1e-12, abs_tol=1e-12):
        return "wrong score", f"{report.score} != {want}"
    return "right", ""


def figures(root: Path) -> dict[str, dict[str, int]]:
    """Per family: cases tried, handled right, and each kind of failure (pending included)."""
    out: dict[str, dict[str, int]] = {}
    for n, case in enumerate(CASES):
        verdict, _ = judge(case, root / str(n))
        row = out.setdefault(family_of(case), {"tried": 0, "right": 0})
        row["tried"] += 1
        row["right" if verdict == "right" else verdict] = row.get(
            "right" if verdict == "right" else verdict, 0) + 1
    return out


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        table = figures(Path(tmp))
    total = {"tried": 0, "right": 0}
    for fam, row in table.items():
        print(f"{fam:12} {row}")
        total["tried"] += row["tried"]
        total["right"] += row["right"]
    print(f"{'all':12} {total}")
