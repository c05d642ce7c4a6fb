"""A process executor whose workers cannot start is refused with one clear error: a script
without a main guard (each worker imports it again and dies) never gets a batch of errored
runs that looks graded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tambench.executors.pools import CANNOT_START
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import make_env, put

REPO = Path(__file__).resolve().parents[1]


def _script(tmp_path: Path, guarded: bool) -> Path:
    cat, data, runs = make_env(tmp_path)
    for i in range(4):
        put(runs, "a", "value", f"r{i}", perfect_text(TASKS["value"]))
    body = (
        "import tambench\n"
        "from tambench.executors import get_executor\n"
        "def main():\n"
        f"    batch = tambench.grade_runs({str(runs)!r}, catalogue={str(cat)!r},\n"
        f"                                data_dir={str(data)!r},\n"
        "                                executor=get_executor('local', 2))\n"
        "    print('STATUSES', sorted({r.status.value for r in batch.rows}))\n"
    )
    body += "if __name__ == '__main__':\n    main()\n" if guarded else "main()\n"
    script = tmp_path / ("guarded.py" if guarded else "unguarded.py")
    script.write_text(body)
    return script


def _run(script: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=script.parent)


def test_a_script_without_a_main_guard_gets_one_clear_error(tmp_path: Path) -> None:
    done = _run(_script(tmp_path, guarded=False))
    assert done.returncode == 1
    assert "STATUSES" not in done.stdout  # no report: nothing returned as if graded
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"tambench.errors.ExecutorError: {CANNOT_START}"
    assert done.stderr.count(CANNOT_START) == 1  # said once, not once per run


def test_the_same_script_with_the_guard_grades_on_the_pool(tmp_path: Path) -> None:
    done = _run(_script(tmp_path, guarded=True))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "STATUSES ['graded_valid']"
