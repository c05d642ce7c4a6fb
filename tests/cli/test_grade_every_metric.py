"""`tambench grade --json` ad hoc over every registered metric and every submission format:
each run ends in a report (a score, or an invalid submission with its problems) or in one JSON
error object of a user's kind, never in an internal error or a traceback on stderr.

The metric ids are read from the registry when the tests are collected, so a metric registered
later is covered without touching this file.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.core.metrics import list_metrics

#: A plausible cell per input kind (a CSV cell, and a line of a line file).
CELLS = {
    "value": ("0.5", "0.25"), "probability": ("0.5", "1"), "label": ("cat", "dog"),
    "text": ("the cat", "a dog"), "set": ("1 2", "2 3"), "ranking": ("a b c", "b a c"),
    "mask": ("1 3", "2 2"), "structured": ("x 1", "y 2"),
}
FORMATS = ("csv", "json", "txt")


def _files(tmp: Path, kind: str, fmt: str) -> tuple[Path, Path]:
    sub_cell, ans_cell = CELLS[kind]
    if fmt == "csv":
        sub = f"id,y\n1,{sub_cell}\n2,{ans_cell}\n3,{sub_cell}\n"
        ans = f"id,y\n1,{ans_cell}\n2,{ans_cell}\n3,{sub_cell}\n"
    elif fmt == "json":
        sub = json.dumps({"a": [sub_cell], "b": [ans_cell]})
        ans = json.dumps({"a": [ans_cell], "b": [ans_cell]})
    else:
        sub, ans = f"{sub_cell}\n{ans_cell}\n", f"{ans_cell}\n{ans_cell}\n"
    (tmp / f"s.{fmt}").write_text(sub)
    (tmp / f"a.{fmt}").write_text(ans)
    return tmp / f"s.{fmt}", tmp / f"a.{fmt}"


CASES = [(m.id, m.kind, fmt) for m in list_metrics() for fmt in FORMATS]


@pytest.mark.parametrize(("metric", "kind", "fmt"), CASES,
                         ids=[f"{m}-{f}" for m, _, f in CASES])
def test_every_metric_and_format_gives_a_report_or_a_json_error(
    metric: str, kind: str, fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    sub, ans = _files(tmp_path, kind, fmt)
    argv = ["grade", str(sub), "--answers", str(ans), "--metric", metric, "--format", fmt,
            "--json"]
    if fmt == "csv":
        argv += ["--id-column", "id"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    assert "Traceback" not in err.getvalue(), err.getvalue()
    document = json.loads(out.getvalue())  # exactly one JSON document
    if "error" in document:
        error = document["error"]
        assert error["kind"] in {"error", "usage"}, error
        assert rc == error["exit_code"] != 0
        return
    assert rc == 0
    assert document["metric"] == metric
    if document["valid_submission"]:
        assert isinstance(document["score"], float)
    else:
        assert document["score"] is None and document["errors"]


def test_the_regression_case_gives_a_score_or_a_user_error(tmp_path: Path) -> None:
    """weighted_author_auc over JSON files ended in ``adhoc_spec() missing 'id_columns'``."""
    sub, ans = tmp_path / "s.json", tmp_path / "a.json"
    sub.write_text('{"a": [0.5]}')
    ans.write_text('{"a": [1]}')
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["grade", str(sub), "--answers", str(ans), "--metric", "weighted_author_auc",
              "--format", "json", "--json"])
    assert "Traceback" not in err.getvalue()
    document = json.loads(out.getvalue())
    assert "adhoc_spec" not in out.getvalue()
    assert document.get("metric") == "weighted_author_auc" or \
        document["error"]["kind"] == "error"


def test_column_metrics_refuse_json_submissions_naming_the_kind(tmp_path: Path) -> None:
    sub, ans = _files(tmp_path, "mask", "json")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["grade", str(sub), "--answers", str(ans), "--metric", "dice", "--format",
                   "json", "--json"])
    error = json.loads(out.getvalue())["error"]
    assert rc == 1 and error["type"] == "TaskSpecError"
    assert "json needs a metric of kind structured" in error["message"]
    assert "`dice` takes mask" in error["message"]


def test_the_case_table_covers_every_kind() -> None:
    assert {m.kind for m in list_metrics()} <= set(CELLS)
