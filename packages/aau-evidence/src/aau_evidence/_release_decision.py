"""The release decision: blockers, review reasons and the derived status.

Rules (aau-harness 1.6, reference §1.5 "Release gate"), applied to checked inputs:

Blockers (any one makes the status ``release_blocked``):

- ``NO_RELEASE_CHANGE``: the diff holds no change;
- ``UNMAPPED_CHANGE_TAG:<tag>``: an impacted tag no policy requirement covers;
- ``REQUIRED_COMPONENT_MISSING:<kind>``: a kind the policy requires is absent from the candidate;
- ``REQUIRED_COMPONENT_REMOVED:<component_id>``: a component required in the baseline was removed;
- for each requirement whose tag is impacted: ``SUITE_NOT_PLANNED:<tag>:<suite>`` (the plan has
  no such suite, or the suite does not cover the tag), ``SUITE_NOT_RUN:<suite>`` (no receipt),
  ``SUITE_THRESHOLD_FAILED:<suite>:<tag>`` (the receipt's ``exact_rate`` or
  ``no_forbidden_execute_rate`` is under the requirement's minimum, its ``suite_id`` differs,
  or its ``release_gate.clean_twin_count`` is under 1).

A 1.1 policy's ``review_requirements`` add the review blockers of ``_release_review``
(``REVIEW_REPORT_MISSING``, ``REVIEW_REPORT_OTHER_SUITE``, ``REVIEW_SCORER_MISSING``,
``REVIEW_UNITS_BELOW_MINIMUM``, ``REVIEW_KAPPA_BELOW_BAR``) and make the decision 1.1 with its
``review_evidence`` rows; without them the decision is 1.0, as aau-harness 1.6 wrote it.

Without blockers the status is ``human_review_required`` when the adapter is the mock
(``MOCK_PROTOCOL_SELF_TEST_ONLY``) or a protected tag is impacted and no approval record is
given (``PROTECTED_HUMAN_APPROVAL_REQUIRED``); otherwise ``release_ready``. So a mock adapter
never yields ``release_ready``. Unlike 1.6, the adapter kind is also checked against every
receipt's ``adapter_kind``: a decision cannot claim ``command`` over mock receipts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from aau_core import InputError

from ._release_diff import diff_snapshots
from ._release_documents import (
    DECISION_VERSION,
    DECISION_VERSION_REVIEW,
    digest_without,
    release_digest,
)
from ._release_models import (
    DecisionBoundary,
    DecisionReview,
    EvidencePlan,
    EvidenceRow,
    ReleaseApproval,
    ReleaseDecision,
    ReleaseDiff,
    ReleasePolicy,
    ReleaseSnapshot,
)
from ._release_review import review_gate

BOUNDARY = DecisionBoundary()
"""The decision's fixed boundary statement (1.6's keys and order, every value ``True``)."""


def _blockers(diff: ReleaseDiff, candidate: ReleaseSnapshot, policy: ReleasePolicy) -> list[str]:
    impacted = set(diff.impacted_tags)
    out = [] if diff.changes else ["NO_RELEASE_CHANGE"]
    mapped = {r.impact_tag for r in policy.requirements}
    out += [f"UNMAPPED_CHANGE_TAG:{tag}" for tag in sorted(impacted - mapped)]
    kinds = {c.kind for c in candidate.components}
    out += [f"REQUIRED_COMPONENT_MISSING:{kind}"
            for kind in sorted(set(policy.required_component_kinds) - kinds)]
    out += [f"REQUIRED_COMPONENT_REMOVED:{c.component_id}" for c in diff.changes
            if c.state == "removed" and c.required_before]
    return out


def _evidence(policy: ReleasePolicy, plan: EvidencePlan, receipts: dict[str, dict[str, Any]],
              impacted: set[str]) -> tuple[list[EvidenceRow], list[str]]:
    planned = {s.suite_id: s for s in plan.suites}
    rows, blockers = [], []
    for requirement in policy.requirements:
        tag, suite_id = requirement.impact_tag, requirement.suite_id
        if tag not in impacted:
            continue
        plan_item = planned.get(suite_id)
        if plan_item is None or tag not in plan_item.impact_tags:
            blockers.append(f"SUITE_NOT_PLANNED:{tag}:{suite_id}")
            continue
        receipt = receipts.get(suite_id)
        if receipt is None:
            blockers.append(f"SUITE_NOT_RUN:{suite_id}")
            continue
        exact = receipt["metrics"]["exact_rate"]
        no_forbidden = receipt["metrics"]["no_forbidden_execute_rate"]
        twins = receipt["release_gate"]["clean_twin_count"]
        passes = (exact >= requirement.minimum_exact_rate
                  and no_forbidden >= requirement.minimum_no_forbidden_execute_rate
                  and receipt["suite_id"] == suite_id and twins >= 1)
        rows.append(EvidenceRow(
            impact_tag=tag, suite_id=suite_id, suite_sha256=receipt["suite_sha256"],
            exact_rate=exact, minimum_exact_rate=requirement.minimum_exact_rate,
            no_forbidden_execute_rate=no_forbidden,
            minimum_no_forbidden_execute_rate=requirement.minimum_no_forbidden_execute_rate,
            clean_twin_count=twins, passes=passes))
        if not passes:
            blockers.append(f"SUITE_THRESHOLD_FAILED:{suite_id}:{tag}")
    rows.sort(key=lambda row: (row.impact_tag, row.suite_id))
    return rows, blockers


def decide_release(baseline: ReleaseSnapshot, candidate: ReleaseSnapshot, policy: ReleasePolicy,
                   plan: EvidencePlan, receipts: dict[str, dict[str, Any]], adapter_kind: str,
                   approval: ReleaseApproval | None = None,
                   reviews: Mapping[str, tuple[str, Mapping[str, Any]]] | None = None,
                   ) -> tuple[ReleaseDecision, ReleaseDiff]:
    """Derive the release decision (see the module doc for the rules).

    Args:
        baseline, candidate: snapshot models of the same agent.
        policy, plan: checked policy and evidence plan models (``check_policy``, ``check_plan``).
        receipts: suite_id -> checked receipt document carrying ``release_gate`` (v1 or v2).
        adapter_kind: ``"command"``, ``"endpoint"``, ``"mock"`` or ``"python"``.
        approval: a checked approval record model, or ``None``.
        reviews: suite_id -> (SHA-256 of the file, checked review report document), for a 1.1
            policy's ``review_requirements`` (``_release_review``); ignored without them.

    Returns:
        ``(decision, diff)``: the ``aau-agent-release-decision/1.0`` model (with
        ``decision_sha256``) and the diff model it was derived from.

    Raises:
        aau_core.InputError: the snapshots belong to different agents; the approval approves
            another release; a receipt's ``adapter_kind`` differs from ``adapter_kind``.
    """
    for suite_id, receipt in sorted(receipts.items()):
        if receipt["adapter_kind"] != adapter_kind:
            raise InputError(f"receipt for {suite_id!r} was made by the {receipt['adapter_kind']} "
                             f"adapter, but the decision names the {adapter_kind} adapter",
                             path="$.adapter_kind")
    if approval is not None and approval.release_id != candidate.release_id:
        raise InputError(f"the approval approves {approval.release_id!r}, not the candidate "
                         f"{candidate.release_id!r}", path="$.release_id")
    diff = diff_snapshots(baseline, candidate)
    impacted = set(diff.impacted_tags)
    rows, suite_blockers = _evidence(policy, plan, receipts, impacted)
    review_rows, review_blockers = review_gate(policy, receipts, reviews or {})
    blockers = sorted(set(_blockers(diff, candidate, policy) + suite_blockers
                          + review_blockers))
    review_tags = sorted(impacted & set(policy.protected_review_tags))
    reasons = list(blockers)
    if not blockers:
        if adapter_kind == "mock":
            reasons.append("MOCK_PROTOCOL_SELF_TEST_ONLY")
        if review_tags and approval is None:
            reasons.append("PROTECTED_HUMAN_APPROVAL_REQUIRED")
    if blockers:
        status = "release_blocked"
    elif adapter_kind == "mock" or (review_tags and approval is None):
        status = "human_review_required"
    else:
        status = "release_ready"
    reviewed = policy.review_requirements is not None
    decision = ReleaseDecision(
        decision_version=DECISION_VERSION_REVIEW if reviewed else DECISION_VERSION,
        release_id=candidate.release_id,
        agent_id=candidate.agent_id, effective_at=candidate.effective_at, status=status,
        adapter_kind=adapter_kind, baseline_snapshot_sha256=baseline.snapshot_sha256,
        candidate_snapshot_sha256=candidate.snapshot_sha256, diff_sha256=diff.diff_sha256,
        policy_sha256=release_digest(policy), plan_sha256=release_digest(plan),
        impacted_tags=tuple(sorted(impacted)), evidence=tuple(rows),
        review=DecisionReview(
            required_tags=tuple(review_tags), approval_record_present=approval is not None,
            approval_sha256=release_digest(approval) if approval is not None else None,
            approval_identity_verified=False),
        reason_codes=tuple(sorted(reasons)), boundary=BOUNDARY, decision_sha256="",
        review_evidence=tuple(review_rows) if reviewed else None)
    decision = attrs.evolve(decision, decision_sha256=digest_without(decision, "decision_sha256"))
    return decision, diff
