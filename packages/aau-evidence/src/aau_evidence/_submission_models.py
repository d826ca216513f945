"""Community-evidence submission documents as frozen attrs models: the validation verdict
(``aau submit --json``) and the pack manifest (``schemas/submission/v1``).

The submission, checks and privacy-scan documents keep their checked-dict form for now (their
builders and the checks derivation read them as dicts). ``MODELS`` maps each covered schema kind
to its class; ``tests/test_models.py`` keeps them equal to their schemas.
"""

from __future__ import annotations

from typing import Any

import attrs
from aau_baseline import ManifestFile
from aau_core._files._converter import optional_field  # internal to the monorepo

VALIDATION_VERSION = "aau-community-evidence-validation/1.0"
SUBMISSION_MANIFEST_VERSION = "aau-community-evidence-manifest/1.0"
VALIDATION_BOUNDARY = ("Evidence levels are derived from submitted artifacts. They are not "
                       "identity verification, certification, endorsement, production "
                       "validation, or authority to deploy.")


@attrs.frozen
class SubmissionScore:
    """aau's checks passed, of the total (9)."""

    passed: int
    total: int


@attrs.frozen(kw_only=True)
class SubmissionVerdict:
    """``aau-community-evidence-validation/1.0``: what ``aau submit --json`` prints.

    ``declared_level``, ``declared_checks_version`` and ``problems`` are optional in the schema
    (aau-harness 1.6 did not print them): ``ABSENT`` in a 1.6 verdict, always set by aau
    (``null`` included); ``problems`` is one ``file: $.path: message`` line per problem.
    """

    ready: bool
    path: str
    submission_id: str | None
    level: str | None
    score: SubmissionScore | None
    receipt_count: int
    file_count: int
    declared_level: str | None = optional_field(nullable=True)
    declared_checks_version: str | None = optional_field(nullable=True)
    problems: list[str] | None = optional_field()
    validation_version: str = VALIDATION_VERSION
    boundary: str = VALIDATION_BOUNDARY


@attrs.frozen
class SubmissionClaims:
    """The submission manifest's fixed claims: byte integrity only."""

    byte_integrity_only: bool = True
    identity_verified: bool = False
    certification_proved: bool = False
    production_validation_proved: bool = False
    government_endorsement_proved: bool = False


@attrs.frozen(kw_only=True)
class SubmissionManifest:
    """``aau-community-evidence-manifest/1.0``: SHA-256 and bytes of every other pack file
    (rows are ``aau_baseline.ManifestFile``, the same three fields)."""

    submission_id: str
    files: list[ManifestFile]
    manifest_version: str = SUBMISSION_MANIFEST_VERSION
    hash_algorithm: str = "sha256"
    claims: SubmissionClaims = attrs.Factory(SubmissionClaims)


MODELS: dict[str, type[Any]] = {
    "submission-validation": SubmissionVerdict,
    "submission-manifest": SubmissionManifest,
}
"""Schema kind -> the model of its documents."""
