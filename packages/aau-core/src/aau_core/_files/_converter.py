"""Documents as attrs models: the one cattrs converter mechanism of every aau package.

Every package that reads or writes documents builds its one converter with
``make_document_converter()`` and declares its models with this module's field helpers; aau-core's
own converter is ``document_converter()``. The strategies, each with an example:

1. **Refusal before structuring, no coercion after.** A document is checked against its schema
   before it is structured (``structure_document``); the converter itself never converts:
   ``str``, ``int``, ``float``, ``bool`` and ``Any`` values pass through as the schema check left
   them, so files round-trip byte for byte::

       structure_document("eval-report", {..., "total_cases": "3"}, EvalReport, "x.json")
       # InvalidDocumentError "x.json: $.total_cases: ..." -- cattrs alone would make it 3
       document_converter().structure({..., "latency_s": 2}, ScenarioResult).latency_s  # 2, an int

2. **Field = key, in field order.** A model's field is the document key of the same name; arrays
   are tuples in models and lists in documents (``tuple[str, ...]`` -> ``["a", "b"]``).
3. **Optional keys.** ``optional_field()`` is a key the schema does not require whose value is
   never ``null``: ``None`` means absent and is not written. ``optional_field(nullable=True)`` is
   one whose value may be ``null``: its default is ``ABSENT`` (absent), so ``None`` is written as
   ``null``. A required key that may be ``null`` is a plain field (always written)::

       note: str | None = optional_field()              # {} <-> note=None; {"note": "n"}
       description: Any = optional_field(nullable=True)  # {} <-> ABSENT; {"description": null} <-> None

4. **Renamed and left-out fields.** ``metadata={JSON_KEY: "from"}`` names a key that is not a
   Python name (field ``from_`` <-> key ``"from"``); ``metadata={OMIT: True}`` marks a field that is
   no part of the document (e.g. a callable), as does ``init=False``.
5. **Declared key order and derived keys.** A model whose keys differ from its fields declares
   them, in the document's order, as ``__aau_document_keys__``: a key that is no field is read
   from the attribute when writing (a property such as ``pass_rate``), a field that is no key is
   left out; when structuring, such derived keys are ignored (the schema checked them)::

       __aau_document_keys__: ClassVar[tuple[str, ...]] = ("name", "pass_rate", "results")

6. **Open objects.** A model of an object whose schema admits unknown keys has one
   ``open_extra()`` field: structuring puts every key the model does not name there, unstructuring
   writes them back after the named keys::

       extra: dict[str, Any] = open_extra()   # {"suite_id": "s", "x-owner": 1} -> extra={"x-owner": 1}

7. **Free-form values.** Fields typed ``Any`` and the values of ``dict[str, Any]`` pass through
   unstructuring unchanged: a value that is not JSON still fails where the document is rendered.
   With ``share_free_form=True`` a ``dict[str, Any]`` itself is passed through uncopied (the
   document shares it with its model; aau-adapters' receipts, whose rows hold the cases' inputs).
8. **Timestamps.** ``datetime`` values are written as the schema's ``timestamp`` strings (UTC,
   ``Z``) and read from them; models that must keep a timestamp's exact bytes type it ``str``.
9. **Closed objects** (``forbid_extra_keys=True``): structuring a closed model refuses keys it does
   not name (cattrs' ``ForbiddenExtraKeysError``), a second guard behind the schema for documents
   built in code; derived keys (5) stay allowed. Without it, unknown keys are ignored.

How a package builds its converter (one per package, in its ``_converter.py``)::

    from aau_core._files._converter import make_document_converter  # internal to the monorepo

    converter = make_document_converter(forbid_extra_keys=True)

and its models use ``optional_field``, ``open_extra``, ``ABSENT``, ``JSON_KEY`` and ``OMIT`` from
here; a hook that only one package needs is registered on its converter after this call.

cattrs is imported only inside these functions, when a converter is built, so importing this
module (and ``aau --help``) stays light.
"""

from __future__ import annotations

import datetime as _dt
import enum
import functools
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

if TYPE_CHECKING:
    import cattrs

