"""What an agent sees in the bubblewrap sandbox: MLE-bench's paths, its task's public files,
a validation endpoint, no network, nothing else of the host."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.runs.agents import folder_agent
from tambench.runs.job import RunJob, execute_run
from tambench.runs.limits import Limits
from tests.runs.env import (
    host_listener,
    info,
    leftovers,
    needs_bwrap,
    prepared,
    run_command,
    snapshot,
)

CANARY = "canary-4f1d2c9b7e"


def _plant(tmp_path: Path) -> tuple[Path, Path]:
    cat, data = prepared(tmp_path)
    (data / "test" / "value" / "private" / "canary.txt").write_text(CANARY)
    (data / "test" / "label" / "public" / "other.txt").write_text(CANARY)
    (cat / "test" / "value" / "notes.txt").write_text(CANARY)
    return cat, data


def test_the_agent_sees_its_task_at_mle_benchs_paths_and_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cat, data = _plant(tmp_path)
    monkeypatch.setenv("TAMBENCH_TEST_SECRET", CANARY)  # the runner's environment stays out
    probe = (
        "id -u; ls /home; ls /home/data; head -1 /home/instructions.txt; env; "
        "cp /home/data/sample_submission.csv /home/submission/submission.csv; "
        "echo print > /home/code/solution.py; echo note > /home/logs/agent-notes.txt; "
        "bash /home/validate_submission.sh /home/submission/submission.csv; "
        f"grep -rs {CANARY} /home /etc /run /opt /tmp | head -3; "
        "find / -path /proc -prune -o \\( -name 'canary*' -o -name 'private' \\) -print; "
        f"ls {data} {cat} {tmp_path} 2>&1 | head -3; echo ls-done"
    )
    before = snapshot(cat, data)
    job, record = run_command(tmp_path, probe)
    log = (job.folder / "agent.log").read_text()
    assert record["exit_reason"] == "finished", log
    lines = log.splitlines()
    assert lines[0] == "1000"  # not root
    assert lines[1:8] == ["code", "data", "instructions.txt", "logs", "submission",
                          "validate_submission.sh", "workspace"]
    assert lines[8:10] == ["sample_submission.csv", "train.csv"]
    assert lines[10] == "Task: test/value"
    assert '"Submission is valid."' in log
    assert CANARY not in log  # not in private/, another task's data or the catalogue
    assert log.count("No such file or directory") == 3, log
    assert (job.folder / "submission.csv").read_text().startswith("id,y")
    assert (job.folder / "code" / "solution.py").is_file()
    assert (job.folder / "logs" / "agent-notes.txt").is_file()
    assert not (job.folder / "workspace").exists()  # the scratch space is removed
    assert json.loads((job.folder / "validations.json").read_text())["valid"] == 1
    assert snapshot(cat, data) == before


def test_the_task_writes_its_instructions_when_prepare_gave_some(tmp_path: Path) -> None:
    _, data = prepared(tmp_path)
    (data / "test" / "value" / "public" / "instructions.txt").write_text("Do the thing.\n")
    job, record = run_command(tmp_path, "cat /home/instructions.txt")
    assert (job.folder / "agent.log").read_text() == "Do the thing.\n"


def test_no_network_and_no_host_loopback(tmp_path: Path) -> None:
    with host_listener() as (port, accepted):
        code = ("import socket\n"
                f"for host, port in (('127.0.0.1', {port}), ('1.1.1.1', 80), "
                "('example.com', 80)):\n"
                "    try:\n"
                "        socket.create_connection((host, port), timeout=3); "
                "print('reached', host)\n"
                "    except OSError as exc:\n"
                "        print('refused', host, type(exc).__name__)\n")
        job, record = run_command(tmp_path, f"python3 -c \"{code}\"")
    log = (job.folder / "agent.log").read_text()
    assert "reached" not in log and log.count("refused") == 3, log
    assert accepted == []
    assert record["exit_reason"] == "finished"


def _mle_bench_style_agent(root: Path) -> Path:
    """An agent folder with MLE-bench's dummy agent's shape and checks (written here)."""
    folder = root / "checker"
    folder.mkdir()
    (folder / "config.yaml").write_text("checker:\n  start: checker/start.sh\n"
                                        "  env_vars:\n    CHECKER_MODE: strict\n")
    (folder / "main.py").write_text(
        "import os, shutil, sys\nfrom pathlib import Path\n"
        "print('uid', os.getuid(), 'mode', os.environ['CHECKER_MODE'])\n"
        "print('python', sys.executable)\n"
        "home = Path(__file__).resolve().parent.parent\n"
        "shutil.copy(home / 'data' / 'sample_submission.csv',"
        " home / 'submission' / 'submission.csv')\n")
    (folder / "start.sh").write_text(
        "#!/bin/bash\nset -x\n"
        'eval "$(conda shell.bash hook)"\nconda activate agent\n'
        "python ${AGENT_DIR}/main.py\n"
        "ls /private\n"
        "ls /home/data\n"
        "touch $CODE_DIR/code.py\ntouch $LOGS_DIR/run.log\ntouch $AGENT_DIR/agent_was_here.txt\n"
        "cat /home/instructions.txt\n"
        "bash /home/validate_submission.sh /home/submission/submission.csv\n")
    return folder


def test_an_mle_bench_agent_folder_runs_unchanged_and_its_checks_pass(tmp_path: Path) -> None:
    needs_bwrap()
    cat, data = prepared(tmp_path)
    agent = folder_agent(_mle_bench_style_agent(tmp_path))
    assert agent.name == "checker" and agent.env == {"CHECKER_MODE": "strict"}
    job = RunJob(agent=agent, task=info(cat, data), seed=0, out=str(tmp_path / "runs"),
                 limits=Limits(time=60), catalogue=str(cat), data_dir=str(data))
    record = execute_run(job)
    log = (job.folder / "agent.log").read_text()
    assert record["exit_reason"] == "finished", log
    assert "uid 1000 mode strict" in log
    assert "ls: cannot access '/private': No such file or directory" in log
    assert "sample_submission.csv" in log and "Task: test/value" in log
    assert '"Submission is valid."' in log
    for made in ("code/code.py", "logs/run.log", "agent/agent_was_here.txt", "submission.csv"):
        assert (job.folder / made).is_file(), made
    assert not (tmp_path / "checker" / "agent_was_here.txt").exists()  # the copy, not the source


def test_a_daemon_left_by_a_finished_agent_is_ended_with_the_run(tmp_path: Path) -> None:
    marker = "tambench-daemon-3c7e"
    job, record = run_command(tmp_path, f"setsid sh -c 'sleep 300; : {marker}' & echo started")
    assert record["exit_reason"] == "finished"
    assert leftovers(marker) == []


@pytest.mark.parametrize("name", ["docker", "podman"])
def test_container_sandboxes_say_when_no_daemon_answers(name: str) -> None:
    import shutil

    from tambench.errors import ConfigError
    from tambench.runs.sandbox import get_sandbox

    sandbox = get_sandbox(name)
    if shutil.which(name) is not None:
        try:
            sandbox.check()
        except ConfigError:
            pass
        else:
            pytest.skip(f"a {name} daemon answers here; its runs are tested where it does")
    with pytest.raises(ConfigError, match=name):
        sandbox.check()


def test_a_compressed_submission_is_collected_and_graded(tmp_path: Path) -> None:
    from tambench.grading.batch import grade_runs

    job, record = run_command(
        tmp_path, "gzip -c /home/data/sample_submission.csv > /home/submission/submission.csv.gz")
    assert record["exit_reason"] == "finished"
    assert (job.folder / "submission.csv.gz").is_file()
    (row,) = grade_runs(tmp_path / "runs", catalogue=tmp_path / "catalogue",
                        data_dir=tmp_path / "data").rows
    assert row.submission_exists and row.valid_submission


def test_the_container_command_has_mle_benchs_conventions_and_the_limits(tmp_path: Path) -> None:
    from tambench.runs.job import prepare_folder
    from tambench.runs.sandbox import INIT, agent_env, get_sandbox

    cat, data = prepared(tmp_path)
    job = RunJob(agent=folder_agent(_mle_bench_style_agent(tmp_path)), task=info(cat, data),
                 seed=0, out=str(tmp_path / "runs"), sandbox="docker",
                 limits=Limits(time=60, memory=2**30, cpus=2, processes=100, gpus=1))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    mounts = prepare_folder(job, scratch)
    sandbox = get_sandbox("docker")
    env = agent_env(mounts, sandbox.paths(mounts), {"SECRET_FREE": "1"})
    argv = sandbox.wrap(mounts, ["bash", "/home/agent/start.sh"], env, "/home/agent", "tb-1",
                        job.limits)
    text = " ".join(argv)
    assert argv[:3] == ["docker", "run", "--rm"] and "--network none" in text
    assert "--user 1000:1000" in text and "--memory 1073741824" in text
    assert "--cpus 2" in text and "--pids-limit 100" in text
    assert f"{data}/test/value/public:/home/data:ro" in text
    assert f"-v {job.folder}/submission:/home/submission" in text
    assert "private" not in text
    assert argv[argv.index("python:3.11-slim") + 1:][:2] == ["python3", INIT]
    assert argv[-2:] == ["bash", "/home/agent/start.sh"]
