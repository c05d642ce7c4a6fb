"""Settings: command-line option > environment variable > config file > default.

The config file is TOML: ``$TAMBENCH_CONFIG`` if set, else ``./tambench.toml`` if present, else
``~/.config/tambench/config.toml``. Keys (all optional; a ``[tambench]`` table works too)::

    data_dir = "tambench-data"          # prepared splits: <data_dir>/<platform>/<slug>/
    catalogue = "path/to/catalogue"     # task catalogue (default: the bundled one)
    executor = "auto"                   # auto | local | thread | serial | ray
    executor_address = ""               # for ray: "auto", "ray://host:10001", or "" (start local)
    max_workers = 0                     # 0: one per CPU
    retries = 2                         # extra attempts for a failed batch item (0: none)
    llm_model = ""                      # model for the LLM mapper / judge ("provider:model" works)
    llm_base_url = ""                   # OpenAI-compatible endpoint (else OPENAI_BASE_URL)
    serve_host = "127.0.0.1"            # tambench serve validate: a loopback address only
    serve_port = 5000                   #   (another address needs --host on the command line)

Environment variables: ``TAMBENCH_<KEY>`` for every key (``TAMBENCH_DATA_DIR``, ...), and
``OPENAI_BASE_URL`` as well for ``llm_base_url``; names are matched in any case. Secrets are
never read from the file: a key that looks like one (key, token, secret, password) is refused;
API keys come only from the environment. Values are checked by one pydantic model, whatever
gave them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tambench.core.bounded import load_toml
from tambench.errors import ConfigError

#: Setting -> environment variable (documentation and messages).
ENV_VARS = {
    "data_dir": "TAMBENCH_DATA_DIR",
    "catalogue": "TAMBENCH_CATALOGUE",
    "executor": "TAMBENCH_EXECUTOR",
    "executor_address": "TAMBENCH_EXECUTOR_ADDRESS",
    "max_workers": "TAMBENCH_MAX_WORKERS",
    "retries": "TAMBENCH_RETRIES",
    "llm_model": "TAMBENCH_LLM_MODEL",
    "llm_base_url": "OPENAI_BASE_URL",
    "serve_host": "TAMBENCH_SERVE_HOST",
    "serve_port": "TAMBENCH_SERVE_PORT",
}

#: Setting -> the environment variables that give it, first found wins.
_ENV_NAMES = {name: (f"TAMBENCH_{name.upper()}",) for name in ENV_VARS} | {
    "llm_base_url": ("TAMBENCH_LLM_BASE_URL", "OPENAI_BASE_URL")}

_SECRET_HINTS = ("key", "token", "secret", "password")


def bundled_catalogue() -> Path:
    """The catalogue shipped inside the package."""
    return Path(__file__).resolve().parent / "tasks" / "catalogue"


def home_dir() -> Path | None:
    """The user's home folder, or None when there is none: HOME unset (or empty) and no passwd
    entry for the user id, as in a container run under an arbitrary uid. ``Path.home()`` raises
    there; every use of the home folder in tambench goes through this function instead."""
    home = os.environ.get("HOME")
    if home:
        return Path(home)
    try:
        import pwd
    except ImportError:  # not POSIX: the platform's own rule
        try:
            return Path.home()
        except (RuntimeError, KeyError):
            return None
    try:
        entry = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return None
    return Path(entry) if entry else None


_fallback_root: list[Path] = []


def fallback_dir(purpose: str) -> Path:
    """A private temporary folder (mode 0700, removed when the process exits) standing in for a
    folder that would live under the home directory when there is none."""
    if not _fallback_root:
        import atexit
        import shutil
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="tambench-nohome-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _fallback_root.append(root)
    path = _fallback_root[0] / purpose
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def env_dir_fallback(var: str, purpose: str) -> None:
    """Without a home directory, point the environment variable ``var`` (a library's cache or
    config folder: ``HOME`` for a child process, ...) at a private temporary
    folder, unless it is set already. With a home directory nothing changes."""
    if not os.environ.get(var) and home_dir() is None:
        os.environ[var] = str(fallback_dir(purpose))


def expand_home(path: Path, what: str) -> Path:
    """``path`` with a leading ``~`` expanded; a ``~`` path without a home directory is a
    ConfigError naming ``what`` (never the RuntimeError of ``Path.expanduser``)."""
    text = str(path)
    if not text.startswith("~"):
        return path
    expanded = os.path.expanduser(text)
    if expanded.startswith("~"):
        raise ConfigError(f"{what} {text} starts with ~, which cannot be expanded here (no home "
                          "directory: HOME is unset and the user id has no passwd entry; or no "
                          "such user); give a full path")
    return Path(expanded)


def config_file() -> Path | None:
    """The config file in effect, if any. The user config file
    (``~/.config/tambench/config.toml``) is skipped when there is no home directory."""
    candidates = [Path("tambench.toml")]
    home = home_dir()
    if home is not None:
        candidates.append(home / ".config" / "tambench" / "config.toml")
    if os.environ.get("TAMBENCH_CONFIG"):
        candidates.insert(0, Path(os.environ["TAMBENCH_CONFIG"]))
    return next((c for c in candidates if c.is_file()), None)


def _from_config_file(known: set[str]) -> dict[str, Any]:
    """The TOML config file's settings, with secrets and unknown keys refused."""
    path = config_file()
    if path is None:
        return {}
    try:
        data = load_toml(path, error=ConfigError, source=f"config file {path}")
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
    data = data.get("tambench", data)
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path}: [tambench] must be a table of settings")
    for key in data:
        if any(h in key.lower() for h in _SECRET_HINTS):
            raise ConfigError(
                f"config file {path} holds {key!r}: secrets are read only from the environment"
            )
        if key not in known:
            raise ConfigError(f"config file {path}: unknown setting {key!r}; known: {sorted(known)}")
    return dict(data)