OPTIONAL = "aau_optional"
JSON_KEY = "aau_json_key"
OMIT = "aau_omit"
EXTRA = "aau_extra"

T = TypeVar("T")


class _Absent(enum.Enum):
    ABSENT = "ABSENT"

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent.ABSENT
"""The default of an ``optional_field(nullable=True)``: the key was not there (``None`` is the
document's ``null``)."""


def optional_field(*, nullable: bool = False, **kwargs: Any) -> Any:
    """An attrs field for a key the schema does not require, left out of the unstructured
    document while it holds its default.

    Args:
        nullable: the key's value may be ``null``: the default is then ``ABSENT`` (not ``None``,
            which is written as ``null``).
        kwargs: further ``attrs.field`` arguments (``kw_only``, ``repr``, ...); ``metadata`` is
            merged.

    Returns:
        the attrs field (default ``None``, or ``ABSENT`` when ``nullable``).
    """
    metadata = {**kwargs.pop("metadata", {}), OPTIONAL: True}
    return attrs.field(default=ABSENT if nullable else None, metadata=metadata, **kwargs)


def open_extra() -> Any:
    """The one field of an open model that keeps the document's unknown keys
    (``dict[str, Any]``, ``{key: value}``, empty by default)."""
    return attrs.field(factory=dict, metadata={EXTRA: True})


def extra_field(cls: type) -> attrs.Attribute[Any] | None:
    """The ``open_extra()`` field of model class ``cls``, or ``None`` for a closed model."""
    for field in attrs.fields(cls):
        if field.metadata.get(EXTRA):
            return field
    return None


def _is_key(field: attrs.Attribute[Any]) -> bool:
    return field.init and not field.metadata.get(OMIT) and not field.metadata.get(EXTRA)


def json_fields(cls: type) -> list[attrs.Attribute[Any]]:
    """The fields of model class ``cls`` that are document keys, in field order (not the
    ``open_extra()`` field, ``OMIT`` fields or ``init=False`` fields)."""
    return [f for f in attrs.fields(cls) if _is_key(f)]


def is_optional(field: attrs.Attribute[Any]) -> bool:
    """Whether a model field is an ``optional_field`` (its key may be absent)."""
    return bool(field.metadata.get(OPTIONAL))


def _key(field: attrs.Attribute[Any]) -> str:
    return field.metadata.get(JSON_KEY, field.name)  # type: ignore[no-any-return]


def document_keys(cls: type) -> tuple[str, ...]:
    """The keys ``cls``'s documents have, in order: ``__aau_document_keys__`` when declared,
    else the document names of its ``json_fields``."""
    declared = getattr(cls, "__aau_document_keys__", None)
    if declared is not None:
        return tuple(declared)
    return tuple(_key(f) for f in json_fields(cls))


def optional_keys(cls: type) -> frozenset[str]:
    """The document keys of ``cls`` that are ``optional_field``s (may be absent)."""
    return frozenset(_key(f) for f in attrs.fields(cls) if is_optional(f))


