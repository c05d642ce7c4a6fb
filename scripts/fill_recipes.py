"""Prepare recipes: which raw files, which split, which answers columns (helper of
fill_catalogue).

A recipe is the entry's ``split`` (a split spec of ``tambench.schema.splitspec``): the table to
split (``train_file``), the strategy and its settings, the id and answers columns, and the
per-row files that follow their rows. It starts from the importer's suggestion (id and target
columns from the grading) and takes what the peers' preparer (MLE-bench's ``prepare.py``, also in
dslighting's registry, else MLE-Dojo's ``utils/prepare.py``) shows, read with :mod:`ast` and
never run:

* the table the preparer splits: the ``raw / "<file>.csv"`` read into the frame passed to
  ``train_test_split``;
* ``test_size`` of that call, and its ``stratify=frame["column"]``;
* per-row files copied one by one (``shutil.copy``) from ``raw / "<folder>" / <name>`` inside
  a loop over ``frame["column"]`` (the pattern ``<folder>/{column}``).

A preparer that splits otherwise (by groups, by time, a held-out file) gives no settings; the
recipe then keeps the suggestion and says so. Every recipe is recorded with its sources.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fill_sources import Sources

from tambench.errors import TaskSpecError
from tambench.schema.taskspec import FactSource, SplitSpec, make_split_spec
from tambench.tasks.importers import ImportedTask

#: Each peer's preparer, in the order they are read (the same ``prepare(raw, public, private)``
#: layout in all three).
PREPARERS = {"mle-bench": "prepare.py", "dslighting": "prepare.py", "mle-dojo": "utils/prepare.py"}


@dataclass
class PreparerFacts:
    """What a preparer shows about its split."""

    tables: dict[str, str] = field(default_factory=dict)
    """Frame variable -> the raw CSV it was read from."""
    split_of: str = ""
    """The frame passed to train_test_split."""
    test_size: float | None = None
    stratify: str = ""
    files: str = ""
    """``<folder>/{column}`` of per-row files copied from the raw folder."""
    other_splitters: list[str] = field(default_factory=list)


def _raw_path(node: ast.AST) -> list[ast.AST] | None:
    """The parts after ``raw`` in ``raw / a / b`` (None when the chain does not start at raw)."""
    parts: list[ast.AST] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        parts.insert(0, node.right)
        node = node.left
    return parts if isinstance(node, ast.Name) and node.id == "raw" and parts else None


def _const(node: ast.AST) -> Any:
    return node.value if isinstance(node, ast.Constant) else None


def _column_of(node: ast.AST) -> str:
    """``frame["column"]`` (or ``tqdm(frame["column"], ...)``) -> column."""
    if isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    if isinstance(node, ast.Subscript) and isinstance(_const(node.slice), str):
        return str(_const(node.slice))
    return ""


def _visit_assign(node: ast.Assign, facts: PreparerFacts) -> None:
    value = node.value
    if isinstance(value, ast.Call) and value.args and len(node.targets) == 1 and \
            isinstance(node.targets[0], ast.Name):
        parts = _raw_path(value.args[0])
        if parts and len(parts) == 1 and isinstance(_const(parts[0]), str) and \
                str(_const(parts[0])).endswith(".csv"):
            facts.tables[node.targets[0].id] = str(_const(parts[0]))


def _visit_call(node: ast.Call, facts: PreparerFacts) -> None:
    name = node.func.attr if isinstance(node.func, ast.Attribute) else \
        node.func.id if isinstance(node.func, ast.Name) else ""
    if name == "train_test_split":
        if node.args and isinstance(node.args[0], ast.Name):
            facts.split_of = node.args[0].id
        for kw in node.keywords:
            if kw.arg == "test_size" and isinstance(_const(kw.value), float):
                facts.test_size = float(_const(kw.value))
            elif kw.arg == "stratify":
                facts.stratify = _column_of(kw.value)
    elif name in {"GroupShuffleSplit", "GroupKFold", "StratifiedGroupKFold", "KFold",
                  "StratifiedKFold", "TimeSeriesSplit"}:
        facts.other_splitters.append(name)


_FILE_COPIES = {"copy", "copyfile", "copy2"}


def _visit_for(node: ast.For, facts: PreparerFacts) -> None:
    """A loop over ``frame["column"]`` copying ``raw / "<folder>" / <name>`` file by file (a
    folder copied whole, ``copytree``, is not a per-row file)."""
    column = _column_of(node.iter)
    if not column or not isinstance(node.target, ast.Name):
        return
    var = node.target.id
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        name = call.func.attr if isinstance(call.func, ast.Attribute) else \
            call.func.id if isinstance(call.func, ast.Name) else ""
        src = call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == "src"), None)
        parts = _raw_path(src) if name in _FILE_COPIES and src is not None else None
        if parts and len(parts) == 2 and isinstance(_const(parts[0]), str) and \
                isinstance(parts[1], ast.Name) and parts[1].id == var:
            facts.files = f"{_const(parts[0])}/{{{column}}}"
            return


def read_preparer(text: str) -> PreparerFacts:
    """The split facts of a preparer's source (parsed, never run)."""
    facts = PreparerFacts()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Assign):
            _visit_assign(node, facts)
        elif isinstance(node, ast.Call):
            _visit_call(node, facts)
        elif isinstance(node, ast.For):
            _visit_for(node, facts)
    return facts


