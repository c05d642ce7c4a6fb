"""Every extension point is one Registry: listed by extension_points(), non-empty, resolvable."""

from __future__ import annotations

from pathlib import Path

import pytest

from tambench.core.registry import Registry, extension_points
from tambench.errors import TambenchError

POINTS = extension_points()


def test_the_project_lists_its_extension_points() -> None:
    assert {"metric", "executor", "protocol", "platform"} <= set(POINTS)


@pytest.mark.parametrize("kind", sorted(POINTS))
def test_every_registered_entry_resolves_under_a_lower_case_name(kind: str) -> None:
    registry = POINTS[kind]
    assert len(registry) > 0
    for name in registry.names():
        assert name == name.strip() and name == name.lower(), name
        assert registry[name] is not None


@pytest.mark.parametrize("kind", sorted(POINTS))
def test_an_unknown_name_raises_the_registrys_own_error_naming_the_closest(kind: str) -> None:
    registry = POINTS[kind]
    first = registry.names()[0]
    with pytest.raises(TambenchError, match=f"unknown {kind} '{first}x'"):
        registry[first + "x"]


def test_a_registry_refuses_a_second_entry_under_the_same_name() -> None:
    reg = Registry[int]("thing", error=KeyError, listed=False)
    reg.register("one", 1)
    with pytest.raises(ValueError, match="registered twice"):
        reg.register("one", 2)
    reg.register_lazy("path", "os.path:join")
    import os.path

    assert reg["path"] is os.path.join


def test_lookups_from_several_threads_all_wait_for_the_loaders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lookup made while another thread runs the loaders must not miss their entries."""
    import sys
    import threading

    reg = Registry[int]("slow thing", error=KeyError, listed=False,
                        loaders=("slow_registry_loader_mod",))
    (tmp_path / "slow_registry_loader_mod.py").write_text(
        "import time, builtins\ntime.sleep(0.3)\nbuiltins._slow_registry.register('one', 1)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("builtins._slow_registry", reg, raising=False)
    monkeypatch.delitem(sys.modules, "slow_registry_loader_mod", raising=False)
    seen: list[bool] = []
    threads = [threading.Thread(target=lambda: seen.append("one" in reg)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [True] * 4
