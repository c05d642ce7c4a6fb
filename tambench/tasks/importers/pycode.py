"""Reading a grader's Python source as data: what its scoring function returns, as a term.

A peer benchmark's grader (MLE-Dojo's ``utils/metric.py``) is parsed with :mod:`ast` and
never imported or run. :func:`read_grader` finds the class that scores submissions (the one
defining ``evaluate``), reads its ``__init__`` defaults, and follows ``evaluate`` symbolically:
each local name is bound to a *term* describing how its value is computed from the data, helper
methods and functions are followed into (bounded depth), and the returned value's term is what
:mod:`.formulas` recognises as a metric.

Terms are tuples whose first item names the operation:

* ``("data",)`` a column, frame or array of the submission or the answers;
* ``("num", v)``, ``("str", s)``, ``("strs", (s, ...))``, ``("nums", (v, ...))`` constants;
* ``("sub", a, b)``, ``("add", a, b)``, ``("mul", a, b)``, ``("div", a, b)``, ``("neg", a)``,
  ``("sq", a)``, ``("sqrt", a)``, ``("pow", a, b)``, ``("abs", a)``, ``("log", a)``,
  ``("log1p", a)``, ``("eq", a, b)``, ``("ne", a, b)``, ``("ge", a, b)``, ``("inter", a, b)``,
  ``("union", a, b)``, ``("set", a)``, ``("mean", a)``, ``("sum", a)``, ``("len", a)``;
* ``("each", kind, t)`` one ``t`` per column (``kind`` "col"), row ("row"), group ("group")
  or other loop ("loop"), as built by a loop or a comprehension;
* ``("call", "module.function", (args...), (("kw", term), ...))`` a library call kept by name
  (``sklearn.metrics.roc_auc_score``), ``("item", i, t)`` the i-th value of a tuple result;
* ``("?", why)`` anything not followed.

Library calls that only convert or clean values (``astype``, ``np.clip``, ``to_numpy``,
``sort_values``...) are transparent: the term is their input's.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from tambench.tasks.importers.pycalls import follow_call
from tambench.tasks.importers.pyterms import (
    DATA,
    MAX_DEPTH,
    MAX_SOURCE_CHARS,
    MAX_STEPS,
    Term,
    constant_term,
    is_constant,
    literal,
    within,
)


@dataclass
class GraderSource:
    """What :func:`read_grader` found in a grader module."""

    returned: Term | None = None
    """Term of the value the scoring method returns (None when no scoring class was found)."""
    defaults: dict[str, Any] = field(default_factory=dict)
    """``__init__`` parameter defaults that are literals (``value``, ``higher_is_better``...)."""
    attributes: dict[str, Any] = field(default_factory=dict)
    """Literal ``self.<name>`` values set in ``__init__`` (after defaults are applied)."""
    string_lists: list[tuple[str, ...]] = field(default_factory=list)
    """Every literal list, tuple or set of strings in the module, in source order."""
    number_lists: list[tuple[float, ...]] = field(default_factory=list)
    """Every literal list or tuple of numbers in the module, in source order."""
    slices: list[int] = field(default_factory=list)
    """Every literal ``[:k]`` bound and ``k=<int>`` keyword in the module."""
    column_literals: list[str] = field(default_factory=list)
    """String literals used to index the data (``y_true['id']``, ``sort_values(by='id')``)."""
    iou_thresholds: list[float] = field(default_factory=list)
    """Literal thresholds an IoU is compared with (``iou >= 0.4``)."""
    group_columns: list[str] = field(default_factory=list)
    """Literal columns the data is grouped by (``groupby('type')``)."""
    box_sums: int = 0
    """How many ``box[0] + box[2]`` / ``box[1] + box[3]`` sums the module computes (boxes
    given as x, y, width, height)."""
    box_step: int = 0
    """The literal step of a ``range(0, len(tokens), step)`` walking a prediction string."""
    imports: dict[str, str] = field(default_factory=dict)
    facts: list[Term] = field(default_factory=list)
    """Value handling seen on the way: ``("clip", low, high)`` for each clip with literal
    bounds (None when open), ``("guard", condition)`` for each ``np.where`` that replaces
    values by a constant, ``("key", column)`` for each column rows are sorted, indexed,
    merged or grouped by, ``("column_map", column, {value: weight})`` for weights a boolean
    column stands for."""


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted name it stands for (``np`` -> ``numpy``)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _scoring_class(tree: ast.Module) -> ast.ClassDef | None:
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)
               and any(isinstance(m, ast.FunctionDef) and m.name == "evaluate" for m in n.body)]
    return classes[-1] if classes else None


def _init_facts(cls: ast.ClassDef) -> tuple[dict[str, Any], dict[str, Any]]:
    """``__init__`` literal defaults, and the literal attributes it sets."""
    init = next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"),
                None)
    if init is None:
        return {}, {}
    args = init.args.args[1:]
    defaults = dict(zip([a.arg for a in args][len(args) - len(init.args.defaults):],
                        [literal(d) for d in init.args.defaults], strict=True))
    defaults.update({a.arg: literal(d) for a, d in zip(init.args.kwonlyargs,
                                                         init.args.kw_defaults, strict=True)})
    attrs: dict[str, Any] = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                    and target.value.id == "self":
                if isinstance(node.value, ast.Name) and node.value.id in defaults:
                    value = defaults[node.value.id]
                else:
                    value = literal(node.value)
                # The first literal assigned wins over a later None; a literal beats a name.
                if value is not None or target.attr not in attrs:
                    attrs[target.attr] = value if value is not None else attrs.get(target.attr)
    return defaults, attrs


def _module_literals(tree: ast.Module, out: GraderSource) -> None:
    """Literal string and number lists, ``[:k]`` bounds and column names used as indexes."""
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple | ast.Set) and node.elts:
            value = literal(node)
            if isinstance(value, list | tuple | set) and all(isinstance(v, str) for v in value):
                out.string_lists.append(tuple(str(v) for v in value))
            elif isinstance(value, list | tuple) and all(
                    isinstance(v, int | float) and not isinstance(v, bool) for v in value):
                out.number_lists.append(tuple(float(v) for v in value))
        elif isinstance(node, ast.Slice) and node.lower is None and isinstance(
                node.upper, ast.Constant) and isinstance(node.upper.value, int):
            out.slices.append(int(node.upper.value))
        elif isinstance(node, ast.keyword) and node.arg == "k" and isinstance(
                node.value, ast.Constant) and isinstance(node.value.value, int):
            out.slices.append(int(node.value.value))
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
                isinstance(node.slice.value, str) and isinstance(node.value, ast.Name):
            out.column_literals.append(node.slice.value)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and \
                _index(node.left) is not None and \
                (_index(node.left), _index(node.right)) in ((0, 2), (1, 3)):
            out.box_sums += 1
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "groupby" and \
                node.args and isinstance(literal(node.args[0]), str):
            out.group_columns.append(str(literal(node.args[0])))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "range" and \
                len(node.args) == 3 and isinstance(literal(node.args[2]), int):
            out.box_step = out.box_step or int(literal(node.args[2]))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(
                node.ops[0], ast.GtE | ast.Gt) and "iou" in ast.unparse(node.left).lower():
            bound = literal(node.comparators[0])
            if isinstance(bound, float) and 0.0 < bound < 1.0:
                out.iou_thresholds.append(bound)
        elif isinstance(node, ast.keyword) and node.arg in ("by", "on", "subset") and \
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.column_literals.append(node.value.value)


def _index(node: ast.expr) -> int | None:
    """``k`` of ``name[k]`` with a literal integer ``k``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
            isinstance(node.slice.value, int) and not isinstance(node.slice.value, bool):
        return int(node.slice.value)
    return None


