"""A registry whose loaders are still importing is never read half-filled by another thread."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from tambench.core.registry import Registry

SLOW_LOADER = '''
import time
from tests.core import test_registry_threads as owner
time.sleep(0.3)  # a slow import: other threads look names up meanwhile
owner.REGISTRY.register("late", 42)
'''

REGISTRY: Registry[int] = Registry("thread-test entry", error=KeyError, listed=False,
                                   loaders=("tambench_slow_loader",))


def test_concurrent_first_lookups_wait_for_the_loaders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tambench_slow_loader.py").write_text(SLOW_LOADER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tambench_slow_loader", raising=False)
    results: list[object] = []

    def look() -> None:
        try:
            results.append(REGISTRY["late"])
        except KeyError as exc:  # the bug: a second thread saw the registry before loading
            results.append(exc)

    threads = [threading.Thread(target=look) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert results == [42, 42, 42, 42]
