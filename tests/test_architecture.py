"""The package's shape: stages import only downward, and no module imports itself in a cycle.

Layers, lowest first (a module may import its own stage and any lower layer, nothing else):

0. the shared core: ``tambench`` itself, ``errors``, ``fileio``, ``config``, ``_optional``,
   ``core`` (metrics, leaderboards, rank and medals, registries) and ``executors``; these may
   import one another (the cycle check still applies)
1. ``schema``
2. ``tasks``, ``acquisition`` (siblings: neither imports the other)
3. ``difficulty``, ``splits`` (siblings)
4. ``validation`` (is a submission well formed; its file-reading layer under it), ``judge``
   (the LLM constraint judge; siblings)
5. ``grading`` (a submission in, a grade out; many submissions, a report), ``protocols``
   (sibling benchmarks' scoring rules; siblings)
6. ``runs`` (the agent-facing side: the runner and its sandboxes, the validation server; it may
   grade the runs it made)
7. ``testing`` (local servers for tests and the demo), ``api`` (the Python API; siblings)
8. ``demo``
9. ``cli``

Every import counts, including those inside functions and under ``TYPE_CHECKING``: an import
moved into a function to dodge a cycle is still a dependency. So does a module named by a
string to ``importlib.import_module`` or ``__import__``: looking a later stage up at run time
is the same dependency, hidden.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tambench"

LAYERS: dict[str, int] = {
    "": 0, "errors": 0, "fileio": 0, "config": 0, "_optional": 0, "core": 0, "executors": 0,
    "schema": 1,
    "tasks": 2, "acquisition": 2,
    "difficulty": 3, "splits": 3,
    "validation": 4, "judge": 4,
    "grading": 5, "protocols": 5,
    "runs": 6,
    "testing": 7, "api": 7,
    "demo": 8,
    "cli": 9,
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every tambench module named by an import statement anywhere in the file."""
    mod = _module_name(path)
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".")
                if not is_pkg:
                    base = base[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.add(target)
            # ``from tambench.core import metrics`` imports the module tambench.core.metrics
            found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call) and _imports_by_name(node):
            found.add(node.args[0].value)  # type: ignore[attr-defined]
    return {m for m in found if m == "tambench" or m.startswith("tambench.")}


def _imports_by_name(call: ast.Call) -> bool:
    """``importlib.import_module("x")``, ``import_module("x")`` or ``__import__("x")``."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    first = call.args[0] if call.args else None
    return name in ("import_module", "__import__") and isinstance(first, ast.Constant) \
        and isinstance(first.value, str)


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    for mod, path in files.items():
        for target in _imports(path):
            if target in files and target != mod:
                graph[mod].add(target)
    return graph


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_top_level_module_and_package_has_a_layer() -> None:
    names = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))}
    names = {"" if n == "__init__" else n for n in names}
    assert names <= set(LAYERS), f"give these a layer in LAYERS: {sorted(names - set(LAYERS))}"


#: Violations being removed in this stop; each entry is deleted by the change that fixes it.
#: The list must be empty when the work lands.
PENDING_IMPORTS: set[str] = set()
PENDING_CYCLES: set[str] = set()

#: Imports allowed against the layers, each with its reason.
FACADE_IMPORTS: dict[str, str] = {
    "tambench -> tambench.api": "the package's lazy facade: `from tambench import grade` "
                                "loads the Python API on first use (nothing below imports it)",
}


def test_stages_import_only_their_own_stage_or_a_lower_layer() -> None:
    bad = []
    for mod, targets in sorted(_graph().items()):
        src = _stage(mod)
        for target in sorted(targets):
            dst = _stage(target)
            if src == dst or dst == "" or LAYERS[src] == LAYERS[dst] == 0:
                continue
            edge = f"{mod} -> {target}"
            if LAYERS[dst] >= LAYERS[src] and edge not in PENDING_IMPORTS | set(FACADE_IMPORTS):
                bad.append(f"{mod} -> {target} (layer {LAYERS[src]} -> {LAYERS[dst]})")
    assert not bad, "upward or sideways imports:\n" + "\n".join(bad)


#: The stage that runs agents is used by these stages only (the layers alone would let
#: ``testing`` import it).
RUNS_USERS = {"runs", "api", "demo", "cli"}


def test_only_the_api_the_demo_and_the_cli_run_agents() -> None:
    bad = [f"{mod} -> {target}" for mod, targets in sorted(_graph().items())
           for target in sorted(targets)
           if _stage(target) == "runs" and _stage(mod) not in RUNS_USERS]
    assert not bad, "imports of tambench.runs outside the API, the demo and the CLI:\n" + \
        "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_between_modules() -> None:
    cycles = [c for c in _cycles(_graph()) if " <-> ".join(c) not in PENDING_CYCLES]
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_checker_sees_an_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The layer check itself fails on a planted violation (so it cannot pass vacuously)."""
    fake = tmp_path / "tambench"
    (fake / "schema").mkdir(parents=True)
    (fake / "grading").mkdir()
    for d in (fake, fake / "schema", fake / "grading"):
        (d / "__init__.py").write_text("")
    (fake / "grading" / "grade.py").write_text("X = 1\n")
    (fake / "schema" / "bad.py").write_text("from tambench.grading.grade import X\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", fake)
    with pytest.raises(AssertionError, match="tambench.schema.bad -> tambench.grading.grade"):
        test_stages_import_only_their_own_stage_or_a_lower_layer()
    (fake / "grading" / "grade.py").write_text("from tambench.schema import bad\n")
    with pytest.raises(AssertionError, match="import cycles"):
        test_no_import_cycles_between_modules()