def _from_environment() -> dict[str, str]:
    """The settings environment variables give (names in any case; an empty value counts)."""
    env = {k.lower(): v for k, v in os.environ.items()}
    found: dict[str, str] = {}
    for name, variables in _ENV_NAMES.items():
        value = next((env[v.lower()] for v in variables if v.lower() in env), None)
        if value is not None:
            found[name] = value
    return found


class Settings(BaseModel):
    """Resolved settings (immutable)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data_dir: Path = Path("tambench-data")
    catalogue: Path = Field(default_factory=bundled_catalogue)
    executor: str = "auto"
    executor_address: str = ""
    max_workers: int = 0
    retries: int = 2
    llm_model: str = ""
    llm_base_url: str = ""
    serve_host: str = "127.0.0.1"
    serve_port: int = Field(5000, ge=0, le=65535)


def load_settings(**overrides: Any) -> Settings:
    """Resolve settings; ``overrides`` (e.g. from CLI options) win when not None.

    Raises:
        ConfigError: a value of the wrong type, an unknown or secret key in the config file.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    unknown = sorted(set(given) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"unknown setting(s) {unknown}; known: {sorted(Settings.model_fields)}")
    known = set(Settings.model_fields)
    # Options > environment > config file > defaults; no .env or secrets directory.
    values = {**_from_config_file(known), **_from_environment(), **given}
    try:
        settings = Settings(**values)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            name = str(err["loc"][0]) if err["loc"] else "?"
            problems.append(f"{name}: {err['msg']} (got {err.get('input')!r})")
        raise ConfigError("invalid setting(s): " + "; ".join(problems)) from None
    # Only paths that change are updated, so a default stays out of model_fields_set
    # (see :func:`is_default`).
    expanded = {k: expand_home(getattr(settings, k), k) for k in ("data_dir", "catalogue")}
    return settings.model_copy(update={k: v for k, v in expanded.items()
                                       if v != getattr(settings, k)})


def is_default(settings: Settings, name: str) -> bool:
    """Whether a setting holds its default: no option, environment variable or config file
    gave it (messages say so: "the default ./tambench-data")."""
    return name not in settings.model_fields_set
