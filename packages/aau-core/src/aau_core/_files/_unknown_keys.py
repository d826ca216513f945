"""Unknown keys: what a document holds that its schema does not name, where the format is open.

The formats aau must keep reading as they are (suites ``aau-byo-agent-suite/1.0`` and ``/2.0``,
traces another tool writes) leave objects open: a key the schema does not name is kept and
ignored, so a misspelt check (``"forbidden_action"`` for ``forbidden_actions``) silently checks
nothing. ``check_unknown_keys(kind, doc, source)`` finds those keys, each with the known key it
most resembles (``aau_schemas.nearest_key``), and returns them as warnings, or raises them as
errors when ``strict``. The one helper for suites, traces and every other open format; the known
keys come from the schema itself, never from a list kept by hand.

How the document and its schema are walked together (``unknown_keys``):

- ``$ref`` is resolved through aau-schemas' registry (a relative reference is joined to the
  ``$id`` of the file it appears in); ``allOf``, ``if``/``then``/``else`` and the ``anyOf``/
  ``oneOf`` branches whose ``type`` admits the value all apply in place;
- an object is checked when some applying schema declares ``properties`` and none says what its
  other keys are (``additionalProperties``, ``patternProperties``, ``unevaluatedProperties``): a
  map (``additionalProperties: {...}``) holds data keys, the extra keys of a closed object are
  schema errors already, and an object without ``properties`` (a case's ``input``) is free-form;
  its known keys are the union of every applying schema's ``properties``;
- the walk goes on into each property's value, the values of a map and the items of an array;
- ``foreign`` names schema locations (``$id#/json/pointer``) holding formats of others, kept as
  written (BFCL function definitions in a suite v2): their objects are not walked; ``allowed``
  names document paths whose key is known although the schema does not name it.

Lines are grouped: one key at the same place of many array items (``notes`` in every case) is
one line naming the first path and how many more there are.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterator
from typing import Any
from urllib.parse import urldefrag, urljoin

import attrs

from .._errors import InvalidDocumentError

_OPENERS = ("additionalProperties", "patternProperties", "unevaluatedProperties")
_JSON_TYPES = {bool: ("boolean",), int: ("integer", "number"), float: ("number",),
               str: ("string",), list: ("array",), dict: ("object",), type(None): ("null",)}


@attrs.frozen
class UnknownKey:
    """A key of an open object that the schema does not name there.

    Attributes:
        path: the JSON path of the key itself (``"$.cases[0].forbidden_action"``).
        key: the key.
        nearest: the known key of that object it most resembles (``"forbidden_actions"``), or
            ``None`` when none is close (``aau_schemas.nearest_key``).
    """

    path: str
    key: str
    nearest: str | None


def unknown_keys(kind: str, doc: Any, *, foreign: Collection[str] = (),
                 allowed: Collection[str] = (), cutoff: float | None = None) -> list[UnknownKey]:
    """Every key of ``doc`` that schema ``kind`` does not name where it leaves objects open.

    Args:
        kind: the aau-schemas kind (or ``$id``) ``doc`` is valid against.
        doc: the parsed document (valid against that schema: a value no branch admits is
            walked by none).
        foreign: absolute schema locations (``"https://aau.dev/schemas/suite/v2/
            suite.schema.json#/$defs/function"``) whose objects are not walked.
        allowed: JSON paths of keys known although the schema does not name them (a key an
            earlier writer of the format added, named by its next major: ``"$.source"``).
        cutoff: the least similarity for a ``nearest`` key, in [0, 1] (default
            ``aau_schemas.NEAREST_KEY_CUTOFF``, 0.6).

    Returns:
        the unknown keys in document order, each path once.

    Raises:
        aau_schemas.UnknownKindError: ``kind`` is not a schema kind.
    """
    import aau_schemas

    root = aau_schemas.kind_info(kind).schema_id if not kind.startswith(
        aau_schemas.SCHEMA_BASE_URI) else kind
    walker = _Walker(frozenset(foreign),
                     aau_schemas.NEAREST_KEY_CUTOFF if cutoff is None else cutoff)
    walker.walk(doc, [_resolve(root, root)], [])
    return [k for k in walker.found.values() if k.path not in allowed]


def unknown_key_problems(found: list[UnknownKey], *, ignored: bool) -> list[tuple[str, str]]:
    """``(json_path, message)`` lines for unknown keys, one per key and place (module docstring).

    ``unknown key; did you mean forbidden_actions? (ignored)`` for a warning
    (``ignored=True``), ``unknown key; did you mean forbidden_actions?`` for an error; a key
    with no near known key says ``unknown key``; a key found at the same place of more array
    items adds ``; also at N more paths like it`` inside the parentheses (or after the hint).
    """
    import re

    groups: dict[tuple[str, str], list[UnknownKey]] = {}
    for item in found:
        groups.setdefault((re.sub(r"\[\d+\]", "[]", item.path), item.key), []).append(item)
    lines = []
    for items in groups.values():
        first = items[0]
        message = "unknown key" + (f"; did you mean {first.nearest}?" if first.nearest else "")
        notes = ["ignored"] if ignored else []
        if len(items) > 1:
            more = len(items) - 1
            notes.append(f"also at {more} more path{'s' if more > 1 else ''} like it")
        if notes:
            message += f" ({'; '.join(notes)})"
        lines.append((first.path, message))
    return lines


def check_unknown_keys(kind: str, doc: Any, source: str | None, *, strict: bool = False,
                       foreign: Collection[str] = (), allowed: Collection[str] = (),
                       cutoff: float | None = None,
                       near_only: bool = False) -> list[tuple[str, str]]:
    """Find the unknown keys of a schema-valid document: warnings, or errors when ``strict``.

    Args:
        kind, doc, foreign, allowed, cutoff: as ``unknown_keys``.
        source: the file name, put in front of every error line.
        strict: raise the unknown keys as errors instead of returning them.
        near_only: report only the keys that resemble a known one (a format whose writers
            add keys of their own, a trace, where any other key is expected).

    Returns:
        the warnings as ``(json_path, message)`` pairs (``unknown_key_problems``, ignored);
        print each as ``f"{source}: {path}: {message}"``. Empty when there are none.

    Raises:
        InvalidDocumentError: ``strict`` and some unknown key (one line each, no "(ignored)").
    """
    found = [k for k in unknown_keys(kind, doc, foreign=foreign, allowed=allowed, cutoff=cutoff)
             if k.nearest is not None or not near_only]
    if strict and found:
        raise InvalidDocumentError(unknown_key_problems(found, ignored=False), source=source)
    return unknown_key_problems(found, ignored=True)


@functools.lru_cache(maxsize=256)
def _schema_file(uri: str) -> Any:
    """The parsed schema file of an ``$id`` (one copy per process; never changed here)."""
    import aau_schemas

    return aau_schemas.schema_by_id(uri)


@functools.lru_cache(maxsize=1024)
def _resolve(ref: str, base: str) -> tuple[Any, str, str]:
    """``(schema node, $id it resolves against, its absolute location)`` of a ``$ref`` (cached:
    a suite's 100,000 cases resolve the same few references)."""
    uri, fragment = urldefrag(urljoin(base, ref))
    node = _schema_file(uri)
    for part in (p for p in fragment.split("/") if p):
        key = part.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node, uri, f"{uri}#{fragment}"


_Nodes = list[tuple[Any, str, str]]


class _Shape:
    """What the walk needs at one kind of place: the schemas applying to an object or array
    reached through ``nodes``, and (memoised) the nodes of each property or item below it.

    The schemas applying depend only on ``nodes`` and the value's JSON type (``_admits``
    looks at nothing else), so one ``_Shape`` serves every case of a suite alike."""

    def __init__(self, walker: _Walker, nodes: _Nodes, value: Any) -> None:
        self.nodes = nodes  # kept alive: the walker's cache is keyed by id(nodes)
        self.schemas = list(walker.applying(nodes, value))
        self.known = {k for s, _ in self.schemas for k in s.get("properties", {})}
        self.checked = bool(self.known) and not any(o in s for s, _ in self.schemas
                                                    for o in _OPENERS)
        self._children: dict[str | int, _Nodes] = {}
        self.prefix = max((len(s.get("prefixItems", ())) for s, _ in self.schemas), default=0)

    def property_nodes(self, key: str) -> tuple[_Nodes, bool]:
        """``(nodes of the value at key, whether the key is known)``."""
        found = self._children.get(key)
        if found is None:
            found = [(s["properties"][key], b, "") for s, b in self.schemas
                     if key in s.get("properties", {})]
            if not found:
                found = [(s["additionalProperties"], b, "") for s, b in self.schemas
                         if isinstance(s.get("additionalProperties"), dict)]
            self._children[key] = found
        return found, key in self.known

    def item_nodes(self, i: int) -> _Nodes:
        """The nodes of item ``i`` (every item past the longest ``prefixItems`` alike)."""
        slot = min(i, self.prefix)
        found = self._children.get(slot)
        if found is None:
            found = [(s["prefixItems"][slot], b, "") for s, b in self.schemas
                     if slot < len(s.get("prefixItems", ()))]
            found += [(s["items"], b, "") for s, b in self.schemas
                      if "items" in s and slot >= len(s.get("prefixItems", ()))]
            self._children[slot] = found
        return found


class _Walker:
    """One walk of a document with its schema (``unknown_keys``)."""

    def __init__(self, foreign: frozenset[str], cutoff: float) -> None:
        self.foreign = foreign
        self.cutoff = cutoff
        self.found: dict[str, UnknownKey] = {}
        self._shapes: dict[tuple[int, type], _Shape] = {}

    def applying(self, nodes: _Nodes, value: Any) -> Iterator[tuple[dict[str, Any], str]]:
        """Every schema object applying to ``value`` in place (module docstring)."""
        seen: set[int] = set()
        stack = list(reversed(nodes))
        while stack:
            node, base, where = stack.pop()
            if not isinstance(node, dict) or id(node) in seen or where in self.foreign:
                continue
            seen.add(id(node))
            yield node, base
            subs: list[Any] = [*node.get("allOf", ()),
                               *(node[k] for k in ("if", "then", "else") if k in node),
                               *(b for k in ("anyOf", "oneOf") for b in node.get(k, ())
                                 if _admits(b, base, value))]
            expanded = [(s, base, where) for s in subs]
            if isinstance(node.get("$ref"), str):
                expanded.insert(0, _resolve(node["$ref"], base))
            stack.extend(reversed(expanded))

    def walk(self, value: Any, nodes: _Nodes, parts: list[str | int]) -> None:
        if not isinstance(value, (dict, list)):
            return
        key = (id(nodes), type(value))
        shape = self._shapes.get(key)
        if shape is None:
            shape = self._shapes[key] = _Shape(self, nodes, value)
        if isinstance(value, list):
            for i, item in enumerate(value):
                children = shape.item_nodes(i)
                if children and isinstance(item, (dict, list)):
                    self.walk(item, children, [*parts, i])
            return
        for name, child in value.items():
            children, known = shape.property_nodes(name)
            if not known and shape.checked:
                self._report(parts, name, shape.known - set(value))
            if children and isinstance(child, (dict, list)):
                self.walk(child, children, [*parts, name])

    def _report(self, parts: list[str | int], key: str, known: set[str]) -> None:
        import aau_schemas

        path = aau_schemas.json_path([*parts, key])
        self.found.setdefault(path, UnknownKey(
            path=path, key=key, nearest=aau_schemas.nearest_key(key, known, cutoff=self.cutoff)))


def _admits(branch: Any, base: str, value: Any) -> bool:
    """Whether an ``anyOf``/``oneOf`` branch's ``type`` (through its ``$ref``) admits ``value``."""
    for _ in range(16):  # a chain of references, never a loop in aau's schemas
        if not isinstance(branch, dict):
            return branch is not False
        if "type" in branch:
            types = branch["type"] if isinstance(branch["type"], list) else [branch["type"]]
            return any(t in types for t in _JSON_TYPES.get(type(value), ()))
        if not isinstance(branch.get("$ref"), str):
            return True
        branch, base, _ = _resolve(branch["$ref"], base)
    return True
