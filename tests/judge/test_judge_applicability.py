"""Constraints no code can show (accounts, teams, deadlines, ...) are set aside, not judged."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tambench.judge import (
    NOT_CHECKABLE,
    classify_constraint,
    judge_solution,
    parse_constraints,
)
from tambench.testing.fake_openai import FakeOpenAIServer

#: Every constraint of the 18 real TAM-Lite schemas that no code can show, by task and number,
#: with its category (read one by one; every other constraint is checkable).
NOT_APPLICABLE_IN_LITE: dict[str, dict[int, str]] = {
    "aqa": {2: "permission"},
    "binary-prediction-of-poisonous-mushrooms": {2: "permission", 5: "permission"},
    "cornell-birdcall-identification": {},
    "denoising-dirty-documents": {},
    "eedi-mining-misconceptions-in-mathematics": {1: "platform", 2: "platform", 3: "permission",
                                                  4: "prize"},
    "image-matching-challenge-2024-hexathlon": {1: "platform", 2: "platform", 3: "permission",
                                                5: "statement", 6: "statement", 7: "evaluation",
                                                11: "permission"},
    "ind": {2: "evaluation"},
    "lmsys-chatbot-arena": {2: "permission"},
    "mlsp-2013-birds": {5: "permission"},
    "multi-modal-gesture-recognition": {5: "statement"},
    "new-york-city-taxi-fare-prediction": {4: "permission"},
    "nextproductprediction": {6: "evaluation"},
    "planttraits2024": {5: "evaluation"},
    "pst": {3: "permission", 4: "permission"},
    "stanford-covid-vaccine": {},
    "statoil-iceberg-classifier-challenge": {},
    "tensorflow-speech-recognition-challenge": {2: "statement"},
    "text-normalization-challenge-english-language": {1: "evaluation"},
}


def _lite_constraints(tam_lite_dir: Path, task: str) -> dict[int, str]:
    data = json.loads((tam_lite_dir / task / "schema.json").read_text(encoding="utf-8"))
    return {c.number: c.text for c in parse_constraints(data["special_instructions"])}


def test_the_table_covers_the_eighteen_lite_schemas(tam_lite_dir: Path) -> None:
    assert sorted(NOT_APPLICABLE_IN_LITE) == sorted(
        p.name for p in tam_lite_dir.iterdir() if (p / "schema.json").is_file())


@pytest.mark.parametrize("task", sorted(NOT_APPLICABLE_IN_LITE))
def test_real_lite_constraints_are_classified_as_read_by_hand(tam_lite_dir: Path,
                                                              task: str) -> None:
    got = {n: classify_constraint(text) for n, text in _lite_constraints(tam_lite_dir, task).items()}
    set_aside = {n: a.category for n, a in got.items() if not a.checkable}
    assert set_aside == NOT_APPLICABLE_IN_LITE[task]
    assert all(a.reason for a in got.values() if not a.checkable)
    assert all(a.category == "code" for a in got.values() if a.checkable)


def test_most_real_constraints_stay_checkable(tam_lite_dir: Path) -> None:
    total = sum(len(_lite_constraints(tam_lite_dir, t)) for t in NOT_APPLICABLE_IN_LITE)
    set_aside = sum(len(v) for v in NOT_APPLICABLE_IN_LITE.values())
    assert (total, set_aside) == (119, 25)


@pytest.mark.parametrize(("text", "category"), [
    ("One account per participant", "account"),
    ("You cannot sign up to Kaggle from multiple accounts and therefore you cannot submit from "
     "multiple accounts.", "account"),
    ("No private sharing outside teams", "team"),
    ("Privately sharing code or data outside of teams is not permitted.", "team"),
    ("Team Limits: The maximum team size is 5.", "team"),
    ("Team mergers are allowed and can be performed by the team leader.", "team"),
    ("Submission Limits: You may submit a maximum of 5 entries per day.", "submission_limit"),
    ("You may select up to 2 final submissions for judging.", "submission_limit"),
    ("Entry deadline: March 3, 2024, the same day for every participant.", "schedule"),
    ("All deadlines are at 11:59 PM UTC on the corresponding day.", "schedule"),
    ("Winners must release their solution under an open source licence.", "prize"),
    ("You must be 18 years or older to take part.", "prize"),
    ("The competition data is released under CC BY-NC-SA 4.0.", "licence"),
    ("External data must be publicly available and equally accessible to all participants at "
     "no cost.", "licence"),
    ("CPU Notebook <= 9 hours run-time.", "platform"),
    ("Internet access disabled", "platform"),
    ("Submissions are evaluated on the area under the ROC curve.", "evaluation"),
])
def test_competition_rules_are_not_applicable(text: str, category: str) -> None:
    a = classify_constraint(text)
    assert (a.checkable, a.category) == (False, category)


@pytest.mark.parametrize("text", [
    "Fix the model's random seed to random_state=42.",
    "Do not use external data: read only train.csv and test.csv.",
    "External data is not allowed; only the provided dataset should be used.",
    "No external data beyond what is provided is allowed.",
    "If no bird call is present in the window, output \"nocall\".",
    "Preprocessing methods: Handle inconsistent audio lengths by padding.",
    "The output file must be named 'submission.csv'.",
    "Use of pre-trained multilingual models is permitted and recommended.",
    "Model parameters should be tuned, especially for the Efficiency Prize.",
    "A gradient-boosted tree model.",
])
def test_rules_about_the_code_stay_checkable(text: str) -> None:
    assert classify_constraint(text).checkable, text


def test_every_category_has_a_reason_and_a_unique_name() -> None:
    names = [c.name for c in NOT_CHECKABLE]
    assert len(names) == len(set(names)) and all(c.reason for c in NOT_CHECKABLE)


def _yes_model(body: dict[str, Any]) -> str:
    nonce = re.search(r"with this exact value ([0-9a-f]{32})",
                      body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    return json.dumps({"nonce": nonce, "answer": "yes", "reason": "shown", "cited_lines": [1]})


def test_an_account_rule_no_longer_lowers_a_compliant_solutions_pass_rate() -> None:
    instructions = "1. Scale the features. 2. One account per participant. 3. Use train.csv."
    code = "import pandas as pd\n"
    with FakeOpenAIServer(default=_yes_model) as srv:
        r = judge_solution(instructions, code, model="m", base_url=srv.base_url)
        paper = judge_solution(instructions, code, model="m", base_url=srv.base_url,
                               judge_all=True)
    assert (r.passed, r.total, r.stated, r.pass_rate) == (2, 2, 3, 1.0)
    assert [(n.number, n.category) for n in r.not_applicable] == [(2, "account")]
    assert all("One account" not in p for p in srv.prompts()[:4])
    assert (paper.total, paper.not_applicable) == (3, [])


def test_only_not_applicable_constraints_give_no_pass_rate_and_no_request() -> None:
    with FakeOpenAIServer(default=_yes_model) as srv:
        r = judge_solution("1. One account per participant. 2. Maximum team size is 5.",
                           "x = 1\n", model="m", base_url=srv.base_url)
        assert srv.requests == []
    assert (r.total, r.stated, r.pass_rate, r.judged) == (0, 2, None, False)
    assert r.as_dict()["not_applicable"][1]["category"] == "team"
