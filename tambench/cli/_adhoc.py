"""Ad hoc grading options (``tambench grade SUB --answers A --metric M ...``).

Everything a task.json's ``grading`` can say has a flag here, and ``--grading`` takes any
GradingSpec fields as JSON (inline or a file) for the rest; flags given win over it. Public
files named by ``--labels-from`` and ``--ids-from`` are read where they are: the spec keeps
their names relative to one common folder, passed to the answers loader.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from tambench.core.bounded import load_json, parse_json
from tambench.errors import ConfigError, MalformedInputError

ANSWERS = typer.Option(None, "--answers", help="Answers file (no catalogue).")
METRIC = typer.Option(None, "--metric", help="Metric id (with --answers).")
METRIC_PARAM = typer.Option(
    [], "--metric-param",
    help="Metric parameter k=v, the value read as JSON when it parses (repeatable); "
    "`tambench metrics --json` lists them (answers_column_parameters: those naming answers "
    "columns).",
)
ID_COLUMN = typer.Option([], "--id-column", help="Id column (repeatable).")
TARGET_COLUMN = typer.Option(
    [], "--target-column",
    help="Target column of the submission (repeatable; default: every answers column but the "
    "ids, --not-target ones and the columns named by metric parameters or --scored-where).",
)
NOT_TARGET = typer.Option(
    [], "--not-target", help="Answers column that is not a target (repeatable), for the default."
)
ANSWERS_TARGET = typer.Option(
    [], "--answers-target-column",
    help="The answers' name of each target column, in --target-column order (repeatable).",
)
SUBMISSION_HEADER = typer.Option(
    None, "--submission-header",
    help="The submission's exact header, comma-separated, unscored columns included "
    "[default: the ids and targets].",
)
FORMAT = typer.Option("csv", "--format", help="Submission format: csv, json or txt.")
LABEL = typer.Option([], "--label", help="A valid class label (repeatable).")
LABELS_FROM = typer.Option(
    None, "--labels-from", help="FILE:COLUMN whose distinct values are the valid labels."
)
LABEL_EQUIVALENCE = typer.Option(
    [], "--label-equivalence",
    help="case, boolean or number: other spellings of the declared labels that grade as them "
    "(repeatable; needs --label or --labels-from).",
)
EMPTY_TOKEN = typer.Option(None, "--empty-token", help='Token of an empty mask/set, e.g. "-".')
UNSCORED_MARKER = typer.Option(
    None, "--unscored-marker", help="Answers rows with this value in a target are not scored."
)
NORMALIZE_TRUTHS = typer.Option(
    None, "--normalize-truths", help="row_sum: divide each answers row by its sum."
)
SCORED_WHERE = typer.Option(
    None, "--scored-where",
    help="COLUMN=V1,V2: score only the rows whose answers COLUMN holds one of the values "
    "(COLUMN may list spellings as a|b).",
)
SCORED_LAST = typer.Option(
    None, "--scored-last", help="GROUP:ORDER:K: score the last K rows of each group by ORDER."
)
EXTRA_IDS = typer.Option(
    None, "--extra-ids", help="ignore: ids beyond the answers' are allowed and not scored."
)
IDS_FROM = typer.Option(None, "--ids-from", help="FILE:COLUMN: the public list of test ids.")
VALUE_POLICY = typer.Option(
    [], "--value-policy", help="Value policy k=v, e.g. strip_spaces=true (repeatable)."
)
GRADING = typer.Option(
    None, "--grading",
    help="Any GradingSpec fields as a JSON object, inline or in a file (flags win).",
)


def parse_pairs(items: list[str], flag: str) -> dict[str, Any]:
    """``k=v`` pairs; values are read as JSON when they parse (numbers, booleans), else text."""
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise typer.BadParameter(f"{flag} {item!r}: expected key=value")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = parse_json(v, f"{flag} {k.strip()}")
        except MalformedInputError:  # not JSON (or beyond the loader's bounds): text
            out[k.strip()] = v
    return out


@dataclass
class AdhocOptions:
    """The ad hoc flags of ``tambench grade``."""

    answers: Path
    metric: str
    metric_param: list[str] = field(default_factory=list)
    id_column: list[str] = field(default_factory=list)
    target_column: list[str] = field(default_factory=list)
    not_target: list[str] = field(default_factory=list)
    answers_target_column: list[str] = field(default_factory=list)
    submission_header: str | None = None
    fmt: str = "csv"
    label: list[str] = field(default_factory=list)
    labels_from: str | None = None
    label_equivalence: list[str] = field(default_factory=list)
    empty_token: str | None = None
    unscored_marker: str | None = None
    normalize_truths: str | None = None
    scored_where: str | None = None
    scored_last: str | None = None
    extra_ids: str | None = None
    ids_from: str | None = None
    value_policy: list[str] = field(default_factory=list)
    grading: str | None = None


def adhoc_grading(opts: AdhocOptions) -> tuple[dict[str, Any], Path | None]:
    """GradingSpec fields from the flags, and the folder public files are read from."""
    fields = _grading_json(opts.grading)
    fields.update(metric=opts.metric, answers_file=opts.answers.name,
                  submission_format=opts.fmt)
    params = {**fields.get("metric_params", {}), **parse_pairs(opts.metric_param,
                                                               "--metric-param")}
    fields["metric_params"] = params
    simple = {
        "id_columns": list(opts.id_column), "answers_target_columns": opts.answers_target_column,
        "labels": opts.label, "label_equivalence": opts.label_equivalence,
        "empty_token": opts.empty_token,
        "unscored_marker": opts.unscored_marker, "normalize_truths": opts.normalize_truths,
        "extra_ids": opts.extra_ids,
        "value_policy": parse_pairs(opts.value_policy, "--value-policy") or None,
        "submission_header": _names(opts.submission_header),
        "scored_rows": _scored_rows(opts.scored_where, opts.scored_last),
    }
    # Flags not given are None or empty lists; an empty string is a value ("" marks rows).
    fields.update({k: v for k, v in simple.items() if v is not None and v != [] and v != {}})
    public_dir, sources = _public_sources(
        {"labels_from": opts.labels_from, "ids_from": opts.ids_from})
    fields.update(sources)
    if opts.fmt == "csv" and not fields.get("id_columns"):
        raise typer.BadParameter("--id-column is required for csv submissions")
    fields["target_columns"] = list(opts.target_column) or fields.get("target_columns") or (
        _default_targets(opts, fields) if opts.fmt == "csv" else [])
    if opts.fmt == "csv" and not fields["target_columns"]:
        raise ConfigError(f"cannot tell the target columns of {opts.answers}; give --target-column")
    return fields, public_dir


def _grading_json(value: str | None) -> dict[str, Any]:
    if value is None:
        return {}
    if value.lstrip().startswith(("{", "[")):
        data = parse_json(value, "--grading", error=typer.BadParameter)
    else:
        try:
            data = load_json(Path(value), error=typer.BadParameter,
                             source=f"--grading {value!r}")
        except OSError as exc:
            raise typer.BadParameter(f"--grading {value!r}: not JSON and not a readable file "
                                     f"({exc.strerror})") from None
    if not isinstance(data, dict):
        raise typer.BadParameter("--grading: expected a JSON object of GradingSpec fields")
    return data


def _names(text: str | None) -> list[str]:
    if not text:
        return []
    return next(csv.reader([text]))


def _scored_rows(where: str | None, last: str | None) -> dict[str, Any] | None:
    if where and last:
        raise typer.BadParameter("give --scored-where or --scored-last, not both")
    if where:
        column, sep, values = where.partition("=")
        if not sep or not column or not values:
            raise typer.BadParameter(f"--scored-where {where!r}: expected COLUMN=V1,V2")
        names = column.split("|")
        return {"rule": "where", "column": names if len(names) > 1 else column,
                "scored": values.split(",")}
    if last:
        parts = last.split(":")
        if len(parts) != 3 or not parts[2].isdigit():
            raise typer.BadParameter(f"--scored-last {last!r}: expected GROUP:ORDER:K")
        return {"rule": "last_per_group", "group_column": parts[0], "order_column": parts[1],
                "k": int(parts[2])}
    return None


def _public_sources(given: dict[str, str | None]) -> tuple[Path | None, dict[str, Any]]:
    """``FILE:COLUMN`` flags as public columns relative to their common folder."""
    parsed: dict[str, tuple[Path, str]] = {}
    for name, value in given.items():
        if value is None:
            continue
        path, sep, column = value.rpartition(":")
        if not sep or not path or not column:
            raise typer.BadParameter(f"--{name.replace('_', '-')} {value!r}: expected FILE:COLUMN")
        parsed[name] = (Path(path).resolve(), column)
    if not parsed:
        return None, {}
    root = Path(os.path.commonpath([str(p.parent) for p, _ in parsed.values()]))
    return root, {name: {"file": p.relative_to(root).as_posix(), "column": c}
                  for name, (p, c) in parsed.items()}


def _default_targets(opts: AdhocOptions, fields: dict[str, Any]) -> list[str]:
    """Every answers column but the ids, the --not-target ones and the columns metric
    parameters or the scored-row rule name (read from the answers' header line only)."""
    with open(opts.answers, encoding="utf-8-sig", newline="") as fh:
        header = next(csv.reader(fh), [])
    from tambench.core.metrics import get_metric

    skip = {*fields.get("id_columns", []), *opts.not_target}
    skip |= set(get_metric(opts.metric).answers_columns(fields["metric_params"]))
    rule = fields.get("scored_rows") or {}
    for key in ("column", "group_column", "order_column"):
        value = rule.get(key)
        skip |= set(value) if isinstance(value, list) else {value} if value else set()
    return [c for c in header if c not in skip]
