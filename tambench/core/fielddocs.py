"""Attribute docstrings of pydantic models as field descriptions, read when a schema is made.

Our models document each field with a docstring under it::

    class GradeFields(BaseModel):
        model_config = DOCUMENTED

        score: float | None = None
        \"\"\"The metric's value; null when the submission is missing or invalid.\"\"\"

pydantic's own ``use_attribute_docstrings`` reads them when the class is created, through
``inspect`` (which scans every loaded module and tokenizes the file per class): about 40 ms of
every ``tambench grade``, spent on text only a JSON schema shows. Here the docstrings are read
when something asks for them: ``model_json_schema()`` (through the ``json_schema_extra``
hook in :data:`DOCUMENTED`) or :func:`field_doc`. Each source file is parsed once, with
:mod:`ast`, no ``inspect``.

The schema holds what pydantic's option would put there: a field's description is the
docstring written under it in the class that declares it last (a subclass that redeclares a
field without a docstring leaves it undescribed); an explicit ``Field(description=...)`` wins;
a description that only repeats the docstring of the model a field refers to is left out.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ConfigDict


@cache
def _module_tree(module_name: str) -> ast.Module | None:
    """The parsed source of a loaded module; None when it has no source file."""
    module = sys.modules.get(module_name)
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return None
    return ast.parse(Path(path).read_text(encoding="utf-8"), path)


def _class_node(tree: ast.Module, qualname: str) -> ast.ClassDef | None:
    """The definition of ``qualname`` (``Outer.Inner`` for a nested class); the last one
    wins when a name is defined twice, as it does at run time."""
    body: list[ast.stmt] = tree.body
    node: ast.ClassDef | None = None
    for part in qualname.split("."):
        found = [n for n in body if isinstance(n, ast.ClassDef) and n.name == part]
        if not found:
            return None
        node = found[-1]
        body = node.body
    return node


def _docs_in(node: ast.ClassDef) -> dict[str, str]:
    """``name -> docstring`` of the annotated attributes directly in a class body."""
    docs: dict[str, str] = {}
    for stmt, nxt in zip(node.body, node.body[1:], strict=False):
        if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)):
            docs[stmt.target.id] = inspect.cleandoc(nxt.value.value)
    return docs


@cache
def class_attribute_docs(cls: type) -> dict[str, str]:
    """The attribute docstrings written in ``cls``'s own body (not its bases')."""
    if "<locals>" in cls.__qualname__:
        return {}
    tree = _module_tree(cls.__module__)
    node = None if tree is None else _class_node(tree, cls.__qualname__)
    return {} if node is None else _docs_in(node)


def _declaring_class(cls: type, name: str) -> type | None:
    """The class of ``cls``'s MRO that declares the field ``name`` last."""
    for klass in cls.__mro__:
        if name in klass.__dict__.get("__annotations__", {}):
            return klass
    return None


def field_doc(model: type, name: str) -> str | None:
    """A field's description: ``Field(description=...)``, else its attribute docstring."""
    info = getattr(model, "model_fields", {}).get(name)
    if info is not None and info.description is not None:
        return str(info.description)
    owner = _declaring_class(model, name)
    return None if owner is None else class_attribute_docs(owner).get(name)


def add_field_docs(schema: dict[str, Any], model: type) -> None:
    """``json_schema_extra`` hook: describe each property by its attribute docstring."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, info in getattr(model, "model_fields", {}).items():
        prop = properties.get(info.alias or name)
        if not isinstance(prop, dict) or "description" in prop:
            continue
        doc = field_doc(model, name)
        if doc and not _repeats_referenced_doc(prop, info.annotation, doc):
            prop["description"] = doc


def _repeats_referenced_doc(prop: dict[str, Any], annotation: Any, doc: str) -> bool:
    """Whether a ``$ref`` property's description would only repeat the referenced model's
    docstring (pydantic drops such a redundant key; so do we)."""
    class_doc = getattr(annotation, "__doc__", None) if isinstance(annotation, type) else None
    return "$ref" in prop and class_doc is not None and inspect.cleandoc(class_doc) == doc


#: The configuration of our documented models: unknown fields refused, attribute docstrings
#: as the JSON schema's descriptions.
DOCUMENTED = ConfigDict(extra="forbid", json_schema_extra=add_field_docs)
