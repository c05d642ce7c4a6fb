"""A registry whose built-in entries load lazily is never seen empty by a concurrent lookup."""

from __future__ import annotations

import sys
import threading
import time
import types

import pytest

from tambench.core.registry import Registry


def test_lookups_from_many_threads_during_the_first_load_all_succeed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reg = Registry[int]("slow thing", error=KeyError, loaders=("tests_slow_loader",),
                        listed=False)

    def slow_import(name: str) -> types.ModuleType:
        time.sleep(0.2)  # the first thread is still loading when the others look up
        reg.register("one", 1)
        module = types.ModuleType(name)
        sys.modules[name] = module
        return module

    monkeypatch.setattr("tambench.core.registry.importlib.import_module", slow_import)
    errors: list[BaseException] = []

    def look() -> None:
        try:
            assert reg["one"] == 1
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=look) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
