"""Calls met while following a grader (see :mod:`.pycode`): helpers are followed into,
numeric library functions become operations, conversions are transparent, and library
metrics (``sklearn.metrics.*``, ``scipy.stats.*``, ``Levenshtein.distance``) are kept by name
with their arguments."""

from __future__ import annotations

import ast

from tambench.tasks.importers.pyterms import (
    DATA,
    ELEMENTWISE,
    REDUCTIONS,
    TRANSPARENT,
    Follower,
    Term,
    constant_term,
    is_constant,
    literal,
)

#: Methods of a value that are operations on it.
METHODS = {"mean": "mean", "sum": "sum", "abs": "abs", "split": "split", "count": "sum",
           "intersection": "inter", "union": "union", "nunique": "len", "size": "len",
           "cumsum": "cumsum", "log": "log", "sqrt": "sqrt"}


def _callee(fol: Follower, func: ast.expr, env: dict[str, Term]) -> tuple[str, Term | None]:
    """(dotted name of a library or builtin function, receiver term for a method call)."""
    if isinstance(func, ast.Name):
        bound = env.get(func.id)
        if bound is not None and bound[0] == "fn":
            return "", bound
        if func.id in fol.functions:
            return "", ("fn", fol.functions[func.id])
        return fol.imports.get(func.id, func.id), None
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and func.value.id == "self":
            return "", ("method", func.attr)
        receiver = fol.expr(func.value, env)
        if receiver[0] == "name":
            return f"{receiver[1]}.{func.attr}", None
        return func.attr, receiver
    return "", None


def follow_call(fol: Follower, node: ast.Call, env: dict[str, Term]) -> Term:
    """The term of a call expression."""
    name, receiver = _callee(fol, node.func, env)
    args = [fol.expr(a, env) for a in node.args if not isinstance(a, ast.Starred)]
    kwargs = {k.arg: fol.expr(k.value, env) for k in node.keywords if k.arg}
    if receiver is not None and receiver[0] == "fn":
        return fol.call(receiver[1], args, kwargs)
    if receiver is not None and receiver[0] == "method":
        method = fol.methods.get(receiver[1])
        return fol.call(method, args, kwargs, bound=True) if method else ("?", receiver[1])
    if receiver is not None:
        return _method(fol, name, receiver, args, kwargs, node)
    return _function(fol, name, args, kwargs, node)


def _bound(term: Term | None) -> float | None:
    return float(term[1]) if term is not None and term[0] == "num" else None


def _note_clip(fol: Follower, bounds: list[Term], kwargs: dict[str, Term]) -> None:
    """Record the literal bounds of a clip (``np.clip(x, lo, hi)``, ``x.clip(lower=...)``)."""
    lo = kwargs.get("a_min", kwargs.get("lower", bounds[0] if bounds else None))
    hi = kwargs.get("a_max", kwargs.get("upper", bounds[1] if len(bounds) > 1 else None))
    fol.facts.append(("clip", _bound(lo), _bound(hi)))


def _method(fol: Follower, name: str, receiver: Term, args: list[Term],
            kwargs: dict[str, Term], node: ast.Call) -> Term:
    if name == "clip":
        _note_clip(fol, args, kwargs)
    if name in ("sort_values", "set_index", "merge", "groupby"):
        for key in [*args[:1], kwargs.get("by"), kwargs.get("on")]:
            if key is not None and key[0] == "str":
                fol.facts.append(("key", key[1]))
    if name in TRANSPARENT:
        return receiver
    if name in ("apply", "map", "transform", "agg") and args and args[0][0] == "fn":
        inner = fol.call(args[0][1], [DATA], {})
        kind = "group" if _groups(node) else "row"
        return ("each", kind, inner)
    if name in ("div", "divide", "truediv"):
        return ("div", receiver, args[0]) if args else receiver
    if name in ("sub", "subtract"):
        return ("sub", receiver, args[0]) if args else receiver
    if name in ("mul", "multiply"):
        return ("mul", receiver, args[0]) if args else receiver
    if name in METHODS:
        op = METHODS[name]
        if op in ("inter", "union"):
            return (op, receiver, args[0]) if args else receiver
        return (op, receiver)
    if name == "index" and args:
        return ("index", receiver, args[0])
    if receiver[0] == "data" and name not in ("isin", "any", "all", "isna", "isnull",
                                                "notna", "duplicated", "unique"):
        return DATA
    return ("?", f".{name}()")


def _column_map(test: ast.expr, a: Term, b: Term) -> Term | None:
    """``np.where(frame['col'] == True, 5, 1)``: ``("column_map", col, {"True": 5.0,
    "False": 1.0})``, the weights a boolean answers column stands for."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], ast.Eq) and isinstance(test.left, ast.Subscript)):
        return None
    column, key = literal(test.left.slice), literal(test.comparators[0])
    if not (isinstance(column, str) and isinstance(key, bool) and a[0] == b[0] == "num"):
        return None
    return ("column_map", column, {str(key): float(a[1]), str(not key): float(b[1])})


def _groups(node: ast.Call) -> bool:
    return "groupby" in ast.unparse(node.func)


def _function(fol: Follower, name: str, args: list[Term], kwargs: dict[str, Term],
              node: ast.Call) -> Term:
    if name == "numpy.clip":
        _note_clip(fol, args[1:], kwargs)
    if name in TRANSPARENT or name.startswith("pandas."):
        return args[0] if args else DATA
    if name in REDUCTIONS:
        return (REDUCTIONS[name], args[0]) if args else ("?", name)
    if name in ELEMENTWISE:
        return (ELEMENTWISE[name], args[0]) if args else ("?", name)
    if name == "numpy.power" and len(args) == 2:
        return ("pow", args[0], args[1])
    if name == "numpy.where" and len(args) == 3:
        a, b = args[1], args[2]
        if is_constant(a) or is_constant(b):
            fol.facts.append(("guard", args[0]))
        mapped = _column_map(node.args[0], a, b)
        if mapped is not None:
            fol.facts.append(mapped)
        return b if is_constant(a) and not is_constant(b) else a
    if name == "numpy.average" and args:
        weights = kwargs.get("weights")
        return ("wmean", args[0], weights) if weights is not None else ("mean", args[0])
    if name in ("numpy.percentile", "numpy.quantile", "numpy.median"):
        q = args[1] if len(args) > 1 else kwargs.get("q", ("num", 50.0))
        return ("pct", args[0] if args else DATA, q)
    if name in ("numpy.arange", "numpy.linspace"):
        values = [literal(a) for a in node.args]
        return ("range", *(constant_term(v) for v in values))
    if name in ("map",) and args and args[0][0] == "fn":
        return ("each", "loop", fol.call(args[0][1], [DATA] * 4, {}))
    if name in ("numpy.zeros", "numpy.ones", "numpy.zeros_like", "numpy.ones_like", "dict",
                "range", "enumerate", "zip", "print", "isinstance", "numpy.unique"):
        return ("?", name)
    return ("call", name, tuple(args), tuple(sorted(kwargs.items())))
