"""The one cattrs converter of aau-baseline, built by aau-core's document converter factory.

The human-baseline models (``_models``, ``_summary``) are frozen attrs classes declared with
aau-core's field helpers; the strategies are those of ``aau_core._files._converter`` (its module
docstring). What they mean here:

- a document is checked against its schema **before** it is structured (``_documents``), and a
  writer unstructures its model, then renders it with the canonical writer of its format (sorted
  keys, so field order in a class never changes a byte);
- numbers stay as the document has them: a schema ``number`` holding ``75`` stays the int ``75``
  (``75.0`` would change the bytes and the legacy hashes of aau-harness 1.6 documents);
- a model's tuples are the document's arrays (``outcome_exact_wilson_95``);
- a value the model carries but its document never holds is a field with ``metadata={OMIT:
  True}`` (``HumanMetrics.fleiss_kappa_note``);
- every schema object of the family is closed, so no model has an ``open_extra()`` field; keys a
  model does not name are ignored when structuring (the schema check before it refuses them), as
  they always were.

No hook here is baseline-only.
"""

from __future__ import annotations

from aau_core._files._converter import make_document_converter  # internal to the monorepo

converter = make_document_converter()
"""The package's one converter: ``converter.structure(doc, Model)`` after the schema check,
``converter.unstructure(model)`` to write."""
