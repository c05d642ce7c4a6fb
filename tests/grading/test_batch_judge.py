"""Constraint judging joins batch grading: pass rates per run and per agent, never fail-open."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tambench.grading.batch import JudgeConfig, grade_runs
from tambench.schema.io import load_taskspec, save_taskspec
from tambench.testing.fake_openai import FakeOpenAIServer
from tests.grading.corpus import TASKS, perfect_text
from tests.grading.test_batch import FIXED, make_env, put

INSTRUCTIONS = "1. Use a StandardScaler on the features. 2. Do not use external data."
COMPLIANT = "from sklearn.preprocessing import StandardScaler\nX = StandardScaler().fit_transform(x)\n"


def _nonce(body: dict[str, Any]) -> str:
    m = re.search(r"with this exact value ([0-9a-f]{32})", body["messages"][0]["content"])
    assert m
    return m.group(1)


def _verdicts(body: dict[str, Any]) -> str:
    """A scripted honest judge: yes for the scaler constraint (citing line 2), no otherwise."""
    user = body["messages"][-1]["content"]
    scaler = "StandardScaler on the features" in user
    return json.dumps({"nonce": _nonce(body), "answer": "yes" if scaler else "no",
                       "reason": "line 2 scales" if scaler else "no evidence",
                       "cited_lines": [2] if scaler else []})


def _with_instructions(cat: Path) -> None:
    f = cat / "test" / "value" / "task.json"
    spec = load_taskspec(f)
    save_taskspec(spec.model_copy(update={"special_instructions": INSTRUCTIONS}), f)


def test_judged_runs_carry_pass_rates_and_agents_aggregate_them(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    _with_instructions(cat)
    for run in ("r1", "r2"):
        folder = put(runs, "agent", "value", run, perfect_text(TASKS["value"]))
        (folder / "best_solution.py").write_text(COMPLIANT)
    put(runs, "agent", "label", "r1", perfect_text(TASKS["label"]))  # no solution file
    with FakeOpenAIServer(default=_verdicts) as srv:
        judge = JudgeConfig(model="fake-model", base_url=srv.base_url,
                            cache_dir=str(tmp_path / "cache"))
        report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED, judge=judge)
        calls = len(srv.requests)
    rows = {(r.task, r.run): r for r in report.rows}
    judged = rows[("value", "r1")]
    assert (judged.constraints_passed, judged.constraints_total) == (1, 2)
    assert judged.constraint_pass_rate == 0.5
    assert rows[("label", "r1")].constraints_total is None  # nothing to judge: not judged
    agent = report.agents[0]
    assert (agent.constraints_passed, agent.constraints_total) == (2, 4)
    assert calls == 2  # the second run has the same code: verdicts come from the cache


def test_without_a_model_constraints_are_not_judged_never_passed(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    _with_instructions(cat)
    folder = put(runs, "agent", "value", "r1", perfect_text(TASKS["value"]))
    (folder / "best_solution.py").write_text(COMPLIANT)
    report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED)
    row = report.rows[0]
    assert row.constraints_passed is None and row.constraint_pass_rate is None
    assert report.agents[0].constraint_pass_rate is None


def test_an_unreadable_solution_is_not_judged_and_says_why(tmp_path: Path) -> None:
    cat, data, runs = make_env(tmp_path)
    _with_instructions(cat)
    folder = put(runs, "agent", "value", "r1", perfect_text(TASKS["value"]))
    (folder / "best_solution.py").write_bytes(b"\xff\xfe not utf-8")
    with FakeOpenAIServer(default=_verdicts) as srv:
        judge = JudgeConfig(model="fake-model", base_url=srv.base_url, cache_dir=None)
        report = grade_runs(runs, catalogue=cat, data_dir=data, now=FIXED, judge=judge)
        assert srv.requests == []
    row = report.rows[0]
    assert row.constraints_total is None and "not UTF-8" in (row.judge_note or "")
    assert row.status == "graded_valid"


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
