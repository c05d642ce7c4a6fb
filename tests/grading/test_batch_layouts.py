"""Runs folders as users lay them out: the one-run layouts are read, a layout that yields no run
is an error naming what was there, and JSONL paths are read from the current folder (as
mlebench grade reads them), else from the JSONL's folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import main
from tambench.errors import InputError
from tambench.grading.batch import grade_runs
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import FIXED, make_env


def test_agent_task_submission_without_a_run_folder_is_that_agents_one_run(
    tmp_path: Path,
) -> None:
    cat, data, runs = make_env(tmp_path)
    for agent in ("aide", "carelessly-named-agent"):
        (runs / agent / "value").mkdir(parents=True)
        (runs / agent / "value" / "submission.csv").write_text(perfect_text(TASKS["value"]))
    report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    assert [(r.agent, r.task, r.run, r.status.value) for r in report.rows] == [
        ("aide", "value", "run", "graded_valid"),
        ("carelessly-named-agent", "value", "run", "graded_valid"),
    ]
    assert report.rows[0].submission_path == "aide/value/submission.csv"


def test_task_submission_alone_is_one_run_of_the_agent_named_by_the_folder(
    tmp_path: Path,
) -> None:
    cat, data, _ = make_env(tmp_path)
    runs = tmp_path / "my-agent"
    for task in ("value", "label"):
        (runs / task).mkdir(parents=True)
        (runs / task / "submission.csv").write_text(perfect_text(TASKS[task]))
    report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    assert [(r.agent, r.task, r.run, r.status.value) for r in report.rows] == [
        ("my-agent", "label", "run", "graded_valid"),
        ("my-agent", "value", "run", "graded_valid"),
    ]


def test_a_submission_beside_run_folders_is_graded_too_nothing_is_lost(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    (runs / "a" / "value" / "r1").mkdir(parents=True)
    (runs / "a" / "value" / "r1" / "submission.csv").write_text(perfect_text(TASKS["value"]))
    (runs / "a" / "value" / "submission.csv").write_text(perfect_text(TASKS["value"]))
    report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    assert sorted(r.run for r in report.rows) == ["r1", "run"]


@pytest.mark.parametrize(("files", "seen"), [
    ({}, "the folder is empty"),
    ({"submission.csv": "id,y\n"}, "saw submission.csv"),
    ({"agent-a/": "", "agent-b/": ""}, "saw 2 folder(s) and no file"),
    ({"a/notes.txt": "x", "a/b/out.csv": "x"}, "saw a/notes.txt, a/b/out.csv"),
])
def test_a_layout_with_no_run_is_an_error_naming_what_was_seen(
    tmp_path: Path, files: dict[str, str], seen: str,
) -> None:
    cat, data, runs = make_env(tmp_path)
    for rel, text in files.items():
        (runs / rel).parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("/"):
            (runs / rel).mkdir()
        else:
            (runs / rel).write_text(text)
    with pytest.raises(InputError) as info:
        grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    message = str(info.value)
    assert message.startswith(f"0 runs found in {runs}; expected <agent>/<task>/<run>/"
                              "submission.csv")
    assert message.endswith(seen), message


def test_the_command_exits_1_on_a_layout_with_no_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cat, data, runs = make_env(tmp_path)
    (runs / "notes.md").write_text("nothing here")
    rc = main(["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
               "--executor", "serial", "--json"])
    out, err = capsys.readouterr()
    error = json.loads(out)["error"]
    assert rc == 1 and error["type"] == "InputError"
    assert "0 runs found" in error["message"] and "saw notes.md" in error["message"]
    assert err.count("error: ") == 1 and "Traceback" not in err


def test_a_jsonl_without_submission_lines_is_an_error(tmp_path: Path) -> None:
    cat, data, _ = make_env(tmp_path)
    jsonl = tmp_path / "submissions.jsonl"
    jsonl.write_text("# nothing yet\n\n")
    with pytest.raises(InputError, match="0 runs found: .* has no submission line"):
        grade_runs(jsonl, catalogue=cat, data_dir=data, now=FIXED)


def test_a_nul_byte_in_a_jsonl_path_is_that_lines_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """No file name holds a NUL byte: the line is an unreadable row naming it, the other lines
    are graded (it was a traceback and 0 rows)."""
    cat, data, _ = make_env(tmp_path)
    (tmp_path / "v.csv").write_text(perfect_text(TASKS["value"]))
    jsonl = tmp_path / "submissions.jsonl"
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in (
        {"competition_id": "value", "submission_path": "v.csv\u0000.txt"},
        {"competition_id": "value\u0000x", "submission_path": "v.csv"},
        {"competition_id": "value", "submission_path": "v.csv"})))
    report = grade_runs(jsonl, catalogue=cat, data_dir=data, now=FIXED)
    rows = {r.run: r for r in report.rows}
    bad_path, bad_task, fine = rows["line1"], rows["line2"], rows["line3"]
    assert bad_path.status == "unreadable" and bad_path.task == "value"
    assert bad_path.error == ("submission_path v.csv\\x00.txt holds a NUL byte; no file has "
                              "such a name")
    assert bad_task.status == "task_unknown" and "'value\\x00x' is neither" in bad_task.error
    assert fine.status == "graded_valid"
    assert main(["grade-runs", str(jsonl), "--catalogue", str(cat), "--data-dir", str(data),
                 "--json"]) == 3  # some runs could not be graded
    out, err = capsys.readouterr()
    assert "Traceback" not in err and len(json.loads(out)["rows"]) == 3


def test_jsonl_relative_paths_are_read_from_the_current_folder_then_from_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    cat, data, _ = make_env(tmp_path)
    batch = tmp_path / "batch"
    (batch / "subs").mkdir(parents=True)
    (batch / "subs" / "v.csv").write_text(perfect_text(TASKS["value"]))
    jsonl = batch / "submissions.jsonl"
    jsonl.write_text(json.dumps({"competition_id": "value", "submission_path": "subs/v.csv"})
                     + "\n" + json.dumps({"competition_id": "value",
                                          "submission_path": "subs/gone.csv"}) + "\n")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "subs").mkdir(parents=True)
    (elsewhere / "subs" / "gone.csv").write_text(perfect_text(TASKS["value"]))
    monkeypatch.chdir(elsewhere)
    report = grade_runs(jsonl, catalogue=cat, data_dir=data, now=FIXED)
    beside, here = report.rows
    # only beside the JSONL: read there, with a warning (mlebench grade would not find it)
    assert beside.status == "graded_valid" and beside.submission_path == "subs/v.csv"
    assert [w for w in report.warnings if "line 1" in w] == [
        f"submissions.jsonl line 1: subs/v.csv is not in the current folder ({elsewhere}), "
        "where mlebench grade reads it; read from the JSONL file's folder"]
    # in the current folder: read there, as mlebench grade reads it
    assert here.status == "graded_valid" and here.submission_path == "subs/gone.csv"
    assert not [w for w in report.warnings if "line 2" in w]
