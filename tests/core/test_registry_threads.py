"""A registry looked up from several threads while its loaders import never looks empty."""

from __future__ import annotations

import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tambench.core.registry import Registry


def test_threads_looking_up_during_the_loaders_import_wait_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reg = Registry[int]("slow thing", error=KeyError, listed=False,
                        loaders=("slow_loader_for_test",))
    (tmp_path / "slow_loader_for_test.py").write_text(textwrap.dedent("""
        import time
        from tests.core.test_registry_threads import REGISTRY
        time.sleep(0.3)  # another thread looks up meanwhile
        REGISTRY.register("one", 1)
        assert REGISTRY.names() == ["one"]  # a lookup by the importing thread itself
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys.modules[__name__], "REGISTRY", reg, raising=False)
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = list(pool.map(lambda _: reg["one"], range(8)))
    assert found == [1] * 8
