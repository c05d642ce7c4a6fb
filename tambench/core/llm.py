"""One chat-model layer for every model call in tambench: the schema mapper and the judge.

Both speak LangChain's chat-model interface (``langchain_core``'s ``BaseChatModel``), so any
provider a user has works by configuration. A model is named by a reference:

* ``"provider:model"``, e.g. ``"openai:gpt-4o"``, ``"anthropic:claude-sonnet-4-5"``,
  ``"ollama:qwen2.5:7b"``: the provider is looked up in :data:`LLM_PROVIDERS` and the chat
  model is built by LangChain's ``init_chat_model`` from that provider's integration package;
* a bare name, e.g. ``"gpt-4o"`` or ``"qwen2.5-7b-instruct"``: an OpenAI-compatible endpoint
  (OpenAI itself, or a local vLLM / llama.cpp / Ollama server given by ``base_url`` or
  ``OPENAI_BASE_URL``).

Secrets come from the environment only: the API key is read from the variable the provider
names (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ...) or from the one the caller names, handed
to the client and never logged, stored or put in a message. A failure of the endpoint
(connection, timeout, HTTP status) becomes :class:`~tambench.errors.LLMError`; anything else
is a bug and propagates.

LangChain is imported lazily, on the first model built; without the ``llm`` extra the error
carries the install line.

>>> provider, model = parse_model_ref("anthropic:claude-sonnet-4-5")
>>> provider.name, model, provider.key_env
('anthropic', 'claude-sonnet-4-5', 'ANTHROPIC_API_KEY')
>>> parse_model_ref("qwen2.5:7b")[0].name  # not a provider prefix: an OpenAI-compatible model
'openai'
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from tambench._optional import require
from tambench.core.registry import Registry
from tambench.errors import ConfigError, LLMError

#: A chat message as (role, text); roles "system", "human" (or "user") and "ai".
Message = tuple[str, str]

#: Value handed to OpenAI-compatible clients when a local endpoint needs no key.
LOCAL_PLACEHOLDER_KEY = "no-key"

#: Providers whose integration is OpenAI's client: a base URL without a key means a local
#: server, and a JSON schema can be sent as the ``response_format``.
_OPENAI_ERRORS = ("openai:APIError",)
#: Transport failures any provider may raise through httpx.
_HTTP_ERRORS = ("httpx:HTTPError",)


@dataclass(frozen=True)
class ChatProvider:
    """A LangChain integration package that serves chat models."""

    name: str
    """The provider key, as LangChain's ``init_chat_model`` spells it ("openai", "ollama")."""

    package: str
    """Importable module of the integration, e.g. ``langchain_openai``."""

    pip_name: str
    """Distribution that provides it, for the install hint, e.g. ``langchain-openai``."""

    key_env: str | None
    """Environment variable holding the API key; None for keyless local servers."""

    errors: tuple[str, ...] = _HTTP_ERRORS
    """``"module:Class"`` exceptions that mean the endpoint failed (not our bug)."""

    openai_compatible: bool = False
    """Speaks OpenAI's API: a base URL without a key is a local server, and a JSON schema can
    be sent as the request's ``response_format``."""


LLM_PROVIDERS: Registry[ChatProvider] = Registry(
    "LLM provider", error=ConfigError,
    hint="name a model as 'provider:model', or give a bare name for an OpenAI-compatible "
         "endpoint")


def register_provider(provider: ChatProvider) -> ChatProvider:
    """Add a provider (one line per LangChain integration package)."""
    return LLM_PROVIDERS.register(provider.name, provider)


for _p in (
    ChatProvider("openai", "langchain_openai", "langchain-openai", "OPENAI_API_KEY",
                 _OPENAI_ERRORS + _HTTP_ERRORS, openai_compatible=True),
    ChatProvider("anthropic", "langchain_anthropic", "langchain-anthropic", "ANTHROPIC_API_KEY",
                 ("anthropic:APIError",) + _HTTP_ERRORS),
    ChatProvider("google_genai", "langchain_google_genai", "langchain-google-genai",
                 "GOOGLE_API_KEY", ("google.api_core.exceptions:GoogleAPIError",) + _HTTP_ERRORS),
    ChatProvider("mistralai", "langchain_mistralai", "langchain-mistralai", "MISTRAL_API_KEY"),
    ChatProvider("groq", "langchain_groq", "langchain-groq", "GROQ_API_KEY",
                 ("groq:APIError",) + _HTTP_ERRORS),
    ChatProvider("deepseek", "langchain_deepseek", "langchain-deepseek", "DEEPSEEK_API_KEY",
                 _OPENAI_ERRORS + _HTTP_ERRORS),
    ChatProvider("ollama", "langchain_ollama", "langchain-ollama", None,
                 ("ollama:ResponseError",) + _HTTP_ERRORS),
):
    register_provider(_p)

DEFAULT_PROVIDER = "openai"


def parse_model_ref(ref: str) -> tuple[ChatProvider, str]:
    """The provider and model name of ``"provider:model"`` or of a bare model name.

    A prefix is a provider only when it is registered, so Ollama-style tags
    ("qwen2.5:7b") stay whole model names of the default, OpenAI-compatible provider.

    Raises:
        ConfigError: an empty reference or an empty model name.
    """
    ref = (ref or "").strip()
    prefix, sep, rest = ref.partition(":")
    if sep and prefix in LLM_PROVIDERS:
        provider, model = LLM_PROVIDERS[prefix], rest.strip()
    else:
        provider, model = LLM_PROVIDERS[DEFAULT_PROVIDER], ref
    if not model:
        raise ConfigError(f"no model name in {ref!r}; expected 'provider:model' or a model name")
    return provider, model


