"""The one cattrs converter of aau-adapters, built by aau-core's document converter factory.

Every model of the package (``_suite_models``, ``_protocol_models``, ``_receipt_models``) is a
``@attrs.frozen(kw_only=True)`` class whose field names are the document's JSON keys (every key
of these schemas is a Python name, so no field is renamed), declared with aau-core's field
helpers; the strategies are those of ``aau_core._files._converter`` (its module docstring):

- an optional key that is never ``null`` is an ``optional_field()`` (``None`` = absent), one that
  may be (a suite's ``description``) an ``optional_field(nullable=True)`` (``ABSENT`` = absent);
  either is left out while at its default, a required-but-nullable key (a private row's
  ``error``) is a plain field, always written;
- an open object (suites, cases, ``expected``, the raw adapter response) keeps the keys it does
  not name in its ``open_extra()`` field; a closed one refuses them (``forbid_extra_keys``: rows
  and provenance built in code are structured without a schema check in front);
- numbers and strings stay as the document has them (an integral ``timeout_s`` stays ``30``);
- free-form JSON objects (``dict[str, Any]``: a case's ``input``, a response) pass through
  unstructuring uncopied (``share_free_form``): a receipt shares them with its model, as the
  documents built by hand always shared a case's ``input`` with the suite, and a private receipt
  of 20,000 units is written without copying 60,000 dicts;
- timestamps (``started_at``, ``finished_at``) are typed ``str``: the RFC 3339 strings as written,
  since parsing and formatting them could change their bytes.

No hook here is adapters-only. The field helpers are re-exported for the drift tests.
"""

from __future__ import annotations

from aau_core._files._converter import (  # internal to the monorepo
    ABSENT,
    extra_field,
    is_optional,
    json_fields,
    make_document_converter,
)

__all__ = ["ABSENT", "converter", "extra_field", "is_optional", "json_fields"]

converter = make_document_converter(forbid_extra_keys=True, share_free_form=True)
"""The package's one converter (module docstring): ``converter.structure(doc, Model)`` after the
schema check, ``converter.unstructure(model)`` to write."""
