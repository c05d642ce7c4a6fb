"""MLE-bench's rule over seeds beside the bootstrap, and the warning when runs were made on
different hardware or under different limits."""

from __future__ import annotations

import json
import math
from pathlib import Path

from tambench.grading.batch import Aggregation, RunRow, RunStatus, summarise
from tambench.grading.batch.records import difference_warnings, read_run_records
from tests.grading.synthetic import NOW


def _row(task: str, run: str, valid: bool, medal: bool) -> RunRow:
    return RunRow(agent="a", task=task, run=run, task_id=f"t/{task}", competition_id=task,
                  created_at=NOW, submission_exists=valid, valid_submission=valid,
                  status=RunStatus.GRADED_VALID if valid else RunStatus.MISSING_SUBMISSION,
                  any_medal=medal, gold_medal=medal, silver_medal=False, bronze_medal=False,
                  above_median=medal)


def test_missing_seeds_count_as_failures_and_seeds_give_mean_and_se() -> None:
    rows = [_row("x", "0", True, True), _row("x", "1", True, False), _row("x", "2", True, True),
            _row("y", "0", True, True), _row("y", "1", False, False)]  # y has no seed 2
    (agent,), _ = summarise(rows, Aggregation(bootstrap_samples=0))
    rule = agent.seed_rule
    assert rule is not None
    assert (rule.n_seeds, rule.n_tasks, rule.missing_runs) == (3, 2, 1)
    # medals per seed: 2/2, 0/2, 1/2 (seed 2 of y missing: a failure)
    assert rule.any_medal is not None
    assert rule.any_medal.mean == 0.5
    assert math.isclose(rule.any_medal.se or 0, 0.5 / math.sqrt(3))
    assert rule.valid_submission.mean == (1 + 0.5 + 0.5) / 3
    # the per-run rate, by contrast, ignores the missing run
    assert agent.any_medal_rate is not None and agent.any_medal_rate.value == 3 / 5


def _record(folder: Path, cpu: str, time_limit: float) -> None:
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({
        "state": "done", "agent": folder.parts[-3], "task_folder": folder.parts[-2],
        "seed": folder.parts[-1], "hardware": {"cpu_model": cpu, "hostname_hash": folder.name},
        "limits": {"time": time_limit}}))


def test_runs_on_other_hardware_or_limits_are_flagged(tmp_path: Path) -> None:
    _record(tmp_path / "a" / "t" / "0", "EPYC", 60)
    _record(tmp_path / "a" / "t" / "1", "EPYC", 60)  # another host name: same hardware
    assert difference_warnings(read_run_records(tmp_path)) == []
    _record(tmp_path / "b" / "t" / "0", "Xeon", 60)
    _record(tmp_path / "b" / "t" / "1", "EPYC", 30)
    warnings = difference_warnings(read_run_records(tmp_path))
    assert len(warnings) == 2
    assert warnings[0].startswith("the runs differ in hardware (2 kinds: 3 run(s) like a/t/0; "
                                  "1 run(s) like b/t/0)")
    assert warnings[1].startswith("the runs differ in limits (2 kinds")