def test_the_checker_sees_a_later_stage_loaded_by_name_at_run_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "tambench"
    for d in ("splits", "grading"):
        (fake / d).mkdir(parents=True)
        (fake / d / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "grading" / "grade.py").write_text("def grade_submission(): ...\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", fake)
    for call in ('importlib.import_module("tambench.grading.grade")',
                 'import_module("tambench.grading.grade", package=None)',
                 '__import__("tambench.grading.grade")'):
        (fake / "splits" / "layout.py").write_text(
            f"import importlib\nfrom importlib import import_module\n\n\ndef load():\n"
            f"    return {call}\n")
        with pytest.raises(AssertionError, match="tambench.splits.layout -> "
                                                 "tambench.grading.grade"):
            test_stages_import_only_their_own_stage_or_a_lower_layer()
    (fake / "splits" / "layout.py").write_text(
        "import importlib\n\n\ndef load(name):\n    return importlib.import_module(name)\n")
    test_stages_import_only_their_own_stage_or_a_lower_layer()


# --- sizes -------------------------------------------------------------------------------------

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60

#: Modules and functions allowed over the limits, each with its one-line reason.
#: ``"path"`` for a module, ``"path::qualified.name"`` for a function.
SIZE_EXCEPTIONS: dict[str, str] = {
}
#: Being split in this stop (same rule as PENDING_IMPORTS: empty when the work lands).
PENDING_SIZES: set[str] = set()


