"""Shared test fixtures: the ../shared data folder, --slow and --update-golden options."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("TAMBENCH_SHARED_DIR", REPO_ROOT.parent / "shared")).resolve()
TESTS_DATA = Path(__file__).resolve().parent / "data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False, help="run slow tests")
    parser.addoption(
        "--update-golden", action="store_true", default=False,
        help="rewrite golden files instead of comparing (review the diff!)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
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
