"""Options and defaults a new user meets: the same --catalogue everywhere, the data folder's
default said plainly with a "did you mean", reasons in subsets diff, what site serve serves,
and "wrote ..." lines on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tambench.cli.main import main
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import make_env, put

REPO = Path(__file__).resolve().parents[2]
SUBSETS = REPO / "tambench" / "tasks" / "catalogue" / "_subsets"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_prepare_and_audit_take_a_catalogue_like_the_other_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cat, data, _ = make_env(tmp_path)
    rc, _, err = _run(capsys, "prepare", "value", "--catalogue", str(cat), "--raw",
                      str(tmp_path / "raw"), "--data-dir", str(data))
    # the id was found in that catalogue: the missing raw data is what stops here
    assert rc == 1 and "raw data" in err and "No such option" not in err
    rc, _, err = _run(capsys, "audit", "value", "--catalogue", str(cat), "--data-dir", str(data))
    assert rc == 1 and "No such option" not in err and "test/value" in err


def test_acquire_writes_into_the_configured_catalogue_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TAMBENCH_CATALOGUE", str(tmp_path / "cat"))
    monkeypatch.chdir(tmp_path)
    rc, _, _ = _run(capsys, "acquire", "kaggle:nothing-here", "--renderer", "http",
                    "--base-url", "kaggle=http://127.0.0.1:9/kaggle", "--json", "--retries", "0")
    assert rc == 3
    assert list((tmp_path / "cat" / ".acquire" / "reports").glob("acquire-*.json"))
    assert not (tmp_path / "catalogue").exists()


def test_acquire_never_writes_into_the_installed_catalogue_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TAMBENCH_CATALOGUE", raising=False)
    monkeypatch.setenv("TAMBENCH_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path)
    rc, _, err = _run(capsys, "acquire", "kaggle:x")
    assert rc == 2 and "give the catalogue" in err


def test_a_missing_data_folder_says_it_was_the_default_and_what_makes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    cat, _, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    monkeypatch.delenv("TAMBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("TAMBENCH_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path)
    sub = runs / "a" / "value" / "r1" / "submission.csv"
    for argv in (["grade", str(sub), "--task", "test/value", "--catalogue", str(cat)],
                 ["grade-runs", str(runs), "--catalogue", str(cat)]):
        rc, _, err = _run(capsys, *argv)
        assert rc == 1
        assert "data folder tambench-data does not exist (the default ./tambench-data" in err
        assert "`tambench prepare TASK --data-dir DIR` makes it" in err
    rc, _, err = _run(capsys, "grade", str(sub), "--task", "test/value", "--catalogue", str(cat),
                      "--data-dir", str(tmp_path / "given"))
    assert rc == 1 and "data folder" in err and "(the default" not in err


def test_a_data_folder_one_level_off_gets_a_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    sub = runs / "a" / "value" / "r1" / "submission.csv"
    for wrong in (tmp_path, data / "test"):  # one level too high, one too low
        rc, _, err = _run(capsys, "grade", str(sub), "--task", "test/value", "--catalogue",
                          str(cat), "--data-dir", str(wrong))
        assert rc == 1 and f"did you mean --data-dir {data}?" in err, err
    report = __import__("tambench").grade_runs(runs, catalogue=cat, data_dir=tmp_path)
    assert report.rows[0].status == "error"
    assert f"did you mean --data-dir {data}?" in (report.rows[0].error or "")


def test_subsets_diff_gives_reasons_from_the_configured_catalogue_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    lines = (SUBSETS / "lite.txt").read_text().splitlines()
    dropped = "kaggle/lmsys-chatbot-arena"
    n = sum(1 for x in lines if x and not x.startswith("#"))
    kept = [x.replace(f"# tasks: {n}", f"# tasks: {n - 1}") for x in lines
            if not x.startswith(dropped)]
    (tmp_path / "new.txt").write_text("\n".join(kept) + "\n")
    rc, out, _ = _run(capsys, "subsets", "diff", str(SUBSETS / "lite.txt"),
                      str(tmp_path / "new.txt"), "--json")
    reason = json.loads(out)["reasons"][dropped]
    assert rc == 0 and (reason.startswith("was in Text/medium; ") or reason.startswith("still in"))
    assert "no catalogue given" not in reason and "not selected now" not in reason


def test_site_serve_lists_the_competitions_it_serves(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "tambench.cli.main", "site", "serve",
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True)
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any("wine-cultivar" in x for x in lines):
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    text = "".join(lines)
    assert "serving 3 competitions" in text
    for slug in ("breast-cancer-diagnosis", "diabetes-progression",
                 "wine-cultivar-classification"):
        assert f"  {slug}  " in text and f"/kaggle/competitions/{slug}" in text


def test_wrote_lines_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cat, data, runs = make_env(tmp_path)
    put(runs, "a", "value", "r1", perfect_text(TASKS["value"]))
    rc, out, err = _run(capsys, "grade-runs", str(runs), "--catalogue", str(cat), "--data-dir",
                        str(data), "--out", str(tmp_path / "out"), "--executor", "serial")
    assert rc == 0 and "wrote" not in out
    assert f"wrote {tmp_path / 'out' / 'grades.json'}" in err
