"""aau-evidence: impact capsules, evidence packs, community submissions and release gates
(the aau-harness 1.6 ``aau-impact-capsule/1.0``, ``aau-evidence-pack/1.0``, submission and release
formats).

Public API::

    evidence_group (the click group behind `aau evidence`)

    impact capsules and evidence packs (docs/evidence.md):
    read_capsule(path) -> capsule       find_root(capsule_path) -> Path (the default --root)
    check_capsule(capsule, root, source=, verify_artifacts=True, locate=None) -> capsule
    derive_status(capsule) -> status    STATUS_ORDER
    build_comparison(capsule) -> aau-impact-comparison/1.0 document
    comparison_model(capsule) -> CapsuleComparison      the same, as its model
    ImpactCapsule, PublicValueObservation, ImpactReproduction, CapsuleComparison,
    EvidencePackManifest and their parts                 the documents as frozen attrs models
    write_evidence_pack(capsule_path, root, destination) -> summary
    verify_evidence_pack(pack) -> summary    pack_problems(pack) -> [line]
    PackVerificationError

    community submissions (docs/submit.md):
    build_submission(starter, receipts, out, metadata, package_version) -> SubmissionReport
    validate_pack(pack, today=None) -> SubmissionReport     resolve_metadata(...) -> metadata
    derive_checks(metadata, starter_manifest, suite, receipts, rules="aau"|"1.6") -> checks
    PackedReceipt, level_of(checks), LEVELS
    scan_text(text, field) -> [Finding], scan_fields({field: text}), luhn_valid, ssn_valid,
    card_network                                          the validated sensitive-data scan
    submit_group (the click command behind `aau submit`)
    SubmissionReport.verdict() -> SubmissionVerdict    SubmissionManifest, SubmissionClaims,
    SubmissionScore                                     the verdict and manifest as models

    release gate (docs/release.md):
    capture_snapshot(manifest_path) -> snapshot      diff_snapshots(baseline, candidate) -> diff
    decide_release(baseline, candidate, policy, plan, receipts, adapter_kind, approval)
        -> (decision, diff)
    run_impacted_suites(plan, plan_path, impacted_tags, adapter) -> {suite_id: receipt}
    release_pack_files(...) -> (files, decision), write_release_pack(dest, files),
    verify_release_pack(pack) -> (decision | None, problems), release_receipt_name(suite_id)
    oscal_assessment_results(decision, assessment_plan_href) -> OSCAL assessment-results
    release_digest(value), release_bytes(value)     aau-harness 1.6 release hashing / rendering
    ReleaseManifest, ReleaseSnapshot, ReleaseDiff, ReleasePolicy, EvidencePlan,
    ReleaseApproval, ReleaseDecision, ReleasePackManifest   the release documents as models
    release_group (the click group behind `aau release`)

Every public name is listed once, in ``_EXPORTS`` below (module -> names); ``__all__`` is derived
from it and names load on first use (PEP 562), so ``aau --help`` stays fast.
"""

from __future__ import annotations

from aau_core._lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._capsule": (
        "STATUS_ORDER",
        "check_capsule",
        "derive_status",
        "find_root",
        "read_capsule",
    ),
    "._cli_evidence": (
        "evidence_group",
    ),
    "._cli_release": (
        "release_group",
    ),
    "._cli_submit": (
        "submit_group",
    ),
    "._comparison": (
        "build_comparison",
        "comparison_model",
    ),
    "._evidence_levels": (
        "DRAFT",
        "LEVELS",
        "LEVEL_RANK",
        "PackedReceipt",
        "derive_checks",
        "level_of",
    ),
    "._evidence_pack": (
        "PackVerificationError",
        "pack_problems",
        "verify_evidence_pack",
        "write_evidence_pack",
    ),
    "._models": (
        "AgentMeasurement",
        "AgentReceiptArtifact",
        "CapsuleArtifacts",
        "CapsuleComparison",
        "ComparisonClaims",
        "ComparisonReproduction",
        "EvidencePackManifest",
        "EvidenceQuality",
        "HumanAuthority",
        "HumanBaselineArtifact",
        "HumanComparator",
        "HumanStudyArtifact",
        "ImpactCapsule",
        "ImpactReproduction",
        "MetricCheck",
        "MetricResult",
        "ObservationArtifact",
        "ObservationDecision",
        "PackClaims",
        "PackFile",
        "PartnerCall",
        "PlannedMetric",
        "PrimaryMetric",
        "PublicPrivacy",
        "PublicValueObservation",
        "ReproductionArtifact",
        "ReviewReportArtifact",
        "Source",
        "SourceArtifact",
        "SuiteArtifact",
        "Transfer",
    ),
    "._oscal": (
        "oscal_assessment_results",
    ),
    "._privacy_scan": (
        "Finding",
        "card_network",
        "luhn_valid",
        "scan_fields",
        "scan_text",
        "ssn_valid",
    ),
    "._release_decision": (
        "decide_release",
    ),
    "._release_diff": (
        "diff_snapshots",
    ),
    "._release_documents": (
        "release_bytes",
        "release_digest",
    ),
    "._release_models": (
        "EvidencePlan",
        "ReleaseApproval",
        "ReleaseDecision",
        "ReleaseDiff",
        "ReleaseManifest",
        "ReleasePackManifest",
        "ReleasePolicy",
        "ReleaseSnapshot",
    ),
    "._release_pack": (
        "release_pack_files",
        "release_receipt_name",
        "verify_release_pack",
        "write_release_pack",
    ),
    "._release_snapshot": (
        "capture_snapshot",
    ),
    "._release_suites": (
        "run_impacted_suites",
    ),
    "._submit": (
        "SubmissionReport",
        "build_submission",
        "validate_pack",
    ),
    "._submission_models": (
        "SubmissionClaims",
        "SubmissionManifest",
        "SubmissionScore",
        "SubmissionVerdict",
    ),
    "._submit_documents": (
        "resolve_metadata",
    ),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__version__ = "2.0.0.dev0"

__getattr__, __dir__ = lazy_exports(
    __name__, {name: module for module, names in _EXPORTS.items() for name in names})
