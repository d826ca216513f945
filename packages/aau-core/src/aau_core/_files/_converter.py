"""Documents as attrs models: the one cattrs converter of aau-core and the hooks it is built from.

Rules (what every model and every caller of this module relies on):

1. A document is checked against its schema **before** it is structured
   (``structure_document``): cattrs would coerce silently (``"3"`` to ``3``), so the converter
   does not convert at all; ``str``, ``int``, ``float``, ``bool`` and ``Any`` values pass through
   as the schema check left them (a JSON ``1`` in a ``float`` field stays ``1``, so files
   round-trip byte for byte).
2. A model's field is a document key of the same name, in field order. Field metadata says
   where a document differs:

   - ``optional_field()``: a key the schema does not require; ``None`` means "absent", and
     absent keys are left out when unstructuring;
   - ``JSON_KEY``: the key's name in the document when it is not a Python name;
   - ``OMIT``: not part of the document (e.g. a callable).

3. A model whose document keys differ from its fields declares them, in the document's order,
   as ``__aau_document_keys__``: a key that is no field is read from the attribute (a property
   such as ``pass_rate``), a field that is no key is left out; on structuring, keys that are
   no fields are ignored (they are derived, and the schema checked them).
4. Free-form values (fields typed ``Any``, the values of ``dict[str, Any]``) pass through
   unstructuring unchanged: a value that is not JSON still fails where the document is
   rendered, as it did before models.
5. ``datetime`` values are written as the schema's ``timestamp`` strings (UTC, ``Z``) and read
   from them.

``make_document_converter()`` builds a new converter with these hooks (for packages that need
their own converter and hooks); ``document_converter()`` is aau-core's, built once on first
use. cattrs is imported only here and only when a document is read or written, so ``aau
--help`` stays light.
"""

from __future__ import annotations

import datetime as _dt
import functools
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

if TYPE_CHECKING:
    import cattrs

OPTIONAL = "aau_optional"
JSON_KEY = "aau_json_key"
OMIT = "aau_omit"

T = TypeVar("T")


def optional_field(**kwargs: Any) -> Any:
    """An attrs field for a key the schema does not require: default ``None``, left out of the
    unstructured document while it is ``None``.

    Args:
        kwargs: further ``attrs.field`` arguments (``kw_only``, ``repr``, ...); ``metadata`` is
            merged.
    """
    metadata = {**kwargs.pop("metadata", {}), OPTIONAL: True}
    return attrs.field(default=None, metadata=metadata, **kwargs)


def document_keys(cls: type) -> tuple[str, ...]:
    """The keys ``cls``'s documents have, in order: ``__aau_document_keys__`` when declared,
    else the JSON names of its fields (without ``OMIT`` fields)."""
    declared = getattr(cls, "__aau_document_keys__", None)
    if declared is not None:
        return tuple(declared)
    return tuple(f.metadata.get(JSON_KEY, f.name) for f in attrs.fields(cls)
                 if not f.metadata.get(OMIT) and f.init)


def optional_keys(cls: type) -> frozenset[str]:
    """The document keys of ``cls`` that are ``optional_field``s (may be absent)."""
    return frozenset(f.metadata.get(JSON_KEY, f.name) for f in attrs.fields(cls)
                     if f.metadata.get(OPTIONAL))


def _timestamp(value: _dt.datetime) -> str:
    return value.astimezone(_dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _parse_timestamp(value: Any, _: Any) -> _dt.datetime:
    return _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _pass(value: Any, _: Any) -> Any:
    return value


def _unstructure_factory(cls: type, conv: cattrs.Converter) -> Any:
    from cattrs.gen import make_dict_unstructure_fn, override

    overrides = {}
    for f in attrs.fields(cls):
        if f.metadata.get(OMIT) or not f.init:
            overrides[f.name] = override(omit=True)
        else:
            overrides[f.name] = override(rename=f.metadata.get(JSON_KEY),
                                         omit_if_default=bool(f.metadata.get(OPTIONAL)))
    base = make_dict_unstructure_fn(cls, conv, **overrides)
    declared = getattr(cls, "__aau_document_keys__", None)
    if declared is None:
        return base
    keys = tuple(declared)
    field_keys = {f.metadata.get(JSON_KEY, f.name) for f in attrs.fields(cls)}

    def ordered(obj: Any) -> dict[str, Any]:
        fields = base(obj)
        return {k: fields[k] if k in fields else conv.unstructure(getattr(obj, k))
                for k in keys if k in fields or k not in field_keys}

    return ordered


def _structure_factory(cls: type, conv: cattrs.Converter) -> Any:
    from cattrs.gen import make_dict_structure_fn, override

    overrides = {}
    for f in attrs.fields(cls):
        if f.metadata.get(OMIT) or not f.init:
            overrides[f.name] = override(omit=True)
        elif JSON_KEY in f.metadata:
            overrides[f.name] = override(rename=f.metadata[JSON_KEY])
    return make_dict_structure_fn(cls, conv, **overrides)


def make_document_converter() -> cattrs.Converter:
    """A new cattrs converter with aau's document hooks (module docstring, rules 1-5).

    Returns:
        a ``cattrs.Converter``; register further hooks on it as a package needs.
    """
    import cattrs

    conv = cattrs.Converter()
    for kind in (str, int, float, bool, Any):
        conv.register_structure_hook(kind, _pass)
    conv.register_unstructure_hook(Any, lambda value: value)
    conv.register_unstructure_hook(_dt.datetime, _timestamp)
    conv.register_structure_hook(_dt.datetime, _parse_timestamp)
    conv.register_unstructure_hook_factory(attrs.has, lambda cls: _unstructure_factory(cls, conv))
    conv.register_structure_hook_factory(attrs.has, lambda cls: _structure_factory(cls, conv))
    return conv


@functools.cache
def document_converter() -> cattrs.Converter:
    """aau-core's converter (``make_document_converter()``, built once)."""
    return make_document_converter()


def structure_document(kind: str, doc: Any, cls: type[T], source: str | None = None) -> T:
    """Check ``doc`` against schema kind ``kind``, then structure it as ``cls``.

    Args:
        kind: the aau-schemas kind (``"eval-report"``, ``"checkpoint"``, ...).
        doc: the parsed JSON document.
        cls: the attrs model.
        source: the file name for the error lines.

    Returns:
        the model instance.

    Raises:
        InvalidDocumentError: ``doc`` breaks the schema (``source: $.path: message`` lines, as
            ``check_document``).
    """
    from ._document_check import check_document

    check_document(kind, doc, source)
    return document_converter().structure(doc, cls)


def unstructure_document(obj: Any) -> Any:
    """``obj`` (a model, or lists and dicts of models) as plain JSON values, by
    ``document_converter()``."""
    return document_converter().unstructure(obj)
