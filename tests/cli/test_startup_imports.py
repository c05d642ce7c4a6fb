"""``tambench grade`` imports what grading needs and nothing more (start-up is part of every
grade a user runs). Structural, not timed: the modules a fresh process loads are listed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Never loaded by ``tambench grade``: other stages, optional integrations, heavy libraries
#: only some metrics or commands use. A prefix covers its submodules.
NOT_FOR_GRADE = (
    "rich", "rapidfuzz", "matplotlib", "playwright", "browser_use", "langchain",
    "langchain_core", "openai", "httpx", "requests", "polars", "pandas", "scipy", "sklearn",
    "ray", "kaggle", "markdownify", "bs4", "lxml", "jinja2",
    "tambench.acquisition", "tambench.difficulty", "tambench.testing", "tambench.demo",
    "tambench.api", "tambench.tasks.catalogue", "tambench.tasks.importers",
    "tambench.tasks.subsets", "tambench.splits.audit", "tambench.splits.prepare",
    "tambench.splits.strategies", "tambench.judge", "tambench.protocols",
    "tambench.grading.batch.run", "tambench.grading.batch.models", "tambench.schema.mapping",
    "tambench.cli._console", "tambench.cli.tasks_cmd", "tambench.cli.rank_cmd",
    "tambench.cli.split_cmd", "tambench.cli.acquire_cmd", "tambench.cli.leaderboard_cmd",
    "aiohttp", "tambench.runs.server", "tambench.cli.serve_cmd",
)

_RUN = """
import json, sys
from tambench.cli.main import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""


