"""Completing an elided submission header from a class list shipped beside the description.

Pages of competitions with many classes show the header with its middle left out
(``id,affenpinscher,afghan_hound,..,yorkshire_terrier``), so the exact header cannot come from
the page. Some benchmark layouts keep the full class list in a Python file of the
competition's folder (MLE-bench's ``dogs.py``, ``classes.py``). The file is read as data: its
module-level string constants are parsed with :mod:`ast`, never imported or run.

A list completes a header only when it agrees with every column the page does show: the
columns before the elision are one or more id columns followed by the list's first names, in
order, and the columns after it are the list's last names. Anything else (no elided header, no
list, two lists that both fit) completes nothing.

>>> complete_header(["id,b_class,c_class,...,e_class"],
...                 {"names.py": "NAMES = ['b_class', 'c_class', 'd_class', 'e_class']"})
ClassListHeader(id_columns=['id'], classes=['b_class', 'c_class', 'd_class', 'e_class'], source='names.py')
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tambench.errors import ImportLayoutError
from tambench.schema.mapping.headers import elided_header_parts

#: Fewest names a constant must hold to count as a class list.
MIN_CLASSES = 3


@dataclass(frozen=True)
class ClassListHeader:
    """A header completed from a class list."""

    id_columns: list[str]
    classes: list[str]
    source: str
    """The file the class list came from."""

    @property
    def header(self) -> list[str]:
        return [*self.id_columns, *self.classes]


def string_lists(source: str) -> list[list[str]]:
    """Every module-level constant of ``source`` that is a list or tuple of strings, or a
    string of one name per line (at least :data:`MIN_CLASSES` unique names each).

    >>> string_lists('A = ("x", "y", "z")\\nB = "u\\\\nv\\\\nw"\\nC = [1, 2, 3]')
    [['x', 'y', 'z'], ['u', 'v', 'w']]
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        names = _names(node.value)
        if names is not None and len(names) >= MIN_CLASSES and len(set(names)) == len(names):
            found.append(names)
    return found


def _lists_of(name: str, source: str) -> list[list[str]]:
    """:func:`string_lists` of one file, a file too deeply nested for the parser (a
    500,000-term expression) refused by name."""
    try:
        return string_lists(source)
    except (RecursionError, MemoryError) as exc:
        raise ImportLayoutError(f"{name} is nested too deeply to be parsed "
                                f"({type(exc).__name__}); not read") from None


def _names(value: ast.expr) -> list[str] | None:
    if isinstance(value, ast.List | ast.Tuple):
        items = [e.value for e in value.elts if isinstance(e, ast.Constant)]
        if len(items) == len(value.elts) and all(isinstance(i, str) for i in items):
            return [str(i).strip() for i in items]
        return None
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        lines = [ln.strip() for ln in value.value.splitlines() if ln.strip()]
        if all(re.fullmatch(r"\S+", ln) for ln in lines):
            return lines
    return None


def _fit(before: list[str], after: list[str], classes: list[str]) -> list[str] | None:
    """The id columns when ``classes`` continues the visible columns, else None."""
    if after and classes[-len(after):] != after:
        return None
    for k in range(1, len(before)):
        shown = before[k:]
        if classes[:len(shown)] == shown and not set(before[:k]) & set(classes):
            return before[:k]
    return None


def complete_header(lines: Iterable[str], files: Mapping[str, str]) -> ClassListHeader | None:
    """The header an elided line in ``lines`` stands for, completed from one of ``files``
    (name -> Python source); None unless exactly one class list fits."""
    lists = [(name, names) for name, text in sorted(files.items())
             for names in _lists_of(name, text)]
    fits: dict[tuple[str, ...], ClassListHeader] = {}
    for line in lines:
        parts = elided_header_parts(line)
        if parts is None:
            continue
        for name, classes in lists:
            ids = _fit(parts[0], parts[1], classes)
            if ids is not None:
                key = (*ids, "", *classes)
                fits.setdefault(key, ClassListHeader(ids, classes, name))
    return next(iter(fits.values())) if len(fits) == 1 else None
