"""Settings: option > environment > config file > default; secrets never from the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tambench.config import bundled_catalogue, load_settings
from tambench.errors import ConfigError


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("TAMBENCH_CONFIG", "TAMBENCH_DATA_DIR", "TAMBENCH_MAX_WORKERS", "OPENAI_BASE_URL",
                "TAMBENCH_LLM_BASE_URL", "TAMBENCH_EXECUTOR", "LLM_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def test_defaults_without_file_or_environment() -> None:
    s = load_settings()
    assert (s.data_dir, s.catalogue, s.executor, s.max_workers, s.retries) == (
        Path("tambench-data"), bundled_catalogue(), "auto", 0, 2)


def test_option_beats_environment_beats_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tambench.toml").write_text('max_workers = 1\nexecutor = "thread"\n')
    assert (load_settings().max_workers, load_settings().executor) == (1, "thread")
    monkeypatch.setenv("TAMBENCH_MAX_WORKERS", "2")
    assert (load_settings().max_workers, load_settings().executor) == (2, "thread")
    assert load_settings(max_workers=3).max_workers == 3
    assert load_settings(max_workers=None).max_workers == 2  # an unset option does not win


def test_config_path_variable_and_tambench_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "elsewhere.toml"
    cfg.write_text('[tambench]\ndata_dir = "~/runs"\n')
    monkeypatch.setenv("TAMBENCH_CONFIG", str(cfg))
    assert load_settings().data_dir == tmp_path / "home" / "runs"


def test_llm_base_url_reads_the_openai_variable_and_not_an_unprefixed_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LLM_BASE_URL", "http://wrong")
    assert load_settings().llm_base_url == ""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert load_settings().llm_base_url == "http://127.0.0.1:9/v1"
    assert load_settings(llm_base_url="http://opt").llm_base_url == "http://opt"


@pytest.mark.parametrize("key", ["openai_api_key", "kaggle_token", "password"])
def test_a_secret_in_the_config_file_is_refused(tmp_path: Path, key: str) -> None:
    (tmp_path / "tambench.toml").write_text(f'{key} = "canary"\n')
    with pytest.raises(ConfigError, match="secrets are read only from the environment"):
        load_settings()


def test_unknown_keys_bad_types_and_bad_toml_are_config_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "tambench.toml").write_text("max_wokers = 3\n")
    with pytest.raises(ConfigError, match="unknown setting 'max_wokers'"):
        load_settings()
    (tmp_path / "tambench.toml").write_text("max_workers = [\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings()
    (tmp_path / "tambench.toml").unlink()
    monkeypatch.setenv("TAMBENCH_MAX_WORKERS", "many")
    with pytest.raises(ConfigError, match="max_workers: .*integer.*'many'"):
        load_settings()
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings(max_wokers=1)


def test_every_setting_has_its_variable_read_in_any_case(monkeypatch: pytest.MonkeyPatch) -> None:
    from tambench.config import ENV_VARS, Settings, is_default

    assert set(ENV_VARS) == set(Settings.model_fields)
    monkeypatch.setenv("tambench_data_dir", "lower")
    monkeypatch.setenv("TAMBENCH_SERVE_PORT", "8080")
    monkeypatch.setenv("TAMBENCH_LLM_BASE_URL", "http://tambench")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai")
    s = load_settings()
    assert (s.data_dir, s.serve_port, s.llm_base_url) == (Path("lower"), 8080,
                                                          "http://tambench")
    assert not is_default(s, "data_dir") and is_default(s, "executor")
    monkeypatch.setenv("TAMBENCH_SERVE_PORT", "70000")
    with pytest.raises(ConfigError, match="serve_port: .*65535.*'70000'"):
        load_settings()