@dataclass(frozen=True)
class ChatConfig:
    """Which model to call and how."""

    model: str
    """Model reference, see :func:`parse_model_ref`."""

    base_url: str | None = None
    """Endpoint of the provider (OpenAI-compatible: e.g. ``http://127.0.0.1:8000/v1``)."""

    api_key_env: str | None = None
    """Environment variable holding the key; None: the provider's own (``OPENAI_API_KEY``)."""

    temperature: float = 0.0
    timeout_s: float = 120.0
    max_retries: int = 2


def _api_key(provider: ChatProvider, config: ChatConfig) -> str | None:
    """The key from the environment. An OpenAI-compatible endpoint given by a base URL gets a
    placeholder when the provider's own variable is empty (local servers need none); a
    variable the caller names must be set."""
    env = config.api_key_env or provider.key_env
    if env is None:
        return None
    key = os.environ.get(env, "")
    if key:
        return key
    local = config.base_url or os.environ.get("OPENAI_BASE_URL")
    if provider.openai_compatible and local and config.api_key_env is None:
        return LOCAL_PLACEHOLDER_KEY
    raise ConfigError(
        f"the environment variable {env} is not set: the API key for {provider.name} models "
        "is read from the environment only (for a local OpenAI-compatible server, give its "
        "base URL)")


@dataclass(frozen=True)
class ChatModel:
    """A built chat model with what is needed to call it safely."""

    provider: ChatProvider
    model: str
    chat: Any
    """The LangChain ``BaseChatModel``."""

    errors: tuple[type[BaseException], ...]
    """Exception classes that mean the endpoint failed."""


def _import_errors(paths: Sequence[str]) -> tuple[type[BaseException], ...]:
    out: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for path in paths:
        module, _, attr = path.partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except ImportError:  # that provider's SDK is not installed: it cannot raise these
            continue
        out.append(cls)
    return tuple(dict.fromkeys(out))


def make_chat_model(config: ChatConfig) -> ChatModel:
    """Build the chat model a configuration names (imports LangChain and the provider).

    Raises:
        ConfigError: unknown provider, or no API key in the environment.
        MissingDependencyError: LangChain or the provider's package is not installed.
    """
    provider, model = parse_model_ref(config.model)
    key = _api_key(provider, config)
    chat_models = require("langchain.chat_models", extra="llm", feature="LLM calls")
    require(provider.package, feature=f"{provider.name} models (pip install {provider.pip_name})")
    kwargs: dict[str, Any] = {"temperature": config.temperature, "timeout": config.timeout_s,
                              "max_retries": config.max_retries}
    if key is not None:
        kwargs["api_key"] = key
    if config.base_url:
        kwargs["base_url"] = config.base_url
    chat = chat_models.init_chat_model(model, model_provider=provider.name, **kwargs)
    return ChatModel(provider, model, chat, _import_errors(provider.errors))


R = TypeVar("R")


def _call(model: ChatModel, fn: Callable[[], R]) -> R:
    try:
        return fn()
    except model.errors as exc:
        raise LLMError(f"the model endpoint failed ({type(exc).__name__}): {exc}") from None


def invoke_text(model: ChatModel, messages: Sequence[Message], *,
                json_schema: dict[str, Any] | None = None, schema_name: str = "reply") -> str | None:
    """Send ``messages`` and return the reply's text (None when it has none).

    With ``json_schema``, an OpenAI-compatible provider receives it as the request's
    ``response_format``; other providers get the messages alone (the prompt states the
    format, and the caller checks the reply either way).

    Raises:
        LLMError: the endpoint failed.
    """
    kwargs: dict[str, Any] = {}
    if json_schema is not None and model.provider.openai_compatible:
        kwargs["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "strict": True, "schema": json_schema},
        }
    reply = _call(model, lambda: model.chat.invoke(list(messages), **kwargs))
    content = getattr(reply, "content", None)
    if isinstance(content, list):  # content blocks: keep the text ones
        texts = [b.get("text", "") if isinstance(b, dict) else str(b) for b in content]
        content = "".join(texts)
    return content if isinstance(content, str) and content else None


M = TypeVar("M", bound=BaseModel)


def invoke_structured(model: ChatModel, messages: Sequence[Message], schema: type[M], *,
                      method: str = "function_calling") -> tuple[M | None, str]:
    """Ask for a reply in the shape of ``schema`` (LangChain's ``with_structured_output``).

    Returns:
        The parsed reply (None when the reply did not validate) and, when it did not, why.

    Raises:
        LLMError: the endpoint failed.
    """
    structured = model.chat.with_structured_output(schema, method=method, include_raw=True)
    out = _call(model, lambda: structured.invoke(list(messages)))
    parsed = out.get("parsed") if isinstance(out, dict) else None
    if isinstance(parsed, schema):
        return parsed, ""
    err = out.get("parsing_error") if isinstance(out, dict) else None
    return None, str(err or "no structured output")