def _sizes() -> tuple[dict[str, int], dict[str, int]]:
    modules: dict[str, int] = {}
    functions: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        text = path.read_text()
        modules[rel] = len(text.splitlines())

        stack: list[tuple[ast.AST, str]] = [(ast.parse(text), "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    stack.append((child, f"{prefix}{child.name}."))
                elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    name = f"{prefix}{child.name}"
                    end = child.end_lineno or child.lineno
                    functions[f"{rel}::{name}"] = end - child.lineno + 1
                    stack.append((child, f"{name}."))
    return modules, functions


def test_no_module_over_600_lines_and_no_function_over_60_without_a_stated_reason() -> None:
    modules, functions = _sizes()
    allowed = set(SIZE_EXCEPTIONS) | PENDING_SIZES
    over = [f"{k}: {n} lines" for k, n in modules.items()
            if n > MAX_MODULE_LINES and k not in allowed]
    over += [f"{k}: {n} lines" for k, n in functions.items()
             if n > MAX_FUNCTION_LINES and k not in allowed]
    assert not over, "split these (or add a one-line reason to SIZE_EXCEPTIONS):\n" + "\n".join(over)
    stale = [k for k in allowed if k not in modules and k not in functions]
    assert not stale, f"exceptions for code that no longer exists: {stale}"
    for key, reason in SIZE_EXCEPTIONS.items():
        assert reason.strip() and "\n" not in reason, f"{key}: the reason must be one line"


# --- the layout as docs/layout.md shows it -------------------------------------------------------

LAYOUT_DOC = PACKAGE.parent / "docs" / "layout.md"


def _layout_table() -> dict[str, tuple[int, set[str] | None]]:
    """{room: (layer, rooms it imports; None for "every room")} from docs/layout.md's table."""
    rows: dict[str, tuple[int, set[str] | None]] = {}
    for line in LAYOUT_DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].isdigit():
            continue
        layer, room, _job, imports = cells
        named = None if imports == "every room" else {r for r in imports.split(", ") if r}
        rows[room] = (int(layer), named)
    return rows


def _room_imports() -> dict[str, set[str]]:
    """Rooms (stages above the shared core) each room imports, from the real import graph."""
    found: dict[str, set[str]] = defaultdict(set)
    for mod, targets in _graph().items():
        src = _stage(mod)
        for target in targets:
            dst = _stage(target)
            if dst != src and LAYERS.get(dst, 0) > 0:
                found[src].add(dst)
    return found


def test_the_documented_layout_is_the_real_one() -> None:
    table = _layout_table()
    rooms = {r for r, layer in LAYERS.items() if layer > 0}
    assert set(table) == rooms, f"docs/layout.md's rooms differ: {set(table) ^ rooms}"
    real = _room_imports()
    for room, (layer, named) in table.items():
        assert layer == LAYERS[room], f"{room}: docs say layer {layer}, the test {LAYERS[room]}"
        if named is None:
            assert LAYERS[room] == max(LAYERS.values()), "only the top room imports them all"
            continue
        assert named == real.get(room, set()), (
            f"docs/layout.md says {room} imports {sorted(named)}; "
            f"it imports {sorted(real.get(room, set()))}")


def test_the_layout_check_sees_a_wrong_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = tmp_path / "layout.md"
    doc.write_text(LAYOUT_DOC.read_text().replace("| 4 | judge |", "| 3 | judge |"))
    monkeypatch.setattr(sys.modules[__name__], "LAYOUT_DOC", doc)
    with pytest.raises(AssertionError, match="judge: docs say layer 3"):
        test_the_documented_layout_is_the_real_one()


# --- function-level imports --------------------------------------------------------------------

#: A package module imported inside a function (outside the command line, whose command
#: modules load on demand) is there to keep some start-up light: the line above it says what it
#: saves, as measured, in this form. An import that saves nothing measurable goes to the top of
#: its module.
START_UP_NOTE = re.compile(r"^\s*# start-up: saves \d+ ms \([^()]+\)$")
MAX_FUNCTION_IMPORTS = 60

#: Files being edited elsewhere in this stop, whose function-level imports (counted all the
#: same) still lack their note; each entry is deleted by the change that adds the notes.
PENDING_START_UP_NOTES: set[str] = set()


def _function_imports() -> list[tuple[str, int, bool]]:
    """(file, line, has its note) of each import of a package module inside a function."""
    found: dict[tuple[str, int], bool] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith("tambench/cli/"):
            continue
        text = path.read_text()
        lines = text.splitlines()
        for fn in ast.walk(ast.parse(text, str(path))):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if _imports_the_package(node):
                    above = lines[node.lineno - 2] if node.lineno > 1 else ""
                    found[(rel, node.lineno)] = bool(START_UP_NOTE.match(above))
    return [(rel, line, noted) for (rel, line), noted in sorted(found.items())]


def _imports_the_package(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").split(".")[0] == "tambench"
    return isinstance(node, ast.Import) and any(
        a.name.split(".")[0] == "tambench" for a in node.names)


def test_function_level_imports_are_few_and_each_says_what_start_up_it_saves() -> None:
    found = _function_imports()
    assert len(found) <= MAX_FUNCTION_IMPORTS, (
        f"{len(found)} function-level imports of package modules outside cli/ (at most "
        f"{MAX_FUNCTION_IMPORTS}): move those that save no start-up to the top of their module")
    bare = [f"{rel}:{line}" for rel, line, noted in found
            if not noted and rel not in PENDING_START_UP_NOTES]
    assert not bare, ("function-level imports without '# start-up: saves N ms (what)' on the "
                      "line above (or move them to the top of their module):\n" + "\n".join(bare))
    stale = [rel for rel in PENDING_START_UP_NOTES
             if all(noted for r, _, noted in found if r == rel)]
    assert not stale, f"every import of these has its note now; drop them from the list: {stale}"


def test_the_import_count_sees_a_bare_function_level_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "tambench"
    (fake / "cli").mkdir(parents=True)
    (fake / "splits").mkdir()
    (fake / "splits" / "layout.py").write_text(
        "def plan():\n    # start-up: saves 3 ms (the metric registry)\n"
        "    from tambench.core import metrics\n\n\n"
        "async def load():\n    from ..core.leaderboard import read\n")
    (fake / "cli" / "main.py").write_text("def main():\n    from tambench.api import grade\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", fake)
    monkeypatch.setattr(__import__(__name__, fromlist=["PENDING_START_UP_NOTES"]),
                        "PENDING_START_UP_NOTES", set())
    assert _function_imports() == [("tambench/splits/layout.py", 3, True),
                                   ("tambench/splits/layout.py", 7, False)]
    with pytest.raises(AssertionError, match="tambench/splits/layout.py:7"):
        test_function_level_imports_are_few_and_each_says_what_start_up_it_saves()
    monkeypatch.setattr(__import__(__name__, fromlist=["MAX_FUNCTION_IMPORTS"]),
                        "MAX_FUNCTION_IMPORTS", 1)
    with pytest.raises(AssertionError, match="2 function-level imports"):
        test_function_level_imports_are_few_and_each_says_what_start_up_it_saves()