def read_grader(source: str) -> GraderSource:
    """Parse a grader module and follow its scoring method (see the module docstring).

    >>> g = read_grader('''
    ... import numpy as np
    ... class M(Base):
    ...     def __init__(self, value: str = "y", higher_is_better: bool = False):
    ...         self.value = value
    ...     def evaluate(self, y_true, y_pred):
    ...         d = y_true[self.value] - y_pred[self.value]
    ...         return np.sqrt(np.mean(d ** 2))
    ... ''')
    >>> g.returned, g.defaults["value"], g.defaults["higher_is_better"]
    (('sqrt', ('mean', ('sq', ('sub', ('data',), ('data',))))), 'y', False)
    """
    if len(source) > MAX_SOURCE_CHARS:
        return GraderSource()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return GraderSource()
    out = GraderSource(imports=_imports(tree))
    _module_literals(tree, out)
    cls = _scoring_class(tree)
    if cls is None:
        return out
    out.defaults, out.attributes = _init_facts(cls)
    attrs = {**{k: v for k, v in out.defaults.items()}, **out.attributes}
    methods = {m.name: m for m in cls.body if isinstance(m, ast.FunctionDef)}
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    follower = _Follower(out.imports, methods, functions, attrs)
    try:
        out.returned = follower.call(methods["evaluate"], [DATA, DATA], {}, bound=True)
    except RecursionError:
        out.returned = ("?", "too deep")
    out.facts = follower.facts
    return out


