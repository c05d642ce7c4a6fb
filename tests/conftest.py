"""Shared test fixtures: the ../shared data folder, --slow and --update-golden options."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("TAMBENCH_SHARED_DIR", REPO_ROOT.parent / "shared")).resolve()
TESTS_DATA = Path(__file__).resolve().parent / "data"
LONG_LIST = Path(__file__).resolve().parent / "long_tests.txt"


def long_tests() -> set[str]:
    """The tests `make test-fast` leaves out besides those marked in their file: one
    ``path::function`` per line of tests/long_tests.txt (every parameter of that function)."""
    lines = LONG_LIST.read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False, help="run slow tests")
    parser.addoption(
        "--update-golden", action="store_true", default=False,
        help="rewrite golden files instead of comparing (review the diff!)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    listed = long_tests()
    for item in items:
        if item.nodeid.split("[", 1)[0] in listed:
            item.add_marker(pytest.mark.long)
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ../shared folder beside the repository (CI provides it)."""
    if not (SHARED_DIR / "data").is_dir():
        pytest.fail(f"../shared/data not found at {SHARED_DIR}; set TAMBENCH_SHARED_DIR")
    return SHARED_DIR


@pytest.fixture(scope="session")
def tam_lite_dir(shared_dir: Path) -> Path:
    """../shared/data/tam-lite: the 18 Lite tasks' leaderboards and paper schemas."""
    return shared_dir / "data" / "tam-lite"


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Whether golden files are rewritten in this run."""
    return bool(request.config.getoption("--update-golden"))
