"""Terms: how :mod:`.pycode` describes a computed value (see its docstring), the constants
and library tables it reads calls with, and the interface of the follower that builds them.

Kept apart from the follower so that :mod:`.pycalls` (calls) and :mod:`.pycode` (statements)
share them without importing each other.
"""

from __future__ import annotations

import ast
from typing import Any, Protocol

Term = tuple[Any, ...]
DATA: Term = ("data",)
MAX_DEPTH = 5
#: Most statements one grader's reading may follow (helpers are followed at every call; the
#: real graders of MLE-Dojo need at most 120).
MAX_STEPS = 2_000
#: Most nodes a term may hold (MLE-Dojo's graders return at most 228); a larger value
#: (``x = x + x`` repeated) is not followed.
MAX_TERM_NODES = 1_000
#: Largest source read (bytes of text); a grader is a few kilobytes.
MAX_SOURCE_CHARS = 400_000

#: Calls and methods whose result is their (first) input, for reading purposes.
TRANSPARENT = frozenset({
    "astype", "values", "to_numpy", "reset_index", "sort_values", "sort_index", "copy",
    "fillna", "dropna", "tolist", "to_list", "flatten", "ravel", "squeeze", "reshape",
    "set_index", "clip", "strip", "lower", "upper", "numpy.clip", "numpy.array",
    "numpy.asarray", "float", "int", "list", "str", "tuple", "sorted", "numpy.float64",
    "numpy.maximum", "numpy.minimum", "max", "min", "numpy.nan_to_num", "replace", "item",
    "numpy.concatenate", "numpy.hstack", "numpy.vstack", "numpy.stack", "merge",
    "pandas.merge", "loc", "iloc", "infer_objects", "rename", "map", "numpy.squeeze",
    "numpy.round", "round", "numpy.float32", "get",
})
#: Calls and methods that reduce to a mean, a sum or a count.
REDUCTIONS = {"numpy.mean": "mean", "numpy.nanmean": "mean", "mean": "mean",
              "statistics.mean": "mean", "numpy.sum": "sum", "sum": "sum", "nansum": "sum",
              "numpy.nansum": "sum", "len": "len", "count_nonzero": "sum",
              "numpy.count_nonzero": "sum"}
#: Element-wise functions kept as operations.
ELEMENTWISE = {"numpy.sqrt": "sqrt", "math.sqrt": "sqrt", "numpy.abs": "abs",
               "numpy.absolute": "abs", "abs": "abs", "numpy.log": "log", "math.log": "log",
               "numpy.log1p": "log1p", "math.log1p": "log1p", "numpy.square": "sq",
               "numpy.arccos": "arccos", "math.acos": "arccos", "numpy.log2": "log2",
               "math.log2": "log2", "numpy.exp": "exp", "set": "set", "split": "split",
               "numpy.cumsum": "cumsum", "cumsum": "cumsum", "numpy.argsort": "argsort",
               "intersection": "inter", "union": "union", "numpy.logical_and": "inter",
               "numpy.logical_or": "union", "index": "index"}


def literal(node: ast.AST | None) -> Any:
    """The value of a literal expression, or None (never evaluates anything else)."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def constant_term(value: Any) -> Term:
    """The term of a Python literal."""
    if isinstance(value, bool) or value is None:
        return ("num", float(bool(value))) if isinstance(value, bool) else ("?", "None")
    if isinstance(value, int | float):
        return ("num", float(value))
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, list | tuple | set | frozenset):
        items = list(value)
        if items and all(isinstance(v, str) for v in items):
            return ("strs", tuple(items))
        if items and all(isinstance(v, int | float) and not isinstance(v, bool) for v in items):
            return ("nums", tuple(float(v) for v in items))
    return ("?", "literal")


def is_constant(term: Term) -> bool:
    return term[0] in ("num", "str", "strs", "nums") or term == ("?", "None")


class Follower(Protocol):
    """What :mod:`.pycalls` needs of the follower in :mod:`.pycode`."""

    imports: dict[str, str]
    methods: dict[str, ast.FunctionDef]
    functions: dict[str, ast.FunctionDef]
    facts: list[Term]

    def expr(self, node: ast.expr | None, env: dict[str, Term]) -> Term: ...

    def call(self, fn: ast.FunctionDef | ast.Lambda, args: list[Term], kwargs: dict[str, Term],
             *, bound: bool = False) -> Term: ...


def within(term: Term, budget: int = MAX_TERM_NODES) -> bool:
    """Whether ``term`` holds at most ``budget`` nodes (counted with an explicit stack, so a
    deep or shared term costs at most ``budget`` steps)."""
    stack: list[Any] = [term]
    while stack:
        budget -= 1
        if budget < 0:
            return False
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
    return True
