"""The one cattrs converter of aau-labs: lab documents <-> frozen attrs models.

Built by aau-core's factory (``aau_core._files._converter.make_document_converter``), so the lab
models follow aau-core's rules: a document is checked against its schema before it is
structured (the converter coerces nothing), a field is the document key of the same name, in
field order, ``optional_field()`` keys are left out while ``None``, arrays are tuples in the
models and lists in the documents, free-form values (``dict[str, Any]``) pass through.

One difference, on purpose: detailed validation is off. Every document reaching
``structure_lab`` has passed its schema, so the only errors left are the models' own checks
(``PublicValueContract`` raises ``ValueError`` for held evidence that is not required); they
propagate as raised, not wrapped in a ``cattrs.ClassValidationError``, so callers keep
aau-harness 1.6's exception types.

The models: ``GateContract`` and ``GateScenario`` (kind ``gate-scenarios``),
``CompiledContract`` and ``ContractScenario`` (``contract-scenarios``), ``ServiceScenario``
(``service-scenarios``), ``PublicValueContract`` (``public-value-contract``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import cattrs

T = TypeVar("T")


@functools.cache
def lab_converter() -> cattrs.Converter:
    """aau-labs' converter: aau-core's document hooks, detailed validation off (module
    docstring), built once on first use."""
    from aau_core._files._converter import make_document_converter  # monorepo internal

    conv = make_document_converter()
    conv.detailed_validation = False
    return conv


def structure_lab(doc: Any, cls: type[T]) -> T:
    """Structure a schema-valid lab document (or item of one) as the model ``cls``.

    Args:
        doc: the parsed JSON value, already checked against its schema.
        cls: the attrs model.

    Returns:
        the model instance.

    Raises:
        ValueError: a rule the model checks and the schema cannot say (raised by ``cls``).
    """
    return lab_converter().structure(doc, cls)


def unstructure_lab(obj: Any) -> Any:
    """``obj`` (a lab model, or lists of them) as plain JSON values (tuples as lists)."""
    return lab_converter().unstructure(obj)
