"""Platform adapters: one lazy registry; URLs from slugs and slugs from URLs; base URLs as settings."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tambench.acquisition.platforms import (
    PAGE_KINDS,
    PLATFORMS,
    PlatformAdapter,
    get_adapter,
    resolve_ref,
)
from tambench.errors import UnknownPlatformError


@pytest.mark.parametrize("name", sorted(PLATFORMS))
def test_every_registered_adapter_satisfies_the_protocol(name: str) -> None:
    adapter = get_adapter(name)
    assert isinstance(adapter, PlatformAdapter)
    assert adapter.name == name


@pytest.mark.parametrize("name, slug, expected", [
    ("kaggle", "spaceship-titanic", "https://www.kaggle.com/competitions/spaceship-titanic/data"),
    ("aicrowd", "my-challenge", "https://www.aicrowd.com/challenges/my-challenge/dataset_files"),
    ("biendata", "kdd2023", "https://www.biendata.xyz/competition/kdd2023/data/"),
])
def test_page_urls_are_formed_from_the_slug(name: str, slug: str, expected: str) -> None:
    urls = get_adapter(name).page_urls(slug)
    assert set(urls) == set(PAGE_KINDS)
    assert urls["data"] == expected


@pytest.mark.parametrize("name", ["kaggle", "aicrowd", "biendata"])
def test_slug_round_trips_through_every_page_url_on_a_mirror(name: str) -> None:
    adapter = get_adapter(name, base_url="http://127.0.0.1:8123/mirror/" + name)
    urls = [*adapter.page_urls("some-comp").values(), adapter.leaderboard_url("some-comp", 3)]
    for url in urls:
        found, slug = resolve_ref(url, base_urls={name: adapter.base_url})
        assert (found.name, slug) == (name, "some-comp")


def test_base_url_comes_from_the_environment_when_not_given(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAMBENCH_AICROWD_BASE_URL", "http://127.0.0.1:9/ai")
    assert get_adapter("aicrowd").base_url == "http://127.0.0.1:9/ai"
    assert get_adapter("aicrowd", base_url="http://127.0.0.1:10").base_url == "http://127.0.0.1:10"


def test_mirror_allow_list_holds_only_the_mirror_origin() -> None:
    adapter = get_adapter("kaggle", base_url="http://127.0.0.1:8123/kaggle")
    assert adapter.url_policy().origins == frozenset({"http://127.0.0.1:8123"})
    assert adapter.min_interval_s == 0.0  # the local site needs no politeness gap
    assert get_adapter("kaggle").min_interval_s > 0


def test_unknown_platform_names_the_known_ones() -> None:
    with pytest.raises(UnknownPlatformError, match="unknown platform 'codalab'.*kaggle"):
        resolve_ref("codalab:x")


def test_malformed_reference_and_slug_are_refused() -> None:
    with pytest.raises(ValueError, match="neither a URL nor PLATFORM:SLUG"):
        resolve_ref("spaceship-titanic")
    with pytest.raises(ValueError, match="not a valid competition slug"):
        resolve_ref("kaggle:../etc")


def test_unknown_site_goes_to_the_generic_adapter() -> None:
    adapter, slug = resolve_ref("https://challenges.example.org/c/energy-forecast")
    assert adapter.name == "generic" and slug == "energy-forecast"
    assert adapter.url_policy().origins == frozenset({"https://challenges.example.org:443"})


def test_importing_the_registry_loads_no_browser_or_client() -> None:
    code = ("import sys, tambench.acquisition.platforms as p, tambench.acquisition as a;"
            "p.get_adapter('kaggle'); p.get_adapter('aicrowd');"
            "print(sorted(m for m in ('playwright', 'kaggle', 'browser_use', 'langchain')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_every_platform_module_is_registered_and_the_registry_is_an_extension_point() -> None:
    import pkgutil

    import tambench.acquisition.platforms as package
    from tambench.acquisition.platforms import TemplateAdapter
    from tambench.core.registry import extension_points

    modules = sorted(m.name for m in pkgutil.iter_modules(package.__path__)
                     if not m.name.startswith("_"))
    assert PLATFORMS.names() == modules
    for name in modules:
        cls = PLATFORMS[name]
        assert issubclass(cls, TemplateAdapter) and cls.name == name
        if name != "generic":
            assert set(cls.pages) == set(PAGE_KINDS) and cls.board is not None
    assert extension_points()["platform"] is PLATFORMS


def test_the_documented_example_platform_works_as_one_module() -> None:
    import re
    import types
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "acquisition.md").read_text()
    code = re.search(r"## Adding a platform.*?```python\n(.*?)```", doc, re.S)
    assert code is not None
    module = types.ModuleType("tambench.acquisition.platforms.example")
    exec(compile(code.group(1), "docs/acquisition.md", "exec"), module.__dict__)  # noqa: S102
    PLATFORMS.register("example", module.ADAPTER)
    try:
        adapter, slug = resolve_ref("https://contests.example.org/contests/solar-42/data/")
        assert (adapter.name, slug) == ("example", "solar-42")
        urls = adapter.page_urls(slug)
        assert urls["rules"] == "https://contests.example.org/contests/solar-42/terms/"
        assert adapter.leaderboard_url(slug, 3).endswith("/results/?page=3")
        assert get_adapter("example", base_url="http://127.0.0.1:9/x").is_mirror
    finally:
        PLATFORMS.unregister("example")
