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

    release gate (docs/release.md):
    capture_snapshot(manifest_path) -> snapshot      diff_snapshots(baseline, candidate) -> diff
    decide_release(baseline, candidate, policy, plan, receipts, adapter_kind, approval)
        -> (decision, diff)
    run_impacted_suites(plan, plan_path, impacted_tags, adapter) -> {suite_id: receipt}
    release_pack_files(...) -> (files, decision), write_release_pack(dest, files),
    verify_release_pack(pack) -> (decision | None, problems), release_receipt_name(suite_id)
    oscal_assessment_results(decision, assessment_plan_href) -> OSCAL assessment-results
    release_digest(value), release_bytes(value)     aau-harness 1.6 release hashing / rendering
    release_group (the click group behind `aau release`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aau_core._lazy import lazy_exports

# Names load on first use (PEP 562), so `aau --help` stays fast.
_EXPORTS = {
    "evidence_group": "._cli_evidence",
    "STATUS_ORDER": "._capsule",
    "check_capsule": "._capsule",
    "derive_status": "._capsule",
    "find_root": "._capsule",
    "read_capsule": "._capsule",
    "build_comparison": "._comparison",
    "PackVerificationError": "._evidence_pack",
    "pack_problems": "._evidence_pack",
    "verify_evidence_pack": "._evidence_pack",
    "write_evidence_pack": "._evidence_pack",
    "LEVELS": "._evidence_levels",
    "Finding": "._privacy_scan",
    "PackedReceipt": "._evidence_levels",
    "SubmissionReport": "._submit",
    "build_submission": "._submit",
    "card_network": "._privacy_scan",
    "derive_checks": "._evidence_levels",
    "level_of": "._evidence_levels",
    "luhn_valid": "._privacy_scan",
    "resolve_metadata": "._submit_documents",
    "scan_fields": "._privacy_scan",
    "scan_text": "._privacy_scan",
    "ssn_valid": "._privacy_scan",
    "submit_group": "._cli_submit",
    "validate_pack": "._submit",
    "capture_snapshot": "._release_snapshot",
    "decide_release": "._release_decision",
    "diff_snapshots": "._release_diff",
    "oscal_assessment_results": "._oscal",
    "release_bytes": "._release_documents",
    "release_digest": "._release_documents",
    "release_group": "._cli_release",
    "release_pack_files": "._release_pack",
    "release_receipt_name": "._release_pack",
    "run_impacted_suites": "._release_suites",
    "verify_release_pack": "._release_pack",
    "write_release_pack": "._release_pack",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ._capsule import STATUS_ORDER, check_capsule, derive_status, find_root, read_capsule
    from ._cli_evidence import evidence_group
    from ._cli_release import release_group
    from ._cli_submit import submit_group
    from ._comparison import build_comparison
    from ._evidence_levels import LEVELS, PackedReceipt, derive_checks, level_of
    from ._evidence_pack import (
        PackVerificationError,
        pack_problems,
        verify_evidence_pack,
        write_evidence_pack,
    )
    from ._oscal import oscal_assessment_results
    from ._privacy_scan import (
        Finding,
        card_network,
        luhn_valid,
        scan_fields,
        scan_text,
        ssn_valid,
    )
    from ._release_decision import decide_release
    from ._release_diff import diff_snapshots
    from ._release_documents import release_bytes, release_digest
    from ._release_pack import (
        release_pack_files,
        release_receipt_name,
        verify_release_pack,
        write_release_pack,
    )
    from ._release_snapshot import capture_snapshot
    from ._release_suites import run_impacted_suites
    from ._submit import SubmissionReport, build_submission, validate_pack
    from ._submit_documents import resolve_metadata

__version__ = "2.0.0.dev0"

__all__ = [
    "evidence_group",
    "STATUS_ORDER",
    "check_capsule",
    "derive_status",
    "find_root",
    "read_capsule",
    "build_comparison",
    "PackVerificationError",
    "pack_problems",
    "verify_evidence_pack",
    "write_evidence_pack",
    "LEVELS",
    "Finding",
    "PackedReceipt",
    "SubmissionReport",
    "build_submission",
    "card_network",
    "derive_checks",
    "level_of",
    "luhn_valid",
    "resolve_metadata",
    "scan_fields",
    "scan_text",
    "ssn_valid",
    "submit_group",
    "validate_pack",
    "capture_snapshot",
    "decide_release",
    "diff_snapshots",
    "oscal_assessment_results",
    "release_bytes",
    "release_digest",
    "release_group",
    "release_pack_files",
    "release_receipt_name",
    "run_impacted_suites",
    "verify_release_pack",
    "write_release_pack",
]
