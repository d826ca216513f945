"""Drift between a document model and its JSON Schema: the one walker every drift test uses.

``model_schema_drift(cls, kind, pointer)`` walks an attrs model (declared with
``_converter``'s field helpers) and the schema object at ``pointer`` in the schema of ``kind``
together, following ``$ref`` through aau-schemas' registry (a relative reference is joined to the
``$id`` of the file it appears in), and reports every difference:

- an object with ``properties`` (those of its ``$ref`` chain merged): the model's
  ``document_keys`` must equal the properties, with no key twice; the keys that are not
  ``optional_field``s must equal ``required``; the model has an ``open_extra()`` field exactly
  when the object admits unknown keys (no ``additionalProperties: false`` on the chain);
- an object pinned by ``const``: the model's keys must be the constant's keys, and the model's
  defaults must unstructure to exactly the constant;
- a field typed with another model (directly, ``| None``, ``list[...]``, ``tuple[..., ...]`` or
  ``dict[str, ...]``): the walk goes on into that property's schema (the object branch of a
  ``oneOf``/``anyOf``/``allOf`` or the ``then`` of a conditional, ``items``,
  ``additionalProperties``).

Private to the monorepo: the packages' drift tests import it from here.
"""

from __future__ import annotations

import types
import typing
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin

import attrs

from ._converter import (
    JSON_KEY,
    document_converter,
    document_keys,
    extra_field,
    json_fields,
    optional_keys,
)

if TYPE_CHECKING:
    import cattrs

_Node = tuple[dict[str, Any], str]  # a schema node and the $id its references resolve against


def model_schema_drift(cls: type, kind: str, pointer: str = "", *,
                       converter: cattrs.Converter | None = None) -> list[str]:
    """Every difference between model ``cls`` and a schema object of aau-schemas kind ``kind``.

    Args:
        cls: a document model (an attrs class).
        kind: its schema kind (``"human-baseline-study"``).
        pointer: the JSON pointer of the object in that schema (``""``: the root;
            ``"/$defs/result"``).
        converter: the package's converter, to unstructure the defaults of ``const`` blocks
            (default aau-core's ``document_converter()``).

    Returns:
        ``"<Class> at <schema path>: <difference>"`` lines (path ``#`` + pointer + the properties
        walked); empty when the model and the schema agree.

    Raises:
        aau_schemas.UnknownKindError: ``kind`` is not a schema kind.
        KeyError: ``pointer`` names no node of the schema.
    """
    import aau_schemas

    root = aau_schemas.schema(kind)
    node, base = _resolve(_pointer(root, pointer), root["$id"])
    return _walk(cls, (node, base), f"#{pointer}", converter or document_converter())


def _pointer(doc: Any, pointer: str) -> Any:
    for part in (p for p in pointer.split("/") if p):
        doc = doc[part.replace("~1", "/").replace("~0", "~")]
    return doc


def _resolve(node: dict[str, Any], base: str) -> _Node:
    import aau_schemas

    while "$ref" in node and "properties" not in node:  # a $ref beside properties: _chain
        target, fragment = urldefrag(urljoin(base, node["$ref"]))
        node, base = _pointer(aau_schemas.schema_by_id(target), fragment), target
    return node, base


def _is_object(node: dict[str, Any]) -> bool:
    return "properties" in node or isinstance(node.get("const"), dict)


def _object_node(node: dict[str, Any], base: str) -> _Node:
    node, base = _resolve(node, base)
    if _is_object(node):
        return node, base
    for combinator in ("oneOf", "anyOf", "allOf", "then"):
        branches = node.get(combinator, [])
        for branch in [branches] if isinstance(branches, dict) else branches:
            found, found_base = _resolve(branch, base)
            if _is_object(found):
                return found, found_base
    return node, base


def _chain(node: dict[str, Any], base: str) -> tuple[dict[str, _Node], set[str], bool]:
    """``(properties -> their node, required, closed)`` of an object and its ``$ref`` chain."""
    import aau_schemas

    properties: dict[str, _Node] = {}
    required: set[str] = set()
    closed = False
    while True:
        for name, sub in node.get("properties", {}).items():
            properties.setdefault(name, (sub, base))
        required |= set(node.get("required", []))
        closed = closed or node.get("additionalProperties") is False
        if "$ref" not in node:
            return properties, required, closed
        target, fragment = urldefrag(urljoin(base, node["$ref"]))
        node, base = _pointer(aau_schemas.schema_by_id(target), fragment), target


def _walk(cls: type, at: _Node, where: str, converter: cattrs.Converter) -> list[str]:
    node, base = _object_node(*at)
    label = f"{cls.__name__} at {where}"
    keys = document_keys(cls)
    if isinstance(node.get("const"), dict):
        const = node["const"]
        if set(keys) != set(const):
            return [f"{label}: fields {sorted(keys)} != const keys {sorted(const)}"]
        try:
            default = converter.unstructure(cls())
        except TypeError:
            return [f"{label}: a const block needs a default for every field"]
        return [] if default == const else [f"{label}: defaults {default} != const {const}"]
    if "properties" not in node:
        return [f"{label}: the schema here is not an object with properties"]
    properties, required, closed = _chain(node, base)
    problems = []
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        problems.append(f"{label}: keys {twice} declared twice")
    if set(keys) != set(properties):
        problems.append(f"{label}: fields {sorted(set(keys))} != properties {sorted(properties)}")
    always = set(keys) - optional_keys(cls)
    if always != required:
        problems.append(f"{label}: required {sorted(always)} != schema required "
                        f"{sorted(required)}")
    if (extra_field(cls) is None) != closed:
        problems.append(f"{label}: " + ("the model keeps unknown keys, the schema refuses them"
                                        if closed else
                                        "the schema admits unknown keys, the model drops them"))
    hints = typing.get_type_hints(cls)
    for field in json_fields(cls):
        key = field.metadata.get(JSON_KEY, field.name)
        if key not in properties:
            continue
        sub, sub_base = properties[key]
        for model, found, found_where in _nested(hints[field.name], (sub, sub_base),
                                                 f"{where}/properties/{key}"):
            problems += _walk(model, found, found_where, converter)
    return problems


def _nested(hint: Any, at: _Node, where: str) -> list[tuple[type, _Node, str]]:
    """``(model, its schema node, where)`` for each model a field's type reaches."""
    if attrs.has(hint):
        return [(hint, at, where)]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return [found for arg in args if arg is not type(None)
                for found in _nested(arg, at, where)]
    item = (args[0] if origin is list and args
            else args[0] if origin is tuple and len(args) == 2 and args[1] is Ellipsis
            else None)
    if item is not None and _models_in(item):
        node, base = _resolve(*at)
        return _nested(item, (node["items"], base), f"{where}/items")
    if origin is dict and len(args) == 2 and _models_in(args[1]):
        node, base = _resolve(*at)
        return _nested(args[1], (node["additionalProperties"], base),
                       f"{where}/additionalProperties")
    return []


def _models_in(hint: Any) -> bool:
    return attrs.has(hint) or any(_models_in(arg) for arg in typing.get_args(hint))
