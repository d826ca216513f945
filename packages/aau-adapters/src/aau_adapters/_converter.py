"""The one cattrs converter of aau-adapters: documents <-> frozen attrs models.

Every model of the package (``_suite_models``, ``_protocol_models``, ``_receipt_models``) is a
``@attrs.frozen(kw_only=True)`` class whose field names are the document's JSON keys (every key
of these schemas is a Python name, so no field is renamed). The converter is configured once,
here, with the hooks those models need:

- An optional key whose value can never be ``null`` is a field defaulting to ``None``; an
  optional key whose value may be anything (``null`` included, e.g. a suite's ``description``)
  defaults to ``ABSENT``. Either way the key is left out when unstructuring the default, so a
  document round-trips to exactly the keys it had; a required-but-nullable key (a private row's
  ``error``) has no default and is always written.
- An *open* object (the schema allows unknown keys: suites, cases, ``expected``, the raw adapter
  response) has one ``open_extra()`` field that keeps every key the model does not name;
  unstructuring writes them back beside the named keys.
- Arrays are tuples in the models and lists in documents.
- Numbers and strings are taken as the document has them (an integral ``timeout_s`` stays
  ``30``, not ``30.0``), so a document round-trips byte for byte; the schema, checked before
  structuring (``_documents.structure_document``), has already said they are numbers/strings.
- A free-form JSON object (``dict[str, Any]``: a case's ``input``, a response, unknown keys) is
  passed through unstructuring as is, not copied: a document shares it with its model, as the
  documents built by hand always shared a case's ``input`` with the suite.
- Timestamps (``started_at``, ``finished_at``) stay the RFC 3339 strings the schema defines:
  parsing them into ``datetime`` and formatting them back could change their bytes.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override


class _Absent(enum.Enum):
    ABSENT = "ABSENT"

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent.ABSENT
"""The default of an optional field whose value may be ``null``: the key was not there."""

_EXTRA = "aau_adapters.open_extra"


def open_extra() -> Any:
    """The field of an open model that keeps the document's unknown keys (``{key: value}``)."""
    return attrs.field(factory=dict, metadata={_EXTRA: True})


def extra_field(cls: type) -> attrs.Attribute[Any] | None:
    """The ``open_extra()`` field of a model class, or ``None`` for a closed model."""
    for field in attrs.fields(cls):
        if field.metadata.get(_EXTRA):
            return field
    return None


def json_fields(cls: type) -> list[attrs.Attribute[Any]]:
    """The fields of a model that are JSON keys (every field but the ``open_extra()`` one)."""
    return [f for f in attrs.fields(cls) if not f.metadata.get(_EXTRA)]


def is_optional(field: attrs.Attribute[Any]) -> bool:
    """Whether a model field is an optional JSON key (its default is ``None`` or ``ABSENT``)."""
    return field.default is None or field.default is ABSENT


def _is_model(cls: Any) -> bool:
    return attrs.has(cls) and cls.__module__.startswith("aau_adapters.")


def _unstructure_factory(cls: type) -> Any:
    attrs.resolve_types(cls)
    extra = extra_field(cls)
    overrides = {f.name: override(omit_if_default=True) for f in json_fields(cls) if is_optional(f)}
    if extra is not None:
        overrides[extra.name] = override(omit=True)
    base = make_dict_unstructure_fn(cls, converter, **overrides)
    if extra is None:
        return base
    name = extra.name

    def unstructure(obj: Any) -> dict[str, Any]:
        doc = base(obj)
        doc.update(getattr(obj, name))
        return doc

    return unstructure


def _structure_factory(cls: type) -> Any:
    attrs.resolve_types(cls)
    extra = extra_field(cls)
    if extra is None:
        return make_dict_structure_fn(cls, converter, _cattrs_forbid_extra_keys=True)
    known = {f.name for f in json_fields(cls)}
    base = make_dict_structure_fn(cls, converter, **{extra.name: override(omit=True)})
    name = extra.name

    def structure(doc: dict[str, Any], _: Any) -> Any:
        obj = base({k: v for k, v in doc.items() if k in known}, cls)
        rest = {k: v for k, v in doc.items() if k not in known}
        return attrs.evolve(obj, **{name: rest}) if rest else obj

    return structure


converter = cattrs.Converter(unstruct_collection_overrides={tuple: list})
"""The package's one converter (module docstring): ``converter.structure(doc, Model)`` after the
schema check, ``converter.unstructure(model)`` to write."""

converter.register_structure_hook(float, lambda value, _: value)  # 30 stays 30 (see above)
converter.register_structure_hook(str, lambda value, _: value)
converter.register_unstructure_hook_func(lambda t: t == dict[str, Any], lambda value: value)
converter.register_unstructure_hook_factory(_is_model, _unstructure_factory)
converter.register_structure_hook_factory(_is_model, _structure_factory)
