"""The one cattrs converter of aau-baseline, and the document-model conventions it serves.

A document is validated against its schema **before** it is structured (cattrs would coerce a
wrong value silently), and a writer unstructures its model, then renders it with the one canonical
writer of its format (sorted keys, so field order in a class never changes a byte).

The converter is preconfigured for JSON documents that already passed their schema:

- ``str``, ``int``, ``float`` and ``bool`` pass through unchanged: a schema ``number`` that holds
  ``75`` stays the int ``75`` (cattrs' default ``float(75)`` would write ``75.0`` and change the
  bytes and the legacy hashes of aau-harness 1.6 documents);
- tuples unstructure to JSON arrays (lists), so a document round-trips to an equal dict;
- ``optional_field()`` marks a field the schema does not require: its default is ``None`` and it
  is **omitted** from the document when ``None`` (a schema that requires a nullable field uses a
  plain ``X | None`` field, which is written as ``null``); ``optional_field(nullable=True)`` is a
  field the schema neither requires nor keeps from ``null``: ``ABSENT`` when the key is missing
  (omitted again when written), ``None`` for ``null``;
- ``document_field(json=...)`` renames a field whose JSON key is not a Python name;
- ``document_field(document=False)`` keeps a computed value on the model that its document never
  holds (``HumanMetrics.fleiss_kappa_note``).

``document_converter()`` builds a converter with these hooks (aau-evidence builds its own from it);
``converter`` is aau-baseline's.
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

T = TypeVar("T")

_OPTIONAL = "aau_optional"
_JSON_KEY = "aau_json_key"
_DOCUMENT = "aau_document"


class _Absent:
    """The type of ``ABSENT``."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


ABSENT = _Absent()
"""The value of an ``optional_field(nullable=True)`` its document does not hold (not ``None``,
which is the document's ``null``)."""


def optional_field(*, nullable: bool = False, **kwargs: Any) -> Any:
    """An attrs field the schema does not require, omitted from the document when absent.

    Args:
        nullable: the schema also allows ``null`` here. Then a missing key is ``ABSENT`` (the
            default) and ``None`` is written as ``null``; otherwise a missing key is ``None``
            (the default) and ``None`` is never written.
        kwargs: passed to ``attrs.field`` (not ``default``).
    """
    return attrs.field(default=ABSENT if nullable else None, metadata={_OPTIONAL: True},
                       **kwargs)


def document_field(*, json: str | None = None, document: bool = True, **kwargs: Any) -> Any:
    """An attrs field with a document-side rule.

    Args:
        json: the JSON key when it is not the Python name (a rename, both ways).
        document: ``False`` for a value the model carries but its document does not (never
            written; structured from its default).
        kwargs: passed to ``attrs.field``.
    """
    metadata: dict[str, Any] = {}
    if json is not None:
        metadata[_JSON_KEY] = json
    if not document:
        metadata[_DOCUMENT] = False
    return attrs.field(metadata=metadata, **kwargs)


def _overrides(cls: type, *, structuring: bool) -> dict[str, Any]:
    found = {}
    for a in attrs.fields(cls):
        kwargs: dict[str, Any] = {}
        if _JSON_KEY in a.metadata:
            kwargs["rename"] = a.metadata[_JSON_KEY]
        if a.metadata.get(_OPTIONAL) and not structuring:
            kwargs["omit_if_default"] = True
        if a.metadata.get(_DOCUMENT) is False:
            kwargs["omit"] = True
        if kwargs:
            found[a.name] = override(**kwargs)
    return found


def document_converter() -> cattrs.Converter:
    """A new converter configured as the module docstring says.

    Returns:
        a ``cattrs.Converter``; attrs classes get generated structure and unstructure functions
        honouring ``optional_field()`` and ``document_field(json=, document=)``.
    """
    conv = cattrs.Converter()
    for scalar in (str, int, float, bool):
        conv.register_structure_hook(scalar, lambda value, _type: value)
    conv.register_unstructure_hook_func(
        lambda t: t is tuple or getattr(t, "__origin__", None) is tuple,
        lambda value: [conv.unstructure(item) for item in value])
    conv.register_structure_hook_factory(
        attrs.has,
        lambda cls: make_dict_structure_fn(cls, conv, **_overrides(cls, structuring=True)))
    conv.register_unstructure_hook_factory(
        attrs.has,
        lambda cls: make_dict_unstructure_fn(cls, conv, **_overrides(cls, structuring=False)))
    return conv


converter = document_converter()
"""aau-baseline's converter (human-baseline documents)."""


def structure(doc: Any, cls: type[T]) -> T:
    """``doc`` (already valid against its schema) as a ``cls`` model."""
    return converter.structure(doc, cls)


def unstructure(model: Any) -> Any:
    """A model as its JSON document (dicts, lists, scalars)."""
    return converter.unstructure(model)
