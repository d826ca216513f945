"""Reading and writing the package's documents through its models: a document is checked
against its schema, then structured (``structure_document``, aau-core's with the package's
``converter``); a model is unstructured for writing (``unstructure_document``). ``MODELS`` maps
each aau-schemas kind to its model.
"""

from __future__ import annotations

from typing import Any

from aau_core._files._converter import structure_document as _structure  # internal to the monorepo

from ._converter import converter
from ._protocol_models import AdapterRequest, AdapterResponse
from ._receipt_models import PrivateReceiptV1, PrivateReceiptV2, PublicReceiptV1, PublicReceiptV2
from ._suite_models import SuiteDocumentV1, SuiteDocumentV2, SuiteDocumentV3

MODELS: dict[str, type] = {
    "suite": SuiteDocumentV1,
    "suite-v2": SuiteDocumentV2,
    "suite-v3": SuiteDocumentV3,
    "adapter-request": AdapterRequest,
    "adapter-response": AdapterResponse,
    "receipt-v1": PublicReceiptV1,
    "receipt-v2": PublicReceiptV2,
    "private-receipt-v1": PrivateReceiptV1,
    "private-receipt-v2": PrivateReceiptV2,
}
"""aau-schemas kind -> the model class of its documents."""


def structure_document(kind: str, doc: Any, *, source: str | None = None) -> Any:
    """Check ``doc`` against schema ``kind``, then structure it into ``MODELS[kind]``.

    Args:
        kind: one of ``MODELS``' kinds (e.g. ``"receipt-v2"``).
        doc: the parsed JSON document.
        source: the file name put in front of every problem line.

    Returns:
        the model instance.

    Raises:
        KeyError: ``kind`` has no model here.
        aau_core.InvalidDocumentError: the document is of another kind or breaks its schema
            (every violation, each with its JSON path); nothing is structured then.
    """
    return _structure(kind, doc, MODELS[kind], source, converter=converter)


def unstructure_document(model: Any) -> dict[str, Any]:
    """Return the JSON document of a model (optional keys left at their default are omitted,
    arrays are lists); write it with ``aau_core.json_content``/``render_json``."""
    return converter.unstructure(model)
