"""``tambench judge``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tambench.cli.main import main
from tambench.testing.fake_openai import FakeOpenAIServer

CODE = "import pandas as pd\ndf = pd.read_csv('train.csv')\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def yes(body: dict[str, Any]) -> str:
    nonce = re.search(r"with this exact value ([0-9a-f]{32})",
                      body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    return json.dumps({"nonce": nonce, "answer": "yes", "reason": "reads train.csv",
                       "cited_lines": [2]})


@pytest.fixture
def solution(tmp_path: Path) -> Path:
    f = tmp_path / "best_solution.py"
    f.write_text(CODE)
    return f


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("TAMBENCH_LLM_MODEL", "OPENAI_BASE_URL", "TAMBENCH_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)


def test_judge_a_paper_schema_against_the_fake_endpoint(
    capsys: pytest.CaptureFixture[str], tam_lite_dir: Path, solution: Path
) -> None:
    with FakeOpenAIServer(default=yes) as srv:
        rc, out, _ = run(capsys, "judge", "--task", str(tam_lite_dir / "statoil-iceberg-"
                         "classifier-challenge" / "schema.json"), "--solution", str(solution),
                         "--model", "m", "--base-url", srv.base_url, "--json")
    data = json.loads(out)
    assert rc == 0 and data["task"] == "local/statoil-iceberg-classifier-challenge"
    assert (data["passed"], data["total"], data["pass_rate"]) == (4, 4, 1.0)
    assert len(srv.requests) == 4


def test_judge_without_a_model_reports_not_judged(
    capsys: pytest.CaptureFixture[str], tam_lite_dir: Path, solution: Path
) -> None:
    rc, out, err = run(capsys, "judge", "--task", str(tam_lite_dir / "pst"), "--solution",
                       str(solution))
    assert rc == 0 and "no model configured" in err
    assert "0/7 constraints passed (pass rate n/a); not applicable 2" in out
    assert out.count("[not_judged]") == 7
    assert out.count("[not applicable: permission]") == 2
    assert "normalized to the range [0, 1]." in out  # brackets are text, not markup


def test_judge_endpoint_failure_exits_3(capsys: pytest.CaptureFixture[str], tam_lite_dir: Path,
                                        solution: Path) -> None:
    with FakeOpenAIServer(replies=[]) as srv:
        rc, out, _ = run(capsys, "judge", "--task", str(tam_lite_dir / "pst"), "--solution",
                         str(solution), "--model", "m", "--base-url", srv.base_url,
                         "--no-cache", "--retries", "0")
    assert rc == 3 and "errors 7" in out
    assert len(srv.requests) == 7  # the two permissions were never sent to the model


def test_judge_all_constraints_sends_every_one_as_the_paper_does(
    capsys: pytest.CaptureFixture[str], tam_lite_dir: Path, solution: Path
) -> None:
    with FakeOpenAIServer(default=yes) as srv:
        rc, out, _ = run(capsys, "judge", "--task", str(tam_lite_dir / "pst"), "--solution",
                         str(solution), "--model", "m", "--base-url", srv.base_url,
                         "--no-cache", "--all-constraints", "--json")
    data = json.loads(out)
    assert rc == 0 and (data["total"], data["stated"], data["not_applicable"]) == (9, 9, [])
    assert len(srv.requests) == 9


def test_judge_json_lists_not_applicable_constraints_with_their_reason(
    capsys: pytest.CaptureFixture[str], tam_lite_dir: Path, solution: Path
) -> None:
    with FakeOpenAIServer(default=yes) as srv:
        rc, out, _ = run(capsys, "judge", "--task", str(tam_lite_dir / "image-matching-challenge-"
                         "2024-hexathlon"), "--solution", str(solution), "--model", "m",
                         "--base-url", srv.base_url, "--no-cache", "--json")
    data = json.loads(out)
    assert rc == 0 and data["result_version"] == 2
    na = {d["number"]: d["category"] for d in data["not_applicable"]}
    assert na == {1: "platform", 2: "platform", 3: "permission", 5: "statement",
                  6: "statement", 7: "evaluation", 11: "permission"}
    assert all(d["reason"] for d in data["not_applicable"])
    assert (data["total"], data["stated"]) == (5, 12) and len(srv.requests) == 5
    assert [c["number"] for c in data["constraints"]] == [4, 8, 9, 10, 12]


def test_judge_missing_solution_is_a_clear_error(capsys: pytest.CaptureFixture[str],
                                                 tam_lite_dir: Path, tmp_path: Path) -> None:
    rc, _, err = run(capsys, "judge", "--task", str(tam_lite_dir / "pst"), "--solution",
                     str(tmp_path / "nope.py"))
    assert rc == 1 and "solution file not found" in err


def test_judge_unknown_catalogue_task_is_a_clear_error(capsys: pytest.CaptureFixture[str],
                                                       solution: Path) -> None:
    rc, _, err = run(capsys, "judge", "--task", "kaggle/no-such-task-xyz", "--solution",
                     str(solution))
    assert rc == 1 and "no-such-task-xyz" in err
