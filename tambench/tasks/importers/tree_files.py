"""Files of imported trees read as data: JSON metadata, a ``prepare.py``'s literal columns and
files, the commit a checkout is at.

Nothing here imports or runs the files: JSON goes through the bounded loader
(:mod:`tambench.core.bounded`), YAML through the safe loader with its aliases bounded
(:func:`read_yaml`), Python through :func:`ast.parse`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tambench.core.bounded import Bounds, parse_json
from tambench.errors import ImportLayoutError
from tambench.tasks.importers._common import MAX_TEXT_BYTES, read_bytes, read_text

#: Largest JSON or Python file read from a tree (a tags file is ~100 kB, a prepare.py a few).
MAX_FILE_BYTES = 5_000_000
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def read_json(path: Path) -> Any:
    """A JSON file of the tree, refused when too large or not JSON."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ImportLayoutError(f"{path} is larger than {MAX_FILE_BYTES} bytes")
    return parse_json(read_text(path), str(path), error=ImportLayoutError,
                      bounds=Bounds(max_bytes=MAX_FILE_BYTES))


#: Most values a YAML file may stand for once its aliases are expanded (a competition's
#: config.yaml has about twenty), and its deepest nesting.
MAX_YAML_VALUES = 10_000
MAX_YAML_DEPTH = 32


def read_yaml(path: Path) -> Any:
    """A YAML file of the tree, read with the safe loader within bounds: its aliases may not
    expand to more than :data:`MAX_YAML_VALUES` values nor nest deeper than
    :data:`MAX_YAML_DEPTH` levels (an alias bomb, a self-referencing anchor), checked on the
    composed nodes before any value is built. Every refusal is an ImportLayoutError naming
    the file."""
    import yaml

    loader = yaml.SafeLoader(read_text(path))
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, 0, {}, path)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ImportLayoutError(f"{path} is not valid YAML: {exc}") from exc
    except (RecursionError, MemoryError) as exc:
        raise ImportLayoutError(f"{path} is nested too deeply to be read "
                                f"({type(exc).__name__})") from None
    finally:
        loader.dispose()


def _expanded_size(node: Any, depth: int, sizes: dict[int, int], path: Path) -> int:
    """How many values ``node`` stands for with its aliases expanded (each shared node is
    counted once per use, computed once)."""
    if depth > MAX_YAML_DEPTH:
        raise ImportLayoutError(f"{path} nests more than {MAX_YAML_DEPTH} levels deep (or an "
                                "anchor refers to itself); not read")
    if id(node) in sizes:
        return sizes[id(node)]
    children = node.value if isinstance(node.value, list) else []
    size = 1
    for child in children:
        for part in child if isinstance(child, tuple) else (child,):
            size += _expanded_size(part, depth + 1, sizes, path)
            if size > MAX_YAML_VALUES:
                raise ImportLayoutError(f"{path} stands for more than {MAX_YAML_VALUES:,} "
                                        "values once its aliases are expanded (an alias "
                                        "bomb?); not read")
    sizes[id(node)] = size
    return size


def git_commit(path: Path) -> str:
    """The commit a git checkout containing ``path`` is at (read from ``.git``), or ""."""
    for folder in (path, *path.parents):
        dot = folder / ".git"
        if dot.is_file():
            text = _git_text(dot)
            if not text.startswith("gitdir:"):
                return ""
            dot = (folder / text.split(":", 1)[1].strip()).resolve()
        if dot.is_dir():
            return _head(dot)
    return ""


def _git_text(path: Path) -> str:
    """A file of a git folder, read within the importers' bounds ("" when it is no regular
    file, too large or unreadable: a FIFO placed as ``HEAD`` never blocks the import)."""
    try:
        return read_bytes(path, MAX_TEXT_BYTES).decode("utf-8", errors="replace").strip()
    except (ImportLayoutError, OSError):
        return ""


def _head(git_dir: Path) -> str:
    head = _git_text(git_dir / "HEAD")
    if _COMMIT.match(head):
        return head
    if not head.startswith("ref:"):
        return ""
    ref = head.split(":", 1)[1].strip()
    common = git_dir
    if (git_dir / "commondir").is_file():
        common = (git_dir / _git_text(git_dir / "commondir")).resolve()
    for base in (git_dir, common):
        loose = base / ref
        if loose.is_file():
            value = _git_text(loose)
            return value if _COMMIT.match(value) else ""
    packed = common / "packed-refs"
    if packed.is_file():
        for line in _git_text(packed).splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == ref and _COMMIT.match(parts[0]):
                return parts[0]
    return ""


@dataclass
class PrepareFacts:
    """What a data-preparation script shows literally."""

    sample_header: list[str] = field(default_factory=list)
    """Columns of the sample submission it writes (from a literal dict or column list)."""
    answers_columns: list[str] = field(default_factory=list)
    """Columns of the answers file it writes."""
    raw_files: list[str] = field(default_factory=list)
    """File names it reads from the raw folder (``raw / "train.csv"``)."""
    split: dict[str, Any] = field(default_factory=dict)
    """``train_test_split`` keywords given as literals (test_size, random_state)."""


def _columns_of(value: ast.expr) -> list[str]:
    """Literal column names of ``pd.DataFrame({...})``, ``DataFrame(columns=[...])`` or
    ``frame[[...]]``."""
    if isinstance(value, ast.Call):
        for kw in value.keywords:
            if kw.arg == "columns":
                return _strings(kw.value)
        if value.args and isinstance(value.args[0], ast.Dict):
            keys = value.args[0].keys
            if keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                            for k in keys):
                return [str(k.value) for k in keys]  # type: ignore[union-attr]
        if isinstance(value.func, ast.Attribute) and value.func.attr == "copy":
            return _columns_of(value.func.value)
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.List):
        return _strings(value.slice)
    return []


def _strings(node: ast.expr) -> list[str]:
    if isinstance(node, ast.List | ast.Tuple) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [str(e.value) for e in node.elts]  # type: ignore[attr-defined]
    return []


def read_prepare(source: str) -> PrepareFacts:
    """The literal facts of a ``prepare.py`` (see :class:`PrepareFacts`).

    >>> f = read_prepare('''
    ... def prepare(raw, public, private):
    ...     train = pd.read_csv(raw / "train.csv")
    ...     a, b = train_test_split(train, test_size=0.2, random_state=42)
    ...     sample_submission = pd.DataFrame({"id": b["id"], "target": 0})
    ...     answers = b[["id", "target"]].copy()
    ... ''')
    >>> f.sample_header, f.answers_columns, f.raw_files, f.split
    (['id', 'target'], ['id', 'target'], ['train.csv'], {'test_size': 0.2, 'random_state': 42})
    """
    facts = PrepareFacts()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return facts
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            name = node.targets[0].id.lower()
            columns = _columns_of(node.value)
            if columns and "sample" in name and not facts.sample_header:
                facts.sample_header = columns
            elif columns and ("answer" in name or "solution" in name) and \
                    not facts.answers_columns:
                facts.answers_columns = columns
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(
                node.left, ast.Name) and node.left.id == "raw" and isinstance(
                node.right, ast.Constant) and isinstance(node.right.value, str):
            if node.right.value not in facts.raw_files:
                facts.raw_files.append(node.right.value)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(
                node.func, "attr", "")) == "train_test_split":
            for kw in node.keywords:
                if kw.arg in ("test_size", "random_state", "train_size") and isinstance(
                        kw.value, ast.Constant) and isinstance(kw.value.value, int | float):
                    facts.split[kw.arg] = kw.value.value
    return facts
