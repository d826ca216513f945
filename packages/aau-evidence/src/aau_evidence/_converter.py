"""The one cattrs converter of aau-evidence.

Built by ``aau_baseline.document_converter()``, so it has the same preconfiguration (scalars
pass through unchanged after the schema check, tuples become arrays, ``optional_field()`` fields
are omitted when ``None``, ``document_field(json=)`` renames, ``document_field(document=False)``
values are never written); see ``aau_baseline._converter``. It structures aau-evidence's models
(``_models``, ``_submission_models``) and the human-baseline models a capsule binds, always after
the document passed its schema.
"""

from __future__ import annotations

from typing import Any, TypeVar

from aau_baseline import document_converter

T = TypeVar("T")

converter = document_converter()
"""aau-evidence's converter (capsules, observations, reproductions, comparisons, pack manifests)."""


def structure(doc: Any, cls: type[T]) -> T:
    """``doc`` (already valid against its schema) as a ``cls`` model."""
    return converter.structure(doc, cls)


def unstructure(model: Any) -> Any:
    """A model as its JSON document (dicts, lists, scalars)."""
    return converter.unstructure(model)
