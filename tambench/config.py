"""Settings: command-line option > environment variable > config file > default.

The config file is TOML: ``./tambench.toml`` if present, else ``$TAMBENCH_CONFIG``, else
``~/.config/tambench/config.toml``. Keys (all optional)::

    data_dir = "tambench-data"          # prepared splits: <data_dir>/<platform>/<slug>/
    catalogue = "path/to/catalogue"     # task catalogue (default: the bundled one)
    executor = "local"                  # local | thread | serial | ray
    executor_address = ""               # for ray: "auto", "ray://host:10001", or "" (start local)
    max_workers = 0                     # 0: one per CPU
    retries = 2                         # extra attempts for a failed batch item (0: none)
    llm_model = ""                      # model name for the LLM mapper / judge
    llm_base_url = ""                   # OpenAI-compatible endpoint (else OPENAI_BASE_URL)

Secrets are never read from this file: API keys come only from the environment.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from tambench.errors import ConfigError

#: Setting -> environment variable.
ENV_VARS = {
    "data_dir": "TAMBENCH_DATA_DIR",
    "catalogue": "TAMBENCH_CATALOGUE",
    "executor": "TAMBENCH_EXECUTOR",
    "executor_address": "TAMBENCH_EXECUTOR_ADDRESS",
    "max_workers": "TAMBENCH_MAX_WORKERS",
    "retries": "TAMBENCH_RETRIES",
    "llm_model": "TAMBENCH_LLM_MODEL",
    "llm_base_url": "OPENAI_BASE_URL",
}

_SECRET_HINTS = ("key", "token", "secret", "password")


def bundled_catalogue() -> Path:
    """The catalogue shipped inside the package."""
    return Path(__file__).resolve().parent / "tasks" / "catalogue"


@dataclass(frozen=True)
class Settings:
    """Resolved settings."""

    data_dir: Path = Path("tambench-data")
    catalogue: Path = bundled_catalogue()
    executor: str = "local"
    executor_address: str = ""
    max_workers: int = 0
    retries: int = 2
    llm_model: str = ""
    llm_base_url: str = ""


def config_file() -> Path | None:
    """The config file in effect, if any."""
    candidates = [Path("tambench.toml")]
    if os.environ.get("TAMBENCH_CONFIG"):
        candidates.insert(0, Path(os.environ["TAMBENCH_CONFIG"]))
    candidates.append(Path.home() / ".config" / "tambench" / "config.toml")
    for c in candidates:
        if c.is_file():
            return c
    return None


def _read_file(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    data = data.get("tambench", data)
    known = {f.name for f in fields(Settings)}
    for key in data:
        if any(h in key.lower() for h in _SECRET_HINTS):
            raise ConfigError(
                f"config file {path} holds {key!r}: secrets are read only from the environment"
            )
        if key not in known:
            raise ConfigError(f"config file {path}: unknown setting {key!r}; known: {sorted(known)}")
    return dict(data)


def load_settings(**overrides: Any) -> Settings:
    """Resolve settings; ``overrides`` (e.g. from CLI options) win when not None."""
    values: dict[str, Any] = {}
    path = config_file()
    if path is not None:
        values.update(_read_file(path))
    for name, var in ENV_VARS.items():
        if os.environ.get(var):
            values[name] = os.environ[var]
    values.update({k: v for k, v in overrides.items() if v is not None})
    out: dict[str, Any] = {}
    for f in fields(Settings):
        if f.name not in values:
            continue
        v = values[f.name]
        if f.name in {"data_dir", "catalogue"}:
            v = Path(v).expanduser()
        elif f.name in {"max_workers", "retries"}:
            try:
                v = int(v)
            except (TypeError, ValueError):
                raise ConfigError(f"{f.name} must be an integer, got {v!r}") from None
        else:
            v = str(v)
        out[f.name] = v
    return Settings(**out)
