"""tambench.run (the Python API) and `tambench run` (the command): runs made, graded, resumed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tambench
from tambench.cli.main import main
from tambench.errors import ConfigError
from tests.runs.env import needs_bwrap, prepared

GOOD = ("cp /home/data/sample_submission.csv /home/submission/submission.csv; "
        "echo 'print(1)' > /home/code/best_solution.py")


@pytest.mark.long  # eleven sandboxed runs and a grading: about 20 s
def test_the_api_runs_agents_grades_them_and_skips_finished_runs(tmp_path: Path) -> None:
    needs_bwrap()
    cat, data = prepared(tmp_path)
    kw = dict(out=tmp_path / "runs", catalogue=cat, data_dir=data, time_limit=60)
    result = tambench.run([GOOD, "exit 4"], ["test/value", "test/label"], seeds=2,
                          parallel=2, grade=True, **kw)
    assert result.counts() == {"crashed": 4, "finished": 4}
    assert result.skipped == 0
    rows = {(r.agent, r.task, r.run): r for r in result.report.rows}
    assert len(rows) == 8
    assert rows[("cp", "test__value", "0")].valid_submission
    assert rows[("cp", "test__value", "0")].solution_path == "cp/test__value/0/code/best_solution.py"
    assert rows[("exit", "test__label", "1")].status == "missing_submission"
    rule = {a.agent: a.seed_rule for a in result.report.agents}
    # the sample's placeholders are valid for the value task only
    assert not rows[("cp", "test__label", "0")].valid_submission
    assert rule["cp"].valid_submission.mean == 0.5 and rule["exit"].valid_submission.mean == 0
    again = tambench.run(GOOD, "test/value", seeds=3, **kw)
    assert again.skipped == 2 and len(again.records) == 3
    assert again.warnings == []


def test_api_mistakes_are_named(tmp_path: Path) -> None:
    cat, data = prepared(tmp_path)
    with pytest.raises(ConfigError, match="time limit '8 parsecs'"):
        tambench.run("true", "test/value", catalogue=cat, data_dir=data, time_limit="8 parsecs")
    with pytest.raises(ConfigError, match="unknown sandbox 'bwrap'; did you mean 'bubblewrap'"):
        tambench.run("true", "test/value", catalogue=cat, data_dir=data, sandbox="bwrap")
    with pytest.raises(ConfigError, match="memory limit"):
        tambench.run("true", "test/value", catalogue=cat, data_dir=data, memory="lots")


def test_the_command_says_what_no_sandbox_leaves_open_and_prints_records(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cat, data = prepared(tmp_path)
    code = main(["run", "test/value", "--agent", 'cp "$DATA_DIR/sample_submission.csv" '
                 '"$SUBMISSION_DIR/submission.csv"', "--name", "open", "--no-sandbox",
                 "--out", str(tmp_path / "runs"), "--catalogue", str(cat),
                 "--data-dir", str(data), "--json", "--grade"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "--no-sandbox leaves unprotected: every file this user can read" in err
    (record,) = json.loads(out)
    assert record["sandbox"] == "none" and record["exit_reason"] == "finished"
    assert (tmp_path / "runs" / "open" / "test__value" / "0" / "submission.csv").is_file()
    assert (tmp_path / "runs-grades" / "grades.json").is_file()


def test_gpu_sets_are_held_one_run_at_a_time(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from tambench.runs.agents import command_agent
    from tambench.runs.batch import gpu_slot
    from tambench.runs.job import RunJob
    from tambench.runs.limits import Limits, gpu_sets
    from tests.runs.env import info

    assert gpu_sets(["0", "1", "2"], 1) == [("0",), ("1",), ("2",)]
    with pytest.raises(ConfigError, match="asks for 2 GPU"):
        gpu_sets(["0"], 2)
    cat, data = prepared(tmp_path)
    job = RunJob(agent=command_agent("true"), task=info(cat, data),
                 seed=0, out=str(tmp_path / "runs"), limits=Limits(gpus=2),
                 gpu_devices=("0", "1", "2", "3"))
    with gpu_slot(job) as first, gpu_slot(replace(job, seed=1)) as second:
        assert {first.gpu_devices, second.gpu_devices} == {("0", "1"), ("2", "3")}
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "5,6")
    with gpu_slot(replace(job, gpu_devices=())) as ray_given:
        assert ray_given.gpu_devices == ("5", "6")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    with pytest.raises(ConfigError, match="none were given"), \
            gpu_slot(replace(job, gpu_devices=())):
        pass
