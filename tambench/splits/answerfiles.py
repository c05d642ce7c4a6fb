"""The answers of a task graded on a line file or a JSON document, written after the split.

Such a task is split as any other, with the recipe's row id and its one target column, and
those keyed answers stay in ``private/answers.csv`` (the audit reads them). Then the grading's
answers file is written from them, and the sample submission the same way as
``public/sample_submission.txt`` or ``.json`` (its CSV form is removed, so the public folder
holds one sample, the one graded):

* txt (AQA's ranked paper ids, the next-product sessions): graded by position, so line i is
  the target of row i of public/test.csv, in that order;
* json (WhoIsWho-IND): ``{row[k1]: {row[k2]: target}}`` with the recipe's ``answers_keys``
  [k1, k2], keys in public/test.csv's order; targets that read as numbers are written as JSON
  numbers; with ``answers_list`` (PST), ``{row[k1]: [target, ...]}`` in the order of k2,
  which must number each k1's rows 0, 1, ...

A CSV task whose answers are regrouped per key (``split.answers_per``: h-and-m's purchases
of the last week, one answers row per customer) is split as events the same way, then its
answers, public/test.csv and sample submission are rewritten per key
(:func:`write_regrouped`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from tambench.core.bounded import REPORT_BOUNDS, parse_json
from tambench.errors import SplitError
from tambench.splits.layout import PRIVATE_DIR, PUBLIC_DIR, SAMPLE_FILE, TEST_FILE, SplitPlan


def _in_test_order(test: pl.DataFrame, keyed: Path, plan: SplitPlan, what: str) -> pl.Series:
    """The target of every public test row, in the public order, from a keyed CSV."""
    idc, target = plan.id_column, plan.hidden_columns[0]
    values = pl.read_csv(keyed, columns=[idc, target], infer_schema=False)
    rows = test.join(values, on=idc, how="left", maintain_order="left")[target]
    missing = rows.null_count()
    if missing or values.height != test.height:
        raise SplitError(f"{what}: {values.height} row(s) for {test.height} public test "
                         f"row(s), {missing} test id(s) without a value")
    return rows


def _lines(values: pl.Series, _test: pl.DataFrame, _plan: SplitPlan, what: str) -> str:
    broken = values.str.contains("[\r\n]").sum()
    if broken:
        raise SplitError(f"{what}: {broken} value(s) of {values.name!r} hold a line break and "
                         "cannot be one line each")
    return "".join(f"{v}\n" for v in values)


def _number(text: str) -> Any:
    """A cell as JSON writes it: an int or a finite float when it reads as one, else text."""
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if value == value and value not in (float("inf"), float("-inf")):
            return value
    return text


def _nested(values: pl.Series, test: pl.DataFrame, plan: SplitPlan, what: str) -> str:
    outer, inner = plan.split.answers_keys
    doc: dict[str, dict[str, Any]] = {}
    for k1, k2, v in zip(test[outer], test[inner], values, strict=True):
        group = doc.setdefault(k1, {})
        if k2 in group:
            raise SplitError(f"{what}: ({outer}, {inner}) = ({k1!r}, {k2!r}) is on two rows; "
                             "the JSON answers need each pair once")
        group[k2] = _number(v)
    return json.dumps(doc, ensure_ascii=False) + "\n"


def _listed(values: pl.Series, test: pl.DataFrame, plan: SplitPlan, what: str) -> str:
    outer, inner = plan.split.answers_keys
    groups: dict[str, dict[int, Any]] = {}
    for k1, k2, v in zip(test[outer], test[inner], values, strict=True):
        position = int(k2) if k2.isdigit() else -1
        group = groups.setdefault(k1, {})
        if position < 0 or position in group:
            raise SplitError(f"{what}: {inner}={k2!r} of {outer}={k1!r} is not a position "
                             "0, 1, ... given once; the JSON answers list each "
                             f"{outer}'s targets in {inner}'s order")
        group[position] = _number(v)
    doc: dict[str, list[Any]] = {}
    for k1, group in groups.items():
        if len(group) != max(group) + 1:
            raise SplitError(f"{what}: {outer}={k1!r} has {len(group)} row(s) but "
                             f"{inner} up to {max(group)}: a position is missing")
        doc[k1] = [group[n] for n in range(len(group))]
    return json.dumps(doc, ensure_ascii=False) + "\n"


_RENDER = {"txt": _lines, "json": _nested}


def write_rendered(plan: SplitPlan, out: Path) -> None:
    """Write ``private/<rendered_file>`` and the public sample in the grading's format from
    the keyed answers and sample of the split in ``out``."""
    keys = list(plan.split.answers_keys)
    test = pl.read_csv(out / PUBLIC_DIR / TEST_FILE, columns=[plan.id_column, *keys],
                       infer_schema=False)
    render = _listed if plan.split.answers_list else _RENDER[plan.rendered_format]
    answers = _in_test_order(test, out / PRIVATE_DIR / plan.answers_file, plan, "answers")
    sample_csv = out / PUBLIC_DIR / SAMPLE_FILE
    sample = _in_test_order(test, sample_csv, plan, "sample submission")
    (out / PRIVATE_DIR / plan.rendered_file).write_text(
        render(answers, test, plan, "answers"), encoding="utf-8")
    (out / PUBLIC_DIR / plan.sample_file).write_text(
        render(sample, test, plan, "sample submission"), encoding="utf-8")
    sample_csv.unlink()


def write_regrouped(plan: SplitPlan, out: Path) -> tuple[int, str]:
    """Regroup the split in ``out`` per ``split.answers_per.key`` (h-and-m's customers): the
    answers become one row per key with its test rows' items joined, each once, in the public
    order,
    public/test.csv the keys in that order, and the sample submission each key with the
    sample's one item (the training rows' most frequent). Returns the keys and a note."""
    per = plan.split.answers_per
    if per is None:
        raise SplitError("write_regrouped: the split has no answers_per (nothing to regroup)")
    answers_path = out / PRIVATE_DIR / plan.answers_file
    events = pl.read_csv(answers_path, columns=[per.key, per.column], infer_schema=False)
    answers = events.group_by(per.key, maintain_order=True).agg(
        pl.col(per.column).unique(maintain_order=True).str.join(per.separator).alias(per.into))
    sample_path = out / PUBLIC_DIR / SAMPLE_FILE
    item = pl.read_csv(sample_path, columns=[per.column], infer_schema=False)[per.column]
    constant = item[0] if item.len() else ""
    answers.write_csv(answers_path)
    answers.select(per.key).write_csv(out / PUBLIC_DIR / TEST_FILE)
    answers.select(per.key, pl.lit(constant, dtype=pl.String).alias(per.into)).write_csv(
        sample_path)
    return answers.height, (f"answers_per: {events.height} test row(s) regrouped into "
                            f"{answers.height} {per.key!r} row(s), their {per.column!r} "
                            f"joined into {per.into!r}")


def read_rendered(path: Path, fmt: str) -> Any:
    """A rendered answers or sample file: its lines (txt) or its parsed document (json)."""
    text = path.read_text(encoding="utf-8")
    if fmt == "json":
        return parse_json(text, str(path), error=SplitError, bounds=REPORT_BOUNDS)
    return text.splitlines()
