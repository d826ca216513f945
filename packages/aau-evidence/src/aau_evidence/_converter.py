"""The one cattrs converter of aau-evidence, built by aau-core's document converter factory.

It structures aau-evidence's models (``_models``, ``_submission_models``) and the human-baseline
models a capsule binds, always after the document passed its schema, and unstructures them for
writing. The strategies are those of ``aau_core._files._converter`` (its module docstring), as
aau-baseline uses them (``aau_baseline._converter``): numbers stay as written, tuples are arrays,
``optional_field()`` keys are left out while ``None`` and ``optional_field(nullable=True)`` ones
while ``ABSENT`` (the submission verdict's 1.6-optional keys), every schema object is closed.

No hook here is evidence-only.
"""

from __future__ import annotations

from aau_core._files._converter import make_document_converter  # internal to the monorepo

converter = make_document_converter()
"""The package's one converter (capsules, observations, reproductions, comparisons, pack
manifests, submission verdicts and manifests)."""
