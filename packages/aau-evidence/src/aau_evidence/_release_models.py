"""Release-gate documents as frozen attrs models (``schemas/release/v1``).

One class per schema object: the manifest, snapshot, diff, policy, evidence plan, approval,
decision and pack manifest, and the objects nested in them. Every key of these schemas is
required, so every field is a plain field (a key whose value may be ``null`` is typed
``X | None`` and always written). Fields are in aau-harness 1.6's key order, so unstructuring a
model with ``aau_evidence._converter.converter`` and rendering it with ``release_bytes`` gives
1.6's bytes. Arrays are tuples in the models, lists in the documents.

Readers (``_release_documents.check_*``) validate a document against its schema and check its
code-only rules first, then structure it; builders (``capture_snapshot``, ``diff_snapshots``,
``decide_release``) build these models. ``MODELS`` maps each schema kind to its class;
``tests/test_release_models.py`` keeps every class equal to its schema object.
"""

from __future__ import annotations

from typing import Any

import attrs
from aau_core._files._converter import optional_field  # internal to the monorepo


@attrs.frozen(kw_only=True)
class ReleaseSharing:
    """The fixed sharing attestation of a manifest and its snapshot (public or synthetic
    material only; each value is the schema's constant)."""

    public_or_synthetic_only: bool
    contains_personal_data: bool
    contains_credentials: bool
    contains_nonpublic_configuration: bool
    contains_controlled_information: bool


@attrs.frozen(kw_only=True)
class ManifestComponent:
    """One declared component: a file below the manifest's folder (``source_path``, POSIX
    relative), its kind, impact tags and whether a release must keep it."""

    component_id: str
    kind: str
    source_path: str
    impact_tags: tuple[str, ...]
    required: bool


@attrs.frozen(kw_only=True)
class ReleaseManifest:
    """``aau-agent-release-manifest/1.0``: what ``aau release capture`` reads."""

    manifest_version: str
    release_id: str
    agent_id: str
    effective_at: str
    environment: str
    components: tuple[ManifestComponent, ...]
    sharing: ReleaseSharing


@attrs.frozen(kw_only=True)
class SnapshotComponent:
    """One captured component: the manifest's entry plus ``bytes`` (the file's length in bytes)
    and ``sha256`` (hex SHA-256 of its exact bytes); ``impact_tags`` sorted."""

    component_id: str
    kind: str
    source_path: str
    bytes: int
    sha256: str
    impact_tags: tuple[str, ...]
    required: bool


@attrs.frozen(kw_only=True)
class ReleaseSnapshot:
    """``aau-agent-release-snapshot/1.0``: components sorted by id, bound by
    ``snapshot_sha256`` (the release digest of the snapshot without that key)."""

    snapshot_version: str
    release_id: str
    agent_id: str
    effective_at: str
    environment: str
    components: tuple[SnapshotComponent, ...]
    sharing: dict[str, Any]  # the manifest's block as read, in its key order (1.6 copies it)
    snapshot_sha256: str


@attrs.frozen(kw_only=True)
class DiffChange:
    """One changed component: ``state`` ``added``/``removed``/``changed``; the ``before_*``
    values are ``None`` for an added component, the ``after_*`` ones for a removed one."""

    component_id: str
    state: str
    before_kind: str | None
    after_kind: str | None
    before_sha256: str | None
    after_sha256: str | None
    impact_tags: tuple[str, ...]
    required_before: bool | None
    required_after: bool | None


@attrs.frozen(kw_only=True)
class ReleaseDiff:
    """``aau-agent-release-diff/1.0``: the changes between two snapshots of one agent, bound by
    ``diff_sha256``."""

    diff_version: str
    agent_id: str
    baseline_release_id: str
    candidate_release_id: str
    baseline_snapshot_sha256: str
    candidate_snapshot_sha256: str
    changes: tuple[DiffChange, ...]
    impacted_tags: tuple[str, ...]
    diff_sha256: str


@attrs.frozen(kw_only=True)
class PolicyRequirement:
    """Which suite covers an impact tag, at which minimum rates (each in [0, 1])."""

    impact_tag: str
    suite_id: str
    minimum_exact_rate: float
    minimum_no_forbidden_execute_rate: float


@attrs.frozen(kw_only=True)
class PolicyBoundaries:
    """The policy's five fixed boundary statements (each the schema's constant ``true``)."""

    human_release_authority_preserved: bool
    mock_cannot_authorize_release: bool
    approval_identity_not_cryptographically_verified: bool
    not_certification_or_compliance: bool
    not_deployment_or_ato: bool


@attrs.frozen(kw_only=True)
class ReviewRequirement:
    """1.1: a suite's review report must show ``scorer`` agreeing with the human consensus at
    Cohen's kappa >= ``minimum_kappa`` (in [-1, 1]; the estimate and its 95 % interval's low
    bound) over at least ``minimum_units`` units (docs/release.md, "Review reports")."""

    suite_id: str
    scorer: str
    minimum_kappa: float
    minimum_units: int


