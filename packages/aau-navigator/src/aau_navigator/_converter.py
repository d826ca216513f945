"""The one cattrs converter of aau-navigator: navigator documents <-> frozen attrs models.

Built by aau-core's factory (``aau_core._files._converter.make_document_converter``), so the
navigator's models follow aau-core's rules: checked against the schema before structuring (the
converter coerces nothing), one field per document key in the document's order,
``optional_field()`` keys left out while ``None``, tuples in the models and lists in the
documents, ``__aau_document_keys__`` for keys derived from a property.

The models: ``CatalogEntry`` (kind ``catalog-entry``), ``DoctorReportDocument`` and ``Check``
(``doctor-report``), ``ResultEvidence`` (the run-result part of a gallery entry's
``evidence``, kind ``gallery-report``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import cattrs


@functools.cache
def navigator_converter() -> cattrs.Converter:
    """aau-navigator's converter (aau-core's document hooks), built once on first use; call its
    ``structure(doc, cls)`` only on a document that passed its schema."""
    from aau_core._files._converter import make_document_converter  # monorepo internal

    return make_document_converter()
