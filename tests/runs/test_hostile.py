"""Hostile agents: each is contained, recorded with its exit reason, and changes nothing of
the host."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tambench.grading.batch import grade_runs
from tambench.runs.limits import Limits
from tests.runs.env import answers_text, leftovers, prepared, run_command, snapshot


def _host(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    cat, data = prepared(tmp_path)
    return cat, data, snapshot(cat, data)


def test_reading_private_answers_by_relative_and_absolute_paths_finds_nothing(
        tmp_path: Path) -> None:
    cat, data, before = _host(tmp_path)
    private = data / "test" / "value" / "private"
    job, record = run_command(tmp_path, (
        "cat ../private/answers.csv /home/data/../private/answers.csv "
        f"{private}/answers.csv {data}/test/label/public/sample_submission.csv "
        f"{cat}/test/value/task.json; ls -a /home/data/.. /; exit 3"))
    log = (job.folder / "agent.log").read_text()
    assert record["exit_reason"] == "crashed" and record["exit_code"] == 3
    assert log.count("No such file or directory") == 5, log
    assert "0002,2.0" not in log and "café" not in log
    assert snapshot(cat, data) == before


def test_a_submission_linked_to_the_answers_is_refused_and_graded_missing(tmp_path: Path) -> None:
    cat, data, before = _host(tmp_path)
    answers = data / "test" / "value" / "private" / "answers.csv"
    job, record = run_command(tmp_path, f"ln -s {answers} /home/submission/submission.csv")
    assert record["exit_reason"] == "finished"
    assert "symbolic link" in record["submission_problem"]
    assert not (job.folder / "submission.csv").exists()
    report = grade_runs(tmp_path / "runs", catalogue=cat, data_dir=data)
    (row,) = report.rows
    assert row.status == "missing_submission" and row.score is None
    assert answers.read_text() == answers_text()
    assert snapshot(cat, data) == before


def test_a_fork_bomb_is_held_by_the_process_limit_and_ended(
        tmp_path: Path) -> None:
    cat, data, before = _host(tmp_path)
    marker = "tambench-bomb-91ab"
    job, record = run_command(
        tmp_path, f"bomb() {{ bomb | bomb & }}; bomb; sleep 30 # {marker}",
        limits=Limits(time=4, processes=64))
    if "processes" in record["enforcement"]["cgroup"]:
        assert record["process_limit_reached"] is True
        # the agent's shell could not fork its last command (process_limit), or waited
        assert record["exit_reason"] in ("process_limit", "time_limit"), record
    else:
        assert record["exit_reason"] in ("crashed", "time_limit"), record
    assert record["wall_seconds"] < 20
    assert leftovers(marker) == []
    assert snapshot(cat, data) == before


def test_a_daemon_and_a_sleep_past_the_limit_end_at_the_limit(tmp_path: Path) -> None:
    marker = "tambench-sleeper-55d0"
    job, record = run_command(
        tmp_path, f"setsid nohup sh -c 'sleep 600; : {marker}' >/dev/null 2>&1 & "
                  f"sh -c 'sleep 600; : {marker}'", limits=Limits(time=2))
    assert record["exit_reason"] == "time_limit"
    assert 2 <= record["wall_seconds"] < 10
    assert leftovers(marker) == []


def test_writing_ten_gigabytes_stops_at_the_disk_limit(tmp_path: Path) -> None:
    cat, data, before = _host(tmp_path)
    job, record = run_command(
        tmp_path, "dd if=/dev/zero of=/home/workspace/big bs=1M count=10240 2>&1; sleep 30",
        limits=Limits(time=60, disk=20 * 2**20))
    assert record["exit_reason"] == "disk_limit", record
    assert record["wall_seconds"] < 30
    assert record["disk_bytes"] < 40 * 2**20
    assert not (job.folder / "workspace").exists()
    many, record = run_command(
        tmp_path, "for i in $(seq 1000); do head -c 1048576 /dev/zero > /tmp/f$i; done",
        limits=Limits(time=60, disk=20 * 2**20))
    assert record["exit_reason"] == "disk_limit", record
    assert snapshot(cat, data) == before


def test_printing_without_end_stops_at_the_log_limit(tmp_path: Path) -> None:
    job, record = run_command(tmp_path, "yes tambench", limits=Limits(time=60, log=2**20))
    assert record["exit_reason"] == "log_limit"
    size = (job.folder / "agent.log").stat().st_size
    assert 2**20 <= size < 2**20 + 200
    assert record["log_bytes"] > 2**20


def test_writing_outside_its_folders_changes_nothing(tmp_path: Path) -> None:
    cat, data, before = _host(tmp_path)
    targets = ["/home/data/x", "/home/data/sample_submission.csv", "/home/instructions.txt",
               "/usr/x", "/etc/passwd", "/x", "/opt/tambench/inside.py", "/run/tambench/x",
               f"{data}/x", f"{tmp_path}/x"]
    script = "; ".join(f"echo pwned > {t} 2>/dev/null && echo WROTE {t}" for t in targets)
    job, record = run_command(tmp_path, script + "; true")
    log = (job.folder / "agent.log").read_text()
    assert "WROTE" not in log, log
    assert record["exit_reason"] == "finished"
    assert not (tmp_path / "x").exists() and not (data / "x").exists()
    assert "pwned" not in Path("/etc/passwd").read_text()
    assert snapshot(cat, data) == before


def test_memory_past_the_limit_is_out_of_memory_where_a_cgroup_holds_it(tmp_path: Path) -> None:
    job, record = run_command(
        tmp_path, "python3 -c \"b = bytearray(400 * 2**20); b[::4096] = b'x' * len(b[::4096])\"",
        limits=Limits(time=60, memory=100 * 2**20))
    if "memory" in record["enforcement"]["cgroup"]:
        assert record["exit_reason"] == "out_of_memory", record
    else:  # the address-space cap: Python's MemoryError, a crash
        assert record["exit_reason"] == "crashed"
        assert "MemoryError" in (job.folder / "agent.log").read_text()


def test_a_record_is_final_only_when_the_run_ended(tmp_path: Path) -> None:
    job, record = run_command(tmp_path, "true")
    doc = json.loads((job.folder / "run.json").read_text())
    assert doc["state"] == "done" and doc["exit_reason"] == "finished"
    start = time.strptime(doc["started_at"][:19], "%Y-%m-%dT%H:%M:%S")
    assert time.mktime(start) <= time.time()
    assert doc["runner_pid"] == os.getpid()


def test_a_busy_agent_gets_the_cpu_share_of_its_limit_where_a_cgroup_holds_it(
        tmp_path: Path) -> None:
    busy = ("python3 -c \"import os, time\nt = time.time()\nwhile time.time() - t < 3: pass\n"
            "print(os.times().user + os.times().system)\"")
    job, record = run_command(tmp_path, busy, limits=Limits(time=60, cpus=0.1))
    if "cpus" not in record["enforcement"]["cgroup"]:
        return  # no cgroup here: the CPU limit is not enforced, and the record says so
    used = float((job.folder / "agent.log").read_text().split()[-1])
    assert used < 0.6, used  # 0.1 CPU for 3 s is 0.3 s; unlimited it would be about 3 s
