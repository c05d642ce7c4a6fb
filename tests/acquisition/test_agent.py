"""The browser agent end to end, offline: a fake OpenAI-compatible server scripts its steps."""

from __future__ import annotations

import asyncio
import tempfile
from typing import Any

import pytest

from tambench.acquisition.agent import run_agent
from tambench.acquisition.fetch import FetchSettings
from tambench.testing.fake_openai import FakeOpenAIServer
from tambench.testing.site import RunningSite


def step(*actions: dict[str, Any]) -> dict[str, Any]:
    """One agent step in browser-use's output format."""
    return {"thinking": "", "evaluation_previous_goal": "ok", "memory": "", "next_goal": "next",
            "action": list(actions)}


@pytest.mark.long  # a whole crawl by the agent: about 30 s
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
    assert len(got.leaderboard.leaderboard) == len(site.state.competitions["breast-cancer-diagnosis"]
                                       .leaderboard())
    assert got.final_text == "collected"
    assert site.canary_hits == []
    assert any("/agent-visit" in u for u in got.refused)
    # hidden instructions of the injected page never reached the model
    assert "IGNORE ALL PREVIOUS" not in prompts and "extract_markdown" in prompts


@pytest.mark.long  # a whole crawl by the agent: 7 s idle, 35 s under load
def test_agent_acquires_a_layout_no_adapter_knows(
        site: RunningSite, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tabs named Task/Dataset/Scoring/Standings, content in section.panel, a one-page
    standings table: no adapter matches it; the agent finds the four kinds of content."""
    from tambench.acquisition.platforms import resolve_ref

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    monkeypatch.setenv("BROWSER_USE_SETUP_LOGGING", "false")
    slug = "diabetes-progression"
    start = site.novel_url(slug, "task")
    adapter, found = resolve_ref(start, base_urls=site.base_urls)
    assert adapter.name == "generic" and found == "task"
    replies: list[Any] = [
        step({"extract_markdown": {"kind": "overview"}}),
        step({"navigate": {"url": site.novel_url(slug, "dataset")}}),
        step({"extract_markdown": {"kind": "data"}}),
        step({"navigate": {"url": site.novel_url(slug, "scoring")}}),
        step({"extract_markdown": {"kind": "evaluation"}}),
        step({"navigate": {"url": site.novel_url(slug, "standings")}}),
        step({"extract_markdown": {"kind": "leaderboard"}}),
        step({"done": {"text": "all four found", "success": True}}),
    ]
    with FakeOpenAIServer(replies=replies) as fake:
        systmp = tmp_path / "system-tmp"
        systmp.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(systmp))
        got = asyncio.run(run_agent(
            start, llm="fake-model", base_url=fake.base_url, allowed_origins=[site.base_url],
            settings=FetchSettings(hermetic=True, tmp_dir=str(tmp_path)), max_steps=12))
    # browser-use's per-agent folder (step screenshots of the pages) is not left behind
    assert list(systmp.iterdir()) == []
    assert set(got.pages) == {"overview", "data", "evaluation", "leaderboard"}
    assert "disease progression" in got.pages["overview"].markdown
    assert "progression" in got.pages["data"].markdown and "train.csv" in got.pages["data"].markdown
    assert "root mean squared error" in got.pages["evaluation"].markdown.lower()
    assert "[Task](" not in got.pages["evaluation"].markdown  # the page's tabs are left out
    assert got.leaderboard is not None
    expected = site.state.competitions[slug].leaderboard()
    rows = got.leaderboard.leaderboard.rows
    assert [r.team for r in rows] == [e.team for e in expected]
    assert [r.rank for r in rows] == list(range(1, len(expected) + 1))
    assert got.final_text == "all four found" and site.canary_hits == []


def test_importing_browser_use_leaves_no_download_folder_in_tmp(tmp_path: Any) -> None:
    """browser-use's default profile creates /tmp/browser-use-downloads-* when imported; the
    agent's import removes it (each run has its own downloads folder in its work folder)."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("from tambench.acquisition.agent import configure_browser_use_env, "
            "_import_browser_use\n"
            f"configure_browser_use_env({str(tmp_path)!r})\n"
            "_import_browser_use()\n"
            "from browser_use.browser.session import DEFAULT_BROWSER_PROFILE as p\n"
            "print(p.downloads_path)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip().splitlines()[-1]
    assert Path(out).name.startswith("browser-use-downloads-")
    assert not Path(out).exists()
