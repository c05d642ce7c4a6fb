"""Every package the code imports is declared in pyproject.toml, where it belongs.

A module imported at the top of any tambench module (or inside a function) must come from a
core dependency; a module loaded through ``tambench._optional.require`` must come from the
extra that ``EXTRA_FOR_MODULE`` names. A package that works only because something else pulls
it in breaks on the next release of that something else.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from tambench._optional import EXTRA_FOR_MODULE

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tambench"


def _dist_name(requirement: str) -> str:
    name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
    return name.lower().replace("_", "-")


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_dist_name(r) for r in project["dependencies"]}
    extras = {k: {_dist_name(r) for r in v} for k, v in project["optional-dependencies"].items()}
    return core, extras


def _imports() -> dict[str, set[str]]:
    """Top-level module -> files importing it with an import statement."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(ROOT)))
    return found


@cache
def _installed() -> Mapping[str, list[str]]:
    return packages_distributions()


def _distributions(module: str) -> set[str]:
    return {d.lower().replace("_", "-") for d in _installed().get(module, [])}


def test_every_imported_third_party_module_is_a_declared_core_dependency() -> None:
    core, _ = _declared()
    undeclared = []
    for module, files in sorted(_imports().items()):
        if module in sys.stdlib_module_names or module == "tambench":
            continue
        if module in EXTRA_FOR_MODULE:  # optional: checked below
            continue
        dists = _distributions(module)
        assert dists, f"{module} (imported by {sorted(files)[0]}) is not installed"
        if not dists & core:
            undeclared.append(f"{module} ({', '.join(sorted(dists))}) in {sorted(files)[:2]}")
    assert not undeclared, "imported but not in [project].dependencies:\n" + "\n".join(undeclared)


def test_every_optional_module_comes_from_the_extra_that_names_it() -> None:
    _, extras = _declared()
    wrong = []
    for module, extra in sorted(EXTRA_FOR_MODULE.items()):
        assert extra in extras, f"{module}: extra {extra!r} is not declared"
        dists = _distributions(module)
        if not dists & extras[extra]:
            wrong.append(f"{module} ({', '.join(sorted(dists)) or 'not installed'}) not in "
                         f"[{extra}]: {sorted(extras[extra])}")
    assert not wrong, "\n".join(wrong)


def test_the_audit_sees_an_undeclared_import() -> None:
    """The mapping from modules to distributions works (so the checks cannot pass vacuously)."""
    core, _ = _declared()
    assert "numpy" in _distributions("numpy") & core
    assert _distributions("yaml") & core == {"pyyaml"}
    assert not _distributions("hypothesis") & core  # a dev tool, not a dependency


@pytest.mark.parametrize("module", sorted(EXTRA_FOR_MODULE))
def test_every_optional_module_imports_when_its_extra_is_installed(module: str,
                                                                   tmp_path: Path) -> None:
    """An installed extra works: its packages import in a fresh interpreter. A package that
    imports something it does not declare (browser-use imports pydantic-settings) fails here on
    a fresh install unless the extra declares that import itself."""
    if not _distributions(module):
        pytest.skip(f"{module} is not installed")
    # browser-use's switches (no telemetry, no version check, config in the test's folder).
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "false", "BROWSER_USE_CLOUD_SYNC": "false",
           "BROWSER_USE_VERSION_CHECK": "false", "BROWSER_USE_SETUP_LOGGING": "false",
           "BROWSER_USE_CONFIG_DIR": str(tmp_path / "browser-use"), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, f"import {module} failed:\n{done.stderr[-2000:]}"
