"""--allow-host: the agent reaches the named hosts through the run's proxy and nothing else;
the token use of OpenAI-compatible responses is counted and priced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tambench.errors import ConfigError
from tambench.runs.pricing import BUILT_IN, add_costs, load_prices
from tambench.runs.services import host_port, usage_from_body
from tambench.testing.fake_openai import FakeOpenAIServer
from tests.runs.env import host_listener, run_command

AGENT = """
import httpx, openai, sys
proxy = httpx.Client(proxy="http://127.0.0.1:3128")
client = openai.OpenAI(base_url=sys.argv[1], api_key="none", http_client=proxy)
for _ in range(3):
    reply = client.chat.completions.create(model="gpt-4o-mini",
                                           messages=[{"role": "user", "content": "hi"}])
    print("model said", reply.choices[0].message.content)
r = httpx.get(sys.argv[2], proxy="http://127.0.0.1:3128", timeout=5)
print("status", r.status_code)
"""


def test_allowed_host_reached_others_refused_and_tokens_counted(tmp_path: Path) -> None:
    with host_listener() as (other_port, hits), FakeOpenAIServer(default="hello") as srv:
        other_url = f"http://127.0.0.1:{other_port}/"
        port = srv.base_url.split(":")[-1].split("/")[0]
        prices = tmp_path / "prices.json"
        prices.write_text(json.dumps({"gpt-4o-mini": {"input": 1000000, "output": 2000000}}))
        job, record = run_command(
            tmp_path, f"cat > agent.py <<'EOF'\n{AGENT}\nEOF\n"
                      f"python3 agent.py {srv.base_url} {other_url}",
            allow_hosts=(f"127.0.0.1:{port}",), prices=load_prices(prices))
        assert len(srv.requests) == 3
    log = (job.folder / "agent.log").read_text()
    assert log.count("model said hello") == 3, log
    assert "status 403" in log
    assert hits == []
    usage = record["usage"]
    assert usage["models"]["gpt-4o-mini"] == {"requests": 3, "prompt_tokens": 3,
                                              "completion_tokens": 3, "cost_usd": 9.0}
    assert usage["cost_usd"] == 9.0
    assert f"127.0.0.1:{other_port}" in usage["refused_hosts"]


def test_usage_fields_of_json_and_streamed_responses() -> None:
    body = (b'data: {"model": "m", "choices": []}\n\n'
            b'data: {"model": "m", "usage": {"prompt_tokens": 7, "completion_tokens": 5}}\n\n'
            b"data: [DONE]\n")
    assert usage_from_body(body) == [("m", {"prompt_tokens": 7, "completion_tokens": 5})]
    assert usage_from_body(b"not json") == []
    assert usage_from_body(b'{"usage": 3}') == []


def test_host_and_port_forms() -> None:
    assert host_port("api.openai.com", 443) == ("api.openai.com", 443)
    assert host_port("API.example.com:8443", 443) == ("api.example.com", 8443)
    assert host_port("[::1]:80", 443) == ("::1", 80)


def test_prices_extend_the_built_in_table_and_bad_tables_are_named(tmp_path: Path) -> None:
    record = {"usage": {"models": {"gpt-4o-2024-08-06": {"requests": 1, "prompt_tokens": 10**6,
                                                          "completion_tokens": 0},
                                   "mine": {"requests": 1, "prompt_tokens": 1,
                                            "completion_tokens": 1}}}}
    add_costs(record, dict(BUILT_IN))
    assert record["usage"]["cost_usd"] == pytest.approx(BUILT_IN["gpt-4o"][0])
    assert record["usage"]["unpriced_models"] == ["mine"]
    bad = tmp_path / "p.json"
    bad.write_text('{"m": {"input": "cheap"}}')
    with pytest.raises(ConfigError, match="'m' needs numbers"):
        load_prices(bad)
