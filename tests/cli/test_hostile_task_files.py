"""Hostile task files and JSONL lines: a task.json nested very deep, holding an integer past
Python's 4,300-digit limit, or in UTF-16 without a byte-order mark, is one named problem in
every command that reads it; a command over many items checks every item and goes on with the
good ones (exit 3), and "internal error" stays for tambench's own bugs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import main
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import make_env, put

#: name -> bytes of a hostile task.json (each is valid JSON or UTF-16 text of it).
HOSTILE: dict[str, bytes] = {
    "deep": ("[" * 100_000 + "]" * 100_000).encode(),
    "bigint": ('{"id": "test/bigint", "platform": "test", "n_teams": ' + "9" * 5000
               + "}").encode(),
    "utf16": json.dumps({"id": "test/utf16", "platform": "test"}).encode("utf-16-le"),
}
SAYS = {"deep": "is nested too deeply", "bigint": "holds an integer of more than 64 digits",
        "utf16": "looks like UTF-16 text without a byte-order mark"}


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err + out, err
    return rc, out, err


@pytest.fixture
def catalogue(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The three good test tasks plus one folder per hostile task file."""
    cat, data, runs = make_env(tmp_path)
    for name, content in HOSTILE.items():
        (cat / "test" / name).mkdir()
        (cat / "test" / name / "task.json").write_bytes(content)
    return cat, data, runs


def test_schema_validate_checks_every_file_and_exits_3(
    catalogue: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str],
) -> None:
    cat, _, _ = catalogue
    files = [str(cat / "test" / n / "task.json") for n in ("deep", "value", "bigint", "utf16")]
    rc, out, _ = _cli(["schema", "validate", *files], capsys)
    assert rc == 3
    lines = out.splitlines()
    assert len(lines) >= 4
    for name in HOSTILE:
        assert any(f"test/{name}/task.json" in ln and SAYS[name] in ln for ln in lines), name
    assert any(ln.startswith("error: ") and "test/value/task.json" in ln or
               ln.startswith("ok  test/value") for ln in lines)  # the good file was checked


def test_schema_validate_of_one_good_file_still_succeeds(
    catalogue: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    spec = json.loads((catalogue[0] / "test" / "value" / "task.json").read_text())
    spec["status"] = "incomplete"
    (tmp_path / "ok.json").write_text(json.dumps(spec))
    rc, out, _ = _cli(["schema", "validate", str(tmp_path / "ok.json")], capsys)
    assert rc == 0 and out.startswith("ok  test/value")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_grade_with_a_hostile_task_file_is_one_error_naming_it(
    name: str, catalogue: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    cat, data, _ = catalogue
    (tmp_path / "sub.csv").write_text(perfect_text(TASKS["value"]))
    rc, out, err = _cli(["grade", str(tmp_path / "sub.csv"), "--task", str(cat / "test" / name),
                         "--data-dir", str(data), "--json"], capsys)
    assert rc == 1
    error = json.loads(out)["error"]
    assert error["kind"] == "error" and error["type"] == "TaskSpecError"
    assert f"test/{name}/task.json" in error["message"] and SAYS[name] in error["message"]


def test_tasks_validate_and_list_keep_the_good_tasks_and_name_the_bad(
    catalogue: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str],
) -> None:
    cat, _, _ = catalogue
    rc, out, _ = _cli(["tasks", "validate", "--catalogue", str(cat), "--json"], capsys)
    assert rc == 3
    problems = json.loads(out)["problems"]
    for name in HOSTILE:
        assert any(p["where"] == f"test/{name}" and SAYS[name] in p["message"]
                   for p in problems), name
    assert json.loads(out)["entries"] == 6

    rc, out, err = _cli(["tasks", "list", "--catalogue", str(cat), "--json"], capsys)
    assert rc == 3
    assert sorted(r["id"] for r in json.loads(out)) == ["test/label", "test/txt", "test/value"]
    for name in HOSTILE:
        assert f"error: test/{name}: " in err and SAYS[name] in err, name


def test_grade_runs_grades_the_good_tasks_and_names_the_bad(
    catalogue: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    cat, data, runs = catalogue
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    for name in HOSTILE:
        put(runs, "a", name, "r1", perfect_text(TASKS["value"]))
    rc, out, _ = _cli(["grade-runs", str(runs), "--catalogue", str(cat), "--data-dir", str(data),
                       "--executor", "serial", "--json"], capsys)
    assert rc == 3
    rows = {r["task"]: r for r in json.loads(out)["rows"]}
    assert rows["value"]["status"] == "graded_valid" and rows["value"]["rank"] == 1
    for name in HOSTILE:
        assert rows[name]["status"] == "error", name
        assert f"test/{name}/task.json" in rows[name]["error"] and SAYS[name] in rows[name]["error"]


def test_a_hostile_config_file_is_one_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TAMBENCH_CONFIG", raising=False)
    for text, says in [("max_workers = " + "9" * 5000, "integer of more than 64 digits"),
                       ("executor = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
                       ("tambench = 5", "must be a table of settings")]:
        (tmp_path / "tambench.toml").write_text(text)
        rc, _, err = _cli(["tasks", "list", "--catalogue", str(tmp_path)], capsys)
        assert rc == 1 and err.startswith("error: config file tambench.toml") and says in err


@pytest.mark.parametrize(("line", "says"), [
    ('{"competition_id": "value", "submission_path": "s.csv", "x": ' + "[" * 50_000
     + "]" * 50_000 + "}", "is nested too deeply"),
    ('{"competition_id": "value", "submission_path": "s.csv", "x": ' + "9" * 5000 + "}",
     "holds an integer of more than 64 digits"),
    ('{"competition_id": "value", "submission_path": "s.csv", "x": 1e999}', "not finite"),
])
def test_a_hostile_jsonl_line_is_its_own_row_and_the_batch_goes_on(
    line: str, says: str, catalogue: tuple[Path, Path, Path],
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    cat, data, _ = catalogue
    monkeypatch.chdir(tmp_path)
    good = json.dumps({"competition_id": "value", "submission_path": "s.csv"})
    jsonl = tmp_path / "group" / "submissions.jsonl"
    jsonl.parent.mkdir()
    (jsonl.parent / "s.csv").write_text(perfect_text(TASKS["value"]))  # beside the JSONL
    jsonl.write_text(f"{good}\n{line}\n{good}\n")
    rc, out, _ = _cli(["grade-runs", str(jsonl), "--catalogue", str(cat), "--data-dir",
                       str(data), "--executor", "serial", "--json"], capsys)
    assert rc == 3
    rows = {r["run"]: r for r in json.loads(out)["rows"]}
    assert [rows[f"line{i}"]["status"] for i in (1, 2, 3)] == [
        "graded_valid", "unreadable", "graded_valid"]
    assert rows["line2"]["error"].startswith("submissions.jsonl line 2 ")
    assert says in rows["line2"]["error"]
