"""tests/long_tests.txt: every test it names exists, so `make test-fast` leaves out what the list
says and a renamed test does not silently come back into the quick run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import LONG_LIST, REPO_ROOT, long_tests


def _defined(path: Path) -> set[str]:
    """``function`` and ``Class::method`` names of the tests defined in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}::{m.name}" for m in node.body
                      if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)}
    return names


def test_every_listed_long_test_exists() -> None:
    listed = long_tests()
    assert listed, f"{LONG_LIST} lists no test"
    missing = []
    for entry in sorted(listed):
        path, _, name = entry.partition("::")
        file = REPO_ROOT / path
        if not name or not file.is_file() or name not in _defined(file):
            missing.append(entry)
    assert not missing, f"{LONG_LIST.name} names tests that do not exist: {missing}"


class _Item:
    """What the collection hook reads and writes of a collected test."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.keywords: dict[str, object] = {}
        self.markers: list[str] = []

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.append(marker.name)


def test_the_listed_tests_and_their_parameters_are_marked_long(
        pytestconfig: pytest.Config) -> None:
    from tests.conftest import pytest_collection_modifyitems

    entry = sorted(long_tests())[0]
    items = [_Item(entry), _Item(entry + "[a-b]"), _Item(entry + "_other"),
             _Item("tests/test_long_list.py::test_every_listed_long_test_exists")]
    pytest_collection_modifyitems(pytestconfig, items)  # type: ignore[arg-type]
    assert [("long" in i.markers) for i in items] == [True, True, False, False]
