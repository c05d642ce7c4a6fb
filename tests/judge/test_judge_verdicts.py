"""The judge's verdict rules, cache, not-judged and error paths, against a fake endpoint."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tambench import judge as judge_mod
from tambench.errors import ConfigError, JudgeError
from tambench.judge import (
    Constraint,
    build_messages,
    code_line_numbers,
    judge_solution,
    read_paper_reply,
    read_strict_reply,
)
from tambench.schema.taskspec import TaskSpec
from tambench.testing.fake_openai import FakeOpenAIServer

CODE = '''\
"""Train a model."""
import pandas as pd
from sklearn.preprocessing import StandardScaler

# scale the features
X = StandardScaler().fit_transform(pd.read_csv("train.csv"))
'''
NONCE = "0123456789abcdef0123456789abcdef"


def nonce_of(body: dict[str, Any]) -> str:
    system = body["messages"][0]["content"]
    m = re.search(r"with this exact value ([0-9a-f]{32})", system)
    assert m, "the system prompt names the nonce"
    return m.group(1)


def reply(answer: str, lines: list[int], reason: str = "ok") -> Any:
    def make(body: dict[str, Any]) -> str:
        return json.dumps({"nonce": nonce_of(body), "answer": answer, "reason": reason,
                           "cited_lines": lines})
    return make


# --- reading replies -----------------------------------------------------------------------


def strict(obj: Any) -> judge_mod.ReadVerdict:
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return read_strict_reply(text, nonce=NONCE, code=CODE)


def verdict(answer: str, lines: list[int], reason: str = "StandardScaler is applied.",
            **extra: Any) -> dict[str, Any]:
    return {"nonce": NONCE, "answer": answer, "reason": reason, "cited_lines": lines, **extra}


def test_yes_citing_an_existing_code_line_passes() -> None:
    r = strict(verdict("yes", [6]))
    assert r.status == "pass" and r.cited_lines == [6] and r.problems == []


def test_no_without_citations_is_a_plain_fail() -> None:
    assert strict(verdict("no", [], "No evidence of scaling.")).status == "fail"


def test_plain_answer_yes_text_is_unparseable_in_strict_mode() -> None:
    r = strict("Answer: Yes\nReason: the code complies.")
    assert r.status == "unparseable" and r.answer is None
    assert "expected exactly one JSON object" in r.problems[0]


def test_yes_citing_no_lines_needs_review() -> None:
    r = strict(verdict("yes", []))
    assert r.status == "needs_review" and "none cited" in r.problems[0]


def test_cited_line_that_does_not_exist_needs_review() -> None:
    r = strict(verdict("yes", [6, 99]))
    assert r.status == "needs_review"
    assert "cited line(s) [99] do not exist (the code has 6 lines)" in r.problems[0]


def test_yes_citing_only_comments_and_docstrings_needs_review() -> None:
    r = strict(verdict("yes", [1, 5]))
    assert r.status == "needs_review" and "only comments, strings or blank lines" in r.problems[0]


@pytest.mark.parametrize("reason", [
    "The code violates the constraint by not scaling.",
    "It does not comply: no scaler is used.",
    "The solution is non-compliant.",
    "The code fails to satisfy the requirement.",
])
def test_yes_with_a_reason_saying_it_violates_is_contradictory(reason: str) -> None:
    r = strict(verdict("yes", [6], reason))
    assert r.status == "needs_review" and "contradictory" in r.problems[-1]


def test_yes_saying_it_does_not_violate_is_fine() -> None:
    assert strict(verdict("yes", [6], "The code does not violate the constraint.")).status \
        == "pass"


@pytest.mark.parametrize("bad", [
    {"nonce": NONCE, "answer": "Yes", "reason": "ok", "cited_lines": [6]},
    {"nonce": NONCE, "answer": "yes", "reason": "ok", "cited_lines": ["6"]},
    {"nonce": NONCE, "answer": "yes", "reason": "ok", "cited_lines": [True]},
    {"nonce": NONCE, "answer": "yes", "reason": "ok"},
    {"nonce": NONCE, "answer": "yes", "reason": "ok", "cited_lines": [6], "score": 1},
    [{"nonce": NONCE, "answer": "yes", "reason": "ok", "cited_lines": [6]}],
])
def test_verdict_with_wrong_fields_or_types_is_unparseable(bad: Any) -> None:
    assert strict(bad).status == "unparseable"


def test_verdict_without_this_requests_nonce_is_unparseable() -> None:
    r = strict({**verdict("yes", [6]), "nonce": "f" * 32})
    assert r.status == "unparseable" and "nonce" in r.problems[0]


def test_json_followed_by_chatter_is_unparseable_but_a_lone_fenced_object_is_read() -> None:
    body = json.dumps(verdict("yes", [6]))
    assert strict(body + "\nAnswer: Yes").status == "unparseable"
    assert strict(f"```json\n{body}\n```").status == "pass"


def test_missing_content_is_unparseable() -> None:
    assert read_strict_reply(None, nonce=NONCE, code=CODE).status == "unparseable"


def test_paper_mode_reads_exactly_two_lines() -> None:
    assert read_paper_reply("Answer: Yes\nReason: it scales.").status == "pass"
    assert read_paper_reply("Answer: No\nReason: no scaler.").status == "fail"
    assert read_paper_reply("Answer: Yes").status == "unparseable"
    assert read_paper_reply("Sure!\nAnswer: Yes\nReason: ok").status == "unparseable"
    assert read_paper_reply("Answer: Yes\nReason: it violates the rule.").status == "needs_review"


def test_code_lines_exclude_comments_docstrings_and_blanks() -> None:
    assert code_line_numbers(CODE) == {2, 3, 6}
    # Statements that only bind or print literal text are data too.
    assert code_line_numbers("x = f(1)\ny = '''a\nb'''\nprint('uses X')\nprint(x)\n") == {1, 5}
    # Not Python: a line rule.
    assert code_line_numbers("int main() {\n  // comment\n  return 0;\n}\n(") == {1, 3, 4, 5}


# --- end to end against the fake server ----------------------------------------------------


def test_task_spec_constraints_are_judged_and_counted() -> None:
    spec = TaskSpec(id="kaggle/x", platform="kaggle",
                    special_instructions="1. Scale features. 2. Use only train.csv. 3. Use a GPU.")
    with FakeOpenAIServer(replies=[reply("yes", [6]), reply("yes", [6]),
                                   reply("no", [], "No GPU use is visible.")]) as srv:
        r = judge_solution(spec, CODE, model="judge-model", base_url=srv.base_url)
    assert [v.status for v in r.verdicts] == ["pass", "pass", "fail"]
    assert (r.passed, r.total) == (2, 3) and r.pass_rate == pytest.approx(2 / 3)
    assert [req["model"] for req in srv.requests] == ["judge-model"] * 3
    assert all(req["temperature"] == 0 for req in srv.requests)
    assert srv.requests[0]["response_format"]["type"] == "json_schema"
    assert "Constraint 2: Use only train.csv." in srv.prompts()[3]


def test_no_model_means_not_judged_never_passed() -> None:
    with FakeOpenAIServer(default=reply("yes", [6])) as srv:
        r = judge_solution("1. A. 2. B.", CODE, model=None, base_url=srv.base_url)
        assert srv.requests == []
    assert [v.status for v in r.verdicts] == ["not_judged", "not_judged"]
    assert r.passed == 0 and r.total == 2 and r.pass_rate is None and r.judged is False
    assert judge_solution("1. A.", CODE, model="").pass_rate is None


def test_no_constraints_gives_no_pass_rate() -> None:
    r = judge_solution("", CODE, model="m", base_url="http://127.0.0.1:9/v1")
    assert r.total == 0 and r.pass_rate is None


def test_endpoint_failure_is_an_error_verdict_not_a_pass() -> None:
    with FakeOpenAIServer(replies=[]) as srv:  # answers 500
        r = judge_solution("1. A.", CODE, model="m", base_url=srv.base_url, max_retries=0)
    assert r.verdicts[0].status == "error" and r.passed == 0 and r.pass_rate == 0.0
    assert "the model endpoint failed" in r.verdicts[0].problems[0]


def test_remote_endpoint_without_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        judge_solution("1. A.", CODE, model="m", base_url=None)


def test_key_comes_from_the_environment_and_never_reaches_the_cache_or_result(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    canary = "sk-canary-7f3e9b"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    with FakeOpenAIServer(default=reply("yes", [6])) as srv:
        r = judge_solution("1. A.", CODE, model="m", base_url=srv.base_url, cache_dir=tmp_path)
    assert srv.requests[0]["_headers"]["authorization"] == f"Bearer {canary}"
    assert canary not in json.dumps(r.as_dict())
    files = list(tmp_path.rglob("*"))
    assert files and all(canary not in f.read_text() for f in files if f.is_file())


def test_verdicts_are_cached_by_model_constraint_and_code(tmp_path: Path) -> None:
    with FakeOpenAIServer(default=reply("yes", [6])) as srv:
        first = judge_solution("1. A. 2. B.", CODE, model="m", base_url=srv.base_url,
                               cache_dir=tmp_path)
        assert len(srv.requests) == 2 and not any(v.cached for v in first.verdicts)
        again = judge_solution("1. A. 2. B.", CODE, model="m", base_url=srv.base_url,
                               cache_dir=tmp_path)
        assert len(srv.requests) == 2 and all(v.cached for v in again.verdicts)
        assert [v.status for v in again.verdicts] == ["pass", "pass"]
        judge_solution("1. A.", CODE, model="other", base_url=srv.base_url, cache_dir=tmp_path)
        assert len(srv.requests) == 3
        judge_solution("1. A.", CODE + "\n", model="m", base_url=srv.base_url,
                       cache_dir=tmp_path)
        assert len(srv.requests) == 4
    entries = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(entries) == 4 and all(p.suffix == ".json" for p in entries)  # no temp files left
    stored = json.loads(entries[0].read_text())
    assert set(stored) >= {"model", "constraint", "code_sha256", "status", "prompt_version"}


def test_unparseable_verdicts_are_not_cached(tmp_path: Path) -> None:
    with FakeOpenAIServer(default="Answer: Yes") as srv:
        judge_solution("1. A.", CODE, model="m", base_url=srv.base_url, cache_dir=tmp_path)
        r = judge_solution("1. A.", CODE, model="m", base_url=srv.base_url, cache_dir=tmp_path)
        assert len(srv.requests) == 2
    assert r.verdicts[0].status == "unparseable" and not r.verdicts[0].cached
    assert r.passed == 0 and r.pass_rate == 0.0 and r.count("unparseable") == 1


def test_corrupt_cache_entry_is_reported(tmp_path: Path) -> None:
    with FakeOpenAIServer(default=reply("yes", [6])) as srv:
        judge_solution("1. A.", CODE, model="m", base_url=srv.base_url, cache_dir=tmp_path)
        entry = next(p for p in tmp_path.rglob("*.json"))
        entry.write_text("{not json")
        with pytest.raises(JudgeError, match="corrupt; delete it to re-judge"):
            judge_solution("1. A.", CODE, model="m", base_url=srv.base_url, cache_dir=tmp_path)


def test_paper_mode_end_to_end_sends_no_response_format() -> None:
    with FakeOpenAIServer(replies=["Answer: Yes\nReason: scaled.", "Answer: No\nReason: none."]) \
            as srv:
        r = judge_solution("1. A. 2. B.", CODE, model="m", base_url=srv.base_url, mode="paper")
    assert [v.status for v in r.verdicts] == ["pass", "fail"]
    assert "response_format" not in srv.requests[0]
    assert "Answer: Yes|No" in srv.prompts()[0]


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown judge mode"):
        judge_solution("1. A.", CODE, model="m", mode="lenient")  # type: ignore[arg-type]


def test_preamble_is_given_to_the_model_as_context() -> None:
    msgs = build_messages(Constraint(1, "A."), CODE, NONCE, preamble="Rules of the contest:")
    assert msgs[1]["content"].startswith("Task instructions (context): Rules of the contest:")
