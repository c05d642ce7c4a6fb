"""One submission's path through ``grade_submission`` visits each module once, or nearly.

The path is followed for real, in a fresh interpreter: every function of the grading and
validation rooms (the file-reading layer included) is listed in the order it is first called,
and consecutive functions of one module are one stop. A stop in a module the path had already
left is a return; at most :data:`MAX_RETURNS` are allowed (a room reaching back into a module
it left is how a file-reading layer beside validation, instead of under it, showed). Functions
of the shared core (metrics, leaderboards, rank) are below every room and not counted;
comprehensions and lambdas are part of the function that holds them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import tambench

MAX_RETURNS = 8
PACKAGE = Path(tambench.__file__).resolve().parent
ROOMS = ("grading", "validation")


def first_calls(run: Callable[[], Any]) -> list[tuple[str, str]]:
    """(module file relative to the package, function) of each function of the rooms, in the
    order each is first called while ``run`` runs."""
    roots = tuple(str(PACKAGE / room) + "/" for room in ROOMS)
    seen: set[tuple[str, int]] = set()
    order: list[tuple[str, str]] = []

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        code = frame.f_code
        if event != "call" or code.co_name.startswith("<") or not code.co_filename.startswith(
                roots):
            return
        key = (code.co_filename, code.co_firstlineno)
        if key not in seen:
            seen.add(key)
            order.append((str(Path(code.co_filename).relative_to(PACKAGE)), code.co_name))

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return order


def stops(calls: list[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """Consecutive calls in one module merged: (module, functions) per stop."""
    out: list[tuple[str, list[str]]] = []
    for module, function in calls:
        if out and out[-1][0] == module:
            out[-1][1].append(function)
        else:
            out.append((module, [function]))
    return out


def returns(path: list[tuple[str, list[str]]]) -> list[str]:
    """The stops in a module the path had already left."""
    left: set[str] = set()
    back = []
    for i, (module, functions) in enumerate(path):
        if module in left:
            back.append(f"{module} ({', '.join(functions)})")
        if i:
            left.add(path[i - 1][0])
    return back


def test_the_counter_sees_a_return_and_only_a_return() -> None:
    calls = [("a.py", "f"), ("a.py", "g"), ("b.py", "h"), ("c.py", "i"), ("a.py", "j")]
    assert stops(calls)[0] == ("a.py", ["f", "g"])
    assert returns(stops(calls)) == ["a.py (j)"]
    assert returns(stops(calls[:4])) == []


#: Traces one grading in a fresh interpreter: the order of first calls is then the path's own
#: (no function already called by an earlier test, no hook another test left in the process).
_CHILD = """
import json, sys, tempfile
from pathlib import Path
from tambench.grading.grade import grade_submission
from tests.grading.corpus import build_perfect
from tests.grading.test_grade import write_leaderboard
from tests.grading.test_grade_path import first_calls
with tempfile.TemporaryDirectory() as folder:
    tmp = Path(folder)
    spec, answers, sub = build_perfect(sys.argv[1], tmp)
    board = write_leaderboard(tmp / "lb.csv", [0.5 + 0.01 * i for i in range(20)])
    reports = []
    calls = first_calls(lambda: reports.append(grade_submission(sub, spec, answers, board)))
print(json.dumps({"valid": reports[0].valid_submission, "errors": reports[0].errors,
                  "calls": calls}))
"""


@pytest.mark.parametrize("kind", ["value", "prob", "multi", "label", "json", "txt"])
def test_one_submission_comes_back_to_a_module_at_most_eight_times(kind: str) -> None:
    root = PACKAGE.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-c", _CHILD, kind], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["valid"], out["errors"]
    path = stops([(m, f) for m, f in out["calls"]])
    modules = [m for m, _ in path]
    assert modules[0] == "grading/grade.py" and "validation/loading.py" in modules
    assert modules[-1] == "grading/report.py"
    back = returns(path)
    assert len(back) <= MAX_RETURNS, f"{len(back)} returns in {len(path)} stops: {back}"
