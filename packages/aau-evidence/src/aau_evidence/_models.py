"""The impact-capsule family (``schemas/evidence/v1``) as frozen attrs models.

One class per object of each schema, named for it; field names are the JSON keys. Documents aau
only reads (capsule, public-value observation, impact reproduction) carry their fixed values as
plain fields, checked by the schema; documents aau writes (comparison, pack manifest) get them as
defaults, so a writer never spells them out. The privacy block is one class for the three
formats that share it. ``MODELS`` maps each schema kind to its class; ``tests/test_models.py``
keeps every class equal to its schema and round-trips every valid example.

Convert with the package's one converter (``_converter.converter``): ``structure`` only after
the schema check, ``unstructure`` to write.
"""

from __future__ import annotations

from typing import Any

import attrs
from aau_core._files._converter import optional_field  # internal to the monorepo

COMPARISON_VERSION = "aau-impact-comparison/1.0"
PACK_VERSION = "aau-impact-pack/1.0"
CAPSULE_BOUNDARY = (
    "This capsule binds declared public artifacts and visible gaps. It does not verify identity, "
    "institutional review, causal impact, production fitness, certification, government "
    "endorsement, workforce performance, or authority to deploy or automate a protected decision."
)
"""The capsule format's fixed boundary sentence (aau-impact-capsule/1.0), repeated by the
comparison."""


@attrs.frozen
class PublicPrivacy:
    """The fixed privacy block of capsules, observations and reproductions: aggregate only."""

    participant_level_data_included: bool = False
    direct_identifiers_included: bool = False
    free_text_responses_included: bool = False
    production_records_included: bool = False
    credentials_included: bool = False
    aggregate_only: bool = True


@attrs.frozen(kw_only=True)
class SuiteArtifact:
    """The bound suite file (path, SHA-256) and what the capsule says about it."""

    artifact_id: str
    kind: str
    path: str
    sha256: str
    classification: str
    suite_id: str
    suite_kind: str
    scenario_count: int
    provenance_note: str


@attrs.frozen(kw_only=True)
class PrimaryMetric:
    """The agent receipt's headline measurement (a rate with its 95 % interval)."""

    name: str
    value: float
    interval_95: tuple[float, float]
    scenario_count: int
    repeats: int
    observation_count: int
    mean_cost_per_scenario_usd: float
    p50_latency_s: float


@attrs.frozen(kw_only=True)
class AgentReceiptArtifact:
    """The bound aggregate agent receipt and how it binds the suite."""

    artifact_id: str
    kind: str
    path: str
    sha256: str
    classification: str
    receipt_kind: str
    model: str
    suite_binding: str
    scenario_ids_sha256: str
    primary_metric: PrimaryMetric


@attrs.frozen(kw_only=True)
class HumanStudyArtifact:
    """The bound blinded human-baseline study."""

    artifact_id: str
    kind: str
    path: str
    sha256: str
    classification: str


@attrs.frozen(kw_only=True)
class HumanBaselineArtifact:
    """The bound aggregate human-baseline report and the figures the capsule quotes from it."""

    artifact_id: str
    kind: str
    path: str
    sha256: str
    classification: str
    report_version: str
    study_sha256: str
    session_count: int
    observed_human_sessions: int
    exact_rate: float
    abstain_rate: float
    institutional_basis_attested: bool
    institutional_basis_verified_by_aau: bool


@attrs.frozen(kw_only=True)
class ObservationArtifact:
    """The bound public-value observation record."""

    artifact_id: str
    kind: str
    path: str
    sha256: str
    classification: str
    observation_kind: str
    metric_ids: list[str]
    causal_claim: bool


@attrs.frozen(kw_only=True)
class ReproductionArtifact:
    """The bound independent reproduction record."""

    artifact_id: str
    kind: str
    path: str
    sha256: str
    classification: str
    organization_id: str
    outcome: str
    independence_attested: bool
    independence_verified_by_aau: bool