def _grade_modules(cwd: Path, args: list[str], command: str = "grade"
                   ) -> tuple[int, str, list[str]]:
    """Run ``tambench COMMAND ARGS`` in a fresh interpreter; its exit code, stdout, modules."""
    dump = cwd / "modules.json"
    proc = subprocess.run([sys.executable, "-c", _RUN, str(dump), command, *args], cwd=cwd,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(dump.read_text())
    return result["code"], proc.stdout, result["modules"]


def _unwanted(modules: list[str]) -> list[str]:
    return [m for m in modules
            if any(m == p or m.startswith(p + ".") for p in NOT_FOR_GRADE)]


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    (tmp_path / "answers.csv").write_text("id,y\n1,0.5\n2,0.7\n3,0.1\n")
    (tmp_path / "sub.csv").write_text("id,y\n1,0.5\n2,0.6\n3,0.2\n")
    return tmp_path


def test_grading_against_an_answers_file_loads_no_module_it_does_not_use(tiny: Path) -> None:
    code, out, modules = _grade_modules(tiny, ["sub.csv", "--answers", "answers.csv",
                                               "--metric", "rmse", "--id-column", "id",
                                               "--target-column", "y"])
    assert code == 0
    assert out.startswith("local/adhoc: rmse = 0.0816")
    assert "tambench.grading.grade" in modules  # the probe did see the grader load
    assert _unwanted(modules) == []


def _tiny_task(tiny: Path) -> None:
    task_dir = tiny / "catalogue" / "kaggle" / "tiny-task"
    task_dir.mkdir(parents=True)
    (task_dir / "task.json").write_text(json.dumps({
        "id": "kaggle/tiny-task", "platform": "kaggle",
        "grading": {"metric": "rmse", "id_columns": ["id"], "target_columns": ["y"]}}))
    (task_dir / "leaderboard.csv").write_text("rank,score\n1,0.01\n2,0.05\n3,0.2\n")
    private = tiny / "data" / "kaggle" / "tiny-task" / "private"
    private.mkdir(parents=True)
    (tiny / "answers.csv").rename(private / "answers.csv")
    public = private.parent / "public"
    public.mkdir()
    (public / "sample_submission.csv").write_text("id,y\n1,0\n2,0\n3,0\n")


def test_grading_a_catalogue_task_loads_no_module_it_does_not_use(tiny: Path) -> None:
    _tiny_task(tiny)
    code, out, modules = _grade_modules(tiny, ["sub.csv", "--task", "kaggle/tiny-task",
                                               "--catalogue", "catalogue", "--data-dir", "data"])
    assert code == 0
    assert out.startswith("kaggle/tiny-task: rmse = 0.0816"), out
    assert "rank 3 of 3" in out
    assert _unwanted(modules) == []


def test_the_probe_sees_a_module_that_is_loaded(tiny: Path) -> None:
    """The check above would pass vacuously if the list of loaded modules were wrong."""
    code, _, modules = _grade_modules(tiny, ["sub.csv", "--answers", "answers.csv", "--metric",
                                             "levenshtein_mean", "--id-column", "id",
                                             "--target-column", "y"])
    assert code == 0
    assert _unwanted(modules) == ["rapidfuzz"] + sorted(
        m for m in modules if m.startswith("rapidfuzz."))


def test_validating_loads_no_more_than_grading(tiny: Path) -> None:
    """``tambench validate`` stays as light as ``tambench grade``: no server, no aiohttp."""
    _tiny_task(tiny)
    args = ["sub.csv", "--task", "kaggle/tiny-task", "--catalogue", "catalogue",
            "--data-dir", "data"]
    code, out, modules = _grade_modules(tiny, args, command="validate")
    assert code == 0
    assert out.startswith("kaggle/tiny-task: submission valid"), out
    assert "tambench.grading.verdict" in modules
    assert _unwanted(modules) == []


#: Never loaded by ``grade-runs`` without ``--out``: figures and the HTML report, rich (its
#: lines are plain), the crawl limiter's asyncio, the judge, and the heavy libraries above.
NOT_FOR_GRADE_RUNS = (
    "rich", "matplotlib", "asyncio", "ssl", "pydantic_settings", "playwright", "langchain",
    "langchain_core", "openai", "httpx", "requests", "polars", "pandas", "scipy", "sklearn",
    "ray", "tambench.grading.batch.figures", "tambench.grading.batch.html",
    "tambench.judge", "tambench.executors.limiter", "tambench.acquisition",
    "tambench.cli._console",
)


@pytest.mark.parametrize("out", [[], ["--output-dir", "mle"]])
def test_grading_a_batch_loads_no_figures_rich_or_asyncio(tiny: Path, out: list[str]) -> None:
    """``grade-runs`` as MLE-bench's workflow runs it (one JSON report, or the table alone)."""
    _tiny_task(tiny)
    (tiny / "submissions.jsonl").write_text(
        json.dumps({"competition_id": "tiny-task", "submission_path": "sub.csv"}) + "\n")
    code, out_text, modules = _grade_modules(
        tiny, ["submissions.jsonl", "--catalogue", "catalogue", "--data-dir", "data", *out],
        command="grade-runs")
    assert code == 0
    assert "tambench.grading.batch.run" in modules and "numpy" in modules
    assert out_text.splitlines()[0].split()[:2] == ["agent", "runs"]
    assert [m for m in modules if any(m == p or m.startswith(p + ".")
                                      for p in NOT_FOR_GRADE_RUNS)] == []
    assert (tiny / "mle").is_dir() == bool(out)


def test_the_process_skips_the_last_collection_walk_at_exit(tmp_path: Path) -> None:
    """At exit every object is frozen (gc.freeze) before the interpreter's final collections,
    which walked every object left: 45-60 ms after a batch. Once per process."""
    code = """
import atexit, gc, sys
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
from tambench.cli.main import main, _FREEZE_AT_EXIT
main(["--version"]); main(["--version"])
print("hooks:", len(_FREEZE_AT_EXIT), "frozen during the run:", gc.get_freeze_count() > 0)
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    lines = proc.stdout.splitlines()
    assert lines[-2:] == ["hooks: 1 frozen during the run: False", "frozen at exit: True"]


def test_the_process_entry_point_collects_young_garbage_less_often(tmp_path: Path) -> None:
    """``tambench`` as a process (main() without argv) raises the young-generation threshold
    so start-up's long-lived objects are walked less often; main(argv) from Python (a test, a
    library user) leaves the caller's collector alone."""
    code = """
import gc, sys
from tambench.cli.main import YOUNG_COLLECTION_THRESHOLD, main
main(["--version"])
called = gc.get_threshold()
sys.argv = ["tambench", "--version"]
main()
print("thresholds:", called, gc.get_threshold() == (YOUNG_COLLECTION_THRESHOLD, 10, 10))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    assert proc.stdout.splitlines()[-1] == "thresholds: (700, 10, 10) True"


@pytest.mark.parametrize(("user", "expected"), [
    ({}, "called: None entry: 1"),
    ({"OMP_NUM_THREADS": "4"}, "called: None entry: None"),  # the user's choice stands
    ({"OPENBLAS_NUM_THREADS": "2"}, "called: 2 entry: 2"),
])
def test_the_process_entry_point_asks_for_one_blas_thread(tmp_path: Path, user: dict[str, str],
                                                          expected: str) -> None:
    """numpy's OpenBLAS would start a spinning thread per further core when numpy loads;
    ``tambench`` as a process asks for one thread unless the user said otherwise."""
    code = """
import os, sys
from tambench.cli.main import main
main(["--version"])
called = os.environ.get("OPENBLAS_NUM_THREADS")
sys.argv = ["tambench", "--version"]
main()
print("called:", called, "entry:", os.environ.get("OPENBLAS_NUM_THREADS"))
"""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, check=True, env={**env, **user})
    assert proc.stdout.splitlines()[-1] == expected
