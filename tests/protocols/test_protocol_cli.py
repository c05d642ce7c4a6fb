"""``tambench protocol mlagentbench | mlalgo | kagglebench``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_mlagentbench_harness_modes_from_a_stdout_file(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    so = tmp_path / "stdout.txt"
    so.write_text("MSE: 12.5\n")
    rc, out, _ = run(capsys, "protocol", "mlagentbench", "--metric", "mse", "--baseline", "10",
                     "--stdout", str(so), "--mode", "compatible", "--json")
    assert rc == 0 and json.loads(out) == {
        "rule": "harness", "resolved": True, "stdout": "MSE: 12.5\n", "mode": "compatible",
        "notes": ["no score in output; resolved only in compatible mode"]}
    rc, out, _ = run(capsys, "protocol", "mlagentbench", "--metric", "mse", "--baseline", "10",
                     "--stdout", str(so), "--json")
    assert rc == 0 and json.loads(out)["resolved"] is False
    assert json.loads(out)["error"] == "no score in output"


def test_mlagentbench_failed_script_quotes_stderr(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    so, se = tmp_path / "o.txt", tmp_path / "e.txt"
    so.write_text("accuracy: 0.99")
    se.write_text("Traceback: boom")
    rc, out, _ = run(capsys, "protocol", "mlagentbench", "--metric", "accuracy", "--baseline",
                     "0.5", "--stdout", str(so), "--stderr", str(se), "--exit-code", "1",
                     "--json")
    assert rc == 0
    assert json.loads(out)["error"] == "Evaluation script failed: Traceback: boom"


def test_mlagentbench_original_rule_with_known_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "protocol", "mlagentbench", "--task", "ogbn-arxiv", "--score",
                     "0.3448", "--json")
    data = json.loads(out)
    assert rc == 0 and data["rule"] == "improvement" and data["success"] is True
    assert data["baseline"] == 0.3134


def test_mlagentbench_needs_exactly_one_score_source(capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(capsys, "protocol", "mlagentbench", "--metric", "accuracy")
    assert rc == 2 and "exactly one of --stdout FILE and --score S" in err


def test_mlalgo_csv_aggregates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "results.csv"
    f.write_text("task,passed,score,reference_score,min,max,lower_is_better,time_agent,time_ref\n"
                 "a,true,0.55,0.91,0.1,1.0,false,2,1\n"
                 "b,false,,,,,,,\n")
    rc, out, _ = run(capsys, "protocol", "mlalgo", str(f), "--json")
    data = json.loads(out)
    assert rc == 0 and data["pass_rate"] == 0.5
    assert data["dScore"] == pytest.approx(0.5 / 0.9) and data["EScore"] == pytest.approx(
        0.5 / 0.9 * 0.5)
    assert data["dTime"] == pytest.approx(0.693147, abs=1e-6)
    rc, out, _ = run(capsys, "protocol", "mlalgo", str(f))
    assert rc == 0 and "pass rate 0.500000" in out


def test_mlalgo_bad_csv_is_a_runtime_error_with_the_reason(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    f = tmp_path / "r.csv"
    f.write_text("name,ok\nx,1\n")
    rc, _, err = run(capsys, "protocol", "mlalgo", str(f))
    assert rc == 1 and "missing ['task', 'passed']" in err


def test_kagglebench_human_row(capsys: pytest.CaptureFixture[str], shared_dir: Path) -> None:
    tasks = shared_dir / "data" / "kaggle-bench"
    rc, out, _ = run(capsys, "protocol", "kagglebench", "--tasks", str(tasks), "--human",
                     "--json")
    human = json.loads(out)["agents"]["human"]
    assert rc == 0 and human["n_scenarios"] == 20
    assert (human["mean_task_completion"], human["mean_add_f1"]) == (0.885878, 0.771756)
    rc, out, _ = run(capsys, "protocol", "kagglebench", "--tasks", str(tasks), "--human")
    assert rc == 0 and "mean task completion 0.885878" in out


def test_kagglebench_rejects_an_unknown_scope(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    rc, _, err = run(capsys, "protocol", "kagglebench", "--tasks", str(tmp_path), "--human",
                     "--scope", "core")
    assert rc == 2 and "--scope must be one of" in err
