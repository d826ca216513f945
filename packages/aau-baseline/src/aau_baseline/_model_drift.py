"""Drift between a document model and its JSON Schema: what the models' drift tests assert.

``model_schema_drift(cls, kind, converter)`` walks the attrs class and the schema of ``kind``
together, resolving ``$ref`` through aau-schemas' registry (``schema_by_id``; relative references
are joined to the ``$id`` of the file they appear in), and reports every difference:

- an object schema: the document's field names (after renames, without ``document=False``
  fields) must equal its ``properties``, and the fields that are not ``optional_field()`` must equal
  its ``required`` set;
- an object pinned by ``const``: the fields must be its keys and the class's defaults must
  unstructure to exactly the constant;
- a field typed with another model (directly, ``| None``, ``list[...]`` or ``dict[str, ...]``):
  the walk goes on into the property's schema (the object branch of a ``oneOf``/``anyOf``/
  ``allOf`` or the ``then`` of a nullable ``if``, ``items``, ``additionalProperties``).
"""

from __future__ import annotations

import types
import typing
from typing import Any
from urllib.parse import urldefrag, urljoin

import attrs
import cattrs

from ._converter import _DOCUMENT, _JSON_KEY, _OPTIONAL


def model_schema_drift(cls: type, kind: str, converter: cattrs.Converter) -> list[str]:
    """Every difference between model ``cls`` and the schema of aau-schemas kind ``kind``.

    Args:
        cls: a document model (an attrs class).
        kind: its schema kind (``"human-baseline-study"``).
        converter: the package's converter (to unstructure ``const`` defaults).

    Returns:
        ``"<Class> at <schema path>: <difference>"`` lines; empty when they agree.

    Raises:
        aau_schemas.UnknownKindError: ``kind`` is not a schema kind.
    """
    import aau_schemas

    root = aau_schemas.schema(kind)
    return _walk(cls, root, root["$id"], "#", converter)


def _resolve(node: dict[str, Any], base: str) -> tuple[dict[str, Any], str]:
    import aau_schemas

    while "$ref" in node:
        target, pointer = urldefrag(urljoin(base, node["$ref"]))
        doc = aau_schemas.schema_by_id(target)
        for part in (p for p in pointer.split("/") if p):
            doc = doc[part.replace("~1", "/").replace("~0", "~")]
        node, base = doc, target
    return node, base


def _object_node(node: dict[str, Any], base: str) -> tuple[dict[str, Any], str]:
    node, base = _resolve(node, base)
    if "properties" in node or isinstance(node.get("const"), dict):
        return node, base
    for combinator in ("oneOf", "anyOf", "allOf", "then"):
        branches = node.get(combinator, [])
        for branch in [branches] if isinstance(branches, dict) else branches:
            found, found_base = _resolve(branch, base)
            if "properties" in found or isinstance(found.get("const"), dict):
                return found, found_base
    return node, base


def _doc_fields(cls: type) -> list[tuple[str, attrs.Attribute]]:
    return [(a.metadata.get(_JSON_KEY, a.name), a) for a in attrs.fields(cls)
            if a.metadata.get(_DOCUMENT, True)]


def _walk(cls: type, node: dict[str, Any], base: str, where: str,
          converter: cattrs.Converter) -> list[str]:
    node, base = _object_node(node, base)
    label = f"{cls.__name__} at {where}"
    fields = _doc_fields(cls)
    names = {name for name, _ in fields}
    if isinstance(node.get("const"), dict):
        const = node["const"]
        if names != set(const):
            return [f"{label}: fields {sorted(names)} != const keys {sorted(const)}"]
        try:
            default = converter.unstructure(cls())
        except TypeError:
            return [f"{label}: a const block needs a default for every field"]
        return [] if default == const else [f"{label}: defaults {default} != const {const}"]
    properties = node.get("properties")
    if not isinstance(properties, dict):
        return [f"{label}: the schema here is not an object with properties"]
    problems = []
    if names != set(properties):
        problems.append(f"{label}: fields {sorted(names)} != properties {sorted(properties)}")
    required = {name for name, a in fields if not a.metadata.get(_OPTIONAL)}
    if required != set(node.get("required", [])):
        problems.append(f"{label}: required {sorted(required)} != schema required "
                        f"{sorted(node.get('required', []))}")
    hints = typing.get_type_hints(cls)
    for name, a in fields:
        if name not in properties:
            continue
        for model, sub, sub_base, sub_where in _nested(hints[a.name], properties[name], base,
                                                       f"{where}/properties/{name}"):
            problems += _walk(model, sub, sub_base, sub_where, converter)
    return problems


def _nested(hint: Any, node: dict[str, Any], base: str,
            where: str) -> list[tuple[type, dict[str, Any], str, str]]:
    """``(model, schema node, its base URI, where)`` for each model a field's type reaches."""
    if attrs.has(hint):
        return [(hint, node, base, where)]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return [found for arg in args if arg is not type(None)
                for found in _nested(arg, node, base, where)]
    if origin is list and args and _models_in(args[0]):
        resolved, rbase = _resolve(node, base)
        return _nested(args[0], resolved["items"], rbase, f"{where}/items")
    if origin is dict and len(args) == 2 and _models_in(args[1]):
        resolved, rbase = _resolve(node, base)
        return _nested(args[1], resolved["additionalProperties"], rbase,
                       f"{where}/additionalProperties")
    return []


def _models_in(hint: Any) -> bool:
    return attrs.has(hint) or any(_models_in(arg) for arg in typing.get_args(hint))
