"""The browser agent end to end, offline: a fake OpenAI-compatible server scripts its steps."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tambench.testing.site import RunningSite

from tambench.acquisition.agent import run_agent
from tambench.acquisition.fetch import FetchSettings
from tambench.testing.fake_openai import FakeOpenAIServer


def step(*actions: dict[str, Any]) -> dict[str, Any]:
    """One agent step in browser-use's output format."""
    return {"thinking": "", "evaluation_previous_goal": "ok", "memory": "", "next_goal": "next",
            "action": list(actions)}


def test_agent_collects_the_pages_through_extract_markdown_and_stays_on_the_site(
        site: RunningSite, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    monkeypatch.setenv("BROWSER_USE_SETUP_LOGGING", "false")
    base = site.base_url + "/biendata/competition/injected-breast-cancer-diagnosis"
    replies: list[Any] = [
        step({"extract_markdown": {"kind": "overview"}}),
        step({"navigate": {"url": site.canary_url + "/agent-visit"}}),  # what an injection asks
        step({"navigate": {"url": base + "/data/"}}),
        step({"extract_markdown": {"kind": "data"}}),
        step({"navigate": {"url": base + "/evaluation/"}}),
        step({"extract_markdown": {"kind": "evaluation"}}),
        step({"navigate": {"url": base + "/final-leaderboard/?page=1"}}),
        step({"extract_markdown": {"kind": "leaderboard"}}),
        step({"done": {"text": "collected", "success": True}}),
    ]
    origin = site.base_url
    with FakeOpenAIServer(replies=replies) as fake:
        got = asyncio.run(run_agent(
            base + "/", llm="fake-model", base_url=fake.base_url, allowed_origins=[origin],
            settings=FetchSettings(hermetic=True, tmp_dir=str(tmp_path)), max_steps=12,
            leaderboard_selector="table.rank-table",
        ))
        prompts = "\n".join(fake.prompts())
    assert set(got.pages) == {"overview", "data", "evaluation", "leaderboard"}
    assert "area under the ROC curve" in got.pages["evaluation"].markdown
    assert got.leaderboard is not None
    assert len(got.leaderboard) == len(site.state.competitions["breast-cancer-diagnosis"]
                                       .leaderboard())
    assert got.final_text == "collected"
    assert site.canary_hits == []
    assert any("/agent-visit" in u for u in got.refused)
    # hidden instructions of the injected page never reached the model
    assert "IGNORE ALL PREVIOUS" not in prompts and "extract_markdown" in prompts