def _preparer(slug: str, sources: Sources) -> tuple[str, Path] | None:
    for peer, name in PREPARERS.items():
        folder = sources.folder(peer, slug)
        if folder is not None and (folder / name).is_file() and \
                "def prepare" in (folder / name).read_text(encoding="utf-8", errors="replace"):
            return peer, folder / name
    return None


def _recipe(base: SplitSpec, facts: PreparerFacts) -> tuple[dict[str, Any], str]:
    """The split fields the preparer settles, and a sentence of what it shows."""
    if facts.other_splitters or facts.split_of not in facts.tables:
        why = (f"it splits with {', '.join(sorted(set(facts.other_splitters)))}"
               if facts.other_splitters else "it makes no train_test_split of a raw CSV")
        return {}, why
    fields: dict[str, Any] = {"train_file": facts.tables[facts.split_of]}
    if facts.test_size is not None:
        fields["test_size"] = facts.test_size
    if facts.stratify:
        fields.update(strategy="stratified", stratify_column=facts.stratify)
    else:
        fields["strategy"] = "random"
    if facts.files:
        fields["files"] = {"pattern": facts.files}
    said = ", ".join(f"{k} {v}" for k, v in fields.items())
    return fields, said


def recipe_for(chosen: ImportedTask, slug: str, sources: Sources
               ) -> tuple[SplitSpec | None, dict[str, list[FactSource]], list[str]]:
    """The entry's recipe, its sources, and notes (see the module docstring)."""
    base = chosen.spec.split
    if base is None:
        return None, {}, ["split: no recipe: the grading gives no id and target columns to "
                          "split by rows"]
    found = _preparer(slug, sources)
    dumped = base.model_dump(exclude_defaults=True) | {"strategy": base.strategy}
    if found is None:
        return base, {"split": [FactSource(source="tambench", value=base.strategy,
                                           detail="suggested from the grading spec")]}, [
            "split: suggested from the grading spec (no preparer read); review it"]
    peer, path = found
    try:
        fields, said = _recipe(base, read_preparer(path.read_text(encoding="utf-8")))
    except SyntaxError:
        fields, said = {}, "its preparer does not parse"
    settings = {k: v for k, v in dumped.items() if k not in {"strategy", "stratify_column",
                                                              "test_size"} or not fields}
    try:
        spec = make_split_spec(**(settings | fields)) if fields else base
    except (ValueError, TaskSpecError) as exc:
        spec, said = base, f"its settings do not make a split spec: {exc}"
    cite = sources.cite(peer, path, value=spec.strategy,
                        detail=f"read with ast, not run: {said}" if fields else
                        f"read with ast, not run: {said}; the split is the suggestion")
    note = [] if fields else [f"split: suggested from the grading spec; the preparer gives no "
                              f"settings ({said}); review it"]
    return spec, {"split": [cite]}, note