@attrs.frozen(kw_only=True)
class ReviewReportArtifact:
    """The bound review report (1.1): its file, and the SHA-256 of the receipt it reviews (the
    capsule's agent receipt)."""

    artifact_id: str
    kind: str
    path: str
    sha256: str
    classification: str
    report_version: str
    receipt_sha256: str


@attrs.frozen(kw_only=True)
class CapsuleArtifacts:
    """The artifact slots; the four evidence slots are ``None`` until bound; ``review_report``
    (1.1) is absent (``None``) unless a review report is bound."""

    suite: SuiteArtifact
    agent_receipt: AgentReceiptArtifact
    human_study: HumanStudyArtifact | None
    human_baseline: HumanBaselineArtifact | None
    public_value_observation: ObservationArtifact | None
    reproduction: ReproductionArtifact | None
    review_report: ReviewReportArtifact | None = optional_field()


@attrs.frozen(kw_only=True)
class PlannedMetric:
    """One row of the capsule's measurement plan."""

    metric_id: str
    name: str
    unit: str
    direction: str
    affected_group: str
    baseline_source: str
    measurement_window: str
    method: str
    limitation: str


@attrs.frozen(kw_only=True)
class PartnerCall:
    """Whether and how a partner may contribute evidence."""

    open: bool
    role: str
    contribution: str
    contact_url: str
    prohibited_data: list[str]


@attrs.frozen(kw_only=True)
class HumanAuthority:
    """Who stays accountable, and what the agent may and must not do."""

    accountable_role: str
    protected_decisions: list[str]
    agent_may: list[str]
    agent_must_not: list[str]


@attrs.frozen(kw_only=True)
class EvidenceQuality:
    """The capsule's evidence-quality labels (coupled to its derived status)."""

    relevance_and_utility: str
    rigor: str
    independence: str
    transparency: str
    ethics: str


@attrs.frozen(kw_only=True)
class Transfer:
    """When the result holds, fails, and must be revalidated."""

    holds_when: list[str]
    fails_when: list[str]
    revalidate_on: list[str]


@attrs.frozen(kw_only=True)
class Source:
    """A public source the capsule relies on (``reviewed_at`` is the schema's date string)."""

    title: str
    publisher: str
    url: str
    reviewed_at: str
    supports: str


@attrs.frozen(kw_only=True)
class ImpactCapsule:
    """``aau-impact-capsule/1.0`` or ``/1.1``: artifacts bound by path and SHA-256, and a derived
    status."""

    capsule_version: str
    capsule_id: str
    title: str
    mission: str
    service_area: str
    origin: str
    status: str
    beneficiaries: list[str]
    artifacts: CapsuleArtifacts
    measurement_plan: list[PlannedMetric]
    partner_call: PartnerCall
    human_authority: HumanAuthority
    evidence_quality: EvidenceQuality
    privacy: PublicPrivacy
    transfer: Transfer
    sources: list[Source]
    limitations: list[str]
    boundary: str


@attrs.frozen(kw_only=True)
class MetricResult:
    """One observed metric of a public-value observation."""

    metric_id: str
    baseline_value: float
    observed_value: float
    unit: str
    direction: str
    window: str
    affected_group: str
    uncertainty: str
    limitation: str


@attrs.frozen(kw_only=True)
class ObservationDecision:
    """What the accountable role decided after the observation."""

    accountable_role: str
    outcome: str
    conditions: list[str]


@attrs.frozen(kw_only=True)
class PublicValueObservation:
    """``aau-public-value-observation/1.0``: bounded aggregate measures under a declared method."""

    observation_version: str
    observation_id: str
    capsule_id: str
    method: str
    metric_results: list[MetricResult]
    causal_claim: bool
    decision: ObservationDecision
    privacy: PublicPrivacy
    limitations: list[str]
    boundary: str


@attrs.frozen
class SourceArtifact:
    """A capsule artifact a reproduction reran, by id and SHA-256."""

    artifact_id: str
    sha256: str


