"""The one LLM layer: model references, providers, keys from the environment, endpoint errors."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import BaseModel

from tambench.core.llm import (
    LLM_PROVIDERS,
    LOCAL_PLACEHOLDER_KEY,
    ChatConfig,
    ChatProvider,
    invoke_structured,
    invoke_text,
    make_chat_model,
    parse_model_ref,
    register_provider,
)
from tambench.core.registry import extension_points
from tambench.errors import ConfigError, LLMError, MissingDependencyError
from tambench.testing.fake_openai import FakeOpenAIServer

CANARY = "canary-llm-key-5b1d-never-log"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "MY_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize(("ref", "provider", "model"), [
    ("gpt-4o", "openai", "gpt-4o"),
    ("openai:gpt-4o-mini", "openai", "gpt-4o-mini"),
    ("anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
    ("ollama:qwen2.5:7b", "ollama", "qwen2.5:7b"),
    ("qwen2.5:7b", "openai", "qwen2.5:7b"),  # an Ollama-style tag, not a provider prefix
    ("  mistralai:mistral-large  ", "mistralai", "mistral-large"),
])
def test_model_references_name_a_provider_or_default_to_openai_compatible(
        ref: str, provider: str, model: str) -> None:
    p, m = parse_model_ref(ref)
    assert (p.name, m) == (provider, model)


@pytest.mark.parametrize("ref", ["", "   ", "anthropic:"])
def test_a_reference_without_a_model_is_a_config_error(ref: str) -> None:
    with pytest.raises(ConfigError, match="no model name"):
        parse_model_ref(ref)


def test_the_provider_registry_is_an_extension_point_and_every_entry_is_complete() -> None:
    assert extension_points()["LLM provider"] is LLM_PROVIDERS
    for name in LLM_PROVIDERS:
        p = LLM_PROVIDERS[name]
        assert p.name == name and p.package.startswith("langchain_")
        assert p.pip_name == p.package.replace("_", "-")
        assert all(":" in e for e in p.errors)
    with pytest.raises(ConfigError, match="did you mean 'anthropic'"):
        LLM_PROVIDERS["antropic"]


def test_a_provider_registered_by_a_user_is_usable_by_reference() -> None:
    register_provider(ChatProvider("myvendor", "langchain_myvendor", "langchain-myvendor",
                                   "MY_KEY"))
    try:
        assert parse_model_ref("myvendor:big")[0].name == "myvendor"
        with pytest.raises(ConfigError, match="MY_KEY is not set"):
            make_chat_model(ChatConfig(model="myvendor:big"))
    finally:
        LLM_PROVIDERS.unregister("myvendor")


def test_a_provider_whose_package_is_missing_names_the_pip_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    register_provider(ChatProvider("absentvendor", "langchain_absentvendor_xyz",
                                   "langchain-absentvendor-xyz", None))
    try:
        with pytest.raises(MissingDependencyError, match="pip install langchain-absentvendor-xyz"):
            make_chat_model(ChatConfig(model="absentvendor:m"))
    finally:
        LLM_PROVIDERS.unregister("absentvendor")


def test_a_remote_model_without_a_key_is_a_config_error_naming_the_variable() -> None:
    with pytest.raises(ConfigError, match="environment variable OPENAI_API_KEY is not set"):
        make_chat_model(ChatConfig(model="gpt-4o"))
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        make_chat_model(ChatConfig(model="anthropic:claude-sonnet-4-5"))


def test_a_local_openai_compatible_server_needs_no_key_but_a_named_variable_must_be_set() -> None:
    with FakeOpenAIServer(replies=["hello"]) as srv:
        chat = make_chat_model(ChatConfig(model="local-model", base_url=srv.base_url))
        assert invoke_text(chat, [("human", "hi")]) == "hello"
        assert srv.requests[0]["_headers"]["authorization"] == f"Bearer {LOCAL_PLACEHOLDER_KEY}"
        with pytest.raises(ConfigError, match="environment variable MY_KEY is not set"):
            make_chat_model(ChatConfig(model="m", base_url=srv.base_url, api_key_env="MY_KEY"))


def test_the_key_comes_from_the_environment_and_reaches_only_the_header(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("MY_KEY", CANARY)
    with FakeOpenAIServer(replies=["ok"]) as srv:
        chat = make_chat_model(ChatConfig(model="m", base_url=srv.base_url, api_key_env="MY_KEY"))
        invoke_text(chat, [("system", "s"), ("human", "u")])
    body = dict(srv.requests[0])
    headers = body.pop("_headers")
    assert headers["authorization"] == f"Bearer {CANARY}"
    assert CANARY not in json.dumps(body) and CANARY not in caplog.text
    assert CANARY not in repr(chat)


def test_a_json_schema_is_sent_as_the_response_format_to_openai_compatible_endpoints() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
              "additionalProperties": False}
    with FakeOpenAIServer(replies=['{"a": 1}']) as srv:
        chat = make_chat_model(ChatConfig(model="m", base_url=srv.base_url))
        assert invoke_text(chat, [("human", "x")], json_schema=schema, schema_name="v") \
            == '{"a": 1}'
    fmt = srv.requests[0]["response_format"]
    assert fmt == {"type": "json_schema", "json_schema": {"name": "v", "strict": True,
                                                           "schema": schema}}
    assert srv.requests[0]["temperature"] == 0


class _Answer(BaseModel):
    value: int


def test_structured_output_parses_or_says_why_not() -> None:
    with FakeOpenAIServer(replies=[{"value": 3}, {"value": "three"}]) as srv:
        chat = make_chat_model(ChatConfig(model="m", base_url=srv.base_url))
        parsed, error = invoke_structured(chat, [("human", "x")], _Answer)
        assert parsed == _Answer(value=3) and error == ""
        parsed, error = invoke_structured(chat, [("human", "x")], _Answer)
        assert parsed is None and "value" in error


def test_an_endpoint_failure_is_an_llm_error_not_a_traceback() -> None:
    with FakeOpenAIServer(replies=[]) as srv:  # answers 500
        chat = make_chat_model(ChatConfig(model="m", base_url=srv.base_url, max_retries=0))
        with pytest.raises(LLMError, match="the model endpoint failed"):
            invoke_text(chat, [("human", "x")])
    chat = make_chat_model(ChatConfig(model="m", base_url="http://127.0.0.1:9/v1",
                                      max_retries=0, timeout_s=2))
    with pytest.raises(LLMError, match="the model endpoint failed"):
        invoke_text(chat, [("human", "x")])


def test_the_fake_server_stops_promptly() -> None:
    import time

    # A stop waits out the rest of the server's current poll. With the standard library's
    # default interval (0.5 s) the mean wait is about 0.25 s; ten stops make the mean a firm
    # figure even on a loaded machine.
    waits = []
    for _ in range(10):
        srv = FakeOpenAIServer().start()
        t0 = time.perf_counter()
        srv.stop()
        waits.append(time.perf_counter() - t0)
    assert sum(waits) / len(waits) < 0.1, waits