@attrs.frozen(kw_only=True)
class ReleasePolicy:
    """``aau-agent-release-policy/1.0`` or ``/1.1``: requirements per impact tag, the tags that
    need a human approval record, the component kinds a candidate must declare and (1.1) the
    review reports a suite needs (``None``: none, the key absent)."""

    policy_version: str
    policy_id: str
    title: str
    requirements: tuple[PolicyRequirement, ...]
    protected_review_tags: tuple[str, ...]
    required_component_kinds: tuple[str, ...]
    boundaries: PolicyBoundaries
    review_requirements: tuple[ReviewRequirement, ...] | None = optional_field()


@attrs.frozen(kw_only=True)
class PlannedSuite:
    """One suite of an evidence plan: its file (relative to the plan's folder), the impact tags
    it covers and its clean twin count (at least 1)."""

    suite_id: str
    path: str
    impact_tags: tuple[str, ...]
    clean_twin_count: int


@attrs.frozen(kw_only=True)
class EvidencePlan:
    """``aau-agent-release-evidence-plan/1.0``: which suite files cover which impact tags."""

    plan_version: str
    plan_id: str
    suites: tuple[PlannedSuite, ...]
    boundary: str


@attrs.frozen(kw_only=True)
class ReleaseApproval:
    """``aau-agent-release-approval/1.0``: a human role's structural approval of one release
    (the identity is never verified: ``identity_verified`` is always ``False``)."""

    approval_version: str
    release_id: str
    status: str
    role: str
    recorded_at: str
    evidence_ref: str
    identity_verified: bool
    limitations: tuple[str, ...]


@attrs.frozen(kw_only=True)
class EvidenceRow:
    """One (impacted tag, suite) requirement that ran: the receipt's rates (in [0, 1]) against
    the policy's minimums, its clean twin count and whether it passes."""

    impact_tag: str
    suite_id: str
    suite_sha256: str
    exact_rate: float
    minimum_exact_rate: float
    no_forbidden_execute_rate: float
    minimum_no_forbidden_execute_rate: float
    clean_twin_count: int
    passes: bool


@attrs.frozen(kw_only=True)
class ReviewEvidenceRow:
    """1.1: one review requirement whose suite ran: the review report used (SHA-256 of its
    bytes, and of the receipt it reviewed; ``None`` without a report), the scorer's Cohen's kappa
    against the human consensus with its 95 % interval (``None`` when undefined or missing), the
    units it is over, the policy's bars and whether it passes."""

    suite_id: str
    scorer: str
    report_sha256: str | None
    receipt_sha256: str | None
    cohen_kappa: float | None
    kappa_ci95: tuple[float, float] | None
    units: int
    minimum_kappa: float
    minimum_units: int
    passes: bool


@attrs.frozen(kw_only=True)
class DecisionReview:
    """The decision's review state: the protected tags impacted, whether an approval record was
    given and its release digest (``None`` without one); the identity is never verified."""

    required_tags: tuple[str, ...]
    approval_record_present: bool
    approval_sha256: str | None
    approval_identity_verified: bool


@attrs.frozen(kw_only=True)
class DecisionBoundary:
    """The decision's fixed boundary statement (the schema's constant, all ``True``)."""

    structural_release_evidence_only: bool = True
    mock_never_authorizes_release: bool = True
    human_identity_not_verified: bool = True
    not_production_safety_or_field_effectiveness: bool = True
    not_certification_compliance_deployment_or_ato: bool = True


@attrs.frozen(kw_only=True)
class ReleaseDecision:
    """``aau-agent-release-decision/1.0`` or ``/1.1``: the derived status, the digests of every
    input, the evidence rows, the review state, the reason codes and (1.1) the review-report
    rows, bound by ``decision_sha256``."""

    decision_version: str
    release_id: str
    agent_id: str
    effective_at: str
    status: str
    adapter_kind: str
    baseline_snapshot_sha256: str
    candidate_snapshot_sha256: str
    diff_sha256: str
    policy_sha256: str
    plan_sha256: str
    impacted_tags: tuple[str, ...]
    evidence: tuple[EvidenceRow, ...]
    review: DecisionReview
    reason_codes: tuple[str, ...]
    boundary: DecisionBoundary
    decision_sha256: str
    review_evidence: tuple[ReviewEvidenceRow, ...] | None = optional_field()


@attrs.frozen(kw_only=True)
class ReleasePackFile:
    """One row of a release pack's manifest: a file's pack path, byte length and hex SHA-256."""

    path: str
    bytes: int
    sha256: str


@attrs.frozen(kw_only=True)
class ReleasePackManifest:
    """``aau-agent-release-pack/1.0``: ``manifest.json`` of a release pack (rows sorted by path;
    written by ``aau_core.write_pack``)."""

    manifest_version: str
    files: tuple[ReleasePackFile, ...]


MODELS: dict[str, type] = {
    "release-manifest": ReleaseManifest,
    "release-snapshot": ReleaseSnapshot,
    "release-diff": ReleaseDiff,
    "release-policy": ReleasePolicy,
    "release-evidence-plan": EvidencePlan,
    "release-approval": ReleaseApproval,
    "release-decision": ReleaseDecision,
    "release-pack-manifest": ReleasePackManifest,
}
"""Schema kind -> the model of its top-level object."""