class _Follower:
    """Follows a function body statement by statement, binding names to terms."""

    def __init__(self, imports: dict[str, str], methods: dict[str, ast.FunctionDef],
                 functions: dict[str, ast.FunctionDef], attrs: dict[str, Any]) -> None:
        self.imports = imports
        self.methods = methods
        self.functions = functions
        self.attrs = attrs
        self.depth = 0
        self.steps = 0
        self.facts: list[Term] = []

    # -- functions ---------------------------------------------------------------------
    def call(self, fn: ast.FunctionDef | ast.Lambda, args: list[Term], kwargs: dict[str, Term],
             *, bound: bool = False) -> Term:
        """The term a call of ``fn`` returns, its parameters bound to ``args``/``kwargs``."""
        if self.depth >= MAX_DEPTH:
            return ("?", "call depth")
        params = fn.args.args[1:] if bound else fn.args.args
        defaults = fn.args.defaults
        env: dict[str, Term] = {}
        first_default = len(params) - len(defaults)
        for i, p in enumerate(params):
            if i < len(args):
                env[p.arg] = args[i]
            elif p.arg in kwargs:
                env[p.arg] = kwargs[p.arg]
            elif i >= first_default:
                env[p.arg] = constant_term(literal(defaults[i - first_default]))
            else:
                env[p.arg] = DATA
        self.depth += 1
        try:
            if isinstance(fn, ast.Lambda):
                return self.expr(fn.body, env)
            returns = self.block(fn.body, env, loop=None)
        finally:
            self.depth -= 1
        return _main_return(returns)

    # -- statements --------------------------------------------------------------------
    def block(self, body: list[ast.stmt], env: dict[str, Term], loop: str | None) -> list[Term]:
        returns: list[Term] = []
        for stmt in body:
            returns += self.statement(stmt, env, loop)
        return returns

    def statement(self, stmt: ast.stmt, env: dict[str, Term], loop: str | None) -> list[Term]:
        self.steps += 1
        if self.steps > MAX_STEPS:
            return [("?", "too many statements")]
        if isinstance(stmt, ast.Return):
            return [self.expr(stmt.value, env) if stmt.value is not None else ("?", "None")]
        if isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, env)
            for target in stmt.targets:
                self.assign(target, value, env, loop)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, self.expr(stmt.value, env), env, loop)
        elif isinstance(stmt, ast.AugAssign):
            self.augment(stmt, env, loop)
        elif isinstance(stmt, ast.Expr):
            self.side_effect(stmt.value, env, loop)
        elif isinstance(stmt, ast.For):
            kind = self.loop_kind(stmt.iter, env)
            self.assign(stmt.target, DATA, env, None)
            return self.block(stmt.body, env, kind if loop is None else _nested(loop, kind))
        elif isinstance(stmt, ast.While):
            return self.block(stmt.body, env, loop or "loop")
        elif isinstance(stmt, ast.If):
            self.note_empty_return(stmt)
            return self.branches(stmt, env, loop)
        elif isinstance(stmt, ast.Try):
            return self.block(stmt.body + stmt.orelse + stmt.finalbody, env, loop)
        elif isinstance(stmt, ast.With):
            return self.block(stmt.body, env, loop)
        elif isinstance(stmt, ast.FunctionDef):
            env[stmt.name] = ("fn", stmt)
        return []

    def branches(self, stmt: ast.If, env: dict[str, Term], loop: str | None) -> list[Term]:
        """Both branches are followed; a name bound to a constant in one branch and to a
        computed value in the other keeps the computed one (guards such as ``if denominator
        == 0: score = 0.0`` are not the formula)."""
        first, second = dict(env), dict(env)
        returns = self.block(stmt.body, first, loop) + self.block(stmt.orelse, second, loop)
        condition = self.expr(stmt.test, env)
        for name in set(first) | set(second):
            a, b = first.get(name), second.get(name)
            if a is None or (b is not None and is_constant(a) and not is_constant(b)):
                env[name] = b  # type: ignore[assignment]
            else:
                env[name] = _indicator(a, b, condition)
        return returns

    def note_empty_return(self, stmt: ast.If) -> None:
        """``if len(x) == 0: return 0.0`` (or ``if not x:``) in a helper: what a row with
        nothing on one side scores, recorded as ``("empty_return", value, "x")``."""
        test, body = stmt.test, stmt.body
        if not (len(body) == 1 and isinstance(body[0], ast.Return)):
            return
        value = literal(body[0].value)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return
        name = None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            name = ast.unparse(test.operand)
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
                test.ops[0], ast.Eq) and literal(test.comparators[0]) == 0 and isinstance(
                test.left, ast.Call) and getattr(test.left.func, "id", "") == "len":
            name = ast.unparse(test.left.args[0]) if test.left.args else None
        if name is not None:
            self.facts.append(("empty_return", float(value), name))

    def assign(self, target: ast.expr, value: Term, env: dict[str, Term],
               loop: str | None) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            for i, t in enumerate(target.elts):
                part = value[1][i] if value[0] == "tuple" and i < len(value[1]) else (
                    "item", i, value)
                self.assign(t, part, env, loop)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            name = target.value.id
            if loop is not None:
                env[name] = ("each", loop, value)
            elif env.get(name, DATA)[0] not in ("data",):
                env[name] = value

    def augment(self, stmt: ast.AugAssign, env: dict[str, Term], loop: str | None) -> None:
        if not isinstance(stmt.target, ast.Name):
            return
        value = self.expr(stmt.value, env)
        name = stmt.target.id
        old = env.get(name, ("num", 0.0))
        if isinstance(stmt.op, ast.Add | ast.Sub) and loop is not None:
            acc: Term = ("sum", ("each", loop, value))
            env[name] = acc if isinstance(stmt.op, ast.Add) else ("neg", acc)
            return
        op = _BINOPS.get(type(stmt.op))
        env[name] = _simplify((op, old, value)) if op else ("?", "augmented")

    def side_effect(self, node: ast.expr, env: dict[str, Term], loop: str | None) -> None:
        """``lst.append(x)`` in a loop makes ``lst`` one ``x`` per iteration."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)):
            return
        name, method = node.func.value.id, node.func.attr
        if method in ("append", "add") and node.args:
            env[name] = ("each", loop or "loop", self.expr(node.args[0], env))
        elif method == "extend" and node.args:
            env[name] = ("each", loop or "loop", self.expr(node.args[0], env))

    def loop_kind(self, node: ast.expr, env: dict[str, Term]) -> str:
        """What a ``for`` iterates over: columns, rows, groups, or something else."""
        text = ast.unparse(node)
        term = self.expr(node, env)
        if term[0] in ("strs", "cols") or "columns" in text or "classes" in text:
            return "col"
        if "groupby" in text:
            return "group"
        if term[0] == "nums" or "threshold" in text:
            return "param"
        if any(s in text for s in ("iterrows", "itertuples", "range(len(", "zip(", "range(n")):
            return "row"
        return "row" if term == DATA else "loop"

    # -- expressions -------------------------------------------------------------------
    def expr(self, node: ast.expr | None, env: dict[str, Term]) -> Term:
        if node is None:
            return ("?", "None")
        handler = getattr(self, f"_e_{type(node).__name__}", None)
        if handler is None:
            return ("?", type(node).__name__)
        term = _simplify(handler(node, env))
        return term if within(term) else ("?", "too large")

    def _e_Constant(self, node: ast.Constant, env: dict[str, Term]) -> Term:
        return constant_term(node.value)

    def _e_Name(self, node: ast.Name, env: dict[str, Term]) -> Term:
        if node.id in env:
            return env[node.id]
        if node.id in self.functions:
            return ("fn", self.functions[node.id])
        if node.id in self.imports:
            return ("name", self.imports[node.id])
        return ("name", node.id)

    def _e_Attribute(self, node: ast.Attribute, env: dict[str, Term]) -> Term:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            if node.attr in self.attrs:
                return constant_term(self.attrs[node.attr])
            if node.attr in self.methods:
                return ("method", node.attr)
            return ("?", f"self.{node.attr}")
        base = self.expr(node.value, env)
        if base[0] == "name":
            return ("name", f"{base[1]}.{node.attr}")
        if node.attr == "columns" and base[0] in ("data", "cols"):
            return ("cols",)
        if node.attr in ("values", "T", "shape", "index", "correlation", "statistic", "str",
                         "dt"):
            return base
        return ("attr", node.attr, base)

    def _e_Subscript(self, node: ast.Subscript, env: dict[str, Term]) -> Term:
        base = self.expr(node.value, env)
        if base[0] == "cols":
            return base if isinstance(node.slice, ast.Slice) else ("str", "<column>")
        if base[0] in ("data", "?"):
            return DATA
        index = literal(node.slice)
        if isinstance(index, int) and base[0] == "tuple" and index < len(base[1]):
            return base[1][index]
        if isinstance(index, int) and base[0] in ("call", "item"):
            return ("item", index, base)
        return base

    def _e_BinOp(self, node: ast.BinOp, env: dict[str, Term]) -> Term:
        op = _BINOPS.get(type(node.op))
        if op is None:
            return ("?", type(node.op).__name__)
        return (op, self.expr(node.left, env), self.expr(node.right, env))

    def _e_UnaryOp(self, node: ast.UnaryOp, env: dict[str, Term]) -> Term:
        inner = self.expr(node.operand, env)
        if isinstance(node.op, ast.USub):
            return ("num", -inner[1]) if inner[0] == "num" else ("neg", inner)
        return inner if isinstance(node.op, ast.UAdd) else ("?", "unary")

    def _e_Compare(self, node: ast.Compare, env: dict[str, Term]) -> Term:
        if len(node.ops) != 1:
            return ("?", "chained comparison")
        op = {ast.Eq: "eq", ast.NotEq: "ne", ast.GtE: "ge", ast.Gt: "gt", ast.Lt: "lt",
              ast.LtE: "le", ast.In: "in"}.get(type(node.ops[0]), "cmp")
        return (op, self.expr(node.left, env), self.expr(node.comparators[0], env))

    def _e_IfExp(self, node: ast.IfExp, env: dict[str, Term]) -> Term:
        body, other = self.expr(node.body, env), self.expr(node.orelse, env)
        return other if is_constant(body) and not is_constant(other) else body

    def _e_Tuple(self, node: ast.Tuple, env: dict[str, Term]) -> Term:
        value = literal(node)
        if value is not None:
            return constant_term(value)
        return ("tuple", tuple(self.expr(e, env) for e in node.elts))

    _e_List = _e_Tuple
    _e_Set = _e_Tuple

    def _e_ListComp(self, node: ast.ListComp | ast.GeneratorExp, env: dict[str, Term]) -> Term:
        inner = dict(env)
        kind = "loop"
        for gen in node.generators:
            kind = self.loop_kind(gen.iter, inner)
            self.assign(gen.target, DATA, inner, None)
        return ("each", kind, self.expr(node.elt, inner))

    _e_GeneratorExp = _e_ListComp
    _e_SetComp = _e_ListComp

    def _e_Lambda(self, node: ast.Lambda, env: dict[str, Term]) -> Term:
        return ("fn", node)

    def _e_Call(self, node: ast.Call, env: dict[str, Term]) -> Term:
        return follow_call(self, node, env)


_BINOPS = {ast.Sub: "sub", ast.Add: "add", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow",
           ast.BitAnd: "inter", ast.BitOr: "union", ast.FloorDiv: "div", ast.Mod: "mod"}


def _indicator(a: Term, b: Term | None, condition: Term) -> Term:
    """``if cond: x = 1 else: x = 0`` (or appending 1 and 0) binds ``x`` to the condition."""
    if b is None or a == b:
        return a
    if a[0] == "num" and b[0] == "num":
        return ("ind", condition)
    if a[0] == b[0] == "each" and a[1] == b[1] and a[2][0] == b[2][0] == "num":
        return ("each", a[1], ("ind", condition))
    return a


def _nested(outer: str, inner: str) -> str:
    return outer if inner in ("loop", "param") else inner


def _main_return(returns: list[Term]) -> Term:
    """The value a function computes: its last return that is not a constant guard."""
    computed = [r for r in returns if not is_constant(r)]
    if computed:
        return computed[-1]
    return returns[-1] if returns else ("?", "no return")


def _simplify(term: Term) -> Term:
    """Normal forms: ``x ** 2`` is ``sq``, ``x ** 0.5`` is ``sqrt``, ``log(x + 1)`` is
    ``log1p``, ``sum(x) / len(x)`` is ``mean``."""
    head = term[0]
    if head == "pow" and term[2][0] == "num":
        if term[2][1] == 2.0:
            return ("sq", term[1])
        if term[2][1] == 0.5:
            return ("sqrt", term[1])
    if head == "log" and term[1][0] == "add":
        a, b = term[1][1], term[1][2]
        if b == ("num", 1.0):
            return ("log1p", a)
        if a == ("num", 1.0):
            return ("log1p", b)
    if head == "div" and term[1][0] == "sum" and term[2][0] == "len":
        return ("mean", term[1][1])
    if head in _FOLD and len(term) == 3 and term[1][0] == term[2][0] == "num":
        try:
            return ("num", _FOLD[head](term[1][1], term[2][1]))
        except ZeroDivisionError:
            return ("?", "division by zero")
    return term


_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "div": lambda a, b: a / b}