@attrs.frozen(kw_only=True)
class MetricCheck:
    """One reproduced value against its source value and tolerance."""

    name: str
    source_value: float
    reproduced_value: float
    tolerance: float
    within_tolerance: bool


@attrs.frozen(kw_only=True)
class ImpactReproduction:
    """``aau-impact-reproduction/1.0``: an organization-attested rerun of a capsule's artifacts."""

    reproduction_version: str
    reproduction_id: str
    source_capsule_id: str
    source_capsule_version: str
    source_artifacts: list[SourceArtifact]
    organization_id: str
    independence_attested: bool
    scope: str
    environment: str
    outcome: str
    metric_checks: list[MetricCheck]
    divergences: list[str]
    limitations: list[str]
    privacy: PublicPrivacy
    boundary: str


@attrs.frozen(kw_only=True)
class AgentMeasurement:
    """The agent's primary measurement, as the comparison repeats it."""

    name: str
    value: float
    interval_95: tuple[float, float]
    observation_count: int


@attrs.frozen(kw_only=True)
class HumanComparator:
    """The aggregate human comparator, as the comparison repeats it."""

    exact_rate: float
    abstain_rate: float
    session_count: int
    observed_human_sessions: int


@attrs.frozen(kw_only=True)
class ComparisonReproduction:
    """A bound reproduction's outcome; aau never verifies independence."""

    outcome: str
    independence_attested: bool
    independence_verified_by_aau: bool = False


@attrs.frozen(kw_only=True)
class ComparisonClaims:
    """What a comparison claims: only ``causal_impact_proved`` can be true."""

    causal_impact_proved: bool
    institutional_review_verified_by_aau: bool = False
    identity_verified_by_aau: bool = False
    certification_proved: bool = False
    government_endorsement_proved: bool = False
    deployment_authorized: bool = False


@attrs.frozen(kw_only=True)
class CapsuleComparison:
    """``aau-impact-comparison/1.0``: what ``aau evidence compare`` prints and a pack's
    ``comparison.json`` holds (``human_minus_agent_exact_rate`` rounded to 4 places)."""

    capsule_id: str
    derived_status: str
    agent_measurement: AgentMeasurement
    human_comparator: HumanComparator | None
    human_minus_agent_exact_rate: float | None
    public_value_observed: bool
    reproduction: ComparisonReproduction | None
    missing_evidence: list[str]
    next_evidence: str
    claims: ComparisonClaims
    comparison_version: str = COMPARISON_VERSION
    boundary: str = CAPSULE_BOUNDARY


@attrs.frozen(kw_only=True)
class PackFile:
    """One manifest row: a packed file, its source path (``None`` for generated files), byte
    length and SHA-256."""

    path: str
    source_path: str | None
    bytes: int
    sha256: str


@attrs.frozen
class PackClaims:
    """The evidence pack manifest's fixed claims: byte integrity only."""

    byte_integrity_only: bool = True
    identity_verified: bool = False
    institutional_review_verified: bool = False
    causal_impact_proved: bool = False
    certification_proved: bool = False
    government_endorsement_proved: bool = False
    deployment_authorized: bool = False


@attrs.frozen(kw_only=True)
class EvidencePackManifest:
    """``aau-impact-pack/1.0`` (an evidence pack's ``manifest.json``), rows sorted by path."""

    capsule_id: str
    files: list[PackFile]
    pack_version: str = PACK_VERSION
    hash_algorithm: str = "sha256"
    claims: PackClaims = attrs.Factory(PackClaims)


MODELS: dict[str, type[Any]] = {
    "impact-capsule": ImpactCapsule,
    "public-value-observation": PublicValueObservation,
    "impact-reproduction": ImpactReproduction,
    "capsule-comparison": CapsuleComparison,
    "evidence-pack-manifest": EvidencePackManifest,
}
"""Schema kind -> the model of its documents."""
