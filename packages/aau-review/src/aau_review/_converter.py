"""The one cattrs converter of aau-review, built by aau-core's document converter factory.

The review models (``_models``) are frozen attrs classes declared with aau-core's field
helpers; the strategies are those of ``aau_core._files._converter`` (its module docstring): a
document is checked against its schema before it is structured (``_documents``), a writer
unstructures its model and renders it with the canonical writer (sorted keys); numbers stay as the
document has them; a model's tuples are the document's arrays; the open objects (a unit's input,
response and expected, a model rater's settings) are ``dict[str, Any]`` passed through. Closed
models refuse keys they do not name (``forbid_extra_keys``), a second guard behind the schema.
No hook here is review-only.
"""

from __future__ import annotations

from aau_core._files._converter import make_document_converter  # internal to the monorepo

converter = make_document_converter(forbid_extra_keys=True)
"""The package's one converter: ``converter.structure(doc, Model)`` after the schema check,
``converter.unstructure(model)`` to write."""
