"""The Python API: the command line's checks and reports from code, for files and tables."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

import tambench
from tambench.cli.main import main
from tambench.errors import ConfigError, InputError, TaskNotFoundError
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import make_env, put

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def test_import_tambench_loads_no_grading_code_and_no_dataframe_library() -> None:
    code = ("import sys, tambench; "
            "print(sorted(m for m in sys.modules if m.startswith(('tambench.', 'pandas', "
            "'polars', 'pyarrow', 'numpy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_every_documented_name_is_importable_from_the_package() -> None:
    from tambench import (  # noqa: F401
        BatchReport,
        GradeReport,
        TaskSpec,
        get_metric,
        grade,
        grade_runs,
        list_metrics,
        load_task,
    )

    assert set(tambench.__all__) - {"__version__"} == set(tambench.API_NAMES)
    for name in tambench.API_NAMES:
        assert getattr(tambench, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        tambench.nope  # noqa: B018


def _tables(kind: str, rows: list[tuple[str, float]]) -> object:
    ids, ys = [r[0] for r in rows], [r[1] for r in rows]
    if kind == "pandas":
        import pandas as pd

        return pd.DataFrame({"id": ids, "y": ys})
    if kind == "polars":
        import polars as pl

        return pl.DataFrame({"id": ids, "y": ys})
    import pyarrow as pa

    return pa.table({"id": ids, "y": ys})


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
def test_in_memory_tables_get_the_same_report_as_the_files(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat, data, _ = make_env(tmp_path)
    rows = [(r[0], float(r[1]) + 0.25) for r in TASKS["value"].perfect_rows]
    sub_file = tmp_path / "sub.csv"
    sub_file.write_text("id,y\n" + "".join(f"{i},{y}\n" for i, y in rows))
    from_table = tambench.grade(_tables(kind, rows), "test/value", catalogue=cat, data_dir=data,
                                now=NOW)
    from_file = tambench.grade(sub_file, "test/value", catalogue=cat, data_dir=data, now=NOW)
    assert from_table.model_dump(exclude={"submission_path"}) == from_file.model_dump(
        exclude={"submission_path"})
    assert from_table.valid_submission and from_table.score == pytest.approx(0.25)
    rc = main(["grade", str(sub_file), "--task", "test/value", "--catalogue", str(cat),
               "--data-dir", str(data), "--json"])
    cli = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert {k: cli[k] for k in ("score", "rank", "rank_pct", "gold_medal", "errors")} == {
        k: getattr(from_file, k) for k in ("score", "rank", "rank_pct", "gold_medal", "errors")}


def test_an_invalid_table_is_refused_with_the_validator_s_messages(tmp_path: Path) -> None:
    import pandas as pd

    answers = pd.DataFrame({"id": ["a", "b", "c"], "y": [1.0, 2.0, 3.0]})
    dup = pd.DataFrame({"id": ["a", "a", "c"], "y": [1.0, 2.0, 3.0]})
    report = tambench.grade(dup, answers=answers, metric="rmse", id_columns=["id"], now=NOW)
    assert not report.valid_submission and report.submission_exists
    assert any("duplicated ids" in e and "['a']" in e for e in report.errors), report.errors
    assert any("missing ids" in e and "['b']" in e for e in report.errors), report.errors


def test_api_mistakes_are_named_errors(tmp_path: Path) -> None:
    cat, data, _ = make_env(tmp_path)
    with pytest.raises(InputError, match="submission file not found"):
        tambench.grade(tmp_path / "nope.csv", "test/value", catalogue=cat, data_dir=data)
    with pytest.raises(InputError, match="is a folder"):
        tambench.grade(tmp_path, "test/value", catalogue=cat, data_dir=data)
    (tmp_path / "x.csv").write_text("id,y\n")
    with pytest.raises(TaskNotFoundError, match="did you mean .*test/value"):
        tambench.grade(tmp_path / "x.csv", "test/valeu", catalogue=cat, data_dir=data)
    with pytest.raises(ConfigError, match="either task"):
        tambench.grade(tmp_path / "x.csv")
    with pytest.raises(InputError, match="cannot grade a dict"):
        tambench.grade({"id": [1]}, answers=tmp_path / "a.csv", metric="rmse", id_columns=["id"])


def test_grade_runs_and_load_task_from_the_package(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    report = tambench.grade_runs(runs, catalogue=cat, data_dir=data, now=NOW)
    assert isinstance(report, tambench.BatchReport) and report.rows[0].status == "graded_valid"
    assert tambench.load_task("test/value", cat).id == "test/value"
    assert "rmse" in {m.id for m in tambench.list_metrics()}
    paths = tambench.write_batch_outputs(report, tmp_path / "out")
    again = tambench.load_batch_report(paths["json"])
    assert again == report


def test_batch_reports_convert_to_pandas_and_polars_with_the_medal(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    put(runs, "a", "value", "r2", None)
    put(runs, "b", "label", "r1", perfect_text(TASKS["label"]))
    report = tambench.grade_runs(runs, catalogue=cat, data_dir=data, now=NOW)
    assert report.rows[0].model_dump()["medal"] == "gold"
    assert json.loads(report.rows[1].model_dump_json())["medal"] is None
    frame = report.to_pandas()
    assert list(frame["run"]) == ["r1", "r2", "r1"] and list(frame.columns)[:3] == [
        "competition_id", "task_id", "metric"]
    assert frame["medal"].isna().tolist() == [False, True, False]
    assert frame["medal"][0] == "gold" and frame["score"][0] == 0.0
    assert list(frame["status"]) == ["graded_valid", "missing_submission", "graded_valid"]
    polars_frame = report.to_polars()
    assert polars_frame.columns == list(frame.columns)
    assert polars_frame["medal"].to_list() == ["gold", None, "gold"]
    assert polars_frame["score"].to_list()[0] == 0.0
    # a report with medal written in reads back equal
    paths = tambench.write_batch_outputs(report, tmp_path / "out")
    assert '"medal": "gold"' in paths["json"].read_text()
    assert tambench.load_batch_report(paths["json"]) == report


@pytest.mark.parametrize("kind", ["pandas", "polars", "arrow"])
def test_a_table_is_reported_as_what_was_given_not_a_temporary_file(
    kind: str, tmp_path: Path,
) -> None:
    cat, data, _ = make_env(tmp_path)
    rows = [(r[0], float(r[1])) for r in TASKS["value"].perfect_rows]
    report = tambench.grade(_tables(kind, rows), "test/value", catalogue=cat, data_dir=data,
                            now=NOW)
    name = {"pandas": "pandas DataFrame", "polars": "polars DataFrame", "arrow": "pyarrow Table"}
    assert report.submission_path == f"<{name[kind]}, {len(rows)} rows>"


def test_grade_runs_takes_strings_for_every_path(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    report = tambench.grade_runs(str(runs), catalogue=str(cat), data_dir=str(data),
                                 leaderboard_dir=str(tmp_path / "no-boards"), now=NOW)
    assert report.rows[0].status == "graded_valid"


def test_api_mistakes_get_suggestions_and_the_documented_errors(tmp_path: Path) -> None:
    from tambench.errors import UnknownMetricError

    answers = tmp_path / "a.csv"
    answers.write_text("id,y\n1,2\n")
    with pytest.raises(UnknownMetricError, match="did you mean 'rmse'"):
        tambench.grade(answers, answers=answers, metric="RMSE", id_columns=["id"])
    cat, data, _ = make_env(tmp_path)
    with pytest.raises(InputError, match="does not exist"):  # docs/api.md: InputError
        tambench.grade_runs(tmp_path / "no-runs", catalogue=cat, data_dir=data)