def _timestamp(value: _dt.datetime) -> str:
    return value.astimezone(_dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _parse_timestamp(value: Any, _: Any) -> _dt.datetime:
    return _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _pass(value: Any, _: Any) -> Any:
    return value


def _derived_keys(cls: type) -> frozenset[str]:
    """Declared document keys that are no field (rule 5)."""
    declared = getattr(cls, "__aau_document_keys__", None)
    if declared is None:
        return frozenset()
    return frozenset(declared) - {_key(f) for f in attrs.fields(cls)}


def _unstructure_factory(cls: type, conv: cattrs.Converter) -> Any:
    from cattrs.gen import make_dict_unstructure_fn, override

    overrides = {f.name: override(rename=f.metadata.get(JSON_KEY),
                                  omit_if_default=is_optional(f)) if _is_key(f)
                 else override(omit=True) for f in attrs.fields(cls)}
    fn = make_dict_unstructure_fn(cls, conv, **overrides)
    declared = getattr(cls, "__aau_document_keys__", None)
    if declared is not None:
        keys = tuple(declared)
        field_keys = {_key(f) for f in attrs.fields(cls)}
        base = fn

        def fn(obj: Any) -> dict[str, Any]:
            fields = base(obj)
            return {k: fields[k] if k in fields else conv.unstructure(getattr(obj, k))
                    for k in keys if k in fields or k not in field_keys}

    extra = extra_field(cls)
    if extra is None:
        return fn
    name, named = extra.name, fn

    def with_extra(obj: Any) -> dict[str, Any]:
        doc = named(obj)
        doc.update(getattr(obj, name))
        return doc

    return with_extra


def _structure_factory(cls: type, conv: cattrs.Converter) -> Any:
    from cattrs.gen import make_dict_structure_fn, override

    overrides = {f.name: override(rename=f.metadata[JSON_KEY]) for f in attrs.fields(cls)
                 if _is_key(f) and JSON_KEY in f.metadata}
    overrides.update({f.name: override(omit=True) for f in attrs.fields(cls) if not _is_key(f)})
    base = make_dict_structure_fn(cls, conv, **overrides)
    derived = _derived_keys(cls)
    extra = extra_field(cls)
    if extra is None:
        if not (derived and conv.forbid_extra_keys):
            return base

        def closed(doc: dict[str, Any], _: Any) -> Any:
            return base({k: v for k, v in doc.items() if k not in derived}, cls)

        return closed
    known = {_key(f) for f in json_fields(cls)}
    name = extra.name

    def structure(doc: dict[str, Any], _: Any) -> Any:
        obj = base({k: v for k, v in doc.items() if k in known}, cls)
        rest = {k: v for k, v in doc.items() if k not in known and k not in derived}
        return attrs.evolve(obj, **{name: rest}) if rest else obj

    return structure


def make_document_converter(*, forbid_extra_keys: bool = False,
                            share_free_form: bool = False) -> cattrs.Converter:
    """A new cattrs converter with aau's document hooks (module docstring, strategies 1-9).

    Args:
        forbid_extra_keys: closed models refuse keys they do not name (strategy 9); otherwise
            such keys are ignored.
        share_free_form: ``dict[str, Any]`` values are unstructured uncopied, shared with the
            model (strategy 7); otherwise each is copied one level deep.

    Returns:
        a ``cattrs.Converter``; register further hooks on it as a package needs.
    """
    import cattrs

    conv = cattrs.Converter(forbid_extra_keys=forbid_extra_keys,
                            unstruct_collection_overrides={tuple: list})
    for kind in (str, int, float, bool, Any):
        conv.register_structure_hook(kind, _pass)
    conv.register_unstructure_hook(Any, lambda value: value)
    if share_free_form:
        conv.register_unstructure_hook_func(lambda t: t == dict[str, Any], lambda value: value)
    conv.register_unstructure_hook(_dt.datetime, _timestamp)
    conv.register_structure_hook(_dt.datetime, _parse_timestamp)
    conv.register_unstructure_hook_factory(attrs.has, lambda cls: _unstructure_factory(cls, conv))
    conv.register_structure_hook_factory(attrs.has, lambda cls: _structure_factory(cls, conv))
    return conv


@functools.cache
def document_converter() -> cattrs.Converter:
    """aau-core's converter (``make_document_converter()``, built once on first use)."""
    return make_document_converter()


def structure_document(kind: str, doc: Any, cls: type[T], source: str | None = None, *,
                       converter: cattrs.Converter | None = None) -> T:
    """Check ``doc`` against schema kind ``kind``, then structure it as ``cls``.

    Args:
        kind: the aau-schemas kind (``"eval-report"``, ``"checkpoint"``, ...).
        doc: the parsed JSON document.
        cls: the attrs model.
        source: the file name for the error lines.
        converter: the package converter to structure with (default ``document_converter()``).

    Returns:
        the model instance.

    Raises:
        InvalidDocumentError: ``doc`` breaks the schema (``source: $.path: message`` lines, as
            ``check_document``); nothing is structured then.
    """
    from ._document_check import check_document

    check_document(kind, doc, source)
    return (converter or document_converter()).structure(doc, cls)


def unstructure_document(obj: Any) -> Any:
    """``obj`` (a model, or lists and dicts of models) as plain JSON values, by
    ``document_converter()``."""
    return document_converter().unstructure(obj)
